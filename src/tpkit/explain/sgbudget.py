"""SGLang's KV budget re-planned from a log's anchors: the one model every SGLang fix of ``explain.sgdiagnose`` is
sized with (a flag's fraction, more free memory, other weights, another cell), the tokens a budget holds, and the
budget's top where no pre-load free memory is printed (``ceiling``)."""

from __future__ import annotations

import math

from tpkit.explain.diagnose import Fix, unshown
from tpkit.explain.interval import Iv
from tpkit.explain.rows import Row, derived_row
from tpkit.units import Bytes

__all__ = ["BudgetReplan", "pool_tokens", "rope_bytes", "mm_bytes", "load_of", "ceiling"]


def load_of(a):
    """The load usage (an interval) an SGLang re-plan charges from the anchors ``a``: ``pool_load`` (pre − the MIN
    over ranks of the free memory after the weights: what SGLang's budget sees) where known, else the printed
    'Load weight end. mem usage' (``weights``); None when neither."""
    load = getattr(a, "pool_load", None)
    return load if load is not None else getattr(a, "weights", None)


def pool_tokens(rest: int, cell: float | None, page: int) -> int | None:
    """The KV tokens ``rest`` bytes hold at ``cell`` bytes per token, in whole pages of ``page``; None without a
    cell."""
    if cell is None or cell <= 0:
        return None
    return max(0, int(rest // cell)) // page * page


class BudgetReplan:
    """The anchors a fix re-plans from, in bytes: SGLang's budget is (pre + stream pool) × f − weights − stream pool
    − the multimodal reservation (0.5.18+, ``explain.sgrelease.mm_reservation_for``) − the RoPE cache pre-expansion
    (``explain.sgrelease.rope_reserve_for``: the ledger's budget is sampled after it), with pre the 'Load weight begin'
    free memory (``engines.sglang.streams``) and f the flag's value × ``fraction_flag_factor``; ``a`` is the run's
    :class:`~tpkit.explain.sglang.SglangAnchored`, ``context`` the context length (None when unknown); a plain class: a
    dataclass costs ~1 ms of ``tpkit explain``'s cold start, issue 12."""

    __slots__ = ("a", "pre", "stream", "mm", "w", "f", "context", "factor", "rope")

    def __init__(self, a, ctx) -> None:
        self.a = a
        self.pre = a.pre.mid.bytes if a.pre else None
        self.stream = a.stream_pool.mid.bytes if a.stream_pool is not None else 0
        # the expert-location metadata's first kernels (0.4.6.post5-0.4.9.x, world 1) leave the free memory between
        # the same two samples: the budget's arithmetic is the stream pool's (engines.sglang.streams)
        kernels = getattr(a, "pre_load_kernels", None)
        self.stream += kernels.mid.bytes if kernels is not None else 0
        workspace = getattr(a, "pre_load_workspace", None)  # DeepGEMM's, 0.5.15+ (cap33): the same two samples
        self.stream += workspace.mid.bytes if workspace is not None else 0
        self.mm = mm_bytes(a)
        self.rope = rope_bytes(a)
        # the load usage the budget sees (MIN before − MIN after over the ranks, as the ledger's budget), else the
        # printed 'mem usage' (explain.sglang.SglangAnchored.pool_load)
        load = load_of(a)
        self.w = load.mid.bytes if load is not None else None
        self.f = a.fraction
        self.context = ctx.get("context_length")
        # what SGLang multiplies a given --mem-fraction-static by (the ROCm aiter × 0.85, an old multimodal runner's
        # factor): a fix's flag value F runs at F × factor, as the run's own fraction did (explain.sglang._fraction)
        self.factor = float(getattr(a, "fraction_flag_factor", 1.0) or 1.0)

    def flag(self, effective: float, *, up: bool) -> float:
        """The ``--mem-fraction-static`` value (0.01 grid, rounded ``up`` or down) that SGLang runs at
        ``effective``."""
        return (math.ceil if up else math.floor)(effective / self.factor * 100) / 100

    def budget(self, *, fraction=None, free_gain=0, weights_scale=1.0, cell_scale=1.0,
               weights=None, stream=None, default_fraction=None) -> tuple[int | None, int | None]:
        """(KV budget bytes, tokens) with one knob changed, from the anchors; ``weights``: the load usage at another
        layout in bytes (``relayout``), in place of the measured one × ``weights_scale``; ``stream``: the stream
        pool at that layout (SGLang's pre sample stays the log's: a re-planned TP re-uses the measured start-up);
        ``default_fraction``: the fraction SGLang runs at the new layout where the run's was its default (no flag
        to keep: ``explain.sgreplan.relayout``), in place of the run's."""
        if self.pre is None or self.w is None or (fraction or default_fraction or self.f) is None:
            return None, None
        frac = (fraction * self.factor if fraction is not None else
                default_fraction if default_fraction is not None else self.f)
        # SGLang samples pre before its forward stream takes the stream pool (engines.sglang.streams): the
        # budget is (pre + pool) × f − weights − pool, with pre the 'Load weight begin' free memory
        p = self.pre + free_gain + self.stream
        w = weights if weights is not None else self.w * weights_scale
        rest = int(p * frac - w - (self.stream if stream is None else stream) - self.mm - self.rope)
        cell = self.a.cell_bytes * cell_scale if self.a.cell_bytes else None
        return rest, pool_tokens(rest, cell, self.a.page)

    def fix(self, flags, why, note="", *, need=0, **kw) -> Fix:
        """The fix ``flags`` with its budget re-planned (``budget``'s knobs in ``kw``): it fits when the budget
        exceeds ``need`` and holds a token; a pool below one full-context request is said."""
        rest, tokens = self.budget(**kw)
        fits = rest is not None and rest > need and (tokens is None or tokens > 0)
        context = self.context
        if tokens is not None and context and tokens < int(context) and kw.get("fraction") is None:
            note = ((note + "; " if note else "")
                    + f"holds {tokens:,} tokens, less than one {int(context):,}-token request")
        return Fix(flags=flags, kv_tokens=tokens, fits=bool(fits), why=why, note=note)


def rope_bytes(a) -> int:
    """The RoPE cache pre-expansion the anchored budget took, in bytes (its midpoint; 0 when none): the ledger's KV
    budget is sampled after it (``explain.sglang._budget_rows``), so every re-planned budget is too."""
    rope = getattr(a, "rope_reserve", None)
    return rope.mid.bytes if rope is not None else 0


def mm_bytes(a) -> int:
    """The multimodal reservation the anchored budget took, in bytes (its midpoint; 0 when none)."""
    mm = getattr(a, "mm_reservation", None)
    return mm.mid.bytes if mm is not None else 0


def ceiling(rows: list[Row], load, f, total: Bytes | None, rest: Iv | None, world: int) -> Bytes | None:
    """The KV budget's top when an SGLang log prints no pre-load free memory (helper cap25): f × ``total`` − the
    weights' low end (the highest fraction where the default is not pinned), with its ledger row, where the budget
    ``rest`` was not rebuilt because pre and the free memory after the weights are both unprinted while the weights,
    the fraction and the device total are known, on a one-rank group; else None.

    SGLang sizes the pool from ``rest = available − pre_model_load_memory × (1 − mem_fraction_static)``
    (``ModelRunner.profile_max_num_token``, sglang 0.4.x–0.5.9 ``model_executor/model_runner.py``, read 0.4.7.post1,
    0.4.10.post2, 0.5.6; ``KVCacheConfigurator._profile_available_bytes``, 0.5.20 / 0.5.23
    ``mem_cache/kv_cache_configurator.py``, which also takes the multimodal reservation off), where
    ``pre_model_load_memory`` is the free memory ``init_torch_distributed`` sampled before the weights and ``available``
    the free memory sampled after them.  'Load weight end … mem usage' prints the weights as free memory before − after
    the load (``load_model``), so ``available`` ≤ pre − weights and ``rest`` ≤ f × pre − weights; and pre is at most what
    the device holds in all, its CUDA-reported total (the CUDA context, the stream pool and every other tenant only
    lower it): ``rest`` ≤ f × total − weights.  A log that prints the weights but neither 'Load weight begin' nor the
    free memory after them gives no budget, yet this top.  It decides one outcome only: a pool of 0 tokens (SGLang's
    'Not enough memory' error: the pool's token count ≤ 0) is what a top below one page of the cell predicts, for any
    pre the card allows; a positive top decides nothing, and no printed pool above 0 is scored against it.  One rank
    only (tp × pp = 1): with more ranks SGLang takes the MIN over the group of pre and of the free memory after the
    weights, and one rank's printed weights do not bound the MIN rank's."""
    if (rest is not None or load.pre is not None or load.free_after is not None or load.weights is None
            or total is None or f.value is None or world != 1):
        return None
    top_f = f.range[1] if f.range is not None else float(f.value)
    top = Bytes(round(total.bytes * top_f)) - load.weights.low
    rows.append(derived_row("KV budget, top (no pre-load free memory printed)", Iv(low=top, high=top),
                            f"f {top_f:.3f} × device total − weights: SGLang's budget is free after weights − (1 − f) × "
                            "pre, free after weights ≤ pre − weights and pre ≤ the device total "
                            "(explain.sgbudget.ceiling)"))
    return top


HALVED = ("the model config or the GPU is not known, so the layout is not re-planned: halving the measured weights is "
          "a rule of thumb (replicated layers do not shard)")
"""what a tp / fp8 fix whose weights ``sgreplan.relayout`` could only halve needs to be shown to fit (round cr33c)"""


def layout_fix(plan: BudgetReplan, flags: str, why: str, **kw) -> Fix:
    """``plan.fix`` at another layout with ``sgreplan.relayout``'s keywords: a fit only where relayout re-planned
    the weights through the planner; where it fell back to halving them (``weights_scale``) a suggestion
    (``diagnose.unshown``, round cr33c's one standard)."""
    fix = plan.fix(flags, why, **kw)
    return unshown(fix, HALVED) if "weights_scale" in kw else fix
