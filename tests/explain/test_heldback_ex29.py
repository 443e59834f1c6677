"""Reader and diagnosis rules from the held-back round ex29 (helper ex29, 2026-12-06, docs/accuracy.md §7.3).

19 public logs were explained before they joined the corpus; each rule below is one of the gaps they showed, tested on
the log that showed it and on both sides of the rule (a text the rule must leave alone)."""

from __future__ import annotations

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.logs.failures import detect, frame_phase


# --- frames that place a cut traceback -------------------------------------------------------------------------------
@pytest.mark.parametrize("frame,phase", [
    ("initialize_model_parallel (parallel_state.py)", "other"),  # the NCCL groups, not the model's constructor
    ("initialize_model (utils.py)", "weights"),  # vLLM model_loader/utils.py initialize_model: the constructor
    ("_initialize_model (loader.py)", "weights"),
    ("make_layers (utils.py)", "weights"),  # every model's __init__ builds its layers through it
    ("alloc_paged_token_slots_extend (common.py)", "first_request"),  # SGLang's run-time pool allocators
    ("alloc_req_slots (allocation.py)", "first_request"),
])
def test_frames_that_place_a_phase(frame, phase):
    assert frame_phase([frame])[0] == phase


def test_an_nccl_group_is_not_the_weights():
    # the frames of a group's creation, innermost last, as sglang#4289 / NVIDIA/nccl#1686 print them
    frames = ["initialize_model_parallel (parallel_state.py)", "init_model_parallel_group (parallel_state.py)",
              "__init__ (parallel_state.py)", "__init__ (pynccl.py)", "ncclCommInitRank (pynccl_wrapper.py)"]
    assert frame_phase(frames)[0] == "other"
    assert frame_phase(["load_model (gpu_model_runner.py)", "initialize_model (utils.py)"])[0] == "weights"


@pytest.mark.parametrize("case_id,phase", [("sg_693", "other"), ("vl_1207", "other"), ("vl_1202", "weights")])
def test_the_round_s_cut_tracebacks_are_placed(case_id, phase):
    assert explain_log(log_bytes(case_id)).diagnosis.phase == phase


def test_an_nccl_error_at_group_creation_is_named():
    d = explain_log(log_bytes("sg_693")).diagnosis
    assert d.cause.startswith("nccl error") and "memory" not in d.cause and not d.fixes


# --- a failure whose error is not printed is not called out of memory ---------------------------------------------
_SG_CUT = (
    "[2025-01-01 10:00:00 TP0] Decode batch. #running-req: 1, #token: 100, token usage: 0.01, cuda graph: True\n"
    "[2025-01-01 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process\n'
    "    scheduler.event_loop_overlap()\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2, in event_loop_overlap\n'
    "    batch_result = self.run_batch(batch)\n")
_SG_OOM = _SG_CUT + ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                     "capacity of 79.10 GiB of which 1.00 GiB is free.\n")
_SG_ASSERT = _SG_CUT + "AssertionError: expected a page\n"


def test_a_cut_serving_traceback_is_not_an_oom():
    d = explain_log(_SG_CUT.encode()).diagnosis
    assert d.phase == "first_request"
    assert "does not print the error" in d.cause and not d.fixes


def test_a_printed_oom_keeps_the_memory_reading():
    d = explain_log(_SG_OOM.encode()).diagnosis
    assert d.phase == "first_request" and d.cause.startswith("out of memory after start-up")


def test_a_printed_exception_keeps_its_own_reading():
    d = explain_log(_SG_ASSERT.encode()).diagnosis
    assert "AssertionError" in d.cause and "does not print the error" not in d.cause


@pytest.mark.parametrize("case_id", ["sg_692", "sg_699", "vl_1203", "vl_1208"])  # sg_691: its assertion is read
def test_the_round_s_unprinted_errors_get_no_memory_fix(case_id):  # (round ex30, test_heldback_ex30.py)
    d = explain_log(log_bytes(case_id)).diagnosis
    assert "does not print the error" in d.cause and not d.fixes


def test_a_vllm_cut_load_keeps_a_printed_oom():
    cut = ('(EngineCore pid=1) ERROR 05-13 16:44:15 [core.py:1] Traceback (most recent call last):\n'
           '(EngineCore pid=1) ERROR 05-13 16:44:15 [core.py:1]   File "/x/vllm/v1/worker/gpu_model_runner.py", '
           'line 1, in load_model\n'
           '(EngineCore pid=1) ERROR 05-13 16:44:15 [core.py:1]     self.model = model_loader.load_model(\n')
    assert "does not print the error" in explain_log(cut.encode()).diagnosis.cause
    oom = cut + ("(EngineCore pid=1) ERROR 05-13 16:44:15 [core.py:1] torch.OutOfMemoryError: CUDA out of memory. "
                 "Tried to allocate 50.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which 10.00 MiB is free.\n")
    assert explain_log(oom.encode()).diagnosis.cause.startswith("out of memory while loading the weights")


def test_a_cut_vllm_serving_traceback_keeps_vllm_s_own_reading():
    # vLLM's first-request diagnosis asks for a cuda_oom already: the rule is not applied there
    d = explain_log(log_bytes("vl_1200")).diagnosis
    assert d.phase == "first_request" and d.cause == "exception: traceback cut before its exception line"


# --- SGLang's run-time pool allocators name their error -----------------------------------------------------------
def test_a_traceback_cut_in_a_pool_allocator_names_its_error():
    d = explain_log(log_bytes("sg_690")).diagnosis
    assert d.phase == "first_request"
    assert "alloc_paged_token_slots_extend" in d.cause and "Prefill out of memory" in d.cause and not d.fixes


# --- SGLang's run-time pool errors are their own kind --------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "RuntimeError: Prefill out of memory. Try to lower your batch size.",
    "RuntimeError: Decode out of memory. Try to lower your batch size.",
    "RuntimeError: Out of memory. Try to lower your batch size.",
    "RuntimeError: alloc_req_slots runs out of memory. Please set a smaller number for `--max-running-requests`.",
])
def test_a_full_pool_is_not_a_cuda_oom(line):
    assert [k for k, *_ in detect(line, "")] == ["pool_exhausted"]


def test_a_cuda_oom_stays_one():
    assert [k for k, *_ in detect("RuntimeError: out of memory", "")] == ["cuda_oom"]
    assert [k for k, *_ in detect("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "")] \
        == ["cuda_oom"]


_SG_PREFILL_FULL = (
    "[2025-01-01 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 8192\n"
    "[2025-01-01 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1, in event_loop_overlap\n'
    "    batch = self.get_next_batch_to_run()\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/common.py", line 292, in alloc_paged_token_slots_extend\n'
    "    raise RuntimeError(error_msg)\n"
    "RuntimeError: Prefill out of memory. Try to lower your batch size.\n"
    "Try to allocate 8192 tokens.\n")


def test_a_full_kv_pool_is_diagnosed_as_one():
    d = explain_log(_SG_PREFILL_FULL.encode()).diagnosis
    assert d.phase == "first_request" and d.cause.startswith("the KV pool had no free token slots")
    assert "activations" not in d.cause and not d.fixes


def test_the_request_slot_error_names_an_sglang_log():
    e = explain_log(log_bytes("sg_695"))  # prose and one cut decode line: refused as no engine's log before
    assert e.context.engine == "sglang"
    assert e.diagnosis.phase == "first_request" and "request-slot pool" in e.diagnosis.cause
