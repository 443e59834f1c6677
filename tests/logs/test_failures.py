"""Failures, their numbers and their phase (real logs of tests/logs/data)."""

from logs_testlib import log_bytes

from tpkit.logs import parse_log
from tpkit.units import GiB, MiB


def _primary(case_id: str):
    return parse_log(log_bytes(case_id)).primary_failure


def test_oom_in_cuda_graph_capture_with_its_numbers():
    # sg_028: 'Capture cuda graph failed: CUDA out of memory', wrapped over several lines
    failure = _primary("sg_028")
    assert failure.kind == "cuda_oom" and failure.phase == "cuda_graph"
    assert failure.size("requested").value == MiB(672)
    assert failure.size("total").value == GiB(140.06) and failure.size("free").value == MiB(200.75)
    assert failure.size("torch_allocated").value == GiB(128.50)
    assert "process 1939284 holds 139.86 GiB" in failure.detail


def test_oom_phase_from_the_traceback_frames():
    # sg_039: traceback cut before its exception line, frames in load_model → weights
    failure = _primary("sg_039")
    assert failure.phase == "weights" and "traceback" in failure.phase_evidence


def test_not_enough_kv_v0_and_v1():
    v0 = _primary("vl_004")
    assert v0.kind == "kv_too_small" and v0.phase == "kv_pool"
    assert (v0.count("max_model_len").value, v0.count("kv_tokens").value) == (131072, 81536)
    v1 = _primary("vl_034")   # the ValueError is wrapped over five lines
    assert v1.kind == "kv_too_small"
    assert v1.size("needed").value == GiB(5.62) and v1.size("available").value == GiB(4.50)
    assert v1.count("estimated_max_len").value == 32768


def test_negative_kv_budget_is_a_kv_pool_failure():
    failure = _primary("vl_005")   # 'Available KV cache memory: -2.14 GiB', then the engine dies
    assert failure.kind == "kv_budget_non_positive" and failure.phase == "kv_pool"


def test_sglang_imbalance_check():
    failure = _primary("sg_032")
    assert failure.kind == "imbalance" and failure.phase == "imbalance"
    assert abs(failure.size("pre_model_load_memory").value.gib - 8.8841552734375) < 1e-9
    assert abs(failure.size("local_gpu_memory").value.gib - 11.901611328125) < 1e-9


def test_vllm_startup_free_memory_check():
    failure = _primary("vl_015")
    assert failure.kind == "startup_free_memory" and failure.phase == "other"
    assert failure.size("free").value == GiB(7.34) and failure.size("total").value == GiB(139.72)
    assert failure.count("gpu_memory_utilization").value == 0.9


def test_custom_allreduce_warning_is_a_warning_with_its_reason():
    parsed = parse_log(log_bytes("sg_009"))
    warnings = [f for f in parsed.failures if f.kind == "custom_allreduce_disabled"]
    assert warnings and warnings[0].severity == "warning" and warnings[0].phase is None
    assert warnings[0].detail.startswith("it's not supported on more than two PCIe-only GPUs")
    assert warnings[0].occurrences >= 2          # one per rank, merged
    assert parsed.status == "ok"


def test_nccl_lines_that_are_not_errors_stay_quiet():
    text = ("[rank0]:[W201 00:05:08.318920119 ProcessGroupNCCL.cpp:1524] Warning: WARNING: destroy_process_group() "
            "was not called before program exit, which can leak resources.\n")
    assert parse_log(text).failures == ()
    nccl = parse_log("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda "
                     "error, NCCL version 2.21.5\nncclUnhandledCudaError: Call to CUDA function failed.\n")
    assert nccl.primary_failure.kind == "nccl_error"


# --- helper crash, 2026-12-01: wrapped OOM messages, engine from source names, a call tree quoted after the error
def test_a_torch_oom_message_wrapped_over_lines_keeps_its_free_memory():
    """vl_038 pastes torch's message wrapped after 'of': the free memory is read across the line break."""
    failure = _primary("vl_038")
    assert failure.size("requested").value == MiB(136) and failure.size("free").value == MiB(120.88)
    one_line = parse_log("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB. GPU 0 has a total "
                         "capacity of 22.36 GiB of which 120.88 MiB is free.\n").primary_failure
    wrapped = parse_log("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB. GPU 0 has a total "
                        "capacity of 22.36 GiB of\n    which 120.88 MiB is free.\n").primary_failure
    assert one_line.size("free").value == wrapped.size("free").value == MiB(120.88)


