"""GPT-2 (``GPT2LMHeadModel``) and OPT (``OPTForCausalLM``) configs: their own key names mapped onto the standard
fields (``models.classic.classic_spellings``), and the weight layout vLLM builds for them (``models.classic
.CLASSIC_MODEL_TYPES``: vLLM 0.10.1.1 ``models/gpt2.py`` / ``models/opt.py``); Phi-3-mini (``Phi3ForCausalLM``, the
Llama layout).  Checked against what vLLM printed: tests/logs/data/vllm/vl_137.log (microsoft/DialoGPT-small, a
GPT-2 small: 'Model loading took 0.2319 GiB', 'Available KV cache memory: 5.71 GiB', 'GPU KV cache size: 166,160
tokens') and vl_138.log (Phi-3-mini-4k-instruct, fp16: 7.12 GiB, 13.06 GiB, 35,648 tokens).  Configs:
tests/logs/data/configs/{openai-community__gpt2, facebook__opt-125m, microsoft__Phi-3-mini-4k-instruct} (SOURCE.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tpkit.engines.vllm.rotary import rotary_caches
from tpkit.errors import ConfigError
from tpkit.models import from_config_dict
from tpkit.models.params import count_params, global_parts, layer_parts

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tests" / "logs" / "data" / "configs"
GIB = 2**30


def _cfg(name: str) -> dict:
    return json.loads((CONFIGS / name / "config.json").read_text())


def _spec(name: str, **changes):
    cfg = {k: v for k, v in {**_cfg(name), **changes}.items() if v is not None}
    return from_config_dict(cfg, name=name, source="test")


def _kv_bytes_per_token(spec, elem: int = 2) -> int:
    return 2 * spec.num_layers * spec.num_kv_heads * spec.head_dim * elem


def _tokens(available_gib: float, per_token: int, block: int = 16) -> int:
    """Whole 16-token blocks in ``available_gib`` (vLLM: num_blocks = available // page bytes)."""
    return int(available_gib * GIB // (per_token * block)) * block


def test_gpt2_keys_map_to_the_standard_fields():
    spec = _spec("openai-community__gpt2")
    assert (spec.hidden_size, spec.num_layers, spec.num_attention_heads, spec.max_position_embeddings) == \
        (768, 12, 12, 1024)
    # multi-head attention: vLLM GPT2Attention total_num_heads = n_head, head_dim = n_embd / n_head
    assert (spec.num_kv_heads, spec.head_dim) == (12, 64)
    assert spec.intermediate_size == 4 * 768  # n_inner absent → 4·n_embd
    assert spec.tie_word_embeddings and spec.architecture == "GPT2LMHeadModel"
    assert not any("not one tpkit has rules for" in a or "num_key_value_heads" in a for a in spec.assumptions)


def test_gpt2_n_inner_wins_and_a_missing_key_is_named_in_gpt2_spelling():
    assert _spec("openai-community__gpt2", n_inner=1000).intermediate_size == 1000
    with pytest.raises(ConfigError, match="'n_embd'"):
        _spec("openai-community__gpt2", n_embd=None)


def test_gpt2_kv_cell_reproduces_vl_137():
    spec = _spec("openai-community__gpt2")
    per_token = _kv_bytes_per_token(spec)  # bf16 (vLLM downcasts the float32 checkpoint)
    assert per_token == 36_864
    # 'Available KV cache memory: 5.71 GiB' (2-decimal) → 'GPU KV cache size: 166,160 tokens' (16-token blocks)
    assert _tokens(5.705, per_token) <= 166_160 <= _tokens(5.715, per_token)


def test_gpt2_weights_reproduce_vl_137_load():
    """124,439,808 parameters (the published GPT-2 small count); vLLM pads the tied vocab to 64 (50,304 rows):
    0.2319 GiB in bf16 as printed."""
    spec = _spec("openai-community__gpt2")
    assert count_params(spec) == 124_439_808
    padded = count_params(spec) + (50_304 - 50_257) * 768
    assert round(padded * 2 / GIB, 4) == 0.2319
    names = {p.name for p in global_parts(spec)}
    assert "model.embed_positions" in names and "lm_head" not in names  # wpe; lm_head tied to wte
    mlp = {p.name.rsplit(".", 1)[-1] if not p.name.endswith(".bias") else p.name.rsplit(".", 2)[-2] + ".bias"
           for p in layer_parts(spec, 0) if p.category == "dense_mlp"}
    assert mlp == {"fc1", "fc2", "fc1.bias", "fc2.bias"}  # c_fc / c_proj, no gate


def test_opt_125m_keys_and_weights():
    spec = _spec("facebook__opt-125m")
    assert (spec.intermediate_size, spec.num_kv_heads, spec.head_dim, spec.torch_dtype) == (3072, 12, 64, "float16")
    assert _kv_bytes_per_token(spec) == 36_864
    assert count_params(spec) == 125_239_296  # the published OPT-125m count (positions 2,048 + 2 offset rows)


def test_opt_350m_projection_and_post_norm_layout():
    """OPT-350m: word_embed_proj_dim 512 ≠ hidden 1024 (project_in / project_out, embeddings of 512) and
    do_layer_norm_before false (no final LayerNorm): 331,196,416 parameters, the published count."""
    spec = _spec("facebook__opt-125m", hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                 ffn_dim=4096, word_embed_proj_dim=512, do_layer_norm_before=False)
    names = {p.name for p in global_parts(spec)}
    assert {"model.project_in", "model.project_out"} <= names and "model.norm" not in names
    assert count_params(spec) == 331_196_416


def test_opt_enable_bias_false_drops_the_biases():
    biased = _spec("facebook__opt-125m")
    plain = _spec("facebook__opt-125m", enable_bias=False)
    per_layer = sum(p.elements for p in layer_parts(biased, 0)) - sum(p.elements for p in layer_parts(plain, 0))
    assert per_layer == 4 * 768 + 3072 + 768  # q/k/v/o biases + fc1 + fc2


def test_learned_positions_build_no_rotary_cache():
    assert rotary_caches(_spec("openai-community__gpt2"), 2) == ()
    assert rotary_caches(_spec("microsoft__Phi-3-mini-4k-instruct"), 2) != ()


def test_phi3_mini_reproduces_vl_138():
    spec = _spec("microsoft__Phi-3-mini-4k-instruct")
    per_token = _kv_bytes_per_token(spec)  # fp16 (--dtype float16)
    assert (spec.num_kv_heads, spec.head_dim, per_token) == (32, 96, 393_216)
    assert _tokens(13.055, per_token) <= 35_648 <= _tokens(13.065, per_token)
    assert count_params(spec) == 3_821_079_552 and round(count_params(spec) * 2 / GIB, 2) == 7.12


def test_cli_plans_a_gpt2_config():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-m", "tpkit", "plan", "--engine", "vllm", "--gpu", "RTX-4090",
                          str(CONFIGS / "openai-community__gpt2" / "config.json")],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "36,864 B/token" in out.stdout
