"""SGLang: the ledger of one rank anchored on the numbers SGLang printed (``tpkit/logs/LEDGER.md``).

Every size SGLang prints about memory comes from ``get_available_gpu_memory`` (``sglang/srt/utils``), which
divides ``torch.cuda.mem_get_info`` free bytes by ``1 << 30`` and prints ``"{x:.2f} GB"``: the numbers are GiB
although the word says GB.  ``pre_model_load_memory`` is the minimum over the TP group of the free memory
before the weights (``ModelRunner.init_torch_distributed`` in 0.3–0.5); the KV budget is
``available after weights − pre × (1 − mem_fraction_static)`` (``ModelRunner.profile_max_num_token``), cut into
``floor(rest / cell)`` tokens rounded down to the page.  The load anchors (pre, the weights, the free memory after
them, what SGLang takes after its pre sample) are ``explain.sgload``'s.
"""

from __future__ import annotations

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.explain.sganchors import GIB_NOTE, printed_floor, unprinted_shortfall
from tpkit.explain.sgbudget import ceiling
from tpkit.explain.sgload import Load, load_rows, pool_load
from tpkit.explain.sgpool import (cell_of, full_share, pool_end_rows, pool_row, predict_tokens, printed_pool,
                                  printed_tokens, tokens_row)
from tpkit.explain.sgrelease import (aiter_factor, car_bytes_for, default_fraction, mm_reservation_for, rope_reserve_for,
                                     runner_factor)
from tpkit.explain.sgstate import split_rest, state_pool_for, planned_state_rest
from tpkit.logs import ParsedLog, RankView
from tpkit.records import dataclass
from tpkit.startup.rankspread import SGLANG_BELOW_RANK0, gpu_platform, sglang_rank_spread
from tpkit.units import Bytes, gib_text, mib_text

__all__ = ["SglangAnchored", "anchor_sglang", "GIB_NOTE"]

RANK_SPREAD = SGLANG_BELOW_RANK0
"""how far SGLang's MIN over the ranks of the free memory before / after the weights lies below rank 0, pooled over
every platform (p90 of the corpus logs that print every rank, ``startup.rankspread``): what a log whose GPU is not
known takes; an AMD or NVIDIA GPU's log takes its platform's figure, and a log that prints other ranks only the range
(``startup.rankspread.sglang_rank_spread``)"""


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
    ``pre + stream_pool`` (+ ``pre_load_kernels``, ``pre_load_workspace``)"""
    pre_load_kernels: Iv | None = None
    """SGLang 0.4.6.post5–0.4.9.x at world size 1: the first kernels the expert-location metadata launches between the
    pre sample and 'Load weight begin' (``engines.sglang.streams.metadata_kernels``); None where none"""
    pre_load_workspace: Iv | None = None
    """SGLang 0.5.15+ on compute capability 9.0+ but 12.0: DeepGEMM's cuBLASLt workspace, taken between the same two
    samples (``engines.sglang.streams.deepgemm_workspace``); None where none"""
    mm_reservation: Iv | None = None
    """the multimodal caches SGLang 0.5.18+ reserves out of the KV budget (``explain.sgrelease.mm_reservation_for``);
    None when nothing is reserved"""
    rope_reserve: Iv | None = None
    """what SGLang's RoPE cache pre-expansion takes after 'Load weight end', before the KV budget is sampled
    (``sgrelease.rope_reserve_for``); None where the release takes none: a fix re-plans the budget less it"""
    fraction_flag_factor: float = 1.0
    """what SGLang multiplies a ``--mem-fraction-static`` the user gives by before sizing (the multimodal runner
    factor of old releases, the ROCm aiter × 0.85: ``sgrelease.runner_factor``, ``sgrelease.aiter_factor``); a fix
    that names a fraction re-plans at the flag's value × this, as ``tpkit plan`` does
    (``engines.sglang.choices.plan_fraction``)"""
    pool_load: Iv | None = None
    """the load usage the KV budget sees: pre_model_load_memory (MIN over ranks) − the MIN over ranks of the free
    memory after the weights.  SGLang sizes the pool from the MIN after the load and the MIN before it
    (``ModelRunner.profile_max_num_token``: ``get_available_gpu_memory(distributed=True)`` after the load, less
    ``total_gpu_memory`` × (1 − f), ``total_gpu_memory`` the MIN from ``init_torch_distributed``; sglang 0.4.x–0.5.23
    model_runner.py), not from one rank's 'mem usage': a fix and ``tpkit plan --from-log`` re-plan with it
    (``explain.sgbudget.BudgetReplan``, ``explain.fromlog.measured_startup``) so that both agree with the ledger's
    budget.  None where pre is estimated, a draft loads before the pool or either MIN is missing (the printed
    'mem usage' then)"""
    rest_ceiling: Bytes | None = None
    """the KV budget's top when no pre-load free memory is printed: f × the device total − the weights (``ceiling``)"""
    unprinted_ranks: str | None = None
    """where the printed pool lies below the budget rebuilt from the printed ranks and the log prints fewer ranks
    than the world: the smallest unprinted rank's shortfall it implies, in words (``unprinted_shortfall``)"""


