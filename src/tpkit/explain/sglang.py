"""SGLang: the ledger of one rank anchored on the numbers SGLang printed (``tpkit/logs/LEDGER.md``).

Every size SGLang prints about memory comes from ``get_available_gpu_memory`` (``sglang/srt/utils``), which
divides ``torch.cuda.mem_get_info`` free bytes by ``1 << 30`` and prints ``"{x:.2f} GB"``: the numbers are GiB
although the word says GB.  ``pre_model_load_memory`` is the minimum over the TP group of the free memory
before the weights (``ModelRunner.init_torch_distributed`` in 0.3–0.5); the KV budget is
``available after weights − pre × (1 − mem_fraction_static)`` (``ModelRunner.profile_max_num_token``), cut into
``floor(rest / cell)`` tokens rounded down to the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.logs import ParsedLog, RankView
from tpkit.units import Bytes
from tpkit.explain.refusals import REFUSED

__all__ = ["SglangAnchored", "anchor_sglang", "GIB_NOTE"]

GIB_NOTE = "GiB (SGLang prints 'GB' but divides by 2^30)"

RANK_SPREAD = Bytes(round(0.05 * 2**30))
"""how far SGLang's MIN over the ranks of the free memory before / after the weights lies below the ranks a log
prints, at most, in the corpus logs that print every rank (``RANK_SPREAD_EVIDENCE``)"""
RANK_SPREAD_EVIDENCE = ("in the corpus logs that print every rank the lowest rank is 0.00–0.05 GiB below rank 0: "
                        "sg_051 tp 8 'Load weight begin' TP0 137.34, TP1–TP6 137.29 GB (their distributed init "
                        "2.01 vs TP0's 1.96 GB); sg_027 0.03, sg_020 0.02, sg_009 / sg_034 0.00")


@dataclass(frozen=True, kw_only=True, slots=True)
class SglangAnchored:
    """The measured terms of an SGLang run (intervals; None when the log does not show them)."""

    rows: tuple[Row, ...]
    fraction: float | None
    fraction_source: str
    pre: Iv | None
    """pre_model_load_memory (min over ranks)"""
    init_dist: Iv | None
    weights: Iv | None
    free_after_weights: Iv | None
    """min over ranks of 'Load weight end … avail mem'"""
    slack: Iv | None
    rest: Iv | None
    """KV budget (may be negative), after the state pool of a hybrid model"""
    pool_bytes: Iv | None
    """printed KV pool bytes"""
    tokens_printed: int | None
    tokens_predicted: tuple[int, int] | None
    """(low, high) tokens rebuilt from the anchors"""
    cell_bytes: float | None
    cell_source: str
    page: int
    graph: Iv | None
    """CUDA-graph capture cost"""
    slack_after_pool: Iv | None
    """free memory after the pools ('Memory pool end')"""
    free_after_graphs: Iv | None
    device_total: Bytes | None
    car_bytes: Bytes | None
    """SGLang's custom all-reduce buffers for this layout (tpkit's start-up model), None when not charged"""
    car_source: str = ""
    fraction_range: tuple[float, float] | None = None
    """(lowest, highest) default fraction when the default is not pinned to one value (the GPU's total known as an
    interval, several catalog GPUs fit); None for a single value"""
    pre_estimated: bool = False
    """pre_model_load_memory not printed: free after weights + tpkit's load usage from the config"""
    state_pool: Iv | None = None
    """hybrid models: the printed conv + SSM state pool ('Mamba Cache is allocated'); None without"""
    state_charged: Iv | None = None
    """the part of the state pool taken from the KV budget (``explain.sgstate``)"""
    stream_pool: Iv | None = None
    """torch's CUDA stream pool SGLang's forward stream takes between its pre sample and 'Load weight begin'
    (``engines.sglang.streams``; None when the release and layout take none): SGLang's pre_model_load_memory is
    ``pre + stream_pool``"""
    unprinted_ranks: str | None = None
    """where the printed pool lies below the budget rebuilt from the printed ranks and the log prints fewer ranks
    than the world: the smallest unprinted rank's shortfall it implies, in words (``_unprinted_shortfall``)"""


def _min_over_ranks(parsed: ParsedLog, name: str, group: str | None = None):
    """The smallest last-printed value of ``name`` over the ranks (SGLang reduces it with a MIN all-reduce)."""
    last = {}
    for a in parsed.anchors:
        if a.name == name and a.group == group and a.size is not None:
            last[a.rank.label] = a
    if not last:
        return None, 0
    return min(last.values(), key=lambda a: a.size.value.bytes), len(last)


def _target_last(view: RankView, name: str):
    """The last anchor ``name`` of the target model on this rank (a draft model's loads are not the target's)."""
    found = [a for a in view.all(name) if a.group != "draft"]
    return found[-1] if found else None


def _draft_before_pool(parsed: ParsedLog, draft_end) -> bool:
    """Whether the draft's weights were loaded before the target's KV pool was sized (then the target's budget
    sees the free memory after both loads); SGLang ≤ 0.4 sizes the target's pool first and loads the draft after
    its 'Memory pool end', so the draft's load does not enter the target's budget.

    The draft's 'Load weight end' is the right reading in 0.5.14+ (read in the 0.5.14, 0.5.15, 0.5.20 and 0.5.23
    wheels): ``Scheduler.init_model_worker`` loads the target, then the draft (``EagleDraftWorker.__init__``, whose
    'Load weight end' still holds the draft's own embedding / lm_head), then ``init_memory_pools`` sizes the
    target's pool (``init_target_memory_pool``: ``_profile_available_bytes`` reads the free memory then) before
    ``EagleDraftWorker.alloc_memory_pool`` → ``init_lm_head`` → ``set_embed`` frees the draft's own tensors.  The
    budget therefore sees the draft at load, as that line prints it (the planner charges the same:
    ``engines.sglang.sizing.draft_weights_at_sizing``)."""
    pools = [a.line_no for a in parsed.anchors if a.rank.label == draft_end.rank.label and a.group != "draft"
             and a.name in ("pool_end_avail", "kv_tokens", "kv_k_size", "kv_size", "max_total_num_tokens")]
    return not pools or draft_end.line_no < min(pools)


