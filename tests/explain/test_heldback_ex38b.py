"""Held-back round ex38b (helper ex38b, 2026-12-08, docs/accuracy.md §7.3): 6 public logs judged before adding.

The labels below were written from each thread before tpkit was run on the logs (the first commit of this file holds
only them); the blind results and the rules made after are recorded in docs/accuracy.md's "round ex38b" subsection.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| vl_1511 | QwenLM/Qwen3-VL#1684 (whwangovo, 2025-10-23: 'Vllm v0.11.0, Qwen3-VL-235B(-FP8) deployed on 8 A100s OOM', tp 8 ep) | crash cuda_graph | 'Available KV cache memory: 35.68 GiB', 'GPU KV cache size: 796,000 tokens', the PIECEWISE capture done (67/67), then 'Capturing CUDA graphs (decode, FULL): 9% … 3/35' and '(Worker_TP7_EP7 …) ERROR … [multiproc_', cut; the OOM is in the title |
| vl_1512 | local-inference-lab/rtx6kpro#103 (Seth777777777, 2026-09-15: 'Delayed production CUDA OOM on ds4-vision-jovian-judgement-r9: long-context prefill exceeds profiled peak by ~3 GiB', RTX PRO 6000) | crash first_request | 'WorkerProc hit an exception.' in `_execute_worker_rpc` -> `execute_model` -> `model_runner.execute_model` -> `self.model(**model_inputs)`, cut; the thread: a 128 MiB `torch.empty` failed in a production chunked prefill with 149,760 tokens of KV context |
| vl_1513 | gpustack/gpustack#1800 (pengjiang80, 2025-04-17: 'Qwen2.5-VL-7B failed to start with 3090 24GB with V0 engine by default', vLLM 0.8.4 in GPUStack v0.6.0) | crash kv_pool | `initialize_cache` -> `raise_if_cache_size_invalid` -> "ValueError: The model's max seq len (8192) is larger than the maximum number of tokens that can be stored in KV cache (2400)" |
| sg_1049 | opendatalab/MinerU#3375 (hanvegh, 2025-08-26: '不能使用vlm-sglang-engine', MinerU's SGLang engine, a 22 GB-class card) | crash cuda_graph | 'Load weight end … avail mem=20.18 GB', 'KV Cache is allocated. #tokens: 1530197', 'Capture cuda graph begin', the bar at 0/4, then 'Scheduler hit an exception' in flashinfer's JIT `run_ninja` (`CalledProcessError`, not memory), cut |
| sg_1050 | ovg-project/kvcached#198 (deepak-vij, 2025-10-28: 'KVCached support for gpt-oss-20b attention type not supported in SGLang') | crash kv_pool | 'Load weight end … avail mem=163.13 GB, mem usage=14.53 GB', '[kvcached] Init kvcached KV cache allocator …', then 'Scheduler hit an exception' in `Scheduler.__init__` -> `TpModelWorker`, cut; the title: the attention type is not supported (not memory) |
| sg_1051 | NVIDIA/srt-slurm#172 (ishandhanani, 2026-05-21: '[Bug] decode workers CUDA OOM due to mem-fraction-static 0.95 on GB200 GPUs', DeepSeek-R1 FP4 tp 4) | crash other | the block is torch's message only ('Tried to allocate 4.00 GiB. GPU 3 has a total capacity of 184.00 GiB of which 2.21 GiB is free'); the thread: raised in `prealloc_symmetric_memory_pool` (model_runner.py:3420), which SGLang 0.5.15's `ModelRunner.initialize` runs last, after the KV pool and the decode-graph capture: a start-up step of its own |
"""

from __future__ import annotations

LABELS = {
    "vl_1511": ("vllm", "crash", "cuda_graph"),
    "vl_1512": ("vllm", "crash", "first_request"),
    "vl_1513": ("vllm", "crash", "kv_pool"),
    "sg_1049": ("sglang", "crash", "cuda_graph"),
    "sg_1050": ("sglang", "crash", "kv_pool"),
    "sg_1051": ("sglang", "crash", "other"),
}

import pytest
from explain_testlib import explain_labelled, log_bytes

from tpkit.explain import explain_log
from tpkit.explain.unnamed import UNNAMED_PHASES

ENGINE_UNKNOWN = {"sg_1051"}
"""the one log whose engine is not read: torch's OOM message alone names no engine (no SGLang or vLLM line, path or
dump); explain asks for ``--engine`` rather than guess (not fixed: a bare torch message is the same for both)"""


