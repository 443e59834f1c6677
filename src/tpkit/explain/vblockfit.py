"""The KV tokens of a pool whose block size is not the one tpkit assumes, read from vLLM's own estimate (round ex36).

V1's one-request check prints 'the estimated maximum model length is L' (``kv_cache_utils.estimate_max_model_len``:
a binary search for the largest length whose ``max_memory_usage_bytes`` fits the available memory; read in the 0.11.0
wheel, the same in 0.8.x–0.27).  For a full-attention spec that is ``cdiv(L, block) × bytes per block`` (v1
``kv_cache_interface.FullAttentionSpec.max_memory_usage_bytes``), so L is a whole number of blocks, n × block, and
the available memory lies in [n, n + 1) blocks' bytes.  ``explain.vtokens.estimate_pins_available`` uses that at the
block size tpkit assumes (vLLM's CUDA default, 16).  A platform plug-in may page its cache in larger blocks — the
TPU back end of vllm-project/tpu-inference#223 printed L = 5,632 for 0.71 GiB at 128 KiB per token, which 16-token
blocks cannot give (they give 5,808) and 256- or 512-token blocks do.  Where the assumed block misses the print and a
larger power-of-two block that divides L fits it, the pool holds L tokens (n × block at that block: the same L for
every block that fits), so the fix of ``--max-model-len L`` states L, not the 16-token count.  Where no block fits
(a sliding-window or hybrid spec, whose estimate is not n × block), nothing changes."""

from __future__ import annotations

__all__ = ["estimate_block_tokens"]

_LARGEST_BLOCK = 4096
"""the largest block size tried (tokens): above vLLM's --block-size choices and the Pallas page sizes (≤ 256, 0.11.0)"""


def _fits(est: int, block: int, tb: float, low: int, high: int) -> bool:
    n = -(-est // block)
    return n * block * tb <= high and (n + 1) * block * tb > low


def estimate_block_tokens(failure, block: int) -> int | None:
    """L where vLLM's printed estimate fits the printed available memory only at a block size larger than ``block``
    (the one assumed), else None.  Reads the failure's own sizes: KV needed for max_model_len (its bytes per token)
    and the available memory, each with its print rounding."""
    est, mml = failure.count("estimated_max_len"), failure.count("max_model_len")
    needed, have = failure.size("needed"), failure.size("available")
    if failure.kind != "kv_too_small" or not (est and mml and needed and have) or block <= 0:
        return None
    length, tokens = int(est.value), int(mml.value)
    if length <= 0 or tokens <= 0:
        return None
    tb = needed.value.bytes / tokens
    low, high = have.low.bytes, have.high.bytes
    if _fits(length, block, tb, low, high):
        return None  # the assumed block agrees: estimate_pins_available's case
    size = block * 2
    while size <= min(length, _LARGEST_BLOCK):
        if length % size == 0 and _fits(length, size, tb, low, high):
            return length
        size *= 2
    return None
