"""One- and two-sample start-up cells take their band floor from the table's own multi-sample cells (helper band26,
2026-12-06, session 26): n = 1, p90 of |another sample − one sample| / |that sample| over the term's cells with n ≥ 3;
n = 2, p90 of |a third sample − mean of two| / |mean of two| (scripts/build_startup_table.py ``sample_floors``)."""

import json

import pytest
from tests.scripts_testlib import load_script

from tpkit.startup.table import table_path


def _s(value: float, row: str = "r", resolution: float = 0.01) -> dict:
    return {"value": value, "resolution": resolution, "row": row, "measured": False}


def test_the_floors_are_the_p90_of_the_multi_sample_cells_ratios():
    b = load_script("build_startup_table")
    # one cell of three samples 1, 2, 4 (GiB): ordered-pair ratios 1, 3, 0.5, 1, 0.75, 0.5 -> p90 2.0;
    # mean of two vs the third: |4-1.5|/1.5, |2-2.5|/2.5, |1-3|/3 = 1.667, 0.2, 0.667 -> p90 1.4667
    by_key = {"a": [_s(1.0), _s(2.0), _s(4.0)], "b": [_s(0.8)], "c": [_s(1.0), _s(1.2)],
              "all": [_s(100.0), _s(1.0), _s(0.01)]}  # a pool key: never a cell of the floors
    f = b.sample_floors("x", by_key)
    assert f["n1"] == pytest.approx(2.0) and f["pairs"] == 6
    assert f["n2"] == pytest.approx(0.6667 + 0.8 * (1.6667 - 0.6667), abs=1e-3) and f["triples"] == 3
    one = b.cell(by_key["b"], f)  # the one-sample cell gets 2.0 × its nominal
    assert one["nominal_gib"] == 0.8 and one["band_gib"] == pytest.approx(1.6) and "p90" in one["how"]
    two = b.cell(by_key["c"], f)  # the two-sample cell: 1.4667 × 1.1 beats its farthest sample + resolution
    assert two["band_gib"] == pytest.approx(1.4667 * 1.1, abs=1e-3)
    with pytest.raises(ValueError, match="derived floors"):
        b.cell(by_key["b"])


def test_a_sample_within_its_resolution_of_zero_is_no_denominator_and_a_term_without_cells_pools_its_keys():
    b = load_script("build_startup_table")
    one, _ = b._ratios([0.005, 0.5, 1.0], [0.01, 0.01, 0.01])
    assert len(one) == 4 and max(one) == pytest.approx(1.0)  # 0.005 divides nothing (ratios 99, 199 left out)
    f = b.sample_floors("x", {"a": [_s(1.0)], "b": [_s(2.0), _s(3.0)]})  # no cell with n >= 3: the keys pooled
    assert "pooled" in f["from"] and f["pairs"] == 6
    with pytest.raises(ValueError, match="no two samples"):
        b.sample_floors("x", {"a": [_s(0.001)]})


def test_the_shipped_one_sample_cells_carry_their_terms_derived_floor():
    table = json.loads(table_path().read_text())
    floors = table["band_floors"]
    assert floors["cuda_context"]["n1"] > 0.25 and floors["nccl"]["n1"] > 0.25  # wider than the old 25 % guess
    seen = 0
    for term in ("cuda_context", "nccl", "cublas"):
        for key, c in table["terms"][term].items():
            if c["n"] == 1 and c.get("source") == "evidence":
                assert c["uncertainty_bytes"] >= floors[term]["n1"] * c["bytes"] - 1 or c["uncertainty_bytes"] >= 0.02 * 2**30
                seen += 1
    # the derived floor binds somewhere: a one-sample NCCL cell whose band is exactly floor x nominal (xgmi:8 was one
    # until amdev26's AMD CI rows made it n = 35, session 26)
    ones = [c for c in table["terms"]["nccl"].values() if c["n"] == 1 and c.get("source") == "evidence"]
    assert any(abs(c["uncertainty_bytes"] - floors["nccl"]["n1"] * c["bytes"]) < 2**20 for c in ones), ones
    assert seen >= 8
