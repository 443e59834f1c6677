"""vLLM --kv-cache-dtype per release (engines/vllm/kvdtype.py, helper kvd; facts read in the 0.18.0, 0.19.0,
0.20.0, 0.25.0, 0.28.0 and 0.29.0 wheels): accepted values on both sides of each boundary, the nvfp4 packed layout,
and a clear error (never the model dtype) for a value tpkit does not model."""

from dataclasses import replace

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.kvdtype import (NVFP4_BYTES_PER_ELEMENT, accepted_values, checkpoint_kv_dtype, kv_dtype,
                                      nvfp4_head_bytes)
from tpkit.errors import PlanInputError
from tpkit.models.quant import parse_quant_config
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))


def _quant(qc: dict):
    return parse_quant_config(qc, where="test config.json")


def _plan(**kw):
    return plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(**kw), weights=W)


def test_nvfp4_packs_half_a_byte_of_data_and_a_sixteenth_of_scales_per_element():
    assert nvfp4_head_bytes(128) == 64 + 8 and nvfp4_head_bytes(256) == 144
    assert NVFP4_BYTES_PER_ELEMENT == 0.5625 and nvfp4_head_bytes(256) == 256 * NVFP4_BYTES_PER_ELEMENT


@pytest.mark.parametrize("value,before,since", [("nvfp4", (0, 19, 0), (0, 20, 0)),
                                                ("nvfp4_4over6", (0, 25, 0), (0, 28, 0))])
def test_nvfp4_values_are_accepted_from_the_release_that_added_them(value, before, since):
    assert value not in accepted_values(before) and value in accepted_values(since)
    with pytest.raises(PlanInputError, match=rf"not accepted by vLLM.*arrived in {since[0]}\.{since[1]}\.0"):
        kv_dtype(value, before)
    assert kv_dtype(value, since).layout == "nvfp4"


def test_turboquant_values_are_refused_not_planned_as_bf16():
    """(the per-token-head values are planned since helper kvd23: tests/engines/test_vllm_per_token_head.py)"""
    for value in ("turboquant_k8v4", "turboquant_4bit_nc", "turboquant_3bit_nc"):
        with pytest.raises(PlanInputError, match="does not model its KV layout"):
            kv_dtype(value, (0, 29, 0))
    with pytest.raises(PlanInputError, match="turboquant_k8v4.*does not model"):
        _plan(kv_cache_dtype="turboquant_k8v4")


def test_unknown_values_and_wrong_attention_kinds_are_user_errors():
    with pytest.raises(PlanInputError, match="'int3' is not a value vLLM accepts"):
        kv_dtype("int3")
    with pytest.raises(PlanInputError, match="no nvfp4 layout for MLA"):
        kv_dtype("nvfp4", (0, 29, 0), mla=True)
    with pytest.raises(PlanInputError, match="MLA models only"):
        kv_dtype("fp8_ds_mla", (0, 29, 0))
    assert kv_dtype("fp8_ds_mla", (0, 18, 0), mla=True).layout == "ds_mla"


def test_plan_sizes_an_nvfp4_page_from_the_packed_head_vector():
    """Llama-3-8B: 32 layers × 8 KV heads × 2 (K, V) × 72 B (head_dim 128: 64 B of fp4 data + 8 B of scales) →
    36,864 B a token (bf16: 131,072)."""
    bf16, fp4 = _plan(block_size=16), _plan(kv_cache_dtype="nvfp4", block_size=16)  # 0.34's default is 64
    assert bf16.extra["bytes_per_block"] == 16 * 32 * 8 * 2 * 128 * 2
    assert fp4.extra["bytes_per_block"] == 16 * 32 * 8 * 2 * (64 + 8)
    assert fp4.extra["kv_blocks"] > 3 * bf16.extra["kv_blocks"]


def test_plan_refuses_nvfp4_before_the_release_that_accepts_it():
    assert _plan(kv_cache_dtype="nvfp4", engine_version="0.20.0").extra["bytes_per_block"] == 16 * 32 * 8 * 2 * 72
    with pytest.raises(PlanInputError, match="nvfp4 is not accepted by vLLM 0.19"):
        _plan(kv_cache_dtype="nvfp4", engine_version="0.19.0")


def test_fp8_kv_is_one_byte_and_an_explicit_bf16_is_named_bf16():
    assert _plan(kv_cache_dtype="fp8").extra["bytes_per_block"] == 64 * 32 * 8 * 2 * 128  # block 64 from 0.34.0
    assert _plan(kv_cache_dtype="fp8", engine_version="0.33").extra["bytes_per_block"] == 16 * 32 * 8 * 2 * 128
    assert kv_dtype("bfloat16").element_dtype == "bfloat16" and kv_dtype("fp8_inc").element_bytes == 1


def test_a_modelopt_checkpoint_kv_scheme_sets_auto_from_0_14_and_nvfp4_from_0_20():
    """resolve_kv_cache_dtype_string: absent in 0.11.0, present in 0.14.0; the nvfp4 mapping arrives in 0.20.0."""
    fp8 = _quant({"quant_method": "modelopt", "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}})
    fp4 = _quant({"quant_method": "modelopt_fp4", "quant_algo": "NVFP4", "group_size": 16,
                  "kv_cache_scheme": {"num_bits": 4, "type": "float"}})
    assert checkpoint_kv_dtype(fp8, (0, 11, 0)) is None and checkpoint_kv_dtype(fp8, (0, 14, 0)) == "fp8_e4m3"
    assert checkpoint_kv_dtype(fp4, (0, 19, 0)) is None and checkpoint_kv_dtype(fp4, (0, 20, 0)) == "nvfp4"
    static8 = _quant({"quant_method": "modelopt", "quant_algo": "FP8",
                      "kv_cache_scheme": {"num_bits": 8, "type": "float", "dynamic": False}})
    assert checkpoint_kv_dtype(static8, (0, 29, 0)) == "fp8_e4m3"
    dynamic8 = _quant({"quant_method": "modelopt", "quant_algo": "FP8",
                       "kv_cache_scheme": {"num_bits": 8, "type": "float", "dynamic": True}})
    assert checkpoint_kv_dtype(dynamic8, (0, 29, 0)) is None  # vLLM takes static scales only
    # only modelopt is read: a compressed-tensors kv_cache_scheme leaves auto as the model dtype
    ct = _quant({"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float"},
                 "config_groups": {"g": {"weights": {"num_bits": 8, "type": "float"}}}})
    assert checkpoint_kv_dtype(ct, (0, 29, 0)) is None and checkpoint_kv_dtype(None, (0, 29, 0)) is None


@pytest.mark.parametrize("version, element_bytes", [("0.11", 2), ("0.14", 1)])
def test_plan_of_a_modelopt_fp8_checkpoint_with_auto_uses_its_kv_scheme_from_0_14(version, element_bytes):
    model = replace(llama3_8b(), quant=_quant({"quant_method": "modelopt", "quantization": {
        "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}))
    plan = plan_vllm(model, H200, ParallelSpec(), VllmOptions(engine_version=version), weights=W)
    assert plan.extra["bytes_per_block"] == 16 * 32 * 8 * 128 * 2 * element_bytes
    noted = any("ModelOpt checkpoint's KV scheme" in w for w in plan.warnings)
    assert noted == (element_bytes == 1)
    explicit = plan_vllm(model, H200, ParallelSpec(), VllmOptions(engine_version=version,
                                                                   kv_cache_dtype="bfloat16"), weights=W)
    assert explicit.extra["bytes_per_block"] == 16 * 32 * 8 * 128 * 2 * 2  # an explicit flag wins
