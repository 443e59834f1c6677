"""bench/plain_step_by_class.py (helper hy22, issue 13): the plain decode step by architecture class, and the
recorded finding that the hybrid Gated-DeltaNet rows' wrong signs are not the plain step's (docs/accuracy.md §4.5,
helper hy22): putting the measured plain step into the prediction turns none of them right."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

GDN = ("hybrid GDN", "hybrid GDN MoE")


@pytest.mark.parametrize("model, expected", [
    ("Qwen3.5-9B", "hybrid GDN"),
    ("bench/data/qwen3.6-35b-a3b-awq.config.json", "hybrid GDN MoE"),
    ("meta-llama/Llama-3.1-8B-Instruct", "dense"),
    ("Qwen/Qwen3-30B-A3B", "MoE"),
    ("deepseek-ai/DeepSeek-V3", "MLA"),
])
def test_arch_class(model, expected):
    import plain_step_by_class as pc
    from tpkit.models import load_model

    spec = load_model(str(ROOT / model) if model.startswith("bench/") else model)
    assert pc.arch_class(spec) == expected


@pytest.fixture(scope="module")
def gdn_rows():
    import plain_step_by_class as pc

    return pc.rows(classes=GDN)


def test_gdn_rows_are_priced_as_decode_published_does(gdn_rows):
    assert len(gdn_rows) >= 140 and {x["class"] for x in gdn_rows} == set(GDN)
    for x in gdn_rows:  # the speed-up tpkit prints is accept length × plain step / cycle
        assert x["speedup"]["predicted"] == pytest.approx(
            x["accept_length"] * x["step_ms"]["predicted"] / x["cycle_ms"]["predicted"], rel=1e-6)


def test_the_measured_plain_step_turns_no_wrong_gdn_row_right(gdn_rows):
    import plain_step_by_class as pc

    wrong = [x for x in gdn_rows if x["scored"] and x["cycle_ms"]["measured"]
             and (x["speedup"]["predicted"] > 1) != (x["speedup"]["measured"] > 1)]
    assert wrong
    for x in wrong:
        meas, pred, cyc = x["step_ms"]["measured"], x["step_ms"]["predicted"], x["cycle_ms"]["predicted"]
        assert meas > pred  # the plain step is predicted fast on every one of them …
        for cycle in (cyc, cyc + meas - pred):  # … and the measured step raises the predicted speed-up
            assert x["accept_length"] * meas / cycle > x["speedup"]["predicted"] > 1 > x["speedup"]["measured"]
        assert x["cycle_ms"]["predicted"] / x["cycle_ms"]["measured"] < pred / meas  # the cycle is off by more
    w = pc.what_if(gdn_rows)
    assert w["measured_step_cycle_as_predicted"]["sign_ok"] < w["as_predicted"]["sign_ok"]
    assert w["measured_step_same_ms_on_cycle"]["sign_ok"] < w["as_predicted"]["sign_ok"]
