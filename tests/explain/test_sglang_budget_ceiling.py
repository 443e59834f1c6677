"""The KV budget's top when an SGLang log prints no pre-load free memory (``explain.sgbudget.ceiling``, helper cap25).

SGLang's budget is free after weights − (1 − f) × pre (``profile_max_num_token``, 0.4.x–0.5.9; the 0.5.20 / 0.5.23
``KVCacheConfigurator._profile_available_bytes``); 'Load weight end … mem usage' is pre − free after weights, and pre
is at most the device total, so the budget is at most f × total − weights.  sg_494 (an excerpt that prints only
the weights, 61.04 GB, and SGLang's 'Not enough memory' on one A100-80GB at the source's 0.55) is decided by it:
0.55 × 79.25 − 61.04 = −17.45 GiB, below one token's cell for any pre the card allows.  A positive top decides
nothing; more than one rank, an unknown card, or a printed pre / free memory give no top."""

import pytest
from explain_testlib import log_bytes, script

from tpkit.explain import explain_log
from tpkit.units import GiB

SG494 = {"gpu": "A100-80GB", "tp": 1, "mem_fraction_static": 0.55, "model": "Qwen/Qwen3-32B"}


def _pin(case_id, flags):
    check = script("explain_capacity_check")
    data = log_bytes(case_id)
    return check.find_pin(data, explain_log(data), explain_log(check.strip_capacity(data), flags=flags))


def test_sg_494_is_decided_by_the_budget_top():
    a = explain_log(log_bytes("sg_494"), flags=SG494).anchored
    assert a.pre is None and a.rest is None and a.free_after_weights is None
    top = a.rest_ceiling
    # 0.55 × 85,094,039,552 B (79.25 GiB) − 61.04 GiB (its print's low end, 61.035 GiB)
    assert abs(top.bytes - (round(0.55 * 85_094_039_552) - GiB(61.035).bytes)) <= 1
    assert -17.46 < top.bytes / 2**30 < -17.44
    assert any(r.item.startswith("KV budget, top") for r in a.rows)
    pin = _pin("sg_494", SG494)
    assert pin.kind == "sglang_not_enough_memory" and pin.rebuilt == (-1, -1)
    assert "budget's top" in pin.shown and "-17.45 GiB" in pin.shown


def test_a_positive_top_decides_nothing():
    """At 0.95 the top is 0.95 × 79.25 − 61.04 = +14.25 GiB: a pool of ~58,000 tokens is possible, so the crash is
    not rebuilt (the row stays unscored as before)."""
    flags = {**SG494, "mem_fraction_static": 0.95}
    top = explain_log(log_bytes("sg_494"), flags=flags).anchored.rest_ceiling
    assert 14.2 < top.bytes / 2**30 < 14.3
    assert _pin("sg_494", flags).rebuilt is None


@pytest.mark.parametrize("change", [{"tp": 2}, {"gpu": None}])
def test_no_top_for_several_ranks_or_an_unknown_card(change):
    flags = {k: v for k, v in {**SG494, **change}.items() if v is not None}
    assert explain_log(log_bytes("sg_494"), flags=flags).anchored.rest_ceiling is None


def test_no_top_where_the_budget_is_rebuilt():
    """sg_102 prints 'Load weight end … avail mem': its budget is rebuilt (−1.70…−1.68 GiB), no top is added."""
    a = explain_log(log_bytes("sg_102"), flags={"gpu": "H100-80GB"}).anchored
    assert a.rest is not None and a.rest_ceiling is None


@pytest.mark.parametrize("version", ["0.4.7.post1", "0.5.9", "0.5.10", "0.5.23"])
def test_the_top_holds_in_both_homes_of_the_budget_rule(version):
    """The 0.4.x–0.5.9 wheels read size the pool in ModelRunner.profile_max_num_token, 0.5.20 / 0.5.23 in the
    KV-cache configurator: the same free-after-weights − (1 − f) × pre, so the same top under every release's
    rules tpkit applies."""
    a = explain_log(log_bytes("sg_494"), flags={**SG494, "engine_version": version}).anchored
    assert a.rest_ceiling is not None and -17.46 < a.rest_ceiling.bytes / 2**30 < -17.44
