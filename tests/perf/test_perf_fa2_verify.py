"""vLLM FLASH_ATTN on FlashAttention 2 (``perf.fa2_verify``): FA2 splits the KV only for one query token per request
("Only apply split-k for decoding", vllm-project/flash-attention ``flash_api.cpp`` ``mha_varlen_fwd``), so on the GPUs
where vLLM runs FA2 (SM 8.x, SM 12.x) the verify and the drafter's first step stream each request's whole cache
through one block per query head, and such a block computes its padded 64-row tile (``run_mha_fwd_splitkv_dispatch``
``kBlockM = 64``) at one SM's tensor rate at most.  The case that found it: Qwen3.5-397B on 4x RTX PRO 6000, vLLM
0.17.0rc1, MTP 2 (local-inference-lab/rtx6kpro ``benchmarks/inference-throughput``): the AWQ build (16-bit KV: FA2)
loses at 32k-128k while the NVFP4 builds (calibrated fp8 KV: FlashInfer) keep ~1.5x.  Helper aw13 (2026-12-05)."""

from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.device import device_rates
from tpkit.perf.fa2_verify import FA2_BLOCK_M, fa2_block_flops, fa2_verify_without_split, multi_token_attention
from tpkit.perf.forward import kernel_us
from tpkit.perf.impl import impl_profile
from tpkit.perf.mla_splits import verify_attention_mode
from tpkit.perf.runtime import runtime_for
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels

ROOT = Path(__file__).resolve().parents[2]
AWQ = load_model(str(ROOT / "bench/data/qwen3.5-397b-a17b-awq.config.json"))
NVFP4 = load_model(str(ROOT / "bench/data/qwen3.5-397b-a17b-nvfp4.config.json"))
MTP2 = SpecSettings(algorithm="NEXTN", num_steps=2, topk=1, num_draft_tokens=3)
RTX = lookup_gpu("RTX-PRO-6000")


@pytest.mark.parametrize("backend, cc, nosplit", [
    ("FLASH_ATTN", (12, 0), True),     # RTX PRO 6000 / RTX 50xx: FA2
    ("FLASH_ATTN", (8, 0), True),      # A100: FA2
    ("FLASH_ATTN", (8, 9), True),      # L40S / RTX 4090: FA2
    ("FLASH_ATTN", (9, 0), False),     # Hopper: FA3 (its own split scheduler)
    ("FLASH_ATTN", (10, 0), False),    # SM 10.x: FA4 (not modelled)
    ("FLASHINFER", (12, 0), False),
    ("TRITON_ATTN", (12, 0), False),
])
def test_which_gpus_run_the_verify_without_a_kv_split(backend, cc, nosplit):
    assert fa2_verify_without_split(backend, cc) is nosplit


def test_vllm_runtime_on_sm120_for_a_16_bit_kv_cache():
    rt = runtime_for("vllm", "0.17.0", compute_capability=(12, 0), mla=False, topk=1, algorithm="NEXTN",
                     head_dim=256, kv_quantized=False)
    assert rt.attention_backend == "FLASH_ATTN"
    assert rt.verify_split_kv is False
    assert verify_attention_mode(rt) == multi_token_attention(rt) == "fa2_nosplit"
    assert rt.to_dict()["verify_attention"] == "no_kv_split"
    assert any("Only apply split-k for decoding" in f for f in rt.facts)
    plain = runtime_for("vllm", "0.17.0", compute_capability=(12, 0), mla=False, topk=None, algorithm=None,
                        head_dim=256)
    assert plain.verify_split_kv is True          # no speculation: nothing changes


@pytest.mark.parametrize("kw", [
    dict(compute_capability=(12, 0), kv_quantized=True),   # fp8 KV: FA2 has none, FLASHINFER is picked
    dict(compute_capability=(9, 0), kv_quantized=False),   # FA3
    dict(compute_capability=(12, 0), kv_quantized=False, attention_backend="FLASHINFER"),
])
def test_other_vllm_deployments_keep_the_split_verify(kw):
    rt = runtime_for("vllm", "0.17.0", mla=False, topk=1, algorithm="NEXTN", head_dim=256, **kw)
    assert rt.verify_split_kv is True
    assert verify_attention_mode(rt) == multi_token_attention(rt) == "decode"


