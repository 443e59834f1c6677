"""Granite-4.0-H (``granitemoehybrid``): Mamba-2 layers read from the config, their per-request state and their
weights, checked against what SGLang printed for granite-4.0-h-micro (tests/logs/data/sglang/sg_014.log, SGLang
0.5.x: 'Mamba Cache is allocated. max_mamba_cache_size: 38, conv_state size: 0.03GB, ssm_state size: 2.74GB',
'Load weight end … mem usage=5.98 GB').

The config below is the architecture of ``sglang/srt/configs/granitemoehybrid.py`` (0.5.10 wheel): its defaults are
granite-4.0-h-micro's geometry (40 layers, attention at 6/16/26/36 in 1-based numbering, hidden 2048, 32 heads, 8
KV heads, Mamba-2 64 heads × 64, d_state 128, 1 group, d_conv 4, vocab 100,352, shared MLP 8,192, tied embeddings).
"""

from __future__ import annotations

import pytest

from tpkit.errors import ConfigError
from tpkit.models import from_config_dict
from tpkit.models.params import count_params

ATTENTION = (5, 15, 25, 35)
GRANITE_H = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "vocab_size": 100352,
    "tie_word_embeddings": True, "hidden_size": 2048, "intermediate_size": 8192, "shared_intermediate_size": 8192,
    "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16", "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_d_head": 64,
    "mamba_n_heads": 64, "mamba_n_groups": 1, "mamba_conv_bias": True, "mamba_proj_bias": False,
    "num_local_experts": 0, "num_experts_per_tok": 0,
    "layer_types": ["attention" if i in ATTENTION else "mamba" for i in range(40)],
}
GIB = 2**30


def _spec(**changes):
    return from_config_dict({**GRANITE_H, **changes}, name="granite-4.0-h-micro (architecture)", source="test")


def test_mamba_layers_are_per_request_state_layers_and_attention_layers_hold_the_kv():
    spec = _spec()
    assert [i for i, k in enumerate(spec.kinds) if k == "full"] == list(ATTENTION)
    assert sum(1 for k in spec.kinds if k == "linear") == 36 and spec.moe is None


def test_state_per_request_reproduces_sglangs_printed_mamba_pool():
    state = _spec().linear_attn.state_bytes_per_layer.bytes
    conv, ssm = (4096 + 2 * 128) * 3 * 2, 64 * 64 * 128 * 4
    assert state == conv + ssm
    slots = 38 + 1  # max_mamba_cache_size + the pool's padding slot
    assert round(slots * 36 * ssm / GIB, 2) == 2.74 and round(slots * 36 * conv / GIB, 2) == 0.03


def test_weights_reproduce_sglangs_printed_load_within_its_rounding():
    """3.19 B parameters in bf16 = 5.94 GiB; SGLang's load printed 5.98 GiB, which also holds the load's own
    allocations: inside the ± 1 % band tpkit gives weights derived from a config."""
    params = count_params(_spec())
    assert 3.18e9 < params < 3.20e9
    assert abs(params * 2 / GIB - 5.98) / 5.98 < 0.01


def test_an_inconsistent_mamba_geometry_is_refused_with_the_fields_named():
    with pytest.raises(ConfigError, match="mamba_n_heads × mamba_d_head = 2,048 must equal mamba_expand × "
                                          "hidden_size"):
        _spec(mamba_n_heads=32)
