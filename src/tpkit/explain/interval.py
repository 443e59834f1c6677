"""Byte intervals: a printed number is an interval (its print rounding), and so is every number derived from it."""

from __future__ import annotations

from tpkit.logs.printed import PrintedSize
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes

__all__ = ["Iv", "iv_of", "mid_bytes"]


@dataclass(frozen=True, slots=True)
class Iv:
    """[low, high] in bytes (an exact quantity has low == high).  Every call in the package names ``low=`` and
    ``high=``; the class stays positional until the calls added on main after 5910983 do too (one in
    ``explain.sgrelease``, review qual9), then it takes ``kw_only=True`` and leaves
    ``tests/core/test_dataclass_policy.POSITIONAL``."""

    low: Bytes
    high: Bytes

    @property
    def mid(self) -> Bytes:
        return Bytes((self.low.bytes + self.high.bytes) // 2)

    def __add__(self, other: "Iv") -> "Iv":
        return Iv(low=self.low + other.low, high=self.high + other.high)

    def __sub__(self, other: "Iv") -> "Iv":
        return Iv(low=self.low - other.high, high=self.high - other.low)

    def scale(self, factor: float) -> "Iv":
        a, b = Bytes(round(self.low.bytes * factor)), Bytes(round(self.high.bytes * factor))
        return Iv(low=min(a, b), high=max(a, b))

    def overlaps(self, other: "Iv", slack: Bytes = Bytes(0)) -> bool:
        return self.low - slack <= other.high and other.low <= self.high + slack

    def text(self) -> str:
        if self.low == self.high:
            return format_bytes(self.low)
        return f"{format_bytes(self.mid)} (± {format_bytes(Bytes((self.high.bytes - self.low.bytes) // 2))})"

    def to_dict(self) -> dict:
        return {"bytes": self.mid.bytes, "low_bytes": self.low.bytes, "high_bytes": self.high.bytes}


def iv_of(size: PrintedSize | Bytes) -> Iv:
    """The interval a printed size stands for (or an exact one)."""
    if isinstance(size, Bytes):
        return Iv(low=size, high=size)
    return Iv(low=size.low, high=size.high)


def mid_bytes(iv: Iv | None) -> int | None:
    """The middle of an interval in bytes, None for no interval (an anchor the log does not print)."""
    return None if iv is None else iv.mid.bytes
