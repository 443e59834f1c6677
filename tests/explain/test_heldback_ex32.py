"""Reader and diagnosis rules from the held-back round ex32 (helper ex32, 2026-12-07, docs/accuracy.md §7.3).

13 public crash logs were explained before they joined the corpus; each rule below is one of the gaps they showed,
tested on both sides (a text the rule must leave alone).  The texts are built here, so the tests hold before and
after the logs join the corpus."""

from __future__ import annotations

import pytest

from tpkit.explain import explain_log
from tpkit.logs.phases import encoder_phase, marker, marker_phase
from tpkit.logs.reader import parse_log

_EC = "(EngineCore pid=6844) ERROR 03-22 22:03:08 [core.py:1108] "
_SG = "[2026-02-12 07:58:39 TP1] "


def _explain(text: str, **flags):
    return explain_log(text.encode(), flags=flags or None)


# --- vLLM's MMEncoderAttention is a multimodal encoder -------------------------------------------------------------
def test_the_mm_encoder_attention_frames_are_an_encoder():
    """``MMEncoderAttention`` ("used for multimodal encoder", mm_encoder_attention.py, vLLM 0.17.0–0.29.0)."""
    assert encoder_phase(["_forward_fa (mm_encoder_attention.py)"])[0] == "kv_pool"
    assert encoder_phase(["forward (attention.py)", "_forward_fa (flash_attn.py)"]) is None


def _engine_core_start_failure(frames: list[tuple[str, str]]) -> str:
    lines = [_EC + "EngineCore failed to start.", _EC + "Traceback (most recent call last):"]
    for path, func in frames:
        lines.append(_EC + f'  File "{path}", line 1, in {func}')
        lines.append(_EC + "    x = y(")
    return "\n".join(lines) + "\n"


def test_a_start_failure_with_an_encoder_traceback_below_is_the_profile_run():
    """The header first, then the engine core's traceback through the XPU vision encoder (vllm#37828)."""
    text = _engine_core_start_failure([
        ("/x/vllm/v1/engine/core.py", "run_engine_core"),
        ("/x/vllm/model_executor/custom_op.py", "forward"),
        ("/x/vllm/model_executor/layers/attention/mm_encoder_attention.py", "forward_xpu"),
        ("/x/vllm/model_executor/layers/attention/mm_encoder_attention.py", "_forward_fa")])
    d = _explain(text).diagnosis
    assert d.phase == "kv_pool" and "does not print the error" in d.cause and not d.fixes


def test_a_start_failure_with_frames_that_place_nothing_stays_other():
    text = _engine_core_start_failure([("/x/vllm/v1/engine/core.py", "run_engine_core"),
                                       ("/x/vllm/model_executor/custom_op.py", "forward")])
    assert _explain(text).diagnosis.phase == "other"


# --- vLLM's CUDA-graph memory profiling line -----------------------------------------------------------------------
def test_profiling_cuda_graph_memory_is_a_graph_step_before_the_kv_size():
    """GPUModelRunner.profile_cudagraph_memory's line (gpu_model_runner.py, vLLM 0.20.0, 0.22.0, 0.29.0)."""
    state = marker("Profiling CUDA graph memory: PIECEWISE=2 (largest=2), FULL=1 (largest=1)")
    assert state == "graph_profile" and marker_phase(state) == "cuda_graph"
    assert marker("Estimated CUDA graph memory: 0.26 GiB total") is None


def test_the_profiling_line_names_vllm_and_places_the_failure_after_it():
    text = ("Profiling CUDA graph memory: PIECEWISE=2 (largest=2), FULL=1 (largest=1)\n"
            "Failed: Cuda error csrc/custom_all_reduce.cuh:455 'invalid argument'\n")
    e = _explain(text)
    assert e.parsed.engine.engine == "vllm" and e.diagnosis.phase == "cuda_graph"
    assert e.diagnosis.fixes[0].flags == "--disable-custom-all-reduce"


def test_a_normal_start_is_not_restarted_by_the_profiling_line():
    """The step order: weights_done < graph_profile < kv_done (no restart, the KV lines keep their step)."""
    text = ("(EngineCore pid=1) INFO 05-09 16:24:00 [gpu_model_runner.py:1] Model loading took 14.99 GiB\n"
            "(EngineCore pid=1) INFO 05-09 16:24:01 [gpu_model_runner.py:2] Profiling CUDA graph memory: "
            "PIECEWISE=51 (largest=512), FULL=35 (largest=256)\n"
            "(EngineCore pid=1) INFO 05-09 16:24:02 [gpu_worker.py:3] Available KV cache memory: 50.00 GiB\n"
            "(EngineCore pid=1) INFO 05-09 16:24:02 [kv_cache_utils.py:4] GPU KV cache size: 409,600 tokens\n"
            "(EngineCore pid=1) ERROR 05-09 16:24:05 [core.py:5] torch.OutOfMemoryError: CUDA out of memory. "
            "Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 100.00 MiB is free.\n")
    assert parse_log(text.encode()).primary_failure.phase == "kv_pool"


# --- the custom all-reduce's CUDACHECK exit, in any phase ----------------------------------------------------------
@pytest.mark.parametrize("text", [
    "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n"
    "Worker proc VllmWorker-1 died unexpectedly, shutting down executor.\n",
    "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'\n"
    "(EngineCore) ERROR Worker proc VllmWorker-0 died unexpectedly (exit code: None)\n",
])
def test_a_custom_allreduce_cudacheck_exit_gets_its_flag_whatever_the_step(text):
    d = _explain(text, engine="vllm").diagnosis
    assert d.phase == "other" and "custom all-reduce" in d.cause
    assert [f.flags for f in d.fixes] == ["--disable-custom-all-reduce"]


