"""One max_model_len request against a vLLM KV pool, and the pool a log prints only in tokens (helper cr35c,
2026-12-07, session 35; ``longest_request`` moved here from ``explain.vdiagnose._one_request``, helper cr35c).

vLLM refuses to start when one request of the run's max_model_len does not fit the KV cache ('To serve at least one
request with the models's max seq len …', ``v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory``, 0.6–0.33;
V0: 'The model's max seq len … is larger than the maximum number of tokens that can be stored in KV cache',
``worker/worker.py`` ``raise_if_cache_size_invalid``).  A fix that shrinks the pool (a lower
``--gpu-memory-utilization``) is therefore a fit only where the smaller pool still holds that request, or where it
also lowers ``--max-model-len`` to the longest request the smaller pool holds.
"""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, unshown
from tpkit.explain.refusals import REFUSED
from tpkit.units import Bytes

__all__ = ["longest_request", "pool_from_tokens", "with_one_request"]


def _max_model_len(ctx) -> int | None:
    mml = ctx.get("context_length") or getattr(ctx.model, "max_position_embeddings", None)
    return int(mml) if mml else None


def longest_request(a, ctx, available: int | None, tp: int | None = None) -> tuple[int | None, int | None]:
    """(the longest request ``available`` KV bytes hold by vLLM's own estimate, the run's max_model_len).

    The estimate is vLLM's (``engines.vllm.capacity.estimate_max_model_len`` on the run's KV layout at ``tp``: sliding
    and mamba groups need less than the full length); the longest is None where the model, the length or the layout
    is unknown."""
    mml = _max_model_len(ctx)
    if available is None or ctx.model is None or not mml:
        return None, mml
    try:
        from tpkit.engines.vllm.capacity import estimate_max_model_len, max_concurrent_batches
        from tpkit.explain.vlayout import token_layout
        from tpkit.explain.vtokens import log_rules

        rules = log_rules(ctx)
        pp = int(ctx.get("pp", 1) or 1)
        layout, _ = token_layout(ctx, tp or int(ctx.get("tp", 1) or 1), pp, int(ctx.get("page_size", 16) or 16),
                                 rules)
        if layout is None:
            return None, mml
        in_flight = int(ctx.get("max_num_batched_tokens") or 2048) * max_concurrent_batches(rules, pp)
        return estimate_max_model_len(layout, Bytes(max(int(available), 0)), mml, in_flight, rules), mml
    except REFUSED:  # a layout the rules refuse to build (user input): the check is not made; a bug raises
        return None, mml


def pool_from_tokens(a) -> int | None:
    """The KV pool's bytes where the log prints its size in tokens but no 'Available KV cache memory' (vLLM 0.8.x
    V1 prints only 'GPU KV cache size: N tokens'): the printed tokens × the model's KV bytes per token.

    vLLM sizes whole blocks (``num_blocks = available // (block bytes × layers)``, ``v1/core/kv_cache_utils.py``
    ``_get_kv_cache_config_uniform_type``, 0.8.0–0.8.5 wheels), so the pool holds at least the printed tokens' bytes
    and less than one block more: the lower end, which leaves the smaller pool no larger than it is.  The printed
    line is the smallest worker's (``explain.vworkers.per_worker_capacity``).  None where the memory is printed,
    no tokens are, or the bytes per token are only measured from that memory (no model)."""
    if a.available is not None or not a.tokens_printed or not a.token_bytes:
        return None
    if str(a.token_bytes_source).startswith("measured"):
        return None
    return int(a.tokens_printed * a.token_bytes)


def with_one_request(fix: Fix, a, ctx, smaller: int) -> Fix:
    """``fix`` (a lower utilisation whose pool becomes ``smaller`` bytes) checked against vLLM's start-up request
    check: kept where one max_model_len request fits (vLLM's estimate with the model; without it, the smaller pool's
    tokens at least the length — full attention's need, the most any layout needs); with ``--max-model-len`` the
    longest request it holds where the model is known and that is shorter; a suggestion where it cannot be told.
    The longest is also at most the pool's tokens less one block: V1's ``BlockPool.__init__`` takes one block as its
    ``null_block`` (v1/core/block_pool.py, 0.8.5 wheel; absent from 0.8.0's), so the scheduler never has the whole
    pool for one request (the plan charges it too: its ``null_block``)."""
    if not fix.fits or ctx is None:
        return fix
    longest, mml = longest_request(a, ctx, smaller)
    if mml is None:
        return fix
    if longest is None:
        if fix.kv_tokens is not None and fix.kv_tokens >= mml:
            return fix
        return unshown(fix, f"the smaller pool's {fix.kv_tokens or 0:,} tokens are fewer than max_model_len {mml:,} "
                            "and the model is not known, so vLLM's start-up check on one request is not re-planned")
    if fix.kv_tokens is not None:  # V1's BlockPool keeps one block as its null block (0.8.5; the plan charges it)
        longest = min(longest, fix.kv_tokens - a.block_size)
    if longest >= mml:
        return fix
    if longest <= 0:
        return unshown(fix, "the smaller pool holds no request")
    return Fix(flags=f"{fix.flags} --max-model-len {longest}", kv_tokens=fix.kv_tokens, fits=True,
               why=fix.why + f"; vLLM refuses to start unless one max_model_len request fits the pool "
                             f"(max_model_len {mml:,} → {longest:,}, the longest the smaller pool holds, one block "
                             "kept as V1's null block)",
               note=fix.note)
