"""V0 ≥ 0.6.5 reduces tensor-parallel outputs out of place (``GroupCoordinator._all_reduce_out_place``;
``PyNcclCommunicator.all_reduce`` allocates ``torch.empty_like``; vllm 0.6.5–0.10.2 wheels), 0.6.4 in place: with
tp > 1 the profile's dense MLP and attention phases hold one more T × H tensor (engines/vllm/profile.py)."""

from __future__ import annotations

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b, qwen25_14b

W = GivenWeights(Bytes(15 * 2**30))
PHASES = ("profile phase: dense MLP", "profile phase: attention")


def _phases(version: str, tp: int, model=None) -> tuple[int, int, int]:
    model = model or llama3_8b()
    plan = plan_vllm(model, H200, ParallelSpec(tp=tp), VllmOptions(engine_version=version, max_model_len=8192),
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
    """The copy joins the attention phase and ``down_proj``'s moment of the MLP (engines/vllm/v0_forward.py):
    Qwen2's MLP keeps gate_up there, so its MLP phase grows by T × H; Llama's (≥ 0.6.4) frees gate_up first, so its
    MLP peak stays at the activation (3H + 3I/tp), above 4H + I/tp + the copy."""
    h, a = 4096, 2
    llama = llama3_8b()
    mlp1, att1, t1 = _phases(version, 1)
    mlp2, att2, t2 = _phases(version, 2)
    assert t1 == t2
    assert mlp1 == t1 * (3 * h + 3 * llama.intermediate_size) * a
    assert mlp2 == t2 * (3 * h + 3 * (llama.intermediate_size // 2)) * a
    q = qwen25_14b()
    qh, qi = q.hidden_size, q.intermediate_size
    qmlp1, _, qt = _phases(version, 1, q)
    qmlp2, _, _ = _phases(version, 2, q)
    assert qmlp1 == qt * (4 * qh + 3 * qi) * a
    assert qmlp2 == qt * (4 * qh + 3 * (qi // 2)) * a + qt * qh * a


def test_0_6_4_keeps_the_phases_0_6_5_adds_the_copy():
    _, old_att, t = _phases("0.6.4", 2)
    _, new_att, t_new = _phases("0.6.5", 2)
    assert t == t_new
    assert new_att - old_att == t * 4096 * 2
    q = qwen25_14b()
    old_mlp, _, qt = _phases("0.6.4", 2, q)
    new_mlp, _, _ = _phases("0.6.5", 2, q)
    assert new_mlp - old_mlp == qt * q.hidden_size * 2
    # tp 1: nothing is all-reduced, both releases agree
    assert _phases("0.6.4", 1)[:2] == _phases("0.6.5", 1)[:2]
    # V1 (0.8.5) keeps the phases without the copy and without V0's eager terms
    v1_mlp, _, t1 = _phases("0.8.5", 2)
    assert v1_mlp == t1 * (3 * 4096 + 3 * (llama3_8b().intermediate_size // 2)) * 2