def _explain(text: str):
    return explain_log(text.encode())


# -- the outcomes after the round's rule (pinned; docs/accuracy.md §7.3 round ex38b has the blind ones) -------------
@pytest.mark.parametrize("case_id", sorted(set(LABELS) - ENGINE_UNKNOWN))
def test_each_log_gets_its_engine_status_and_phase(case_id):
    explain_labelled(case_id, LABELS[case_id])


def test_a_bare_torch_oom_names_no_engine_and_no_step():
    e = explain_log(log_bytes("sg_1051"))
    assert e.parsed.engine.engine is None
    d = e.diagnosis
    assert (d.status, d.phase) == ("failed", "other") and "pass --engine" in d.cause and not d.fixes
    assert e.context.gpu.name == "GB200"  # the only catalog GPU whose total prints as 184.00 GiB


def test_the_printed_capacities_give_the_fits():
    d = explain_log(log_bytes("vl_1513")).diagnosis  # V0's ValueError prints the pool's tokens
    assert d.phase == "kv_pool" and d.fixes[0].flags == "--max-model-len 2400" and d.fixes[0].fits
    d = explain_log(log_bytes("sg_1049")).diagnosis  # a JIT build failing in the capture: not memory
    assert "not a lack of memory" in d.cause and [f.flags for f in d.fixes] == ["--disable-cuda-graph"]
    assert d.fixes[0].kv_tokens == 1_530_197  # the pool is unchanged by skipping the capture


def test_a_capture_cut_after_the_registration_skips_the_capture():
    d = explain_log(log_bytes("vl_1511")).diagnosis
    assert d.phase == "cuda_graph" and "does not print the error" in d.cause and "no memory fix is given" in d.cause
    assert [f.flags for f in d.fixes] == ["--enforce-eager"] and d.fixes[0].kv_tokens is None


def test_a_cut_serving_traceback_offers_nothing():
    d = explain_log(log_bytes("vl_1512")).diagnosis
    assert d.phase == "first_request" and "traceback cut" in d.cause and not d.fixes


# -- SGLang's KV-pool step with its error cut (explain.unnamed: kvcached#198) -----------------------------------------
def test_a_cut_traceback_in_sglangs_pool_step_claims_no_memory():
    """Blind, the cut traceback after kvcached's allocator line was read 'the KV pool could not be sized or
    allocated' and given '--mem-fraction-static 0.09' as a fit; the error (kvcached refusing gpt-oss's attention)
    is past the excerpt, so nothing says memory ran out."""
    assert "kv_pool" in UNNAMED_PHASES["sglang"]
    d = explain_log(log_bytes("sg_1050")).diagnosis
    assert (d.status, d.phase) == ("failed", "kv_pool")
    assert d.cause.startswith("the run failed sizing or allocating the KV pool, but the log does not print the error")
    assert not d.fixes


_LOAD = ("[2025-10-12 21:14:09] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=60.00 GB, "
         "mem usage=14.00 GB.\n")
_HEADER = "[2025-10-12 21:14:10] Scheduler hit an exception: Traceback (most recent call last):\n"
_INIT_POOL = ('  File "/x/sglang/srt/model_executor/model_runner.py", line 457, in initialize\n'
              "    self.init_memory_pool(\n"
              '  File "/x/sglang/srt/model_executor/model_runner.py", line 1740, in init_memory_pool\n'
              "    self.token_to_kv_pool = MHATokenToKVPool(\n")


def test_a_printed_pool_error_keeps_the_pools_own_rules():
    """The rule needs the error to be missing: SGLang's 'Not enough memory' or an OOM in the pool keeps its memory
    reading (``sgdiagnose._kv_pool_failure``)."""
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of "
           "79.19 GiB of which 13.00 MiB is free.\n")
    d = _explain(_LOAD + _HEADER + _INIT_POOL + oom).diagnosis
    assert d.phase == "kv_pool" and "does not print the error" not in d.cause
    not_enough = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n"
    d = _explain(_LOAD + _HEADER + _INIT_POOL + not_enough).diagnosis
    assert d.phase == "kv_pool" and "does not print the error" not in d.cause


def test_the_same_cut_pool_traceback_names_no_memory():
    d = _explain(_LOAD + _HEADER + _INIT_POOL).diagnosis  # the frames place it in the pool step
    assert (d.status, d.phase) == ("failed", "kv_pool")
    assert "does not print the error" in d.cause and "MHATokenToKVPool" in d.cause and not d.fixes
