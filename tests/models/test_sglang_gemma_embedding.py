"""SGLang builds Gemma 3 / 4's token embedding as a plain ``nn.Embedding`` (whole on every TP rank, no vocab padding):
``Gemma3TextScaledWordEmbedding(nn.Embedding)`` in ``srt/models/gemma3_causal.py`` (0.4.4.post2 – 0.5.23 wheels) and
``Gemma4TextScaledWordEmbedding = Gemma3TextScaledWordEmbedding`` in ``srt/models/gemma4_causal.py`` (0.5.11 – 0.5.23);
vLLM and SGLang's Gemma 2 (``gemma2.py``) use ``VocabParallelEmbedding``. ``tpkit.models.weights.SGLANG_REPLICATED_EMBEDDING``;
found by helper gs29 (2026-12-06) from gs_445 – gs_448 (gemma-4-31B-it at tp 4 / 2: 17.65 / 31.66 GiB printed per rank).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.models import from_config_dict
from tpkit.models.weights import SGLANG_REPLICATED_EMBEDDING, plan_weights
from tpkit.parallel import ParallelSpec

ROOT = Path(__file__).resolve().parents[2]
GEMMA4_31B = json.loads((ROOT / "tests" / "validation" / "configs" / "google--gemma-4-31B-it.json").read_text())
GIB = 2**30


def _spec(config: dict):
    return from_config_dict(config, name="test", source="test")


def _embedding(plan) -> int:
    return next(line.bytes.bytes for line in plan.lines if line.item == "embedding")


def _gemma2(**changes) -> dict:
    return {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 256,
            "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 64, "vocab_size": 1000, "max_position_embeddings": 4096, "sliding_window": 512,
            "torch_dtype": "bfloat16", **changes}


@pytest.mark.parametrize("tp", [1, 2, 4])
def test_sglang_keeps_the_whole_gemma4_embedding_on_every_rank(tp):
    spec = _spec(GEMMA4_31B)
    assert spec.model_type in SGLANG_REPLICATED_EMBEDDING
    whole = spec.vocab_size * spec.hidden_size * 2
    plan = plan_weights(spec, ParallelSpec(tp=tp), engine="sglang")
    assert _embedding(plan) == whole  # 262,144 × 5,376 × 2 B = 2.62 GiB at every tp
    assert "whole on every rank" in next(ln.source for ln in plan.lines if ln.item == "embedding")


@pytest.mark.parametrize("engine", ["vllm", None])
def test_other_engines_split_the_gemma4_embedding_over_tp(engine):
    spec = _spec(GEMMA4_31B)
    plan = plan_weights(spec, ParallelSpec(tp=4), engine=engine)
    assert _embedding(plan) == spec.vocab_size // 4 * spec.hidden_size * 2  # 262,144 / 4: already a 64-multiple


def test_the_rule_moves_gemma4_31b_at_tp4_by_three_quarters_of_the_table():
    spec = _spec(GEMMA4_31B)
    sglang = plan_weights(spec, ParallelSpec(tp=4), engine="sglang").bytes_per_rank.bytes
    split = plan_weights(spec, ParallelSpec(tp=4)).bytes_per_rank.bytes  # no engine: the tower split as SGLang's
    assert sglang - split == spec.vocab_size * spec.hidden_size * 2 * 3 // 4
    assert round(sglang / GIB, 2) == 16.62  # 17.65 printed (gs_445); 14.65 with the table split


def test_sglang_gemma2_embedding_is_still_vocab_parallel():
    spec = _spec(_gemma2())
    assert spec.model_type not in SGLANG_REPLICATED_EMBEDDING
    assert _embedding(plan_weights(spec, ParallelSpec(tp=2), engine="sglang")) == 512 * 256 * 2  # 1000 → 1024 / 2
