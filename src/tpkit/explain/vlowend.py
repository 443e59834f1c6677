"""The longest request a vLLM KV cache holds, at the pessimistic end of the printed numbers (round fx37, issue 12).

V1's one-request check (``kv_cache_utils.check_enough_kv_cache_memory``) prints the KV cache one max_model_len request
needs and the memory available, each as ``format_gib`` / ``.2f`` GiB, and — from the release that added
``estimate_max_model_len`` (absent from the 0.8.0 wheel, present in 0.11.0 and 0.30.0) — 'the estimated maximum model
length is L' when L > 0: the binary search's largest length whose ``max_memory_usage_bytes`` fits the available
memory, ``cdiv(L, block) × bytes per block`` for full attention, so L = ⌊available ÷ bytes per block⌋ × block.  Where L
is printed, ``tpkit explain`` takes it (vLLM's own number).  Where it is not (a release before the estimate, or an
excerpt that cuts it), L was rebuilt from the middles of the two prints, so a ``--max-model-len L`` called a fit
rested on the rounding: the exact available memory may be 0.005 GiB less, and the bytes per token (the needed KV ÷
max_model_len) larger.  Round cr33c's standard takes the pessimistic end: the low end of the available memory over
the high end of the bytes per token, in whole blocks — a length that fits wherever in the two prints' rounding the
true numbers lie, as vLLM's own estimate at those numbers would be.
"""

from __future__ import annotations

__all__ = ["low_end_length"]


def low_end_length(failure, block: int) -> int | None:
    """vLLM's estimate at the pessimistic end of the printed needed / available KV memory (module doc): the longest
    request, in whole ``block``-token blocks, that fits the low end of the available memory at the high end of the
    bytes per token; None where the failure prints an estimate, or not the three numbers, or a pool under one block."""
    if failure is None or failure.kind != "kv_too_small" or failure.count("estimated_max_len"):
        return None
    needed, have, mml = failure.size("needed"), failure.size("available"), failure.count("max_model_len")
    if not (needed and have and mml) or int(mml.value) <= 0 or block <= 0:
        return None
    per_block = needed.high.bytes / int(mml.value) * block
    blocks = max(int(have.low.bytes // per_block), 0) if per_block > 0 else 0
    return min(blocks * block, int(mml.value)) or None
