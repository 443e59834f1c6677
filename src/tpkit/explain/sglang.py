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
from tpkit.explain.sgpool import _cell_capped, _full_share, _tp_unknown_cell
from tpkit.explain.sgranks import (_draft_before_pool, _min_over_ranks, _printed_floor, _target_last, _tokens_agreed,
                                   _unprinted_shortfall)
from tpkit.explain.sgrelease import (_car_bytes, _default_fraction, _pre_from_load_usage, _rope_reserve,
                                     _runner_factor, _stream_pool)
from tpkit.explain.sgstate import _split_rest, _state_pool
from tpkit.logs import ParsedLog, RankView
from tpkit.units import Bytes

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


