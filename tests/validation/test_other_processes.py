"""Other processes on a case's GPU as a case input (helper co13, 2026-12-05; docs/accuracy.md §2, "Other processes on
the GPU as a case fact").

``other_processes`` (scripts/build_validation_set.py ``OTHER_PROCESSES``, read by ``harness.others_of``) carries what
the source prints or states: MiB held per GPU at the engine's start, and at the end of its profile only where the source
states that moment.  The held memory goes into the machine profile (charged by vLLM V1 0.8.0-0.9.0 and V0 <= 0.3.0 /
0.6.4 only, which measure total - free after the profile); a gain between the two samples is charged by every release
that reads free memory before and after its profile (``engines.vllm.baseline.others_growth_line``).
"""

from __future__ import annotations

import copy

import pytest

import harness
from tpkit.engines.registry import get_engine
from tpkit.engines.vllm.baseline import others_growth_line
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.memory.band import at_band_end
from tpkit.units import Bytes

GIB = 2**30
CASES = {c["id"]: c for c in harness.load_cases("vllm")}


def _available(case: dict) -> float:
    """Nominal planned KV bytes of a case, through the harness's own inputs."""
    model, gpu, parallel, options = harness.inputs(case)
    machine, growth = harness.others_of(case, gpu, parallel)
    kw = {"machine": machine, **({"others_growth": growth} if growth else {})}
    with at_band_end(0):
        return get_engine("vllm").plan(model, gpu, parallel, options, **kw).extra["available_kv_bytes"]


def _with(cid: str, start: list[int], after: list[int] | None) -> dict:
    case = copy.deepcopy(CASES[cid])
    case["other_processes"] = {"at_start_mib": start, "after_profile_mib": after, "line": "test", "evidence": "test"}
    return case


def _without(cid: str) -> dict:
    case = copy.deepcopy(CASES[cid])
    case.pop("other_processes", None)
    return case


@pytest.mark.parametrize("cid", ["vp_102", "vp_604", "vp_627", "vp_175"])  # 0.28, 0.30, 0.8.5 V1, 0.7.2 V0
def test_a_gain_during_the_profile_is_charged_whole_by_every_release(cid):
    n = CASES[cid]["tp"]
    steady = _available(_with(cid, [3000] * n, [3000] * n))
    grown = _available(_with(cid, [3000] * n, [4024] * n))  # 1 GiB gained between the two samples
    assert abs((steady - grown) - GIB) <= 1, cid


@pytest.mark.parametrize("cid, charged", [("vp_627", True), ("vp_005", True), ("vp_102", False), ("vp_604", False),
                                          ("vp_175", False)])
def test_memory_held_at_the_start_is_charged_only_by_total_minus_free_releases(cid, charged):
    """V1 0.8.x (``determine_available_memory``: total − free after the profile) charges what others hold; V0 0.7 and
    V1 ≥ 0.9.1 measure from their own start-up sample, so the same memory changes nothing (while it fits the
    start-up check)."""
    alone = _available(_without(cid))
    shared = _available(_with(cid, [2048], None))
    assert (abs((alone - shared) - 2 * GIB) <= 1) if charged else alone == shared, cid


def test_torch_peak_only_releases_charge_no_growth():
    assert others_growth_line(Bytes(GIB), resolve_rules("0.2.4")) == ()
    assert others_growth_line(Bytes(0), resolve_rules("0.30.0")) == ()
    assert others_growth_line(Bytes(GIB), resolve_rules("0.30.0"))[0].bytes == Bytes(GIB)


def test_the_cases_that_state_other_processes_memory():
    """The stated figures, their lines, and only what the source states: no after-profile figure for the 0.30.0 B200
    first starts (GLM-5.3's growth is timed only as 'after the first requests'), the unchanged figure for the ollama
    L4 bench and the restart in GLM's flat window; none of them moves its prediction (every release of these cases
    measures from its own start-up sample and no stated gain is non-zero)."""
    held = {cid: c["other_processes"] for cid, c in CASES.items() if c.get("other_processes")}
    assert set(held) == {"vp_102", "vp_103", "vp_415", "vp_416", "vp_417", "vp_602", "vp_603", "vp_604", "vp_614"}
    for cid, h in held.items():
        assert h["line"] and h["evidence"] and len(h["at_start_mib"]) == CASES[cid]["tp"], cid
    assert held["vp_602"]["at_start_mib"] == [145944, 145944] and held["vp_602"]["after_profile_mib"] is None
    assert held["vp_603"]["after_profile_mib"] is None
    assert held["vp_604"]["at_start_mib"] == held["vp_604"]["after_profile_mib"] == [152912]
    assert held["vp_102"]["after_profile_mib"] == [4902]
    assert held["vp_415"]["at_start_mib"] == [1998, 27109]
    for cid in held:
        assert harness.predict(CASES[cid]).predicted == harness.predict(_without(cid)).predicted, cid
    for cid in ("vp_627", "vp_628", "vp_629", "vp_630"):  # the runbook names companion services, states no figure
        assert "other_processes" not in CASES[cid]


def test_a_malformed_field_is_refused_with_what_was_wrong():
    case = _with("vp_415", [27109], None)  # one figure for a tp 2 layout
    model, gpu, parallel, options = harness.inputs(case)
    with pytest.raises(ValueError, match="one whole, non-negative MiB figure per GPU of the layout \\(2\\)"):
        harness.others_of(case, gpu, parallel)
    sg = copy.deepcopy(harness.load_cases("sglang")[0])
    sg["other_processes"] = case["other_processes"]
    with pytest.raises(ValueError, match="free_at_start"):
        harness.others_of(sg, gpu, parallel)


@pytest.mark.parametrize("held", [{"after_profile_mib": [0], "line": "l", "evidence": "e"}, [2048], "2048 MiB"])
def test_a_missing_start_figure_or_a_non_mapping_is_refused_with_what_was_wrong(held):
    """Review q13 (2026-12-05): a field without ``at_start_mib`` raised a bare KeyError, a list or a string an
    AttributeError; the harness names the case, the field and what it received."""
    case = copy.deepcopy(CASES["vp_102"])
    case["other_processes"] = held
    model, gpu, parallel, options = harness.inputs(case)
    with pytest.raises(ValueError, match="vp_102: other_processes"):
        harness.others_of(case, gpu, parallel)
