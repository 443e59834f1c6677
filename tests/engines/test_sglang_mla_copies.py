"""Helper gx32 (session 32). SGLang's MLA post-load step: ``w_kc`` / ``w_vc``, copies of ``kv_b_proj`` made inside
the 'Load weight' window and kept next to it from 0.4.1; bf16 on CUDA for a 128 × 128 block-fp8 ``kv_b_proj`` from
0.4.6.post3, per-tensor fp8 on ROCm; split over the attention-TP size (``engines/sglang/mla_copies.py``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sglang_fixtures import deepseek_v3
from tpkit.engines.sglang import SglangOptions
from tpkit.engines.sglang.load import load_usage
from tpkit.engines.sglang.mla_copies import copy_element_bytes, mla_weight_copies
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.spec import MlaSpec, ModelSpec, QuantSpec
from tpkit.parallel import ParallelSpec

V3_LAYER = 128 * 256 * 512
"""elements of one DeepSeek-V3 layer's kv_b_proj (128 heads × (128 + 128) × 512)"""


def _v2_lite(**changes) -> ModelSpec:
    """DeepSeek-V2-Lite: 27 layers, 16 heads, MLA 512 + 64 (no q_lora), bf16."""
    fields = dict(name="deepseek-v2-lite", source="test", architecture="DeepseekV2ForCausalLM",
                  model_type="deepseek_v2", hidden_size=2048, intermediate_size=10944, num_layers=27,
                  num_attention_heads=16, num_kv_heads=16, head_dim=192, v_head_dim=128, vocab_size=102400,
                  max_position_embeddings=163840,
                  mla=MlaSpec(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128,
                              q_lora_rank=None))
    fields.update(changes)
    return ModelSpec(**fields)


def _copies(model, version, vendor="NVIDIA", **par):
    return mla_weight_copies(model, ParallelSpec(**par), version=version, vendor=vendor)[0].bytes


@pytest.mark.parametrize("version, kept", [("0.3.6.post3", False), ("0.4.0", False), ("0.4.1", True),
                                           ("0.5.23", True)])
def test_kv_b_proj_is_deleted_up_to_0_4_0_and_kept_from_0_4_1(version, kept):
    assert (_copies(deepseek_v3(), version, vendor="AMD", tp=8) > 0) is kept


@pytest.mark.parametrize("version, size", [("0.4.6.post2", 1), ("0.4.6.post3", 2), ("0.5.23", 2)])
def test_block_fp8_on_cuda_is_dequantised_to_bf16_from_0_4_6_post3(version, size):
    assert copy_element_bytes(version, vendor="NVIDIA", state="fp8", block=(128, 128)).element_bytes == size
    assert copy_element_bytes(version, vendor="AMD", state="fp8", block=(128, 128)).element_bytes == 1
    assert copy_element_bytes(version, vendor="NVIDIA", state="fp8", block=(64, 64)).element_bytes == 1


@pytest.mark.parametrize("version, size", [("0.4.9.post1", 1), ("0.4.9.post2", 2)])
def test_the_bf16_default_dtype_gate_goes_in_0_4_9_post2(version, size):
    rule = copy_element_bytes(version, vendor="NVIDIA", state="fp8", block=(128, 128), act_bf16=False)
    assert rule.element_bytes == size


@pytest.mark.parametrize("version, size", [("0.4.3.post2", 1), ("0.4.3.post3", 2)])
def test_int8_is_dequantised_to_bf16_from_0_4_3_post3(version, size):
    assert copy_element_bytes(version, vendor="NVIDIA", state="int8").element_bytes == size


def test_other_states():
    assert copy_element_bytes("0.5.9", vendor="NVIDIA", state="fp8").element_bytes == 1  # per channel / tensor
    assert copy_element_bytes("0.5.9", vendor="AMD", state="unquantised", act_bytes=2).element_bytes == 2
    assert copy_element_bytes("0.5.9", vendor="NVIDIA", state="awq", act_bytes=2).element_bytes == 2


def test_deepseek_v3_bytes_by_platform_and_attention_tp():
    amd_tp8 = _copies(deepseek_v3(), "0.5.6", vendor="AMD", tp=8)
    assert amd_tp8 == 61 * V3_LAYER // 8  # fp8, 1 B
    assert _copies(deepseek_v3(), "0.5.6", vendor="NVIDIA", tp=8) == 2 * amd_tp8  # bf16
    # DP attention: kv_b_proj is split over tp / dp, so dp 8 inside tp 8 holds every head
    assert _copies(deepseek_v3(), "0.5.3.post3", vendor="AMD", tp=8, dp=8, dp_attention=True) == 61 * V3_LAYER
    assert _copies(deepseek_v3(), "0.5.3.post3", vendor="AMD", tp=8, dp=2, dp_attention=True) == 61 * V3_LAYER // 4


