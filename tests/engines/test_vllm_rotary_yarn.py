"""vLLM's rotary cos/sin cache under YaRN (helper v0p, issue 11): ``get_rope`` builds a YaRN / DeepSeek-YaRN cache of
original_max_position_embeddings × factor rows, not max_position_embeddings rows (vllm 0.5.4 … 0.33.0, the same
in every release read: no version boundary).  Pinned by the two load lines of the Qwen3-30B-A3B 4 × 22 GB Turing
runs (vl_068 without YaRN, vl_069 with the model card's factor-4 block): 14.25 and 14.27 GiB printed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm.policy import rotary_cache_bytes, rotary_cache_positions
from tpkit.models.config import from_config_dict
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation/configs"


def _spec(name: str):
    path = CONFIGS / name
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source=str(path))


def _with_rope(model, rope):
    extra = {k: v for k, v in model.extra.items() if k != "rope_scaling"}
    if rope is not None:
        extra["rope_scaling"] = rope
    return replace(model, extra=extra)


@pytest.mark.parametrize("version", [None, "0.5.4", "0.6.6", "0.8.5", "0.8.5:v0", "v0", "0.19.0", "current"])
def test_yarn_cache_spans_original_times_factor(version):
    yarn = _spec("Qwen--Qwen3-30B-A3B-yarn4.json")  # max_position_embeddings 40,960; yarn 4 × 32,768
    assert yarn.max_position_embeddings == 40_960
    assert rotary_cache_positions(yarn)[0] == 131_072
    assert rotary_cache_bytes(yarn, 2, version).bytes == 131_072 * 128 * 2


def test_without_rope_scaling_the_cache_is_max_position_embeddings():
    plain = _spec("Qwen--Qwen3-30B-A3B.json")
    assert rotary_cache_positions(plain) == (40_960, "max_position_embeddings")
    assert rotary_cache_bytes(plain, 2).bytes == 40_960 * 128 * 2


@pytest.mark.parametrize("rope", [
    {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32_768},         # older key
    {"rope_type": "deepseek_yarn", "factor": 4.0, "original_max_position_embeddings": 32_768},
])
def test_yarn_spellings(rope):
    model = _with_rope(_spec("Qwen--Qwen3-30B-A3B.json"), rope)
    assert rotary_cache_positions(model)[0] == 131_072


@pytest.mark.parametrize("rope", [
    None,
    {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8_192},  # llama3: unscaled cache
    {"rope_type": "yarn", "factor": 4.0},                                               # no original: unchanged
])
def test_other_rope_types_keep_max_position_embeddings(rope):
    model = _with_rope(_spec("Qwen--Qwen3-30B-A3B.json"), rope)
    assert rotary_cache_positions(model)[0] == 40_960


@pytest.mark.parametrize("name", ["deepseek-ai--DeepSeek-V3.json", "openai--gpt-oss-20b.json",
                                  "deepseek-ai--DeepSeek-R1-0528-Qwen3-8B.json"])
def test_yarn_configs_whose_length_is_already_scaled_are_unchanged(name):
    model = _spec(name)  # original × factor equals their max_position_embeddings
    assert rotary_cache_positions(model)[0] == model.max_position_embeddings


@pytest.mark.parametrize("config, printed_gib", [("Qwen--Qwen3-30B-A3B.json", 14.25),
                                                  ("Qwen--Qwen3-30B-A3B-yarn4.json", 14.27)])
def test_turing_pair_load_lines(config, printed_gib):
    # 'model weights take 14.25GiB' (32K, vl_068) and '14.27GiB' (131K YaRN, vl_069): vLLM 0.8.5 V0, tp 4
    model = _spec(config)
    load = plan_weights(model, ParallelSpec(tp=4), engine="vllm").bytes_per_rank + rotary_cache_bytes(model, 2)
    assert round(load.bytes / 2**30, 2) == printed_gib
