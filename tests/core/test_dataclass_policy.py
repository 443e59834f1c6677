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


def test_memory_fields_of_the_rev20_leftovers_carry_their_unit():
    """RULES.md "Units": a memory quantity is a ``Bytes`` or a name with its unit.  The two classes helper rev20
    found with bare byte counts (docs/accuracy.md §8) now name the unit in every numeric memory field."""
    from dataclasses import fields

    from tpkit.engines.sglang.budget import KvBudget
    from tpkit.engines.vllm.encoder_qwen2vl_tower import Qwen2VLLiveSet

    live = {f.name: f.type for f in fields(Qwen2VLLiveSet)}
    assert [n for n, t in live.items() if t in ("int", int) and not n.endswith("_bytes")] == []
    assert sum(t in ("int", int) for t in live.values()) == 8 and isinstance(Qwen2VLLiveSet.peak_bytes, property)
    budget = {f.name: f.type for f in fields(KvBudget)}
    assert "budget_cell" not in budget and budget["budget_cell_bytes_per_token"] in ("float", float)
