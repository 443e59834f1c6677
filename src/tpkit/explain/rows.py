"""One row of an anchored ledger: a printed number tied to its formula and unit, or a number derived from them."""

from __future__ import annotations

from tpkit.explain.interval import Iv
from tpkit.logs import Anchor
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["Row", "printed_row", "derived_row", "compare"]

REPRODUCED = "reproduced"
DIFFERS = "differs"


@dataclass(frozen=True, kw_only=True, slots=True)
class Row:
    """One ledger line of the explained run (bytes are per GPU of the selected rank)."""

    item: str
    value: Iv | None
    """the number: a printed one (its print-rounding interval) or a derived one"""
    kind: str
    """``"printed"`` (read from the log), ``"derived"`` (computed from printed numbers), ``"catalog"`` or
    ``"setting"``"""
    meaning: str
    """formula and unit, e.g. "pre_model_load_memory in GiB (SGLang divides by 2^30)" """
    printed: str | None = None
    """the number as printed (``"21.63 GB"``)"""
    line_no: int | None = None
    derived: Iv | None = None
    """tpkit's derivation of a printed number from the other printed numbers"""
    derived_from: str = ""
    check: str | None = None
    """``"reproduced"`` when the printed number lies in the derived interval, ``"differs"`` when not"""
    note: str = ""
    count: int | float | None = None
    """for count rows (tokens, blocks): the count"""

    def to_dict(self) -> dict:
        out = {"item": self.item, "kind": self.kind, "meaning": self.meaning, "printed": self.printed,
               "line_no": self.line_no, "check": self.check, "note": self.note}
        out.update(self.value.to_dict() if self.value is not None else {"bytes": None})
        if self.count is not None:
            out["count"] = self.count
        if self.derived is not None:
            out["derived"] = {**self.derived.to_dict(), "from": self.derived_from}
        return out


def compare(printed: Iv, derived: Iv, slack: Bytes = Bytes(0)) -> str:
    """``✓ reproduced`` when the derived interval meets the printed one (within ``slack``), else ``✗ DIFFERS``."""
    return REPRODUCED if printed.overlaps(derived, slack) else DIFFERS


def printed_row(item: str, anchor: Anchor, meaning: str, *, derived: Iv | None = None, derived_from: str = "",
                slack: Bytes = Bytes(0), note: str = "") -> Row:
    """A printed size, with the derivation that should reproduce it (when there is one)."""
    size = anchor.size
    value = Iv(low=size.low, high=size.high)
    check = compare(value, derived, slack) if derived is not None else None
    return Row(item=item, value=value, kind="printed", meaning=meaning, printed=size.text, line_no=anchor.line_no,
               derived=derived, derived_from=derived_from, check=check, note=note)


def derived_row(item: str, value: Iv, meaning: str, *, note: str = "", kind: str = "derived") -> Row:
    """A ledger row computed from the anchors (not printed by the engine)."""
    return Row(item=item, value=value, kind=kind, meaning=meaning, note=note)
