"""The weights load under ``max_split_size_mb`` 20 from vLLM 0.21.0 (helper near14, 2026-12-05;
``VllmRules.load_max_split_mib``, ``engines/vllm/weight_blocks.py``).

vLLM 0.21.0's ``v1/worker/gpu_worker.py Worker.load_model`` wraps the runner's ``load_model`` in
``_scoped_allocator_max_split(max_split_size_mb=20)`` (absent in 0.20.0); c10's ``should_split`` then requires
``size < max_split_size``, so a weight tensor of ≥ 20 MiB keeps its whole 2 MiB-rounded segment and the allocated
stat ('Model loading took') counts it.  The wrapper skips non-CUDA platforms up to 0.30.0 (``is_cuda()``) and takes
ROCm too from 0.31.0 (``is_cuda_alike()``).  Printed checks: Qwen2.5-1.5B-Instruct 'Model loading took 2.8833 GiB'
under 0.9.2 (vl_205) and 2.98 GiB under 0.28.0 / 0.30.0 (vl_857, vl_202)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.load_lines import ALLOCATOR_ITEM
from tpkit.engines.vllm.versions import rules_for
from tpkit.engines.vllm.weight_blocks import torch_block_bytes, weight_block_rounding
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from towers_testlib import config_model  # noqa: E402

MIB = 2**20
LIMIT = 20 * MIB


@pytest.mark.parametrize("size, default, limited", [
    (int(24.5 * MIB), int(24.5 * MIB), 26 * MIB),    # 1.5 MiB left: split by default, kept under the limit
    (int(52.5 * MIB), int(52.5 * MIB), 54 * MIB),    # Qwen2.5-1.5B gate_up
    (int(26.25 * MIB), int(26.25 * MIB), 28 * MIB),  # Qwen2.5-1.5B down_proj
    (20 * MIB + 512, 20 * MIB + 512, 22 * MIB),      # just over the limit
    (int(18.5 * MIB), int(18.5 * MIB), int(18.5 * MIB)),  # under the limit: split as before
    (11 * MIB, 12 * MIB, 12 * MIB),                  # ≤ 1 MiB left: kept either way
    (3 * MIB, 3 * MIB, 3 * MIB)])                    # below 10 MiB: carved from a shared segment
def test_a_tensor_of_at_least_the_limit_keeps_its_segment(size, default, limited):
    assert torch_block_bytes(size) == default
    assert torch_block_bytes(size, LIMIT) == limited


@pytest.mark.parametrize("release, cuda, rocm", [((0, 20, 0), None, False), ((0, 21, 0), 20, False),
                                                 ((0, 30, 0), 20, False), ((0, 31, 0), 20, True),
                                                 ((0, 33, 0), 20, True)])
def test_release_boundaries(release, cuda, rocm):
    rules = rules_for(release)
    assert rules.load_max_split_mib == cuda
    assert rules.load_max_split_rocm is rocm


def test_qwen2_5_1_5b_moves_by_what_its_print_moves():
    model = config_model("Qwen--Qwen2.5-1.5B-Instruct")  # H 1536, I 8960, 28 layers, tied 151,936 × 1536
    default, _ = weight_block_rounding(model, ParallelSpec(), 2)
    limited, _ = weight_block_rounding(model, ParallelSpec(), 2, max_split_bytes=LIMIT)
    # per layer gate_up 52.5 → 54 and down 26.25 → 28 MiB; the embedding (445.125 → 446 MiB, ≤ 1 MiB left) is
    # rounded either way
    assert default.bytes == int(0.875 * MIB)
    assert limited.bytes - default.bytes == 28 * int(3.25 * MIB)
    tensors = 1_543_714_304 * 2 + 32_768 * 128 * 2  # the tensors and the rotary cache
    assert (tensors + default.bytes) / 2**30 == pytest.approx(2.8833, abs=0.003)   # 0.9.2 (vl_205)
    # 0.28.0 / 0.30.0 print 2.98 (format_gib: [2.975, 2.985) GiB); the plan is 2.972, 3 MiB under that interval
    assert 2.975 - 0.003 <= (tensors + limited.bytes) / 2**30 < 2.985
    assert (tensors + default.bytes) / 2**30 < 2.975 - 0.09  # without the limit: 0.09 GiB short


def _line(stem: str, release: str, gpu: str) -> int:
    options = VllmOptions(engine_version=release, max_model_len=4096)
    plan = get_engine("vllm").plan(config_model(stem), lookup_gpu(gpu), ParallelSpec(), options)
    return next((l.bytes.bytes for l in plan.ledger.items if l.item == ALLOCATOR_ITEM), 0)


@pytest.mark.parametrize("gpu, before, after", [("A100-80GB", "0.20.0", "0.21.0"), ("MI300X", "0.30.0", "0.31.0")])
def test_the_plan_charges_the_segments_from_the_boundary(gpu, before, after):
    # Qwen2.5-7B: o_proj 24.5 MiB (1.5 MiB left) joins the rounding under the limit, 28 × 1.5 MiB more
    assert _line("Qwen--Qwen2.5-7B-Instruct", before, gpu) == 57 * MIB
    assert _line("Qwen--Qwen2.5-7B-Instruct", after, gpu) == 57 * MIB + 42 * MIB


def test_rocm_before_0_31_keeps_the_default_split():
    assert _line("Qwen--Qwen2.5-1.5B-Instruct", "0.30.0", "MI300X") < _line("Qwen--Qwen2.5-1.5B-Instruct", "0.30.0",
                                                                              "A100-80GB")
