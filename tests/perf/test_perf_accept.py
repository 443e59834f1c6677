"""Acceptance length of draft chains and trees."""

import pytest

from tpkit.errors import PlanInputError
from tpkit.perf.accept import accept_length, accept_rate_for


def test_chain_is_the_geometric_sum():
    assert accept_length(0.7, num_steps=3, topk=1, num_draft_tokens=4) == pytest.approx(1 + 0.7 + 0.49 + 0.343)


def test_trees_accept_more_than_chains_and_the_budget_caps_them():
    chain = accept_length(0.6, num_steps=4, topk=1, num_draft_tokens=5)
    tree = accept_length(0.6, num_steps=4, topk=4, num_draft_tokens=16)
    assert tree > chain
    assert accept_length(0.6, num_steps=4, topk=4, num_draft_tokens=5) < tree
    assert accept_length(0.99, num_steps=4, topk=4, num_draft_tokens=64) <= 5.0  # depth bounds τ at steps + 1


def test_rate_round_trip_and_impossible_lengths():
    for length in (1.2, 2.0, 3.1):
        rate = accept_rate_for(length, num_steps=5, topk=1, num_draft_tokens=6)
        assert accept_length(rate, num_steps=5, topk=1, num_draft_tokens=6) == pytest.approx(length, abs=1e-6)
    with pytest.raises(PlanInputError, match="impossible"):
        accept_rate_for(5.0, num_steps=3, topk=1, num_draft_tokens=4)
