"""What each capacity hit rests on (scripts/capacity_why.py, ``explain_capacity_check.py --why``; helper cap32).

Each switch replaces one module attribute of the rebuild; the audit re-checks a hit with the switches off.  Checked on
corpus logs whose reading docs/accuracy.md §7 (round cap32) gives: an every-rank ROCm log that needs the ROCm bound,
a rank-0-only ROCm log that needs it and the rank spread, an NVIDIA log within the print rounding alone, and the Grok
rank-0-only log the device bound leaves a miss (Grok builds no expert-location metadata) but would turn into a hit
without the class test.
"""

import importlib
import json

import pytest
from tests.scripts_testlib import load_script

check = load_script("explain_capacity_check")
why = load_script("capacity_why")
CASES = {c["id"]: c for c in json.loads((check.DATA / "cases.json").read_text(encoding="utf-8"))}
MODELS = check.model_map()


def _row(case_id: str) -> dict:
    return check.check(CASES[case_id], MODELS)


def _recheck(case: dict) -> dict:
    return check.check(case, MODELS)


def test_every_switch_names_an_attribute_of_the_rebuild_and_is_restored():
    for name, (module, attr, repl, _item) in {**why.SWITCHES}.items():
        mod = importlib.import_module(module)
        before = getattr(mod, attr)
        assert callable(before), name
        with why.switched([name]):
            assert getattr(mod, attr) is repl
        assert getattr(mod, attr) is before
    for name, (module, attr, _repl) in why.VARIANTS.items():
        assert callable(getattr(importlib.import_module(module), attr)), name
    assert set(why.KINDS) == set(why.SWITCHES)


@pytest.mark.parametrize("case_id, klass, needs", [
    ("sg_549", "needs", ["rocm_bound"]),  # MI300X tp 8, every rank printed, DeepSeek-V3: 0.5.6 CI image
    ("sg_721", "needs", ["rank_spread", "rocm_bound"]),  # the same CI, rank 0 only (0.5.3.post1)
    ("sg_635", "rounding", []),  # gemma-4-31B at tp 4 on H100, every rank printed
])
def test_what_a_hit_rests_on(case_id, klass, needs):
    row = _row(case_id)
    assert row["outcome"] == "hit"
    got = why.rests_on(CASES[case_id], row, _recheck)
    assert got["class"] == klass and got["needs"] == needs
    assert why.label(got).startswith("needs " if needs else "print rounding")


def test_the_grok_rank0_log_stays_a_miss_under_the_device_bound():
    """sg_722 (Grok on MI300X, rank 0 only): Grok1 builds no expert-location metadata, so the device bound does not
    read it; without the class test the bound (0.50 GiB wider than the corpus one) would make it a hit."""
    row = _row("sg_722")
    assert row["outcome"] == "miss" and "rocm_bound" not in row["terms"] and row["rocm"]
    with why.switched(["rocm_device_every_class"], why.VARIANTS):
        assert _recheck(CASES["sg_722"])["outcome"] == "hit"


def test_width_and_summary():
    rows = [{"id": "a", "outcome": "hit", "printed": 1000, "range": [995, 1005],
             "why_audit": {"class": "rounding", "needs": [], "present": [], "tags": []}},
            {"id": "b", "outcome": "hit", "printed": 0, "range": [-20, -10],
             "why_audit": {"class": "needs", "needs": ["rocm_bound"], "present": ["rocm_bound"], "tags": []}},
            {"id": "c", "outcome": "miss", "printed": 10, "range": None}]
    assert why.width(rows[0]) == (10, 1.0) and why.width(rows[1]) == (10, None) and why.width(rows[2]) == (None, None)
    text = "\n".join(why.summary(rows))
    assert "2 hits; within the print rounding with every switch off: 1" in text and "rocm_bound 1" in text
    assert "device bound 1" in text
