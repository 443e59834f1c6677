"""Expected acceptance length of a draft chain or tree (pure).

Model: at every position the target's token is the draft's r-th candidate with probability
a·(1 − a)^(r−1) (r = 1 … topk), so one candidate is accepted with probability a and some of topk
candidates with 1 − (1 − a)^topk.  A node's chance of being accepted is the product along its path.
The draft tree keeps the ``num_draft_tokens − 1`` most likely nodes, at most ``num_steps`` deep and
``topk`` wide (EAGLE-2's dynamic tree re-ranks by path probability; a chain is topk = 1).

    accept_length τ = 1 (the verified token) + Σ over kept nodes of P(path accepted)

A chain of k draft tokens gives τ = 1 + a + a² + … + a^k.  ``accept_rate_for`` inverts the model: the
per-token rate a that reproduces a measured τ for given settings.
"""

from __future__ import annotations

import heapq

from tpkit.errors import PlanInputError

__all__ = ["accept_length", "accept_rate_for"]


def accept_length(rate: float, *, num_steps: int, topk: int, num_draft_tokens: int) -> float:
    """Expected accepted tokens per verify (≥ 1) for per-token acceptance ``rate``."""
    assert 0.0 <= rate < 1.0 and num_steps >= 1 and topk >= 1 and num_draft_tokens >= 2
    budget = min(num_draft_tokens - 1, _tree_nodes(num_steps, topk))
    total = 1.0
    heap = [(-rate, 1, 1)]  # (−P(path), depth, rank among siblings)
    while heap and budget:
        neg_p, depth, rank = heapq.heappop(heap)
        p = -neg_p
        total += p
        budget -= 1
        if rank < topk:  # next sibling: same parent, one rank lower
            heapq.heappush(heap, (-(p * (1 - rate)), depth, rank + 1))
        if depth < num_steps:  # first child of this node
            heapq.heappush(heap, (-(p * rate), depth + 1, 1))
    return total


def _tree_nodes(steps: int, topk: int) -> int:
    return sum(topk ** d for d in range(1, steps + 1)) if topk > 1 else steps


def accept_rate_for(length: float, *, num_steps: int, topk: int, num_draft_tokens: int) -> float:
    """The per-token rate whose expected acceptance length is ``length`` for these settings."""
    top = accept_length(0.999999, num_steps=num_steps, topk=topk, num_draft_tokens=num_draft_tokens)
    if not 1.0 <= length <= top:
        raise PlanInputError(
            f"--accept-length {length} is impossible with {num_steps} steps, topk {topk}, {num_draft_tokens} draft "
            f"tokens: it must be between 1 and {top:.2f} (the verified token plus at most {top - 1:.0f} drafts)")
    lo, hi = 0.0, 0.999999
    for _ in range(60):
        mid = (lo + hi) / 2
        if accept_length(mid, num_steps=num_steps, topk=topk, num_draft_tokens=num_draft_tokens) < length:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
