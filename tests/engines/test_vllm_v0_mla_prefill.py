"""The V0 MLA prefill's own tensors in the profile's attention phase (vLLM 0.7.1–0.8.4,
``engines/vllm/mla.py mla_v0_attention_width``) and a later pipeline stage's received intermediate tensors (V0
0.7.1–0.10.2, ``engines/vllm/v0_forward.py v0_pp_holds_received``); helper mla15, 2026-12-05."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.mla import mla_v0_attention_width
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.engines.vllm.v0_forward import v0_pp_holds_received, with_phase_additions
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation/configs"


def _spec(name: str):
    path = CONFIGS / name
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source=str(path))


# DeepSeek-V2.5 at tp 8: 16 heads, q_lora 1,536, kv_lora 512, rope 64, nope 128, v 128, hidden 5,120.  Beyond the
# generic MLA count (q 3,072, kv_a 576, kv_b output 4,096, attention output 2,048 = 9,792): q_a and its norm, the two
# kv_c copies, k and v_padded
V25_07 = 2 * 1536 + 2 * 512 + 2 * 16 * 192  # 10,240: 20,032 in all
V25_08 = V25_07 + 5120  # + the (T, H) output buffer MLACommonImpl.forward fills from 0.8.0


@pytest.mark.parametrize("release, engine, width", [
    ((0, 7, 0), "V0", None),  # no MLA backend yet
    ((0, 7, 1), "V0", V25_07), ((0, 7, 3), "V0", V25_07),
    ((0, 8, 0), "V0", V25_08), ((0, 8, 4), "V0", V25_08),
    ((0, 8, 5), "V0", None),  # _flash_attn_varlen_diff_headdims: not counted
    ((0, 8, 3), "V1", None),
])
def test_width_by_release(release, engine, width):
    got = mla_v0_attention_width(_spec("deepseek-ai--DeepSeek-V2.5.json"), ParallelSpec(tp=8), release,
                                 engine=engine)
    assert (got[0] if got else None) == width


def test_width_without_q_lora_and_off_for_a_non_fp8_quantisation_before_0_7_3():
    """DeepSeek-Coder-V2-Lite has no q_lora (q_proj reads the hidden states: no q_a tensors); 0.7.1–0.7.2 turn MLA
    off under a quantisation other than fp8, 0.7.3 keeps it on."""
    lite = _spec("deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct.json")
    tp1 = ParallelSpec(tp=1)
    width = 2 * 512 + 2 * 16 * 192
    assert mla_v0_attention_width(lite, tp1, (0, 7, 2), engine="V0")[0] == width
    assert mla_v0_attention_width(lite, tp1, (0, 7, 2), engine="V0", quantization="fp8")[0] == width
    assert mla_v0_attention_width(lite, tp1, (0, 7, 2), engine="V0", quantization="awq") is None
    assert mla_v0_attention_width(lite, tp1, (0, 7, 3), engine="V0", quantization="awq")[0] == width
    assert mla_v0_attention_width(_spec("meta-llama--Llama-3.1-8B-Instruct.json"), tp1, (0, 8, 3),
                                  engine="V0") is None


@pytest.mark.parametrize("pp, release, engine, held", [
    (2, (0, 7, 0), "V0", False), (2, (0, 7, 1), "V0", True), (2, (0, 10, 2), "V0", True),
    (2, (0, 11, 0), "V0", False), (1, (0, 8, 3), "V0", False), (2, (0, 8, 3), "V1", False),
])
def test_pp_received_by_release(pp, release, engine, held):
    assert v0_pp_holds_received(pp=pp, release=release, engine=engine) is held


def test_phase_additions_add_to_the_named_phases_and_retake_the_peak():
    llama = _spec("meta-llama--Llama-3.1-8B-Instruct.json")
    act = estimate_profile_peak(llama, ParallelSpec(tp=2, pp=2), tokens=4096, rows=256, act_bytes=2, v0_eager=True)
    th = 4096 * 4096 * 2
    big = act.peak.bytes
    out = with_phase_additions(act, {"attention": (th, " + x"), "logits + sampler": (big, " + y"), "nope": (1, "")})
    got = {a.item: b.bytes.bytes - a.bytes.bytes for a, b in zip(act.parts, out.parts)}
    assert got == {"profile phase: attention": th, "profile phase: dense MLP": 0, "profile phase: logits + sampler": big}
    assert out.limiting_phase == "logits + sampler"
    assert out.peak.bytes == next(p.bytes.bytes for p in out.parts if p.item.endswith("logits + sampler"))


def _vp_323(version: str):
    """vp_323's inputs (vllm 0.8.3 V0, DeepSeek-V2.5, A100-SXM-40GB tp 8 × pp 2, 8,192 tokens, prefix caching on)."""
    opts = VllmOptions(engine_version=version, gpu_memory_utilization=0.9, max_model_len=8192,
                       max_num_batched_tokens=8192, enforce_eager=True, enable_prefix_caching=True)
    return plan_vllm(_spec("deepseek-ai--DeepSeek-V2.5.json"), lookup_gpu("A100-SXM-40GB"), ParallelSpec(tp=8, pp=2),
                     opts, search_fixes=False)


def _phase(plan, name: str) -> float:
    return next(i.bytes for i in plan.ledger.items if i.item == f"profile phase: {name}").gib


def test_vp_323_printed_peaks():
    """The log prints the peak of two workers: 1.27 GiB on the driver (stage 0) and 1.35 GiB on a stage-1 worker
    (pid 627).  The composite plan is stage 1's (1.345 GiB, the attention phase); less the received hidden states
    (T × H × 2 B) it is stage 0's (1.267 GiB).  Before this rule the attention phase was 1.03 GiB and the sampler
    (1.08 GiB) limited the plan."""
    plan = _vp_323("0.8.3")
    attention = _phase(plan, "attention")
    assert attention == pytest.approx(1.35, abs=0.01)
    assert attention - 8192 * 5120 * 2 / 2**30 == pytest.approx(1.27, abs=0.01)
    assert attention == max(_phase(plan, p) for p in ("attention", "dense MLP", "MoE layer", "logits + sampler"))
    # 0.8.5 keeps the generic MLA widths (not read for this rule); the received hidden states apply to both
    assert attention - _phase(_vp_323("0.8.5"), "attention") == pytest.approx(V25_08 * 8192 * 2 / 2**30)
