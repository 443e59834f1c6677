"""No function in scripts/ grows past src/'s ceiling (round rev33, 2026-12-07, session 33).

tests/core/test_function_length.py holds src/tpkit's functions to 60 lines; scripts had no such guard, and session
33's split of scripts/build_startup_table.py moved its 97-line ``doc_section`` into scripts/startup_table_doc.py
whole (rev33 cut it into one function per part of §5, the text unchanged).  The functions of scripts/ longer than
the ceiling on 2026-12-07 are listed at their length then: none may grow, and an entry goes once its function is
split to the ceiling or fewer (the list only shrinks).  Length: ``end_lineno − lineno + 1`` of the ``def``, as there.
"""

import ast
from pathlib import Path

from tests.core.test_function_length import CEILING

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

EXCEPTIONS: dict[str, int] = {
    "explain_capacity_check.py:check": 74,
    "mine_amd_ci_evidence.py:rows": 64,
    "rank_spread.py:measure_log": 64,
    "synth_vllm034_log.py:main": 71,
    "validate.py:section": 74,
}
"""script functions (file:name) longer than ``CEILING`` on 2026-12-07 → their lines then: may not grow"""


def _lengths() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in sorted(SCRIPTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = f"{path.relative_to(SCRIPTS).as_posix()}:{node.name}"
                out[key] = max(out.get(key, 0), node.end_lineno - node.lineno + 1)
    return out


def test_no_script_function_over_the_ceiling():
    lengths = _lengths()
    assert len(lengths) > 200  # the walk sees the folder
    over = {k: n for k, n in sorted(lengths.items()) if n > EXCEPTIONS.get(k, CEILING)}
    assert not over, f"script functions over their limit (split them into named steps): {over}"


def test_the_exceptions_only_shrink():
    lengths = _lengths()
    done = [k for k in EXCEPTIONS if lengths.get(k, 0) <= CEILING]
    assert not done, f"listed functions now within {CEILING} lines or gone (remove them from EXCEPTIONS): {done}"
