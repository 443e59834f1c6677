"""Reader and diagnosis rules from the held-back round ex28 (helper ex28, 2026-12-06, docs/accuracy.md §7.3).

25 public logs were explained before they joined the corpus; each rule below is one of the gaps they showed, tested on
the log that showed it and on both sides of the rule (a text the rule must leave alone)."""

from __future__ import annotations

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.logs.failures import detect, frame_phase
from tpkit.logs.reader import parse_log


# --- frames that place a cut traceback -------------------------------------------------------------------------------
@pytest.mark.parametrize("frame,phase", [
    ("register_graph_buffers (custom_all_reduce.py)", "cuda_graph"),  # CustomAllreduce.capture()'s exit
    ("gptq_marlin_repack (_custom_ops.py)", "weights"),  # only quant methods' process_weights_after_loading call it
    ("process_weights_after_loading (marlin.py)", "weights"),
    ("forward_thread_func_ (tp_worker_overlap_thread.py)", "first_request"),  # SGLang's overlap worker thread
])
def test_frames_that_place_a_phase(frame, phase):
    assert frame_phase([frame])[0] == phase


def test_frames_left_alone():
    assert frame_phase(["register_buffer (module.py)"]) is None
    assert frame_phase(["forward (llama.py)"]) is None


@pytest.mark.parametrize("case_id,phase", [("sg_670", "first_request"), ("sg_671", "cuda_graph"),
                                           ("vl_1142", "weights")])
def test_cut_tracebacks_of_the_round_are_placed(case_id, phase):
    assert explain_log(log_bytes(case_id)).diagnosis.phase == phase


# --- torch's driver-API wording of an OOM ----------------------------------------------------------------------------
def test_a_cuda_driver_oom_is_an_oom():
    kinds = [k for k, *_ in detect("RuntimeError: CUDA driver error: out of memory", "")]
    assert kinds == ["cuda_oom"]
    assert [k for k, *_ in detect("RuntimeError: CUDA driver error: invalid argument", "")] == []
    d = explain_log(log_bytes("vl_1142")).diagnosis
    assert d.cause == "out of memory while loading the weights"


# --- the failing process listed under another PID ----------------------------------------------------------------------
_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 80.00 MiB. GPU 0 has a total capacity of "
        "139.72 GiB of which 60.69 MiB is free. Process 691170 has {held} GiB memory in use. Of the allocated memory "
        "{own} GiB is allocated by PyTorch, and 12.81 MiB is reserved by PyTorch but unallocated.")


def test_a_listed_process_that_cannot_be_another_is_the_failing_one():
    (_, _, _, _, detail), = detect(_OOM.format(held="139.65", own="139.21"), "")
    assert "process 691170 holds 139.65 GiB (this process itself" in detail
    (_, _, _, _, detail), = detect(_OOM.format(held="70.00", own="69.00"), "")  # room for two tenants: another one
    assert detail.endswith("process 691170 holds 70.00 GiB")
    assert "this process itself" in parse_log(log_bytes("vl_1141")).primary_failure.detail


# --- capture errors that are not a lack of memory ---------------------------------------------------------------------
@pytest.mark.parametrize("case_id,words", [("sg_672", "gloo/transport/tcp/pair.cc:534] Connection cl"),
                                           ("sg_673", "Triton Error [CUDA]: an illegal memory access")])
def test_sglang_capture_wrapper_quoting_another_error(case_id, words):
    d = explain_log(log_bytes(case_id)).diagnosis
    assert d.phase == "cuda_graph" and "not a lack of memory" in d.cause and words in d.cause
    assert [f.flags for f in d.fixes] == ["--disable-cuda-graph"]


def test_a_capture_quote_too_short_to_tell_keeps_the_memory_reading():
    text = ("[2025-01-01 00:00:00 TP0] Capture cuda graph begin. This can take up to several minutes.\n"
            "Exception: Capture cuda graph failed: Connection\n")
    d = explain_log(text.encode()).diagnosis
    assert d.phase == "cuda_graph" and "not a lack of memory" not in d.cause


