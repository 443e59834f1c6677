"""A rotary share or width outside its range is a config error naming the key, not a traceback (fuzz_plan seed 4,
case 439: partial_rotary_factor 1e308 raised OverflowError in engines.rotary.rotary_dim)."""

import json

import pytest

from tpkit.engines.rotary import partial_rotary_factor, rotary_dim
from tpkit.errors import ConfigError
from tpkit.models import from_config_dict

BASE = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "num_attention_heads": 8,
        "num_key_value_heads": 8, "num_hidden_layers": 2, "intermediate_size": 4096, "vocab_size": 32000,
        "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}


def _spec(**keys):
    return from_config_dict(json.loads(json.dumps({**BASE, **keys})), name="m", source="test")


@pytest.mark.parametrize("value", [1e308, 1.5, float("inf")])
def test_a_rotary_share_above_one_is_refused(value):
    with pytest.raises(ConfigError, match="partial_rotary_factor is .*must lie in \\(0, 1\\]"):
        rotary_dim(_spec(partial_rotary_factor=value))


@pytest.mark.parametrize("value, width", [(0.25, 32), (0.5, 64), (1, 128)])
def test_a_rotary_share_in_range_sets_the_width(value, width):
    spec = _spec(partial_rotary_factor=value)
    assert partial_rotary_factor(spec) == value and rotary_dim(spec) == width


def test_a_rotary_width_beyond_the_head_is_refused():
    assert rotary_dim(_spec(rotary_dim=64)) == 64
    with pytest.raises(ConfigError, match="rotary_dim is 1e\\+300"):
        rotary_dim(_spec(rotary_dim=1e300))
