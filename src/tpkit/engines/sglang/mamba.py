"""Linear-attention / mamba state pool of hybrid models (spec §3.3.6).

SGLang carves a per-request state pool out of the KV budget before sizing the KV pool:

    per_slot  = state bytes per request per layer ÷ tp × linear layers of the stage
    budget    = rest × ρ / (1 + ρ)                    ρ = mamba_full_memory_ratio = 0.9
    slots     = (budget − per_slot) // per_slot       (latest; one extra padding slot is allocated)
                budget // per_slot                    (≤ 0.5.10, no padding slot)
    rest_kv   = rest − allocated slots × per_slot
    max_running_requests ≤ slots // 3                 (radix cache on: 3 slots per running request)

Assumptions (stated in the plan): radix cache on, no ``--max-mamba-cache-size``, no speculative decoding;
state splits evenly over TP (heads and conv channels are TP-sharded).
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.engines.sglang.versions import era_at_least
from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, format_bytes

__all__ = ["MambaPool", "MAMBA_FULL_MEMORY_RATIO", "RADIX_SLOTS_PER_REQUEST", "plan_mamba_pool"]

MAMBA_FULL_MEMORY_RATIO = 0.9
"""``mamba_full_memory_ratio`` default: state pool : KV pool memory"""
RADIX_SLOTS_PER_REQUEST = 3
"""state slots per running request with the radix cache on (spec §3.5)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class MambaPool:
    """The per-request recurrent-state pool of one rank."""

    slots: int
    """usable state slots (``max_mamba_cache_size``)"""
    allocated_slots: int
    """slots allocated (latest adds one padding slot)"""
    per_slot: Bytes
    """state bytes of one request over the stage's linear layers, per rank"""
    source: str
    """the formula, in words"""

    @property
    def total_bytes(self) -> Bytes:
        return self.per_slot * self.allocated_slots


def plan_mamba_pool(model: ModelSpec, tp: int, linear_layers: int, rest: Bytes, era: str) -> MambaPool | None:
    """The state pool carved from the KV budget ``rest``; None for models without linear layers."""
    if linear_layers == 0:
        return None
    state = model.linear_attn.state_bytes_per_layer if model.linear_attn else None
    if state is None:
        raise PlanInputError(f"{model.name}: {linear_layers} linear-attention layers but their per-request state "
                             "size is not derivable from the config; this model is not supported yet")
    per_slot = Bytes(state.bytes * linear_layers // tp)
    budget = max(rest, Bytes(0)) * (MAMBA_FULL_MEMORY_RATIO / (1 + MAMBA_FULL_MEMORY_RATIO))
    if era_at_least(era, "0.5.15"):
        slots = max((budget - per_slot) // per_slot, 0)
        allocated, rule = slots + 1, "(budget − slot) // slot, + 1 padding slot"
    else:
        slots = budget // per_slot
        allocated, rule = slots, "budget // slot"
    return MambaPool(slots=slots, allocated_slots=allocated if slots else 0, per_slot=per_slot, source=(
        f"{linear_layers} linear layers × {format_bytes(state)} state/request ÷ tp {tp} = {format_bytes(per_slot)} "
        f"per slot; {slots:,} slots = {rule} of rest × 0.9/1.9 (radix cache on, spec §3.3.6)"))
