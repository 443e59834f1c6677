"""Memory units, unit-safe by construction.

Legend
------
B    byte
KiB  2**10 B     KB  10**3 B
MiB  2**20 B     MB  10**6 B
GiB  2**30 B     GB  10**9 B
TiB  2**40 B     TB  10**12 B

Every memory quantity in tpkit is a :class:`Bytes` (an exact integer count of bytes) or a
plain number whose name carries its unit (``budget_gib``, ``latency_us``).  The algebra
refuses to mix units silently::

    Bytes + Bytes  -> Bytes          Bytes + int   -> TypeError
    Bytes * number -> Bytes          Bytes / number -> Bytes (floored to whole bytes)
    Bytes / Bytes  -> float          Bytes // Bytes -> int
    Bytes < Bytes  -> bool           Bytes < int   -> TypeError

Conversion to GiB/GB happens only at the display edge (:meth:`Bytes.gib`, :func:`format_bytes`, which picks
the unit by size, and :func:`gib_text` / :func:`mib_text`, which keep one fixed unit: ``'0.50 GiB'``).
"""

from __future__ import annotations

import math
import re
from numbers import Real

from tpkit.errors import UnitError

__all__ = [
    "Bytes",
    "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB",
    "UNITS",
    "parse_bytes",
    "format_bytes",
    "unit_text",
    "gib_text",
    "mib_text",
    "UnitError",
]

_BINARY = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
_DECIMAL = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
UNITS: dict[str, int] = {**_BINARY, **_DECIMAL}
"""Bytes per unit, by unit symbol (case-sensitive canonical spellings)."""

_UNIT_LOOKUP = {name.lower(): size for name, size in UNITS.items()}
_UNIT_LOOKUP.update({"k": 10**3, "kib": 2**10, "bytes": 1, "byte": 1})
_POWERS = {"M": (20, 6), "G": (30, 9), "T": (40, 12)}
"""a unit prefix read both ways: (power of 2, power of 10)"""
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*)(?:\.\d+)?|\.\d+"
"""a decimal number: ``,`` only between groups of three digits (``1,024``), ``_`` between digits, ``.`` once"""
_PARSE_RE = re.compile(rf"^\s*([+-]?(?:{_NUMBER})(?:[eE][+-]?\d+)?)\s*([A-Za-z]*)\s*$")