def test_pipeline_stage_counts_its_own_layers():
    from tpkit.engines.sglang.load import planned_weights
    from tpkit.models.layout import stage_layers

    model, par = deepseek_v3(), ParallelSpec(tp=8, pp=2)
    per_layer = 2 * V3_LAYER // 8
    weights = planned_weights(model, par, SglangOptions(engine_version="0.5.9"))
    staged = mla_weight_copies(model, par, version="0.5.9", vendor="NVIDIA", weights=weights)[0].bytes
    assert staged == per_layer * len(stage_layers(61, 2, weights.stage, weights.pp_split))
    assert _copies(model, "0.5.9", tp=8, pp=2) == per_layer * len(stage_layers(61, 2, 0, "sglang"))  # no plan: stage 0


def test_unquantised_and_online_fp8_copy_in_the_model_dtype():
    lite = _v2_lite()
    per_layer = 16 * 256 * 512 * 2 // 2  # tp 2, bf16
    assert _copies(lite, "0.5.15", tp=2) == 27 * per_layer
    online = mla_weight_copies(lite, ParallelSpec(tp=2), version="0.5.15", vendor="AMD", quantization="fp8")[0]
    assert online.bytes == 27 * per_layer  # --quantization fp8 quantises after the post-load step


def test_one_head_per_rank_keeps_only_the_k_half_of_an_unconverted_weight():
    lite = _v2_lite()
    assert _copies(lite, "0.5.15", tp=16) == 27 * 128 * 512 * 2
    # a converted w (block fp8 → bf16 on CUDA) stays alive whole behind the w_vc view
    fp8 = _v2_lite(quant=QuantSpec(method="fp8", weight_bits=8, block_size=(128, 128), scale_bytes=4))
    assert _copies(fp8, "0.5.15", tp=16) == 27 * (128 + 256) * 512 * 2


def test_kv_b_proj_left_unquantised_copies_in_the_model_dtype():
    ignored = deepseek_v3(quant=QuantSpec(method="fp8", weight_bits=8, block_size=(128, 128), scale_bytes=4,
                                          ignored=("kv_b_proj",)))
    assert _copies(ignored, "0.5.6", vendor="AMD", tp=8) == 2 * 61 * V3_LAYER // 8


def test_other_architectures_and_non_mla_models_get_nothing():
    assert _copies(deepseek_v3(architecture="MiniCPM3ForCausalLM"), "0.5.9", tp=8) == 0
    assert _copies(replace(_v2_lite(), mla=None), "0.5.9", tp=1) == 0


def test_load_usage_carries_the_copies():
    gpu, par, opts = lookup_gpu("MI300X"), ParallelSpec(tp=8, dp=8, dp_attention=True), SglangOptions(
        engine_version="0.5.3.post3")
    with_copies, _, source = load_usage(deepseek_v3(), par, opts, gpu=gpu)
    other = deepseek_v3(architecture="MiniCPM3ForCausalLM")  # the same tensors, a class without this step
    without, _, _ = load_usage(other, par, opts, gpu=gpu)
    assert "MLA w_kc / w_vc" in source
    assert (with_copies - without).bytes == 61 * V3_LAYER  # gs_620's 0.99 GiB gap: 0.95 GiB of it


# DP attention: what DeepSeek's model keeps whole beyond tpkit's attention-TP split (engines/sglang/dp_replicated.py)

def _dp_extra(version, **par):
    from tpkit.engines.sglang.dp_replicated import dp_attention_replicated
    from tpkit.engines.sglang.load import planned_weights

    model, parallel = deepseek_v3(), ParallelSpec(**par)
    weights = planned_weights(model, parallel, SglangOptions(engine_version=version))
    return dp_attention_replicated(model, parallel, version=version, weights=weights)[0].bytes


V3_EMBED = 129280 * 7168 * 2


@pytest.mark.parametrize("version, whole", [("0.5.7", True), ("0.5.8", False), ("0.5.23", False)])
def test_embedding_is_whole_under_dp_attention_up_to_0_5_7(version, whole):
    extra = _dp_extra(version, tp=8, dp=2, dp_attention=True)  # attention TP 4
    assert extra == (V3_EMBED - V3_EMBED // 4 if whole else 0)


def test_dp_equal_to_tp_needs_nothing_from_0_4_5():
    assert _dp_extra("0.5.6", tp=8, dp=8, dp_attention=True) == 0
    assert _dp_extra("0.5.6", tp=8) == 0  # no DP attention


@pytest.mark.parametrize("version, replicated", [("0.4.4", True), ("0.4.5", False)])
def test_lm_head_is_a_replicated_linear_up_to_0_4_4(version, replicated):
    extra = _dp_extra(version, tp=8, dp=8, dp_attention=True)
    assert extra == (V3_EMBED - 16160 * 7168 * 2 if replicated else 0)  # planned: 16,160 padded rows per rank


@pytest.mark.parametrize("version, converted", [("0.4.5", False), ("0.4.6", True), ("0.4.6.post1", True)])
def test_per_channel_fp8_is_a_converted_copy_from_0_4_6(version, converted):
    """``channel_quant_to_tensor_quant`` from 0.4.6: the per-channel / per-tensor fp8 ``w`` is a converted copy (what a
    one-head rank keeps whole) — both sides of the boundary (helper rev32: only 0.5.9 was tested)."""
    rule = copy_element_bytes(version, vendor="NVIDIA", state="fp8")
    assert rule.element_bytes == 1 and rule.converted is converted
