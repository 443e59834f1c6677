"""vLLM's CUDA-graph wrapper is on every compiled forward: its ``__call__`` frame alone names no graph phase.

``vllm/compilation/cuda_graph.py`` ``CUDAGraphWrapper.__call__`` (0.10.1 … 0.33.0) runs the wrapped module as is
when the forward context's mode is ``CUDAGraphMode.NONE`` — the profile run, a warmup run, or eager execution —
and captures only when ``capture_model`` drives it.  A traceback through the wrapper takes its phase from the
frames around it (helper mv1, 2026-12-04: vl_107, CUDA out of memory in inductor autotuning under profile_run).
"""

from tpkit.logs import failures as fl
from tpkit.logs import parse_log

WRAPPER = "__call__ (cuda_graph.py)"
COMPILE = ["forward (qwen2.py)", "__call__ (decorators.py)", "compile_wrapper (eval_frame.py)",
           "generate_and_run_autotune_block (wrapper.py)"]


def test_wrapper_under_the_profile_run_is_the_kv_sizing():
    frames = ["_initialize_kv_caches (core.py)", "determine_available_memory (gpu_worker.py)",
              "profile_run (gpu_model_runner.py)", "_dummy_run (gpu_model_runner.py)", WRAPPER, *COMPILE]
    assert fl.frame_phase(frames)[0] == "kv_pool"


def test_wrapper_under_capture_is_still_the_graph_phase():
    frames = ["_initialize_kv_caches (core.py)", "compile_or_warm_up_model (gpu_worker.py)",
              "capture_model (gpu_model_runner.py)", "_capture_cudagraphs (gpu_model_runner.py)",
              "_dummy_run (gpu_model_runner.py)", WRAPPER, "forward (qwen2.py)"]
    assert fl.frame_phase(frames) == ("cuda_graph", "traceback frame _capture_cudagraphs (gpu_model_runner.py)")


def test_wrapper_under_a_request_is_the_first_request():
    frames = ["step_with_batch_queue (core.py)", "execute_model (gpu_worker.py)",
              "execute_model (gpu_model_runner.py)", WRAPPER, "forward (qwen2.py)"]
    assert fl.frame_phase(frames)[0] == "first_request"


def test_other_graph_frames_still_name_the_graph_phase():
    assert fl.frame_phase(["capture (cuda_graph_runner.py)"])[0] == "cuda_graph"
    assert fl.frame_phase(["replay (cuda_graph.py)"])[0] == "cuda_graph"


def test_the_committed_profile_run_oom_reads_as_kv_sizing():
    text = "\n".join([
        "(EngineCore_DP0 pid=1) INFO 01-19 23:55:08 [gpu_model_runner.py:3659] Model loading took 14.1931 GiB memory "
        "and 880.678751 seconds",
        "(EngineCore_DP0 pid=1) ERROR 01-19 23:55:19 [core.py:866] Traceback (most recent call last):",
        *[f'(EngineCore_DP0 pid=1) ERROR 01-19 23:55:19 [core.py:866]   File "/x/vllm/{path}", line 1, in {func}'
          for path, func in (("v1/engine/core.py", "_initialize_kv_caches"),
                             ("v1/worker/gpu_worker.py", "determine_available_memory"),
                             ("v1/worker/gpu_model_runner.py", "profile_run"),
                             ("v1/worker/gpu_model_runner.py", "_dummy_run"),
                             ("compilation/cuda_graph.py", "__call__"),
                             ("model_executor/models/qwen2.py", "forward"))],
        "(EngineCore_DP0 pid=1) ERROR 01-19 23:55:19 [core.py:866] torch.OutOfMemoryError: CUDA out of memory. Tried "
        "to allocate 1.02 GiB. GPU 0 has a total capacity of 15.47 GiB of which 857.31 MiB is free.",
    ]) + "\n"
    failure = parse_log(text.encode()).primary_failure
    assert failure.kind == "cuda_oom" and failure.phase == "kv_pool"