class _Fraction:
    """mem_fraction_static as SGLang applied it: printed or set (× the multimodal runner factor), else the release's
    default (``range``: lowest and highest when the GPU does not pin it); a plain class: a dataclass costs ~1 ms of
    ``tpkit explain``'s cold start, issue 12."""

    __slots__ = ("value", "source", "range", "flag_factor")

    def __init__(self, value: float | None, source: str, range: tuple[float, float] | None,
                 flag_factor: float = 1.0) -> None:
        self.value, self.source, self.range, self.flag_factor = value, source, range, flag_factor


def anchor_sglang(parsed: ParsedLog, view: RankView, ctx: Context) -> SglangAnchored:
    """The ledger of ``view``'s rank, step by step: the device and distributed init, the load anchors, the KV
    budget, the state pool of a hybrid, the KV pool and its tokens, the memory after the pools and the graphs."""
    rows: list[Row] = []
    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    total, init_iv = _device_rows(view, ctx, rows)
    load = load_rows(parsed, view, ctx, rows, tp, pp, total, init_iv)
    f = _fraction(parsed, ctx, tp, pp)
    slack, rest, mm, rope = _budget_rows(ctx, rows, load, f, tp, pp)
    state, rest = _state_rows(view, ctx, rows, rest)
    top = ceiling(rows, load, f, total, rest, tp * pp)
    pool = printed_pool(view)
    tokens_a, tokens_printed = printed_tokens(parsed, view)
    cell, cell_source, page, capped = cell_of(ctx, tp, pp, pool.bytes, tokens_printed)
    if pool.bytes is not None:
        rows.append(pool_row(pool, cell, page, rest))
    predicted = predict_tokens(ctx, rest, cell, page, capped)
    if tokens_a is not None or predicted is not None:
        rows.append(tokens_row(tokens_a, tokens_printed, predicted, cell, cell_source, page, capped))
    pool_end = pool_end_rows(view, rows, load.end, pool.bytes, state)
    graph, ge = _graph_rows(view, rows)
    car, car_source = car_bytes_for(ctx, tp, any(x.kind == "custom_allreduce_disabled" for x in parsed.failures))
    return SglangAnchored(rows=tuple(rows), fraction=None if f.value is None else float(f.value),
                          fraction_source=f.source, fraction_flag_factor=f.flag_factor,
                          rope_reserve=None if rope is None else rope[0], pre=load.pre, init_dist=init_iv, weights=load.weights,
                          free_after_weights=load.free_after, slack=slack, rest=rest, pool_bytes=pool.bytes,
                          tokens_printed=tokens_printed, tokens_predicted=predicted, cell_bytes=cell,
                          cell_source=cell_source, page=page, graph=graph,
                          slack_after_pool=iv_of(pool_end.size) if pool_end else None,
                          free_after_graphs=iv_of(ge.size) if ge else None, device_total=total, car_bytes=car,
                          car_source=car_source, fraction_range=f.range, pre_estimated=load.pre_estimated,
                          state_pool=state.pool if state is not None else None,
                          state_charged=state.charged if state is not None else None, stream_pool=load.stream,
                          pre_load_kernels=load.kernels, mm_reservation=mm,
                          pre_load_workspace=load.term("workspace"), pool_load=pool_load(load), rest_ceiling=top,
                          unprinted_ranks=unprinted_shortfall(*printed_floor(parsed, tokens_printed, page),
                                                               full_share(rest, capped), cell, f.value, tp * pp,
                                                               max(load.n_after, load.n_pre), ctx))


