"""SGLang: the load anchors of one rank's ledger (``explain.sglang``): pre_model_load_memory, the weights, the free
memory after them, and what SGLang takes between its pre sample and 'Load weight begin' (torch's stream pool, the
expert-location metadata's first kernels, DeepGEMM's cuBLASLt workspace, the ROCm bound).

Split from ``explain.sglang`` at its 500-line limit (helper tidy34, session 34): the load anchors end where the KV
budget begins (``explain.sglang._budget_rows`` reads :class:`Load`).  ``scripts/capacity_why.py`` switches the terms
taken after the pre sample off in this module (``stream_pool_for``, ``metadata_kernels_for``,
``deepgemm_workspace_for``, ``rocm_gap``).
"""

from __future__ import annotations

from tpkit.explain.context import Context, is_rocm
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.refusals import REFUSED
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.explain.sganchors import GIB_NOTE, draft_before_pool, min_over_ranks, target_last
from tpkit.explain.sgrelease import deepgemm_workspace_for, metadata_kernels_for, pre_from_load_usage, stream_pool_for
from tpkit.logs import Anchor, ParsedLog, RankView
from tpkit.units import Bytes

__all__ = ["Load", "Taken", "ROCM_GAP_ITEM", "load_rows", "pool_load", "rocm_gap"]

ROCM_GAP_ITEM = "lost after the pre sample (ROCm bound)"


class Taken:
    """One term SGLang takes after its pre sample and before 'Load weight begin': ``term`` (``stream``, ``kernels``,
    ``workspace``), the ledger's ``item``, its ``short`` name in the sample row's meaning, its ``value`` and ``why``
    (the source).  A plain class: a dataclass costs ~1 ms of ``tpkit explain``'s cold start, issue 12."""

    __slots__ = ("term", "item", "short", "value", "why")

    def __init__(self, *, term: str, item: str, short: str, value: Iv, why: str) -> None:
        self.term, self.item, self.short, self.value, self.why = term, item, short, value, why


_TAKEN = (("stream", "torch stream pool (forward stream, after the pre sample)", "the stream pool"),
          ("kernels", "expert-location metadata's first kernels (after the pre sample)", "the first kernels"),
          ("workspace", "DeepGEMM's cuBLASLt workspace (after the pre sample)", "DeepGEMM's workspace"))
"""(term, ledger item, short name) of what SGLang takes after its pre sample, in the order the ledger states them"""


def taken_after_sample(ctx: Context, tp: int, pp: int) -> tuple[Taken, ...]:
    """The terms of ``_TAKEN`` the run's release and layout take (``explain.sgrelease.stream_pool_for``,
    ``metadata_kernels_for``, ``deepgemm_workspace_for``), in ``_TAKEN``'s order; those that take none left out.
    The functions are looked up in this module at each call (``scripts/capacity_why.py`` switches them here)."""
    found = {"stream": stream_pool_for(ctx, tp, pp), "kernels": metadata_kernels_for(ctx, tp, pp),
             "workspace": deepgemm_workspace_for(ctx, tp, pp)}
    return tuple(Taken(term=term, item=item, short=short, value=found[term][0], why=found[term][1])
                 for term, item, short in _TAKEN if found[term][0] is not None)


class Load:
    """The load anchors of the run: pre_model_load_memory (MIN over ranks; ``n_pre`` ranks print 'Load weight begin'),
    this rank's 'Load weight end' anchor (``end``), the weights, the free memory after them (MIN over ``n_after``
    ranks), whether pre was estimated from the config, ``sample``: pre as SGLang samples it (+ what it takes after
    the sample, ``taken``: ``stream`` the stream pool, ``kernels`` the metadata's first kernels, ``workspace``
    DeepGEMM's workspace, None where none); a plain class: a dataclass costs ~1 ms of ``tpkit explain``'s cold
    start, issue 12."""

    __slots__ = ("pre", "n_pre", "end", "weights", "free_after", "n_after", "pre_estimated", "sample", "taken",
                 "rank0", "draft")

    def __init__(self, *, pre: Iv | None, n_pre: int, end: Anchor | None, weights: Iv | None, free_after: Iv | None,
                 n_after: int, pre_estimated: bool, sample: Iv | None, taken: tuple[Taken, ...] = (),
                 rank0: bool = False, draft: bool = False) -> None:
        self.pre, self.n_pre, self.end, self.weights = pre, n_pre, end, weights
        self.free_after, self.n_after, self.pre_estimated = free_after, n_after, pre_estimated
        self.sample, self.taken, self.rank0, self.draft = sample, taken, rank0, draft

    def term(self, name: str) -> Iv | None:
        """The value of the ``Taken`` term ``name`` (``stream``, ``kernels``, ``workspace``), None where none."""
        return next((t.value for t in self.taken if t.term == name), None)

    @property
    def stream(self) -> Iv | None:
        return self.term("stream")

    @property
    def kernels(self) -> Iv | None:
        return self.term("kernels")


