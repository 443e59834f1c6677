"""A vLLM no-blocks failure ('No available memory for the cache blocks') whose smaller-profile fix, planned from the
catalog, misses only vLLM's one-request start-up check at the band's pessimistic end (helper cr35c, 2026-12-07,
session 35; docs/accuracy.md §7.3 round cr35c).

Round cr33c's standard calls a catalog plan a fit only where it fits at the band's pessimistic end, and the end must
hold one request of max_model_len (``explain.vcatalogfit.at_pessimistic_end``: vLLM refuses to start otherwise,
``v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory``).  Where the smaller profile batch leaves a pool at that
end, but one shorter than the model's default length, the same fix with ``--max-model-len`` at most that pool (less
V1's null block, ``v1/core/block_pool.py`` ``BlockPool.__init__``, 0.8.5 wheel) passes the check at the pessimistic
end.  It is offered only where the catalog plan of the log's own settings reproduces the failure (no KV pool at the
log's batch at the band's pessimistic end): otherwise the failure comes from what the catalog does not see
(another tenant, a co-located trainer) and no planned fix is shown to cure it.
"""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, unshown
from tpkit.explain.refusals import PROFILE_UNPLANNED, REFUSED

__all__ = ["profile_fixes", "shorter_profile_fix"]

SMALLER_BATCH = {"max_num_seqs": 64, "max_num_batched_tokens": 4096}
"""the no-blocks fallback's smaller profile batch (``vdiagnose._no_kv_memory`` since round cr33c; moved here)"""


def profile_fixes(a, ctx) -> list[Fix]:
    """A no-blocks failure's profile fixes: ``SMALLER_BATCH`` re-planned where the model and GPU are known
    (``vreplan.reprofiled``), else offered unplanned (``PROFILE_UNPLANNED``); then ``shorter_profile_fix``."""
    from tpkit.explain import vreplan

    why = "a smaller profile run lowers the activation peak"
    flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in SMALLER_BATCH.items())
    planned = vreplan.reprofiled(a, ctx, dict(SMALLER_BATCH), why)
    shorter = shorter_profile_fix(a, ctx, planned, dict(SMALLER_BATCH), why)
    if shorter is None:  # cr36b: the same check on a re-plan from the log's own numbers (class a)
        from tpkit.explain.vshortlen import one_request_fix

        shorter = one_request_fix(a, ctx, planned, dict(SMALLER_BATCH), why)
    return [planned or unshown(Fix(flags=flags, kv_tokens=None, fits=True, why=why), PROFILE_UNPLANNED)] + (
        [shorter] if shorter else [])


def _pessimistic_tokens(ctx, a, changes: dict) -> int | None:
    """The KV tokens at the band's pessimistic end of the catalog re-plan with ``changes`` (None: not planned)."""
    from tpkit.explain.replan import log_planner, log_quantization_planned, relayout

    plan = log_planner(ctx, band=True, **changes)
    if plan is None:
        return None
    try:
        result = relayout(ctx, a, tp=int(ctx.get("tp", 1) or 1), pp=int(ctx.get("pp", 1) or 1),
                          quantization=log_quantization_planned(ctx), plan=plan).result
    except REFUSED:
        return None
    return int(result.band.kv_tokens[0]) if result.band is not None else None


def _reproduced(ctx, a) -> bool:
    """Whether the catalog plan of the log's own settings holds the failure inside its band: no KV token at the
    band's pessimistic end (the log's 'No available memory for the cache blocks' is then a case the plan allows)."""
    return _pessimistic_tokens(ctx, a, {}) == 0


def shorter_profile_fix(a, ctx, fix: Fix | None, changes: dict, why: str) -> Fix | None:
    """``fix`` (the smaller profile batch ``changes``, planned from the catalog) again with ``--max-model-len`` the
    pessimistic end's pool less one block, where ``fix`` is a suggestion only because that end holds fewer tokens
    than one request of the default length; None where it does not apply or the re-plan does not fit there."""
    if fix is None or fix.fits or "max_model_len" in changes or ctx.model is None:
        return None
    low = _pessimistic_tokens(ctx, a, changes)
    block = int(getattr(a, "block_size", 16) or 16)
    if low is None or low < 2 * block or not _reproduced(ctx, a):
        return None
    length = (low // block - 1) * block
    mml = ctx.get("context_length") or getattr(ctx.model, "max_position_embeddings", None)
    if not mml or length >= int(mml):
        return None
    from tpkit.explain import vreplan

    shorter = vreplan.reprofiled(a, ctx, {**changes, "max_model_len": length},
                                 why + f"; --max-model-len {length:,}: the pool the band's pessimistic end leaves, "
                                       "less V1's null block (vLLM refuses to start unless one request fits)")
    return shorter if shorter is not None and shorter.fits else None
