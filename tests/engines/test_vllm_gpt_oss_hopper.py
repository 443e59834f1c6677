"""gpt-oss on vLLM (helper v90, issue 11): the Hopper triton_kernels MXFP4 backend's load extras, the float32
rotary cache of ``GptOssAttention``, and the Triton top-k/top-p dummy sampler of vLLM 0.17–0.20."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.mxfp4 import triton_mxfp4_extra_bytes
from tpkit.engines.vllm.policy import rotary_cache_bytes
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

CONFIGS = Path(__file__).resolve().parents[1] / "validation/configs"
_SWIZZLED = 5888 * 90 + 3072 * 90
"""gpt-oss Hopper scales: w13 5,760 rows → 5,888 and w2 2,880 → 3,072 (256-row tiles), 90 scales along K"""
_CHECKPOINT_SCALES = 5760 * 90 + 2880 * 90
_BIAS_FP32 = (4 - 2) * (2 * 2880 + 2880)
"""the expert biases in float32 instead of the checkpoint's bf16"""


def _spec(name: str):
    path = CONFIGS / name
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source=str(path))


@pytest.mark.parametrize("cc, applies", [((9, 0), True), ((8, 0), False), ((8, 9), False), ((10, 0), False),
                                         ((12, 0), False), (None, False)])
def test_triton_mxfp4_extras_only_on_hopper(cc, applies):
    oss = _spec("openai--gpt-oss-20b.json")
    extra = triton_mxfp4_extra_bytes(oss, ParallelSpec(), (0, 14, 1), cc)
    assert extra.bytes == (24 * 32 * (_SWIZZLED + _BIAS_FP32) if applies else 0)


@pytest.mark.parametrize("release, per_expert", [
    ((0, 11, 0), 0),                                               # torch 2.8.0: strided layout, backend per install
    ((0, 12, 0), _SWIZZLED + _BIAS_FP32),                          # swizzled copy, originals kept
    ((0, 14, 1), _SWIZZLED + _BIAS_FP32),
    ((0, 24, 0), _SWIZZLED + _BIAS_FP32),
    ((0, 25, 0), _SWIZZLED - _CHECKPOINT_SCALES + _BIAS_FP32),     # originals deleted: only the padding stays
    ((0, 29, 0), _SWIZZLED - _CHECKPOINT_SCALES + _BIAS_FP32),
])
def test_triton_mxfp4_extras_by_release(release, per_expert):
    oss = _spec("openai--gpt-oss-20b.json")
    assert triton_mxfp4_extra_bytes(oss, ParallelSpec(), release, (9, 0)).bytes == 24 * 32 * per_expert
    llama = _spec("meta-llama--Llama-3.1-8B-Instruct.json")
    assert triton_mxfp4_extra_bytes(llama, ParallelSpec(), release, (9, 0)).bytes == 0


def test_triton_mxfp4_extras_split_with_tp_and_ep():
    big = _spec("openai--gpt-oss-120b.json")
    # tp 2: I/tp = 1,440 → 1,472 (a multiple of 64); values: w13 2·1,472 rows × 1,440 B, w2 2,880 rows × 736 B
    # (736 B → a multiple of 32) against the checkpoint's 3 × 1,440 × 2,880 / 2; scales: w13 2,944 rows → 3,072
    # × 90, w2 2,880 → 3,072 × 46 swizzled, the kept originals at 1,472 (2,944 × 90 + 2,880 × 46) against the
    # counted 2,880 × 90 + 2,880 × 45; biases 4 B × (2,944 + 2,880) against 2 B × (2,880 + 2,880)
    values = 2944 * 1440 + 2880 * 736 - 3 * 1440 * 2880 // 2
    scales = 3072 * 90 + 3072 * 46 + (2944 * 90 + 2880 * 46) - (2880 * 90 + 2880 * 45)
    per_expert = values + scales + 4 * (2944 + 2880) - 2 * (2880 + 2880)
    assert triton_mxfp4_extra_bytes(big, ParallelSpec(tp=2), (0, 14, 1), (9, 0)).bytes == 36 * 128 * per_expert
    # ep 4 keeps the full width and holds a quarter of the experts
    assert (triton_mxfp4_extra_bytes(big, ParallelSpec(tp=4, ep=4), (0, 14, 1), (9, 0)).bytes
            == 36 * 32 * (_SWIZZLED + _BIAS_FP32))


