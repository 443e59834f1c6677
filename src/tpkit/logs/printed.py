"""Numbers as an engine printed them: the value, the text, the unit word and the print rounding.

An engine log rounds: SGLang prints ``f"{free / 2**30:.2f} GB"``, so ``avail mem=21.63 GB`` means
"somewhere in [21.625, 21.635) GiB".  A :class:`PrintedSize` keeps that interval, so a later check can
say "within print rounding" instead of comparing a rounded number with an exact one.

The unit *word* and the *divisor* are kept apart on purpose: SGLang's "GB" and vLLM V0's "GB" both divide
by 2**30 (the numbers are GiB); the divisor comes from the engine rule that printed the line, never from
the word.
"""

from __future__ import annotations

import math
import re

from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["PrintedSize", "PrintedCount", "size_from_text", "count_from_text", "UNIT_WORDS"]

UNIT_WORDS: dict[str, int] = {
    "bytes": 1, "byte": 1, "b": 1,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "g": 2**30, "gi": 2**30, "m": 2**20, "k": 2**10,
}
"""What a unit word means when nothing else is known (torch's OOM text is binary: 'GiB', 'MiB')."""

_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d+)?$")


@dataclass(frozen=True, kw_only=True, slots=True)
class PrintedSize:
    """A memory size read from a log line."""

    value: Bytes
    """the printed number times the engine's divisor, to the nearest byte"""
    text: str
    """the number and unit as printed, e.g. ``"21.63 GB"``"""
    unit_word: str
    """the unit word as printed (``"GB"``, ``"GiB"``, ``""`` when none)"""
    divisor_bytes: int
    """bytes per printed unit, as the engine computed it (SGLang 'GB' → 2**30)"""
    rounding: Bytes
    """half a unit of the last printed digit (the print rounding, ±)"""
    meaning: str
    """what the engine measured, e.g. ``"free GPU memory after weights, GiB (SGLang divides by 2**30)"``"""

    @property
    def low(self) -> Bytes:
        """Smallest true value consistent with the print."""
        return self.value - self.rounding

    @property
    def high(self) -> Bytes:
        """Largest true value consistent with the print."""
        return self.value + self.rounding

    def contains(self, amount: Bytes, *, slack: Bytes = Bytes(0)) -> bool:
        """True when ``amount`` prints as this text (within rounding, plus an optional slack)."""
        return self.low - slack <= amount <= self.high + slack

    def to_dict(self) -> dict:
        return {"bytes": self.value.bytes, "text": self.text, "unit_word": self.unit_word,
                "divisor_bytes": self.divisor_bytes, "rounding_bytes": self.rounding.bytes,
                "meaning": self.meaning}


@dataclass(frozen=True, kw_only=True, slots=True)
class PrintedCount:
    """A count or ratio read from a log line (tokens, blocks, a fraction, a concurrency)."""

    value: int | float
    """the number (int when printed without a decimal point)"""
    text: str
    """as printed, e.g. ``"178,880"``"""
    rounding: float
    """half a unit of the last printed digit (0 for integers)"""
    meaning: str
    """what the number is"""

    def to_dict(self) -> dict:
        return {"value": self.value, "text": self.text, "rounding": self.rounding, "meaning": self.meaning}


def _decimals(number_text: str) -> int:
    mantissa = number_text.lower().split("e")[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


def _parse_float(number_text: str) -> float | None:
    cleaned = number_text.strip()
    if not cleaned or len(cleaned) > 40 or not _NUMBER.match(cleaned):
        return None
    try:
        value = float(cleaned.replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def size_from_text(number_text: str, unit_word: str, *, meaning: str, divisor_bytes: int | None = None,
                   min_decimals: int = 0) -> PrintedSize | None:
    """A :class:`PrintedSize`, or None when the number cannot be read.

    ``divisor_bytes`` is what the engine divided by (default: the unit word's own meaning, binary for
    the short forms).  ``min_decimals`` is the rounding the engine applied when it drops trailing zeros
    (vLLM's ``format_gib`` prints ``round(x, 2)``: "52.3" still means ±0.005 GiB).
    """
    value = _parse_float(number_text)
    if value is None:
        return None
    divisor = divisor_bytes if divisor_bytes is not None else UNIT_WORDS.get(unit_word.strip().lower())
    if divisor is None:
        return None
    decimals = max(_decimals(number_text), min_decimals)
    half_ulp = 0.5 * 10.0 ** -decimals if decimals else (0.5 if divisor > 1 else 0.0)
    text = f"{number_text.strip()} {unit_word.strip()}".strip()
    return PrintedSize(value=Bytes(round(value * divisor)), text=text, unit_word=unit_word.strip(),
                       divisor_bytes=divisor, rounding=Bytes(math.ceil(half_ulp * divisor)), meaning=meaning)


def count_from_text(number_text: str, *, meaning: str) -> PrintedCount | None:
    """A :class:`PrintedCount` ("178,880" → 178880; "4.84" → 4.84), or None."""
    value = _parse_float(number_text)
    if value is None:
        return None
    decimals = _decimals(number_text)
    if decimals == 0 and "e" not in number_text.lower() and abs(value) < 2**63:
        return PrintedCount(value=int(value), text=number_text.strip(), rounding=0.0, meaning=meaning)
    return PrintedCount(value=value, text=number_text.strip(), rounding=0.5 * 10.0 ** -decimals, meaning=meaning)
