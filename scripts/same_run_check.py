#!/usr/bin/env python3
"""List validation cases that are the same run, and near-duplicates (same source, other numbers), for both engines.

    PYTHONPATH=src python scripts/same_run_check.py            # the same-run pairs and their marks, a count of the rest
    PYTHONPATH=src python scripts/same_run_check.py --near     # also every near-duplicate pair

The rule is ``tests/validation/same_run.py`` (one source: URL, search-index id or a time-stamped log line; one run:
the same printed capacity, model, GPU, layout, release and no flag both set that differs).  A same-run pair must be
marked (``duplicate_of`` in ``scripts/build_validation_set.py`` DUPLICATE_OF), else the run is scored twice: the
exit status is 1 while one is not (``tests/validation/test_same_run.py`` runs the same check).  Helper dedup15,
2026-12-05.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "validation"))

import harness  # noqa: E402
import same_run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--near", action="store_true", help="list every near-duplicate pair too")
    args = parser.parse_args(argv)
    bad = 0
    for engine in harness.ENGINES:
        cases = harness.load_cases(engine)
        found = same_run.pairs(cases)
        same = [p for p in found if p.same_run]
        near = [p for p in found if not p.same_run]
        open_ = same_run.unmarked(cases)
        bad += len(open_)
        print(f"{engine}: {len(cases)} cases, {len(found)} same-source pairs: {len(same)} the same run "
              f"({len(same) - len(open_)} marked, {len(open_)} not), {len(near)} near-duplicates (separate runs, "
              "both kept)")
        for p in same:
            kept, dup = (p.b, p.a) if p.a.get("duplicate_of") == p.b["id"] else (p.a, p.b)
            printed = p.a["printed"]
            mark = (f"{dup['id']} duplicate_of {kept['id']}" if dup.get("duplicate_of") == kept["id"]
                    else "NOT MARKED: both scored")
            print(f"  same run  {p.a['id']} / {p.b['id']}: {printed['metric']} {printed['value']:,}, "
                  f"{p.a['model']} on {p.a.get('gpu') or p.a.get('gpu_note')} tp {p.a['tp']}, "
                  f"{p.a['tpkit_engine_version']}; shares {', '.join(p.shared[:2])}; {mark}")
        if args.near:
            for p in near:
                print(f"  near      {p.a['id']} / {p.b['id']}: {p.a['printed']['value']:,} / "
                      f"{p.b['printed']['value']:,}; differ in {', '.join(p.differ)}; shares {p.shared[0]}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
