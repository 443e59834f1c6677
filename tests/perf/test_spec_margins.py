"""``bench/spec_margins.py``: the extra cycle time that turns a published row's predicted sign, and whether one term
of a given shape (flat per cycle, per running request, per accepted token) can fix a source's wrong rows without
turning its right ones (helper eg23, 2026-12-06; docs/accuracy.md §4.5).

The reading it pins: on SGLang 0.4.4.post2's EAGLE-3 paper table (eagle3_t3) the EAGLE head's wrong rows 135–139
need more added cycle time than the same table's right rows allow, for each of the three shapes; as163 likewise.
If a model change makes one of them fit, this test fails and the reading in §4.5 has to be redone.
"""

import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sm():
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "bench"))
    import spec_margins

    return spec_margins


@pytest.fixture(scope="module")
def data():
    return json.loads((ROOT / "bench" / "data" / "published_spec.json").read_text())


def _numbers(data, source):
    return [i for i, r in enumerate(data["rows"], 1) if r["source"] == source and not r.get("not_comparable")]


def test_the_speculative_rate_is_running_times_accept_length_over_the_cycle(sm, data):
    """The margin's premise: predicted speculative tok/s = running × τ / cycle, so a cycle longer by
    ``cycle × (speed-up − 1)`` gives exactly the plain rate."""
    import decode_published as dp

    for n in (131, 135, 148, 26):
        r = dp.predict(data["rows"][n - 1])
        spec = r.speculative
        running = spec.running or data["rows"][n - 1]["batch"]
        assert spec.tok_s == pytest.approx(running * spec.accept_length * 1e6 / spec.cycle_us, rel=1e-9)
        m = sm.margins(data["rows"][n - 1])
        longer = spec.cycle_us + m["per_shape"][0]
        assert running * spec.accept_length * 1e6 / longer == pytest.approx(r.baseline.tok_s, rel=1e-9)


def test_eagle3_t3_no_single_term_of_any_shape_fixes_the_eagle_head_rows(sm, data):
    numbers = _numbers(data, "eagle3_t3")
    items = [sm.margins(data["rows"][n - 1]) for n in numbers]
    wrong = [n for n, m in zip(numbers, items) if (m["measured"] > 1) != (m["predicted"] > 1)]
    assert wrong == [135, 136, 137, 138, 139]
    (flat_lo, flat_hi), (req_lo, req_hi), (tok_lo, tok_hi) = sm.bounds(items)
    assert flat_lo >= flat_hi and req_lo >= req_hi and tok_lo >= tok_hi
    by_row = dict(zip(numbers, items))
    # the binding rows: 135 (EAGLE, batch 24) needs, 148 (EAGLE-3, batch 64) and 131 (EAGLE, batch 2) allow
    assert req_lo == by_row[135]["per_shape"][1] and req_hi == by_row[148]["per_shape"][1]
    assert tok_lo == by_row[135]["per_shape"][2] and tok_hi == by_row[148]["per_shape"][2]
    assert flat_lo == by_row[135]["per_shape"][0] and flat_hi == by_row[131]["per_shape"][0]


def test_as163_no_single_term_fixes_rows_25_26_without_turning_27(sm, data):
    items = {n: sm.margins(data["rows"][n - 1]) for n in _numbers(data, "as163")}
    bounds = sm.bounds(list(items.values()))
    assert all(lo >= hi for lo, hi in bounds)
    assert bounds[1] == (items[26]["per_shape"][1], items[27]["per_shape"][1])


def test_bounds_report_a_fit_when_one_exists(sm):
    def item(meas, pred, flat):
        return {"measured": meas, "predicted": pred, "per_shape": (flat, flat / 10, flat / 20)}

    lo_hi = sm.bounds([item(0.9, 1.1, 1000.0), item(1.3, 1.2, 3000.0), item(0.8, 0.9, -500.0)])
    assert lo_hi[0] == (1000.0, 3000.0) and lo_hi[1] == (100.0, 300.0)
    assert sm.bounds([item(1.2, 0.9, -800.0)]) == [(0.0, math.inf)] * 3  # only a cheaper cycle fixes it


def test_report_names_the_shapes_and_the_rows_no_added_cost_fixes(sm, data):
    lines = sm.report([131, 135, 148], [data["rows"][n - 1] for n in (131, 135, 148)])
    text = "\n".join(lines)
    assert "per running request: needs > 94.7" in text and "no single term fits" in text
    assert "| 135 | eagle3_t3 | 24 |" in text


@pytest.mark.parametrize("argv, words", [(["--source", "nope"], "no comparable row of 'nope'"),
                                         (["--rows", "0"], "row numbers run from 1 to"),
                                         (["--rows", "x"], "separated by commas")])
def test_bad_input_exits_2_with_a_clear_message(sm, capsys, argv, words):
    assert sm.main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
