"""Explain's guards catch what a user's input can cause, nothing else (helper q14, 2026-12-05, session 14).

``explain.vdiagnose._one_request`` asks vLLM's capacity rule whether a fix's KV memory holds one request of the run's
max_model_len.  A refusal of the planner (``explain.refusals.REFUSED``: ``TpkitError``, ``ValueError``,
``ArithmeticError``) means "the check is not made" and the fix keeps its plain words; any other exception is a bug
in tpkit and must raise, not turn into a fix wrongly called a fit (it used to be ``except Exception``)."""

from __future__ import annotations

import sys

import pytest
from explain_testlib import cases, script

import tpkit.engines.vllm.capacity as capacity
from tpkit.errors import PlanInputError

ROUNDTRIP = script("explain_roundtrip_check")


def _failing_in_one_request(monkeypatch, exc: Exception) -> None:
    """``estimate_max_model_len`` raises ``exc`` when the one-request check calls it (the capacity rebuild, which
    also calls it, gets the real one)."""
    real = capacity.estimate_max_model_len

    def patched(*args, **kwargs):
        if sys._getframe(1).f_code.co_name == "_one_request":
            raise exc
        return real(*args, **kwargs)

    monkeypatch.setattr(capacity, "estimate_max_model_len", patched)


def _vl_788_utilization_fix():
    by_id = {c["id"]: c for c in cases()}
    e = ROUNDTRIP.explained(by_id["vl_788"], ROUNDTRIP.model_map())[0]
    return next(f for f in e.diagnosis.fixes if f.flags.startswith("--gpu-memory-utilization"))


def test_the_one_request_check_is_made_on_a_real_crash_log():
    # vl_788: 0.71 leaves less than one 40,960-token request; the fix goes on to 0.79, which holds it
    fix = _vl_788_utilization_fix()
    assert fix.flags == "--gpu-memory-utilization 0.79" and fix.fits


def test_a_planner_refusal_skips_the_check_and_keeps_the_clear_fix(monkeypatch):
    _failing_in_one_request(monkeypatch, PlanInputError("max_model_len 40960 exceeds the model's limit"))
    fix = _vl_788_utilization_fix()
    # the check is not made: the first utilization that covers the shortfall, with its usual words
    assert fix.flags.startswith("--gpu-memory-utilization") and fix.fits
    assert "vLLM refuses to start" not in (fix.note or "") and "assumes the device has it free" in fix.note


def test_a_bug_in_the_check_raises_instead_of_becoming_a_fit(monkeypatch):
    _failing_in_one_request(monkeypatch, TypeError("unsupported operand type(s) for +: 'NoneType' and 'int'"))
    with pytest.raises(TypeError, match="NoneType"):
        _vl_788_utilization_fix()
