"""vLLM: the ledger of the tightest worker anchored on the numbers vLLM printed (``tpkit/logs/LEDGER.md``).

vLLM divides by ``2**30`` and says GiB (V0 says "GB" for the same GiB).  The KV budget is
``requested − non-KV memory`` (weights + non-torch + activation peak; − the applied CUDA-graph estimate, which the
printed peak activation holds on the ≥ 0.27 print and in 0.18.x: ``explain.vpeak``),
``requested = total × gpu_memory_utilization`` (``ceil`` from 0.33); the engine sizes every worker with the
smallest ``Available KV cache memory`` and cuts it into ``floor(available / bytes per block)`` blocks
(``vllm/v1/core/kv_cache_utils``).
"""

from __future__ import annotations

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.explain.vpeak import GraphEstimateUse, graph_estimate_use
from tpkit.explain.vtokens import Rebuilt, rebuild_tokens, log_rules
from tpkit.explain.vworkers import (may_print_per_worker, min_over_workers, per_worker_capacity, tightest_worker,
                                    worker_spread, workers_available)
from tpkit.hardware.gpu import is_amd
from tpkit.logs import ParsedLog, RankView
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["VllmAnchored", "anchor_vllm"]

_G = "GiB (vLLM divides by 2^30; V0 prints 'GB' for the same GiB)"


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmAnchored:
    """A vLLM log's anchored ledger: the rows and the intervals the capacity and the diagnosis are rebuilt from."""
    rows: tuple[Row, ...]
    utilization: float | None
    total: Iv | None
    requested: Iv | None
    weights: Iv | None
    non_kv: Iv | None
    available: Iv | None
    graph_estimate: Iv | None
    """the printed CUDA-graph estimate (applied or not: ``graph_use``)"""
    tokens_printed: int | None
    tokens_predicted: tuple[int, int] | None
    token_bytes: float | None
    """KV bytes per token (all layers): from the model, else measured available / printed tokens"""
    token_bytes_source: str
    block_size: int
    tokens_alternatives: tuple[tuple[int, int], ...] = ()
    """where the release is open and its ends count the tokens by different rules: the range under each rule
    (``tokens_predicted`` is their hull; ``explain.vtokens._other_end``); empty otherwise"""
    activation: Iv | None = None
    """the activation term of the profile run: the printed peak activation less the applied CUDA-graph estimate
    it holds (``explain.vpeak``), None where no peak activation is printed"""
    graph_use: GraphEstimateUse | None = None
    """the CUDA-graph estimate: printed, applied or not, inside the printed peak activation or not"""
    pool: Iv | None = None
    """vLLM ≥ 0.34 with the extensible KV cache (the log prints 'Memory after warmup'): the KV bytes measured after
    warm-up (``explain.vextensible``); ``available`` is then the profile's reservation, an upper bound"""
    warmup: object | None = None
    """the ``explain.vextensible.ExtensiblePool`` the pool was rebuilt from (its snapshot free, non-KV used, kept and
    peak terms: ``tpkit plan --from-log`` re-plans the extensible sizing with them, helper fl34), None otherwise"""
    per_worker: str | None = None
    """vLLM 0.8.2–0.11.0 (``VllmRules.capacity_per_worker``) with more than one worker: how the printed capacity
    line(s) pair with the workers whose available memory the log prints, in words (None otherwise)"""
    sized_by: str | None = None
    """the worker whose available memory sizes the pool where it is derived, not printed (a worker that prints only
    the DEBUG non-KV line and is tighter than every printed one: ``explain.vworkers``), None otherwise"""


def _min_available(parsed: ParsedLog):
    last = {}
    for a in parsed.anchors:
        if a.name == "available_kv" and a.size is not None and a.group is None:
            last[a.rank.label] = a
    return min(last.values(), key=lambda a: a.size.value.bytes) if last else None


