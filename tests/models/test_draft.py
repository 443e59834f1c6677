"""Draft models for speculative decoding: MTP layers of the target, EAGLE/EAGLE-3 heads, standalone drafts."""

from __future__ import annotations

import json

import pytest

from tpkit.errors import PlanInputError
from tpkit.models import load_model
from tpkit.models.catalog import catalog_entries
from tpkit.models.draft import catalog_drafts, draft_parts, load_draft, plan_draft_weights
from tpkit.models.mtp_parts import mtp_parts
from tpkit.parallel import ParallelSpec

from models_testlib import tiny_llama


def test_mtp_draft_is_the_targets_nextn_layers():
    target = load_model("deepseek-ai/DeepSeek-V3")
    draft = load_draft("mtp", None, target=target)
    assert draft.num_layers == 1 and draft.spec is target and draft.kv_like_target
    # the MTP module builds its own embedding and lm_head (the engines swap in the target's: plan_draft_weights'
    # ``shared``); the rest is the nextn layer
    parts = draft_parts(draft)
    assert [p.category for p in parts[:2]] == ["embedding", "lm_head"] and parts[2:] == mtp_parts(target)
    shared = plan_draft_weights(draft, ParallelSpec(tp=8), shared=frozenset({"embedding", "lm_head"}))
    own = plan_draft_weights(draft, ParallelSpec(tp=8))
    assert own.bytes_per_rank.bytes - shared.bytes_per_rank.bytes == 2 * 129280 * 7168 * 2 // 8


def test_mtp_without_nextn_layers_is_refused():
    with pytest.raises(PlanInputError, match="no MTP/nextn layers"):
        load_draft("mtp", None, target=load_model("meta-llama/Llama-3.1-8B-Instruct"))


def test_eagle_needs_a_draft_path():
    with pytest.raises(PlanInputError, match="needs a draft model"):
        load_draft("eagle3", None, target=load_model("meta-llama/Llama-3.1-8B-Instruct"))


def test_eagle3_catalog_draft_parts_by_hand():
    """SpecForge DeepSeek-V3 EAGLE-3 head: h 7168, 56 heads, 8 KV heads × 128, 1 layer, MLP 40960, draft vocab 32000."""
    draft = load_draft("eagle3", "deepseek-v3-671b-eagle3", target=load_model("deepseek-ai/DeepSeek-V3"))
    assert draft.method == "eagle3" and draft.num_layers == 1
    parts = {p.name: p for p in draft_parts(draft)}
    h = 7168
    assert (parts["model.fc"].out, parts["model.fc"].inp, parts["model.fc"].shard) == (h, 3 * h, "rep")
    assert parts["model.layers.0.self_attn.q_proj"].inp == 2 * h  # [embeds, hidden] concatenated
    assert parts["model.layers.0.self_attn.o_proj"].inp == 56 * 128
    assert parts["lm_head"].out == 32000 and parts["model.embed_tokens"].out == 129280
    plan = plan_draft_weights(draft, ParallelSpec(tp=8), shared=frozenset({"embedding"}))
    tp8 = (h * 3 * h                                   # fc, replicated
           + (56 * 128 // 8 + 2 * 128) * 2 * h          # q + one k and one v head (8 KV heads / 8)
           + h * 56 * 128 // 8                          # o
           + 3 * h * 40960 // 8                         # gate, up, down
           + 32000 // 8 * h                             # lm_head (draft vocab, 64-padded: 32000 divides)
           + 4 * h) * 2                                 # input/post/hidden/final norms; fp16 weights
    assert plan.bytes_per_rank.bytes == tp8
    full = plan_draft_weights(draft, ParallelSpec(tp=8))
    assert full.bytes_per_rank.bytes - tp8 == 129280 // 8 * h * 2  # the embedding when it is not shared


def test_draft_from_a_config_file(tmp_path):
    cfg = tiny_llama()
    cfg.update(architectures=["LlamaForCausalLMEagle"], num_hidden_layers=1)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    draft = load_draft("eagle", str(path), target=load_model("meta-llama/Llama-3.1-8B-Instruct"))
    names = [p.name for p in draft_parts(draft)]
    assert "model.fc" in names and "model.fc.bias" in names
    assert "model.layers.0.norm0" not in names  # EAGLE-2's first layer has no input norm
    standalone = load_draft("standalone", str(path), target=load_model("meta-llama/Llama-3.1-8B-Instruct"))
    assert "model.norm" in [p.name for p in draft_parts(standalone)]


def test_catalog_lists_public_drafts_of_catalog_models():
    ids = {e.id for e in catalog_entries()}
    drafts = [e for e in catalog_entries() if "draft" in e.facts]
    assert len(drafts) == 12
    for entry in drafts:
        assert entry.facts["source"] and entry.facts["draft"]["method"] == "eagle3"
        assert set(entry.facts["draft"]["targets"]) <= ids, entry.id
        assert load_model(entry.id).num_layers == 1
    assert catalog_drafts("deepseek-ai/DeepSeek-V3") == ("SpecForge/deepseek-v3-671b-eagle3",)
    assert catalog_drafts("meta-llama/llama-3.1-8b-instruct") == ("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge",)


def test_qwen3_next_gated_deltanet_state_by_hand():
    """conv (2·16·128 + 32·128) × (4 − 1) × 2 B + temporal 32 × 128 × 128 × 4 B per layer at TP 1."""
    spec = load_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert spec.kinds.count("linear") == 36 and spec.num_full_layers == 12
    assert spec.linear_attn.state_bytes_per_layer.bytes == 8192 * 3 * 2 + 32 * 128 * 128 * 4


def test_qwen3_vl_is_multimodal_with_a_depth_vision_config():
    spec = load_model("Qwen/Qwen3-VL-8B-Instruct")
    assert spec.is_multimodal and spec.num_layers == 36 and spec.num_kv_heads == 8
    assert spec.extra["vision_config"]["depth"] == 27 and "num_hidden_layers" not in spec.extra["vision_config"]
