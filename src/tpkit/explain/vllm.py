"""vLLM: the ledger of the tightest worker anchored on the numbers vLLM printed (``tpkit/logs/LEDGER.md``).

vLLM divides by ``2**30`` and says GiB (V0 says "GB" for the same GiB).  The KV budget is
``requested − non-KV memory`` (weights + non-torch + activation peak; − the CUDA-graph estimate from 0.21),
``requested = total × gpu_memory_utilization`` (``ceil`` from 0.33); the engine sizes every worker with the
smallest ``Available KV cache memory`` and cuts it into ``floor(available / bytes per block)`` blocks
(``vllm/v1/core/kv_cache_utils``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.logs import ParsedLog, RankView
from tpkit.units import Bytes
from tpkit.explain.refusals import REFUSED

__all__ = ["VllmAnchored", "anchor_vllm"]

_G = "GiB (vLLM divides by 2^30; V0 prints 'GB' for the same GiB)"


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmAnchored:
    rows: tuple[Row, ...]
    utilization: float | None
    total: Iv | None
    requested: Iv | None
    weights: Iv | None
    non_kv: Iv | None
    available: Iv | None
    graph_estimate: Iv | None
    tokens_printed: int | None
    tokens_predicted: tuple[int, int] | None
    token_bytes: float | None
    """KV bytes per token (all layers): from the model, else measured available / printed tokens"""
    token_bytes_source: str
    block_size: int
    per_worker: str | None = None
    """vLLM 0.8.2–0.11.0 (``VllmRules.capacity_per_worker``) with more than one worker: how the printed capacity
    line(s) pair with the workers whose available memory the log prints, in words (None otherwise)"""


def _min_available(parsed: ParsedLog):
    last = {}
    for a in parsed.anchors:
        if a.name == "available_kv" and a.size is not None and a.group is None:
            last[a.rank.label] = a
    return min(last.values(), key=lambda a: a.size.value.bytes) if last else None


def _report_block(parsed: ParsedLog, last) -> list:
    """The capacity lines of the start-up report that ends with ``last``: the "GPU KV cache size" lines printed
    one after the other (each followed by its "Maximum concurrency" line, so at most 3 lines apart)."""
    lines = sorted((a for a in parsed.anchors if a.name == "kv_tokens" and a.group is None and a.count is not None
                    and isinstance(a.count.value, int) and a.line_no <= last.line_no), key=lambda a: a.line_no)
    block = [last]
    for a in reversed(lines[:-1] if lines and lines[-1] is last else lines):
        if block[-1].line_no - a.line_no > 3:
            break
        block.append(a)
    return block


PER_WORKER_RELEASES = ((0, 8, 2), (0, 11, 0))
"""first and last vLLM release whose engine core prints one 'GPU KV cache size' line per worker
(``VllmRules.capacity_per_worker``)"""


def _may_print_per_worker(ctx: Context) -> bool:
    """Whether a release the log allows prints the capacity per worker while the rules that read it do not: no
    release printed nor inferred, or an inferred range (``_version_ends``) that overlaps ``PER_WORKER_RELEASES``."""
    import re

    if not (ctx.version or ctx.rules_version):
        return True
    ends = _version_ends(ctx)
    if ends is None:
        return False

    def parse(v: str) -> tuple[int, ...]:
        nums = tuple(int(x) for x in re.findall(r"\d+", v)[:3])
        return nums + (0,) * (3 - len(nums))

    lo, hi = parse(ends[0]), parse(ends[1])
    return lo <= PER_WORKER_RELEASES[1] and hi >= PER_WORKER_RELEASES[0]


def _per_worker(parsed: ParsedLog, rules, tp: int, pp: int, tok_a, available_a,
                release_known: bool = True, range_text: str | None = None) -> tuple[object, str | None]:
    """vLLM 0.8.2–0.11.0 print one "GPU KV cache size" line per worker, each from that worker's own available
    memory, and only then give every worker the smallest block count (``VllmRules.capacity_per_worker``; the
    engine core's ``_initialize_kv_caches`` calls ``get_kv_cache_config`` once per worker, in worker order, before
    ``unify_kv_cache_configs``).  The pool is the smallest line of the report; the returned anchor is that line
    (``tok_a`` itself when the rule does not apply) and the pairing in words: with fewer lines than workers the
    printed line may be another worker's than the one whose 'Available KV cache memory' the log shows.

    ``release_known`` False (no release printed, or a range inferred from the line formats that holds such a
    release while the rules reading the log are another's, ``_may_print_per_worker``): the rule is kept as a caveat in words when more than one worker runs and the log prints fewer capacity
    lines than workers — the pool is then not re-read from the lines (the release may print one line for all)."""
    world = tp * pp
    if tok_a is not None and not release_known and not rules.capacity_per_worker and world > 1:
        block = _report_block(parsed, tok_a)
        if len(block) < world:
            inferred = f"inferred {range_text} from the line formats; " if range_text else ""
            return tok_a, (f"the release is not printed ({inferred}the log is read with vLLM {rules.label} rules): vLLM "
                           "0.8.2–0.11.0 print one 'GPU KV cache size' line per worker, each from that worker's own "
                           "available memory, before every worker gets the smallest block count (v1/engine/core.py "
                           f"_initialize_kv_caches); the log prints {len(block)} line(s) for {world} workers, so "
                           "from such a release the printed line may be another worker's than the one whose "
                           "'Available KV cache memory' it shows; --engine-version reads it by that release")
    if tok_a is None or not rules.capacity_per_worker or rules.engine != "V1" or world <= 1:
        return tok_a, None
    block = _report_block(parsed, tok_a)
    smallest = min(block, key=lambda a: a.count.value)
    seen = sorted({a.rank.label for a in parsed.anchors if a.name == "available_kv" and a.group is None})
    text = (f"vLLM {rules.label} prints one 'GPU KV cache size' line per worker, each from that worker's own "
            "available memory, before every worker gets the smallest block count (v1/engine/core.py "
            "_initialize_kv_caches, 0.8.2–0.11.0): the pool is the smallest line")
    if len(block) >= world:
        text += f"; the log prints {len(block)} lines for {world} workers, the smallest {smallest.count.value:,}"
    else:
        shown = ", ".join(seen) if seen else "none"
        text += (f"; the log prints {len(block)} of the {world} workers' lines and the available memory of "
                 f"{len(seen)} worker(s) ({shown}; the smallest "
                 f"{available_a.size.text if available_a is not None else '—'}): the printed line may be another "
                 "worker's, whose available memory the log does not show")
    return smallest, text


def _rules(ctx: Context):
    from tpkit.engines.vllm.versions import RULES, resolve_rules

    try:
        return resolve_rules(ctx.rules_version) if ctx.rules_version else RULES["0.33"]
    except REFUSED:
        return RULES["0.33"]


def _token_bytes(ctx: Context, tp: int, pp: int, block: int, rules) -> tuple[object | None, str]:
    """The KV layout of the limiting rank (``engines.vllm.pages.build_layout``), with the mamba mode of a hybrid
    (``engines.vllm.mamba.mamba_mode``: prefix caching as the log states it, else the release default)."""
    if ctx.model is None:
        return None, "no model config"
    try:
        from tpkit.engines.vllm.mamba import mamba_mode
        from tpkit.engines.vllm.pages import build_layout
        from tpkit.parallel import ParallelSpec

        from tpkit.engines.vllm.kvdtype import checkpoint_kv_dtype, kv_dtype

        requested = str(ctx.get("kv_cache_dtype", "auto") or "auto")
        if requested.strip().lower() == "auto":  # a ModelOpt checkpoint's KV scheme, as the release applies it
            requested = checkpoint_kv_dtype(getattr(ctx.model, "quant", None), rules.release) or requested
        fmt = kv_dtype(requested, rules.release, mla=ctx.model.mla is not None, label=rules.label)
        nbytes = fmt.element_bytes or 2
        draft, spec_tokens, spec_how = _draft(ctx, tp, pp, nbytes, fmt)
        if draft == "refused":
            return None, spec_how
        mamba = None
        if "linear" in getattr(ctx.model, "kinds", ()) and rules.engine == "V1":
            cc = getattr(ctx.gpu, "compute_capability", None) if ctx.gpu is not None else None
            mamba = mamba_mode(ctx.model, rules, spec_tokens=spec_tokens,
                               prefix_caching=ctx.get("enable_prefix_caching"), compute_capability=cc)
        page_rules = rules
        if ctx.spec is not None and ctx.spec.eagle_family:  # as the plan: chunked-local + EAGLE, hybrid manager off
            from dataclasses import replace

            page_rules = replace(rules, chunked_local_hybrid=False)
        layout = build_layout(ctx.model, ParallelSpec(tp=tp, pp=pp), block_size=block, era=rules.era,
                              dtype_bytes=nbytes, dtype_name=fmt.element_dtype or "bfloat16", rules=page_rules,
                              mamba=mamba, kv_format=fmt, draft=draft, spec_tokens=spec_tokens)
        how = f"; mamba {mamba.mode}: {mamba.reason}" if mamba is not None else ""
        how += _draft_text(layout, draft, spec_how, ctx)
        if fmt.layout == "nvfp4":
            how += f"; --kv-cache-dtype {fmt.name}: h/2 data + h/16 scale bytes per head vector"
        return layout, f"{layout.bytes_per_block.bytes:,} B per block of {layout.block_size} ({ctx.model_source}){how}"
    except REFUSED as exc:
        return None, f"block not computable ({type(exc).__name__}: {str(exc)[:120]})"


def _draft(ctx: Context, tp: int, pp: int, kv_bytes: int, fmt) -> tuple[object, int, str]:
    """(the drafter's KV layers or None — "refused" when they cannot be rebuilt —, speculative tokens per step,
    the words): the plan's drafter (``engines.vllm.drafter.drafter_kv``, the same layers ``tpkit plan
    --speculative-config`` puts in the pages) for the run's speculative config (``Context.spec``)."""
    spec = ctx.spec
    if spec is None:
        return None, 0, ""
    if spec.has_drafter and fmt.layout != "dense":
        return "refused", 0, (f"block not computable: --kv-cache-dtype {fmt.name} with a speculative drafter "
                              "(tpkit does not model the drafter's packed KV pages, as tpkit plan)")
    from tpkit.engines.vllm.drafter import drafter_kv
    from tpkit.errors import TpkitError
    from tpkit.parallel import ParallelSpec

    try:
        kv, tokens, source = drafter_kv(ctx.model, spec, ParallelSpec(tp=tp, pp=pp), kv_bytes=kv_bytes)
    except TpkitError as exc:
        return "refused", 0, (f"block not computable: the {spec.method} drafter of the speculative config "
                              f"({ctx.spec_source}) cannot be sized ({str(exc)[:160]}); pass --speculative-config "
                              "with \"model\": the draft's config.json, directory or HF id")
    return kv, tokens, source