def pool_load(load: Load) -> Iv | None:
    """``SglangAnchored.pool_load``: pre (MIN over ranks) − the MIN over ranks of the free memory after the weights,
    where both are printed (not estimated) and no draft loads before the pool."""
    if load.pre is None or load.free_after is None or load.pre_estimated or load.draft or load.weights is None:
        return None
    return load.pre - load.free_after


def rocm_gap(parsed: ParsedLog, ctx: Context):
    """``explain.sgrocm.rocm_pre_gap`` for an AMD GPU's log, None otherwise: the module is imported only where it
    applies, so a CUDA log's cold start does not load it (tests/cli/test_cold_imports.py)."""
    if not is_rocm(ctx):
        return None
    from tpkit.explain.sgrocm import rocm_pre_gap

    return rocm_pre_gap(parsed, ctx)


def load_rows(parsed: ParsedLog, view: RankView, ctx: Context, rows: list[Row], tp: int, pp: int,
              total: Bytes | None, init_iv: Iv | None) -> Load:
    """The load anchors and their rows: pre-load memory, the weights, the free memory after them (the draft's
    when it loads before the pool is sized), pre estimated from the config when not printed, what SGLang takes
    after its pre sample."""
    taken = taken_after_sample(ctx, tp, pp)
    after_sample = sum((t.value for t in taken[1:]), taken[0].value) if taken else None
    pre, n_pre = _pre_rows(parsed, view, rows, total, init_iv, after_sample)
    gap = rocm_gap(parsed, ctx)  # ROCm: a bound, not a term (explain.sgrocm); after _pre_rows: its context row
    if gap is not None and pre is not None:  # keeps the printed sample
        rows.append(derived_row(ROCM_GAP_ITEM, gap[0], gap[1], kind="estimated"))
        after_sample = gap[0] if after_sample is None else after_sample + gap[0]
    weights = _weights_rows(view, rows)
    _offload_note(ctx, rows, tp, pp)
    free_after, n_after, draft = _free_after(parsed, pre, weights)
    pre_estimated = False
    if pre is None and free_after is not None and ctx.model is not None:
        found = pre_from_load_usage(ctx, tp, pp, free_after)
        if found is not None:
            pre, pre_why = found
            pre_estimated = True
            rows.append(derived_row("pre_model_load_memory (estimated)", pre, pre_why, kind="estimated"))
    sample = pre
    if after_sample is not None and pre is not None:
        sample = pre + after_sample
        for t in taken:
            rows.append(derived_row(t.item, t.value, t.why))
        rows.append(derived_row("pre_model_load_memory (SGLang's sample)", sample,
                                "free before weights + " + (" and ".join(t.short for t in taken) or "the ROCm bound")
                                + (" (+ the ROCm bound)" if gap is not None and taken else "")
                                + ": init_torch_distributed samples the free memory before ModelRunner takes them"))
    rank0 = any(a.name in ("load_begin_avail", "load_end_avail") and a.rank.index(tp_size=tp) == 0
                for a in parsed.anchors)
    return Load(pre=pre, n_pre=n_pre, end=target_last(view, "load_end_avail"), weights=weights,
                free_after=free_after, n_after=n_after, pre_estimated=pre_estimated, sample=sample, taken=taken,
                rank0=rank0, draft=draft)


def _free_after(parsed: ParsedLog, pre: Iv | None, weights: Iv | None) -> tuple[Iv | None, int, bool]:
    """(the MIN over ranks of the free memory after the weights — the draft's 'Load weight end' when the draft loads
    before the pool is sized — else pre − the weights; the ranks printing it; whether the draft's was taken)."""
    after_a, n_after = min_over_ranks(parsed, "load_end_avail")
    draft_end, _ = min_over_ranks(parsed, "load_end_avail", "draft")
    if draft_end is not None and not draft_before_pool(parsed, draft_end):
        draft_end = None
    free_after = iv_of((draft_end or after_a).size) if (draft_end or after_a) else None
    if free_after is None and pre is not None and weights is not None:
        free_after = pre - weights
    return free_after, n_after, draft_end is not None


