"""``models.fields.optional_bool``: the one reader of a config's true/false fields (``config``: tie_word_embeddings,
enable_bias, block_auto_adjust_ff_dim, enable_moe_block; ``gemma4``: attention_k_eq_v)."""

import pytest

from tpkit.errors import ConfigError
from tpkit.models.fields import optional_bool


@pytest.mark.parametrize("text, expected", [
    ({}, False), ({"f": None}, False), ({"f": False}, False), ({"f": True}, True), ({"f": 0}, False),
    ({"f": 1}, True),
])
def test_flags_absent_null_bool_or_zero_one(text, expected):
    assert optional_bool(text, "f", "cfg.json") is expected


@pytest.mark.parametrize("value", ["yes", "true", 2, -1, 1.0, [True], {}])
def test_anything_else_is_a_config_error_naming_field_file_and_fix(value):
    with pytest.raises(ConfigError, match=r"^cfg\.json: f must be true or false, got .*; fix the config\.json$"):
        optional_bool({"f": value}, "f", "cfg.json")


def test_both_readers_use_it():
    from tpkit.models import from_config_dict
    base = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "max_position_embeddings": 64}
    assert from_config_dict({**base, "tie_word_embeddings": 1}, name="t", source="test").tie_word_embeddings
    with pytest.raises(ConfigError, match="tie_word_embeddings must be true or false"):
        from_config_dict({**base, "tie_word_embeddings": "no"}, name="t", source="test")