def test_the_engine_from_source_names_in_a_traceback_or_call_tree():
    """vl_041 names no engine, only vLLM's own functions and files (gpu_model_runner.py, profile_cudagraph_memory)."""
    guess = parse_log(log_bytes("vl_041")).engine
    assert guess.engine == "vllm" and guess.version is None
    assert any("gpu_model_runner" in e.claim for e in guess.evidence)
    sglang = parse_log('File "/x/python/sglang/srt/managers/tp_worker.py", line 9, in __init__\n'
                       "RuntimeError: boom\n").engine
    assert sglang.engine == "sglang" and any("tp_worker" in e.claim for e in sglang.evidence)
    assert parse_log("model_runner.py: something else\nRuntimeError: boom\n").engine.engine is None


def test_a_call_tree_quoted_after_the_error_gives_its_phase_only_when_nothing_before_does():
    tree = ("\n```\ndetermine_available_memory()\n  └ profile_cudagraph_memory()        ← gpu_model_runner.py:6722\n"
            "      └ _init_minimal_kv_cache_for_profiling()   ← :6606\n```\n")
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 784.00 MiB.\n"
    after = parse_log(oom + tree).primary_failure
    assert after.phase == "cuda_graph" and "quoted after the error" in after.phase_evidence
    assert _primary("vl_041").phase == "cuda_graph"
    # a start-up step logged before the error places it; the tree after it does not override that
    placed = parse_log("INFO [gpu_model_runner.py:1] Starting to load model x...\n" + oom + tree).primary_failure
    assert placed.phase == "weights"


def test_a_python_warnings_source_line_is_not_a_call_tree():
    """warnings.formatwarning prints 'file.py:LINE: Category: message', the message's lines, then the warned
    source line indented: torch's GB10 capability UserWarning ends in '  queued_call()' (vl_345, a healthy
    start-up).  The every-line read took that line for a call tree cut before its exception (helper mv11,
    2026-12-04); a bare name() line with no warning before it still reads as one."""
    warned = ("(EngineCore pid=62) /usr/lib/python3/torch/cuda/__init__.py:435: UserWarning: \n"
              "(EngineCore pid=62)     Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
              "(EngineCore pid=62)     (8.0) - (12.0)\n"
              "(EngineCore pid=62)   queued_call()\n"
              "(EngineCore pid=62) INFO 03-26 10:44:14 [gpu_model_runner.py:4723] Starting to load model x...\n")
    for every in (False, True):
        assert not parse_log(warned, read_every_line=every).failures
    assert not parse_log(log_bytes("vl_345"), read_every_line=True).failures
    tree = "(EngineCore pid=62) INFO [gpu_model_runner.py:1] Starting to load model x...\n(EngineCore pid=62)   queued_call()\n"
    assert parse_log(tree, read_every_line=True).failures


def test_a_wheel_file_name_prints_the_release():
    # the whole local version since helper mv6 (2026-12-04) took up to three pre-release parts (release 0.15.2rc1)
    assert parse_log(log_bytes("vl_048")).engine.version == "0.15.2rc1.dev93+g11a4c9d30.cu128"
    guess = parse_log("sglang-0.5.10-py3-none-any.whl\nRuntimeError: Not enough memory. Please try to increase "
                      "--mem-fraction-static.\n").engine
    assert guess.engine == "sglang" and guess.version == "0.5.10" and guess.version_printed


def test_cuda_graph_wrapper_frame_alone_is_not_the_capture_phase():
    """vLLM's CUDAGraphWrapper.__call__ (compilation/cuda_graph.py) wraps every forward, the profile run's too
    (0.19.0 wheel: "CUDAGraphMode.NONE could mean the profile run, a warmup run, or running without cudagraphs").
    vl_159: an OOM in torch.compile's autotuning on the profile run's first forward is a kv_pool failure (helper
    mv3, 2026-12-04; it was read as cuda_graph from that frame); a capture still is cuda_graph (its frames pass
    through capture_model / _capture_cudagraphs)."""
    from tpkit.logs.failures import frame_phase

    failure = _primary("vl_159")
    assert failure.kind == "cuda_oom" and failure.phase == "kv_pool"
    assert "profile_run" in failure.phase_evidence
    assert failure.size("requested").value == GiB(1.02) and failure.size("total").value == GiB(14.56)
    profile = ["run_engine_core (core.py)", "determine_available_memory (gpu_worker.py)",
               "profile_run (gpu_model_runner.py)", "_dummy_run (gpu_model_runner.py)", "__call__ (cuda_graph.py)",
               "forward (qwen2.py)"]
    capture = ["run_engine_core (core.py)", "compile_or_warm_up_model (gpu_worker.py)",
               "capture_model (gpu_model_runner.py)", "_capture_cudagraphs (gpu_model_runner.py)",
               "_dummy_run (gpu_model_runner.py)", "__call__ (cuda_graph.py)", "forward (qwen2.py)"]
    assert frame_phase(profile)[0] == "kv_pool"
    assert frame_phase(capture)[0] == "cuda_graph"
    assert frame_phase(["__call__ (cuda_graph.py)"]) is None