def _draft_text(layout, draft, source: str, ctx: Context) -> str:
    """The drafter's part of the page layout, in words (``engines.vllm.pages.build_layout``: vLLM registers the
    drafter's attention layers in the same forward context, so ``get_kv_cache_spec`` gives them pages)."""
    if ctx.spec is None:
        return f"; {ctx.spec_missing}" if ctx.spec_missing else ""
    spec = ctx.spec
    head = f"; speculative {spec.method} ({ctx.spec_source})"
    if draft is None:
        return head + ": no drafter model, no drafter KV layers"
    if not layout.draft_in_groups:
        where = ("their pages join every block of the one uniform-type group (vLLM ≥ 0.11 "
                 "UniformTypeKVCacheSpecs): + "
                 f"{layout.draft_bytes_per_block.bytes:,} B per block")
    elif layout.draft_merged:
        where = f"the same spec as the target's {draft.kind} layers: they join those groups"
    else:
        where = "another spec than the target's: a group of their own, page unified"
    return f"{head}: + {draft.num_layers} {draft.label} in the KV pages ({source}); {where}"


def _tokens(layout, available: Iv, ctx: Context, rules, pp: int) -> tuple[int, int]:
    """The printed token count for the low and high end of ``available`` (``engines.vllm.capacity.plan_capacity``:
    ≥ 0.21 int(max_concurrency × max_model_len), V1 < 0.21 blocks // groups × block, V0 blocks × block)."""
    from tpkit.engines.vllm.capacity import plan_capacity
    from tpkit.engines.vllm.inputs import derived_max_model_len

    length = int(ctx.get("context_length") or derived_max_model_len(ctx.model, rules)[0])
    batched = int(ctx.get("max_num_batched_tokens") or 2048)
    out = []
    for end in (available.low, available.high):
        cap = plan_capacity(layout, Bytes(max(end.bytes, 0)), max_model_len=length, max_num_batched_tokens=batched,
                            pp=pp, rules=rules)
        out.append(int(cap.tokens))
    return min(out), max(out)


