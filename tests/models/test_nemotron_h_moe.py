"""NemotronH MoE ("E") layers: SGLang 0.5.6 – 0.5.13 / vLLM 0.12.0 ``models/nemotron_h.py`` ``NemotronHMoE`` — a
replicated router with an fp32 score-correction bias, non-gated routed experts (``is_gated=False`` /
``is_act_and_mul=False``: up_proj and down_proj, relu²) and a non-gated shared MLP of
``moe_shared_expert_intermediate_size × n_shared_experts``; a latent MoE (``moe_latent_size``) stays refused.
Checked on NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (tests/validation/configs, verbatim per its source; gs_489 / gs_490)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.errors import ConfigError
from tpkit.models import from_config_dict
from tpkit.models.params import count_params, layer_parts

CONFIG = Path(__file__).resolve().parents[1] / "validation" / "configs" / \
    "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json"
RAW = json.loads(CONFIG.read_text(encoding="utf-8"))


def _model(**over):
    return from_config_dict({**RAW, **over}, name="nemotron-3-nano-30b-a3b", source="test")


def test_only_the_e_layers_hold_experts():
    m = _model()
    assert m.moe.moe_layer_ids == tuple(i for i, c in enumerate(RAW["hybrid_override_pattern"]) if c == "E")
    assert len(m.moe.moe_layer_ids) == 23
    assert m.moe.shared_intermediate_size == 3712 * 1  # moe_shared_expert_intermediate_size x n_shared_experts


def test_e_layer_parts_are_non_gated():
    parts = {p.name: p for p in layer_parts(_model(), 1)}  # pattern[1] == "E"
    assert sorted(parts) == sorted(f"model.layers.1.{n}" for n in (
        "mixer.gate", "mixer.gate.e_score_correction_bias", "mixer.experts.up_proj", "mixer.experts.down_proj",
        "mixer.shared_experts.up_proj", "mixer.shared_experts.down_proj", "norm"))
    up = parts["model.layers.1.mixer.experts.up_proj"]
    assert (up.out, up.inp, up.count, up.shard) == (1856, 2688, 128, "ecol")
    assert parts["model.layers.1.mixer.shared_experts.up_proj"].out == 3712
    assert not any("gate_proj" in n for n in parts)


def test_mamba_and_attention_layers_hold_no_experts():
    m = _model()
    assert not any("experts" in p.name for p in layer_parts(m, 0))  # "M"
    assert not any("experts" in p.name for p in layer_parts(m, 5))  # "*"


def test_total_parameters():
    # 31.58 B: the "31.6B" of the public listings (the model card rounds to 30B total, 3.5B active)
    assert count_params(_model()) == 31_577_940_288


def test_latent_moe_is_refused():
    with pytest.raises(ConfigError, match="latent MoE"):
        count_params(_model(moe_latent_size=1024))
