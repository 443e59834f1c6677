"""A vLLM no-blocks failure whose smaller-profile fix, re-planned from the log's own numbers, misses only vLLM's
one-request start-up check (helper cr36b, 2026-12-07, session 36; docs/accuracy.md §7.3 round cr36b).

``vnoblocks.profile_fixes`` re-plans ``--max-num-seqs 64 --max-num-batched-tokens 4096`` (``vreplan.reprofiled``).
Where the re-plan carries the weights the log measured (round cr33c's class (a)), its pool can hold tokens and
still fail: vLLM refuses to start unless the KV cache holds one request of max_model_len ("To serve at least one
request with the model's max seq len …", V1 ``v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory``, 0.10.1
wheel; V0 ``worker/worker.py`` ``raise_if_cache_size_invalid``).  The same flags with ``--max-model-len`` the pool's
tokens less one block (V1 keeps a null block, ``v1/core/block_pool.py`` ``BlockPool.__init__``, 0.8.5 wheel; one block
less is also within V0's pool) are re-planned, and offered where that re-plan fits.  Round cr35c's
``vnoblocks.shorter_profile_fix`` does the same for a fix planned from the catalog (class (b), the band's pessimistic
end); this module takes only class (a), so cr35c's condition for class (b) (the catalog must reproduce the failure)
is untouched.  Round cr35c's ``vrequest.with_one_request`` is the first-request path's form of the same check.
"""

from __future__ import annotations

from tpkit.explain.diagnose import Fix
from tpkit.explain.refusals import REFUSED

__all__ = ["one_request_fix"]


def _measured(a, ctx, changes: dict) -> bool:
    """Whether the re-plan with ``changes`` carries the weights the log measured (class (a): not
    ``vcatalogfit.from_catalog``)."""
    from tpkit.explain.replan import log_planner, log_quantization_planned, relayout
    from tpkit.explain.vcatalogfit import from_catalog

    plan = log_planner(ctx, band=False, **changes)
    if plan is None:
        return False
    try:
        done = relayout(ctx, a, tp=int(ctx.get("tp", 1) or 1), pp=int(ctx.get("pp", 1) or 1),
                        quantization=log_quantization_planned(ctx), plan=plan)
    except REFUSED:
        return False
    return not from_catalog(done)


def one_request_fix(a, ctx, fix: Fix | None, changes: dict, why: str) -> Fix | None:
    """``fix`` (the profile flags ``changes``, re-planned) again with ``--max-model-len`` its pool's tokens less one
    block, where ``fix`` is not a fit, holds at least two blocks and fewer tokens than one request of the run's
    max_model_len, and carries the log's measured weights; the re-plan where it fits, else None."""
    if fix is None or fix.fits or not fix.kv_tokens or "max_model_len" in changes or ctx is None or ctx.model is None:
        return None
    block = int(getattr(a, "block_size", 16) or 16)
    tokens = int(fix.kv_tokens)
    mml = ctx.get("context_length") or getattr(ctx.model, "max_position_embeddings", None)
    if not mml or tokens < 2 * block or tokens >= int(mml) or not _measured(a, ctx, changes):
        return None
    length = (tokens // block - 1) * block
    from tpkit.explain import vreplan

    shorter = vreplan.reprofiled(a, ctx, {**changes, "max_model_len": length},
                                 why + f"; --max-model-len {length:,}: the pool the re-plan leaves, less one block "
                                       f"(vLLM refuses to start unless one request of max_model_len ({int(mml):,}) "
                                       "fits)")
    return shorter if shorter is not None and shorter.fits else None
