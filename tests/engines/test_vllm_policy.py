"""plan_vllm end to end on CPU: budget, ledger, override, CUDA graphs, verdicts and log lines."""

import json
import math

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, rotary_cache_bytes
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB

from vllm_fixtures import A100, H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))


def _plan(**kw):
    # helper cur17 (2026-12-05): these tests check the estimate-based sizing, which 0.33 is the last release to use
    # by default (0.34's extensible KV cache: tests/engines/test_vllm_034.py)
    kw.setdefault("engine_version", "0.33")
    par = kw.pop("parallel", ParallelSpec())
    gpu = kw.pop("gpu", H200)
    machine = kw.pop("machine", None)
    return plan_vllm(llama3_8b(), gpu, par, VllmOptions(**kw), machine=machine, weights=W)


@pytest.mark.parametrize("kw", [{}, {"engine_version": "0.11"}, {"engine_version": "v0"},
                                {"parallel": ParallelSpec(tp=2)}, {"enforce_eager": True},
                                {"kv_cache_memory_bytes": GiB(40)}, {"max_model_len": 4096, "kv_cache_dtype": "fp8"}])
def test_ledger_adds_up_to_zero_and_kv_line_matches_blocks(kw):
    result = _plan(**kw)
    assert result.ledger.check(Bytes(0)) == []
    kv = result.ledger.get("KV cache").bytes
    assert kv.bytes == result.extra["kv_blocks"] * result.extra["bytes_per_block"]
    assert result.kv_pool.total_bytes == kv
    json.dumps(result.to_json_dict())


def test_requested_is_ceil_in_current_rules_and_floor_before():
    total = H200.total_bytes.bytes
    assert _plan().extra["requested_bytes"] == math.ceil(total * 0.92)
    assert _plan(engine_version="0.11").extra["requested_bytes"] == math.floor(total * 0.9)


def test_available_is_requested_minus_non_kv_terms():
    r = _plan()
    led = r.ledger
    non_kv = sum(led.get(i).bytes.bytes for i in ("model weights", "rotary cos/sin cache",
                                                  "activation peak (profile run, estimate)",
                                                  "non-torch growth during profiling", "CUDA graphs (estimate)",
                                                  "Model Runner V2 request/sampling state"))  # V2 from 0.29
    assert r.extra["available_kv_bytes"] == r.extra["requested_bytes"] - non_kv
    assert r.extra["kv_blocks"] == r.extra["available_kv_bytes"] // (2 * 2**20)


def test_enforce_eager_gives_the_graph_estimate_back_to_the_kv_cache():
    with_graphs, eager = _plan(), _plan(enforce_eager=True)
    graphs = with_graphs.ledger.get("CUDA graphs (estimate)").bytes
    assert graphs > Bytes(0)
    assert eager.extra["available_kv_bytes"] - with_graphs.extra["available_kv_bytes"] == graphs.bytes
    assert "CUDA graphs (estimate)" not in [l.item for l in _plan(engine_version="0.11").ledger.items]


def test_kv_cache_memory_bytes_override_sizes_the_pool_exactly():
    r = _plan(kv_cache_memory_bytes=GiB(40))
    assert r.extra["available_kv_bytes"] == GiB(40).bytes
    assert r.extra["kv_blocks"] == GiB(40) // Bytes(2 * 2**20) == 20_480
    assert r.verdict.fits


def test_override_larger_than_free_memory_is_flagged():
    r = _plan(kv_cache_memory_bytes=GiB(200))
    assert not r.verdict.fits and r.verdict.knob == "--kv-cache-memory-bytes"


def test_defaults_follow_the_version_and_the_gpu():
    assert _plan().extra["gpu_memory_utilization"] == 0.92
    assert _plan(engine_version="0.11").extra["gpu_memory_utilization"] == 0.9
    assert (_plan().extra["max_num_batched_tokens"], _plan().extra["max_num_seqs"]) == (8192, 1024)
    a100 = _plan(gpu=A100)
    assert (a100.extra["max_num_batched_tokens"], a100.extra["max_num_seqs"]) == (2048, 256)
    v0 = _plan(engine_version="v0", max_model_len=20_000)
    assert (v0.extra["max_num_batched_tokens"], v0.extra["max_num_seqs"]) == (20_000, 256)


