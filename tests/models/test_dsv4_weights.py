"""DeepSeek-V4 weights per rank (``tpkit.models.dsv4_weights``): hand sums from the engines' module shapes.

The config is the assembled DeepSeek-V4-Flash one (tests/logs/data/configs/deepseek-ai__DeepSeek-V4-Flash, see its
SOURCE.md): 43 layers, hidden 4096, 64 heads × head_dim 512, q_lora 1024, o_groups 8 × o_lora 1024, hc_mult 4,
256 experts × moe_intermediate 2048 (+1 shared), vocab 129,280, 3 hash layers, compress ratios: 2 × 0, 21 × 4, 20 × 128.
"""

import json
from pathlib import Path

import pytest

from tpkit.models.load import from_config_dict
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

CONFIG = Path(__file__).resolve().parents[1] / "logs/data/configs/deepseek-ai__DeepSeek-V4-Flash/config.json"


def _spec(**changes):
    cfg = json.loads(CONFIG.read_text())
    cfg.update(changes)
    return from_config_dict(cfg, name="deepseek-ai/DeepSeek-V4-Flash", source=str(CONFIG))


def _c4(fp8_scale):
    """a ratio-4 layer's compressor + indexer: wkv_gate 2048×4096 bf16, ape 4×1024 fp32, norm 512 (bf16 in vLLM);
    indexer wq_b 8192×1024 FP8 (+ 64×8 block scales), weights_proj 64×4096 bf16, its compressor of head_dim 128"""
    return (2048 * 4096 * 2 + 4 * 1024 * 4 + 512 * 2
            + 8192 * 1024 + 64 * 8 * fp8_scale + 64 * 4096 * 2 + 512 * 4096 * 2 + 4 * 256 * 4 + 128 * 2)


C128 = 1024 * 4096 * 2 + 128 * 512 * 4 + 512 * 2
"""a ratio-128 layer's compressor: wkv_gate 1024×4096 bf16, ape 128×512 fp32, norm 512 bf16"""
HYPER = 2 * 24 * 16384 * 4 + 2 * 24 * 4 + 2 * 3 * 4
"""hc_attn/ffn fn ((2+4)·4 × 4·4096) + bases + scales, fp32"""
NORMS = (1024 + 512 + 4096 + 4096) * 2


