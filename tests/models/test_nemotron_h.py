"""NemotronH (``nemotron_h``): layer kinds from ``hybrid_override_pattern``, the Mamba-2 state, vLLM's temporal-state
dtype per release and the dense layer weights, checked on NVIDIA-Nemotron-3-Nano-4B (tests/logs/data/configs, whose
SOURCE.md cites the public sources) against what vLLM 0.13.0 printed for it (tests/logs/data/vllm/vl_343.log:
'Setting attention block size to 992 tokens', 'Padding mamba page size by 0.35%', 'Add 3 padding layers, may waste
at most 14.29% KV cache memory', 'GPU KV cache size: 208,320 tokens' from 'Available KV cache memory: 11.15 GiB').
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.sglang.pool import stage_layer_kinds as sglang_stage_kinds
from tpkit.engines.vllm import resolve_rules
from tpkit.engines.vllm.layer_bytes import nemotron_h_state_bytes, ssm_state_bytes
from tpkit.engines.vllm.pages import build_layout, stage_layer_kinds
from tpkit.errors import ConfigError
from tpkit.models import from_config_dict
from tpkit.models.params import count_params, layer_parts
from tpkit.parallel import ParallelSpec

CONFIG = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / \
    "nvidia__NVIDIA-Nemotron-3-Nano-4B-FP8" / "config.json"
RAW = json.loads(CONFIG.read_text(encoding="utf-8"))


def _model(**over):
    return from_config_dict({**RAW, **over}, name="nemotron-3-nano-4b", source="test")


def test_pattern_gives_mamba_attention_and_cacheless_layers():
    m = _model()
    assert (m.kinds.count("linear"), m.kinds.count("full"), m.kinds.count("none")) == (21, 4, 17)
    assert [i for i, k in enumerate(m.kinds) if k == "full"] == [12, 17, 24, 32]
    assert not m.assumptions  # a known model type: no "planned as a standard decoder" note
    # vLLM and SGLang give the MLP layers no cache: only the 25 mixers are counted
    assert len(stage_layer_kinds(m, 1)) == len(sglang_stage_kinds(m, 1)) == 25


@pytest.mark.parametrize("pattern, match", [("M*", "one character per layer"),
                                            ("X" * 42, "unknown characters")])
def test_bad_pattern_is_refused(pattern, match):
    with pytest.raises(ConfigError, match=match):
        _model(hybrid_override_pattern=pattern)


def test_state_dims_and_sglang_state():
    m = _model()
    # conv (96·80 + 2·8·128) × 3 bf16 + temporal 96 × 80 × 128 fp32 (SGLang's default)
    assert m.linear_attn.state_bytes_per_layer.bytes == 9_728 * 3 * 2 + 96 * 80 * 128 * 4


@pytest.mark.parametrize("version, config_dtype, temporal", [
    ("0.12.0", None, 2),          # no NemotronHForCausalLMConfig: the conv (model) dtype
    ("0.12.0", "float32", 2),     # … the config's key is not read yet
    ("0.13.0", None, 2),          # float16 default
    ("0.13.0", "float32", 4),     # the config's mamba_ssm_cache_dtype wins
    ("0.19.0", None, 2),
    ("0.20.0", None, 4),          # float32 default
    ("0.20.0", "float16", 2),
])
def test_vllm_temporal_dtype_per_release(version, config_dtype, temporal):
    m = _model(**({"mamba_ssm_cache_dtype": config_dtype} if config_dtype else {}))
    assert ssm_state_bytes(m, resolve_rules(version), 2) == temporal


def test_vllm_state_replicates_groups_when_tp_does_not_divide_them():
    m = _model()
    assert nemotron_h_state_bytes(m, 2, 2, 2) == 3 * (9_728 // 2) * 2 + 48 * 80 * 128 * 2
    # tp 3: 8 groups → 3 (extra_groups_for_head_shards), conv_dim 7,680 + 2·3·128 = 8,448
    assert nemotron_h_state_bytes(m, 3, 2, 2) == 3 * (8_448 // 3) * 2 + 32 * 80 * 128 * 2


def test_vl_343_page_lines_and_capacity():
    rules = resolve_rules("0.13.0")
    layout = build_layout(_model(), ParallelSpec(), block_size=16, era=rules.era, dtype_bytes=1,
                          dtype_name="fp8_e4m3", rules=rules)
    assert layout.block_size == 992 and layout.group_size == 4 and layout.padding_layers == 3
    assert any("Add 3 padding layers, may waste at most 14.29%" in w for w in layout.warnings)
    assert len(layout.groups) == 7  # 1 attention group + 6 mamba groups of 4 (21 layers + 3 padding)
    blocks = int(11.15 * 2**30) // layout.bytes_per_block.bytes  # one block in each of the 4 shared tensors
    assert blocks // len(layout.groups) * 992 == 208_320


def test_dense_layer_weights_and_total():
    m = _model()
    mlp = [p.name for p in layer_parts(m, 1)]  # "-": up/down only (relu², no gate)
    assert mlp == ["model.layers.1.mixer.up_proj", "model.layers.1.mixer.down_proj", "model.layers.1.norm"]
    mamba = [p.name for p in layer_parts(m, 0)]
    assert "model.layers.0.mixer.in_proj" in mamba and not any("up_proj" in n for n in mamba)
    attn = [p.name for p in layer_parts(m, 12)]
    assert any(n.endswith("q_proj") for n in attn) and not any("up_proj" in n for n in attn)
    # the model card's 3.97B parameters
    assert count_params(m) == 3_973_556_832


def test_moe_layer_without_moe_fields_is_refused():  # MoE layers proper: tests/models/test_nemotron_h_moe.py
    m = _model()
    moe_like = replace(m, model_type="nemotron_h")
    with pytest.raises(ConfigError, match="MoE"):
        from tpkit.models.params import _nemotron_h_layer
        _nemotron_h_layer(moe_like, "model.layers.1", "none", True)
