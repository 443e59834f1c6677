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


def test_gpu_class_by_compute_capability():
    """Helper sp28 (2026-12-06): the plain-step table's GPU class is the catalog's compute capability, AMD apart."""
    import plain_step_by_class as pc
    from tpkit.hardware.catalog import lookup_gpu

    assert [pc.gpu_class(lookup_gpu(g)) for g in ("H100", "H200", "B200", "RTX-PRO-6000", "RTX-3090", "L40S",
                                                  "A100-80GB", "MI300X")] == [
        "Hopper (9.0)", "Hopper (9.0)", "Blackwell DC (10.0)", "Blackwell GB20x (12.0)", "Ampere GA10x (8.6)",
        "Ada (8.9)", "Ampere DC (8.0)", "AMD Instinct"]


def test_link_fields_are_what_tpkit_perf_priced(gdn_rows):
    """Every row carries the link tpkit perf took (single at TP 1), the catalog's PCIe peer access and the all-reduce
    backend it picked: the RTX 3090 has no P2P (NCCL), the RTX PRO 6000 has it."""
    for x in gdn_rows:
        assert (x["link"] == "single") == (x["tp"] == 1) and (x["ar_backend"] == "none") == (x["tp"] == 1)
        if x["gpu"] == "RTX-3090" and x["tp"] > 1:
            assert (x["link"], x["p2p"], x["ar_backend"]) == ("pcie", "no", "nccl")
        if x["gpu"] == "RTX-PRO-6000" and x["tp"] > 1:
            assert (x["link"], x["p2p"]) == ("pcie", "yes")


def test_group_table_counts_every_scored_row_once(gdn_rows):
    import plain_step_by_class as pc

    lines = pc.group_table(gdn_rows, ("link", "p2p"))
    counted = sum(int(line.split("|")[3]) for line in lines[2:])
    assert counted == sum(x["scored"] for x in gdn_rows)
    cross = pc.far_off_cross(gdn_rows)
    assert cross["wrong_far_off"] <= min(cross["wrong"], cross["far_off"]) <= cross["rows"]


@pytest.mark.parametrize("arg", ["nope", "link,foo", ","])
def test_unknown_group_key_exits_2_before_pricing(arg):
    import subprocess

    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "plain_step_by_class.py"), "--by", arg],
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""}, timeout=60)
    assert proc.returncode == 2 and "--by" in proc.stderr and "Traceback" not in proc.stderr
