"""``Cost``: one start-up memory term, with where its number came from and how sure it is (pure value)."""

from __future__ import annotations

from dataclasses import replace

from tpkit.records import dataclass
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:  # loaded when a cost becomes a ledger line: `tpkit explain` sizes costs without a ledger
    from tpkit.memory.ledger import LineItem

__all__ = ["Cost", "KEYS"]

KEYS = ("cuda_context", "nccl_init", "nccl_warmup", "nccl_nvls", "custom_allreduce", "extra", "cublas",
        "process_overhead", "rank_spread")
"""every term of the start-up cost model, in the order a serving process creates them"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Cost:
    """One start-up term on the GPU that decides the plan."""

    key: str
    """which term (one of ``KEYS``)"""
    item: str
    """ledger name (an engine may name it its own way)"""
    bytes: Bytes
    """the amount planned with (bytes): the nominal, or an end of its band while a band is planned"""
    source: str
    """where the number came from (measurement, probe, engine source, the start-up table)"""
    uncertainty: Bytes = Bytes(0)
    """± bytes around the nominal (0: exact or measured)"""
    nominal: Bytes | None = None
    """the nominal when ``bytes`` was moved to an end of the band (None: ``bytes`` is the nominal)"""

    def __post_init__(self) -> None:
        if self.key not in KEYS:
            raise ValueError(f"Cost key must be one of {KEYS}, got {self.key!r}")

    def resolved(self) -> "Cost":
        """This cost at the current band end, or as measured when ``measured_terms`` names its key
        (``tpkit.memory.band``); the same cost again when it has no band."""
        from tpkit.memory.band import resolve

        base = self.nominal if self.nominal is not None else self.bytes
        value, unc, source = resolve(base, self.uncertainty, term=self.key, item=self.item, source=self.source)
        if value == self.bytes and unc == self.uncertainty and source == self.source:
            return self
        return replace(self, bytes=value, uncertainty=unc, source=source, nominal=base)

    def line(self, *, item: str | None = None, note: str = "") -> LineItem:
        """This cost as a ledger "use" line, under ``item`` (default: its own name), ``note`` appended."""
        from tpkit.memory.ledger import LineItem

        return LineItem(item=item or self.item, bytes=self.bytes, source=self.source + note,
                        uncertainty=self.uncertainty)
