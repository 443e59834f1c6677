"""Issue 12's crash figure: every memory crash log of the explain corpus gets the right phase and a fix that fits.

Over tests/explain/test_explain_corpus.py ``MEMORY_CRASHES`` (the crash logs whose primary failure is a memory kind),
each explained with the flags a user would pass (``FLAGS_FOR``, models.json ``flags``): the diagnosis's phase against
the case's label (``PHASE_WORDS`` maps the label's words), and whether any fix is called a fit. Printed, last line:

    memory crash logs N: phase P/N (wrong: [...]); a fix that fits F/N (none: [...])

    PYTHONPATH=src python scripts/explain_crash_check.py [--rows]

``--rows`` prints one line per log (id, label, explain's phase, the fixes' flags and fits) before the summary. Helper
cr33b (2026-12-07): /tmp/ex30/crash_fig.py, the figure §7.3's crash rounds quote, made a tested command.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _corpus():
    """tests/explain/test_explain_corpus.py and its test library, imported from the repository."""
    for p in (ROOT / "tests" / "explain", ROOT, ROOT / "src"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    import explain_testlib
    import test_explain_corpus
    return test_explain_corpus, explain_testlib


def crash_rows() -> list[dict]:
    """One row per memory crash log: id, label, phase, whether the phase is right, the fixes and whether one fits."""
    from tpkit.explain import explain_log

    t, lib = _corpus()
    labels = {c["id"]: c["failure"]["phase"] for c in lib.cases()
              if c["status"] == "crash" and (c.get("failure") or {}).get("phase")}
    rows = []
    for cid in t.MEMORY_CRASHES:
        d = explain_log(lib.log_bytes(cid), flags=t.FLAGS_FOR.get(cid)).diagnosis
        want = t.PHASE_WORDS.get(labels[cid], labels[cid])
        rows.append({"id": cid, "label": want, "phase": d.phase, "phase_ok": d.phase == want,
                     "fixes": [(f.flags, f.fits) for f in d.fixes], "fits": any(f.fits for f in d.fixes)})
    return rows


def summary(rows: list[dict]) -> str:
    """The figure's line (the wording /tmp/ex30/crash_fig.py printed)."""
    n = len(rows)
    bad = [r["id"] for r in rows if not r["phase_ok"]]
    nofit = [r["id"] for r in rows if not r["fits"]]
    return (f"memory crash logs {n}: phase {n - len(bad)}/{n} (wrong: {bad}); "
            f"a fix that fits {n - len(nofit)}/{n} (none: {nofit})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", action="store_true", help="one line per log before the summary")
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    rows = crash_rows()
    if args.rows:
        for r in rows:
            mark = "" if r["phase_ok"] else " ✗"
            print(f"{r['id']}\t{r['label']}\t{r['phase']}{mark}\t{r['fixes']}")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