def test_vllm_tp2_deepseek_v4_fp8_hand_sum():
    """vLLM 0.23.0, tp 2, --quantization deepseek_v4_fp8 (MXFP4 experts, e8m0 1 B scales)."""
    attn = 1536 * 4096 + 16384 * 1024 + 4096 * 4096 + 4096 * 4096 + 64 * 4  # q_a+kv, wq_b/2, wo_a/2, wo_b/2, sink
    attn_scales = 12 * 32 + 128 * 8 + 32 * 32 + 32 * 32
    router = 256 * 4096 * 2
    shared = 2048 * 4096 + 4096 * 1024 + (16 * 32 + 32 * 8)  # gate_up/2, down/2 FP8 + block scales
    routed = 256 * (2048 * 4096 // 2 + 2048 * 128 + 4096 * 1024 // 2 + 4096 * 32)  # w13 + w2 halves, scale per 32
    per_layer = attn + attn_scales + NORMS + HYPER + router + shared + routed
    expected = (43 * per_layer + 3 * 129280 * 6 * 4 + 40 * 256 * 4 + 21 * _c4(1) + 20 * C128
                + 2 * 64640 * 4096 * 2 + 4096 * 2 + 4 * 16384 * 4 + 5 * 4)
    plan = plan_weights(_spec(), ParallelSpec(tp=2), quantization="deepseek_v4_fp8", engine="vllm")
    assert plan.bytes_per_rank.bytes == expected
    assert plan.bytes_per_rank.bytes / 2**30 == pytest.approx(73.26, abs=0.01)  # vl_064 prints 74.35 incl. rope


def test_sglang_dp_attention_fp8_experts_hand_sum():
    """SGLang 0.5.12, tp 4 dp 4 with DP attention, FP8 experts: attention and embedding whole, fp32 block scales."""
    attn = 1536 * 4096 + 32768 * 1024 + 8192 * 4096 + 4096 * 8192 + 64 * 4
    attn_scales = (12 * 32 + 256 * 8 + 64 * 32 + 32 * 64) * 4
    norms = (1024 + 512 + 4096 + 4096) * 2
    shared = 1024 * 4096 + 4096 * 512 + (8 * 32 + 32 * 4) * 4
    routed = 256 * (1024 * 4096 + 8 * 32 * 4 + 4096 * 512 + 32 * 4 * 4)
    per_layer = attn + attn_scales + norms + HYPER + 256 * 4096 * 2 + shared + routed
    c4 = (2048 * 4096 * 2 + 4 * 1024 * 4 + 512 * 4
          + 8192 * 1024 + 64 * 8 * 4 + 64 * 4096 * 2 + 512 * 4096 * 2 + 4 * 256 * 4 + 128 * 4)
    c128 = 1024 * 4096 * 2 + 128 * 512 * 4 + 512 * 4
    expected = (43 * per_layer + 3 * 129280 * 6 * 4 + 40 * 256 * 4 + 21 * c4 + 20 * c128
                + 129280 * 4096 * 2 + 32320 * 4096 * 2 + 4096 * 2 + 4 * 16384 * 4 + 5 * 4)
    plan = plan_weights(_spec(expert_dtype="fp8"), ParallelSpec(tp=4, dp=4, dp_attention=True),
                        quantization="fp8", engine="sglang")
    assert plan.bytes_per_rank.bytes == expected


def test_fp4_expert_scales_differ_by_engine():
    """MXFP4 expert scales: uint8 (e8m0) in vLLM, fp32 as SGLang 0.5.12 allocates them; values the same."""
    par = ParallelSpec(tp=2)
    lines = {e: {l.item: l.bytes.bytes for l in plan_weights(_spec(), par, quantization="fp8", engine=e).lines}
             for e in ("vllm", "sglang")}
    assert lines["vllm"]["routed experts"] == lines["sglang"]["routed experts"] == 43 * 256 * (2048 * 4096 // 2
                                                                                              + 4096 * 1024 // 2)
    expert_scales = 43 * 256 * (2048 * 128 + 4096 * 32)
    assert lines["sglang"]["quant scales"] - lines["vllm"]["quant scales"] > 3 * expert_scales - 10**7


def test_unquantised_plan_says_so_and_mtp_not_loaded():
    plan = plan_weights(_spec(), ParallelSpec(tp=2), engine="vllm")
    assert 270 * 2**30 > plan.bytes_per_rank.bytes > 130 * 2**30  # every matrix bf16
    assert any("--quantization deepseek_v4_fp8" in n for n in plan.notes)
    mtp = [l for l in plan.lines if l.item == "mtp/nextn layers"]
    assert mtp and mtp[0].bytes.bytes == 0 and plan.mtp_bytes.bytes > 0


def test_pp_and_ep_split():
    """PP 2: the fuller stage; EP 2: half the experts whole on each rank (the same routed bytes as TP 2)."""
    spec = _spec()
    tp2 = plan_weights(spec, ParallelSpec(tp=2), quantization="deepseek_v4_fp8", engine="vllm")
    ep2 = plan_weights(spec, ParallelSpec(tp=2, ep=2), quantization="deepseek_v4_fp8", engine="vllm")
    pp2 = plan_weights(spec, ParallelSpec(pp=2), quantization="deepseek_v4_fp8", engine="vllm", pp_split="vllm")
    routed = {p: next(l.bytes.bytes for l in p.lines if l.item == "routed experts") for p in (tp2, ep2)}
    assert routed[tp2] == routed[ep2]
    assert 0.45 < pp2.bytes_per_rank.bytes / (2 * tp2.bytes_per_rank.bytes) < 0.56
