"""load_model / from_config_dict: resolution order, catalog, validation configs, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.errors import ConfigError, UnknownModelError
from tpkit.models import from_config_dict, load_model
from tpkit.models.catalog import catalog_entries, close_matches

from models_testlib import VALIDATION, tiny_llama


def test_catalog_loads_every_entry_through_the_config_path():
    entries = catalog_entries()
    assert len(entries) == 138  # 22 from the research catalog + 40 from scripts/catalog_extra.json + 76 tested
    for entry in entries:
        spec = load_model(entry.id)
        assert spec.source == f"catalog:{entry.id}"
        assert spec.extra["provenance"] == entry.verification_status
        text = entry.config.get("text_config", {})
        layers = next(c.get(k) for c in (entry.config, text, {"n_layer": None}) for k in ("num_hidden_layers", "n_layer",
                                                                                        "num_layers") if k in c)
        assert spec.num_layers == layers, entry.id


@pytest.mark.parametrize("model_id, params", [
    ("microsoft/Phi-4-mini-instruct", 3_836_021_760),     # public safetensors-header count of the release
    ("Qwen/Qwen3-4B-Instruct-2507", 4_022_468_096),       # HF API count quoted publicly
    ("Qwen/Qwen2.5-Coder-7B-Instruct", 7_615_616_512),    # public sizing catalog of revision c03e6d35
])
def test_added_catalog_models_match_published_parameter_counts(model_id, params):
    from tpkit.models.params import count_params
    assert count_params(load_model(model_id)) == params


def test_added_catalog_models_match_published_kv_bytes_per_token():
    from tpkit.engines.sglang.pool import compute_cell
    # gemma-3-1b-it: 26 layers x 1 KV head x 256 x K+V x 2 B (public NPU-port note); Qwen3-4B-Instruct-2507: 147,456
    assert compute_cell(load_model("google/gemma-3-1b-it"), 1, 1, "bfloat16").bytes_per_token == 26_624
    assert compute_cell(load_model("Qwen/Qwen3-4B-Instruct-2507"), 1, 1, "bfloat16").bytes_per_token == 147_456


@pytest.mark.parametrize("name", ["moonshotai/Kimi-K2.5", "Kimi-K2.5", "kimi-k2.5", "MOONSHOTAI/KIMI-K2.5"])
def test_catalog_lookup_by_id_short_name_any_case(name):
    spec = load_model(name)
    assert spec.extra["catalog_id"] == "moonshotai/Kimi-K2.5"
    assert spec.is_multimodal and spec.model_type == "kimi_k2"
    assert spec.architecture == "KimiK25ForConditionalGeneration"
    assert spec.mla.kv_lora_rank == 512 and spec.mla.qk_rope_head_dim == 64
    assert spec.quant.method == "int4" and spec.quant.group_size == 32 and spec.quant.scale_bytes == 2


def test_unknown_model_says_where_it_looked_and_suggests(tmp_path):
    with pytest.raises(UnknownModelError) as err:
        load_model("meta-llama/Llama-3.1-8B-Instruc", hf_cache_dir=str(tmp_path))
    text = str(err.value)
    assert "path meta-llama/Llama-3.1-8B-Instruc" in text
    assert str(tmp_path) in text or "huggingface_hub is not installed" in text
    assert "meta-llama/Llama-3.1-8B-Instruct" in text  # close match
    assert "meta-llama/Llama-3.1-8B-Instruct" in close_matches("llama-3.1-8b-instruc")


@pytest.mark.parametrize("typed, first", [("Qwen/Qwen3-8B-Instruct", "Qwen/Qwen3-8B"),
                                          ("deepseek-ai/DeepSeek-V3-0324-fp8", "deepseek-ai/DeepSeek-V3")])
def test_a_catalog_id_with_a_suffix_added_suggests_that_id_first(typed, first):
    """Helper rev11 (2026-12-05): 'Qwen/Qwen3-8B-Instruct' got Qwen3-VL-8B-Instruct, Qwen2-7B-Instruct … but not
    Qwen/Qwen3-8B, the id it extends."""
    assert close_matches(typed)[0] == first


def test_config_file_path(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(tiny_llama()))
    spec = load_model(str(path))
    assert spec.source == str(path) and spec.head_dim == 16 and spec.num_kv_heads == 2
    assert spec.extra["checkpoint_dir"] is None


def test_checkpoint_directory_notes_safetensors(llama_dir):
    spec = load_model(str(llama_dir))
    assert spec.extra["checkpoint_dir"] == str(llama_dir)
    assert spec.extra["safetensors_files"] == ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]


def test_directory_without_config_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no config.json"):
        load_model(str(tmp_path))


def test_hf_cache_lookup_is_offline(tmp_path):
    pytest.importorskip("huggingface_hub")
    repo = tmp_path / "models--acme--tiny-llama"
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    (snap / "config.json").write_text(json.dumps(tiny_llama(num_hidden_layers=3)))
    spec = load_model("acme/tiny-llama", hf_cache_dir=str(tmp_path))
    assert spec.num_layers == 3 and spec.source == str(snap / "config.json")
    assert spec.extra["checkpoint_dir"] == str(snap)


def test_hf_cache_miss_falls_back_to_catalog(tmp_path):
    spec = load_model("Qwen/Qwen3-8B", hf_cache_dir=str(tmp_path))
    assert spec.source == "catalog:Qwen/Qwen3-8B"


def test_validation_configs_are_in_the_repo():
    """The parametrized test below must never shrink to an empty set (it read an absolute path once)."""
    assert len(sorted(VALIDATION.glob("*.json"))) == 8


@pytest.mark.parametrize("path", sorted(VALIDATION.glob("*.json")), ids=lambda p: p.stem)
def test_every_validation_config_loads(path):
    spec = load_model(str(path))
    assert spec.num_layers >= 1 and spec.vocab_size >= 1 and len(spec.kinds) == spec.num_layers
    assert isinstance(spec.assumptions, tuple) and all(isinstance(a, str) for a in spec.assumptions)


def test_partial_config_records_assumptions():
    spec = load_model(str(VALIDATION / "cyankiwi--Kimi-Linear-48B-A3B-Instruct-AWQ-4bit.json"))
    joined = " ".join(spec.assumptions)
    assert "model_max_length" in joined and "torch_dtype" in joined
    assert spec.max_position_embeddings == 1048576


def test_kimi_linear_layer_kinds_are_one_based():
    spec = load_model(str(VALIDATION / "cyankiwi--Kimi-Linear-48B-A3B-Instruct-AWQ-4bit.json"))
    assert spec.num_linear_layers == 20 and spec.num_full_layers == 7
    assert spec.kinds[3] == "full" and spec.kinds[0] == "linear" and spec.kinds[26] == "full"
    assert spec.mla is not None and spec.mla.q_lora_rank is None
    assert spec.moe.num_experts == 256 and spec.moe.moe_layer_ids == tuple(range(1, 27))
    # SGLang KimiLinearStateShape at TP 1: fp32 recurrent 32×128×128, bf16 conv (4−1)×(3×4096)
    assert spec.linear_attn.state_bytes_per_layer.bytes == 32 * 128 * 128 * 4 + 3 * 3 * 4096 * 2


def test_qwen3_next_without_layer_types_takes_full_attention_interval():
    """The released Qwen3-Next config.json has full_attention_interval, no layer_types (SGLang 0.5.23
    configs/qwen3_next.py layers_block_type): every 4th layer full, the rest Gated DeltaNet."""
    cfg = json.loads((Path(__file__).resolve().parents[1] / "validation" / "configs"
                      / "Qwen--Qwen3-Next-80B-A3B-Instruct.json").read_text())
    cfg = {k: v for k, v in cfg.items() if not k.startswith("_")}
    written = from_config_dict(cfg, name="written", source="t")
    cfg.pop("layer_types", None)
    derived = from_config_dict(cfg, name="derived", source="t")
    assert derived.kinds == written.kinds and derived.num_full_layers == 12 and derived.num_linear_layers == 36
    assert derived.kinds[3] == "full" and derived.kinds[0] == "linear"
    # catalog entry copied from the released file (no layer_types): same plan as the written-out one
    thinking = load_model("Qwen/Qwen3-Next-80B-A3B-Thinking")
    assert thinking.kinds == written.kinds and thinking.linear_attn is not None
    # the rule needs the Gated DeltaNet keys: a plain decoder with the key stays all full attention
    assert from_config_dict(tiny_llama(full_attention_interval=4), name="p", source="t").layer_kinds == ()


def test_gpt_oss_alternates_sliding_and_full():
    spec = load_model(str(VALIDATION / "openai--gpt-oss-120b.json"))
    assert spec.kinds[:4] == ("sliding", "full", "sliding", "full")
    assert spec.num_sliding_layers == 18 and spec.sliding_window == 128
    assert spec.head_dim == 64 and spec.moe.num_experts == 128 and spec.moe.experts_per_token == 4
    assert spec.quant.method == "mxfp4" and spec.quant.scope == "experts_only"


def test_gemma3_five_local_to_one_global():
    spec = load_model("google/gemma-3-27b-it")
    assert spec.num_full_layers == 10 and spec.num_sliding_layers == 52 and spec.sliding_window == 1024
    assert [i for i, k in enumerate(spec.kinds) if k == "full"][:2] == [5, 11]
    assert spec.vocab_size == 262208 and spec.tie_word_embeddings
    assert any("library default" in a for a in spec.assumptions)


def test_gemma3_layer_types_form_agrees_with_pattern_form():
    base = {"model_type": "gemma3_text", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 12,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 512}
    by_pattern = from_config_dict({**base, "sliding_window_pattern": 6}, name="g", source="t")
    types = ["full_attention" if k == "full" else "sliding_attention" for k in by_pattern.kinds]
    by_types = from_config_dict({**base, "layer_types": types}, name="g", source="t")
    assert by_pattern.kinds == by_types.kinds and by_pattern.num_full_layers == 2


@pytest.mark.parametrize("window, expect", [(None, 0), (4096, 32)])
def test_mistral_sliding_window_null_means_full(window, expect):
    cfg = tiny_llama(model_type="mistral", num_hidden_layers=32, sliding_window=window)
    assert from_config_dict(cfg, name="m", source="t").num_sliding_layers == expect


def test_qwen3_moe_sparse_step_and_mlp_only_layers():
    cfg = tiny_llama(model_type="qwen3_moe", num_experts=8, num_experts_per_tok=2, moe_intermediate_size=64,
                     decoder_sparse_step=2, mlp_only_layers=[3])
    spec = from_config_dict(cfg, name="q", source="t")
    assert spec.moe.moe_layer_ids == (1,)  # layers 1 and 3 are sparse by step; 3 is mlp-only
    assert spec.extra["qk_norm"]


def test_deepseek_mla_and_dense_prefix():
    spec = load_model("deepseek-ai/DeepSeek-V3")
    assert spec.head_dim == 192 and spec.v_head_dim == 128 and spec.num_kv_heads == 128
    assert spec.moe.num_dense_layers == 3 and len(spec.moe.moe_layer_ids) == 58
    assert spec.num_nextn_layers == 1 and spec.quant.block_size == (128, 128)


def test_llama4_wrapper_text_config_and_chunked_layers():
    spec = load_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert spec.model_type == "llama4_text" and spec.is_multimodal
    assert spec.intermediate_size == 16384 and spec.moe.moe_intermediate_size == 8192
    assert spec.moe.num_shared_experts == 1 and spec.num_full_layers == 12 and spec.sliding_window == 8192


def test_head_dim_explicit_beats_hidden_over_heads():
    spec = from_config_dict(tiny_llama(head_dim=32), name="x", source="t")
    assert spec.head_dim == 32
    assert from_config_dict(tiny_llama(), name="x", source="t").head_dim == 128 // 8


def test_malformed_json_names_file_line_and_column(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{\n  "hidden_size": 4096,\n  "num_hidden_layers": ,\n}')
    with pytest.raises(ConfigError) as err:
        load_model(str(path))
    assert str(path) in str(err.value) and "line 3" in str(err.value) and "column" in str(err.value)


def test_missing_required_field_names_field_and_file(tmp_path):
    cfg = tiny_llama()
    del cfg["num_hidden_layers"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    with pytest.raises(ConfigError) as err:
        load_model(str(path))
    assert "num_hidden_layers" in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("key, value", [("hidden_size", 0), ("num_attention_heads", -4), ("vocab_size", 1.5),
                                        ("num_hidden_layers", True)])
def test_non_positive_or_non_integer_values_raise(key, value):
    with pytest.raises(ConfigError, match=key):
        from_config_dict(tiny_llama(**{key: value}), name="x", source="cfg.json")


def test_layer_types_of_wrong_length_raise():
    with pytest.raises(ConfigError, match="layer_types"):
        from_config_dict(tiny_llama(layer_types=["full_attention"]), name="x", source="t")


def test_granite_attention_layer_type_is_full_attention():
    """Granite 4.0 (granitemoehybrid) spells a full-attention layer "attention"; granite-4.0-micro has only those,
    so it plans as a plain decoder, while a "mamba" layer without the Mamba-2 fields that size its state is
    refused (granite-4.0-h: tests/models/test_mamba2.py)."""
    n = tiny_llama()["num_hidden_layers"]
    spec = from_config_dict(tiny_llama(model_type="granitemoehybrid", layer_types=["attention"] * n), name="g",
                            source="t")
    assert spec.layer_kinds == () and spec.linear_attn is None
    mixed = ["attention"] * (n - 1) + ["full_attention"]
    assert from_config_dict(tiny_llama(layer_types=mixed), name="g", source="t").layer_kinds == ()
    with pytest.raises(ConfigError, match="lists 'mamba' layers but the config has no Mamba-2 fields"):
        from_config_dict(tiny_llama(layer_types=["attention"] * (n - 1) + ["mamba"]), name="g", source="t")


def test_unknown_quant_method_raises():
    with pytest.raises(ConfigError, match="quant_method"):
        from_config_dict(tiny_llama(quantization_config={"quant_method": "bitsnbytes-9"}), name="x", source="t")


def test_catalog_data_needs_no_shared_folder():
    data = Path(__import__("tpkit.models", fromlist=["x"]).__file__).parent / "data" / "catalog.json"
    raw = json.loads(data.read_text())
    assert {m["id"] for m in raw["models"]} >= {"moonshotai/Kimi-K2.5", "openai/gpt-oss-120b"}
    assert all("verification_status" in m for m in raw["models"])


def test_config_that_is_not_utf8_is_a_config_error(tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_model(str(cfg))


@pytest.mark.parametrize("overrides, field", [
    ({"num_nextn_predict_layers": "x"}, "num_nextn_predict_layers"),
    ({"num_local_experts": 8, "num_experts_per_tok": "two"}, "num_experts_per_tok"),
    ({"num_local_experts": 8, "num_experts_per_tok": 2, "first_k_dense_replace": 1.5}, "first_k_dense_replace"),
    ({"num_local_experts": 8, "num_experts_per_tok": 2, "decoder_sparse_step": "2"}, "decoder_sparse_step"),
    ({"sliding_window": "4k"}, "sliding_window"),
    ({"sliding_window": 512, "sliding_window_pattern": "x"}, "sliding_window_pattern"),
    ({"linear_attn_config": {"kda_layers": [1, 2, 3], "full_attn_layers": [4], "head_dim": 128}}, "num_heads"),
])
def test_malformed_optional_fields_name_the_field(overrides, field):
    """These were int(...) on the raw value: a ValueError/KeyError traceback instead of a message."""
    with pytest.raises(ConfigError, match=field):
        from_config_dict(tiny_llama(**overrides), name="t", source="t/config.json")


def test_integral_floats_are_still_read():
    spec = from_config_dict(tiny_llama(num_local_experts=8, num_experts_per_tok=2, first_k_dense_replace=1.0),
                            name="t", source="t")
    assert spec.moe.num_dense_layers == 1 and spec.moe.moe_layer_ids == (1, 2, 3)


def test_cache_dir_honours_the_legacy_hub_cache_variable(monkeypatch, tmp_path):
    """huggingface_hub still reads HUGGINGFACE_HUB_CACHE; the fast path looked in ~/.cache instead and
    reported a cached model as absent without asking huggingface_hub."""
    from tpkit.models.hf_cache import default_cache_dir

    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HUGGINGFACE_HUB_CACHE", str(tmp_path / "legacy"))
    assert default_cache_dir() == tmp_path / "legacy"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "new"))
    assert default_cache_dir() == tmp_path / "new"


@pytest.mark.parametrize("model_type, tied", [("gemma", True), ("gemma2", True), ("llama", False),
                                              ("qwen2", False)])
def test_tie_word_embeddings_absent_takes_the_transformers_class_default(model_type, tied):
    """GemmaConfig / Gemma2Config default tie_word_embeddings=True (transformers 4.44.0); LlamaConfig and
    Qwen2Config default False: a config without the key is planned with the class default."""
    cfg = tiny_llama(model_type=model_type)
    del cfg["tie_word_embeddings"]
    spec = from_config_dict(cfg, name="m", source="t")
    assert spec.tie_word_embeddings is tied
    assert any("tie_word_embeddings absent" in a for a in spec.assumptions) is tied


@pytest.mark.parametrize("model_type", ["gemma", "gemma2"])
def test_an_explicit_tie_word_embeddings_false_wins_over_the_gemma_default(model_type):
    spec = from_config_dict(tiny_llama(model_type=model_type, tie_word_embeddings=False), name="m", source="t")
    assert spec.tie_word_embeddings is False


def test_gemma2_9b_validation_config_is_tied_so_no_lm_head_is_counted():
    from tpkit.models.params import global_parts

    spec = from_config_dict(json.loads((VALIDATION.parents[1] / "configs" / "google--gemma-2-9b-it.json").read_text()), name="g",
                            source="t")
    assert spec.tie_word_embeddings and "lm_head" not in {p.category for p in global_parts(spec)}


def test_a_sequence_classification_checkpoint_has_a_score_head_instead_of_the_lm_head():
    """Reward models (Skywork-Reward-Llama-3.1-8B: LlamaForSequenceClassification, num_labels 1) end in a
    hidden × num_labels score head (sglang 0.5.10 models/llama_reward.py); the 128,256 × 4,096 LM head is absent."""
    from tpkit.models.params import count_params

    causal = from_config_dict(tiny_llama(), name="c", source="t")
    reward = from_config_dict(tiny_llama(architectures=["LlamaForSequenceClassification"], num_labels=1),
                              name="r", source="t")
    two = from_config_dict(tiny_llama(architectures=["LlamaForSequenceClassification"],
                                      id2label={"0": "bad", "1": "good"}), name="r2", source="t")
    h, v = causal.hidden_size, causal.vocab_size
    assert not causal.tie_word_embeddings
    assert count_params(causal) - count_params(reward) == v * h - 1 * h
    assert count_params(two) - count_params(reward) == h  # num_labels from id2label


def test_hf_cache_set_after_huggingface_hub_was_imported(tmp_path, monkeypatch):
    """Before: with huggingface_hub already imported, a later HF_HUB_CACHE was ignored (its constant is read once)."""
    pytest.importorskip("huggingface_hub")
    import huggingface_hub.constants  # noqa: F401  (read once, as an earlier caller in the process would have)

    snap = tmp_path / "models--acme--Late-Llama" / "snapshots" / "abc"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "num_attention_heads": 8,
        "num_key_value_heads": 8, "num_hidden_layers": 4, "intermediate_size": 4096, "vocab_size": 32000,
        "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}))
    (tmp_path / "models--acme--Late-Llama" / "refs").mkdir()
    (tmp_path / "models--acme--Late-Llama" / "refs" / "main").write_text("abc")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    assert load_model("acme/Late-Llama").num_layers == 4
