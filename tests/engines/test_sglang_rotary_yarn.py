"""SGLang's rotary cos/sin cache rows under YaRN, and the RoPE pre-expansion charged by the planner (helper srp).

Read in the wheels: from 0.4.2 SGLang's own ``get_rope`` (``layers/rotary_embedding.py``; 0.5.10+
``rotary_embedding/factory.py``) hands a yarn / deepseek_yarn config its ``original_max_position_embeddings`` and
``YaRNScalingRotaryEmbedding`` / ``DeepseekScalingRotaryEmbedding`` build ``original × factor`` rows, with or without
``mrope_section`` (0.5.9+ ``YaRNScalingMRotaryEmbedding``, before it the plain YaRN class); 0.5.23's
``BailingMRotaryEmbedding`` (yarn + mrope_section + video_rope) keeps max_position rows.  Up to 0.4.1 vLLM's
``get_rope``: tpkit's vLLM rule (an MRoPE section keeps max_position rows there).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.load import rotary_cache_bytes
from tpkit.engines.sglang.rope import (ROPE_ITEM, ROPE_TERM, cache_positions, rope_reserve, rope_reserve_interval)
from tpkit.explain import explain_log
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, MiB

CONFIGS = Path(__file__).resolve().parents[1] / "validation/configs"
H100 = lookup_gpu("H100")


def _spec(name: str):
    path = CONFIGS / name
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source=str(path))


YARN = _spec("Qwen--Qwen3-30B-A3B-yarn4.json")  # max_position_embeddings 40,960; yarn 4 × 32,768
PLAIN = _spec("Qwen--Qwen3-30B-A3B.json")


def _with_rope(model, rope):
    extra = {k: v for k, v in model.extra.items() if k != "rope_scaling"}
    if rope is not None:
        extra["rope_scaling"] = rope
    return replace(model, extra=extra)


@pytest.mark.parametrize("version", ["0.4.1", "0.4.2", "0.5.5", "0.5.10", "0.5.23"])
def test_yarn_cache_is_original_times_factor_in_every_release(version):
    assert YARN.max_position_embeddings == 40_960
    assert cache_positions(YARN, version)[0] == 131_072
    assert cache_positions(PLAIN, version) == (40_960, "max_position_embeddings")
    elem = 4 if version != "0.4.1" else 2  # float32 on CUDA from 0.4.2 (test_sglang_rotary.py)
    assert rotary_cache_bytes(YARN, H100, SglangOptions(engine_version=version))[0] == Bytes(131_072 * 128 * elem)


@pytest.mark.parametrize("rope, rows", [
    ({"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32_768}, 131_072),
    ({"rope_type": "deepseek_yarn", "factor": 4.0, "original_max_position_embeddings": 32_768}, 131_072),
    ({"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8_192, "low_freq_factor": 1.0,
      "high_freq_factor": 4.0}, 40_960),
    ({"rope_type": "default", "mrope_section": [16, 24, 24]}, 40_960),
])
def test_rope_types(rope, rows):
    assert cache_positions(_with_rope(PLAIN, rope), "0.5.10")[0] == rows


def test_yarn_with_mrope_section_spans_original_times_factor_on_both_sides_of_0_4_2():
    """Up to 0.4.1 the models take the get_rope of the vLLM they pin (0.5.5 … 0.6.4.post1), whose yarn branch builds
    the plain YaRN class whatever the MRoPE section (vLLM ≤ 0.10.2); SGLang's own get_rope (0.4.2+) also gives
    original × factor rows."""
    mrope = _with_rope(PLAIN, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32_768,
                               "mrope_section": [16, 24, 24]})
    assert cache_positions(mrope, "0.4.1")[0] == 131_072
    assert cache_positions(mrope, "0.4.2")[0] == cache_positions(mrope, "0.5.9")[0] == 131_072


def test_bailing_video_rope_keeps_max_position_from_0_5_23():
    video = _with_rope(PLAIN, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32_768,
                               "mrope_section": [16, 24, 24], "video_rope": True})
    assert cache_positions(video, "0.5.20")[0] == 131_072
    assert cache_positions(video, "0.5.23")[0] == 40_960


def test_amd_cache_is_float32_from_0_5_23():
    mi300x = lookup_gpu("MI300X")
    assert rotary_cache_bytes(PLAIN, mi300x, SglangOptions(engine_version="0.5.20"))[0] == Bytes(40_960 * 128 * 2)
    assert rotary_cache_bytes(PLAIN, mi300x, SglangOptions(engine_version="0.5.23"))[0] == Bytes(40_960 * 128 * 4)


def test_a_yarn_cache_that_holds_the_reserve_is_not_regrown():
    """_ensure_cos_sin_cache_length returns when the reserve is below the cache's rows: YaRN's 131,072 rows hold
    the default context (40,960 + 256); a context above them grows it."""
    assert rope_reserve(YARN, "0.5.10") is None
    grown = rope_reserve(YARN, "0.5.10", context_len=131_072)
    assert grown is not None and grown.rows == 131_328
    assert grown.high == MiB(2)  # 64 MiB old cache, its own segment: 64.125 MiB → 66 MiB segment less 64
    llama3 = _with_rope(PLAIN, {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8_192,
                                "low_freq_factor": 1.0, "high_freq_factor": 4.0})
    assert rope_reserve(llama3, "0.5.10", context_len=8_192) is None  # llama3 keeps max_position rows


# --- the planner charges the pre-expansion like explain (one rule) ---------------------------------------------------

QWEN3 = load_model("Qwen/Qwen3-8B")  # 40,960 × 128 × 4 B = 20 MiB cache, grows to a 22 MiB segment: 0 … 2 MiB


def _plan(version: str, **kw):
    return plan_sglang(QWEN3, H100, ParallelSpec(tp=2), SglangOptions(engine_version=version, **kw))


def test_plan_charges_the_pre_expansion_from_0_5_6_only():
    old, new = _plan("0.5.5"), _plan("0.5.6")
    assert ROPE_ITEM not in {l.item for l in old.ledger.items}
    line = new.ledger.get(ROPE_ITEM)
    assert line.bytes == MiB(1) and "reserve_rope_cache_for_long_sequences" in line.source
    items = [l.item for l in new.ledger.items]
    assert items.index("weights") < items.index(ROPE_ITEM) < items.index("KV budget (rest)")
    assert new.extra["sglang"]["rope_reserve_bytes"] == MiB(1).bytes
    assert old.extra["sglang"]["rope_reserve_bytes"] == 0
    assert "RoPE pre-expansion" in new.ledger.get("KV budget (rest)").source


def test_plan_band_spans_the_interval_explain_charges():
    from tpkit.memory.band import with_band

    r = with_band(_plan, "0.5.10")
    term = next(e for e in r.band.estimates if e.term == ROPE_TERM)
    found = rope_reserve(QWEN3, "0.5.10")
    low, high = rope_reserve_interval(found)
    assert (term.nominal - term.uncertainty, term.nominal + term.uncertainty) == (low, high) == (Bytes(0), MiB(2))
    log = ("[2026-03-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
           "mem_fraction_static=0.85, page_size=1)\n"
           "[2026-03-01 10:00:03] Load weight begin. avail mem=78.48 GB\n"
           "[2026-03-01 10:00:09] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=70.80 GB, "
           "mem usage=7.68 GB.\n")
    ex = explain_log(log, flags={"model": "Qwen/Qwen3-8B", "gpu": "H100-SXM-80GB", "engine_version": "0.5.10"})
    row = next(r for r in ex.anchored.rows if r.item == ROPE_ITEM)
    assert (row.value.low, row.value.high) == (low, high)


def test_plan_without_growth_charges_nothing():
    r = _plan("0.5.10", context_length=8_192)  # the 40,960-row cache holds 8,192 + 256
    assert r.extra["sglang"]["rope_reserve_bytes"] == 0 and ROPE_ITEM not in {l.item for l in r.ledger.items}


def test_speculative_steps_enter_the_reserve():
    small = replace(QWEN3, max_position_embeddings=32_768, head_dim=64)
    spec = rope_reserve(small, "0.5.10", context_len=32_768, spec_steps=3, spec_draft_tokens=4)
    plain = rope_reserve(small, "0.5.10", context_len=32_768)
    assert spec.rows == plain.rows + 128  # 24 more positions cross one 128 alignment step


@pytest.mark.parametrize("name, rows, dim", [
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", 262_144, 64),  # head_dim 256 × partial_rotary_factor 0.25
    ("zai-org/GLM-4.5", 131_072, 64),                   # head_dim 128 × 0.5
    ("Qwen/Qwen3-8B", 40_960, 128),                     # no partial factor: the whole head
])
def test_the_cache_is_cut_to_the_partial_rotary_dim(name, rows, dim):
    """``get_rope`` cuts ``rotary_dim`` to ``int(rotary_dim × partial_rotary_factor)`` (0.4.2 ``rotary_embedding.py``,
    0.5.10 ``rotary_embedding/factory.py``; 0.5.10 ``models/qwen3_next.py`` passes head_dim and the factor)."""
    model = load_model(name)
    assert rotary_cache_bytes(model, H100, SglangOptions(engine_version="0.5.10"))[0] == Bytes(rows * dim * 4)