def _synthetic(lines: list[str]):
    return parse_log("\n".join(lines).encode())


_V1_WARMUP_TB = [
    "(EngineCore pid=7) INFO 06-23 15:43:18 [gpu_worker.py:480] Available KV cache memory: 41.01 GiB",
    "(EngineCore pid=7) INFO 06-23 15:43:18 [kv_cache_utils.py:1744] GPU KV cache size: 1,343,840 tokens",
    "(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195] EngineCore failed to start.",
    "(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195] Traceback (most recent call last):",
    '(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195]   File "/x/vllm/v1/engine/core.py", line 290, in _initialize_kv_caches',
    '(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195]   File "/x/vllm/v1/executor/abstract.py", line 124, in initialize_from_config',
    '(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195]   File "/x/vllm/v1/worker/gpu_worker.py", line 707, in compile_or_warm_up_model',
]


def test_a_vllm_failure_in_warm_up_is_after_the_kv_pool():
    """vl_133 (vLLM 0.23.0): flashinfer's sampler JIT fails in compile_or_warm_up_model → warmup_kernels, after the
    KV cache was sized and the graphs captured; the outer frames (_initialize_kv_caches, initialize_from_config)
    do not make it a KV-pool failure.  A capture inside the same call is still a CUDA-graph failure, and a failure
    in the KV sizing under the same outer frames still a KV-pool one."""
    real = parse_log(log_bytes("vl_133"))
    nvcc = next(f for f in real.failures if "nvcc" in f.detail)
    assert nvcc.phase == "first_request" and "warmup_kernels" in nvcc.phase_evidence
    warm = _synthetic(_V1_WARMUP_TB + [
        '(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195]   File "/x/vllm/v1/worker/gpu/warmup.py", line 118, in warmup_kernels',
        "(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195] RuntimeError: Could not find nvcc"])
    assert [f.phase for f in warm.failures if "nvcc" in f.detail] == ["first_request"]
    capture = _synthetic(_V1_WARMUP_TB + [
        '(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195]   File "/x/vllm/v1/worker/gpu_model_runner.py", line 4587, in capture_model',
        "(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195] RuntimeError: CUDA error: out of resources"])
    assert [f.phase for f in capture.failures if "out of resources" in f.detail] == ["cuda_graph"]
    sizing = _synthetic(_V1_WARMUP_TB[:6] + [
        '(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195]   File "/x/vllm/v1/worker/gpu_worker.py", line 300, in determine_available_memory',
        "(EngineCore pid=7) ERROR 06-23 15:43:19 [core.py:1195] RuntimeError: boom"])
    assert [f.phase for f in sizing.failures if "boom" in f.detail] == ["kv_pool"]


def test_a_traceback_logged_as_a_warning_is_not_the_failure():
    """vLLM 0.23.0 logs a failed optional import (utils/import_utils.py _has_module, logger.warning with
    exc_info) with WARNING on every line of the traceback: vl_133's deep_gemm AssertionError is a warning, and the
    primary failure is the engine's own.  The same traceback at ERROR level stays an error."""
    real = parse_log(log_bytes("vl_133"))
    assert real.primary_failure.kind == "engine_start_failed"
    assert [f.severity for f in real.failures if f.detail.startswith("AssertionError")] == ["warning"]
    tb = ["(EngineCore pid=7) {lvl} 06-23 15:43:18 [import_utils.py:408] Module vllm.third_party.deep_gemm was found but failed to import",
          "(EngineCore pid=7) {lvl} 06-23 15:43:18 [import_utils.py:408] Traceback (most recent call last):",
          '(EngineCore pid=7) {lvl} 06-23 15:43:18 [import_utils.py:408]   File "/x/vllm/utils/import_utils.py", line 406, in _has_module',
          "(EngineCore pid=7) {lvl} 06-23 15:43:18 [import_utils.py:408] AssertionError",
          "(EngineCore pid=7) INFO 06-23 15:43:19 [model_runner.py:701] Graph capturing finished in 1 secs, took 0.33 GiB"]
    warned = _synthetic([line.format(lvl="WARNING") for line in tb])
    assert warned.status == "ok" and [f.severity for f in warned.failures] == ["warning"]
    errored = _synthetic([line.format(lvl="ERROR") for line in tb])
    assert any(f.severity == "error" and f.detail.startswith("AssertionError") for f in errored.failures)