def _tokens_agreed(parsed: ParsedLog):
    """The target's printed token count when the explained rank printed none but the other ranks did and all
    agree (None otherwise): SGLang sizes the pool from the free memory MIN-all-reduced over the world group
    (``get_available_gpu_memory(distributed=True)``, sglang 0.3.0 / 0.4.3 / 0.4.8 ``profile_max_num_token``;
    0.5.23 ``KVCacheConfigurator``, with a MIN sync across PP stages), so every rank of one launch prints the
    same count.  Different counts (two launches pasted together) pin nothing."""
    found = [a for a in parsed.anchors if a.name in ("kv_tokens", "max_total_num_tokens") and a.group != "draft"
             and a.count is not None and isinstance(a.count.value, int)]
    if not found or len({a.count.value for a in found}) != 1:
        return None
    return found[0]


_RUNNER_RULE_RELEASED = (("0.4.5", "0.4.4", "2025-04-07"), ("0.4.9", "0.4.8", "2025-07-06"))
"""(first release of a ModelRunner multimodal-factor rule, the release before it, its date): the build date of the
files in the release wheels (``pip download --no-deps sglang==0.4.5`` / ``==0.4.9``; ``unzip -l``).  A log dated
before a release cannot come from it."""

def _runner_factor(ctx: Context, parsed: ParsedLog) -> tuple[float, str] | None:
    """The factor SGLang's ModelRunner applies to a multimodal model's mem_fraction_static, the user's included
    (× 0.95 in 0.2.15–0.4.4, × 0.90 in 0.4.5–0.4.8, none from 0.4.9: ``engines.sglang.multimodal.
    multimodal_runner_factor``), for the newest release consistent with the log's formats and its date."""
    if ctx.model is None or not getattr(ctx.model, "is_multimodal", False):
        return None
    from tpkit.engines.sglang.multimodal import multimodal_runner_factor
    from tpkit.engines.sglang.versions import LATEST, parse_version

    version = ctx.rules_version or LATEST
    date, why = ctx.get("log_date"), ""
    for first, before, released in _RUNNER_RULE_RELEASED:
        if date is not None and date < released and parse_version(version) >= parse_version(first):
            version, why = before, f"; the log is dated {date}, before SGLang {first} ({released}): ≤ {before}"
            break
    try:
        found = multimodal_runner_factor(version)
    except REFUSED:  # a version the rules do not read
        return None
    return None if found is None else (found[0], f"{found[1]} (release {version}{why})")


def _cell(ctx: Context, tp: int, pp: int) -> tuple[float | None, str, int]:
    """(bytes per token of the target pool, source, page) from the model config, None when no model."""
    return _cell_capped(ctx, tp, pp)[:3]


