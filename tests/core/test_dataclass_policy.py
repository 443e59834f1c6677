"""Every tpkit dataclass is keyword-only, and frozen unless it is one of the log scanner's accumulators
(RULES.md "Frozen keyword-only dataclasses"; review qual9, 2026-12-05: seven classes were positional)."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"
MUTABLE = {"logs/scan.py:Scan", "logs/scan.py:_Traceback"}
"""built up line by line while a log is read (``tpkit.logs.scan``), then turned into a frozen ``ParsedLog``"""
POSITIONAL = {"explain/interval.py:Iv"}
"""frozen, keyword-only once the calls merged beside this review name low= and high= (see ``Iv``'s docstring)"""


def _dataclasses():
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for dec in node.decorator_list:
                func = dec.func if isinstance(dec, ast.Call) else dec
                if getattr(func, "id", getattr(func, "attr", None)) == "dataclass":
                    kw = {k.arg: getattr(k.value, "value", None) for k in getattr(dec, "keywords", [])}
                    yield f"{path.relative_to(SRC).as_posix()}:{node.name}", kw


def test_every_dataclass_is_keyword_only_and_frozen_but_the_scanner_accumulators():
    found = dict(_dataclasses())
    assert len(found) > 150 and MUTABLE <= set(found)
    assert not [name for name, kw in found.items() if kw.get("kw_only") is not True and name not in POSITIONAL]
    assert all(found[name].get("kw_only") is not True for name in POSITIONAL)  # the list stays exact
    assert not [name for name, kw in found.items() if kw.get("frozen") is not True and name not in MUTABLE]
    assert all(found[name].get("frozen") is not True for name in MUTABLE)  # the list stays exact