def anchor_vllm(parsed: ParsedLog, view: RankView, ctx: Context) -> VllmAnchored:
    """The ledger of the tightest worker, step by step: the device total, the requested memory, the profile's
    non-KV terms, the available KV memory, the KV tokens (printed and rebuilt), the maximum concurrency."""
    rows: list[Row] = []
    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    rules = log_rules(ctx)
    total = _total_row(parsed, view, ctx, rows)
    u, requested = _requested_rows(view, ctx, rows, rules, total, parsed)
    use = graph_estimate_use(view, ctx.rules_version)
    weights, parts, activation = _profile_rows(view, rows, use)
    # vLLM ≥ 0.34's warm-up measurement (only an extensible KV cache prints it; explain.vextensible, imported then)
    extensible = any(a.name in ("warmup_free", "kv_extended_blocks") for a in parsed.anchors)
    avail_a, available, non_kv, sized_by = _available_rows(parsed, view, rows, requested, weights, parts, use,
                                                           extensible=extensible)
    # the release's default block where the log prints none (vLLM 0.34: 64, CacheConfig.DEFAULT_BLOCK_SIZE)
    block = int(ctx.get("page_size") or getattr(rules, "default_block_size", 16) or 16)
    release_known = not may_print_per_worker(ctx)
    last_line = view.last("kv_tokens")
    tok_a, per_worker = per_worker_capacity(parsed, rules, tp, pp, last_line, avail_a,
                                    release_known=release_known, range_text=ctx.version)
    line_available, spread_words = worker_spread(parsed, rules, tp, pp, last_line, available, release_known)
    # vLLM ≥ 0.34: the pool is the warm-up measurement, 'Available' the reservation (helper cur17b)
    pool = _extensible_rows(parsed, view, ctx, rows, requested, available, pp) if extensible else None
    if pool is not None:
        line_available, spread_words = pool.capped, pool.words
        rows.append(derived_row("KV pool the tokens are rebuilt from", pool.capped, pool.words))
        per_worker = None
    elif line_available is not None:
        rows.append(derived_row("available KV memory of the printed line's worker", line_available,
                                spread_words))
        per_worker = f"{per_worker}; {spread_words}" if per_worker else spread_words
    else:
        derived = frozenset(w[0] for w in workers_available(parsed, requested, use.applied) if w[3])
        line_available, min_words = min_over_workers(parsed, rules, tp, pp, available, release_known, derived)
        if line_available is not None:
            rows.append(derived_row("available KV memory of the smallest worker", line_available, min_words))
            per_worker = f"{per_worker}; {min_words}" if per_worker else min_words
    blocks_a = view.last("gpu_blocks")
    tokens_printed = _printed_tokens(tok_a, blocks_a, block)
    rebuilt = rebuild_tokens(ctx, rules, tp, pp, block, line_available or available, tokens_printed)
    if tok_a or blocks_a or rebuilt.predicted:
        rows.append(_tokens_row(tok_a or blocks_a, tokens_printed, rebuilt, per_worker or (
            pool.words if pool is not None else None)))
    mc = view.last("max_concurrency")
    if mc:
        rows.append(Row(item="maximum concurrency", value=None, count=mc.count.value, kind="printed",
                        meaning=mc.meaning, printed=mc.count.text, line_no=mc.line_no))
    return VllmAnchored(rows=tuple(rows), utilization=u, total=total, requested=requested, weights=weights,
                        non_kv=non_kv, available=available, graph_estimate=use.estimate,
                        activation=activation, graph_use=use,
                        tokens_printed=tokens_printed, tokens_predicted=rebuilt.predicted,
                        token_bytes=rebuilt.token_bytes, token_bytes_source=rebuilt.source, block_size=rebuilt.block,
                        tokens_alternatives=rebuilt.alternatives, per_worker=per_worker,
                        pool=pool.pool if pool is not None else None, warmup=pool, sized_by=sized_by)


