"""A vLLM log whose release is only known as a range, where the two ends count the printed tokens by different rules
(explain.vtokens._other_end): the rebuilt tokens are one range per rule, never a count between them, and the
capacity check scores a log a hit only when the printed count lies in one of them (docs/accuracy.md §7.2).
Helper v920 (2026-12-05): the rule sets of the releases inside the range are rebuilt too (``_inner_releases``), so
vl_009 has a third range (the 0.20.1 rules: the concurrency rule in the 0.11 era) beside its ends'."""

import json

from explain_testlib import log_bytes, script

from tpkit.explain import explain_log

CHECK = script("explain_capacity_check")


def _stripped(case_id: str):
    flags = {"model": CHECK.model_flag(CHECK.model_map()[case_id])}
    return explain_log(CHECK.strip_capacity(log_bytes(case_id)), flags=flags)


def test_open_release_gives_one_range_per_rule():
    # vl_009: gpt-oss-120b, release inferred as >= 0.18: the 0.18 groups rule and the 0.33 concurrency rule
    e = _stripped("vl_009")
    alts = e.kv_predicted_alternatives
    assert len(alts) == 3
    lo, hi = e.kv_predicted_range
    assert lo == min(a[0] for a in alts) and hi == max(a[1] for a in alts)
    assert alts[0][1] < alts[1][0] or alts[1][1] < alts[0][0]           # disjoint: the hull is no prediction
    # with no printed count, the prediction sits in the range of the rules the log is read by, not in the gap
    assert alts[0][0] <= e.kv_predicted <= alts[0][1]
    doc = json.loads(json.dumps(e.to_dict()))
    assert doc["kv_tokens"]["predicted_alternatives"] == [list(a) for a in alts]


def test_printed_count_between_the_ranges_is_a_miss():
    e = _stripped("vl_009")
    (a_lo, a_hi), (b_lo, b_hi) = sorted(e.kv_predicted_alternatives)[:2]
    between = (a_hi + b_lo) // 2
    assert not CHECK._in_alternatives(between, e)
    assert CHECK._in_alternatives(a_lo, e) and CHECK._in_alternatives(b_hi, e)


def test_known_release_has_no_alternatives():
    flags = {"model": CHECK.model_flag(CHECK.model_map()["vl_009"]), "engine_version": "0.18.0"}
    e = explain_log(CHECK.strip_capacity(log_bytes("vl_009")), flags=flags)
    assert e.kv_predicted_alternatives == ()
    assert e.to_dict()["kv_tokens"]["predicted_alternatives"] is None