def _device_rows(view: RankView, ctx: Context, rows: list[Row]) -> tuple[Bytes | None, Iv | None]:
    """The device total (catalog), the distributed init's and the memory baseline's printed usage: (total, init)."""
    total = ctx.gpu.total_bytes if ctx.gpu is not None else None
    if total is not None:
        rows.append(derived_row(f"device total ({ctx.gpu.name})", Iv(low=total, high=total),
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
    return total, init_iv



def _fraction(parsed: ParsedLog, ctx: Context, tp: int, pp: int) -> _Fraction:
    """mem_fraction_static: the log's or the flags' (× the multimodal runner factor of the release, × the ROCm aiter
    factor: ``sgrelease.aiter_factor``), else the
    release's default for this run (``sgrelease.default_fraction``)."""
    f = ctx.get("mem_fraction")
    f_source = ctx.sources.get("mem_fraction", "")
    f_range = None
    runner = runner_factor(ctx, parsed)
    flag_factor = 1.0  # what SGLang multiplies a --mem-fraction-static the user gives by (a fix's value)
    for factor in (runner, aiter_factor(ctx, parsed, tp, flag=True)):
        flag_factor *= factor[0] if factor is not None else 1.0
    if f is None and ctx.model is not None:
        f_range, f_source = default_fraction(ctx, tp, pp)
        f = None if f_range is None else (f_range[0] + f_range[1]) / 2
    elif f is not None:
        for factor in (runner, aiter_factor(ctx, parsed, tp)):
            if factor is not None:
                f, f_source = float(f) * factor[0], f"{f_source}, then {factor[1]}"
    return _Fraction(f, f_source, f_range, flag_factor)


def _budget_rows(ctx: Context, rows: list[Row], load: Load, f: _Fraction, tp: int,
                 pp: int) -> tuple[Iv | None, Iv | None, Iv | None]:
    """(slack, KV budget, multimodal reservation) and their rows: slack = (1 − f) × SGLang's pre sample; budget = the
    free memory after the weights (less the RoPE pre-expansion) − slack − the multimodal reservation, lowered by the
    rank spread when ranks are not printed."""
    slack = _slack_row(rows, load.sample, f)
    sampled = load.free_after
    rope = rope_reserve_for(ctx)
    if rope is not None and load.free_after is not None:
        sampled = load.free_after - rope[0]
        from tpkit.engines.sglang.rope import ROPE_ITEM

        rows.append(derived_row(ROPE_ITEM, rope[0], rope[1]))
        rows.append(derived_row("free when the KV budget is sampled", sampled,
                                "free after weights − the RoPE pre-expansion"))
    mm, mm_why = mm_reservation_for(ctx)
    if slack is None or sampled is None:
        return slack, None, mm, rope
    rest = sampled - slack
    if mm is not None:
        rows.append(derived_row("multimodal caches reserved out of the KV budget", mm, mm_why))
        rest = rest - mm
    rows.append(derived_row("KV budget (rest)", rest,
                            f"min over {max(load.n_after, 1)} rank(s) of free after weights "
                            + ("− the RoPE pre-expansion " if rope is not None else "")
                            + "− slack " + ("− the multimodal reservation " if mm is not None else "")
                            + "(ModelRunner.profile_max_num_token)"))
    return slack, _rank_spread_row(rows, rest, load, f, tp * pp, ctx), mm, rope


def _slack_row(rows: list[Row], sample: Iv | None, f: _Fraction) -> Iv | None:
    """The slack (1 − f) × pre_model_load_memory SGLang keeps out of the KV budget (over the fraction's range
    when the default is not pinned), None without a fraction or a pre."""
    if f.value is None or sample is None:
        return None
    lo_f, hi_f = f.range if f.range is not None else (float(f.value), float(f.value))
    if lo_f == hi_f:
        slack = sample.scale(1.0 - lo_f)
        label = f"slack (1 − {lo_f:.3f}) × pre_model_load_memory"
    else:
        slack = Iv(low=Bytes(round(sample.low.bytes * (1.0 - hi_f))),
                   high=Bytes(round(sample.high.bytes * (1.0 - lo_f))))
        label = f"slack (1 − {lo_f:.4f}…{hi_f:.4f}) × pre_model_load_memory"
    rows.append(derived_row(label, slack, f"mem_fraction_static ({f.source}): kept for activations, "
                            "CUDA graphs, req_to_token"))
    return slack


def _rank_spread_row(rows: list[Row], rest: Iv, load: Load, f: _Fraction, world: int, ctx: Context) -> Iv:
    """The KV budget widened down by f × the rank spread (``startup.rankspread.sglang_rank_spread`` of the GPU's
    platform: below rank 0 when rank 0 is printed, below any other rank otherwise, measured p90s) when the log prints
    the load anchors of fewer ranks than the world (SGLang's MIN over all ranks may lie below the printed ones);
    ``rest`` otherwise."""
    printed = max(load.n_after, load.n_pre)
    if not (world > 1 and 0 < printed < world and not load.pre_estimated):
        return rest
    hi_f = f.range[1] if f.range is not None else float(f.value)
    allowance, why = sglang_rank_spread(load.rank0, gpu_platform(getattr(ctx.gpu, "vendor", None)))
    spread = Bytes(round(allowance.bytes * hi_f))
    rest = Iv(low=rest.low - spread, high=rest.high)
    rows.append(derived_row("KV budget (rest), ranks not printed", rest, (
        f"{printed} of the {world} ranks print 'Load weight begin/end': SGLang's MIN over all "
        f"ranks (get_available_gpu_memory(distributed=True) in init_torch_distributed and "
        f"profile_max_num_token) may lie up to {gib_text(allowance)} below the printed ranks on both "
        f"samples ({why}), which lowers the budget by up to f × that = {mib_text(spread, 1)}")))
    return rest


def _state_rows(view: RankView, ctx: Context, rows: list[Row], rest: Iv | None):
    """A hybrid's printed state pool (``explain.sgstate``) and the KV budget after it: (state or None, budget).
    The printed split pins the budget where it was solved rather than set."""
    state = state_pool_for(view, ctx)
    if state is None:
        planned = planned_state_rest(ctx, rest, int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1))
        if planned is None:
            return None, rest
        rows.append(derived_row("KV budget after the state pool", planned[0], planned[1]))
        return None, planned[0]
    rows.append(Row(item="state pool (mamba / linear attention)", value=state.pool, kind="printed",
                    meaning=f"'Mamba Cache is allocated' conv_state + ssm_state sizes, {GIB_NOTE}",
                    printed=state.printed, line_no=state.line_no))
    split = split_rest(state, ctx)
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
    return state, rest


def _graph_rows(view: RankView, rows: list[Row]):
    """The CUDA graphs' printed usage (summed over the captures) or free before − after, and the free memory after
    start-up: (graph, the 'Capture cuda graph end' anchor)."""
    gb, ge, gu = view.last("graph_begin_avail"), view.last("graph_end_avail"), view.last("graph_mem_usage")
    graph = None
    if gu:
        graph = sum((iv_of(a.size) for a in view.all("graph_mem_usage")), Iv(low=Bytes(0), high=Bytes(0)))
        d = iv_of(gb.size) - iv_of(ge.size) if gb and ge else None
        rows.append(printed_row("CUDA graphs", gu, f"'Capture cuda graph end. mem usage' = free before − after "
                                f"capture, {GIB_NOTE}", derived=d, derived_from="avail before − after capture"))
    elif gb and ge:
        graph = iv_of(gb.size) - iv_of(ge.size)
        rows.append(derived_row("CUDA graphs", graph, "free before − after capture"))
    if ge:
        rows.append(printed_row("free after start-up", ge, f"'Capture cuda graph end. avail mem', {GIB_NOTE}"))
    return graph, ge