def _pre_rows(parsed: ParsedLog, view: RankView, rows: list[Row], total: Bytes | None, init_iv: Iv | None,
              after_sample: Iv | None) -> tuple[Iv | None, int]:
    """pre_model_load_memory (MIN over ranks of 'Load weight begin', else this rank's 'Load weight end' avail +
    mem usage) and the rows of the CUDA context (less ``after_sample``, what SGLang takes after its pre sample), this
    rank's free memory before the weights and the pre."""
    pre_a, n_pre = min_over_ranks(parsed, "load_begin_avail")
    begin = target_last(view, "load_begin_avail")
    end = target_last(view, "load_end_avail")
    wu = target_last(view, "weights_mem_usage")
    pre = iv_of(pre_a.size) if pre_a else None
    if pre is None and end and wu:
        pre = iv_of(end.size) + iv_of(wu.size)
    if total is not None and pre is not None:
        ctx_iv = iv_of(total) - pre - (after_sample or iv_of(Bytes(0))) - (init_iv or iv_of(Bytes(0)))
        rows.append(derived_row("CUDA context + process (before distributed init)", ctx_iv,
                                "device total − pre_model_load_memory − distributed init"
                                + (" − what SGLang takes after its pre sample" if after_sample else "")
                                + ("" if init_iv else " (distributed init not printed: included)")))
    if begin:
        rows.append(printed_row("free before weights (this rank)", begin,
                                f"'Load weight begin. avail mem' = local free memory before the weights, {GIB_NOTE}"))
    if pre_a is not None:
        rows.append(derived_row("pre_model_load_memory", pre,
                                f"min over {n_pre} rank(s) of 'Load weight begin. avail mem' (SGLang's MIN "
                                f"all-reduce), {GIB_NOTE}"))
    elif pre is not None:  # the CUDA-context row above is stated in it: the ledger carries the term it uses
        rows.append(derived_row("pre_model_load_memory", pre,
                                "'Load weight end. avail mem' + its 'mem usage' (no 'Load weight begin' printed): "
                                f"this rank's free memory before the weights, {GIB_NOTE}"))
    return pre, n_pre


def _offload_note(ctx: Context, rows: list[Row], tp: int, pp: int) -> None:
    """With ``--cpu-offload-gb`` in the run, the weights row's meaning says the load usage lacks the offloaded decoder layers
    and, when the config is known, what tpkit's rule (``engines.offload``; ``engines.sglang.load.load_usage``)
    plans for it.  Nothing changes in the rebuild: it reads the printed usage."""
    from tpkit.explain.sgrelease import offload_gb

    gb = offload_gb(ctx)
    at = next((i for i, r in enumerate(rows) if r.item == "weights"), None)
    if not gb or at is None:
        return
    note = (f"--cpu-offload-gb {gb} ({ctx.sources.get('cpu_offload_gb', 'the log')}): SGLang keeps up to {gb} GiB "
            "per GPU of decoder layers in CPU memory, so this usage lacks them")
    if ctx.model is not None:
        try:
            from tpkit.engines.sglang.options import SglangOptions
            from tpkit.engines.sglang.load import cpu_offload
            from tpkit.parallel import ParallelSpec

            off = cpu_offload(ctx.model, ParallelSpec(tp=tp, pp=pp),
                              SglangOptions(engine_version=ctx.rules_version or "0.5.23", cpu_offload_gb=gb))
            note += f"; tpkit's rule: {off.describe()}"
        except REFUSED:  # a model the rules cannot size: the note without the planned figure
            pass
    from dataclasses import replace

    rows[at] = replace(rows[at], meaning=f"{rows[at].meaning}; {note}")


def _weights_rows(view: RankView, rows: list[Row]) -> Iv | None:
    """The weights (printed 'mem usage', else free before − after) and this rank's free memory after them, each
    checked against the other two prints."""
    begin = target_last(view, "load_begin_avail")
    end = target_last(view, "load_end_avail")
    wu = target_last(view, "weights_mem_usage")
    weights = None
    if wu:
        d = iv_of(begin.size) - iv_of(end.size) if begin and end else None
        rows.append(printed_row("weights", wu, f"'Load weight end. mem usage' = free before − free after the weights, "
                                f"{GIB_NOTE}", derived=d, derived_from="avail mem before − after the weights"))
        weights = iv_of(wu.size)
    elif begin and end:
        weights = iv_of(begin.size) - iv_of(end.size)
        rows.append(derived_row("weights", weights, "free before − free after the weights"))
    if end:
        d = iv_of(begin.size) - iv_of(wu.size) if begin and wu else None
        rows.append(printed_row("free after weights (this rank)", end,
                                f"'Load weight end. avail mem' = local free memory after the weights, {GIB_NOTE}",
                                derived=d, derived_from="avail before − mem usage"))
    return weights
