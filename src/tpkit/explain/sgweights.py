"""SGLang diagnosis of an out-of-memory while loading the weights: the fixes re-planned from the log's load anchors,
from the model config, or planned from the catalog where the load stopped before the weights were measured; split from
``explain.sgdiagnose`` (helper cr33a, 2026-12-07) along the phase boundary."""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, bytes_text, kv_heads_shard, unshown
from tpkit.explain.refusals import REFUSED
from tpkit.explain.diagnose import oom_sizes
from tpkit.explain.sgbudget import BudgetReplan, layout_fix, mm_bytes, pool_tokens, rope_bytes

__all__ = ["weights_failure"]


def weights_failure(failure, a, ctx, plan: BudgetReplan, parsed=None):
    """Out of memory loading the weights: (cause, short, fixes) — twice the TP size, or re-planned from the model
    config when the load never finished.  A failure the log shows is not a lack of memory (SGLang's load-sync error,
    another exception class) gets no OOM cause and no memory fix (``explain.sgloadfail``, round cr35a)."""
    from tpkit.explain.sgloadfail import weights_error_not_memory

    if (not_memory := weights_error_not_memory(parsed)) is not None:
        return not_memory
    oom, req, free, short = oom_sizes(failure)
    tp = int(ctx.get("tp", 1) or 1)
    pre = plan.pre
    cause = "out of memory while loading the weights"
    if oom and req and free:
        cause += f": asked for {req.text} with {free.text} free"
    from tpkit.explain.sgdevice import who_holds_the_card

    if held := who_holds_the_card(failure):
        cause += "; " + held
    room_bytes = pre if pre is not None else _free_for_weights(failure)
    if pre is not None and free is not None:
        cause += f"; {bytes_text(pre - free.value.bytes)} of weights were loaded out of {bytes_text(pre)} free before the load"
    if plan.w is not None:
        from tpkit.explain.sgreplan import relayout

        return cause, short, [layout_fix(plan, f"--tp {2 * tp}", "weights shard over twice the GPUs",
                                         cell_scale=0.5 if kv_heads_shard(ctx.model, tp) else 1.0,
                                         **relayout(ctx, a, tp=2 * tp))]
    fixes = _weights_fixes_from_model(ctx, tp, room_bytes, plan.f, a)
    if not any(fx.fits for fx in fixes):
        cause, fixes = _weights_from_catalog(ctx, cause, fixes, failure.size("other_processes"))
    return cause, short, fixes


def _weights_from_catalog(ctx, cause: str, fixes: list[Fix], held=None) -> tuple[str, list[Fix]]:
    """A weight-load OOM that prints no weight size (nothing re-planned from the log fits): the fixes planned from
    the catalog as ``tpkit plan --from-log`` and the pool-OOM path plan them (``explain.planned.catalog_fixes_sglang``,
    the same planner, release and fit rule; helper wo22), each marked as planned from the catalog with its band.
    No ``--mem-fraction-static`` fix is planned: SGLang loads the weights before it sizes anything by the fraction
    (``ModelRunner.load_model`` precedes ``init_memory_pool``, sglang 0.1–0.5.23), so the fraction does not change
    what the load needs.  Without the model config or the GPU, the cause says which to pass.  ``held``: another
    process's memory the torch OOM lists (helper cr31: the freed card is planned, ``explain.planned._freed_card``)."""
    from tpkit.explain.planned import catalog_fixes_sglang

    if ctx.model is None or ctx.gpu is None:
        missing = [what for what, known in (("the model config (--model: an HF id or its config.json)",
                                             ctx.model is not None), ("the GPU (--gpu)", ctx.gpu is not None))
                   if not known]
        return (cause + "; the log prints no weight size, so no fix is re-planned from it; give "
                + " and ".join(missing) + " to plan the fixes from the catalog"), fixes
    found, finding = catalog_fixes_sglang(ctx, fractions=(), held=held)
    if not found:
        return cause, fixes
    return cause + "; " + finding, [Fix(**kw) for kw in found]


