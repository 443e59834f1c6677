"""Expected number of distinct routed experts that T tokens touch (pure).

Each token picks ``k`` of ``E`` experts.  Under uniform, independent routing an expert is missed by one
token with probability (1 − k/E), so by all T tokens with (1 − k/E)^T (the occupancy formula; exact for
sampling without replacement within a token up to O(k/E²)).  Real routers are skewed, which touches
fewer experts: the formula is an upper bound on expert bytes, close at small T and exact once every
expert is hit.
"""

from __future__ import annotations

import math

__all__ = ["expected_distinct_experts"]


def expected_distinct_experts(num_experts: int, top_k: int, tokens: int, *, experts_on_rank: int | None = None) -> float:
    """Expected distinct experts among ``experts_on_rank`` (default all) hit by ``tokens`` tokens of top-``top_k``."""
    assert num_experts >= 1 and 1 <= top_k <= num_experts and tokens >= 0, (num_experts, top_k, tokens)
    local = num_experts if experts_on_rank is None else experts_on_rank
    miss = math.exp(tokens * math.log1p(-top_k / num_experts)) if top_k < num_experts else 0.0
    return local * (1.0 - miss) if tokens else 0.0
