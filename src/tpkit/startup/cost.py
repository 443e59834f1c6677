"""``Cost``: one start-up memory term, with where its number came from and how sure it is (pure value)."""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.memory.ledger import LineItem
from tpkit.units import Bytes

__all__ = ["Cost", "KEYS"]

KEYS = ("cuda_context", "nccl_init", "nccl_warmup", "custom_allreduce", "extra", "cublas",
        "process_overhead")
"""every term of the start-up cost model, in the order a serving process creates them"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Cost:
    """One start-up term on the GPU that decides the plan."""

    key: str
    """which term (one of ``KEYS``)"""
    item: str
    """ledger name (an engine may name it its own way)"""
    bytes: Bytes
    """the amount (bytes)"""
    source: str
    """where the number came from (measurement, probe, engine source)"""
    uncertainty: Bytes = Bytes(0)
    """± bytes around ``bytes`` (0: no band estimated yet)"""

    def __post_init__(self) -> None:
        if self.key not in KEYS:
            raise ValueError(f"Cost key must be one of {KEYS}, got {self.key!r}")

    def line(self, *, item: str | None = None, note: str = "") -> LineItem:
        """This cost as a ledger "use" line, under ``item`` (default: its own name), ``note`` appended."""
        return LineItem(item=item or self.item, bytes=self.bytes, source=self.source + note)