class Bytes:
    """An exact, non-fractional count of bytes.

    Construct with ``Bytes(n)`` for an int ``n`` or with a unit constructor such as
    ``GiB(79.19)`` (rounded to the nearest byte).
    """

    __slots__ = ("_n",)

    def __init__(self, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(
                f"Bytes() takes an int count of bytes, got {type(n).__name__} {n!r}; "
                "use GiB(x), MiB(x), GB(x)… for fractional amounts in a unit"
            )
        self._n = n

    # -- construction -------------------------------------------------
    @classmethod
    def of(cls, amount: Real, unit: str) -> "Bytes":
        """``amount`` in ``unit`` (one of :data:`UNITS`), rounded to the nearest byte."""
        try:
            size = UNITS[unit]
        except KeyError:
            raise UnitError(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}") from None
        if isinstance(amount, bool) or not isinstance(amount, Real):
            raise TypeError(f"amount must be a number, got {type(amount).__name__}")
        if isinstance(amount, int):
            return cls(amount * size)
        if not math.isfinite(amount):
            raise UnitError(f"amount must be finite, got {amount!r}")
        return cls(round(amount * size))

    # -- views --------------------------------------------------------
    @property
    def bytes(self) -> int:
        """The exact integer count of bytes."""
        return self._n

    def to(self, unit: str) -> float:
        """This quantity expressed in ``unit`` (a float, for display)."""
        return self._n / UNITS[unit]

    @property
    def mib(self) -> float:
        return self._n / 2**20

    @property
    def gib(self) -> float:
        return self._n / 2**30

    def __int__(self) -> int:
        return self._n

    def __index__(self) -> int:
        return self._n

    def __hash__(self) -> int:
        return hash(("Bytes", self._n))

    def __bool__(self) -> bool:
        return self._n != 0

    def __repr__(self) -> str:
        return f"Bytes({self._n})"

    def __str__(self) -> str:
        return format_bytes(self)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec) if spec else str(self)

    # -- arithmetic ---------------------------------------------------
    def __add__(self, other: "Bytes") -> "Bytes":
        if isinstance(other, Bytes):
            return Bytes(self._n + other._n)
        return _mix_error("+", self, other)

    def __radd__(self, other):
        if other == 0 and isinstance(other, int) and not isinstance(other, bool):
            return self  # lets sum() start from 0
        return _mix_error("+", other, self)

    def __sub__(self, other: "Bytes") -> "Bytes":
        if isinstance(other, Bytes):
            return Bytes(self._n - other._n)
        return _mix_error("-", self, other)

    def __rsub__(self, other):
        return _mix_error("-", other, self)

    def __mul__(self, k: Real) -> "Bytes":
        if isinstance(k, Bytes):
            raise TypeError("Bytes * Bytes has no meaning (bytes squared); multiply by a count")
        if isinstance(k, bool) or not isinstance(k, Real):
            return NotImplemented
        if isinstance(k, int):
            return Bytes(self._n * k)
        return Bytes(math.floor(self._n * k))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, Bytes):
            if other._n == 0:
                raise ZeroDivisionError("division by Bytes(0)")
            return self._n / other._n
        if isinstance(other, bool) or not isinstance(other, Real):
            return NotImplemented
        if isinstance(other, int):
            return Bytes(self._n // other)
        return Bytes(math.floor(self._n / other))

    def __floordiv__(self, other):
        if isinstance(other, Bytes):
            return self._n // other._n
        if isinstance(other, int) and not isinstance(other, bool):
            return Bytes(self._n // other)
        return NotImplemented

    def __mod__(self, other: "Bytes") -> "Bytes":
        if isinstance(other, Bytes):
            return Bytes(self._n % other._n)
        return NotImplemented

    def __rtruediv__(self, other):
        raise TypeError(f"cannot divide {type(other).__name__} by Bytes")

    def __neg__(self) -> "Bytes":
        return Bytes(-self._n)

    def __abs__(self) -> "Bytes":
        return Bytes(abs(self._n))

    # -- comparison (only with Bytes) --------------------------------
    def __eq__(self, other) -> bool:
        if isinstance(other, Bytes):
            return self._n == other._n
        return NotImplemented

    def _cmp(self, other, op: str) -> int:
        if not isinstance(other, Bytes):
            raise TypeError(
                f"cannot compare Bytes {op} {type(other).__name__} {other!r}: "
                "compare with a Bytes value, e.g. GiB(80)"
            )
        return other._n

    def __lt__(self, other) -> bool:
        return self._n < self._cmp(other, "<")

    def __le__(self, other) -> bool:
        return self._n <= self._cmp(other, "<=")

    def __gt__(self, other) -> bool:
        return self._n > self._cmp(other, ">")

    def __ge__(self, other) -> bool:
        return self._n >= self._cmp(other, ">=")


def _mix_error(op: str, a, b):
    raise TypeError(
        f"cannot compute {type(a).__name__} {op} {type(b).__name__} ({a!r} {op} {b!r}): "
        "a plain number has no unit; wrap it, e.g. Bytes(n) or GiB(x)"
    )


def _unit_ctor(unit: str):
    def ctor(amount: Real) -> Bytes:
        return Bytes.of(amount, unit)

    ctor.__name__ = unit
    ctor.__doc__ = f"``amount`` {unit} as :class:`Bytes` (1 {unit} = {UNITS[unit]:,} B)."
    return ctor


KiB = _unit_ctor("KiB")
MiB = _unit_ctor("MiB")
GiB = _unit_ctor("GiB")
TiB = _unit_ctor("TiB")
KB = _unit_ctor("KB")
MB = _unit_ctor("MB")
GB = _unit_ctor("GB")
TB = _unit_ctor("TB")


MAX_SIZE_BYTES = 2**64
"""the largest size ``parse_bytes`` accepts: the 64-bit address space"""


def parse_bytes(text: str, *, what: str = "size") -> Bytes:
    """Read a size such as ``"80GB"``, ``"79.19 GiB"``, ``"81559MiB"``, ``"1.5TiB"`` or ``"123B"``.

    GiB/MiB/KiB/TiB are binary (2**30 …), GB/MB/KB/TB decimal (10**9 …), case-insensitive.
    A bare number is refused, because "80" could mean 80 GB, 80 GiB or 80 bytes.
    """
    if isinstance(text, Bytes):
        return text
    if not isinstance(text, str):
        raise UnitError(f"{what}: expected a string like '80GiB', got {type(text).__name__} {text!r}")
    m = _PARSE_RE.match(text)
    if not m:
        comma = " ('.' marks decimals; ',' only separates thousands, as in 1,024MiB)" if "," in text else ""
        raise UnitError(
            f"{what}: cannot read {text!r} as a memory size{comma}; write a number and a unit, "
            "e.g. '80GiB' (binary, 2^30) or '80GB' (decimal, 10^9)"
        )
    number, unit = m.group(1).replace("_", "").replace(",", ""), m.group(2)
    if not unit and number.startswith("-"):  # the advice '-1GiB' below would only be refused as negative next
        raise UnitError(f"{what}: {text!r} is negative; a memory size must be ≥ 0, written with a unit, e.g. "
                        "'80GiB' (= 80 × 2^30 bytes) or '80GB' (= 80 × 10^9 bytes)")
    if not unit:
        raise UnitError(
            f"{what}: {text!r} has no unit; say which you mean, e.g. '{number}GiB' "
            f"(= {number} × 2^30 bytes) or '{number}GB' (= {number} × 10^9 bytes), or '{number}B' for bytes"
        )
    size = _UNIT_LOOKUP.get(unit.lower())
    prefix = unit[:1].upper()
    if size is None and unit.lower() in ("m", "g", "t", "mi", "gi", "ti"):  # docker's '80G', Kubernetes' '80Gi'
        binary = f"'{number}{prefix}iB' (= {number} × 2^{_POWERS[prefix][0]} bytes)"
        if len(unit) == 2:
            raise UnitError(f"{what}: unknown unit {unit!r} in {text!r}; write {binary}")
        raise UnitError(f"{what}: {text!r} does not say which {prefix} it means; write {binary} or "
                        f"'{number}{prefix}B' (= {number} × 10^{_POWERS[prefix][1]} bytes)")
    if size is None:
        raise UnitError(
            f"{what}: unknown unit {unit!r} in {text!r}; use one of B, KiB, MiB, GiB, TiB, KB, MB, GB, TB"
        )
    value = float(number)
    if not math.isfinite(value):
        raise UnitError(f"{what}: {text!r} is not a finite size")
    if value < 0:
        raise UnitError(f"{what}: {text!r} is negative; a memory size must be ≥ 0")
    # an integer is compared exactly: float(n) × size rounds 2^64 + 1024 down to 2^64 (hypothesis found it)
    exact = int(number) * size if re.fullmatch(r"\d+", number) else None
    if (exact if exact is not None else value * size) > MAX_SIZE_BYTES:
        raise UnitError(f"{what}: {text!r} is more than {MAX_SIZE_BYTES:,} bytes (16 EiB, the 64-bit address "
                        "space); no device or buffer is that large")
    return Bytes(exact if exact is not None else round(value * size))


def format_bytes(n: Bytes, *, binary: bool = True, digits: int = 2) -> str:
    """Human text that always names its unit: ``'79.19 GiB'`` (binary) or ``'85.03 GB'`` (decimal).

    Values under 1 KiB (1 KB) print as whole bytes.
    """
    if not isinstance(n, Bytes):
        raise TypeError(f"format_bytes takes Bytes, got {type(n).__name__}")
    value = n.bytes
    steps = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)) if binary else (
        ("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3))
    for name, size in steps:
        if abs(value) >= size:
            return f"{value / size:.{digits}f} {name}"
    return f"{value} B"


def _need_bytes(n, name: str) -> None:
    """The fixed-unit formatters take :class:`Bytes` only (a bare number could be in any unit)."""
    if not isinstance(n, Bytes):
        raise TypeError(f"{name} takes Bytes, got {type(n).__name__} {n!r}; wrap a byte count as Bytes(n)")


def unit_text(n: Bytes, unit: str, *, digits: int | None = 2, label: str | None = None) -> str:
    """``n`` in one fixed ``unit`` (any of :data:`UNITS`), whatever its size: ``'0.50 GiB'``, ``'81.00 GiB'``.

    ``digits`` decimals (``None``: Python's ``:g``, e.g. ``'8 MiB'``, ``'0.5 MiB'``).  ``label`` is the word
    printed after the number (default: ``unit``; ``""``: the number alone, for ``'1.20–1.40 GiB'`` ranges; an
    engine's own word where its printed line is mirrored verbatim, e.g. SGLang's ``'GB'`` that means GiB).
    Takes :class:`Bytes` only: a bare int raises ``TypeError``, so a count in another unit cannot slip in.
    """
    _need_bytes(n, "unit_text")
    if unit not in UNITS:
        raise UnitError(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}")
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, int) or digits < 0):
        raise TypeError(f"digits must be an int ≥ 0 or None, got {digits!r}")
    value = n.bytes / UNITS[unit]
    number = f"{value:g}" if digits is None else f"{value:.{digits}f}"
    label = unit if label is None else label
    return f"{number} {label}" if label else number


def gib_text(n: Bytes, digits: int | None = 2, *, label: str | None = None) -> str:
    """``n`` in GiB (2**30 B) with ``digits`` decimals: ``'0.50 GiB'`` (see :func:`unit_text`)."""
    _need_bytes(n, "gib_text")
    return unit_text(n, "GiB", digits=digits, label=label)


def mib_text(n: Bytes, digits: int | None = 2, *, label: str | None = None) -> str:
    """``n`` in MiB (2**20 B) with ``digits`` decimals: ``'512.00 MiB'`` (see :func:`unit_text`)."""
    _need_bytes(n, "mib_text")
    return unit_text(n, "MiB", digits=digits, label=label)