def _extensible_rows(parsed: ParsedLog, view: RankView, ctx: Context, rows: list[Row], requested, available,
                     pp: int):
    """vLLM ≥ 0.34's extensible KV cache: the pool measured after warm-up (``explain.vextensible.extensible_pool``,
    imported here: logs of other releases never need it) and the printed 'Extended KV cache' row."""
    from tpkit.explain.vextensible import extensible_pool

    model = ctx.model
    segments = int(getattr(model, "num_layers", 0) or 0) // max(pp, 1) if model is not None else 0
    pool = extensible_pool(parsed, view, rows, requested=requested, reservation=available, segments=segments,
                           rocm=is_amd(getattr(ctx.gpu, "vendor", None)))
    ext, ext_n = view.last("kv_extended"), view.last("kv_extended_blocks")
    if ext:
        rows.append(printed_row("KV pool after warm-up (printed)", ext,
                                f"'Extended KV cache to {ext_n.count.text if ext_n else 'N'} blocks': the "
                                f"physical bytes of the final block count, each segment rounded to 2 MiB "
                                f"(extend_kv_cache); {_G}"))
    return pool


def _total_row(parsed: ParsedLog, view: RankView, ctx: Context, rows: list[Row]) -> Iv | None:
    """The device total: printed by vLLM, else printed elsewhere in the log, else the catalog GPU's."""
    total_a = view.last("total_gpu_memory") or view.last("startup_total")
    total = None
    if total_a:
        total = iv_of(total_a.size)
        rows.append(printed_row("device total", total_a, f"cudaMemGetInfo total, {_G}"))
    elif parsed.run.gpu_total is not None:
        total = iv_of(parsed.run.gpu_total)
        rows.append(derived_row("device total", total, f"printed {parsed.run.gpu_total.text}", kind="printed"))
    elif ctx.gpu is not None:
        total = Iv(low=ctx.gpu.total_bytes, high=ctx.gpu.total_bytes)
        rows.append(derived_row(f"device total ({ctx.gpu.name})", total, f"catalog, {ctx.gpu_source}", kind="catalog"))
    return total


def default_utilization(parsed: ParsedLog, ctx: Context, rules) -> tuple[float, str, bool]:
    """(gpu_memory_utilization, its source, whether it is assumed) for a log that prints none: the default of the
    log's release (``VllmRules.default_utilization``: 0.90 up to 0.19, 0.92 from 0.20.0).  A frame of V0's engine
    loop dates a log ≤ 0.10.2 where it prints no release (``logs.engine.V0_LOOP_FRAMES``, a format marker since round
    fx36: the one home of that dating), whose default is 0.90 (``EngineArgs`` ``gpu_memory_utilization: float = 0.90``
    in the 0.4.1, 0.5.5, 0.6.3.post1 and 0.8.0 wheels; ``CacheConfig``'s 0.9 in 0.10.2).  Where nothing dates the log,
    the current rules' default is assumed, and said (helper fx35a: a V0 log with no version printed was planned from
    0.33's 0.92)."""
    u = float(rules.default_utilization)
    if ctx.rules_version:
        return u, f"not printed: vLLM {rules.label} default", False
    return u, (f"not printed, no release dated: vLLM {rules.label}'s default {u:.2f} assumed (0.90 before "
               "0.20.0)"), True


def _requested_rows(view: RankView, ctx: Context, rows: list[Row], rules, total: Iv | None,
                    parsed: ParsedLog) -> tuple[float, Iv | None]:
    """(gpu_memory_utilization, requested memory): the printed requested memory checked against total × u (ceil
    from 0.33), else total × u; u not printed: ``default_utilization``."""
    u = ctx.get("mem_fraction")
    u_source = ctx.sources.get("mem_fraction", "")
    if u is None:
        u, u_source, _ = default_utilization(parsed, ctx, rules)
    u = float(u)
    req_a = view.last("requested_memory")
    derived_req = None
    if total is not None:
        derived_req = total.scale(u)
        if rules.ceil_requested:
            derived_req = Iv(low=derived_req.low, high=derived_req.high + Bytes(1))
    if req_a:
        rows.append(printed_row("requested memory", req_a, f"total × gpu_memory_utilization {u} ({u_source}), {_G}",
                                derived=derived_req, derived_from="device total × utilization"))
        return u, iv_of(req_a.size)
    if derived_req is not None:
        rows.append(derived_row("requested memory", derived_req,
                                f"total × gpu_memory_utilization {u} ({u_source})"
                                + (", ceil (≥ 0.33)" if rules.ceil_requested else "")))
    return u, derived_req


