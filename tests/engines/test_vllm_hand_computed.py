"""Issue 11's hand-computed vLLM expectations, pinned end to end (plan_vllm with the available KV bytes given).

The expected numbers are helper G's hand computation from the released wheels (HAND_COMPUTED.md V1, V2, V2b,
V3, 2026-12-01), re-derived here step by step in the comments: the available bytes ``A`` are an input (vLLM
logs them as "Available KV cache memory"; ``--kv-cache-memory-bytes`` makes vLLM use exactly that), everything
after it follows from the model config, the GPU and the release.  Configs: ``data_vllm_issue11/`` (SOURCES.md).
"""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights

DATA = Path(__file__).resolve().parent / "data_vllm_issue11"
W = GivenWeights(Bytes(10 * 2**30))  # weights do not enter the capacity once A is given


def _model(stem):
    return from_config_dict(json.loads((DATA / f"{stem}.json").read_text()), name=stem, source=stem)


def _plan(stem, version, available, tp=1, **kw):
    return plan_vllm(_model(stem), H200, ParallelSpec(tp=tp),
                     VllmOptions(engine_version=version, kv_cache_memory_bytes=Bytes(available), **kw), weights=W)


# V1 — Gemma-3-27B-it, 1 × H200, defaults (T = 8192 on a ≥ 70 GiB GPU), A = 77,000,000,000 B.
# 62 layers = 10 full + 52 sliding (W 1024) → group_size 10: 1 full + 6 sliding groups; page 16·16·256·2 = 131,072
# B; block = 10 pages = 1,310,720 B → 58,746 blocks.  Per request: full 8,192; sliding cdiv(min(1023 + in-flight,
# 131,072), 16) + 1 per group: 0.33 in-flight 2·8192 → 1,089 × 6 → 14,726; ≤ 0.25 in-flight 8192 → 577 × 6 → 11,654.
@pytest.mark.parametrize("version, per_request, lines", [
    ("0.33.0", 14_726, ["GPU KV cache size: 522,881 tokens, Maximum concurrency for 131,072 tokens per request: 3.99x"]),
    ("0.26.0", 14_726, ["GPU KV cache size: 522,881 tokens",
                        "Maximum concurrency for 131,072 tokens per request: 3.99x"]),
    ("0.25.0", 11_654, ["GPU KV cache size: 660,713 tokens",
                        "Maximum concurrency for 131,072 tokens per request: 5.04x"]),
    ("0.20.0", 11_654, ["GPU KV cache size: 134,272 tokens",  # 58,746 // 7 groups × 16
                        "Maximum concurrency for 131,072 tokens per request: 5.04x"]),
])
def test_gemma3_27b_capacity_per_release(version, per_request, lines):
    r = _plan("google--gemma-3-27b-it", version, 77_000_000_000)
    assert r.extra["block_size"] == 16 and r.extra["bytes_per_block"] == 1_310_720
    assert r.extra["kv_blocks"] == 58_746
    assert [g["kind"] for g in r.extra["kv_groups"]].count("sliding") == 6
    assert round(r.extra["kv_blocks"] / r.max_concurrency) == per_request
    assert list(r.engine_log[-len(lines):]) == lines
    assert r.extra["estimated_max_model_len"] == 131_072 and r.verdict.fits


# V2 — gpt-oss-120b, 1 × H200, 0.33, A = 60,000,000,000 B.  18 sliding (W 128) + 18 full, page 16·8·128·2 = 32,768;
# block 18 pages = 589,824 B → 101,725 blocks; per request 8,192 + cdiv(127 + 16,384, 16) + 1 = 9,225 →
# 11.0271x, int(11.0271 × 131,072) = 1,445,344 tokens.
def test_gpt_oss_120b_current():
    r = _plan("openai--gpt-oss-120b", "0.33", 60_000_000_000)
    assert (r.extra["bytes_per_block"], r.extra["kv_blocks"]) == (589_824, 101_725)
    assert r.kv_tokens == 1_445_344 and f"{r.max_concurrency:.2f}" == "11.03"
    assert r.engine_log[-1] == ("GPU KV cache size: 1,445,344 tokens, Maximum concurrency for 131,072 tokens per "
                                "request: 11.03x")