def _tp_unknown(ctx: Context, pp: int, block: int, rules, available: Iv, layout, tb_source: str):
    """The layout when the log names no TP size (``context.tp_default_evidence`` found no default either): kept
    when every TP size of ``TP_CANDIDATES`` the model accepts rebuilds the same tokens (MLA: one latent head per
    rank); else None, with the rebuilt tokens per TP size in the source text (the cell of each rank is the model's
    KV heads ÷ tp, ``vllm/config/model.py get_num_kv_heads``, so one printed available memory fits several
    capacities)."""
    from tpkit.explain.context import TP_CANDIDATES

    seen: dict[tuple[int, int], list[int]] = {}
    for tp in TP_CANDIDATES:
        cand, _ = _token_bytes(ctx, tp, pp, block, rules)
        if cand is None:
            continue
        try:
            rng = _tokens(cand, available, ctx, rules, pp)
        except REFUSED:  # a length the rules refuse: leave this TP size out
            continue
        seen.setdefault(rng, []).append(tp)
    if len(seen) <= 1:
        return layout, tb_source + ("; tp not printed, the same for tp " + ", ".join(map(str, TP_CANDIDATES))
                                    if seen else "")
    each = "; ".join(f"tp {'/'.join(map(str, tps))} → {lo:,}–{hi:,}" for (lo, hi), tps in seen.items())
    why = ctx.tp_inferred.text() if ctx.tp_inferred is not None else (
        "nothing in the log bounds it: no 'Model loading took' line, world size, NCCL nranks or CUDA_VISIBLE_DEVICES")
    return None, f"tp not printed and the KV bytes per token depend on it ({each}; {why}): pass --tp"


