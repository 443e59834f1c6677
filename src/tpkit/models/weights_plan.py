"""``WeightsPlan``: the weight bytes one GPU loads, with their breakdown (pure value types).

``tpkit.models.weights`` derives it from the config; ``tpkit.models.safetensors`` reads it from checkpoint
headers.  Both build these values, so they live here, below both.
"""

from __future__ import annotations

from tpkit.models.spec import QuantSpec
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["WeightLine", "WeightsPlan"]


@dataclass(frozen=True, kw_only=True, slots=True)
class WeightLine:
    """One line of the weights breakdown (on the reported rank)."""

    item: str
    """what it is: ``embedding``, ``attention``, ``routed experts``, ``quant scales`` …"""
    bytes: Bytes
    """bytes on that rank"""
    source: str
    """the formula or file facts the number came from"""
    params: int = 0
    """elements on that rank (count; 0 for scale lines and notes)"""

    def to_dict(self) -> dict:
        """JSON-able form (bytes as an int)."""
        return {"item": self.item, "bytes": self.bytes.bytes, "source": self.source, "params": self.params}


@dataclass(frozen=True, kw_only=True, slots=True)
class WeightsPlan:
    """Weights one GPU loads (the fullest rank) and the whole model."""

    bytes_per_rank: Bytes
    """bytes on the fullest rank (largest PP stage); what the engine loads on one GPU"""
    lines: tuple[WeightLine, ...]
    """breakdown of ``bytes_per_rank``; sums to it"""
    total_bytes: Bytes
    """the whole model at TP 1 (vocab unpadded, MTP excluded)"""
    method: str
    """``"derived from config"`` or ``"safetensors headers"``"""
    dtype: str = "bfloat16"
    """dtype of unquantised weights"""
    quant: QuantSpec | None = None
    """quantisation applied (checkpoint's or from the flag)"""
    stage: int = 0
    """the PP stage reported (0-based)"""
    notes: tuple[str, ...] = ()
    """assumptions worth showing next to the number"""
    mtp_bytes: Bytes = Bytes(0)
    """MTP / nextn layers at TP 1 (not in ``total_bytes``; loaded only for MTP speculative decoding)"""
    pp_split: str = "sglang"
    """the engine's rule for decoder layers over PP stages (``tpkit.models.layout.PP_SPLITS``)"""
    stage_bytes: tuple[Bytes, ...] = ()
    """bytes per rank of every PP stage, stage 0 first (``stage`` is the largest); empty when not planned per
    stage (weights given as a figure, pp 1)"""

    def to_dict(self) -> dict:
        """JSON-able form (bytes as ints)."""
        return {"bytes_per_rank": self.bytes_per_rank.bytes, "total_bytes": self.total_bytes.bytes,
                "method": self.method, "dtype": self.dtype, "stage": self.stage,
                "quantization": self.quant.method if self.quant else None,
                "mtp_bytes": self.mtp_bytes.bytes,
                "lines": [line.to_dict() for line in self.lines], "notes": list(self.notes)}
