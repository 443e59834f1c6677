"""Mixtral's expert-parallel MoE of vLLM 0.2.5–0.3.0 and the AWQ split-K temporary before 0.3.0
(engines/vllm/mixtral_v0.py; vllm 0.2.4–0.2.7 and 0.3.0 wheels: models/mixtral.py MixtralMoE, mixtral_quant.py,
layers/quantization/awq.py AWQLinearMethod.apply_weights).  Helper old02, 2026-12-05, session 15: vp_676 (Mixtral
8x7B AWQ, tp 2, 0.2.7) +260.8 % → +145.4 %.  Helper old03 (2026-12-05, session 16): the split-K sum's fp32
AccumulationBuffer of PyTorch 2.1.1 / 2.1.2 (Reduce.cuh gpu_reduce_kernel): vp_676 +145.4 % → +117.8 %."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.mixtral_v0 import INT32_MAX, awq_split_k, expert_parallel, replay, split_k_accumulation_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "tests/validation/configs/TheBloke--Mixtral-8x7B-Instruct-v0.1-AWQ.json"
GIB = 2**30


def _mixtral(awq: bool = True):
    cfg = json.loads(CONFIG.read_text())
    if not awq:
        cfg.pop("quantization_config", None)
    return from_config_dict(cfg, name="Mixtral-8x7B" + ("-AWQ" if awq else ""), source=str(CONFIG))


def test_replay_by_hand_awq():
    """T 32,768, tp 2, fp16, H 4,096, I 14,336, 4 experts per rank.  Allocated peak at w3's split-K sum: residual,
    the loop-held layer input, the MoE input (o_proj output) and the first expert's output (4H), the activated w1
    output (I), the [8, T, I] partial sums and w3's output (9I), and the sum's fp32 accumulation buffer (T × I × 4 B
    = 2I in fp16 units): T × (4H + 12I) × 2 B = 11.5 GiB (9.75 GiB without the buffer, helper old02).  Reserved: the
    embedding and first norm (0.25 + 0.25), qkv's split-K (1.5) and output (0.1875), o_proj's split-K (2.0), w1's
    (7.0) and the accumulation buffer's (1.75: no free block is that large when w1's sum asks) segments = 12.9375 GiB."""
    peak, reserved, _ = replay(_mixtral(), tp=2, tokens=32768, act_bytes=2, split_k=8)
    assert peak == 32768 * (4 * 4096 + 12 * 14336) * 2
    assert reserved == int(12.9375 * GIB)


@pytest.mark.parametrize("tokens, width, expected", [
    (32768, 14336, 32768 * 14336 * 4),   # w1 / w3 at T 32,768: 8 × T × I × 2 B = 7 GiB of partial sums
    (32768, 4096, 0),                    # w2 / o_proj: M × N = 2^27, largest byte offset exactly 2^31 − 1
    (32768 + 1, 4096, (32768 + 1) * 4096 * 4),  # one row more: past the int32 limit
    (32768, 3072, 0),                    # qkv at tp 2
    (2048, 14336, 0)])                   # a short profile: 32-bit indexing, no buffer
def test_split_k_accumulation_boundary(tokens, width, expected):
    """PyTorch 2.1.1 / 2.1.2 Reduce.cuh gpu_reduce_kernel: a Half-in, Half-out sum cannot accumulate in its output;
    when the iterator cannot use 32-bit indexing (numel or an operand's largest byte offset above 2^31 − 1,
    TensorIteratorBase::can_use_32bit_indexing) it allocates an AccumulationBuffer of output numel × sizeof(float)
    through the caching allocator."""
    assert split_k_accumulation_bytes(split_k=8, tokens=tokens, width=width, act_bytes=2) == expected
    if expected == 0 and tokens * width * 8 > 2**27:
        assert 1 + (8 * tokens * width - 1) * 2 <= INT32_MAX


def test_split_k_accumulation_needs_split_k_and_half():
    """No split-K temporary (0.3.0's dequantise-and-matmul, unquantized layers): no sum, no buffer; a float output
    accumulates in place (out_t_size ≥ acc_t_size)."""
    assert split_k_accumulation_bytes(split_k=0, tokens=32768, width=14336, act_bytes=2) == 0
    assert split_k_accumulation_bytes(split_k=8, tokens=32768, width=14336, act_bytes=4) == 0


def test_replay_by_hand_unquantized():
    """Without split-K the peak is at w2: 4H + its own output H + act, w3 and their product (3I)."""
    peak, _, _ = replay(_mixtral(awq=False), tp=2, tokens=32768, act_bytes=2, split_k=0)
    assert peak == 32768 * (5 * 4096 + 3 * 14336) * 2


@pytest.mark.parametrize("version, awq, on", [
    ("0.2.4", True, False), ("0.2.4", False, False),   # Megablocks BlockSparseMoE
    ("0.2.5", True, True), ("0.2.5", False, True), ("0.2.7", True, True), ("0.2.7", False, True),
    ("0.3.0", False, False),                           # unquantized: fused_moe
    ("0.3.0", True, True),                             # quantized: mixtral_quant.py
    ("0.3.1", True, False)])                           # not read: not charged
def test_expert_parallel_boundaries(version, awq, on):
    release = tuple(int(x) for x in version.split("."))
    model = _mixtral(awq)
    assert expert_parallel(model, release=release, engine="V0", flag="awq" if awq else None) is on


def test_expert_parallel_only_mixtral_on_v0():
    assert not expert_parallel(_mixtral(), release=(0, 2, 7), engine="V1", flag="awq")


@pytest.mark.parametrize("version, awq, k", [("0.2.3", True, 8), ("0.2.7", True, 8), ("0.3.0", True, 0),
                                             ("0.2.7", False, 0)])
def test_awq_split_k_boundary(version, awq, k):
    """0.2.3–0.2.7 call awq_gemm with split_k_iters = pack_factor 8 at every token count; 0.3.0 dequantises and
    matmuls from 256 tokens."""
    release = tuple(int(x) for x in version.split("."))
    assert awq_split_k(_mixtral(awq), release=release, flag="awq" if awq else None) == k


def _moe_line(version: str):
    opts = VllmOptions(engine_version=version, max_model_len=32768, quantization="awq", gpu_memory_utilization=0.5,
                       enforce_eager=True)
    plan = plan_vllm(_mixtral(), lookup_gpu("A100-80GB"), ParallelSpec(tp=2), opts)
    return next(line for line in plan.ledger.items if line.item == "profile phase: MoE layer"), plan


def test_plan_on_both_sides():
    """0.2.7: the replay with split-K; 0.3.0 (quantized: mixtral_quant.py) the replay without it; 0.2.4 and 0.3.1:
    the fused-MoE formula."""
    line, _ = _moe_line("0.2.7")
    assert "expert-parallel" in line.source and "split-K" in line.source
    assert line.bytes.bytes == 32768 * (4 * 4096 + 12 * 14336) * 2
    line, _ = _moe_line("0.3.0")
    assert "expert-parallel" in line.source and "split-K" not in line.source
    for version in ("0.2.4", "0.3.1"):
        line, _ = _moe_line(version)
        assert "expert-parallel" not in line.source


def test_vp_676_blocks():
    sys.path.insert(0, str(ROOT / "tests/validation"))
    import harness

    case = next(c for c in harness.load_cases("vllm") if c["id"] == "vp_676")
    row = harness.predict(case)
    assert row.printed == 6487
    # 15,917 before the start-up table gained helper ev15's rows (lead, session 15); 15,918 -> 14,126 with the
    # split-K sum's fp32 accumulation buffer (helper old03, session 16)
    # 14126 before helper ev24: the A100 context model 0.490 -> 0.496 GiB (2026-12-06); 14120 -> 13655 with helper
    # ev33's profile-window NCCL cell (V0 reads profile:nvlink:2, world 4's vLLM line, 1.28 GiB, against 0.82)
    # 13655 -> 13652: the cross-family CUDA-context line with sg_720 (4x GB300) in it, A100 0.496 -> 0.499 GiB (lead,
    # session 37)
    assert row.predicted == 13652