_PROFILE_TERMS = (("non_torch_memory", "non-torch memory (CUDA context, NCCL, cuBLAS)"),
                  ("non_torch_increase", "non-torch increase during profiling"),
                  ("activation_peak", "activation peak (profile run)"),
                  ("torch_peak_increase", "torch peak increase (profile run)"))
"""the profile's printed non-KV terms beside the weights (anchor name, ledger item)"""


def _profile_rows(view: RankView, rows: list[Row], use: GraphEstimateUse) -> tuple[Iv | None, list[Iv], Iv | None]:
    """(weights, the non-KV terms that add up to the non-KV memory, the activation term): the non-torch memory
    (else its increase) and the activation peak (else the torch peak increase) as printed, the activation peak
    less the applied CUDA-graph estimate where the print holds it (``explain.vpeak``); the estimate's row."""
    w = view.last("weights")
    weights = iv_of(w.size) if w else None
    if w:
        rows.append(printed_row("weights", w, f"'Model loading took' = torch-allocated bytes after − before the load, {_G}"))
    parts = []
    activation = None
    for name, item in _PROFILE_TERMS:
        a = view.last(name)
        if a:
            held = name == "activation_peak" and use.peak_holds
            rows.append(printed_row(item, a, f"{a.meaning}" + (f"; {use.peak_why}" if held else "")))
            term = iv_of(a.size)
            if name == "activation_peak":
                activation = term = use.activation(term)
                if held and use.applied is not None and use.applied.high.bytes > 0:
                    rows.append(derived_row("activation peak less the CUDA-graph estimate", term,
                                            "printed peak activation − the applied CUDA-graph estimate it holds "
                                            "(explain.vpeak)"))
            if name in ("non_torch_memory", "activation_peak") or (
                    name == "non_torch_increase" and not view.last("non_torch_memory")) or (
                    name == "torch_peak_increase" and not view.last("activation_peak")):
                parts.append(term)
    ge = view.last("graph_estimate")
    if ge:
        rows.append(printed_row("CUDA-graph estimate", ge, f"CUDA-graph memory estimated before KV sizing (≥ 0.18), "
                                                           f"{use.applied_why}; {_G}"))
    return weights, parts, activation


def _available_rows(parsed: ParsedLog, view: RankView, rows: list[Row], requested: Iv | None, weights: Iv | None,
                    parts: list[Iv], use: GraphEstimateUse, *, extensible: bool = False):
    """(the smallest worker's 'Available KV cache memory' anchor, its interval, the non-KV residual, the label of a
    tighter worker whose available memory is derived or None) and their
    rows: available checked against requested − the printed terms (the ≥ 0.27 print: requested − consumed − the
    printed peak activation, which holds the applied CUDA-graph estimate); the residual against the DEBUG print.
    Only the *applied* estimate is subtracted (``explain.vpeak``)."""
    avail_a = _min_available(parsed) or view.last("available_kv")
    available = iv_of(avail_a.size) if avail_a else None
    zero = Iv(low=Bytes(0), high=Bytes(0))
    graphs = use.subtracted
    consumed = view.last("consumed_memory")
    tight_row, nkv, sized_by = None, view.last("non_kv_cache_memory"), None
    if available is not None:
        available, tight_row, nkv = _tightest_derived(parsed, requested, use, available, nkv)
        sized_by = nkv.rank.label if tight_row is not None else None
    non_kv = None
    if requested is not None and available is not None:
        non_kv = requested - available - graphs
    if avail_a:
        d, terms = None, "weights − non-torch − activation peak −"
        peak = view.last("activation_peak")
        if requested is not None and consumed is not None and peak is not None:
            # the ≥ 0.27 print: available = requested − consumed − transient peak − applied = requested − C − P
            d, terms = (requested - iv_of(consumed.size) - iv_of(peak.size),
                        "consumed (weights + non-torch) − the printed peak activation, which holds")
        elif requested is not None and weights is not None and len(parts) >= 2:
            d = requested - weights - sum(parts, zero) - graphs
        if tight_row is not None:  # first: the ledger is the tightest worker's (its sums read this row)
            rows.append(tight_row)
        what = ("; with the extensible KV cache (vLLM ≥ 0.34) the reservation: the block capacity the pool may grow "
                "to, sized again after warm-up (explain.vextensible)" if extensible else "")
        rows.append(printed_row("available KV cache memory", avail_a,
                                f"requested − {terms} the applied CUDA-graph estimate, the "
                                f"smallest over {'the workers that print it' if tight_row else 'workers'}{what}; {_G}",
                                derived=d,
                                derived_from="requested − the printed non-KV terms", slack=Bytes(2**24)))
    if non_kv is not None:
        inside = (" (+ the applied CUDA-graph estimate, inside the printed peak activation: not printed alone)"
                  if use.graphs_in_peak else "")
        rows.append(derived_row("non-KV memory (residual)", non_kv,
                                "requested − available KV − the applied CUDA-graph estimate = weights + non-torch + "
                                "activation peak" + inside
                                + (f"; weights {weights.text()} of it" if weights is not None and tight_row is None
                                   else "; the tightest worker's, derived" if tight_row is not None else "")))
    if nkv and non_kv is not None:
        rows.append(printed_row("non-KV memory (printed, DEBUG)", nkv, nkv.meaning, derived=non_kv,
                                derived_from="requested − available − the applied graph estimate"))
    return avail_a, available, non_kv, sized_by


