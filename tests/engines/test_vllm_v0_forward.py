"""V0's eager forward at the MLP / MoE peak (engines/vllm/v0_forward.py): the layer loop holds the layer's input,
and the MLP keeps its gate_up output through ``down_proj`` unless the model file rebinds it (``LlamaMLP`` from
0.6.4; vllm 0.2.4–0.9.1 wheels)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.engines.vllm.v0_forward import LLAMA_MLP_RELEASES_GATE_UP_FROM, v0_mlp_keeps_gate_up
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import A100, H200, GivenWeights, config_model, llama3_8b, qwen25_14b

GIB = 2**30


@pytest.mark.parametrize("arch, release, kept", [
    ("LlamaForCausalLM", (0, 2, 5), True), ("LlamaForCausalLM", (0, 6, 3), True),
    ("LlamaForCausalLM", (0, 6, 4), False), ("LlamaForCausalLM", (0, 9, 1), False),
    ("MistralForCausalLM", (0, 6, 3), True), ("MistralForCausalLM", (0, 6, 4), False),
    ("Phi3ForCausalLM", (0, 8, 2), False), ("MllamaForConditionalGeneration", (0, 7, 0), False),
    ("Qwen2ForCausalLM", (0, 3, 0), True), ("Qwen2ForCausalLM", (0, 6, 4), True),
    ("Qwen2ForCausalLM", (0, 9, 1), True), ("Qwen3ForCausalLM", (0, 8, 5), True),
    ("Gemma2ForCausalLM", (0, 8, 5), True), ("SomeUnreadForCausalLM", (0, 8, 5), True)])
def test_gate_up_kept_by_model_file_and_release(arch, release, kept):
    assert LLAMA_MLP_RELEASES_GATE_UP_FROM == (0, 6, 4)
    assert v0_mlp_keeps_gate_up(replace(llama3_8b(), architecture=arch), release) is kept


def _mlp(model, *, v0_eager, kept=True, tp=1, tokens=8192, oop=False) -> int:
    est = estimate_profile_peak(model, ParallelSpec(tp=tp), tokens=tokens, rows=256, act_bytes=2,
                                v0_eager=v0_eager, v0_gate_up_kept=kept, allreduce_out_of_place=oop)
    return next(p.bytes.bytes for p in est.parts if p.item == "profile phase: dense MLP")


def test_v0_mlp_both_moments():
    m = llama3_8b()
    h, i, t = m.hidden_size, m.intermediate_size, 8192
    assert _mlp(m, v0_eager=False) == t * (3 * h + 3 * i) * 2  # V1: the compiled forward, unchanged
    assert _mlp(m, v0_eager=True, kept=True) == t * (4 * h + 3 * i) * 2
    assert _mlp(m, v0_eager=True, kept=False) == t * (3 * h + 3 * i) * 2  # the activation moment (2I > H)
    # a narrow MLP (I < H/2): with gate_up freed the down_proj moment is the larger, 4H + I
    narrow = replace(m, intermediate_size=1024)
    assert _mlp(narrow, v0_eager=True, kept=False) == t * (4 * h + 1024) * 2
    # tp 2 with the out-of-place copy: at down_proj only
    assert _mlp(m, v0_eager=True, kept=True, tp=2, oop=True) == t * (5 * h + 3 * (i // 2)) * 2
    assert _mlp(m, v0_eager=True, kept=False, tp=2, oop=True) == t * (3 * h + 3 * (i // 2)) * 2
    assert _mlp(m, v0_eager=False, tp=2, oop=True) == t * (4 * h + 3 * (i // 2)) * 2


def test_v0_moe_phase_holds_the_layer_input_attention_unchanged():
    m = config_model("Qwen--Qwen3-235B-A22B-FP8")
    t = 4096

    def phases(v0):
        est = estimate_profile_peak(m, ParallelSpec(tp=4), tokens=t, rows=256, act_bytes=2, v0_eager=v0)
        return {p.item: p.bytes.bytes for p in est.parts}

    v1, v0 = phases(False), phases(True)
    assert v0["profile phase: MoE layer"] - v1["profile phase: MoE layer"] == t * m.hidden_size * 2
    assert v0["profile phase: attention"] == v1["profile phase: attention"]


def _plan_mlp(model, version: str, *, tp: int = 1, max_model_len: int, gpu=H200, dtype=None):
    plan = plan_vllm(model, gpu, ParallelSpec(tp=tp), VllmOptions(engine_version=version, max_model_len=max_model_len,
                                                                   dtype=dtype),
                     weights=GivenWeights(Bytes(15 * GIB)))
    return plan.ledger.get("profile phase: dense MLP").bytes.bytes


def test_llama_boundary_0_6_3_to_0_6_4_and_v1_untouched():
    m = llama3_8b()
    h, i, t = m.hidden_size, m.intermediate_size, 20000
    assert _plan_mlp(m, "0.6.3", max_model_len=t) == t * (4 * h + 3 * i) * 2
    assert _plan_mlp(m, "0.6.4", max_model_len=t) == t * (3 * h + 3 * i) * 2
    # the same release on V1 (compiled, no eager terms) and forced to V0
    q = qwen25_14b()
    qv1 = _plan_mlp(q, "0.8.5", max_model_len=8192)
    qv0 = _plan_mlp(q, "0.8.5:v0", max_model_len=8192)
    assert qv0 - qv1 == 8192 * q.hidden_size * 2


def test_printed_v0_peaks():
    """vp_065 (Qwen2.5-14B fp16, 0.7.2, T 32,768) prints 3.79 GiB of activation peak; case_021 / case_022
    (Llama-3.1-8B, 0.6.4, T 20,000 / 29,000) print 2.07 / 2.99 GiB above the weights (17.06 / 17.98 − 14.99)."""
    q = qwen25_14b()
    assert abs(_plan_mlp(q, "0.7.2", max_model_len=32768, gpu=A100, dtype="float16") / GIB - 3.79) < 0.015
    m = llama3_8b()
    assert abs(_plan_mlp(m, "0.6.4", max_model_len=20000) / GIB - 2.07) < 0.015
    assert abs(_plan_mlp(m, "0.6.4", max_model_len=29000) / GIB - 2.99) < 0.015