# V2b — gpt-oss-120b, 0.10.2 (util 0.9, T = 8192), same A: num_blocks = A // 32,768 // 18 = 101,725; printed
# 101,725 // 2 groups × 16 = 813,792 (what 36 full-attention layers would print); concurrency hybrid-aware:
# 8,192 + cdiv(127 + 8,192, 16) + 1 = 8,713 → 11.68x; fit 18 × 8,713 × 32,768 ≤ A (no block reserved).
def test_gpt_oss_120b_0_10_prints_every_layer_as_full_attention():
    r = _plan("openai--gpt-oss-120b", "0.10.2", 60_000_000_000)
    assert r.extra["kv_blocks"] == 101_725 and r.kv_tokens == 813_792
    assert list(r.engine_log[-2:]) == ["GPU KV cache size: 813,792 tokens",
                                       "Maximum concurrency for 131,072 tokens per request: 11.68x"]
    assert r.extra["gpu_memory_utilization"] == 0.9


# V3 — Kimi-K2-Instruct, 8 × H200, TP 8, --decode-context-parallel-size 8, A = 5,000,000,000 B per rank.
# Hopper + bf16 KV → FLASH_ATTN_MLA, block 16 (≥ 0.18); page 16 × 576 × 2 = 18,432; block 61 pages = 1,124,352 B
# → 4,447 blocks; per request per rank cdiv(cdiv(131,072, 8), 16) = 1,024 → 4.3428x; tokens int(4.3428 × 131,072) =
# 569,216 (= 4,447 × 16 × 8).  ≤ 0.20 prints 4,447 // 1 × 16 × 8 with the "Multiplying …" line first.
def test_kimi_k2_dcp8_current():
    r = _plan("moonshotai--Kimi-K2-Instruct", "0.33", 5_000_000_000, tp=8, decode_context_parallel_size=8)
    assert (r.extra["block_size"], r.extra["bytes_per_block"], r.extra["kv_blocks"]) == (16, 1_124_352, 4_447)
    assert r.kv_tokens == 569_216 and r.extra["decode_context_parallel_size"] == 8
    assert r.engine_log[-1] == ("GPU KV cache size: 569,216 tokens, Maximum concurrency for 131,072 tokens per "
                                "request: 4.34x")
    assert r.verdict.fits


def test_kimi_k2_dcp8_before_0_21_multiplies_the_printed_size():
    r = _plan("moonshotai--Kimi-K2-Instruct", "0.20.0", 5_000_000_000, tp=8, decode_context_parallel_size=8)
    assert r.kv_tokens == 569_216
    assert list(r.engine_log[-3:]) == [
        "Multiplying the GPU KV cache size by the cp_world_size 8 (pcp_world_size 1 * dcp_world_size 8).",
        "GPU KV cache size: 569,216 tokens", "Maximum concurrency for 131,072 tokens per request: 4.34x"]
    old = _plan("moonshotai--Kimi-K2-Instruct", "0.11.0", 5_000_000_000 * 4, tp=8, decode_context_parallel_size=8)
    assert old.engine_log[-3] == "Multiplying the GPU KV cache size by the dcp_world_size 8."
    assert old.extra["block_size"] == 64  # FlashMLA forced before 0.18


def test_kimi_k2_without_dcp_does_not_fit_one_request():
    """Without DCP a request needs 8,192 blocks: 0.54x, and 131,072 tokens do not fit in A."""
    r = _plan("moonshotai--Kimi-K2-Instruct", "0.33", 5_000_000_000, tp=8)
    assert r.kv_tokens == 71_152 and f"{r.max_concurrency:.2f}" == "0.54"
    assert not r.verdict.fits and r.verdict.knob == "--max-model-len"
