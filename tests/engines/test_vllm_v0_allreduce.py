"""V0 ≥ 0.6.5 reduces tensor-parallel outputs out of place (``GroupCoordinator._all_reduce_out_place``;
``PyNcclCommunicator.all_reduce`` allocates ``torch.empty_like``; vllm 0.6.5–0.10.2 wheels), 0.6.4 in place: with
tp > 1 the profile's dense MLP and attention phases hold one more T × H tensor (engines/vllm/profile.py)."""

from __future__ import annotations

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(15 * 2**30))
PHASES = ("profile phase: dense MLP", "profile phase: attention")


def _phases(version: str, tp: int) -> tuple[int, int, int]:
    plan = plan_vllm(llama3_8b(), H200, ParallelSpec(tp=tp), VllmOptions(engine_version=version, max_model_len=8192),
                     weights=W)
    tokens = int(plan.ledger.get("activation peak (profile run, estimate)").source.split("T = ")[1].split(" ")[0]
                 .replace(",", ""))
    return plan.ledger.get(PHASES[0]).bytes.bytes, plan.ledger.get(PHASES[1]).bytes.bytes, tokens


@pytest.mark.parametrize("version, out_of_place", [("0.6.3", False), ("0.6.4", False), ("0.6.5", True),
                                                   ("0.7.2", True), ("0.8.5:v0", True), ("0.10.2:v0", True),
                                                   ("v0", True), ("0.8.5", False), ("0.11.0", False)])
def test_rule_flag_by_release(version, out_of_place):
    rules = resolve_rules(version)
    assert (rules.engine == "V0" and rules.v0_allreduce_out_of_place) is out_of_place


@pytest.mark.parametrize("version", ["0.6.5", "0.7.2", "0.8.5:v0"])
def test_out_of_place_copy_adds_t_times_h_at_tp_above_1(version):
    mlp1, _, t1 = _phases(version, 1)
    mlp2, _, t2 = _phases(version, 2)
    h, a = 4096, 2
    model = llama3_8b()
    assert t1 == t2
    # tp 2 halves the MLP width and the heads; the out-of-place copy adds T × H × a on top
    assert mlp2 == t2 * (3 * h + 3 * (model.intermediate_size // 2)) * a + t2 * h * a
    assert mlp1 == t1 * (3 * h + 3 * model.intermediate_size) * a


def test_0_6_4_keeps_the_phases_0_6_5_adds_the_copy():
    old_mlp, old_att, t = _phases("0.6.4", 2)
    new_mlp, new_att, t_new = _phases("0.6.5", 2)
    assert t == t_new
    assert new_mlp - old_mlp == t * 4096 * 2 and new_att - old_att == t * 4096 * 2
    # tp 1: nothing is all-reduced, both releases agree
    assert _phases("0.6.4", 1)[:2] == _phases("0.6.5", 1)[:2]
    # V1 (0.8.5) keeps the phases without the copy
    v1_mlp, _, t1 = _phases("0.8.5", 2)
    assert v1_mlp == t1 * (3 * 4096 + 3 * (llama3_8b().intermediate_size // 2)) * 2
