"""scripts/explain_crash_check.py: issue 12's crash figure as a command (helper cr33b, 2026-12-07)."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

from tests.scripts_testlib import load_script

ecc = load_script("explain_crash_check")


def _row(cid, ok, fits):
    return {"id": cid, "label": "first_request", "phase": "first_request" if ok else "other", "phase_ok": ok,
            "fixes": [], "fits": fits}


def test_summary_counts_and_names_the_misses():
    line = ecc.summary([_row("a", True, True), _row("b", False, True), _row("c", True, False)])
    assert line == ("memory crash logs 3: phase 2/3 (wrong: ['b']); a fix that fits 2/3 (none: ['c'])")


def test_the_corpus_figure_agrees_with_the_corpus_tests():
    import test_explain_corpus as t

    rows = ecc.crash_rows()
    assert [r["id"] for r in rows] == list(t.MEMORY_CRASHES)
    # a wrong phase is one the corpus test lists with its reason
    assert {r["id"] for r in rows if not r["phase_ok"]} <= set(t.PARSER_PHASE_DISAGREES)
    out = io.StringIO()
    with redirect_stdout(out):
        assert ecc.main(["--rows"]) == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == len(rows) + 1 and lines[-1] == ecc.summary(rows)
