"""Gemma 4 (``gemma4`` / ``gemma4_text``): per-kind KV shapes, shared-KV layers, MoE block and weights read from
the config (``tpkit.models.gemma4``), hand-computed from vLLM 0.19.0 – 0.29.0 ``models/gemma4.py`` and transformers
5.25 ``configuration_gemma4.py``.

The 26B-A4B config is tests/logs/data/configs/google__gemma-4-26B-A4B-it (public quotes of the published
config.json, its SOURCE.md).  The E-style config below is a small made-up one with the E-models' features
(shared-KV layers, per-layer inputs, double-wide MLP).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.errors import ConfigError
from tpkit.models import from_config_dict
from tpkit.models.params import count_params, global_parts, layer_groups, layer_parts

CONFIG = json.loads((Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "google__gemma-4-26B-A4B-it"
                     / "config.json").read_text())
FULL = (5, 11, 17, 23, 29)


def _spec(**text_changes):
    text = {k: v for k, v in {**CONFIG["text_config"], **text_changes}.items() if v is not None}
    return from_config_dict({**CONFIG, "text_config": text}, name="gemma-4-26B-A4B", source="test")


def _small(**changes):
    """An E-style Gemma 4: 12 layers (full at 5 and 11), the last 4 reuse KV, per-layer inputs, double-wide MLP."""
    text = {"model_type": "gemma4_text", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 12,
            "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 64, "global_head_dim": 128,
            "vocab_size": 1000, "max_position_embeddings": 4096, "sliding_window": 512,
            "layer_types": ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(12)],
            "num_kv_shared_layers": 4, "hidden_size_per_layer_input": 32, "vocab_size_per_layer_input": 1000,
            "use_double_wide_mlp": True}
    text.update(changes)
    text = {k: v for k, v in text.items() if v is not None}
    return from_config_dict({"model_type": "gemma4", "architectures": ["Gemma4ForConditionalGeneration"],
                             "text_config": text}, name="small", source="test")


def test_26b_a4b_reads_sliding_and_full_shapes():
    s = _spec()
    assert (s.model_type, s.architecture, s.is_multimodal) == ("gemma4_text", "Gemma4ForConditionalGeneration", True)
    assert [i for i, k in enumerate(s.kinds) if k == "full"] == list(FULL) and s.sliding_window == 1024
    # sliding layers: head_dim 256 × 8 KV heads; full layers (attention_k_eq_v): global_head_dim 512 × 2 KV heads
    assert (s.kv_head_dim("sliding"), s.kv_heads("sliding")) == (256, 8)
    assert (s.kv_head_dim("full"), s.kv_heads("full")) == (512, 2)
    assert s.per_kind_kv and s.kv_shared_layers == 0 and s.kv_kinds == s.kinds
    assert not any("not one tpkit has rules for" in a for a in s.assumptions)


def test_26b_a4b_moe_block_beside_the_dense_mlp():
    s = _spec()
    assert (s.moe.num_experts, s.moe.experts_per_token, s.moe.moe_intermediate_size) == (128, 8, 704)
    assert len(s.moe.moe_layer_ids) == 30 and s.intermediate_size == 2112 and s.extra["residual_moe"]
    assert _spec(enable_moe_block=False).moe is None  # the expert block exists only with enable_moe_block


def test_26b_a4b_attention_weights_per_kind():
    s = _spec()
    sliding = {p.name.rsplit(".", 1)[-1]: p.out for p in layer_parts(s, 0) if p.category == "attention"}
    full = {p.name.rsplit(".", 1)[-1]: p.out for p in layer_parts(s, 5) if p.category == "attention"}
    assert sliding == {"q_proj": 16 * 256, "k_proj": 8 * 256, "v_proj": 8 * 256, "o_proj": 2816}
    assert full == {"q_proj": 16 * 512, "k_proj": 2 * 512, "v_proj": 2 * 512, "o_proj": 2816}


def test_26b_a4b_parameter_count_is_the_published_25_2_billion():
    assert 25.2e9 < count_params(_spec()) < 25.3e9


def test_k_eq_v_off_keeps_the_kv_heads_on_full_layers():
    s = _spec(attention_k_eq_v=False)
    assert s.full_kv_heads is None and s.kv_heads("full") == 8 and s.kv_head_dim("full") == 512


def test_shared_kv_layers_own_no_kv_cache():
    s = _small()
    assert s.kv_shared_layers == 4 and len(s.kv_kinds) == 8
    assert s.kv_kinds.count("full") == 1 and s.kv_kinds.count("sliding") == 7


def test_double_wide_mlp_on_the_shared_layers_and_per_layer_inputs():
    s = _small()
    width = {i: next(p.out for p in layer_parts(s, i) if p.name.endswith("mlp.gate_proj")) for i in (7, 8, 11)}
    assert width == {7: 512, 8: 1024, 11: 1024}
    assert sum(n for _, n, _ in layer_groups(s, range(12))) == 12 and len(layer_groups(s, range(12))) == 4
    names = {p.name: p for p in global_parts(s)}
    emb = names["model.embed_tokens_per_layer"]
    assert (emb.out, emb.inp) == (1000, 12 * 32)
    assert names["model.per_layer_model_projection"].out == 12 * 32


def test_defaults_of_the_config_class_are_recorded():
    s = _small(layer_types=None, global_head_dim=None, num_kv_shared_layers=None)
    # transformers Gemma4TextConfig: every 6th layer full and the last forced full; global_head_dim 512
    assert [i for i, k in enumerate(s.kinds) if k == "full"] == [5, 11]
    assert s.kv_head_dim("full") == 512
    assert any("layer_types absent" in a for a in s.assumptions)
    assert any("global_head_dim absent" in a for a in s.assumptions)
    t = _small(num_hidden_layers=10, layer_types=None, num_kv_shared_layers=0)
    assert [i for i, k in enumerate(t.kinds) if k == "full"] == [5, 9]


def test_bidirectional_all_halves_the_window():
    assert _small(use_bidirectional_attention="all").sliding_window == 512 // 2 + 1


@pytest.mark.parametrize("change, match", [
    ({"global_head_dim": "512"}, "global_head_dim must be a whole number"),
    ({"attention_k_eq_v": "yes", "num_global_key_value_heads": 1}, "attention_k_eq_v must be true or false"),
    ({"attention_k_eq_v": True, "num_global_key_value_heads": 0}, "num_global_key_value_heads must be a whole"),
    ({"num_kv_shared_layers": 12}, "leaves no layer that owns a KV cache"),
    ({"num_kv_shared_layers": -1}, "num_kv_shared_layers must be a whole number"),
    ({"num_kv_shared_layers": 7}, "full attention but no earlier layer of that type owns a KV cache"),
    ({"per_layer_config": {"5": {"head_dim": 128}}}, "per_layer_config table"),
    ({"layer_types": ["sliding_attention"] * 3 + ["linear_attention"] + ["sliding_attention"] * 7
      + ["full_attention"], "num_kv_shared_layers": 0}, "may only hold"),
])
def test_malformed_gemma4_fields_are_clear_errors(change, match):
    with pytest.raises(ConfigError, match=match):
        _small(**change)


def test_vision_tower_counted_by_hand():
    # 27 layers, d 1152, 16 heads × 72 (16 KV heads), MLP 4304, patch 16, position table 2 × 10240 × d
    attention = 27 * (2 * 16 * 72 * 1152 + 2 * 16 * 72 * 1152)
    mlp = 27 * 3 * 1152 * 4304
    projector = 1152 * 2816
    other = 3 * 16 * 16 * 1152 + 2 * 10240 * 1152 + 27 * (2 * 72 + 4 * 1152) + 2 * 1152
    assert _spec().vision_params == attention + mlp + projector + other == 572_794_416


def test_per_layer_input_weights_in_every_layer():
    names = {p.name.rsplit(".", 1)[-1]: (p.out, p.inp) for p in layer_parts(_small(), 0)}
    assert names["per_layer_input_gate"] == (32, 256) and names["per_layer_projection"] == (256, 32)
    assert "per_layer_input_gate" not in {p.name.rsplit(".", 1)[-1] for p in layer_parts(_spec(), 0)}


def test_attention_k_eq_v_reads_like_every_config_flag():
    # one flag reader (models.fields.optional_bool, merged with config.py's): 0/1 are false/true, as for
    # enable_moe_block; before the merge Gemma 4's own copy refused them (qual3, 2026-12-04)
    assert _small(attention_k_eq_v=1, num_global_key_value_heads=1) == _small(attention_k_eq_v=True,
                                                                              num_global_key_value_heads=1)
    assert _small(attention_k_eq_v=0) == _small(attention_k_eq_v=False)


@pytest.mark.parametrize("key,value", [("vocab_size_per_layer_input", "abc"), ("vocab_size_per_layer_input", 0),
                                       ("hidden_size_per_layer_input", 2.5), ("hidden_size_per_layer_input", True)])
def test_per_layer_input_fields_must_be_whole_numbers(key, value):
    # found by scripts/fuzz_plan.py --seed 5 (case 1533: vocab_size_per_layer_input "abc" raised a bare ValueError
    # in models.params.global_parts); now a ConfigError naming the field and the value
    with pytest.raises(ConfigError, match=rf"{key} must be a whole number.*got {value!r}"):
        _small(**{key: value})
