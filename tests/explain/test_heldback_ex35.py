"""Reader rules from the held-back round ex35 (helper ex35, 2026-12-07, docs/accuracy.md §7.3): ex34's wrong phases.

Each rule is tested on both sides (a text the rule must leave alone).  The texts are built here, so the tests hold
before and after the logs join the corpus."""

from __future__ import annotations

import pytest

from tpkit.explain import explain_log
from tpkit.logs.phases import constructor_label, frame_phase, serving_loop_phase

_OOM = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 508.00 MiB. GPU 0 has a total capacity of "
        "23.53 GiB of which 329.44 MiB is free. Including non-PyTorch memory, this process has 1.05 GiB memory in use.")


def _diag(text: str):
    return explain_log(text.encode()).diagnosis


def _cut_in(path: str, func: str = "__init__") -> str:
    return ("Traceback (most recent call last):\n"
            f'  File "{path}", line 76, in {func}\n'
            "    torch.empty(self.num_embeddings_per_partition,\n"
            '  File "/env/lib/python3.10/site-packages/torch/utils/_device.py", line 77, in __torch_function__\n'
            "    return func(*args, **kwargs)\n" + _OOM + "\n")


# -- a vLLM parallel layer's constructor (xorbitsai/inference#1361) -----------------------------------------------
@pytest.mark.parametrize("path", [
    "/env/lib/python3.10/site-packages/vllm/model_executor/layers/vocab_parallel_embedding.py",
    "/env/lib/python3.10/site-packages/vllm/model_executor/layers/linear.py",
])
def test_a_parallel_layer_constructor_is_the_weight_load(path):
    """VocabParallelEmbedding / LinearBase allocate their parameters in __init__ and are built only inside a model
    class (vLLM 0.4.0.post1, 0.8.5, 0.11.0 wheels): a traceback cut there is load_model's construction."""
    assert constructor_label(path, "__init__") == ": a parallel layer's constructor"
    assert _diag(_cut_in(path)).phase == "weights"


@pytest.mark.parametrize("path,func", [
    ("/env/vllm/model_executor/layers/vocab_parallel_embedding.py", "forward"),   # the layer running: serving
    ("/env/vllm/model_executor/layers/quantization/fp8.py", "__init__"),          # config time
    ("/env/vllm/model_executor/layers/rejection_sampler.py", "__init__"),         # V0 spec decode: worker init
    ("/env/sglang/srt/layers/linear.py", "__init__"),                             # SGLang's LoRA manager builds one
])
def test_other_layer_frames_are_left_alone(path, func):
    assert constructor_label(path, func) == ""
    assert _diag(_cut_in(path, func)).phase != "weights"


def test_a_placing_frame_wins_over_a_layer_constructor():
    layer = "__init__ (linear.py: a parallel layer's constructor)"
    assert frame_phase(["profile_run (gpu_model_runner.py)", layer])[0] == "kv_pool"
    assert frame_phase([layer])[0] == "weights"


# -- vLLM V0's AsyncLLMEngine background loop (langgenius/dify-official-plugins#599) -------------------------------
_BG = ("ERROR 03-31 15:19:44 [async_llm_engine.py:68] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
       "318.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 315.44 MiB is free.\n")
_CALLBACK = ("Exception in callback _log_task_completion(error_callback=<bound method...>)(<Task finishe...>) at "
             "/env/lib/python3.10/site-packages/vllm/engine/async_llm_engine.py:48\n"
             "Traceback (most recent call last):\n"
             '  File "/env/lib/python3.10/site-packages/vllm/engine/async\n')


def test_the_background_loops_callback_places_a_serving_failure():
    """The loop task exists only after add_request's start_background_loop (0.4.0.post1 … 0.8.5 wheels)."""
    assert serving_loop_phase(_CALLBACK)[0] == "first_request"
    assert serving_loop_phase("ERROR x [async_llm_engine.py:65] Engine background task failed")[0] == "first_request"
    diag = _diag(_BG + _CALLBACK)
    assert diag.phase == "first_request"
    assert "318.00 MiB" in diag.cause


def test_an_oom_without_the_loops_callback_is_not_placed_by_it():
    assert serving_loop_phase(_BG) is None
    assert serving_loop_phase("Exception in callback _on_done(…)") is None
    assert _diag(_BG).phase != "first_request"


def test_the_loops_frames_place_a_full_traceback():
    assert frame_phase(["run_engine_loop (async_llm_engine.py)"])[0] == "first_request"
    assert frame_phase(["_log_task_completion (async_llm_engine.py)"])[0] == "first_request"


# -- vLLM's sleep mode: wake_up (vllm#13941, TideDra/lmm-r1#43) ------------------------------------------------------
_WAKE = ('  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", line 140, in wake_up\n'
         "    allocator.wake_up()\n"
         '  File "/usr/local/lib/python3.10/dist-packages/vllm/device_allocator/cumem.py", line 207, in wake_up\n'
         "    create_and_map(handle)\n"
         '  File "/usr/local/lib/python3.10/dist-packages/vllm/device_allocator/cumem.py", line 75, in create_and_map\n'
         "    python_create_and_map(*allocation_handle)\n")
_CUMEM_OOM = "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n"


def test_a_wake_up_frame_is_after_start_up():
    """wake_up's only callers are the user's LLM.wake_up, /wake_up and the clients' RPC (0.8.5, 0.11.0 wheels)."""
    assert frame_phase(["wake_up (cumem.py)"])[0] == "first_request"
    diag = _diag("Traceback (most recent call last):\n" + _WAKE + _CUMEM_OOM)
    assert diag.phase == "first_request"


def test_a_wake_up_name_inside_another_function_is_not_the_rule():
    assert frame_phase(["_wake_up_workers (foo.py)"]) is None
    assert frame_phase(["profile_run (gpu_model_runner.py)", "wake_up (cumem.py)"])[0] == "kv_pool"


def test_the_cumem_allocators_oom_is_a_cuda_oom():
    """vLLM's cumem_allocator.abi3.so formats 'CUDA Error: %s at %s:%d' (0.8.5 wheel)."""
    from tpkit.logs.failures import detect
    assert [k for k, *_ in detect(_CUMEM_OOM, "")] == ["cuda_oom"]
    assert _diag("Traceback (most recent call last):\n" + _WAKE + _CUMEM_OOM).cause.startswith("out of memory")


def test_other_cuda_errors_in_the_same_wording_are_not_oom():
    from tpkit.logs.failures import detect
    line = "RuntimeError: CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:62\n"
    assert "cuda_oom" not in [k for k, *_ in detect(line, "")]
    cut = "RuntimeError: CUDA Error: o\n"  # lmm-r1#43's excerpt, cut mid-word: nothing says memory
    assert "cuda_oom" not in [k for k, *_ in detect(cut, "")]
