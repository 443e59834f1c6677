"""vLLM layout fixes planned from the catalog: where a re-plan carries no weights measured by the log (a weights-load
OOM prints one allocation, not the weights; or the log's weights are not those of the config planned), the fix is
class (b) of round cr33c's standard (docs/accuracy.md §7.3 'Every claimed fit audited'): a fit only where it fits at
the pessimistic end of the plan's band (``memory.band.with_band``: every estimated term at its end that leaves the
fewest KV tokens) and, for a weights-load OOM, only where the plan of the log's own settings reproduces the failure
(helper cr34b, 2026-12-07; the SGLang catalog fixes keep the same two tests: ``explain.planned._planned_fix``).

vLLM refuses to start where the KV cache cannot hold one request of ``max_model_len`` tokens ("To serve at least one
request with the model's max seq len …": V1 ``v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory``, 0.10.1
wheel, moved to ``v1/core/kv_cache_planning.py`` ``_check_enough_kv_cache_memory`` by the 0.33.0 wheel; V0
``worker/worker.py`` ``raise_if_cache_size_invalid``, 0.10.1 wheel: "The model's max seq len … is larger than the
maximum number of tokens that can be stored in KV cache"): the band's low end must hold the plan's context length,
not merely one token.
"""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, unshown
from tpkit.explain.refusals import REFUSED

__all__ = ["from_catalog", "at_pessimistic_end", "checked", "own_plan", "not_reproduced"]


def from_catalog(done) -> bool:
    """Whether a ``replan.relayout`` planned the weights itself (no 'weights' term carried from the log)."""
    return "weights" not in (done.terms or {})


def at_pessimistic_end(ctx, a, *, tp: int, pp: int, quantization, changes: dict | None = None,
                       profile: tuple | None = None) -> tuple[bool, str]:
    """(fits, words): the re-plan at ``tp`` × ``pp`` and ``quantization`` with the band (``log_planner(band=True)``)
    fits, and the band's low end holds the plan's context length (one request of ``max_model_len``)."""
    from tpkit.explain.replan import log_planner, relayout

    plan = log_planner(ctx, band=True, **(changes or {}))
    if plan is None:
        return False, "the band is not planned (the model or the GPU is unknown)"
    try:
        result = relayout(ctx, a, tp=tp, pp=pp, quantization=quantization, plan=plan, profile=profile).result
    except REFUSED:
        return False, "the band is not planned (the planner refuses the layout)"
    if result.band is None:
        return False, "the plan has no band"
    low, high = result.band.kv_tokens
    need = int(result.context_length or 1)
    ok = bool(result.verdict.fits) and low >= need
    return ok, (f"planned from the catalog (the log measured no weights for this config): the band's pessimistic end "
                f"holds {low:,} KV tokens (band {low:,}–{high:,}), {'≥' if ok else 'below'} the {need:,} of one "
                f"request of the plan's max_model_len" + ("" if ok else " (the nominal plan fits)"))


def checked(fix: Fix, ctx, a, *, tp: int, pp: int, quantization, changes: dict | None = None,
            profile: tuple | None = None) -> Fix:
    """``fix`` (a fit of the nominal catalog re-plan) kept a fit only at the band's pessimistic end; else offered as a
    suggestion (``diagnose.unshown``) whose note gives the pessimistic end's tokens."""
    ok, words = at_pessimistic_end(ctx, a, tp=tp, pp=pp, quantization=quantization, changes=changes,
                                   profile=profile)
    if not ok:  # the nominal plan fits, its pessimistic end does not: offered, not a fit (round cr33c's label)
        return unshown(fix, words)
    return Fix(flags=fix.flags, kv_tokens=fix.kv_tokens, fits=True, why=fix.why,
               note=(fix.note + "; " if fix.note else "") + words)


def own_plan(ctx, a):
    """The nominal plan of the log's own settings (layout, quantization) on an empty card, or None where the model or
    the GPU is unknown or the planner refuses it."""
    from tpkit.explain.replan import log_planner, log_quantization_planned, relayout

    plan = log_planner(ctx, band=False)
    if plan is None:
        return None
    try:
        return relayout(ctx, a, tp=int(ctx.get("tp", 1) or 1), pp=int(ctx.get("pp", 1) or 1),
                        quantization=log_quantization_planned(ctx), plan=plan).result
    except REFUSED:
        return None


def not_reproduced(ctx, a, fixes: list[Fix]) -> tuple[list[Fix], str]:
    """A weights-load OOM's (fixes, finding): where the plan of the log's own settings fits an empty card, the catalog
    does not reproduce the failure (another process on the card, a release's regression, a checkpoint other than the
    config), so no layout fix is shown to cure it: each fit is offered as a suggestion, and the finding says so
    ('' where the plan reproduces the failure or cannot be made)."""
    own = own_plan(ctx, a)
    if own is None or not own.verdict.fits:
        return fixes, ""
    finding = (f"tpkit's plan of the log's own settings fits an empty card ({int(own.kv_tokens):,} KV tokens per rank, "
               f"{ctx.model_source}, {ctx.gpu.name}): the catalog does not reproduce this weights OOM (memory held by "
               "another process, a release's regression, or another checkpoint than the config)")
    missing = "the plan of the log's own settings fits an empty card, so the catalog does not reproduce the failure"
    return [unshown(f, missing) if f.fits else f for f in fixes], finding