def _version_ends(ctx: Context) -> tuple[str, str] | None:
    """(oldest, newest) release of an inferred range: "0.18–0.27" (``logs.engine.intersect_ranges``: the releases
    every line format allows), "≥ 0.18" (newest: the current rules, ``versions.CURRENT``); None for a printed
    release or none."""
    from tpkit.engines.vllm.versions import CURRENT
    from tpkit.logs.engine import release_range

    text = ctx.version or ""
    if "–" not in text and "≥" not in text:
        return None
    rng = release_range(text)
    if rng is None:
        return None
    (a, b, c), (x, y, z) = rng
    first = f"{a}.{b}" if c == 0 else f"{a}.{b}.{c}"
    last = CURRENT if x == 999 else (f"{x}.{y}" if z == 999 else f"{x}.{y}.{z}")
    return first, last


def _other_end(ctx: Context, tp: int, pp: int, block: int, rules, available: Iv, predicted: tuple[int, int],
               tb_source: str) -> tuple[tuple[int, int], str]:
    """Where the log's release is only known as a range and a release at the other end of it counts the KV cache
    by another rule (``VllmRules``: the tokens rule, the era, the engine), the range rebuilt under both rules,
    each named in the source text (``--engine-version`` on the command line picks one)."""
    from tpkit.engines.vllm.versions import resolve_rules

    ends = _version_ends(ctx)
    if ends is None:
        return predicted, tb_source
    seen = {(rules.tokens_rule, rules.era, rules.engine)}
    parts = [f"vLLM {rules.label} rules give {predicted[0]:,}–{predicted[1]:,} tokens ({rules.tokens_rule} rule)"]
    low, high = predicted
    for end in ends:
        try:
            other = resolve_rules(end)
        except REFUSED:
            continue
        if (other.tokens_rule, other.era, other.engine) in seen:
            continue
        layout, _ = _token_bytes(ctx, tp, pp, block, other)
        if layout is None:
            continue
        try:
            rng = _tokens(layout, available, ctx, other, pp)
        except REFUSED:
            continue
        seen.add((other.tokens_rule, other.era, other.engine))
        parts.append(f"vLLM {other.label} rules give {rng[0]:,}–{rng[1]:,} ({other.tokens_rule} rule)")
        low, high = min(low, rng[0]), max(high, rng[1])
    if len(parts) == 1:
        return predicted, tb_source
    return (low, high), (f"{tb_source}; the release is inferred from the line formats as {ctx.version}: "
                         + "; ".join(parts) + "; --engine-version picks one")


