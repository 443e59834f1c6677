"""vLLM ≥ 0.34's CUDA-graph grids on SM 10.x (``VllmRules.sm100_wide_graphs``; helper cur17): the prefill token
sizes and the FULL decode sizes Model Runner V2 captures when no capture sizes are given.  Used by
``engines.vllm.graphs.estimate_cudagraph_memory``."""

from __future__ import annotations

import math

__all__ = ["WIDE_GRAPH_TOKENS", "wide_capture_sizes"]

WIDE_GRAPH_TOKENS = 8192
"""vLLM ≥ 0.34 on SM 10.x: the default top of the prefill (token) grid and of the decode tokens
(``config/vllm.py _split_cudagraph_capture_sizes``: 8192 when unset, ``max_decode_cudagraph_capture_tokens``)"""


def _grid(limit: int, step) -> list[int]:
    """Sizes from 1 below ``limit``, each the next multiple of the largest power of two not above ``step(size)``
    (at least 1), then ``limit`` itself (vLLM 0.34.0 ``config/compilation.py`` ``_walk_grid``'s rule)."""
    out, size = [], 1
    while size < limit:
        out.append(size)
        stride = 1 << max(0, math.floor(math.log2(max(1.0, step(size)))))
        size = (size // stride + 1) * stride
    return out + [limit] if limit else []


def wide_capture_sizes(*, max_num_seqs: int, max_num_batched_tokens: int,
                       decode_query_len: int = 1) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(prefill token sizes, FULL decode token sizes) of vLLM ≥ 0.34 on SM 10.x with no capture sizes given
    (``VllmRules.sm100_wide_graphs``; ``config/vllm.py _split_cudagraph_capture_sizes``: "On SM100, unset kinds
    default to wider grids").  Prefill: 1, 2, 4, every 8 to 64, four a doubling to 1024, then every 256 (512 once 7 %
    of the size passes 512) up to min(8192, max_num_batched_tokens): 54 sizes at 8192 (``prefill_cudagraph_capture_
    grid``).  Decode: request counts 1…6, then steps of the largest power of two ≤ 0.65·n^(2/3) up to max_num_seqs,
    64 at 1024 (``decode_cudagraph_capture_grid``), each a FULL graph of n × q tokens within min(8192,
    max_num_batched_tokens) // q requests, the first size past that limit captured at it
    (``decode_cudagraph_capture_shapes``).  Model Runner V2 captures the prefill sizes as the mixed-mode (PIECEWISE)
    graphs and the decode shapes as the FULL ones (``v1/worker/gpu/cudagraph_utils.py _init_candidates``)."""
    top = min(WIDE_GRAPH_TOKENS, max_num_batched_tokens)
    prefill = _grid(top, lambda t: min(t, max(8, t / 4), 0.07 * max(t, 4096)))
    reqs = _grid(max_num_seqs, lambda n: 0.65 * n ** (2 / 3))
    q = max(1, decode_query_len)
    limit = min(max_num_seqs, top // q)
    reachable = [n for n in reqs if n < limit] + [n for n in reqs if n >= limit][:1]
    decode = sorted({min(n, limit) * q for n in reachable}) if limit >= 1 else []
    return tuple(prefill), tuple(decode)
