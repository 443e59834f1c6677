"""tpkit perf against the published speculative-decoding measurements collected in docs/accuracy.md.

Data: bench/data/published_spec.json (copied to tests/perf/data with every row's source).  The issue's bar for
held-back data is a speed-up within 25 % in ≥ 60 % of rows; this pins it on the collected rows so a model
change that loses it fails here.  (The sign bar — right in all but one — is not met: see docs/accuracy.md.)
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((Path(__file__).parent / "data" / "published_spec.json").read_text())


def test_every_row_names_its_source():
    for row in DATA["rows"]:
        assert row["source"] in DATA["sources"]
    assert all(len(entry) == 3 for entry in DATA["not_scored"])


def test_speedup_within_25_percent_in_at_least_60_percent_of_rows():
    sys.path.insert(0, str(ROOT / "bench"))
    from decode_published import measured_speedup, predict

    errors = [predict(row).speculative.speedup / measured_speedup(row) - 1 for row in DATA["rows"]]
    within = sum(abs(e) <= 0.25 for e in errors) / len(errors)
    assert within >= 0.60, f"{within:.0%} within 25 %"
    assert sorted(abs(e) for e in errors)[len(errors) // 2] <= 0.25
