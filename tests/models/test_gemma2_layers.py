"""Gemma 2's released config.json has ``sliding_window`` but no ``layer_types``: transformers' Gemma2Config fills
them alternating (layer 0 sliding, layer 1 full, …) and vLLM's gemma2.py reads that list (lead, session 23, from
helper bl23's gemma-2 start-ups).  Before, every layer was planned sliding."""

from tpkit.models.layers import layer_kinds

GEMMA2_9B = {"model_type": "gemma2", "num_hidden_layers": 42, "sliding_window": 4096,
             "query_pre_attn_scalar": 256, "hidden_size": 3584}


def test_gemma2_without_layer_types_alternates_from_a_sliding_layer_0():
    notes: list[str] = []
    kinds, window = layer_kinds(dict(GEMMA2_9B), 42, "gemma-2-9b", notes)
    assert window == 4096 and len(kinds) == 42
    assert kinds[:4] == ("sliding", "full", "sliding", "full")
    assert kinds.count("sliding") == kinds.count("full") == 21


def test_an_explicit_layer_types_still_wins_and_other_models_keep_every_layer_sliding():
    given = ["full_attention"] * 42
    kinds, _ = layer_kinds({**GEMMA2_9B, "layer_types": given}, 42, "gemma-2-9b", [])
    assert "sliding" not in kinds  # all full (an empty tuple means every layer full)
    mistral, _ = layer_kinds({"model_type": "mistral", "sliding_window": 4096}, 32, "mistral", [])
    assert mistral == ("sliding",) * 32
