"""The caching allocator's rounding of vLLM's weight tensors (helper vres, 2026-12-05; ``engines/vllm/weight_blocks.py``).

PyTorch's ``CUDACachingAllocator``: sizes round up to 512 B; a request of ≥ 10 MiB gets its own segment rounded up to
2 MiB; a large block is split only when more than 1 MiB would remain, and the allocated-bytes stat counts the whole
block.  vLLM's 'Model loading took' is that stat's delta.  Printed checks: Qwen2-7B-Instruct 'Model loading took
14.2488 GiB' at tp 1 and '7.1217 GiB' at tp 2 (vp_025, vp_027; vLLM 0.10.1.1)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.load_lines import ALLOCATOR_ITEM
from tpkit.engines.vllm.weight_blocks import torch_block_bytes, weight_block_rounding, weight_tensors
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from towers_testlib import config_model  # noqa: E402

MIB = 2**20


@pytest.mark.parametrize("size, counted", [
    (1, 512), (512, 512), (513, 1024),                       # 512-byte rounding
    (MIB, MIB), (3 * MIB + 1, 3 * MIB + 512),                # below 10 MiB: carved from a 20 MiB segment, split
    (10 * MIB - 512, 10 * MIB - 512),                        # just under kMinLargeAlloc: not rounded to 2 MiB
    (10 * MIB + 512, 10 * MIB + 512),                        # 12 MiB segment leaves 2 MiB − 512 > 1 MiB: split
    (11 * MIB, 12 * MIB),                                    # 1 MiB left: kept with the block
    (11 * MIB - 512, 11 * MIB - 512),                        # 1 MiB + 512 left: split
    (12 * MIB, 12 * MIB),                                    # a whole 2 MiB multiple
    (int(31.5 * MIB), 32 * MIB), (int(24.5 * MIB), int(24.5 * MIB))])
def test_torch_block_bytes(size, counted):
    assert torch_block_bytes(size) == counted


def test_qwen2_7b_fused_tensors_and_the_printed_loads():
    model = config_model("Qwen--Qwen2.5-7B-Instruct")  # H 3584, I 18944, 28 layers, vocab 152064, untied
    names = {n: b for n, b, _ in weight_tensors(model, ParallelSpec(), 2)}
    assert names["model.layers.0.self_attn.qkv_proj"] == (3584 + 512 + 512) * 3584 * 2  # 31.5 MiB → 32
    assert names["model.layers.0.mlp.gate_up_proj"] == 2 * 18944 * 3584 * 2               # 259 MiB → 260
    assert "model.layers.0.self_attn.q_proj" not in names
    tp1, n1 = weight_block_rounding(model, ParallelSpec(), 2)
    tp2, _ = weight_block_rounding(model, ParallelSpec(tp=2), 2)
    # per layer: qkv +0.5, gate_up +1, down (129.5 MiB) +0.5, o_proj (24.5 MiB: 1.5 MiB left, split) 0; the
    # embedding and lm_head (1,039.5 MiB) +0.5 each
    assert tp1.bytes == 28 * 2 * MIB + MIB and n1 == 28 * 3 + 2
    assert tp2.bytes == int(28 * 0.75 * MIB + 0.5 * MIB)
    tensors = 7_615_616_512 * 2 + 32_768 * 128 * 2  # the tensors and the rotary cache
    assert (tensors + tp1.bytes) / 2**30 == pytest.approx(14.2488, abs=0.0002)  # printed, within 0.2 MiB
    assert (tensors + tp1.bytes - 57 * MIB) / 2**30 == pytest.approx(14.1930, abs=0.0001)  # without: 57 MiB short


def test_whole_2mib_tensors_round_nothing():
    model = config_model("meta-llama--Llama-3.1-8B-Instruct")
    assert weight_block_rounding(model, ParallelSpec(), 2)[0].bytes == 0


def test_tied_embedding_counts_once_and_experts_fuse_per_layer():
    tied = config_model("Qwen--Qwen2.5-3B-Instruct")
    assert [n for n, _, _ in weight_tensors(tied, ParallelSpec(), 2) if "embed" in n or "lm_head" in n] == [
        "model.embed_tokens"]
    moe = config_model("Qwen--Qwen3-30B-A3B")  # 128 experts of 768, H 2048
    names = {n: b for n, b, _ in weight_tensors(moe, ParallelSpec(tp=2), 2)}
    assert names["model.layers.0.mlp.experts.w13_weight"] == 128 * 2 * 384 * 2048 * 2
    assert names["model.layers.0.mlp.experts.w2_weight"] == 128 * 2048 * 384 * 2


def _plan(stem, **kw):
    model = config_model(stem)
    options = VllmOptions(engine_version="0.10.1.1", max_model_len=4096, **kw)
    return get_engine("vllm").plan(model, lookup_gpu("A100-80GB"), ParallelSpec(), options)


def test_plan_charges_it_in_the_load_delta_for_unquantised_weights_only():
    plan = _plan("Qwen--Qwen2.5-7B-Instruct")
    line = next(l for l in plan.ledger.items if l.item == ALLOCATOR_ITEM)
    assert line.bytes.bytes == 57 * MIB
    assert not any(l.item == ALLOCATOR_ITEM for l in _plan("meta-llama--Llama-3.1-8B-Instruct").ledger.items)
    assert not any(l.item == ALLOCATOR_ITEM for l in _plan("Qwen--Qwen2.5-7B-Instruct-AWQ",
                                                                  quantization="awq").ledger.items)
    offloaded = _plan("Qwen--Qwen2.5-7B-Instruct", cpu_offload_gb=4)
    assert not any(l.item == ALLOCATOR_ITEM for l in offloaded.ledger.items)
