#!/usr/bin/env python3
"""Blind-first history of the public validation cases: each case's FIRST score, before any rule changed for it.

    python scripts/blind_history.py           # per engine: blind-first figures, by session, next to today's
    python scripts/blind_history.py --json    # the same as JSON
    python scripts/blind_history.py --blind-only   # the file's figures alone (no planning; fast)
    python scripts/blind_history.py --markdown     # the table docs/accuracy.md carries

Why: issue 11's bar is on held-back logs; the public set's score is measured after the fixes it prompted, so it
flatters. The best proxy for held-back accuracy is the error each case had when it was first scored (blind).

Data: ``tests/validation/blind_scores.json`` (helper bh18, 2026-12-05, session 18), one record per public case
(``tests/validation/data_public``) whose first score docs/accuracy.md records: the round tables of §6.4 ("blind
error", "blind", "blind result" columns; the "error" column of rounds new2, new3, new5, new7, mv2, mv3, sgx, whose
text says the cases were added before tpkit's number was looked at), akam's out-of-sample probes vp_504–vp_507,
§2 dsw, §7.5 helper new's "outcome", §11.8 v2gap's "before", §11.15 g3v and cfg3's prose; never an "after" column:

- ``case``, ``engine`` (sglang / vllm), ``round`` (the round or helper that added or first scored it), ``session``,
  ``where`` (the doc place), ``session_from`` ("heading" where the doc's heading names the session; else the date of
  the first commit that carried the round's heading or row, mapped to the session by its closing commits);
- ``blind_error_pct``: (predicted − printed) / printed in %, as the doc gives it (one decimal mostly);
- ``listed_not_scored``: true where the round listed the case but did not score it (then no error);
- ``first_refused``: true where the first run was refused and the number is the one after an input (not a rule)
  was changed as the refusal asked (vp_231, vp_606, gs_257).

Absent on purpose: cases never scored blind — the shared set (case_0xx, sg_0xx / vl_0xx of ``tests/validation/data``),
the first public collections of 2026-12-01 (gs_001–gs_016, vp_001–vp_006: no blind number recorded), and cases
added together with their fix. Unknown keys raise.  A round's own "after" column is not a blind number and is not used.

Today's error of the same cases comes from ``tests/validation/harness.py`` ``score`` (what scripts/validate.py uses),
one import, one pass per engine.  Pure Python, no torch.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "validation" / "blind_scores.json"
PUBLIC = ROOT / "tests" / "validation" / "data_public"
ENGINES = ("sglang", "vllm")
LABEL = {"sglang": "SGLang", "vllm": "vLLM"}
BAR = {"sglang": (2.0, 5.0), "vllm": (3.0, 8.0)}
"""issue 11's bar per engine: (median, p90) of |error| in %"""
KEYS = {"case", "engine", "round", "session", "blind_error_pct", "listed_not_scored", "first_refused", "where",
        "session_from"}
REQUIRED = {"case", "engine", "round", "session", "where", "session_from"}


class BlindDataError(ValueError):
    """A record of blind_scores.json is malformed or names a case that is not in data_public."""


def public_ids() -> dict[str, str]:
    """case id → engine of every case in tests/validation/data_public."""
    out = {}
    for engine in ENGINES:
        for case in json.loads((PUBLIC / f"{engine}_cases.json").read_text()):
            out[case["id"]] = engine
    return out


def load(path: Path = DATA, *, known: dict[str, str] | None = None) -> list[dict]:
    """The records of ``path``, checked: known keys only, the required ones present, one record per case, an error
    or the listed mark (not both), and every case in tests/validation/data_public under its engine."""
    try:
        records = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BlindDataError(f"cannot read {path}: {exc}") from None
    known = public_ids() if known is None else known
    seen: set[str] = set()
    for i, rec in enumerate(records):
        where = f"{path} record {i} ({rec.get('case', '?')})"
        extra = set(rec) - KEYS
        if extra:
            raise BlindDataError(f"{where}: unknown key(s) {sorted(extra)}; allowed: {sorted(KEYS)}")
        missing = REQUIRED - set(rec)
        if missing:
            raise BlindDataError(f"{where}: missing key(s) {sorted(missing)}")
        if ("blind_error_pct" in rec) == bool(rec.get("listed_not_scored")):
            raise BlindDataError(f"{where}: give either blind_error_pct or listed_not_scored: true, not both/neither")
        if rec["case"] in seen:
            raise BlindDataError(f"{where}: case {rec['case']} appears twice; keep its first score only")
        seen.add(rec["case"])
        if rec["case"] not in known:
            raise BlindDataError(f"{where}: case {rec['case']} is not in {PUBLIC.relative_to(ROOT)}; fix the id or "
                                 f"add the case there first")
        if known[rec["case"]] != rec["engine"]:
            raise BlindDataError(f"{where}: engine {rec['engine']!r}, but data_public has {rec['case']} under "
                                 f"{known[rec['case']]!r}")
    return records


def figures(errors_pct: list[float], engine: str) -> dict:
    """n, median and p90 of |error| (linear percentile, as harness.percentile), share within 8 % and 5 %."""
    xs = sorted(abs(e) for e in errors_pct)
    if not xs:
        return {"n": 0}
    pos = 0.9 * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return {"n": len(xs), "median": round(statistics.median(xs), 2),
            "p90": round(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo), 2),
            "within_8": sum(x <= 8.0 for x in xs), "within_5": sum(x <= 5.0 for x in xs)}


