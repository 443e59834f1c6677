"""Rotary caches of every module, not one: SGLang's pre-expansion walks all rotary modules (Gemma-3 two caches from
0.5.10), and Gemma 4's per-layer-type ``rope_parameters`` give one cache per layer type in both engines.

Hand-computed from the wheels: SGLang ``reserve_rope_cache_for_long_sequences`` (0.5.10 / 0.5.20
``srt/utils/common.py``: a recursive walk over ``model.children()``), ``models/gemma4_causal.py`` (0.5.11, 0.5.23),
``Gemma4RotaryEmbedding`` (head-wide cache); vLLM 0.19.0 / 0.27.1 ``models/gemma4.py``, ``gemma4_rope.py``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tpkit.engines.rotary import per_layer_type_ropes
from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.load import rotary_cache_bytes as sg_bytes
from tpkit.engines.sglang.rope import rope_reserve, rotary_modules
from tpkit.engines.vllm.policy import rotary_cache_bytes as vl_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.catalog import find_entry
from tpkit.models.config import from_config_dict
from tpkit.models.config_file import read_config_file
from tpkit.units import Bytes, MiB

ROOT = Path(__file__).resolve().parents[2]
GEMMA4 = from_config_dict(read_config_file(ROOT / "tests/logs/data/configs/google__gemma-4-26B-A4B-it/config.json"),
                          name="google/gemma-4-26B-A4B-it", source="test")
GEMMA3 = from_config_dict(find_entry("google/gemma-3-27b-it").config, name="g3", source="catalog")
# Gemma-3-27B: 131,072 positions, head_dim 128 → two float32 caches of 64 MiB (each its own segment)


def test_gemma4_layer_type_ropes_in_layer_order():
    ropes = per_layer_type_ropes(GEMMA4)
    assert [(r.layer_type, r.head_size, r.width) for r in ropes] == [
        ("sliding_attention", 256, 256),   # default rope, factor 1
        ("full_attention", 512, 512),      # proportional: head-wide cache although partial_rotary_factor 0.25
    ]


def test_flat_rope_config_has_no_layer_types():
    assert per_layer_type_ropes(GEMMA3) == ()


def test_vllm_gemma4_two_caches_model_dtype():
    # 262,144 × 256 × 2 B (sliding) + 262,144 × 512 × 2 B (full) = 128 + 256 MiB
    for version in ("0.19.0", "0.27.1"):
        assert vl_bytes(GEMMA4, 2, version) == MiB(384)


def test_sglang_gemma4_two_float32_caches():
    gpu = lookup_gpu("H100")
    for version in ("0.5.11", "0.5.23"):
        b, how = sg_bytes(GEMMA4, gpu, SglangOptions(engine_version=version))
        assert b == MiB(768), how  # 262,144 × (256 + 512) × 4 B
    assert [m.dim for m in rotary_modules(GEMMA4, "0.5.11")] == [256, 512]


def test_sglang_gemma4_reserve_grows_both_caches():
    r = rope_reserve(GEMMA4, "0.5.11")
    # ceil_128(262,144 + 256) = 262,400 rows; new 262,400 × 256 × 4 = 256.25 MiB → 258 MiB segment, then
    # 262,400 × 512 × 4 = 512.5 MiB → 514 MiB (the freed 256 MiB sliding segment is too small for it);
    # both old caches' own segments (256 + 512 MiB) come back: 258 + 514 − 768 = 4 MiB
    assert r.rows == 262_400 and r.tensor == Bytes(262_400 * 768 * 4)
    assert r.high == MiB(4)


def test_sglang_gemma3_reserve_charges_both_caches_from_0_5_10():
    assert rope_reserve(GEMMA3, "0.5.9") is None  # no get_rope cache before 0.5.10: nothing to grow
    r = rope_reserve(GEMMA3, "0.5.10")
    # ceil_128(131,072 + 256) = 131,328 rows × 128 × 4 B = 64.125 MiB → a 66 MiB segment each (the first old
    # 64 MiB segment, freed, cannot hold the second); both old segments return: 66 + 66 − 64 − 64 = 4 MiB
    assert r.rows == 131_328 and r.tensor == Bytes(2 * 131_328 * 128 * 4)
    assert r.high == MiB(4)  # one cache charged only 2 MiB before


def test_two_small_caches_share_one_20_mib_segment():
    small = replace(GEMMA3, max_position_embeddings=8_192)
    r = rope_reserve(small, "0.5.10")
    # 8,448 rows × 128 × 4 = 4.125 MiB each: the first takes a 20 MiB segment, the second fits its 15.875 MiB rest
    assert r.rows == 8_448 and r.high == MiB(20)
    assert rope_reserve(small, "0.5.5") is None  # no pre-expansion before 0.5.6


def test_one_module_model_unchanged():
    qwen = from_config_dict({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2048,
                             "intermediate_size": 6144, "num_hidden_layers": 4, "num_attention_heads": 16,
                             "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 1000,
                             "max_position_embeddings": 40_960, "torch_dtype": "bfloat16"}, name="q", source="t")
    assert len(rotary_modules(qwen, "0.5.10")) == 1
    assert rope_reserve(qwen, "0.5.10").high == MiB(2)  # 20.125 MiB → 22 MiB less the old 20 MiB segment
