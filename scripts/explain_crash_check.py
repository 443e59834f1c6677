"""Issue 12's crash figures: every memory crash log of the explain corpus, its phase against the label and whether
`tpkit explain` names a fix that fits (docs/accuracy.md §7.3).

    PYTHONPATH=src python scripts/explain_crash_check.py            # the summary line
    PYTHONPATH=src python scripts/explain_crash_check.py --rows     # + one row per log without a fitting fix

The logs, the flags their sources state and the phase words are those of
tests/explain/test_explain_corpus.py (``MEMORY_CRASHES``, ``FLAGS_FOR``, ``PHASE_WORDS``): the figures are that
test's own rules, counted instead of asserted.  Each row says which of the test's outcome sets holds the log (the
reason it has no fitting fix).  Helper cr33a (2026-12-07) made this the command of the figures (before: a 20-line
scratch script of round ex30, /tmp/ex30/crash_fig.py).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OUTCOME_SETS = ("NO_NUMBERS", "NO_NUMBERS_UNWORDED", "FLOOR_NOT_SHOWN", "NOT_SHOWN", "UNPLANNED_HARDWARE", "OTHER_TENANT",
                "WEIGHTS_EXCEED_THE_CARD", "WEIGHTS_OOM_NOT_REPLANNED", "PARSER_PHASE_DISAGREES")
"""the test's sets that hold a log without a fitting fix, each with its reason (a set the test lacks is skipped)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class CrashRow:
    """One memory crash log's line in the figures."""
    case_id: str
    """the corpus log (tests/logs/data/cases.json)"""
    label: str
    """the labelled phase, in the diagnosis' words (``PHASE_WORDS``)"""
    phase: str | None
    """the phase ``tpkit explain`` names (None: none)"""
    phase_ok: bool
    """whether ``phase`` is the label"""
    fits: bool
    """whether a fix that fits is named"""
    first_fix: str
    """the first fitting fix's flags ('' when none fits)"""
    outcome: str
    """the test's set that holds the log ('' when none does)"""


def _corpus_test():
    for p in (ROOT, ROOT / "src", ROOT / "tests" / "explain"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    import test_explain_corpus as corpus

    return corpus


def crash_rows() -> list[CrashRow]:
    """One row per memory crash log, in the test's order."""
    corpus = _corpus_test()
    from explain_testlib import cases, log_bytes

    from tpkit.explain import explain_log

    labels = {c["id"]: c["failure"]["phase"] for c in cases()
              if c["status"] == "crash" and (c.get("failure") or {}).get("phase")}
    rows = []
    for cid in corpus.MEMORY_CRASHES:
        d = explain_log(log_bytes(cid), flags=corpus.FLAGS_FOR.get(cid)).diagnosis
        label = corpus.PHASE_WORDS.get(labels[cid], labels[cid])
        fitting = [f for f in d.fixes if f.fits]
        outcome = next((name for name in OUTCOME_SETS if cid in getattr(corpus, name, {})), "")
        rows.append(CrashRow(case_id=cid, label=label, phase=d.phase, phase_ok=d.phase == label,
                             fits=bool(fitting), first_fix=(fitting[0].flags if fitting else ""), outcome=outcome))
    return rows


def summary(rows: list[CrashRow]) -> str:
    n = len(rows)
    wrong = [r.case_id for r in rows if not r.phase_ok]
    none = [r.case_id for r in rows if not r.fits]
    return (f"memory crash logs {n}: phase {n - len(wrong)}/{n} (wrong: {wrong}); a fix that fits "
            f"{n - len(none)}/{n} (none: {none})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", action="store_true", help="one row per log without a fitting fix, with its outcome set")
    args = ap.parse_args(argv)
    rows = crash_rows()
    if args.rows:
        for r in rows:
            if not r.fits or not r.phase_ok:
                print(f"{r.case_id}\tlabel {r.label}\tphase {r.phase}\t{r.outcome or 'no outcome set'}")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
