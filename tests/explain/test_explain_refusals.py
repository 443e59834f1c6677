"""Explain keeps going past a rule's refusal, and only past a refusal (``tpkit.explain.refusals``).

A run the rules cannot size (a tp the heads do not divide, a release they do not read) is reported as "not
computable"; a bug inside a rule (a ``TypeError``) must reach the tests, not turn into "unknown"."""

from __future__ import annotations

import pytest

import tpkit.engines.sglang.pool as sglang_pool
from tpkit.errors import PlanInputError
from tpkit.explain import explain_log
from tpkit.explain.refusals import READ_FAILED, REFUSED

from explain_testlib import log_bytes, script

MODEL = {"model": "meta-llama/Llama-3.1-8B-Instruct"}  # sg_001 served it (tests/logs/data/models.json)


def test_refusals_are_the_planner_errors_values_and_arithmetic():
    assert PlanInputError in REFUSED or any(issubclass(PlanInputError, e) for e in REFUSED)
    for bug in (TypeError, AttributeError, KeyError, AssertionError, NameError):
        assert not any(issubclass(bug, e) for e in READ_FAILED), bug


def test_a_refusal_inside_the_cell_rule_is_reported_and_explain_goes_on(monkeypatch):
    def refuse(*_a, **_k):
        raise PlanInputError("tp 3 does not divide 8 KV heads (test)")

    monkeypatch.setattr(sglang_pool, "compute_cell", refuse)
    stripped = script("explain_capacity_check").strip_capacity(log_bytes("sg_001"))  # the cell must come from rules
    result = explain_log(stripped, flags=MODEL)
    assert result.kv_predicted_range is None
    assert result.kv_source.startswith("cell not computable (PlanInputError: tp 3 does not divide")


def test_a_bug_inside_the_cell_rule_is_not_swallowed(monkeypatch):
    def bug(*_a, **_k):
        raise TypeError("unsupported operand (test)")

    monkeypatch.setattr(sglang_pool, "compute_cell", bug)
    with pytest.raises(TypeError, match="unsupported operand"):
        explain_log(log_bytes("sg_001"), flags=MODEL)
