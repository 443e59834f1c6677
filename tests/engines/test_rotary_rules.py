"""Rotary cos/sin cache rows, width and element size per engine and release (helper vrp, 2026-12-04): hand-computed
figures on both sides of each version boundary read in the wheels (see ``tpkit.engines.vllm.rotary`` and
``tpkit.engines.rotary``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tpkit.engines.rotary import rotary_dim
from tpkit.engines.sglang.rope import cache_positions
from tpkit.engines.vllm.policy import rotary_cache_bytes
from tpkit.engines.vllm.rotary import mrope_positions_factor, rotary_cache_positions
from tpkit.models.catalog import find_entry
from tpkit.models.config import from_config_dict

BASE = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048,
        "intermediate_size": 6144, "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 4,
        "head_dim": 128, "vocab_size": 1000, "max_position_embeddings": 40_960, "torch_dtype": "bfloat16"}


def _model(**fields):
    cfg = dict(BASE, **fields)
    return from_config_dict(cfg, name="t", source="test")


def _catalog(name):
    e = find_entry(name)
    return from_config_dict(e.config, name=name, source="catalog")


# --- width ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fields, dim", [
    ({}, 128),
    ({"partial_rotary_factor": 0.5}, 64),
    ({"rotary_pct": 0.25}, 32),                       # GPT-NeoX spelling (patch_rope_parameters)
    ({"rotary_emb_fraction": 0.5}, 64),
    ({"rope_pct": 0.25}, 32),                         # StableLM ≤ 0.12
    ({"rotary_dim": 64}, 64),                         # GPT-J / MiniMax: the config's width
    ({"rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25}}, 32),
    ({"model_type": "glm4_moe"}, 64),                 # GLM-4: 0.5 when the config has none
    ({"model_type": "glm4_moe", "partial_rotary_factor": 1.0}, 128),
])
def test_rotary_dim(fields, dim):
    assert rotary_dim(_model(**fields)) == dim


@pytest.mark.parametrize("version", [None, "0.5.4", "0.8.5", "0.12.0", "0.13.0", "0.33"])
def test_vllm_cache_width_follows_partial_rotary_factor(version):
    nxt = _catalog("Qwen/Qwen3-Next-80B-A3B-Instruct")  # head_dim 256 × 0.25, 262,144 positions
    assert rotary_cache_bytes(nxt, 2, version).bytes == 262_144 * 64 * 2
    glm = _catalog("zai-org/GLM-4.5")  # head_dim 128 × 0.5, 131,072 positions
    assert rotary_cache_bytes(glm, 2, version).bytes == 131_072 * 64 * 2


def test_mla_width_is_qk_rope_head_dim():
    ds = _catalog("deepseek-ai/DeepSeek-V3")  # yarn 4,096 × 40 rows × 64
    assert rotary_cache_bytes(ds, 2, "0.10.2").bytes == 163_840 * 64 * 2


# --- vLLM rows -----------------------------------------------------------------------------------------------

def test_linear_scales_max_position_in_every_release():
    m = _model(rope_scaling={"rope_type": "linear", "factor": 4.0})
    for release in [(0, 5, 4), (0, 21, 0), (0, 33, 0)]:
        assert rotary_cache_positions(m, release)[0] == 163_840


def test_dynamic_scales_up_to_0_21_then_keeps_max_position():
    m = _model(rope_scaling={"rope_type": "dynamic", "factor": 2.0})
    assert rotary_cache_positions(m, (0, 21, 0))[0] == 81_920
    assert rotary_cache_positions(m, (0, 22, 0))[0] == 40_960
    alpha = _model(rope_scaling={"rope_type": "dynamic", "alpha": 1000.0})
    assert rotary_cache_positions(alpha, (0, 21, 0))[0] == 40_960


def test_llama3_keeps_max_position():
    m = _catalog("meta-llama/Llama-3.1-8B-Instruct")
    assert rotary_cache_positions(m, (0, 10, 2))[0] == rotary_cache_positions(m, (0, 33, 0))[0] == 131_072


def test_mrope_times_four_from_0_7_2():
    m = _model(rope_scaling={"rope_type": "default", "mrope_section": [16, 24, 24]})
    assert rotary_cache_positions(m, (0, 7, 1))[0] == 40_960
    assert rotary_cache_positions(m, (0, 7, 2))[0] == 163_840
    assert rotary_cache_positions(m, (0, 33, 0))[0] == 163_840  # qwen3 decoder: positions_factor default 4


def test_qwen3_vl_family_positions_factor_one_from_0_32():
    m = replace(_model(rope_scaling={"rope_type": "default", "mrope_section": [24, 20, 20]}),
                model_type="qwen3_vl_text")
    assert mrope_positions_factor(m, (0, 31, 0)) == 4
    assert mrope_positions_factor(m, (0, 32, 0)) == 1
    assert rotary_cache_positions(m, (0, 31, 0))[0] == 163_840
    assert rotary_cache_positions(m, (0, 32, 0))[0] == 40_960


def test_rope_parameters_spelling_is_read():
    m = _model(rope_parameters={"rope_type": "default", "mrope_section": [16, 24, 24], "rope_theta": 1e6})
    assert rotary_cache_positions(m, (0, 20, 0))[0] == 163_840


def test_yarn_with_mrope_section_plain_yarn_to_0_10_then_mrotary():
    m = _model(rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32_768,
                             "mrope_section": [16, 24, 24]})
    assert rotary_cache_positions(m, (0, 10, 2))[0] == 131_072          # 32,768 × 4
    assert rotary_cache_positions(m, (0, 11, 0))[0] == 524_288          # 4 × 32,768 × 4


def test_longrope_three_buffers_to_0_6_then_one():
    m = _model(max_position_embeddings=131_072, original_max_position_embeddings=4_096,
               rope_scaling={"type": "longrope", "short_factor": [1.0], "long_factor": [1.0]})
    assert rotary_cache_positions(m, (0, 6, 6))[0] == 2 * (4_096 + 131_072)
    assert rotary_cache_positions(m, (0, 7, 0))[0] == 4_096 + 131_072


def test_gemma3_global_linear_cache_and_local_cache():
    g = _catalog("google/gemma-3-27b-it")  # 131,072 positions, head_dim 128, linear × 8 on global layers
    assert rotary_cache_bytes(g, 2, "0.10.2").bytes == (131_072 * 8 + 131_072) * 128 * 2


# --- vLLM element size ---------------------------------------------------------------------------------------

def test_deepseek_scaling_float32_under_eager_from_0_14():
    ds = _catalog("deepseek-ai/DeepSeek-V3")
    rows = 163_840 * 64
    assert rotary_cache_bytes(ds, 2, "0.13.0", enforce_eager=True).bytes == rows * 2
    assert rotary_cache_bytes(ds, 2, "0.14.0", enforce_eager=True).bytes == rows * 4
    assert rotary_cache_bytes(ds, 2, "0.33", enforce_eager=False).bytes == rows * 2   # inductor: op off
    assert rotary_cache_bytes(ds, 2, "0.33", enforce_eager=True, cuda=False).bytes == rows * 2


def test_gpt_oss_float32_everywhere():
    g = _catalog("openai/gpt-oss-20b")  # yarn 4,096 × 32 rows × 64
    assert rotary_cache_bytes(g, 2, "0.10.2").bytes == rotary_cache_bytes(g, 2, "0.33").bytes == 131_072 * 64 * 4


# --- SGLang rows ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["0.4.1", "0.4.2", "0.5.9", "0.5.23"])
def test_sglang_linear_and_dynamic_scale_max_position(version):
    lin = _model(rope_scaling={"rope_type": "linear", "factor": 4.0})
    dyn = _model(rope_scaling={"rope_type": "dynamic", "factor": 2.0})
    assert cache_positions(lin, version)[0] == 163_840
    assert cache_positions(dyn, version)[0] == 81_920


@pytest.mark.parametrize("version", ["0.4.1", "0.4.2", "0.5.23"])
def test_sglang_longrope_three_buffers(version):
    m = _model(max_position_embeddings=131_072, original_max_position_embeddings=4_096,
               rope_scaling={"type": "longrope", "short_factor": [1.0], "long_factor": [1.0]})
    assert cache_positions(m, version)[0] == 2 * (4_096 + 131_072)


def test_sglang_mrope_keeps_max_position():
    m = _model(rope_scaling={"rope_type": "default", "mrope_section": [16, 24, 24]})
    assert cache_positions(m, "0.5.23")[0] == 40_960


def test_sglang_gemma3_no_cache_before_0_5_10_then_two_default_caches():
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.engines.sglang.load import rotary_cache_bytes as sg_bytes
    from tpkit.hardware.catalog import lookup_gpu

    g = _catalog("google/gemma-3-27b-it")
    gpu = lookup_gpu("H100")
    assert sg_bytes(g, gpu, SglangOptions(engine_version="0.5.9"))[0].bytes == 0
    assert sg_bytes(g, gpu, SglangOptions(engine_version="0.5.10"))[0].bytes == 2 * 131_072 * 128 * 4
