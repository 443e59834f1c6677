"""A per-GPU memory ledger that narrates itself.

Each line says what it is, how many bytes, and where the number came from (a formula, a
catalog fact, a measurement).  ``Ledger.check`` verifies that the items add up to a stated
total, so a ledger can never silently lose a term.

Sign convention: a line is a *use* of memory (positive) unless ``kind`` says otherwise.
``kind`` is one of

- ``"capacity"``  the starting amount (device total, or measured free memory)
- ``"use"``       memory taken (CUDA context, weights, KV pool …)
- ``"reserve"``   memory held back on purpose (the slack of ``mem_fraction_static``)
- ``"info"``      a derived figure shown for explanation; not part of the sum
"""

from __future__ import annotations

from dataclasses import field

from tpkit.errors import PlanInputError
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes

__all__ = ["LineItem", "Ledger", "KINDS", "use_lines"]

KINDS = ("capacity", "use", "reserve", "info")


@dataclass(frozen=True, kw_only=True, slots=True)
class LineItem:
    """One line of a memory ledger."""

    item: str
    """short name, e.g. ``"weights"``"""
    bytes: Bytes
    """the amount (Bytes, exact)"""
    source: str
    """where the number came from: formula, catalog fact, measurement or flag"""
    kind: str = "use"
    """one of ``KINDS``"""
    uncertainty: Bytes = Bytes(0)
    """± bytes of an estimated line (0: exact, measured, or no band stated); ``tpkit.memory.band``"""

    def __post_init__(self) -> None:
        if not isinstance(self.bytes, Bytes):
            raise TypeError(f"LineItem {self.item!r}: bytes must be Bytes, got {type(self.bytes).__name__}")
        if not isinstance(self.uncertainty, Bytes) or self.uncertainty.bytes < 0:
            raise TypeError(f"LineItem {self.item!r}: uncertainty must be Bytes ≥ 0, got {self.uncertainty!r}")
        if self.kind not in KINDS:
            raise ValueError(f"LineItem {self.item!r}: kind must be one of {KINDS}, got {self.kind!r}")

    def to_dict(self) -> dict:
        out = {"item": self.item, "bytes": self.bytes.bytes, "source": self.source, "kind": self.kind}
        if self.uncertainty.bytes:
            out["uncertainty_bytes"] = self.uncertainty.bytes
        return out


@dataclass(frozen=True, kw_only=True, slots=True)
class Ledger:
    """An ordered, immutable list of line items for one GPU (rank)."""

    items: tuple[LineItem, ...] = field(default_factory=tuple)
    rank_label: str = "per GPU"
    """which GPU the ledger describes (e.g. ``"rank 3 (min free)"``)"""

    def add(self, item: str, amount: Bytes, source: str, *, kind: str = "use") -> "Ledger":
        """A new ledger with one more line."""
        line = LineItem(item=item, bytes=amount, source=source, kind=kind)
        return Ledger(items=self.items + (line,), rank_label=self.rank_label)

    def extend(self, lines) -> "Ledger":
        return Ledger(items=self.items + tuple(lines), rank_label=self.rank_label)

    def get(self, item: str) -> LineItem:
        for line in self.items:
            if line.item == item:
                return line
        raise KeyError(f"no ledger line {item!r}; lines are {[l.item for l in self.items]}")

    def total(self, kind: str) -> Bytes:
        """Sum of the lines of one kind."""
        return sum((l.bytes for l in self.items if l.kind == kind), Bytes(0))

    @property
    def remaining(self) -> Bytes:
        """capacity − uses − reserves."""
        return self.total("capacity") - self.total("use") - self.total("reserve")

    def check(self, expected_remaining: Bytes, *, tolerance: Bytes = Bytes(0)) -> list[str]:
        """Violations (empty when fine): the lines must add up to ``expected_remaining``."""
        problems = []
        if not self.items:
            problems.append("ledger is empty")
        diff = self.remaining - expected_remaining
        if abs(diff) > tolerance:
            problems.append(
                f"ledger does not add up: capacity {format_bytes(self.total('capacity'))} − uses "
                f"{format_bytes(self.total('use'))} − reserves {format_bytes(self.total('reserve'))} = "
                f"{format_bytes(self.remaining)}, expected {format_bytes(expected_remaining)} "
                f"(off by {diff.bytes:,} B)"
            )
        return problems

    def to_list(self) -> list[dict]:
        return [l.to_dict() for l in self.items]


def use_lines(lines, *, what: str = "extra_uses") -> tuple[LineItem, ...]:
    """``lines`` as a tuple of "use" ``LineItem``s (memory taken), or ``PlanInputError`` saying which is not."""
    try:
        out = tuple(lines)
    except TypeError:
        raise PlanInputError(f"{what} must be a tuple of LineItem(kind='use'), got {lines!r}; "
                             "pass e.g. tpkit.comm.plan.planned_allreduce_lines(...)") from None
    for line in out:
        if not isinstance(line, LineItem) or line.kind != "use" or line.bytes < Bytes(0):
            raise PlanInputError(f"{what} must hold LineItem(kind='use') lines of ≥ 0 bytes, got {line!r}; "
                                 "build them with LineItem(item=…, bytes=Bytes(…), source=…)")
    return out
