"""Leave-own-log-out scoring of the validation cases (helper loo15, 2026-12-05; issue 11, honesty of the figures).

The start-up table is fitted on public logs, some of them a validation case's own log.  ``harness.predict_own_log_out``
plans such a case with a table built without those evidence rows (``tpkit.startup.table.swapped_table``); every
other case is planned with the shipped table unchanged.
"""

from __future__ import annotations

import json

import pytest

import harness
from tpkit.startup.table import read_table, swapped_table, table_path

SHIPPED = json.loads(table_path().read_text())


def _case(cid: str) -> dict:
    engine = "sglang" if cid.startswith(("sg_", "gs_")) else "vllm"
    return next(c for c in harness.load_cases(engine) if c["id"] == cid)


def test_the_swap_restores_the_shipped_table_also_after_an_error():
    other = harness.table_without(harness.own_log_rows("sg_009"))
    assert other != SHIPPED
    with swapped_table(other):
        assert read_table() is other
    assert read_table() == SHIPPED
    with pytest.raises(RuntimeError):
        with swapped_table(other):
            assert read_table() is other
            raise RuntimeError("inside the block")
    assert read_table() == SHIPPED


def test_the_swap_refuses_what_is_not_a_table():
    with pytest.raises(ValueError, match="start-up table"):
        with swapped_table({"rows": []}):
            pass
    assert read_table() == SHIPPED


def test_a_case_scores_differently_with_its_own_log_out_and_the_cached_terms_do_not_leak():
    case = _case("sg_009")
    assert harness.own_log_rows("sg_009") == {"sg_009", "sg_009-load"}
    shipped = harness.predict(case)
    held_out = harness.predict_own_log_out(case)
    assert abs(held_out.error - shipped.error) > 0.01, (shipped.error, held_out.error)  # -2.5 % -> +2.9 %
    assert harness.predict(case) == shipped  # the SGLang baseline cache is emptied on exit


def test_a_case_without_own_log_rows_scores_identically():
    case = _case("gs_030")
    assert not harness.own_log_rows("gs_030")
    assert harness.predict_own_log_out(case) == harness.predict(case)


def test_scoring_every_sglang_case_again_equals_reusing_the_shipped_rows():
    """A full re-plan of every case (each case with own-log rows swaps the table in and out) gives the shipped row
    for every case without such rows: nothing planned under a swapped table is served to the next case."""
    shipped = harness.score("sglang")
    full = harness.score("sglang", own_log_out=True)
    reused = harness.score("sglang", own_log_out=True, reuse=shipped)
    assert [r.case["id"] for r in full[0]] == [r.case["id"] for r in reused[0]]
    assert [(r.predicted, r.low, r.high) for r in full[0]] == [(r.predicted, r.low, r.high) for r in reused[0]]
    before = {r.case["id"]: r for r in shipped[0]}
    moved = {r.case["id"] for r in full[0] if r != before[r.case["id"]]}
    assert moved and all(harness.own_log_rows(cid) for cid in moved)
