"""vLLM V1's multimodal encoder profile (``engines/vllm/encoder.py``, ``encoder_budget``, ``encoder_qwen3vl``), hand-computed from the wheels.

- Items per batch (``v1/core/encoder_cache_manager.py compute_mm_encoder_budget``; ``v1/worker/utils.py`` /
  ``multimodal/encoder_budget.py MultiModalBudget._get_max_items``): the budget is max(max_num_batched_tokens,
  t).  From 0.10.1 the per-prompt count is capped at max_model_len // t; 0.10.0 takes the limit alone; before
  0.10.0 the count is ``cdiv`` (0.9.2), which is not modelled.
- Qwen3-VL / Qwen3.5 (``qwen3_vl.py``, ``qwen2_vl.py``): the image has the most features under the released
  processor's longest_edge of 16,777,216 px, 16,384 merged tokens.  From 0.15.0 the dummy video is two frames at
  25,165,824 / 2 px, 12,288 tokens.  0.12.0–0.14.1 size the dummy video from max_model_len (frames from 2 up,
  at most 24,576; transformers' video ``smart_resize`` keeps all frames under 25,165,824 px); 0.11.x–0.12.x count
  each video token as 12.5 text tokens (``get_max_video_tokens``), so the video is the dummy there and 0.12.0's
  ``profile_run`` widens its output to that count (0.11.x: to the encoder budget).  0.11.x's tower holds the fp32
  angle table (N·(hd/2)·4) and runs ``Qwen2_5_VisionAttention``'s 0.11 forms (fp32 rotation of q‖k; 0.11.0
  all-gathers qkv at tp > 1).  vLLM has no Qwen3-VL before 0.11.0.
- The V1 runner keeps the dummy batch during the text run (``profile_run``'s local); Model Runner V2 does not
  (``execute_mm_encoder``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.encoder import encoder_profile
from tpkit.engines.vllm.encoder_budget import items_per_batch
from tpkit.engines.vllm.encoder_qwen3vl import QWEN3_VL_PROCESSOR
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
GIB = 2**30


def _model(stem: str):
    return from_config_dict(json.loads((CONFIGS / f"{stem}.json").read_text()), name=stem, source="test")


QWEN3_VL = "Qwen--Qwen3-VL-30B-A3B-Instruct-FP8"  # vl_024 / vp_024: depth 27, d 1152, i 4304, 3 deepstack, out 2048
QWEN35 = "Qwen--Qwen3.8-27B"  # vl_073: the same tower, no deepstack, out 5120


def _plan(stem: str, version: str, **flags):
    options = VllmOptions(engine_version=version, **{"gpu_memory_utilization": 0.7, "max_model_len": 32768,
                                                     "max_num_seqs": 4, **flags})
    return plan_vllm(_model(stem), lookup_gpu("RTX-PRO-6000"), ParallelSpec(tp=1), options)


def _line(plan, item: str):
    return next(li for li in plan.ledger.items if li.item == item)


def test_items_per_batch_per_prompt_cap_from_0_10_1():
    # t = 1,000 tokens, budget 16,384 → 16 by the encoder budget; 4 requests × per-prompt
    kw = dict(max_num_batched_tokens=16384, max_num_seqs=4, max_model_len=2048)
    assert items_per_batch((0, 10, 1), 1000, **kw) == 8  # per prompt min(999, 2048 // 1000 = 2) → 4 × 2
    assert items_per_batch((0, 20, 0), 1000, **kw) == 8
    assert items_per_batch((0, 10, 0), 1000, **kw) == 16  # per prompt = the limit, 999
    assert items_per_batch((0, 9, 2), 1000, **kw) is None  # cdiv era, not modelled
    # an item larger than the budget raises it: one item
    assert items_per_batch((0, 20, 0), 16384, max_num_batched_tokens=8192, max_num_seqs=256,
                           max_model_len=8192) == 1
    assert items_per_batch((0, 20, 0), 280, max_num_batched_tokens=2496, max_num_seqs=256,
                           max_model_len=32768, limit=999) == 8


def test_qwen3_vl_dummy_item_and_peak_by_hand():
    model = _model(QWEN3_VL)
    enc, why = encoder_profile(model, release=(0, 20, 2), engine="V1", tp=1, max_num_batched_tokens=8192,
                               max_num_seqs=4, max_model_len=32768, act_bytes=2, v2_runner=False)
    assert why == "" and enc.modality == "image" and enc.tokens_per_item == 16384 and enc.items == 1
    assert QWEN3_VL_PROCESSOR["image_longest_edge"] // 32**2 == 16384
    n, d, i = 65536, 1152, 4304  # 16,384 tokens × 2 × 2 merge
    held = n * 1536 * 2 + n * d * 2 + n * 72 * 2 + 3 * 16384 * 2048 * 2  # pixels, pos, rotary, deepstack
    block = max(n * 11 * d * 2, n * (3 * d + 2 * i) * 2)  # attention 11d > MLP 3d + 2i
    assert block == n * 11 * d * 2
    assert enc.peak.bytes == held + block  # 2.07 GiB
    assert round(enc.peak.bytes / GIB, 2) == 2.07
    outputs = 16384 * 2048 * 4 * 2
    assert enc.kept.bytes == outputs + n * 1536 * 2  # the V1 runner keeps the dummy pixels too
    v2, _ = encoder_profile(model, release=(0, 29, 0), engine="V1", tp=1, max_num_batched_tokens=8192,
                            max_num_seqs=4, max_model_len=32768, act_bytes=2, v2_runner=True)
    assert v2.kept.bytes == outputs and v2.peak == enc.peak


def test_qwen3_vl_tp_shards_the_block_widths():
    model = _model(QWEN3_VL)
    kw = dict(release=(0, 20, 2), engine="V1", max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=32768,
              act_bytes=2, v2_runner=False)
    one, two = encoder_profile(model, tp=1, **kw)[0], encoder_profile(model, tp=2, **kw)[0]
    n, d = 65536, 1152
    # attention 3d + 8d/tp, plus at tp > 1 the projection's out-of-place all-reduce output (d; helper pcie15,
    # engines/vllm/encoder_qwen2vl_tower.py reduced_copy_bytes): 11d at tp 1, 3d + 4d + d = 8d at tp 2
    assert one.peak.bytes - two.peak.bytes == n * (11 * d - 8 * d) * 2


def test_release_boundaries_0_12_0_0_13_0_and_the_warning():
    model = _model(QWEN3_VL)
    kw = dict(engine="V1", tp=1, max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=32768, act_bytes=2,
              v2_runner=False)
    new = encoder_profile(model, release=(0, 15, 0), **kw)[0]
    # 0.13.0–0.14.1: the video is ≤ 12,288 tokens with no 12.5 factor, so the image is the dummy: 0.15.0's profile
    for release in ((0, 13, 0), (0, 14, 1)):
        assert encoder_profile(model, release=release, **kw)[0] == new
    # 0.12.0: 24,576 frames of 32 × 32 px = 12,288 temporal patches × 2 × 2 = 49,152 patches, 12,288 merged tokens,
    # counted as int(12,288 × 12.5) = 153,600 (vp_124's log: "a budget of 153600 tokens ... 1 video items")
    old = encoder_profile(model, release=(0, 12, 0), **kw)[0]
    assert (old.modality, old.tokens_per_item, old.items) == ("video", 153_600, 1)
    n, d, out, deep = 49_152, 1152, 2048, 3  # i 4304: the MLP (3d + 2i) is below the attention at tp 1
    held = n * 1536 * 2 + n * d * 2 + n * (d // 16) * 2 + deep * (n // 4) * out * 2
    assert old.peak.bytes == held + n * (3 * d + 8 * d) * 2  # the attention beats the MLP (3d + 2i) at tp 1
    output, widened, pixels = (n // 4) * out * (1 + deep) * 2, 153_600 * out * (1 + deep) * 2, n * 1536 * 2
    assert old.kept.bytes == output + widened + pixels == 2_868_903_936
    before, why = encoder_profile(model, release=(0, 10, 2), **kw)
    assert before is None and "before 0.11.0" in why
    p10, p12 = _plan(QWEN3_VL, "0.10.2"), _plan(QWEN3_VL, "0.12.0")
    assert any("vision encoder" in w and "before 0.11.0" in w for w in p10.warnings)
    assert not any("vision encoder" in w for w in p12.warnings)
    assert _line(p12, "profile phase: vision encoder (dummy items)").bytes == old.peak
    assert "2.34 GiB widened to 153,600 rows" in _line(p12, "profile phase: vision encoder (dummy items)").source


def test_qwen3_vl_0_11_tower_by_hand():
    model = _model(QWEN3_VL)
    kw = dict(engine="V1", max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=32768, act_bytes=2,
              v2_runner=False)
    n, d, hd, out, deep = 49_152, 1152, 72, 2048, 3  # the same 24,576-frame dummy video as 0.12.0 (i 4304)
    held = n * 1536 * 2 + n * d * 2 + n * (hd // 2) * 4 + deep * (n // 4) * out * 2  # fp32 angle table
    # 0.11.1–0.11.2 at tp 1: max(N·(2d + 7d)·a + N·2d·8 + N·hd·4, N·(3d + 8d)·a) beats the MLP N·(3d + 2i)·a
    late = encoder_profile(model, release=(0, 11, 2), tp=1, **kw)[0]
    assert late.tokens_per_item == 153_600 and late.peak.bytes == held + n * (18 * d + 16 * d + hd * 4)
    # 0.11.0: N·(2d + 10d)·a + N·2d·8 + N·hd·4; at tp 2 the all-gathered qkv N·3d·a on top, the rest sharded
    early = encoder_profile(model, release=(0, 11, 0), tp=1, **kw)[0]
    assert early.peak.bytes == held + n * (24 * d + 16 * d + hd * 4)
    two = encoder_profile(model, release=(0, 11, 0), tp=2, **kw)[0]
    assert two.peak.bytes == held + n * (2 * d + 10 * 576) * 2 + n * 2 * 576 * 8 + n * hd * 4 + n * 3 * d * 2
    # widened to the encoder budget max(max_num_batched_tokens, t) = 153,600 rows, as 0.12.0 widens to t
    assert late.kept.bytes == early.kept.bytes == 2_868_903_936
    wide = encoder_profile(model, release=(0, 11, 2), tp=1, **{**kw, "max_num_batched_tokens": 200_000})[0]
    assert wide.kept.bytes - late.kept.bytes == (200_000 - 153_600) * out * (1 + deep) * 2


def test_qwen3_vl_dummy_video_frames_follow_max_model_len_before_0_15():
    model = _model(QWEN3_VL)
    kw = dict(engine="V1", tp=1, max_num_batched_tokens=8192, max_num_seqs=4, act_bytes=2, v2_runner=False)
    # max_model_len 8,192: already 2 frames (the search's start) exceed it, so the video stays at 2 frames of
    # 4096² px resized: beta = sqrt(2 × 4096² / 25,165,824) → floor(4096 / beta / 32) × 32 = 3,520 px,
    # 220 × 220 patches, 12,100 merged tokens, counted as 151,250 in 0.12.0
    short = encoder_profile(model, release=(0, 12, 0), max_model_len=8192, **kw)[0]
    assert (short.modality, short.tokens_per_item) == ("video", 151_250)
    assert "12,100 merged tokens counted as 151,250" in short.formula and "48,400 patches" in short.formula
    # 24,576 frames once max_model_len reaches 12,288
    long = encoder_profile(model, release=(0, 12, 0), max_model_len=65536, **kw)[0]
    assert long.tokens_per_item == 153_600 and "49,152 patches" in long.formula

def test_plan_charges_the_encoder_pass_and_skip_mm_profiling_removes_it():
    with_enc = _plan(QWEN3_VL, "0.20.2")
    act = _line(with_enc, "activation peak (profile run, estimate)")
    enc = _line(with_enc, "profile phase: vision encoder (dummy items)")
    assert act.bytes == enc.bytes and "encoder step first: 1 dummy image" in act.source
    moe = _line(with_enc, "profile phase: MoE layer")
    assert "encoder outputs kept 0.44 GiB" in moe.source  # 0.25 GiB outputs + 0.19 GiB dummy pixels
    skipped = _plan(QWEN3_VL, "0.20.2", skip_mm_profiling=True)
    assert not any("vision encoder" in li.item for li in skipped.ledger.items)
    assert not any("vision encoder" in w for w in skipped.warnings)
    assert _line(skipped, "activation peak (profile run, estimate)").bytes < act.bytes
    # the text peak (0.73 GiB: the attention phase over the kept fused-MoE workspace of 0.18+, helper v11a,
    # test_vllm_moe_workspace.py; 0.63 GiB with the MoE phase alone, 0.47 GiB before the workspace rule) is what is
    # left: 2.07 − 0.73 GiB = 1.34 GiB more KV
    gained = (skipped.kv_tokens - with_enc.kv_tokens) * 98304
    assert 1.29 * GIB < gained < 1.39 * GIB


def test_qwen35_wrapper_on_model_runner_v2():
    plan = _plan(QWEN35, "0.29.0", gpu_memory_utilization=0.9, max_model_len=8192, max_num_seqs=256)
    enc = _line(plan, "profile phase: vision encoder (dummy items)")
    assert "kept for the text run 0.16 GiB (outputs)" in enc.source  # 16,384 × 5,120 × 2 B, no pixels on V2


@pytest.mark.parametrize("stem,version", [("google--gemma-4-26B-A4B-it", "0.25.1"),
                                          ("llava-hf--llava-v1.6-mistral-7b-hf", "0.30.0")])  # 0.10.2–0.29.0 modelled (q2n)
def test_other_families_keep_the_warning(stem, version):
    model = _model(stem)
    enc, why = encoder_profile(model, release=tuple(int(x) for x in version.split(".")), engine="V1", tp=1,
                               max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=32768, act_bytes=2,
                               v2_runner=False)
    assert enc is None and ("not modelled" in why or "read for vLLM" in why)
    plan = plan_vllm(model, lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=1),
                     VllmOptions(engine_version=version, max_model_len=4096))
    assert any(w.startswith("multimodal: vLLM profiles the vision encoder") for w in plan.warnings)
    assert not any("vision encoder" in li.item for li in plan.ledger.items)


def test_skip_mm_profiling_must_be_a_bool():
    from tpkit.errors import PlanInputError
    with pytest.raises(PlanInputError, match="skip_mm_profiling"):
        VllmOptions(skip_mm_profiling="yes")
    assert replace(VllmOptions(), skip_mm_profiling=True).skip_mm_profiling is True


def test_skip_mm_profiling_exists_from_0_10_1():
    from tpkit.errors import PlanInputError
    assert VllmOptions(engine_version="0.10.1", skip_mm_profiling=True).skip_mm_profiling is True
    with pytest.raises(PlanInputError, match="from vLLM 0.10.1"):
        VllmOptions(engine_version="0.10.0", skip_mm_profiling=True)
