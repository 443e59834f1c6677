"""Marlin's (M, K) ``a_tmp`` under V0's eager forward (engines/vllm/marlin_v0.py, helper awq14): which runs take the
Marlin kernel, which releases allocate the temporary unconditionally, and the phase it raises."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm import plan_vllm
from tpkit.engines.vllm.marlin_v0 import (MARLIN_A_TMP_BEFORE, marlin_kernel, v0_marlin_a_tmp,
                                           with_v0_marlin_a_tmp)
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.parallel import ParallelSpec

from tpkit.models.config import from_config_dict
from vllm_fixtures import llama3_8b

GIB = 2**30
CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
AWQ = "Qwen--Qwen2.5-32B-Instruct-AWQ"
GPTQ = "Qwen--Qwen2.5-7B-Instruct-GPTQ-Int4"


def config_model(stem: str):
    path = CONFIGS / f"{stem}.json"
    return from_config_dict(json.loads(path.read_text()), name=stem, source=str(path))


@pytest.mark.parametrize("stem, flag, release, cc, kernel", [
    (AWQ, None, (0, 6, 6), (8, 9), "awq_marlin"),
    (AWQ, "awq_marlin", (0, 6, 6), None, "awq_marlin"),
    (AWQ, "marlin", (0, 8, 5), (8, 0), "awq_marlin"),
    (AWQ, "awq", (0, 6, 6), (8, 9), None),          # forced plain AWQ kernel
    (AWQ, None, (0, 5, 3), (8, 0), "awq_marlin"),   # awq_marlin.py in 0.5.3.post1
    (AWQ, None, (0, 5, 2), (8, 0), None),
    (AWQ, None, (0, 6, 6), (7, 5), None),           # Marlin needs compute capability 8.0
    (GPTQ, None, (0, 6, 6), (9, 0), "gptq_marlin"),
    (GPTQ, "gptq_marlin", (0, 4, 3), (8, 0), "gptq_marlin"),
    (GPTQ, "gptq", (0, 6, 6), (9, 0), None),        # forced exllama gptq_gemm
    (GPTQ, "awq_marlin", (0, 6, 6), (9, 0), None),
    (GPTQ, None, (0, 4, 2), (9, 0), None)])
def test_marlin_kernel_choice(stem, flag, release, cc, kernel):
    assert marlin_kernel(config_model(stem), flag, release, cc) == kernel


def test_marlin_kernel_needs_a_marlin_group_size_and_a_quantised_model():
    m = config_model(AWQ)
    assert marlin_kernel(replace(m, quant=replace(m.quant, group_size=256)), None, (0, 6, 6), None) is None
    assert marlin_kernel(replace(m, quant=replace(m.quant, group_size=None)), None, (0, 6, 6), None) == "awq_marlin"
    assert marlin_kernel(llama3_8b(), None, (0, 6, 6), None) is None


@pytest.mark.parametrize("release, engine, held", [
    ((0, 6, 6), "V0", True), ((0, 8, 5), "V0", True), ((0, 9, 0), "V0", False), ((0, 10, 1), "V0", False),
    ((0, 8, 5), "V1", False), ((0, 6, 6), "V1", False)])
def test_a_tmp_held_on_v0_before_0_9(release, engine, held):
    assert MARLIN_A_TMP_BEFORE == (0, 9, 0)
    assert v0_marlin_a_tmp(config_model(AWQ), None, release, engine, (8, 9)) is held


def _phases(model, kept=True, a_tmp=False) -> dict[str, int]:
    est = estimate_profile_peak(model, ParallelSpec(tp=1), tokens=32768, rows=256, act_bytes=2, v0_eager=True,
                                v0_gate_up_kept=kept)
    if a_tmp:
        est = with_v0_marlin_a_tmp(est, model, tp=1, tokens=32768, act_bytes=2, gate_up_kept=kept, out_of_place=False)
        assert est.peak.bytes == max(p.bytes.bytes for p in est.parts)
    return {p.item.removeprefix("profile phase: "): p.bytes.bytes for p in est.parts}


def test_a_tmp_adds_down_projs_input_and_o_projs_input():
    m = config_model(AWQ)
    h, i, t = m.hidden_size, m.intermediate_size, 32768
    q = m.num_attention_heads * m.v_head_dim
    plain, held = _phases(m), _phases(m, a_tmp=True)
    assert plain["dense MLP"] == t * (4 * h + 3 * i) * 2                     # 6.31 GiB, Qwen2MLP keeps gate_up
    assert held["dense MLP"] == t * (4 * h + 4 * i) * 2 == 8 * GIB          # + T × I
    assert held["attention"] - plain["attention"] == t * q * 2
    # gate_up freed (LlamaMLP ≥ 0.6.4): 4H + 2I at down_proj stays under 3H + 3I for a wide MLP
    assert _phases(m, kept=False, a_tmp=True)["dense MLP"] == t * (3 * h + 3 * i) * 2


def test_vp_651_concurrency_with_the_a_tmp():
    """vp_651: 0.6.6.post1 V0, Qwen2.5-32B-Instruct-AWQ (awq_marlin), L40S 44.43 GiB, 0.90, 32,768 tokens, fp8 KV:
    printed activation peak 8.02 GiB and 'Maximum concurrency ... 3.46x'.  Without the temporary tpkit planned a
    6.31 GiB peak and 3.91x (+13.0 %)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validation"))
    import harness

    case = next(c for c in harness.load_cases("vllm") if c["id"] == "vp_651")
    model, gpu, par, opts = harness.inputs(case)
    plan = plan_vllm(model, gpu, par, opts)
    peak = next(li for li in plan.ledger.items if li.item == "activation peak (profile run, estimate)")
    assert peak.bytes.bytes / GIB == pytest.approx(8.02, abs=0.05)
    row = harness.predict(case)
    assert row.predicted == pytest.approx(3.46, rel=0.03) and row.inside