def _tightest_derived(parsed: ParsedLog, requested: Iv | None, use: GraphEstimateUse, available: Iv, nkv):
    """(the available KV memory the engine sizes with, the ledger row of a tighter worker whose number is derived
    or None, the DEBUG non-KV anchor of the worker the ledger's residual is) where a worker that prints only the
    DEBUG non-KV line is tighter than every printed 'Available KV cache memory' (``explain.vworkers
    .workers_available``: requested − its non-KV − the applied CUDA-graph estimate)."""
    smallest, worker = tightest_worker(workers_available(parsed, requested, use.applied))
    if worker is None or not worker[3] or smallest.high >= available.high:
        return available, None, nkv
    label, _, anchor, _ = worker
    row = derived_row(f"available KV cache memory of the tightest worker ({label}, derived)", smallest,
                      f"{label} prints no 'Available KV cache memory', only the DEBUG 'Total non KV cache memory: "
                      f"{anchor.size.text}' (line {anchor.line_no}): requested − that non-KV − the applied CUDA-graph "
                      f"estimate {use.subtracted.text()}, with the print rounding; below every printed worker's, and "
                      "the engine sizes every worker with the smallest (v1/core/kv_cache_utils.py "
                      "get_kv_cache_configs: the least block count)")
    return smallest, row, anchor


def _printed_tokens(tok_a, blocks_a, block: int) -> int | None:
    """The printed KV tokens: the capacity line's, else the printed blocks × the block size."""
    if tok_a and isinstance(tok_a.count.value, int):
        return tok_a.count.value
    if blocks_a and isinstance(blocks_a.count.value, int):
        return blocks_a.count.value * block
    return None


def _tokens_row(anchor, tokens_printed: int | None, rebuilt: Rebuilt, per_worker: str | None) -> Row:
    """The KV tokens: printed (checked against the range rebuilt from the anchors) or rebuilt."""
    predicted = rebuilt.predicted
    check = None
    if predicted is not None and tokens_printed is not None:
        ranges = rebuilt.alternatives or (predicted,)
        check = "reproduced" if any(lo <= tokens_printed <= hi for lo, hi in ranges) else "differs"
    return Row(item="KV tokens", value=None,
               count=tokens_printed if tokens_printed is not None else
               (predicted[0] + predicted[1]) // 2 if predicted is not None else anchor.count.value,
               kind="printed" if anchor else "derived",
               meaning=f"floor(available / bytes per block) × block size; {rebuilt.source}"
               + (f"; {per_worker}" if per_worker else ""),
               printed=anchor.count.text if anchor else None, line_no=anchor.line_no if anchor else None,
               check=check,
               note="" if predicted is None else f"rebuilt from the anchors: {predicted[0]:,}–{predicted[1]:,}")