def blind_summary(records: list[dict]) -> dict:
    """Per engine: all blind records, and by session; counts of listed-only and first-refused records."""
    out = {}
    for engine in ENGINES:
        recs = [r for r in records if r["engine"] == engine]
        scored = [r for r in recs if "blind_error_pct" in r]
        sessions = sorted({r["session"] for r in recs})
        last = max(r["session"] for r in records)
        out[engine] = {
            "records": len(recs), "listed_not_scored": len(recs) - len(scored),
            "first_refused": sum(bool(r.get("first_refused")) for r in recs),
            "blind": figures([r["blind_error_pct"] for r in scored], engine),
            # the last four sessions of the file: rounds run under the add-before-scoring rules as written
            "recent_sessions": [last - 3, last],
            "recent": figures([r["blind_error_pct"] for r in scored if r["session"] >= last - 3], engine),
            "by_session": {str(s): figures([r["blind_error_pct"] for r in scored if r["session"] == s], engine)
                           for s in sessions},
        }
    return out


def current_errors(records: list[dict]) -> dict[str, float | None]:
    """Today's error in % of each record's case (``harness.score``; None where it is not scored today: listed,
    refused, a duplicate, or scored apart as an engine anomaly / capped run)."""
    sys.path.insert(0, str(ROOT / "tests" / "validation"))
    import harness  # noqa: PLC0415 — tests/validation is not a package

    wanted = {r["case"] for r in records}
    out: dict[str, float | None] = {cid: None for cid in wanted}
    for engine in ENGINES:
        rows, _ = harness.score(engine)
        for row in rows:
            if row.case["id"] in wanted and row.headline:
                out[row.case["id"]] = row.error * 100
    return out


def summary(records: list[dict], *, with_current: bool = True) -> dict:
    out = blind_summary(records)
    if not with_current:
        return out
    now = current_errors(records)
    for engine in ENGINES:
        pairs = [(r["blind_error_pct"], now[r["case"]]) for r in records
                 if r["engine"] == engine and "blind_error_pct" in r and now[r["case"]] is not None]
        out[engine]["same_cases"] = {"blind": figures([b for b, _ in pairs], engine),
                                     "now": figures([n for _, n in pairs], engine)}
        out[engine]["current_not_headline"] = sorted(r["case"] for r in records if r["engine"] == engine
                                                     and "blind_error_pct" in r and now[r["case"]] is None)
    return out


def _line(name: str, f: dict, engine: str) -> str:
    if not f.get("n"):
        return f"  {name:<28} n 0"
    text = (f"  {name:<28} n {f['n']:>3}  median {f['median']:5.2f} %  p90 {f['p90']:6.2f} %  within 8 % "
            f"{f['within_8']}/{f['n']} ({f['within_8'] / f['n']:.0%})")
    if engine == "sglang":
        text += f"  within 5 % {f['within_5']}/{f['n']} ({f['within_5'] / f['n']:.0%})"
    return text


def _cell(f: dict, key: str) -> str:
    if key in ("median", "p90"):
        return f"{f[key]:.2f} %"
    return f"{f[key]}/{f['n']} ({f[key] / f['n']:.0%})"


def doc_table(s: dict) -> list[str]:
    """The markdown table of docs/accuracy.md's "Blind-first history" subsection (tests pin it against the doc)."""
    out = ["| engine | cases | n | median \\|error\\| | p90 \\|error\\| | within 8 % | within 5 % |",
           "|---|---|---|---|---|---|---|"]
    for engine in ENGINES:
        e = s[engine]
        lo, hi = e["recent_sessions"]
        groups = [("blind-first, every record", e["blind"]), (f"blind-first, sessions {lo}–{hi}", e["recent"])]
        if "same_cases" in e:
            groups += [("the same cases scored today, blind-first", e["same_cases"]["blind"]),
                       ("the same cases scored today, today's error", e["same_cases"]["now"])]
        groups += [(f"blind-first, session {k}", f) for k, f in e["by_session"].items() if f.get("n")]
        for name, f in groups:
            if not f.get("n"):  # no record in the window (SGLang in sessions 17-20: helper cat20, 2026-12-06)
                continue
            out.append(f"| {LABEL[engine]} | {name} | {f['n']} | {_cell(f, 'median')} | {_cell(f, 'p90')} | "
                       f"{_cell(f, 'within_8')} | {_cell(f, 'within_5')} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--blind-only", action="store_true", help="the file's figures only; do not plan the cases")
    parser.add_argument("--markdown", action="store_true", help="print the table docs/accuracy.md carries")
    parser.add_argument("--data", type=Path, default=DATA, help=f"records file (default {DATA.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    try:
        records = load(args.data)
    except BlindDataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    s = summary(records, with_current=not args.blind_only)
    if args.json:
        print(json.dumps(s, indent=1, sort_keys=True))
        return 0
    if args.markdown:
        print("\n".join(doc_table(s)))
        return 0
    for engine in ENGINES:
        e = s[engine]
        med, p90 = BAR[engine]
        print(f"{LABEL[engine]}: {e['records']} records ({e['listed_not_scored']} listed, not scored; "
              f"{e['first_refused']} first refused, scored after an input change); bar median ≤ {med:g} %, "
              f"p90 ≤ {p90:g} %")
        print(_line("blind-first, all", e["blind"], engine))
        lo, hi = e["recent_sessions"]
        print(_line(f"blind-first, sessions {lo}-{hi}", e["recent"], engine))
        if "same_cases" in e:
            print(_line("same cases, blind-first", e["same_cases"]["blind"], engine))
            print(_line("same cases, today", e["same_cases"]["now"], engine))
            if e["current_not_headline"]:
                print(f"  not in today's headline: {', '.join(e['current_not_headline'])}")
        for session, f in e["by_session"].items():
            print(_line(f"session {session}", f, engine))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
