"""bench/tp_wrong_signs.py (helper sp29): the per-call all-reduce what-if, its bound and its training-only fit."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import tp_wrong_signs as tw  # noqa: E402


def _row(**kw) -> dict:
    x = {"row": 1, "source": "s", "train": False, "tp": 8, "gpu": "B200", "engine": "vllm", "version": None,
         "batch": 64, "k": 3, "accept_length": 2.57, "link": "nvlink", "backend": "custom", "workload": False,
         "comparable": True, "measured": 0.7, "predicted": 1.6, "decode_predicted": 1.6, "step_pred_ms": 2.36,
         "cycle_pred_ms": 3.79, "step_meas_ms": 3.05, "cycle_meas_ms": 11.54, "calls_forward": 65,
         "calls_cycle": 74, "verify_msg_kib": 2048.0}
    x.update(kw)
    return x


def test_a_per_call_term_moves_the_speedup_towards_its_bound_and_never_past_it():
    x = _row()
    b = tw.bound(x)
    assert b == pytest.approx(1.6 * 65 * 3.79 / (2.36 * 74))
    values = [tw.with_term(x, d) for d in (0, 10, 100, 1000, 10**6)]
    assert values[0] == 1.6
    # here the bound is above the prediction: the term raises the speed-up (the step has 65 of the cycle's 74 calls
    # but only 1 / 1.61 of its time), monotonically, and stays under the bound
    assert b > 1.6
    assert values == sorted(values) and all(1.6 <= v <= b for v in values)
    assert values[-1] == pytest.approx(b, rel=1e-3)


def test_no_term_at_tp_1_and_for_workload_rows():
    assert tw.with_term(_row(tp=1, calls_forward=0, calls_cycle=0), 50) == 1.6
    assert tw.bound(_row(tp=1, calls_forward=0, calls_cycle=0)) is None
    assert tw.with_term(_row(workload=True, predicted=1.2), 50) == 1.2
    assert tw.side(_row(workload=True)) == "n/a (workload)"


def test_the_per_call_deltas_of_step_and_cycle():
    x = _row()
    assert tw.deltas_us(x) == pytest.approx(((3.05 - 2.36) * 1e3 / 65, (11.54 - 3.79) * 1e3 / 74))
    assert tw.deltas_us(_row(step_meas_ms=None, cycle_meas_ms=None)) is None
    assert tw.deltas_us(_row(tp=1, calls_forward=0, calls_cycle=0)) is None


def test_side_names_the_measured_part_that_alone_turns_the_sign():
    assert tw.side(_row()) == "cycle"  # 1.6 × 3.79 / 11.54 < 1; 1.6 × 3.05 / 2.36 > 1
    kimi = _row(measured=1.21, predicted=0.93, decode_predicted=0.93, step_pred_ms=19.59, step_meas_ms=25.14,
                cycle_pred_ms=48.18, cycle_meas_ms=47.42)
    assert tw.side(kimi) == "step"  # 0.93 × 25.14 / 19.59 > 1; 0.93 × 48.18 / 47.42 < 1
    assert tw.side(_row(step_meas_ms=None)) == "n/a"


def test_the_term_is_fitted_on_training_rows_only():
    """Held-out rows do not move the fit: a held-out row that a large term would turn right is ignored."""
    train = _row(train=True, measured=1.1, predicted=0.95, decode_predicted=0.95, step_pred_ms=20.0,
                 cycle_pred_ms=42.0, calls_forward=123, calls_cycle=132)
    held_good = _row(measured=1.05, predicted=0.9, decode_predicted=0.9, step_pred_ms=20.0, cycle_pred_ms=45.0,
                     calls_forward=123, calls_cycle=132)
    d = tw.fit_on_training([train])
    assert tw.fit_on_training([train, held_good]) == d
    assert tw.with_term(train, d) > 1  # the training row is turned by the smallest term that turns it
    assert d == min(g for g in range(0, 101, 5) if tw.with_term(train, g) > 1)
    t = tw.tally([train, held_good], d)
    assert (t["train"]["rows"], t["held_out"]["rows"], t["all"]["rows"]) == (1, 1, 2)


def test_wrong_groups_count_the_held_out_wrong_rows_against_their_group():
    """Helper sp31: a group prints only where it holds a held-out wrong sign, with the size of the group; training
    and not-comparable rows are left out."""
    rows = [_row(row=1, tp=4, version="0.26.0", algorithm="NEXTN", accept_given=True),            # wrong
            _row(row=2, tp=4, version="0.26.0", algorithm="NEXTN", measured=1.3, accept_given=True),  # right
            _row(row=3, tp=1, version="0.20.0", algorithm="EAGLE3", measured=1.2, accept_given=False),  # right
            _row(row=4, tp=4, version="0.26.0", train=True),                                          # training
            _row(row=5, tp=4, version="0.26.0", comparable=False)]                                    # n/c
    lines = tw.wrong_groups(rows, ("release", "tp"))
    assert lines[2:] == ["| vllm 0.26.0 | 4 | 2 | 1 | 1 |"]
    assert tw.group_key(_row(version=None), "release") == "vllm newest"
    assert [tw.group_key(_row(batch=b), "batch") for b in (1, 8, 64, 128)] == ["1", "2-8", "16-64", ">64"]
    assert tw.group_key(_row(accept_given=False), "accept") == "family default"
    # the side is read per row, so the right rows 2 and 3 (side "step") fall in another group than row 1
    assert tw.wrong_groups(rows, ("side",))[2:] == ["| cycle | 1 | 1 | 1 |"]