def test_printed_lines_per_era():
    cur = _plan().engine_log
    assert any(l.startswith("GPU KV cache size: ") and ", Maximum concurrency for 131,072 tokens" in l for l in cur)
    assert any(l.startswith("Available KV cache memory: ") and l.endswith(" GiB") for l in cur)
    old = _plan(engine_version="0.11").engine_log
    assert any(l.startswith("GPU KV cache size: ") and l.endswith(" tokens") for l in old)
    assert any(l.startswith("Maximum concurrency for 131,072 tokens per request: ") for l in old)
    v0 = _plan(engine_version="v0", max_model_len=20_000, gpu=A100).engine_log
    assert v0[0] == f"Loading model weights took {(W.bytes_per_rank + rotary_cache_bytes(llama3_8b(), 2)).bytes / 2**30:.4f} GB"
    assert any(l.startswith("# GPU blocks: ") for l in v0)


def test_current_tokens_line_equals_blocks_times_block_for_block_multiple_len():
    r = _plan(max_model_len=8192)
    assert r.kv_tokens == r.extra["kv_blocks"] * 16
    assert f"GPU KV cache size: {r.kv_tokens:,} tokens, Maximum concurrency for 8,192 tokens per request: " \
           f"{r.extra['kv_blocks'] / 512:.2f}x" in r.engine_log


def _machine(free: Bytes) -> MachineProfile:
    total = H200.total_bytes
    gpus = tuple(GpuState(index=i, name="NVIDIA H200", total_bytes=total, free_bytes=free if i == 1 else total)
                 for i in range(2))
    return MachineProfile(gpus=gpus)


def test_startup_check_uses_the_least_free_gpu_and_says_how_far_to_lower():
    r = _plan(machine=_machine(GiB(100)), parallel=ParallelSpec(tp=2))
    assert not r.verdict.fits and r.verdict.knob == "--gpu-memory-utilization"
    assert "is less than desired GPU memory utilization (0.92" in r.verdict.message
    suggested = float(r.verdict.message.rsplit("--gpu-memory-utilization ", 1)[1].split()[0])
    assert _plan(machine=_machine(GiB(100)), parallel=ParallelSpec(tp=2),
                 gpu_memory_utilization=suggested).verdict.fits
    assert r.ledger.rank_label.startswith("GPU 1")
    # the start-up shortfall is an info line (never a negative reserve), and the lines add up to it
    short = r.ledger.get("requested beyond the free memory (start-up check fails)")
    assert short.kind == "info" and short.bytes < Bytes(0)
    assert r.ledger.check(short.bytes) == []
    assert all(line.bytes >= Bytes(0) for line in r.ledger.items if line.kind != "info")


def test_too_long_max_model_len_reports_the_estimated_length_and_it_fits():
    r = _plan(gpu_memory_utilization=0.15)
    assert not r.verdict.fits and r.verdict.knob == "--max-model-len"
    est = r.extra["estimated_max_model_len"]
    assert f"the estimated maximum model length is {est}." in r.verdict.message
    assert 0 < est < 131_072
    assert _plan(gpu_memory_utilization=0.15, max_model_len=est).verdict.fits
    assert not _plan(gpu_memory_utilization=0.15, max_model_len=est + 16).verdict.fits
    util = float(r.verdict.message.rsplit("--gpu-memory-utilization ", 1)[1].split()[0])
    assert _plan(gpu_memory_utilization=util).verdict.fits


def test_no_memory_for_cache_blocks():
    r = _plan(gpu_memory_utilization=0.05)
    assert not r.verdict.fits and "No available memory for the cache blocks" in r.verdict.message
    assert r.kv_pool is None and r.ledger.check(Bytes(r.extra["available_kv_bytes"])) == []


def test_weights_are_planned_from_the_model_when_not_given():
    r = plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions())
    assert r.ledger.get("model weights").bytes.bytes == pytest.approx(16.06e9, rel=0.01)
