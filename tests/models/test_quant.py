"""Quantisation configs → QuantSpec, ignore-list matching and bytes of one quantised matrix."""

from __future__ import annotations

import pytest

from tpkit.errors import PlanInputError
from tpkit.models.quant import is_ignored, matrix_bytes, online_quant, parse_quant_config, resolve_quant


def test_fp8_block_config():
    q = parse_quant_config({"quant_method": "fp8", "weight_block_size": [128, 128],
                            "ignored_layers": ["lm_head"], "kv_cache_quant_algo": "FP8"}, where="t")
    assert (q.method, q.weight_bits, q.block_size, q.scale_bytes) == ("fp8", 8, (128, 128), 4)
    assert q.kv_cache_fp8 and q.ignored == ("lm_head",)
    # 300×256 fp8 values + ceil(300/128)·ceil(256/128) = 3·2 fp32 scales
    assert matrix_bytes(300, 256, q) == 300 * 256 + 6 * 4


def test_mxfp4_one_e8m0_byte_per_32():
    q = parse_quant_config({"quant_method": "mxfp4", "modules_to_not_convert": ["lm_head"]}, where="t")
    assert q.scope == "experts_only" and q.kv_cache_fp8 is False
    assert matrix_bytes(2880, 2880, q) == 2880 * 2880 // 2 + 2880 * (2880 // 32)


def test_compressed_tensors_int4_group32_bf16_scales():
    q = parse_quant_config({"quant_method": "compressed-tensors", "format": "pack-quantized",
                            "config_groups": {"g": {"weights": {"num_bits": 4, "type": "int", "symmetric": True,
                                                                "group_size": 32}}},
                            "ignore": ["lm_head", "re:.*self_attn.*"]}, where="t")
    assert (q.method, q.group_size, q.scale_bytes, q.has_zero_point) == ("int4", 32, 2, False)
    assert matrix_bytes(2048, 7168, q) == 2048 * 7168 // 2 + 2048 * (7168 // 32) * 2
    assert is_ignored("model.layers.3.self_attn.q_b_proj", q)
    assert not is_ignored("model.layers.3.mlp.experts.gate_proj", q)


@pytest.mark.parametrize("method, g_idx", [("awq", 0), ("gptq", 4096 * 4)])
def test_awq_gptq_scales_zeros_and_gidx(method, g_idx):
    q = parse_quant_config({"quant_method": method, "bits": 4, "group_size": 128}, where="t")
    groups = 4096 * (4096 // 128)
    assert matrix_bytes(4096, 4096, q) == 4096 * 4096 // 2 + groups * 2 + groups // 2 + g_idx


def test_fbgemm_fp8_rowwise_mlp_only():
    q = parse_quant_config({"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
                            "modules_to_not_convert": ["lm_head", "model.layers.0.mlp"]}, where="t")
    assert q.scope == "mlp_only" and matrix_bytes(10, 20, q) == 200 + 10 * 4
    assert is_ignored("model.layers.0.mlp.down_proj", q) and not is_ignored("model.layers.10.mlp.down_proj", q)


def test_glob_patterns_match_like_hf():
    q = parse_quant_config({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]},
                           where="t")
    assert is_ignored("model.layers.7.self_attn.q_proj", q)
    assert not is_ignored("model.layers.7.mlp.experts.gate_proj", q)


def test_online_fp8_and_flag_rules():
    q = resolve_quant(None, "fp8")
    assert q.method == "fp8" and q.block_size is None and "lm_head" in q.ignored
    assert resolve_quant(None, None) is None and resolve_quant(None, "auto") is None
    ckpt = parse_quant_config({"quant_method": "fp8", "weight_block_size": [128, 128]}, where="t")
    assert resolve_quant(ckpt, "fp8") is ckpt
    with pytest.raises(PlanInputError, match="conflicts"):
        resolve_quant(ckpt, "awq")
    with pytest.raises(PlanInputError, match="not known"):
        resolve_quant(None, "int3-magic")
    with pytest.raises(PlanInputError):
        online_quant("awq")


def test_awq_flag_on_config_without_quantization_config_assumes_awq_defaults():
    q = resolve_quant(None, "awq_marlin")
    assert (q.method, q.group_size, q.has_zero_point, q.raw_method) == ("int4", 128, True, "awq")


