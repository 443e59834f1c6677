"""From available KV bytes to blocks, printed tokens, concurrency and the max_model_len check
(spec §3.5–§3.7).

    num_blocks           = available // bytes_per_block                     (min over workers)
    blocks per request   = Σ_groups blocks one request of max_model_len holds
    max_concurrency      = num_blocks / blocks per request                  (null block included)
    printed tokens       0.33: int(max_concurrency × max_model_len)
                         0.11: num_blocks // num_groups × min block size
                         V0  : num_blocks × block_size
    fit check            needed(max_model_len) ≤ available (0.33: available − one block); otherwise the
                         "estimated maximum model length" is the largest length that fits (binary search)
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.engines.vllm.pages import KvLayout, cdiv
from tpkit.engines.vllm.versions import VllmRules
from tpkit.units import Bytes

__all__ = ["KvCapacity", "plan_capacity", "needed_bytes", "estimate_max_model_len"]


@dataclass(frozen=True, kw_only=True, slots=True)
class KvCapacity:
    """What vLLM derives from the available KV bytes of the limiting rank."""

    num_blocks: int
    """blocks allocated (including vLLM's null block in V1)"""
    tokens: int
    """"GPU KV cache size: N tokens" as the era prints it (V0: blocks × block size)"""
    max_concurrency: float
    """requests of max_model_len tokens that fit at once"""
    blocks_per_request: int
    needed: Bytes
    """KV bytes one request of max_model_len needs (the fit check's left side)"""
    fits: bool
    """one request of max_model_len fits"""
    estimated_max_model_len: int
    """the largest max_model_len that fits (0 when not even one token fits)"""


def _in_flight(rules: VllmRules, max_num_batched_tokens: int, pp: int) -> int:
    return max_num_batched_tokens * (pp if rules.sliding_in_flight else 1)


def _blocks_per_request(layout: KvLayout, length: int, in_flight: int) -> int:
    return sum(g.blocks_per_request(length, in_flight) for g in layout.groups)


def needed_bytes(layout: KvLayout, length: int, in_flight: int, rules: VllmRules) -> Bytes:
    """KV bytes one request of ``length`` tokens needs, as the era's fit check counts them."""
    if rules.era == "0.33":
        return layout.bytes_per_block * _blocks_per_request(layout, length, in_flight)
    return sum((g.page_bytes * (g.num_layers * g.blocks_per_request(length, in_flight)) for g in layout.groups),
               Bytes(0))


def _budget_for_check(layout: KvLayout, available: Bytes, rules: VllmRules) -> Bytes:
    return available - layout.bytes_per_block if rules.fit_check_reserves_block else available


def estimate_max_model_len(layout: KvLayout, available: Bytes, upper: int, in_flight: int,
                           rules: VllmRules) -> int:
    """Largest length in [1, upper] whose need fits (vLLM's binary search); 0 if none."""
    budget = _budget_for_check(layout, available, rules)
    if rules.engine == "V0":
        return min(upper, max(available // layout.bytes_per_block, 0) * layout.block_size)
    fits = lambda n: needed_bytes(layout, n, in_flight, rules) <= budget  # noqa: E731
    if not fits(1):
        return 0
    lo, hi, best = 1, upper, 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(mid):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


def _printed_tokens(layout: KvLayout, blocks: int, concurrency: float, length: int, rules: VllmRules) -> int:
    if rules.tokens_rule == "concurrency":
        return int(concurrency * length)
    if rules.tokens_rule == "groups":
        return blocks // len(layout.groups) * layout.block_size
    return blocks * layout.block_size


def plan_capacity(layout: KvLayout, available: Bytes, *, max_model_len: int, max_num_batched_tokens: int,
                  pp: int, rules: VllmRules) -> KvCapacity:
    """Blocks, printed tokens, concurrency and the fit check for one rank."""
    in_flight = _in_flight(rules, max_num_batched_tokens, pp)
    blocks = max(available // layout.bytes_per_block, 0) if available > Bytes(0) else 0
    per_request = _blocks_per_request(layout, max_model_len, in_flight)
    concurrency = (blocks * layout.block_size / max_model_len if rules.engine == "V0"
                   else blocks / per_request)
    tokens = _printed_tokens(layout, blocks, concurrency, max_model_len, rules)
    if rules.engine == "V0":
        need = layout.bytes_per_block * cdiv(max_model_len, layout.block_size)
        fits = blocks * layout.block_size >= max_model_len
    else:
        need = needed_bytes(layout, max_model_len, in_flight, rules)
        fits = available > Bytes(0) and need <= _budget_for_check(layout, available, rules)
    est = max_model_len if fits else estimate_max_model_len(layout, available, max_model_len, in_flight, rules)
    return KvCapacity(num_blocks=blocks, tokens=tokens, max_concurrency=concurrency, blocks_per_request=per_request,
                      needed=need, fits=fits, estimated_max_model_len=est)
