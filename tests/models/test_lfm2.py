"""LFM2 (``lfm2``, ``Lfm2ForCausalLM``): gated short-convolution layers read from the config, their per-request
conv state, their weights and the FFN width rule, checked against what SGLang printed for LiquidAI/LFM2-700M
(tests/logs/data/sglang/sg_015.log: 'Load weight end. … mem usage=1.52 GB', 'Mamba Cache is allocated.
max_mamba_cache_size: 85292, conv_state size: 4.88GB, ssm_state size: 0.00GB', 'KV Cache is allocated. #tokens:
473854, K size: 2.71 GB'; SGLang's GB are GiB).

The config is tests/logs/data/configs/LiquidAI__LFM2-700M (public quotes of the published config.json, its
SOURCE.md).  Rules: sglang 0.5.9 – 0.5.23 ``configs/lfm2.py`` / ``models/lfm2.py``, vLLM 0.14.1 / 0.29.0
``models/lfm2.py``, transformers 5.x ``models/lfm2``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.sglang.mamba import plan_mamba_pool
from tpkit.engines.sglang.load import loads_untied_lm_head
from tpkit.engines.vllm import layer_bytes as vllm_layer_bytes
from tpkit.errors import ConfigError, PlanInputError
from tpkit.models import from_config_dict
from tpkit.models.params import count_params, layer_parts
from tpkit.units import Bytes

CONFIG = json.loads((Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "LiquidAI__LFM2-700M"
                     / "config.json").read_text())
ATTENTION = (2, 5, 8, 10, 12, 14)
GIB = 2**30


def _spec(**changes):
    cfg = {k: v for k, v in {**CONFIG, **changes}.items() if v is not None}
    return from_config_dict(cfg, name="LFM2-700M", source="test")


def test_conv_layers_are_per_request_state_layers_in_both_spellings():
    old = _spec()
    assert [i for i, k in enumerate(old.kinds) if k == "full"] == list(ATTENTION)
    assert old.num_linear_layers == 10 and old.head_dim == 64 and old.extra["qk_norm"]
    types = ["full_attention" if i in ATTENTION else "conv" for i in range(16)]
    assert _spec(full_attn_idxs=None, layer_types=types).kinds == old.kinds
    assert set(_spec(full_attn_idxs=None).kinds) == {"full"}  # transformers: neither key → every layer attends
    with pytest.raises(ConfigError, match="full_attn_idxs must be a list of whole numbers from 0 to 15"):
        _spec(full_attn_idxs=[2, 16])


def test_ffn_width_follows_block_auto_adjust_ff_dim():
    """Lfm2MLP: int(2·I/3), × block_ffn_dim_multiplier, up to a multiple of block_multiple_of; block_ff_dim wins
    over intermediate_size; off → I as written; a null multiplier skips the rounding."""
    assert _spec().intermediate_size == 6912  # int(2 × 10240 / 3) = 6826 → 27 × 256
    assert _spec(intermediate_size=4, block_ff_dim=10240).intermediate_size == 6912
    assert _spec(block_auto_adjust_ff_dim=False).intermediate_size == 10240
    cfg = dict(CONFIG)
    cfg.pop("block_ffn_dim_multiplier")
    assert from_config_dict(cfg, name="x", source="t").intermediate_size == 6912  # default multiplier 1.0
    cfg["block_ffn_dim_multiplier"] = None
    assert from_config_dict(cfg, name="x", source="t").intermediate_size == 6826
    assert _spec(block_ffn_dim_multiplier=1.5).intermediate_size == 10240  # int(1.5 × 6826) = 10239 → 40 × 256
    with pytest.raises(ConfigError, match="intermediate_size \\(or block_ff_dim\\)"):
        _spec(block_ff_dim=None)


def test_tie_embedding_spelling_wins_and_the_default_ties():
    assert _spec().tie_word_embeddings
    assert not _spec(tie_embedding=False).tie_word_embeddings
    assert _spec(tie_word_embeddings=None).tie_word_embeddings  # Lfm2Config default


def test_state_per_request_reproduces_sglangs_printed_conv_pool():
    state = _spec().linear_attn.state_bytes_per_layer.bytes
    assert state == 1536 * (3 - 1) * 2  # hidden × (conv_L_cache − 1) in bf16, no SSM state
    slots = 85_292 + 1  # max_mamba_cache_size + the pool's padding slot
    assert round(slots * 10 * state / GIB, 2) == 4.88


def test_kv_cell_reproduces_sglangs_printed_k_size():
    spec = _spec()
    k_per_token = 6 * spec.num_kv_heads * spec.head_dim * 2
    assert round(473_854 * k_per_token / GIB, 2) == 2.71


def test_short_conv_weights_and_conv_bias():
    spec = _spec()
    conv = {p.name.rsplit(".", 1)[-1]: p.elements for p in layer_parts(spec, 0) if p.category == "linear_attention"}
    assert conv == {"in_proj": 3 * 1536 * 1536, "conv": 1536 * 3, "out_proj": 1536 * 1536}
    biased = [p for p in layer_parts(_spec(conv_bias=True), 0) if p.name.endswith(".bias")]
    assert sum(p.elements for p in biased) == 3 * 1536 + 1536 + 1536


def test_weights_against_sglangs_printed_load():
    """742,489,344 parameters (tied embeddings) = 1.383 GiB in bf16.  SGLang (every release that ships LFM2) holds its
    own lm_head, + 65,536 × 1,536 × 2 B: 1.570 GiB.  The log (a PR build of 2025-12-29, before 0.5.9) printed 1.52 GiB,
    between the two: the gap (−3.2 % of SGLang 0.5.9+'s layout) is left open, not fitted."""
    spec = _spec()
    params = count_params(spec)
    assert params == 742_489_344
    tied, untied = params * 2 / GIB, (params + 65_536 * 1_536) * 2 / GIB
    assert loads_untied_lm_head(spec, "0.5.10") and loads_untied_lm_head(spec, "0.5.23")
    assert round(tied, 3) == 1.383 and round(untied, 3) == 1.570
    assert tied < 1.52 < untied


def test_sglang_serves_lfm2_from_0_5_9():
    spec = _spec()
    with pytest.raises(PlanInputError, match="SGLang 0.5.8 does not serve LFM2.*first ship in 0.5.9"):
        plan_mamba_pool(spec, 1, 10, Bytes(10 * GIB), "0.5.8")
    pool = plan_mamba_pool(spec, 1, 10, Bytes(10 * GIB), "0.5.9")
    assert pool.per_slot.bytes == 10 * 6144 and pool.ratio == 3


def test_vllm_short_conv_state_in_the_model_dtype_split_over_tp():
    """vLLM: (conv_L_cache − 1) × conv_dim/tp in the model dtype; the config's conv_dim where it writes one."""
    spec = _spec()
    assert vllm_layer_bytes.short_conv_state_bytes(spec, 1, 2) == 2 * 1536 * 2
    assert vllm_layer_bytes.short_conv_state_bytes(spec, 2, 2) == 2 * 768 * 2
    assert vllm_layer_bytes.short_conv_state_bytes(_spec(conv_dim=1024), 1, 4) == 2 * 1024 * 4


def test_lfm2_and_granite_h_are_known_model_types():
    """Both have their own layer rules now: no 'planned as a standard decoder' assumption."""
    assert not any("not one tpkit has rules for" in a for a in _spec().assumptions)
    granite = json.loads((Path(__file__).resolve().parents[1] / "logs" / "data" / "configs"
                          / "ibm-granite__granite-4.0-h-micro" / "config.json").read_text())
    spec = from_config_dict(granite, name="granite-4.0-h-micro", source="test")
    assert not any("not one tpkit has rules for" in a for a in spec.assumptions)
    assert spec.num_linear_layers == 36 and spec.intermediate_size == 8192
