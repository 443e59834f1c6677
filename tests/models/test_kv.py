"""kv_heads_per_rank: SGLang/vLLM rule max(1, kv_heads // attn_tp); MLA keeps one latent."""

from __future__ import annotations

import pytest

from tpkit.errors import PlanInputError
from tpkit.models import from_config_dict, kv_heads_per_rank, load_model

from models_testlib import tiny_llama


@pytest.mark.parametrize("tp, expect", [(1, 8), (2, 4), (8, 1), (16, 1)])
def test_gqa_heads_split_then_replicate(tp, expect):
    spec = from_config_dict(tiny_llama(num_attention_heads=32, num_key_value_heads=8, hidden_size=4096),
                            name="x", source="t")
    assert kv_heads_per_rank(spec, tp) == expect


def test_mla_is_one_latent_per_rank():
    assert kv_heads_per_rank(load_model("DeepSeek-V3"), 8) == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_tp_raises(bad):
    with pytest.raises(PlanInputError):
        kv_heads_per_rank(load_model("Qwen3-8B"), bad)