def test_another_cuda_error_without_a_step_gets_no_custom_allreduce_flag():
    text = "(EngineCore pid=1) ERROR 01-01 00:00:00 [core.py:1] RuntimeError: CUDA error: an illegal memory access\n"
    assert not any("custom" in f.flags for f in _explain(text).diagnosis.fixes)


# --- SGLang's capture wrapper quoting nothing ----------------------------------------------------------------------
_JIT_AR = ("RuntimeError: Runtime check failed at /sgl-workspace/sglang/python/sglang/jit_kernel/include/sgl_kernel/"
           "distributed/custom_all_reduce.cuh:37: CUDA error: invalid argument\n")


def test_the_error_above_a_bare_capture_wrapper_is_its_cause():
    """THUDM/slime#1998: the JIT custom all-reduce's runtime check, then 'Exception: Capture cuda graph failed'."""
    e = _explain(_JIT_AR + "Exception: Capture cuda graph failed\n", engine="sglang")
    assert e.diagnosis.phase == "cuda_graph" and "not a lack of memory (invalid argument)" in e.diagnosis.cause
    assert [f.flags for f in e.diagnosis.fixes] == ["--disable-custom-all-reduce", "--disable-cuda-graph"]


def test_a_capture_wrapper_that_quotes_its_error_keeps_it():
    text = "RuntimeError: something else\nException: Capture cuda graph failed: Triton Error [CUDA]: an illegal " \
           "memory access was encountered\n"
    e = _explain(text, engine="sglang")
    assert "Triton Error" in e.diagnosis.cause and e.diagnosis.fixes[0].flags == "--disable-cuda-graph"


# --- Python's unraisable-exception report -------------------------------------------------------------------------
_IGNORED = ("Exception ignored in: <function SymmDeviceMemory.__del__ at 0x7fe558db7b00>\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/comm/mnnvl.py", line 991, in __del__\n'
            "    if self.signal_pads_dev:\n"
            "AttributeError: 'SymmDeviceMemory' object has no attribute 'signal_pads_dev'\n")
_CAPTURE_CUT = (_SG + "Scheduler hit an exception: Traceback (most recent call last):\n"
                '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 366, in __init__\n'
                "    self.capture()\n"
                '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 522, in capture\n')


def test_an_unraisable_report_is_not_the_failure():
    """flashinfer#2546: the destructor's AttributeError is reported and ignored; the capture's own error is cut."""
    d = _explain(_IGNORED + _CAPTURE_CUT).diagnosis
    assert d.phase == "cuda_graph" and "AttributeError" not in d.cause and "does not print the error" in d.cause
    assert [f.flags for f in d.fixes] == ["--disable-cuda-graph"]


def test_the_same_traceback_without_the_report_is_a_failure():
    d = _explain(_IGNORED.split("\n", 1)[1] + _CAPTURE_CUT).diagnosis
    assert "AttributeError" in d.cause


def test_an_unraisable_report_alone_is_no_failure():
    assert parse_log(("INFO 01-01 vllm start\n" + _IGNORED).encode()).primary_failure is None


# --- a capture traceback cut before its error ----------------------------------------------------------------------
def test_a_vllm_capture_cut_before_its_error_is_not_called_out_of_memory():
    """pytorch#170433 (vl_1376): frames down to capture_end, no exception line."""
    w = "(Worker_TP0 pid=9260) ERROR 12-13 11:54:35 [multiproc_executor.py:826] "
    text = (w + "WorkerProc hit an exception.\n" + w + "Traceback (most recent call last):\n"
            + w + '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 1, in capture_model\n'
            + w + '  File "/x/torch/cuda/graphs.py", line 130, in capture_end\n')
    d = _explain(text).diagnosis
    assert d.phase == "cuda_graph" and "out of memory" not in d.cause
    assert [f.flags for f in d.fixes] == ["--enforce-eager"]


def test_a_capture_oom_is_still_out_of_memory():
    w = "(VllmWorker rank=0 pid=233) ERROR 05-21 09:27:46 [multiproc_executor.py:470] "
    text = (w + '  File "/x/torch/cuda/graphs.py", line 84, in capture_end\n' + w + "    super().capture_end()\n"
            + w + "RuntimeError: CUDA error: out of memory\n")
    assert "out of memory while capturing" in _explain(text).diagnosis.cause


# --- vLLM's KV tensors allocated after the pool was sized ----------------------------------------------------------
def _kv_alloc(frame: str) -> str:
    return (_EC + f'  File "/x/vllm/v1/worker/gpu_model_runner.py", line 6537, in {frame}\n'
            + _EC + "    tensor = torch.zeros(\n"
            + _EC + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total "
                    "capacity of 23.52 GiB of which 115.69 MiB is free.\n")


def test_an_oom_allocating_the_sized_kv_cache_lowers_the_utilization():
    """vllm#42147: the pool's allocation failed: the pool is too large, so a lower utilization (default 0.9 less
    the 0.91 GiB shortfall over 23.52 GiB: 0.86; helper cr33c dropped the unsourced 1 GiB margin), not a smaller
    profile run; no KV cache size printed, so a suggestion."""
    d = _explain(_kv_alloc("_allocate_kv_cache_tensors")).diagnosis
    assert d.phase == "kv_pool" and "allocating the KV cache vLLM had sized" in d.cause and "short by" in d.cause
    assert [f.flags for f in d.fixes] == ["--gpu-memory-utilization 0.86"] and not d.fixes[0].fits
    assert d.fixes[0].note.startswith("a suggestion, not shown to fit")


def test_an_oom_in_the_profile_run_keeps_the_profile_reading():
    d = _explain(_kv_alloc("profile_run")).diagnosis
    assert d.phase == "kv_pool" and "allocating the KV cache" not in d.cause
