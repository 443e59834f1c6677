"""No inline GiB / MiB format in src/: byte text goes through ``tpkit.units.gib_text`` / ``mib_text`` (helper opt21,
2026-12-06, session 21).

fmt20 (session 20) moved the formats whose operand was already a ``Bytes``; opt21 made the last ones' operands
``Bytes`` where they are computed (or named them ``*_bytes`` / ``*_gib`` where they stay numbers), so a count in
another unit cannot be printed as GiB.  This test reads every module's syntax tree and fails on an f-string field
that divides by a binary unit size (``x / 2**30``, ``/ (1 << 20)``, ``/ 1024**3``, ``/ GIB``, ``/ gib``) or formats a
``.gib`` / ``.mib`` view (``{b.gib:.2f}``): write ``gib_text(b)`` (``label=''`` for the number alone, ``digits`` for
other precisions), or compute a ``*_gib`` number first where the value is not a whole count of bytes."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"
_SIZES = frozenset({2**20, 2**30})
_NAMES = frozenset({"gib", "mib"})


def _unit_size(node: ast.AST) -> bool:
    """``node`` spells 2**20 or 2**30 (as a power, a shift, 1024**k, a literal) or a name such as GIB / _mib."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool) and isinstance(node.value, (int, float)):
        return node.value in _SIZES
    if isinstance(node, ast.Name):
        return node.id.strip("_").lower() in _NAMES
    if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant):
        a, b = node.left.value, node.right.value
        if isinstance(node.op, ast.Pow):
            return (a, b) in ((2, 20), (2, 30), (1024, 2), (1024, 3))
        if isinstance(node.op, ast.LShift):
            return (a, b) in ((1, 20), (1, 30))
    return False


def inline_unit_formats(source: str) -> list[tuple[int, str]]:
    """(line, expression) of every f-string field of ``source`` that formats bytes in GiB / MiB by hand."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FormattedValue):
            continue
        v = node.value
        by_hand = (isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Div, ast.FloorDiv)) and _unit_size(v.right)) \
            or (isinstance(v, ast.Attribute) and v.attr in _NAMES)
        if by_hand:
            found.append((node.lineno, ast.unparse(v)))
    return found


def test_the_check_finds_each_inline_form():
    forms = ['f"{x / 2**30:.2f} GiB"', 'f"{x / 2 ** 20:.0f} MiB"', 'f"{b.bytes / (1 << 30):.2f} GiB"',
             'f"{x / 1024**3:.3f}"', 'f"{x / GIB:.2f} GiB"', 'f"{k / gib:.2f} GiB"', 'f"{x / 1073741824:.2f}"',
             'f"{b.gib:.2f} GiB"', 'f"{b.mib:>10.2f}"', 'f"{(a - b).gib:.2f}"', 'f"{x // 2**30} GiB"']
    for form in forms:
        assert len(inline_unit_formats(form)) == 1, form
    kept = ['f"{gib_text(b)}"', 'f"{gib_text(b, 3, label=\'\')}"', 'f"{short_gib:.2f} GiB"', 'f"{x / 2:.2f}"',
            'f"{n / 2**10:.0f} KiB"', 'x = b.bytes / 2**30', 'f"{tokens:,}"']
    for form in kept:
        assert inline_unit_formats(form) == [], form


def test_no_inline_gib_or_mib_format_in_src():
    bad = [f"{path.relative_to(SRC)}:{line}: {{{expr}}}"
           for path in sorted(SRC.rglob("*.py"))
           for line, expr in inline_unit_formats(path.read_text(encoding="utf-8"))]
    assert not bad, ("format bytes through tpkit.units.gib_text / mib_text (a Bytes), or name a non-integer "
                     "number with its unit (x_gib) before formatting it:\n" + "\n".join(bad))