def anchor_vllm(parsed: ParsedLog, view: RankView, ctx: Context) -> VllmAnchored:
    rows: list[Row] = []
    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    rules = _rules(ctx)
    total_a = view.last("total_gpu_memory") or view.last("startup_total")
    total = None
    if total_a:
        total = iv_of(total_a.size)
        rows.append(printed_row("device total", total_a, f"cudaMemGetInfo total, {_G}"))
    elif parsed.run.gpu_total is not None:
        total = iv_of(parsed.run.gpu_total)
        rows.append(derived_row("device total", total, f"printed {parsed.run.gpu_total.text}", kind="printed"))
    elif ctx.gpu is not None:
        total = Iv(ctx.gpu.total_bytes, ctx.gpu.total_bytes)
        rows.append(derived_row(f"device total ({ctx.gpu.name})", total, f"catalog, {ctx.gpu_source}", kind="catalog"))
    u = ctx.get("mem_fraction")
    u_source = ctx.sources.get("mem_fraction", "")
    if u is None:
        u, u_source = rules.default_utilization, f"not printed: vLLM {rules.label if hasattr(rules, 'label') else ''} default"
    u = float(u)
    req_a = view.last("requested_memory")
    derived_req = None
    if total is not None:
        derived_req = total.scale(u)
        if rules.ceil_requested:
            derived_req = Iv(derived_req.low, derived_req.high + Bytes(1))
    if req_a:
        rows.append(printed_row("requested memory", req_a, f"total × gpu_memory_utilization {u} ({u_source}), {_G}",
                                derived=derived_req, derived_from="device total × utilization"))
        requested = iv_of(req_a.size)
    else:
        requested = derived_req
        if requested is not None:
            rows.append(derived_row("requested memory", requested,
                                    f"total × gpu_memory_utilization {u} ({u_source})"
                                    + (", ceil (≥ 0.33)" if rules.ceil_requested else "")))
    w = view.last("weights")
    weights = iv_of(w.size) if w else None
    if w:
        rows.append(printed_row("weights", w, f"'Model loading took' = torch-allocated bytes after − before the load, {_G}"))
    parts = []
    for name, item in (("non_torch_memory", "non-torch memory (CUDA context, NCCL, cuBLAS)"),
                       ("non_torch_increase", "non-torch increase during profiling"),
                       ("activation_peak", "activation peak (profile run)"),
                       ("torch_peak_increase", "torch peak increase (profile run)")):
        a = view.last(name)
        if a:
            rows.append(printed_row(item, a, f"{a.meaning}"))
            if name in ("non_torch_memory", "activation_peak") or (
                    name == "non_torch_increase" and not view.last("non_torch_memory")) or (
                    name == "torch_peak_increase" and not view.last("activation_peak")):
                parts.append(iv_of(a.size))
    ge = view.last("graph_estimate")
    graph_estimate = iv_of(ge.size) if ge else None
    if ge:
        rows.append(printed_row("CUDA-graph estimate", ge, f"CUDA-graph memory estimated before KV sizing (≥ 0.21), {_G}"))
    avail_a = _min_available(parsed) or view.last("available_kv")
    available = iv_of(avail_a.size) if avail_a else None
    non_kv = None
    if requested is not None and available is not None:
        non_kv = requested - available - (graph_estimate or Iv(Bytes(0), Bytes(0)))
    if avail_a:
        d = None
        if requested is not None and weights is not None and len(parts) >= 2:
            d = requested - weights - sum(parts, Iv(Bytes(0), Bytes(0))) - (graph_estimate or Iv(Bytes(0), Bytes(0)))
        rows.append(printed_row("available KV cache memory", avail_a,
                                f"requested − weights − non-torch − activation peak (− CUDA-graph estimate), the "
                                f"smallest over workers; {_G}", derived=d,
                                derived_from="requested − the printed non-KV terms", slack=Bytes(2**24)))
    if non_kv is not None:
        rows.append(derived_row("non-KV memory (residual)", non_kv,
                                "requested − available KV − CUDA-graph estimate = weights + non-torch + activation peak"
                                + (f"; weights {weights.text()} of it" if weights is not None else "")))
    nkv = view.last("non_kv_cache_memory")
    if nkv and non_kv is not None:
        rows.append(printed_row("non-KV memory (printed, DEBUG)", nkv, nkv.meaning, derived=non_kv,
                                derived_from="requested − available − graph estimate"))
    block = int(ctx.get("page_size", 16) or 16)
    tok_a, per_worker = _per_worker(parsed, rules, tp, pp, view.last("kv_tokens"), avail_a,
                                    release_known=not _may_print_per_worker(ctx), range_text=ctx.version)
    blocks_a = view.last("gpu_blocks")
    tokens_printed = None
    if tok_a and isinstance(tok_a.count.value, int):
        tokens_printed = tok_a.count.value
    elif blocks_a and isinstance(blocks_a.count.value, int):
        tokens_printed = blocks_a.count.value * block
    layout, tb_source = _token_bytes(ctx, tp, pp, block, rules)
    if layout is not None and ctx.get("tp") is None and available is not None:
        layout, tb_source = _tp_unknown(ctx, pp, block, rules, available, layout, tb_source)
    predicted = None
    token_bytes = None
    if layout is not None:
        token_bytes = layout.bytes_per_block.bytes / layout.block_size
        block = layout.block_size
        if available is not None:
            try:
                predicted = _tokens(layout, available, ctx, rules, pp)
            except REFUSED:  # a length the rules refuse: blocks × block size
                per_block = layout.bytes_per_block.bytes
                groups = max(1, len(getattr(layout, "groups", ()) or ()) if rules.tokens_rule == "groups" else 1)
                lo = max(available.low.bytes, 0) // per_block // groups * layout.block_size
                hi = max(available.high.bytes, 0) // per_block // groups * layout.block_size
                predicted = (int(lo), int(hi))
        if predicted is not None and available is not None:
            predicted, tb_source = _other_end(ctx, tp, pp, int(ctx.get("page_size", 16) or 16), rules, available,
                                              predicted, tb_source)
    elif tokens_printed and available is not None:
        token_bytes = available.mid.bytes / tokens_printed
        tb_source = "measured: available KV memory / printed tokens"
    if tok_a or blocks_a or predicted:
        check = None
        if predicted is not None and tokens_printed is not None:
            check = "reproduced" if predicted[0] <= tokens_printed <= predicted[1] else "differs"
        anchor = tok_a or blocks_a
        rows.append(Row(item="KV tokens", value=None,
                        count=tokens_printed if tokens_printed is not None else
                        (predicted[0] + predicted[1]) // 2 if predicted is not None else anchor.count.value,
                        kind="printed" if anchor else "derived",
                        meaning=f"floor(available / bytes per block) × block size; {tb_source}"
                        + (f"; {per_worker}" if per_worker else ""),
                        printed=anchor.count.text if anchor else None, line_no=anchor.line_no if anchor else None,
                        check=check,
                        note="" if predicted is None else f"rebuilt from the anchors: {predicted[0]:,}–{predicted[1]:,}"))
    mc = view.last("max_concurrency")
    if mc:
        rows.append(Row(item="maximum concurrency", value=None, count=mc.count.value, kind="printed",
                        meaning=mc.meaning, printed=mc.count.text, line_no=mc.line_no))
    return VllmAnchored(rows=tuple(rows), utilization=u, total=total, requested=requested, weights=weights,
                        non_kv=non_kv, available=available, graph_estimate=graph_estimate,
                        tokens_printed=tokens_printed, tokens_predicted=predicted, token_bytes=token_bytes,
                        token_bytes_source=tb_source, block_size=block, per_worker=per_worker)