def test_sglang_triton_keeps_its_own_no_split_mode():
    rt = runtime_for("sglang", "0.5.9", compute_capability=(12, 0), mla=True, topk=1, algorithm="EAGLE3")
    assert rt.attention_backend == "triton" and not rt.verify_split_kv
    assert multi_token_attention(rt) == "extend_nosplit"


def test_a_block_computes_its_padded_tile_at_one_sms_rate_at_most():
    dev = device_rates(RTX)
    assert dev.sm_flops == pytest.approx(503.8e12 / 188)
    ctx = 131072
    kw = dict(impl=impl_profile("vllm"), quant=AWQ.quant, kv_bytes=2)
    batch = Batch(sequences=1, tokens_per_sequence=3, context=ctx)
    fa2 = [k for k in forward_kernels(AWQ, Shard(tp=4), batch, attention="fa2_nosplit", **kw) if k.kind == "attention"]
    ext = [k for k in forward_kernels(AWQ, Shard(tp=4), batch, attention="extend_nosplit", **kw)
           if k.kind == "attention"]
    (k,) = {x.name: x for x in fa2}.values()
    assert k.cta_flops == fa2_block_flops(ctx + 3, 256) == 4.0 * FA2_BLOCK_M * 256 * (ctx + 3)
    assert k.cta_bytes == (ctx + 3) * 2 * 256 * 2                  # K + V of one KV head, bf16
    floor_us = k.cta_flops / dev.sm_flops * 1e6
    assert floor_us == pytest.approx(3.21e3, rel=0.01)            # 24.5 ns per cached token
    assert kernel_us(k, dev) >= floor_us
    assert kernel_us(ext[0], dev) < 0.6 * floor_us                # the bytes alone stream at ~90 GB/s here
    h200 = device_rates(lookup_gpu("H200"))                        # 7.5 TFLOP/s per SM: the byte rate binds
    assert kernel_us(k, h200) == pytest.approx(kernel_us(ext[0], h200))


def _plan(model, context, **kw):
    return plan_perf(PerfRequest(model=model, gpu=RTX, tp=4, batch=1, context=context, engine="vllm",
                                 engine_version="0.17.0", spec=MTP2, accept_length=2.57, **kw))


def _speedup(model, context, **kw):
    return _plan(model, context, **kw).speculative.speedup


def test_the_verdict_names_a_split_kv_backend_as_the_way_out():
    msg = _plan(AWQ, 131072 + 1024).verdict.message
    assert "--attention-backend FLASHINFER" in msg and "Only apply split-k for decoding" in msg
    assert "--attention-backend FLASHINFER" not in _plan(NVFP4, 131072 + 1024).verdict.message


def test_awq_mtp_loses_at_long_context_and_nvfp4_does_not():
    """rtx6kpro matrix, batch 1: AWQ 1.41x at 0 context, 0.86x at 32k, 0.42x at 128k; NVFP4 1.54-1.66x throughout."""
    assert _speedup(AWQ, 1024) > 1.5
    assert _speedup(AWQ, 32768 + 1024) < 0.95
    assert _speedup(AWQ, 131072 + 1024) < 0.5
    assert NVFP4.quant.kv_cache_fp8                               # the checkpoints' calibrated fp8 scheme
    assert _speedup(NVFP4, 131072 + 1024) > 1.5
    # the backend decides, not the quantisation: AWQ on FlashInfer or with an fp8 cache keeps its speed-up
    assert _speedup(AWQ, 131072 + 1024, attention_backend="FLASHINFER") > 1.5
    assert _speedup(AWQ, 131072 + 1024, kv_cache_dtype="fp8") > 1.5