def test_malformed_quant_numbers_are_config_errors_and_minus_one_is_per_channel():
    """int("4-bit") raised a bare ValueError; a compressed-tensors group_size of -1 became a negative group."""
    from tpkit.errors import ConfigError
    from tpkit.models.quant import parse_quant_config

    with pytest.raises(ConfigError, match="bits must be a whole number"):
        parse_quant_config({"quant_method": "awq", "bits": "4-bit"}, where="c.json")
    with pytest.raises(ConfigError, match="num_bits"):
        parse_quant_config({"quant_method": "compressed-tensors",
                            "config_groups": {"g": {"weights": {"num_bits": "four"}}}}, where="c.json")
    spec = parse_quant_config({"quant_method": "compressed-tensors",
                               "config_groups": {"g": {"weights": {"num_bits": 8, "group_size": -1}}}}, where="c.json")
    assert spec.group_size is None and spec.weight_bits == 8
    assert parse_quant_config({"quant_method": "gptq", "bits": 4, "group_size": -1}, where="c").group_size is None


# ModelOpt (sglang 0.5.10 layers/quantization/modelopt_quant.py: from_config + create_weights), both config forms
_NVFP4_FLAT = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": ["lm_head"],
               "kv_cache_scheme": {"num_bits": 8, "type": "float", "dynamic": False}}
_FP8_NESTED = {"quant_method": "modelopt", "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8",
                                                            "exclude_modules": ["lm_head"]}}


def test_modelopt_nvfp4_packs_two_values_per_byte_and_an_fp8_scale_per_16():
    q = parse_quant_config(_NVFP4_FLAT, where="t")
    assert (q.method, q.weight_bits, q.group_size, q.scale_bytes, q.raw_method) == ("fp4", 4, 16, 1, "modelopt")
    assert matrix_bytes(4096, 14336, q) == 4096 * 14336 // 2 + 4096 * (14336 // 16)
    assert q.ignored == ("lm_head",) and q.kv_cache_scheme == "fp8" and q.kv_cache_fp8


def test_modelopt_fp8_nested_form_is_one_fp8_byte_per_weight_with_per_tensor_scales():
    q = parse_quant_config(_FP8_NESTED, where="t")
    assert (q.method, q.weight_bits, q.scale_bytes) == ("fp8", 8, 0)
    assert matrix_bytes(4096, 4096, q) == 4096 * 4096
    assert q.kv_cache_scheme == "fp8" and q.kv_cache_fp8 and is_ignored("lm_head", q)


@pytest.mark.parametrize("kv, scheme", [({"num_bits": 4, "type": "float"}, "nvfp4"), ("NVFP4", "nvfp4"),
                                        ({"num_bits": 8, "type": "float", "dynamic": True}, "fp8_dynamic"),
                                        ({"num_bits": 8, "type": "int"}, None), (None, None)])
def test_modelopt_kv_scheme_is_read_from_an_object_or_a_name(kv, scheme):
    q = parse_quant_config({**_NVFP4_FLAT, "kv_cache_scheme": kv}, where="t")
    assert q.kv_cache_scheme == scheme
    assert q.kv_cache_fp8 == (scheme in ("fp8", "fp8_dynamic"))  # SGLang: any float 8-bit scheme object is FP8


def test_compressed_tensors_nvfp4_keeps_fp8_group_scales():
    """sglang 0.5.10 compressed_tensors_w4a4_nvfp4.py: weight_scale is float8_e4m3fn per 16 inputs."""
    q = parse_quant_config({"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {
        "num_bits": 4, "type": "float", "group_size": 16}}}}, where="t")
    assert (q.method, q.scale_bytes) == ("fp4", 1)
    assert matrix_bytes(256, 512, q) == 256 * 512 // 2 + 256 * 32


@pytest.mark.parametrize("qc, match", [
    ({"quant_method": "modelopt"}, "needs 'quant_algo'"),
    ({"quant_method": "modelopt", "quant_algo": "NVFP4"}, "needs group_size"),
    ({"quant_method": "modelopt", "quant_algo": "W4A8_AWQ"}, "quant_algo 'W4A8_AWQ' is not modelled"),
])
def test_modelopt_configs_tpkit_cannot_size_get_a_clear_error(qc, match):
    from tpkit.errors import ConfigError

    with pytest.raises(ConfigError, match=match):
        parse_quant_config(qc, where="config.json")