def test_gpt_oss_rotary_cache_is_float32():
    oss = _spec("openai--gpt-oss-20b.json")
    assert rotary_cache_bytes(oss, 2).bytes == 131_072 * 64 * 4
    llama = _spec("meta-llama--Llama-3.1-8B-Instruct.json")
    assert rotary_cache_bytes(llama, 2).bytes == 131_072 * 128 * 2


def _load(plan):
    return sum((l.bytes for l in plan.ledger.items
                if l.item in ("model weights", "rotary cos/sin cache") or l.item.startswith("MXFP4 MoE")), GiB(0))


@pytest.mark.parametrize("config, printed", [("openai--gpt-oss-20b.json", 13.47), ("openai--gpt-oss-120b.json", 64.38)])
def test_gpt_oss_on_h100_vllm_0_14_load_matches_the_print(config, printed):
    # 'Model loading took' of the llm-d config_explorer H100 runs (vllm/vllm-openai:latest, 2026-01-26)
    r = plan_vllm(_spec(config), lookup_gpu("H100-SXM-80GB"), ParallelSpec(), VllmOptions(engine_version="0.14.1"),
                  search_fixes=False)
    assert any(l.item == "MXFP4 MoE swizzle (Hopper triton_kernels)" for l in r.ledger.items)
    assert _load(r).gib == pytest.approx(printed, abs=0.05)  # 0.03 / 0.05 GiB short: not traced
    # before 0.12.0 the triton rule does not apply (0.11.0 pins torch 2.8.0 and vendors no triton_kernels): a plain
    # install runs Marlin there (helper mv13: 0.10.2-0.11.2 get_mxfp4_backend, vp_300 'Using Marlin backend'), and
    # 0.10.1 too (helper mx29: _should_use_marlin's torch < 2.8.0 → Marlin, the wheel pins torch 2.7.1)
    old = plan_vllm(_spec(config), lookup_gpu("H100-SXM-80GB"), ParallelSpec(), VllmOptions(engine_version="0.11.0"),
                    search_fixes=False)
    assert [l.item for l in old.ledger.items if l.item.startswith("MXFP4 MoE")] == ["MXFP4 MoE padding (Marlin)"]
    first = plan_vllm(_spec(config), lookup_gpu("H100-SXM-80GB"), ParallelSpec(), VllmOptions(engine_version="0.10.1"),
                      search_fixes=False)
    assert [l.item for l in first.ledger.items if l.item.startswith("MXFP4 MoE")] == ["MXFP4 MoE padding (Marlin)"]


def _sampler_phase(version, gpu="A100-SXM-80GB"):
    oss = _spec("openai--gpt-oss-20b.json")
    r = plan_vllm(oss, lookup_gpu(gpu), ParallelSpec(), VllmOptions(engine_version=version), search_fixes=False)
    return next(l for l in r.ledger.items if l.item == "profile phase: logits + sampler")


def test_triton_top_k_top_p_sampler_from_0_17():
    # A100 80 GB: 2,048 tokens, 256 sequences (not an A100 for the large batch); 108 SMs → a 108-row buffer
    v, h = 201_088, 2048 * 2880 * 2
    assert _sampler_phase("0.16.0").bytes.bytes == h + 256 * v * 38
    assert _sampler_phase("0.17.0").bytes.bytes == h + 256 * v * 14 + 108 * v * 4
    assert _sampler_phase("0.19.0").bytes.bytes == h + 256 * v * 14 + 108 * v * 4


def test_triton_sampler_sorts_below_eight_rows_and_caps_the_buffer():
    oss = _spec("openai--gpt-oss-20b.json")
    v = oss.vocab_size
    few = estimate_profile_peak(oss, ParallelSpec(), tokens=4, rows=4, act_bytes=2, sampler="triton", sm_count=132)
    assert next(l for l in few.parts if "sampler" in l.item).bytes.bytes == 4 * 2880 * 2 + 4 * v * 38
    many = estimate_profile_peak(oss, ParallelSpec(), tokens=64, rows=40, act_bytes=2, sampler="triton", sm_count=132)
    # 40 programs → next power of two, 64 rows (≤ 132 SMs)
    assert next(l for l in many.parts if "sampler" in l.item).bytes.bytes == 64 * 2880 * 2 + 40 * v * 14 + 64 * v * 4
    unknown = estimate_profile_peak(oss, ParallelSpec(), tokens=1024, rows=1024, act_bytes=2, sampler="triton")
    assert next(l for l in unknown.parts if "sampler" in l.item).bytes.bytes == (1024 * 2880 * 2 + 1024 * v * 14
                                                                                 + 132 * v * 4)