def _cell_capped(ctx: Context, tp: int, pp: int) -> tuple[float | None, str, int, tuple | None]:
    """``_cell`` and, when SGLang sizes a hybrid-SWA pool from the request cap, (CellSize, SwaPoolChoice): then the
    bytes per token are the full pool's alone (the SWA pool is fixed)."""
    page = int(ctx.get("page_size", 1) or 1)
    if ctx.model is None:
        return None, "no model config", page, None
    try:
        from tpkit.engines.sglang.options import UNMODELLED_KV_DTYPES, SglangOptions, unmodelled_kv_error
        from tpkit.engines.sglang.pool import compute_cell
        from tpkit.engines.sglang.kvdtype import resolve_kv_dtype
        from tpkit.engines.sglang.versions import LATEST, parse_version

        version = ctx.rules_version or LATEST
        kv = str(ctx.get("kv_cache_dtype", "auto"))
        if kv.lower() in UNMODELLED_KV_DTYPES:  # fp4/mx KV: no cell rather than the model dtype's
            raise unmodelled_kv_error(kv.lower())
        try:
            opts = SglangOptions(kv_cache_dtype=kv, engine_version=version)
        except REFUSED:  # a spelling the options refuse: the model's own dtype
            opts = SglangOptions(engine_version=version)
        kv_dtype = resolve_kv_dtype(ctx.model, opts)[0]
        attn_tp = tp // max(1, int(ctx.get("dp", 1) or 1)) if ctx.get("enable_dp_attention") else tp
        ratio = ctx.get("swa_full_tokens_ratio")
        cell = compute_cell(ctx.model, attn_tp, pp, kv_dtype, split_v_dim=parse_version(version) >= (0, 5, 8),
                            version=version, swa_full_tokens_ratio=float(ratio) if ratio else None)
        choice = _swa_choice(ctx, cell, version, page, tp // attn_tp, pp)
        if choice is not None and choice.swa_cap is not None:
            return (float(cell.full_bytes()), f"{cell.source}; {choice.configurator}: {choice.why} "
                    f"({ctx.model_source})", page, (cell, choice))
        return float(cell.bytes_per_token), f"{cell.source} ({ctx.model_source})", page, None
    except REFUSED as exc:  # a model the rules cannot size: say so, keep explaining
        return None, f"cell not computable ({type(exc).__name__}: {str(exc)[:120]})", page, None


def _swa_choice(ctx: Context, cell, version: str, page: int, attn_dp: int, pp: int):
    """SGLang's hybrid-SWA configurator for this log (``engines.sglang.pool.swa_pool_choice``, the plan's rule): the
    printed ServerArgs / command line flags; the chunked-prefill size as printed (already per attention-DP rank)."""
    from tpkit.engines.sglang.pool import swa_pool_choice

    def num(name):
        v = ctx.get(name)
        try:
            return int(v) if v is not None and not isinstance(v, bool) else None
        except (TypeError, ValueError):
            return None

    spec = ctx.get("spec_algorithm") not in (None, "", "None", "NONE")
    try:
        return swa_pool_choice(cell, version, disable_radix_cache=bool(ctx.get("disable_radix_cache")),
                               max_running_requests=num("max_running_requests"),
                               chunked_prefill_size=num("chunked_prefill_size"), page_size=page,
                               sliding_window=ctx.model.sliding_window, attn_dp=max(1, attn_dp),
                               overlap_schedule=not (ctx.get("disable_overlap_schedule") or pp > 1),
                               speculative=spec)
    except REFUSED:
        return None


def _tp_unknown_cell(ctx: Context, pp: int, cell: float, source: str) -> tuple[float | None, str]:
    """The cell when the log names no TP size (no ServerArgs, no command line: ``context.tp_default_evidence``):
    kept when every TP size of ``TP_CANDIDATES`` the model accepts gives the same cell (MLA: the latent is not
    split); else None, with the cell per TP size in the source text (``pool_configurator.py _compute_cell_size``
    divides the KV heads by the attention TP size)."""
    from tpkit.explain.context import TP_CANDIDATES

    cells: dict[float, list[int]] = {}
    for tp in TP_CANDIDATES:
        c, _, _ = _cell(ctx, tp, pp)
        if c is not None:
            cells.setdefault(c, []).append(tp)
    if len(cells) <= 1:
        return cell, source
    each = "; ".join(f"tp {'/'.join(map(str, tps))} → {c:,.0f} B/token" for c, tps in cells.items())
    return None, f"tp not printed and the KV cell depends on it ({each}): pass --tp"


def _car_bytes(ctx: Context, tp: int, disabled_warning: bool) -> tuple[Bytes | None, str]:
    """SGLang's custom all-reduce buffers per GPU for this layout (tpkit's start-up model) and their source."""
    if ctx.gpu is None or tp < 2 or ctx.get("disable_custom_all_reduce") or disabled_warning:
        return None, "off"
    try:
        from tpkit.engines.sglang.baseline import custom_allreduce_cost
        from tpkit.engines.sglang.versions import LATEST, at_least
        from tpkit.hardware.topology import GroupTopology
        from tpkit.parallel import ParallelSpec
        from tpkit.startup.custom_allreduce import sglang_custom_allreduce

        version = ctx.rules_version or LATEST
        cost = custom_allreduce_cost(ctx.gpu, ParallelSpec(tp=tp), version, links=ctx.links)
        if cost.bytes.bytes == 0 and ctx.forced_custom_allreduce:
            # forced on over PCIe: the buffers the implementation allocates when it runs (links as if allowed)
            forced = GroupTopology(full_nvlink=True, p2p=True, compute_capability=ctx.gpu.compute_capability,
                                   source="forced on by the command line")
            cost = sglang_custom_allreduce(ctx.gpu, forced, tp, v2=at_least(version, "0.5.12"))
            return cost.bytes, f"forced on by the command line: {cost.source}"
        return (cost.bytes or None), cost.source
    except REFUSED:
        return None, "unknown"



def _release(ctx: Context) -> tuple[str, str]:
    """The SGLang release whose rules read this log: the newest consistent with its formats and dated no later
    than the log (``versions.newest_by_date``), and the reason when the date capped it ('' otherwise)."""
    from tpkit.engines.sglang.versions import LATEST, newest_by_date

    return newest_by_date(ctx.rules_version or LATEST, ctx.get("log_date"))

def _state_pool(view: RankView, ctx: Context):
    """The hybrid state pool from the log's anchors (``explain.sgstate``), for the newest release consistent
    with the log's formats and its date; None without a 'Mamba Cache is allocated' line."""
    from tpkit.explain.sgstate import state_from_anchors

    version, _ = _release(ctx)
    mr = ctx.get("max_running_requests")
    return state_from_anchors(view, version, int(mr) if mr else None)


def _split_rest(state, ctx: Context):
    """The KV budget pinned by the printed state split (``explain.sgstate.rest_from_split``), None when the slot
    count was set rather than solved."""
    from tpkit.explain.sgstate import rest_from_split

    version, _ = _release(ctx)
    slots_set = bool(ctx.get("max_mamba_cache_size")) or bool(
        ctx.get("disable_radix_cache") and ctx.get("max_running_requests"))
    if ctx.get("spec_algorithm") not in (None, "", "None", "NONE"):
        return None
    return rest_from_split(state, version, ratio=ctx.get("mamba_full_memory_ratio"), slots_set=slots_set)


def anchor_sglang(parsed: ParsedLog, view: RankView, ctx: Context) -> SglangAnchored:
    rows: list[Row] = []
    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    total = ctx.gpu.total_bytes if ctx.gpu is not None else None
    if total is not None:
        rows.append(derived_row(f"device total ({ctx.gpu.name})", Iv(total, total),
                                f"CUDA-reported total, {ctx.gpu_source}", kind="catalog"))
    init = view.last("init_dist_mem_usage")
    init_iv = iv_of(init.size) if init else None
    if init:
        rows.append(printed_row("distributed init (NCCL, custom all-reduce)", init,
                                f"'Init torch distributed ends. mem usage' = free before − free after "
                                f"init_torch_distributed, {GIB_NOTE}"))
    base = view.last("baseline_mem_usage")
    if base:
        rows.append(printed_row("memory baseline", base, f"'Memory baseline taken' (0.5.2x), {GIB_NOTE}"))
    pre_a, n_pre = _min_over_ranks(parsed, "load_begin_avail")
    begin = _target_last(view, "load_begin_avail")
    end = _target_last(view, "load_end_avail")
    wu = _target_last(view, "weights_mem_usage")
    pre = iv_of(pre_a.size) if pre_a else None
    if pre is None and end and wu:
        pre = iv_of(end.size) + iv_of(wu.size)
    stream, stream_why = _stream_pool(ctx, tp, pp)
    if total is not None and pre is not None:
        ctx_iv = Iv(total, total) - pre - (stream or Iv(Bytes(0), Bytes(0))) - (init_iv or Iv(Bytes(0), Bytes(0)))
        rows.append(derived_row("CUDA context + process (before distributed init)", ctx_iv,
                                "device total − pre_model_load_memory − distributed init"
                                + (" − the stream pool" if stream else "")
                                + ("" if init_iv else " (distributed init not printed: included)")))
    if begin:
        rows.append(printed_row("free before weights (this rank)", begin,
                                f"'Load weight begin. avail mem' = local free memory before the weights, {GIB_NOTE}"))
    if pre_a is not None:
        rows.append(derived_row("pre_model_load_memory", pre,
                                f"min over {n_pre} rank(s) of 'Load weight begin. avail mem' (SGLang's MIN "
                                f"all-reduce), {GIB_NOTE}"))
    weights = None
    if wu:
        d = iv_of(begin.size) - iv_of(end.size) if begin and end else None
        rows.append(printed_row("weights", wu, f"'Load weight end. mem usage' = free before − free after the weights, "
                                f"{GIB_NOTE}", derived=d, derived_from="avail mem before − after the weights"))
        weights = iv_of(wu.size)
    elif begin and end:
        weights = iv_of(begin.size) - iv_of(end.size)
        rows.append(derived_row("weights", weights, "free before − free after the weights"))
    after_a, n_after = _min_over_ranks(parsed, "load_end_avail")
    draft_end, _ = _min_over_ranks(parsed, "load_end_avail", "draft")
    if draft_end is not None and not _draft_before_pool(parsed, draft_end):
        draft_end = None
    if end:
        d = iv_of(begin.size) - iv_of(wu.size) if begin and wu else None
        rows.append(printed_row("free after weights (this rank)", end,
                                f"'Load weight end. avail mem' = local free memory after the weights, {GIB_NOTE}",
                                derived=d, derived_from="avail before − mem usage"))
    free_after = iv_of((draft_end or after_a).size) if (draft_end or after_a) else None
    if free_after is None and pre is not None and weights is not None:
        free_after = pre - weights
    pre_estimated = False
    if pre is None and free_after is not None and ctx.model is not None:
        found = _pre_from_load_usage(ctx, tp, pp, free_after)
        if found is not None:
            pre, pre_why = found
            pre_estimated = True
            rows.append(derived_row("pre_model_load_memory (estimated)", pre, pre_why, kind="estimated"))
    sample = pre
    if stream is not None and pre is not None:
        sample = pre + stream
        rows.append(derived_row("torch stream pool (forward stream, after the pre sample)", stream, stream_why))
        rows.append(derived_row("pre_model_load_memory (SGLang's sample)", sample,
                                "free before weights + the stream pool: init_torch_distributed samples the free "
                                "memory before ModelRunner creates its forward stream"))
    f = ctx.get("mem_fraction")
    f_source = ctx.sources.get("mem_fraction", "")
    f_range = None
    if f is None and ctx.model is not None:
        f_range, f_source = _default_fraction(ctx, tp, pp)
        f = None if f_range is None else (f_range[0] + f_range[1]) / 2
    elif f is not None:
        runner = _runner_factor(ctx, parsed)
        if runner is not None:
            f, f_source = float(f) * runner[0], f"{f_source}, then {runner[1]}"
    slack = rest = None
    if f is not None and sample is not None:
        lo_f, hi_f = f_range if f_range is not None else (float(f), float(f))
        if lo_f == hi_f:
            slack = sample.scale(1.0 - lo_f)
            label = f"slack (1 − {lo_f:.3f}) × pre_model_load_memory"
        else:
            slack = Iv(Bytes(round(sample.low.bytes * (1.0 - hi_f))), Bytes(round(sample.high.bytes * (1.0 - lo_f))))
            label = f"slack (1 − {lo_f:.4f}…{hi_f:.4f}) × pre_model_load_memory"
        rows.append(derived_row(label, slack, f"mem_fraction_static ({f_source}): kept for activations, "
                                "CUDA graphs, req_to_token"))
    sampled = free_after
    rope = _rope_reserve(ctx)
    if rope is not None and free_after is not None:
        sampled = free_after - rope[0]
        from tpkit.engines.sglang.rope import ROPE_ITEM

        rows.append(derived_row(ROPE_ITEM, rope[0], rope[1]))
        rows.append(derived_row("free when the KV budget is sampled", sampled,
                                "free after weights − the RoPE pre-expansion"))
    if slack is not None and sampled is not None:
        rest = sampled - slack
        rows.append(derived_row("KV budget (rest)", rest,
                                f"min over {max(n_after, 1)} rank(s) of free after weights "
                                + ("− the RoPE pre-expansion " if rope is not None else "")
                                + "− slack (ModelRunner.profile_max_num_token)"))
        world = tp * pp
        if world > 1 and 0 < max(n_after, n_pre) < world and not pre_estimated:
            hi_f = f_range[1] if f_range is not None else float(f)
            spread = Bytes(round(RANK_SPREAD.bytes * hi_f))
            rest = Iv(rest.low - spread, rest.high)
            rows.append(derived_row("KV budget (rest), ranks not printed", rest, (
                f"{max(n_after, n_pre)} of the {world} ranks print 'Load weight begin/end': SGLang's MIN over all "
                f"ranks (get_available_gpu_memory(distributed=True) in init_torch_distributed and "
                f"profile_max_num_token) may lie up to {RANK_SPREAD.mib:.0f} MiB below the printed ranks on both "
                f"samples (a rank's distributed init differs: {RANK_SPREAD_EVIDENCE}), which lowers the budget by up "
                f"to f × that = {spread.mib:.1f} MiB")))
    state = _state_pool(view, ctx)
    if state is not None:
        rows.append(Row(item="state pool (mamba / linear attention)", value=state.pool, kind="printed",
                        meaning=f"'Mamba Cache is allocated' conv_state + ssm_state sizes, {GIB_NOTE}",
                        printed=state.printed, line_no=state.line_no))
        split = _split_rest(state, ctx)
        if split is not None:
            pinned, why = split
            check = None
            if rest is not None:
                check = "reproduced" if rest.overlaps(pinned) else "differs"
            rows.append(Row(item="KV budget (rest) from the state split", value=pinned, kind="derived",
                            meaning=f"the printed state pool solved for the budget: {why}",
                            derived=rest, derived_from="KV budget (rest) from the fraction", check=check,
                            note="" if rest is None else "the split pins the budget; used below"))
            rest = pinned
        if rest is not None:
            rest = rest - state.charged
            rows.append(derived_row("KV budget after the state pool", rest,
                                    f"KV budget − {state.charged.text()} charged for the state pool: {state.source} "
                                    "(engines.sglang.mamba; explain.sgstate)"))
    k, v, kv = _target_last(view, "kv_k_size"), _target_last(view, "kv_v_size"), _target_last(view, "kv_size")
    both = _target_last(view, "swa_pool_mem_usage")
    if both:  # a hybrid-SWA pool: 'SWAKVPool mem usage' holds both pools, each 'KV Cache is allocated' line one
        kv = both
    pool = None
    if kv:
        pool = iv_of(kv.size)
    elif k and v:
        pool = iv_of(k.size) + iv_of(v.size)
    tokens_a = (_target_last(view, "kv_tokens") or _target_last(view, "max_total_num_tokens")
                or _tokens_agreed(parsed))
    tokens_printed = int(tokens_a.count.value) if tokens_a and isinstance(tokens_a.count.value, int) else None
    cell, cell_source, page, capped = _cell_capped(ctx, tp, pp)
    if cell is not None and ctx.get("tp") is None:
        cell, cell_source = _tp_unknown_cell(ctx, pp, cell, cell_source)
    if cell is None:
        capped = None
    if cell is None and pool is not None and tokens_printed:
        cell = pool.mid.bytes / (tokens_printed + page)
        cell_source = "measured: printed KV pool bytes / (printed tokens + page)"
    if pool is not None:
        slack_cell = Bytes(int((cell or 0) * page))
        anchor = kv or k
        rows.append(Row(item="KV pool", value=pool, kind="printed",
                        meaning=("'SWAKVPool mem usage' = full pool + SWA pool" if both else
                                 "'KV Cache is allocated' K size + V size (or the MLA latent size)")
                                + f" = (tokens + page) × cell, {GIB_NOTE}",
                        printed=" + ".join(a.size.text for a in (k, v) if a) if not kv else kv.size.text,
                        line_no=anchor.line_no, derived=rest, derived_from="KV budget (rest)",
                        check=None if rest is None else ("reproduced" if pool.overlaps(rest, slack_cell + Bytes(2**20))
                                                         else "differs"),
                        note="within one page of cells of the budget" if rest is not None else ""))
    predicted = None
    if rest is not None and cell and capped is not None:  # the request-capped SWA pool: the plan's size_tokens
        from tpkit.engines.sglang.pool import size_tokens

        mtt = ctx.get("max_total_tokens")
        lo, hi = (size_tokens(b, capped[0], page_size=page, max_total_tokens=int(mtt) if mtt else None,
                              swa_cap=capped[1].swa_cap)[0] for b in (rest.low, rest.high))
        predicted = (int(lo), int(hi))
    elif rest is not None and cell:
        mtt = ctx.get("max_total_tokens")
        lo = max(rest.low.bytes, 0) // cell // page * page
        hi = max(rest.high.bytes, 0) // cell // page * page
        if mtt:
            lo, hi = min(lo, int(mtt)), min(hi, int(mtt))
        predicted = (int(lo), int(hi))
    if tokens_a is not None or predicted is not None:
        check = None
        if tokens_printed is not None and predicted is not None:
            check = "reproduced" if predicted[0] <= tokens_printed <= predicted[1] else "differs"
        if tokens_printed is not None:
            mid = tokens_printed
        elif predicted is not None:
            mid = (predicted[0] + predicted[1]) // 2
        else:
            mid = tokens_a.count.value
        rule = ("full pool = floor((KV budget − SWA pool × SWA cell) / full cell)" if capped is not None
                else "floor(KV budget / cell)")
        rows.append(Row(item="KV tokens", value=None, count=mid, kind="printed" if tokens_a else "derived",
                        meaning=f"{rule} rounded down to page {page}; cell "
                                f"{cell:,.0f} B/token ({cell_source})" if cell else "KV pool tokens per rank",
                        printed=tokens_a.count.text if tokens_a else None,
                        line_no=tokens_a.line_no if tokens_a else None,
                        derived=None, check=check,
                        note="" if predicted is None else f"rebuilt from the anchors: {predicted[0]:,}–{predicted[1]:,}"))
    pool_end = _target_last(view, "pool_end_avail")
    if pool_end:
        d = iv_of(end.size) - pool if end and pool is not None else None
        if d is not None and state is not None:
            d = d - state.pool
        rows.append(printed_row("free after the pools", pool_end,
                                f"'Memory pool end. avail mem' = free after the KV and req_to_token pools, {GIB_NOTE}"))
        if d is not None:
            rows.append(derived_row("req_to_token + pool metadata", d - iv_of(pool_end.size),
                                    "free after weights − KV pool − free after the pools (from the slack)"))
    gb, ge, gu = view.last("graph_begin_avail"), view.last("graph_end_avail"), view.last("graph_mem_usage")
    graph = None
    if gu:
        graph = sum((iv_of(a.size) for a in view.all("graph_mem_usage")), Iv(Bytes(0), Bytes(0)))
        d = iv_of(gb.size) - iv_of(ge.size) if gb and ge else None
        rows.append(printed_row("CUDA graphs", gu, f"'Capture cuda graph end. mem usage' = free before − after "
                                f"capture, {GIB_NOTE}", derived=d, derived_from="avail before − after capture"))
    elif gb and ge:
        graph = iv_of(gb.size) - iv_of(ge.size)
        rows.append(derived_row("CUDA graphs", graph, "free before − after capture"))
    if ge:
        rows.append(printed_row("free after start-up", ge, f"'Capture cuda graph end. avail mem', {GIB_NOTE}"))
    car, car_source = _car_bytes(ctx, tp, any(x.kind == "custom_allreduce_disabled" for x in parsed.failures))
    return SglangAnchored(rows=tuple(rows), fraction=None if f is None else float(f), fraction_source=f_source,
                          pre=pre, init_dist=init_iv, weights=weights, free_after_weights=free_after, slack=slack,
                          rest=rest, pool_bytes=pool, tokens_printed=tokens_printed, tokens_predicted=predicted,
                          cell_bytes=cell, cell_source=cell_source, page=page, graph=graph,
                          slack_after_pool=iv_of(pool_end.size) if pool_end else None,
                          free_after_graphs=iv_of(ge.size) if ge else None, device_total=total, car_bytes=car,
                          car_source=car_source, fraction_range=f_range, pre_estimated=pre_estimated,
                          state_pool=state.pool if state is not None else None,
                          state_charged=state.charged if state is not None else None, stream_pool=stream,
                          unprinted_ranks=_unprinted_shortfall(*_printed_floor(parsed, tokens_printed, page),
                                                               _full_share(rest, capped), cell, f, tp * pp,
                                                               max(n_after, n_pre), ctx))


def _full_share(rest: Iv | None, capped) -> Iv | None:
    """The KV budget left to the full pool: all of it, or less the fixed SWA pool when SGLang sizes that pool from
    the request cap (``engines.sglang.pool.size_tokens``), so budget ÷ full cell stays the full pool's tokens."""
    if rest is None or capped is None:
        return rest
    fixed = Bytes(capped[1].swa_cap * capped[0].swa_bytes())
    return rest - Iv(fixed, fixed)


def _printed_floor(parsed: ParsedLog, tokens: int | None, page: int) -> tuple[int | None, int, str]:
    """(tokens, step, what) that pin SGLang's floor(budget / cell): the printed pool (step: the page), else the
    'profiled value' of the max_total_tokens warning (``profile_max_num_token``'s raw floor, step 1, negative when
    the budget is); (None, 1, "") without either."""
    if tokens is not None:
        return tokens, page, "the printed pool"
    for f in parsed.failures:
        for name, count in f.counts:
            if name == "profiled_tokens" and isinstance(count.value, int):
                return count.value, 1, "the printed profiled value"
    return None, 1, ""


def _unprinted_shortfall(tokens: int | None, step: int, what: str, rest: Iv | None, cell: float | None, f,
                         world: int, printed_ranks: int, ctx: Context) -> str | None:
    """Why a printed pool below the rebuilt range can still be SGLang's own arithmetic: the pool is sized from the
    MIN over all ranks of the free memory before and after the weights (``get_available_gpu_memory(distributed=
    True)`` in ``init_torch_distributed`` and ``profile_max_num_token``, sglang 0.3.0–0.5.8; 0.5.23
    ``KVCacheConfigurator``), and a log that prints fewer ranks than the world does not show the smallest.  The
    printed tokens pin the budget to [tokens × cell, (tokens + step) × cell) (``_printed_floor``: the pool, step the
    page; or the warning's profiled value, step 1); its distance Δ below the rebuilt
    budget is what an unprinted rank lacks: Δ when only its free memory after the weights is lower, Δ / f when it
    is lower by the same amount on both samples (the slack (1 − f) × pre shrinks with it).  None when the printed
    pool is not below the range, every rank is printed, or a ``--max-total-tokens`` cap may bind."""
    if tokens is None or rest is None or not cell or f is None:
        return None
    if world <= 1 or printed_ranks >= world or (ctx.get("max_total_tokens") and step != 1):
        return None
    need_high = (tokens + step) * cell
    short = (rest.low.bytes - need_high) / 2**30
    if short <= 0:
        return None
    return (f"{what} ({tokens:,} tokens) needs a KV budget below {need_high / 2**30:.3f} GiB, "
            f"{short:.3f} GiB under the low end ({rest.low.gib:.3f} GiB) of the budget rebuilt from the {printed_ranks} "
            f"printed rank(s) of {world}: SGLang sizes every rank's pool from the MIN over all ranks of the free memory before and after "
            f"the weights (get_available_gpu_memory(distributed=True)), so an unprinted rank had {short:.2f}–"
            f"{short / max(float(f), 1e-9):.2f} GiB less free memory than that low end assumes (after the weights only … "
            "on both samples); the log does not show it")


def _rope_reserve(ctx: Context) -> tuple[Iv, str] | None:
    """(0 … the allocator segment of SGLang's RoPE pre-expansion, why; None when no release the log allows has it):
    ``engines.sglang.rope.rope_reserve`` for the newest release consistent with the log's formats and its date
    (0.5.6+: ``load_model`` grows the cos/sin cache after printing 'Load weight end', before the KV budget samples
    the free memory).  The low end is 0 (the new cache may fit a cached free block), so a log whose releases
    straddle 0.5.6 gets the same interval."""
    if ctx.model is None:
        return None
    from tpkit.engines.sglang.rope import rope_reserve, rope_reserve_interval

    version, capped = _release(ctx)
    vendor = getattr(ctx.gpu, "vendor", None) if ctx.gpu is not None else None
    try:
        found = rope_reserve(ctx.model, version, context_len=ctx.get("context_length"),
                             spec_steps=int(ctx.get("speculative_num_steps") or 0),
                             spec_draft_tokens=int(ctx.get("speculative_num_draft_tokens") or 0), vendor=vendor)
    except (REFUSED, ValueError, TypeError):  # a version or config the rule cannot read: no charge
        return None
    if found is None:
        return None
    return Iv(*rope_reserve_interval(found)), found.source + (f" ({capped})" if capped else "")


def _stream_pool(ctx: Context, tp: int, pp: int) -> tuple[Iv | None, str]:
    """(torch's stream pool taken between SGLang's pre sample and 'Load weight begin', why; None when none):
    ``engines.sglang.streams.forward_stream_pool`` at both ends of the releases the log allows — the oldest
    release its line formats admit and the newest one they and its date admit (``versions.newest_by_date``) —
    so a log whose releases straddle 0.5.9 gets 0 … the pool, and no version at all the same."""
    import re

    from tpkit.engines.sglang.streams import FIRST_RELEASE, STREAM_POOL_SOURCE, forward_stream_pool
    from tpkit.engines.sglang.versions import LATEST, newest_by_date, parse_version

    vendor = getattr(ctx.gpu, "vendor", None) if ctx.gpu is not None else None
    newest, capped = newest_by_date(ctx.rules_version or LATEST, ctx.get("log_date"))
    found = re.findall(r"\d+\.\d+(?:\.\d+)?", re.sub(r"\(.*?\)", "", ctx.version or ""))
    oldest = found[0] if found else None
    try:
        ends = [forward_stream_pool(v, world=tp * pp, vendor=vendor) for v in (oldest, newest) if v]
        if oldest is not None and parse_version(oldest) > parse_version(newest):
            ends = [forward_stream_pool(newest, world=tp * pp, vendor=vendor)]
    except Exception:  # noqa: BLE001 - a version string the rules cannot read: no charge
        return None, ""
    lo = Bytes(0) if oldest is None else min(ends)
    hi = max(ends)
    if hi.bytes == 0:
        return None, ""
    span = (f"SGLang {oldest}–{newest}" if oldest and oldest != newest else f"SGLang {newest}") + \
        (f" ({capped})" if capped else "")
    if lo != hi:
        span += f": 0 before {FIRST_RELEASE}, so 0 … the pool"
    return Iv(lo, hi), f"{STREAM_POOL_SOURCE}; {span}; world size {tp * pp}"


def _default_fraction(ctx: Context, tp: int, pp: int) -> tuple[tuple[float, float] | None, str]:
    """SGLang's default mem_fraction_static for this run ((lowest, highest), source; None when not pinned):
    tpkit's engine rules (``engines.sglang.sizing.kv_budget``: ``engines.sglang.defaults`` by release, the
    multimodal and ROCm factors) for the newest release consistent with the log's formats and its date
    (``versions.newest_by_date``), on

    * the GPU the log names (or the flags, or the only catalog GPU its arithmetic fits: ``build_context``);
    * else every catalog GPU whose total lies in the interval ``explain.gpuinfer`` bounds, or, with no catalog GPU
      there, the interval's two ends (the nvidia-smi MiB SGLang reads taken up to the catalog's largest
      nvidia-smi/CUDA ratio) and the capacity-class boundaries inside it (``defaults.GPU_MEMORY_BOUNDARIES_MIB``);
    * else (no upper bound) every catalog GPU: used only when they all give the same value — the release's
      default does not depend on the GPU (the by-tp tables up to 0.4.5).
    Different values give the range; none is picked silently."""
    from dataclasses import replace

    from tpkit.hardware.catalog import custom_gpu, list_gpus, lookup_gpu

    version, capped = _release(ctx)
    why = f"; {capped}" if capped else ""
    inferred = ctx.gpu_inferred
    if ctx.gpu is not None:
        gpus, on = [ctx.gpu], ""
    elif inferred is not None and inferred.candidates:
        gpus = [lookup_gpu(n) for n in inferred.candidates]
        on = f" over the catalog GPUs the inferred total fits ({', '.join(inferred.candidates)})"
    elif inferred is not None and inferred.high is not None:
        from tpkit.engines.sglang.defaults import GPU_MEMORY_BOUNDARIES_MIB

        ratio = max((g.nvidia_smi_total_mib * 2**20 / g.total_bytes.bytes for g in list_gpus()
                     if g.nvidia_smi_total_mib), default=1.0)
        lo_mib, hi_mib = inferred.low.bytes / 2**20, inferred.high.bytes / 2**20 * ratio
        points = [lo_mib, hi_mib] + [b + d for b in GPU_MEMORY_BOUNDARIES_MIB for d in (0, 1) if lo_mib < b + d < hi_mib]
        gpus = [replace(custom_gpu(Bytes(int(m * 2**20)), name="inferred"), nvidia_smi_total_mib=m) for m in points]
        on = (f" over the inferred total {inferred.low.gib:.2f}–{inferred.high.gib:.2f} GiB (SGLang's nvidia-smi "
              f"MiB {lo_mib:,.0f}–{hi_mib:,.0f})")
    else:
        gpus, on = list(list_gpus()), " (GPU not known: the same on every catalog GPU)"
    values, sources = set(), []
    for gpu in gpus:
        found = _fraction_on(ctx, gpu, tp, pp, version)
        if found is None:
            return None, f"not printed: SGLang's default not computable on {gpu.name}"
        values.add(round(found[0], 6))
        sources.append(found[1])
    lo, hi = min(values), max(values)
    if ctx.gpu is None and inferred is not None and inferred.high is None and lo != hi:
        return None, (f"not printed: SGLang {version}'s default depends on the GPU's memory ({lo:.3f}–{hi:.3f} over "
                      f"the catalog) and the log bounds the total only from below ({inferred.low.gib:.2f} GiB){why}")
    if ctx.gpu is None and inferred is None and lo != hi:
        return None, (f"not printed: SGLang {version}'s default depends on the GPU's memory ({lo:.3f}–{hi:.3f} over "
                      f"the catalog) and no GPU is named nor inferred{why}")
    text = sources[0] if lo == hi else f"{lo:.4f}–{hi:.4f} (not pinned by the inferred total: the range is used)"
    return (lo, hi), f"not printed: SGLang's default{on}: {text}{why}"


def _fraction_on(ctx: Context, gpu, tp: int, pp: int, version: str) -> tuple[float, str] | None:
    """SGLang's default fraction on ``gpu`` for this release (``engines.sglang.sizing.kv_budget``), with the run's
    DP attention (``--enable-dp-attention`` and its ``--dp``, from the log or the flags): SGLang's default reserve
    grows with it (0.4.8–0.4.10 ``server_args.py __post_init__``: + 4 GiB; 0.5.3+: + the per-dp graph term;
    ``engines.sglang.defaults``)."""
    try:
        from tpkit.engines.sglang.options import SglangOptions
        from tpkit.engines.sglang.sizing import kv_budget
        from tpkit.engines.sglang.versions import attention_dp_size
        from tpkit.parallel import ParallelSpec

        dpa = bool(ctx.get("enable_dp_attention"))
        dp = attention_dp_size(version, tp=tp, dp=int(ctx.get("dp", 1) or 1), dp_attention=True) if dpa else 1
        parallel = ParallelSpec(tp=tp, pp=pp, dp=dp, dp_attention=dpa and dp > 1)
        b = kv_budget(ctx.model, gpu, parallel, SglangOptions(engine_version=version,
                                                              enable_dp_attention=dpa and dp > 1),
                      machine=None, weights_bytes=Bytes(0))
        return b.fraction.value, b.fraction.source
    except REFUSED:
        return None


def _pre_from_load_usage(ctx: Context, tp: int, pp: int, free_after: Iv) -> tuple[Iv, str] | None:
    """pre_model_load_memory when neither 'Load weight begin' nor the load's 'mem usage' is printed (SGLang ≤ 0.4.5
    prints no usage; an excerpt may start at 'Load weight end'): the free memory after the weights plus SGLang's
    load usage as tpkit computes it from the config (``engines.sglang.policy.load_usage``: weights, rotary cache,
    load allocations; their band).  ``profile_max_num_token`` subtracts ``pre × (1 − f)`` from the free memory
    after the weights (sglang 0.3.3 / 0.4.0.post1 ``model_runner.py``), and pre is the free memory after
    ``init_torch_distributed``, before the weights — so pre = free after + usage.  The rotary cache's dtype
    depends on the vendor (float32 on CUDA from 0.4.2): both are taken when the GPU is unknown."""
    try:
        from tpkit.engines.sglang.options import SglangOptions
        from tpkit.engines.sglang.policy import load_usage
        from tpkit.hardware.catalog import custom_gpu
        from tpkit.parallel import ParallelSpec
        from dataclasses import replace

        version, _ = _release(ctx)
        opts = SglangOptions(engine_version=version)
        gpus = [ctx.gpu] if ctx.gpu is not None else [
            replace(custom_gpu(free_after.high, name="unknown"), vendor=v) for v in ("NVIDIA", "AMD")]
        lows, highs, source = [], [], ""
        for gpu in gpus:
            nominal, unc, source = load_usage(ctx.model, ParallelSpec(tp=tp, pp=pp), opts, None, gpu)
            lows.append(nominal - unc)
            highs.append(nominal + unc)
    except REFUSED:  # a model the rules cannot size: the pre stays unknown
        return None
    usage = Iv(min(lows), max(highs))
    return free_after + usage, (f"not printed: min-over-ranks 'Load weight end' avail + SGLang's load usage from the "
                                f"config {usage.text()} ({source}; SGLang {version})")