def test_ignore_list_of_a_multimodal_wrapper_names_the_text_layers_with_its_prefix():
    """A Gemma 4 / Qwen-VL style checkpoint spells the text layers ``model.language_model.layers.N…`` (transformers
    ≥ 4.52) or ``language_model.model.layers.N…``; vLLM maps those onto its modules before matching (0.29.0
    ``CompressedTensorsConfig.apply_vllm_mapper``), so tpkit's ``model.layers.N…`` parts take the same entries
    (helper gem4, 2026-12-04)."""
    qc = {"quant_method": "compressed-tensors",
          "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float"}}},
          "ignore": ["model.language_model.layers.0.mlp.down_proj", "language_model.model.layers.1.self_attn.q_proj",
                     r"re:model\.language_model\.layers\.2\..*", "language_model.lm_head"]}
    q = parse_quant_config(qc, where="t")
    assert is_ignored("model.layers.0.mlp.down_proj", q) and is_ignored("model.layers.1.self_attn.q_proj", q)
    assert is_ignored("model.layers.2.mlp.up_proj", q) and is_ignored("lm_head", q)
    assert not is_ignored("model.layers.3.mlp.down_proj", q) and not is_ignored("model.layers.1.self_attn.k_proj", q)
    # a text-only list matches as before
    text = parse_quant_config({**qc, "ignore": ["lm_head", "re:.*router.*", "model.layers.0.mlp.down_proj"]}, where="t")
    assert is_ignored("model.layers.0.mlp.down_proj", text) and not is_ignored("model.layers.1.mlp.down_proj", text)


def test_bitsandbytes_in_flight_is_nf4_with_a_compressed_absmax_per_64():
    """vLLM's in-flight bitsandbytes (0.5.4 / 0.8.2 / 0.8.5 ``loader.py``, 0.14.1 / 0.27.1 ``bitsandbytes_loader.py``:
    ``quantize_4bit(compress_statistics=True, quant_type="nf4")`` on every LinearBase weight): the same bytes in
    every release read, so one rule; embedding and lm_head stay unquantised."""
    from tpkit.models.quant import bnb_online

    q = resolve_quant(None, "bitsandbytes")
    assert q == bnb_online() and q.raw_method.startswith("bitsandbytes")
    assert is_ignored("lm_head", q) and is_ignored("model.embed_tokens", q)
    assert not is_ignored("model.layers.0.mlp.down_proj", q)
    # phi-4 gate_up: 35,840 × 5,120 → packed halves + one uint8 absmax per 64 + one fp32 per 256 absmax
    n = 35840 * 5120
    assert matrix_bytes(35840, 5120, q) == n // 2 + n // 64 + -(-(n // 64) // 256) * 4
    # blocks run over the flattened tensor: a row length that is no multiple of 64 shares blocks across rows
    assert matrix_bytes(3, 100, q) == 150 + 5 + 4


def test_bitsandbytes_on_a_checkpoint_quantised_otherwise_or_on_moe_experts_is_refused():
    from tpkit.models.quant import check_quant_engine

    awq = parse_quant_config({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, where="t")
    with pytest.raises(PlanInputError, match="conflicts"):
        resolve_quant(awq, "bitsandbytes")

    class _Moe:
        name, moe = "some-moe", object()

    with pytest.raises(PlanInputError, match="mixture-of-experts"):
        check_quant_engine(_Moe(), resolve_quant(None, "bitsandbytes"))


def test_bitsandbytes_is_refused_under_sglang_whose_loader_picks_weights_by_name():
    from tpkit.models.quant import check_quant_engine

    class _Dense:
        name, moe = "dense", None

    q = resolve_quant(None, "bitsandbytes")
    check_quant_engine(_Dense(), q, "vllm")
    with pytest.raises(PlanInputError, match="vLLM only"):
        check_quant_engine(_Dense(), q, "sglang")


def test_deepseek_v4_fp8_is_a_vllm_method_name_and_refused_for_sglang():
    """vLLM's ``--quantization deepseek_v4_fp8`` plans DeepSeek-V4's stored FP8 / FP4 mix; SGLang has no such choice."""
    from tpkit.models.quant import check_quant_engine

    q = resolve_quant(None, "deepseek_v4_fp8")
    check_quant_engine(object(), q, "vllm")
    with pytest.raises(PlanInputError, match="SGLang has no such --quantization choice"):
        check_quant_engine(object(), q, "sglang")
