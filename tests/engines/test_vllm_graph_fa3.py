"""FlashAttention 3's split-KV accumulators in vLLM's first FULL CUDA-graph capture (helper vx25, 2026-12-06,
session 25; engines/vllm/graph_fa3.py).

The FLASH_ATTN backend runs FA3 on SM 9.x (``v1/attention/backends/fa_utils.py``); with FULL graphs it passes
``max_num_splits`` 32 (``config/attention.py flash_attn_max_num_splits_for_cuda_graph``, 0.16.0–0.34.0 wheels), and
FA3 allocates fp32 ``out_accum`` / ``softmax_lse_accum`` for them (``hopper/flash_api.cpp``) unless the batch holds more
than 992 sequences.  Pinned: the size against every llm-d-planner H100 log that prints the per-mode samples at DEBUG,
the GPU boundary (SM 9.0 against 8.9 / 10.0 / 12.0, FLASHINFER, ROCm), the 992-sequence boundary, and the release
boundary of the subtraction (0.19 prints the estimate without subtracting it, 0.20 subtracts it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.graph_fa3 import FA3_GRAPH_SPLITS, FA3_MAX_SPLIT_BATCH, fa3_split_accumulators, runs_fa3
from tpkit.engines.vllm.graph_evidence import GRAPH_EVIDENCE
from tpkit.engines.vllm.graphs import FIRST_CAPTURE_BYTES, estimate_cudagraph_memory
from tpkit.engines.vllm import resolve_rules
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, MiB

from vllm_fixtures import H200, GivenWeights, llama3_8b

LOGS = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm"
W = GivenWeights(Bytes(8_030_261_248 * 2))
FULL_FIRST = re.compile(r"Estimated FULL CUDA graph memory: ([\d.]+) MiB first-capture")


def test_the_buffers_are_32_splits_of_fp32_output_and_lse():
    llama = fa3_split_accumulators(heads=32, head_dim_v=128, tokens=512, sequences=512)
    assert FA3_GRAPH_SPLITS == 32 and llama == Bytes(32 * 32 * 512 * (128 + 1) * 4)      # 258 MiB
    assert fa3_split_accumulators(heads=8, head_dim_v=128, tokens=512, sequences=512) * 4 == llama  # tp 4
    assert fa3_split_accumulators(heads=32, head_dim_v=128, tokens=512, sequences=128) == llama  # 1 + 3 spec tokens


def test_no_split_above_992_sequences():
    assert FA3_MAX_SPLIT_BATCH == 992
    assert fa3_split_accumulators(heads=32, head_dim_v=64, tokens=992, sequences=992) > Bytes(0)
    assert fa3_split_accumulators(heads=32, head_dim_v=64, tokens=1024, sequences=1024) == Bytes(0)


def test_every_printed_full_first_sample_of_the_corpus():
    """The llm-d-planner H100 sweep (vLLM 0.19.0) prints 'Estimated FULL CUDA graph memory: X MiB first-capture' at
    DEBUG: the accumulators (plus a few MiB of graph) on FA3 rows, a few MiB where FA3 does not split (TRITON_ATTN,
    gpt-oss's 1,024-sequence graph)."""
    seen = 0
    for g in GRAPH_EVIDENCE:
        path = LOGS / f"{g.source}.log"
        printed = sorted({float(x) for x in FULL_FIRST.findall(path.read_text(errors="replace"))}) if path.exists() else []
        if not printed:
            continue
        seen += 1
        heads, dim, top = g.fa3
        planned = fa3_split_accumulators(heads=heads, head_dim_v=dim, tokens=top, sequences=top)
        for mib in printed:  # one line per rank
            assert -3 <= mib - planned.bytes / 2**20 <= 10, (g.source, mib, planned)  # lse: 2 MiB of a 258
    assert seen == 15


@pytest.mark.parametrize("cc, backend, rocm, fa3", [
    ((9, 0), "FLASH_ATTN", False, True), ((8, 9), "FLASH_ATTN", False, False), ((12, 0), "FLASH_ATTN", False, False),
    ((10, 0), "FLASH_ATTN", False, False), ((9, 0), "FLASHINFER", False, False), ((9, 0), "TRITON_ATTN", False, False),
    ((9, 4), "FLASH_ATTN", True, False)])
def test_only_flash_attn_on_hopper_runs_fa3(cc, backend, rocm, fa3):
    assert runs_fa3(backend, cc, rocm) is fa3


def _estimate(cc, **kw):
    base = dict(v2_runner=False, max_num_seqs=512, max_num_batched_tokens=8192, compute_capability=cc, layers=32,
                attention_backend="FLASH_ATTN", heads=32, head_dim_v=128)
    return estimate_cudagraph_memory(resolve_rules("0.21.0"), **{**base, **kw})


def test_the_estimate_takes_the_buffers_as_its_first_full_sample_on_hopper_only():
    hopper, ada = _estimate((9, 0)), _estimate((8, 9))
    buffers = fa3_split_accumulators(heads=32, head_dim_v=128, tokens=512, sequences=512)  # FULL up to 512
    assert (hopper.bytes - ada.bytes) == (buffers - FIRST_CAPTURE_BYTES) > MiB(90)
    assert "FA3 split-KV accumulators 258 MiB" in hopper.formula and "FA3" not in ada.formula
    small = _estimate((9, 0), max_num_seqs=256)  # FULL up to 256: 129 MiB, under the 0.155 GiB first sample
    assert small.bytes == _estimate((8, 9), max_num_seqs=256).bytes
    assert _estimate((9, 0), mode="PIECEWISE").bytes == _estimate((8, 9), mode="PIECEWISE").bytes  # no FULL graph
    big = _estimate((9, 0), max_num_seqs=1024, max_capture_size=1024)  # 1,024 sequences: FA3 does not split
    assert "FA3" not in big.formula and big.bytes == _estimate((8, 9), max_num_seqs=1024, max_capture_size=1024).bytes


def _graphs(version, **kw):
    plan = plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version=version, **kw), weights=W)
    return plan.extra["cuda_graph_bytes"]


def test_the_plan_subtracts_the_buffers_from_0_20_and_prints_only_before():
    """0.19 measures and prints the estimate without subtracting it (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS "0"):
    nothing moves; 0.20 subtracts it, FA3's 258 MiB first sample in place of the 0.155 GiB constant (H200, 512-token
    FULL graphs); --attention-backend TRITON_ATTN on the same card takes the constant."""
    assert _graphs("0.19.0") == 0
    fa3, triton = _graphs("0.20.0"), _graphs("0.20.0", attention_backend="TRITON_ATTN")
    buffers = fa3_split_accumulators(heads=32, head_dim_v=128, tokens=512, sequences=512)
    assert fa3 - triton == (buffers - FIRST_CAPTURE_BYTES).bytes
    assert _graphs("0.19.0", vllm_memory_profiler_estimate_cudagraphs="1") == fa3