def _free_for_weights(failure) -> int | None:
    """Free memory before the load, from a torch OOM message: free now + what this process already holds."""
    free, used = failure.size("free"), failure.size("process_in_use")
    if free is None or used is None:
        return None
    return free.value.bytes + used.value.bytes


def _model_weights(ctx, tp: int, quantization: str | None) -> int | None:
    if ctx.model is None:
        return None
    try:
        from tpkit.models.weights import plan_weights
        from tpkit.parallel import ParallelSpec

        return plan_weights(ctx.model, ParallelSpec(tp=tp, pp=int(ctx.get("pp", 1) or 1)),
                            quantization=quantization).bytes_per_rank.bytes
    except REFUSED:
        return None


def _weights_fixes_from_model(ctx, tp: int, room_bytes: int | None, f, a) -> list[Fix]:
    """The weights never finished loading: re-plan them from the model config (tpkit's weight rules).  The fraction
    is the run's where the log gives it, else SGLang's default at the fix's layout where the release pins it
    (``_fraction_at``); else it is assumed, and the fix offered as a suggestion (helper cr34a: before, an unsourced
    0.85)."""
    out = []
    options = [(f"--tp {2 * tp}", 2 * tp, None, "weights shard over twice the GPUs")]
    if ctx.model is not None and getattr(ctx.model, "quant", None) is None:
        options.append(("--quantization fp8", tp, "fp8", "fp8 weights take half of 16-bit weights"))
    for flags, t, q, why in options:
        weights_bytes = _model_weights(ctx, t, q)
        if weights_bytes is None or room_bytes is None:
            lacks = ("no model config is known (pass --model)" if weights_bytes is None else
                     "the log prints no free memory before the load (pass --gpu to plan from the catalog)")
            out.append(Fix(flags=flags, kv_tokens=None, fits=False, why=why,
                           note=f"not re-plannable: the load stopped before the weights were measured and {lacks}"))
            continue
        frac, source = (f, "the run's") if f is not None else _fraction_at(ctx, t)
        rest_bytes = int(room_bytes * frac) - weights_bytes - mm_bytes(a) - rope_bytes(a)
        cell = a.cell_bytes * (0.5 if (t != tp and kv_heads_shard(ctx.model, tp)) else 1.0) if a.cell_bytes else None
        fix = Fix(flags=flags, kv_tokens=pool_tokens(rest_bytes, cell, a.page), fits=rest_bytes > 0, why=why,
                  note=f"weights {bytes_text(weights_bytes)} per GPU (tpkit's rules, {ctx.model_source}); KV budget "
                       f"{bytes_text(rest_bytes)} at mem_fraction_static {frac:.3f} ({source})")
        out.append(fix if source != ASSUMED else unshown(fix, "the run's mem_fraction_static: neither printed nor "
                                                              "pinned by a known release's default on a known GPU"))
    return out


ASSUMED = "assumed"
"""the source of a fraction neither the log nor a pinned default gives (``_fraction_at``)"""
ASSUMED_FRACTION = 0.85
"""the fraction then assumed: a common SGLang default (0.4.0–0.4.5 by-tp table at tp 4; ``engines.sglang.defaults``),
not a rule — a fix sized with it is a suggestion"""


def _fraction_at(ctx, tp: int) -> tuple[float, str]:
    """(SGLang's default mem_fraction_static at tp ``tp``, its source) at the low end of what the release and GPU
    allow (``explain.sgrelease.default_fraction``, from ``engines.sglang.defaults.default_mem_fraction``; the low end
    is the pessimistic one: the smaller budget); (``ASSUMED_FRACTION``, ``ASSUMED``) where no default is pinned."""
    from tpkit.explain.sgrelease import default_fraction

    if ctx.model is None:
        return ASSUMED_FRACTION, ASSUMED
    try:
        rng, source = default_fraction(ctx, tp, int(ctx.get("pp", 1) or 1))
    except REFUSED:
        rng, source = None, ""
    if rng is None:
        return ASSUMED_FRACTION, ASSUMED
    return float(rng[0]), f"SGLang's default at tp {tp}, the low end: {source.removeprefix('not printed: ')}"
