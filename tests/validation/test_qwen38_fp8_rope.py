"""The assembled Qwen3.8-27B-FP8 config carries the architecture's interleaved MRoPE (helper w38, 2026-12-05,
session 16).

The FP8 copy (new14, session 14) was assembled from the set's Qwen3.8-27B architecture copy before near14 gave that
copy its ``text_config.rope_parameters`` (mrope_section 11/11/10), so it planned vLLM's rotary cache as a plain
262,144-row one.  vLLM 0.7.2-0.31 ``MRotaryEmbedding.__init__`` (``model_executor/layers/rotary_embedding/mrope.py``,
read 0.27.1) builds ``4 × max_position_embeddings`` rows; from 0.32.0 the Qwen3.5 decoders pass a factor of 1
(``engines/vllm/rotary.py``).  vp_672 (two RTX 3090, 0.27.1, no drafter) prints 'Weights: 14.46 GiB/GPU'."""

from __future__ import annotations

import json
from pathlib import Path

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.rotary import rotary_caches
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).parent / "configs"
ARCH = "Qwen--Qwen3.8-27B.json"
VARIANTS = ("Qwen--Qwen3.8-27B-FP8.json", "RedHatAI--Qwen3.8-27B-INT4.json")
"""checkpoint-quantised copies of the architecture: a quantisation changes no architecture field"""
PRINTED_LOAD_GIB = 14.46
"""vp_672: 'Weights: 14.46 GiB/GPU' (the repository's README, the boot's 'Model loading took')"""
LOAD_ITEMS = ("model weights", "rotary cos/sin cache", "FP8 block scales as Marlin group scales")


def _cfg(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text())


def _model(name: str):
    return from_config_dict(_cfg(name), name=name, source=name)


def test_quantised_copies_keep_the_architecture_fields():
    arch = _cfg(ARCH)
    for name in VARIANTS:
        cfg = _cfg(name)
        for section in ("text_config", "vision_config"):
            assert cfg[section] == arch[section], (name, section)


def test_fp8_rotary_cache_spans_four_times_the_positions_up_to_0_31():
    model = _model(VARIANTS[0])
    (old,) = rotary_caches(model, 2, (0, 27, 1))
    assert (old.rows, old.dim, old.elem) == (4 * 262_144, 64, 2)
    assert old.bytes == 128 * 2**20
    (new,) = rotary_caches(model, 2, (0, 32, 0))
    assert new.rows == 262_144 and new.bytes == 32 * 2**20


def test_vp_672_load_matches_its_print():
    """tp 2 on two RTX 3090 (SM 8.6, Marlin), 0.27.1: weights + rotary cache + Marlin group scales."""
    plan = plan_vllm(_model(VARIANTS[0]), lookup_gpu("RTX-3090"), ParallelSpec(tp=2),
                     VllmOptions(engine_version="0.27.1", max_model_len=262_144, kv_cache_dtype="fp8_e4m3",
                                 gpu_memory_utilization=0.92))
    load = sum(i.bytes.bytes for i in plan.ledger.items if i.item in LOAD_ITEMS) / 2**30
    assert abs(load - PRINTED_LOAD_GIB) < 0.03, load