# --- the custom all-reduce kernels' CUDACHECK ---------------------------------------------------------------------------
def test_vllm_log_of_capture_bars_and_a_cudacheck_line_is_read():
    parsed = parse_log(log_bytes("vl_1153"))
    assert parsed.engine.engine == "vllm"
    d = explain_log(log_bytes("vl_1153")).diagnosis
    assert d.phase == "cuda_graph" and "not a lack of memory" in d.cause and "custom_all_reduce.cuh:164" in d.cause
    assert [f.flags for f in d.fixes] == ["--disable-custom-all-reduce", "--enforce-eager"]


def test_a_cudacheck_elsewhere_gets_no_custom_all_reduce_fix():
    text = ("(EngineCore pid=1) INFO 09-10 09:37:40 [gpu_model_runner.py:1] Capturing CUDA graphs (FULL): 1/2\n"
            "Failed: Cuda error /workspace/csrc/other_kernel.cu:10 'invalid argument'\n"
            "(EngineCore pid=1) ERROR 09-10 09:37:41 [multiproc_executor.py:314] Worker proc VllmWorker-0 died "
            "unexpectedly (exit code: None), shutting down executor.\n")
    d = explain_log(text.encode()).diagnosis
    assert d.phase == "cuda_graph" and "other_kernel.cu:10" in d.cause
    assert [f.flags for f in d.fixes] == ["--enforce-eager"]


# --- an OOM in a log that never got past the weight load ------------------------------------------------------------
def test_an_oom_before_any_step_in_a_log_stuck_at_the_load_is_the_loads():
    from tpkit.logs.phases import load_only_phase

    d = explain_log(log_bytes("vl_1141"), flags={"gpu": "H20-141G"}).diagnosis
    assert d.phase == "weights" and d.cause.startswith("out of memory while loading the weights")
    assert load_only_phase("cuda_oom", "weights")[0] == "weights"
    assert load_only_phase("cuda_oom", "weights_done") is None  # the load finished: a later step's
    assert load_only_phase("cuda_oom", None) is None  # no step at all: nothing places it
    assert load_only_phase("nccl_error", "weights") is None  # not an OOM: could precede the load
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 80.00 MiB. GPU 0 has a total capacity of "
           "79.00 GiB of which 60.69 MiB is free.\n")
    assert explain_log(oom.encode()).diagnosis.phase == "other"
    assert explain_log((oom + "Loading safetensors checkpoint shards:   3% Completed | 1/37\n").encode()
                       ).diagnosis.phase == "weights"


# --- a paste hard-wrapped mid-word at the terminal's width -------------------------------------------------------------
def test_vllms_kv_error_wrapped_mid_word_is_read():
    d = explain_log(log_bytes("vl_1140")).diagnosis
    assert d.phase == "kv_pool" and "needs 4.26 GiB of KV cache, 4.25 GiB is available" in d.cause
    # helper fx37 (explain.vlowend): no estimate printed, so the length is vLLM's estimate at the prints' pessimistic
    # end (4.245 GiB available, 4.265 GiB per 100,000 tokens): 99,520, not the middles' 99,760
    assert d.fixes[0].flags == "--max-model-len 99520" and d.fixes[0].fits
    head = ("(EngineCore pid=1) ValueError: To serve at least one request with the model's max seq len (100000), "
            "(4.26 GiB KV cach")
    kinds = [k for k, *_ in detect(head, "\ne is needed, which is larger than the available KV cache memory (4.25 GiB).")]
    assert kinds == ["kv_too_small"]
    # wrapped between words: the first reading (the break as a space) already holds it
    (kind, _, sizes, _, _), = detect(head[:-4], "\ncache is needed, which is larger than the available KV cache "
                                                "memory (4.25 GiB).")
    assert kind == "kv_too_small" and dict(sizes)["needed"].value.bytes == round(4.26 * 2**30)
