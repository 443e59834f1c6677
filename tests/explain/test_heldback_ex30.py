"""Reader and diagnosis rules from the held-back round ex30 (helper ex30, 2026-12-07, docs/accuracy.md §7.3).

15 public crash logs were explained before they joined the corpus; each rule below is one of the gaps they (or the
brief's known gaps) showed, tested on both sides of the rule (a text the rule must leave alone)."""

from __future__ import annotations

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.explain.tpinfer import process_tp_hint

_AVAIL = "INFO 01-01 00:00:00 [gpu_worker.py:1] Available KV cache memory: 12.82 GiB\n"


# --- the TP size from vLLM's worker process names ---------------------------------------------------------------------
def test_a_worker_tp1_header_cut_before_its_pid_still_gives_the_tp():
    """vl_1205 ends in '(Worker_TP1 pid=' (the excerpt's cut): no record header, but the process name is there, and
    vLLM adds '_TP<rank>' only when tp > 1 (multiproc_executor.py setup_proc_title_and_log_prefix, 0.11.0 / 0.20.0)."""
    e = explain_log(log_bytes("vl_1205"))
    assert e.context.get("tp") == 2 and "Worker_TP1" in e.context.sources["tp"]


def test_worker_tp0_alone_bounds_the_tp_without_a_size():
    e = explain_log(("(Worker_TP0 pid=8) " + _AVAIL).encode())
    assert e.context.get("tp") is None
    assert any("tp ≥ 2" in n for n in e.context.notes)
    assert process_tp_hint(b"(Worker_TP0 pid=8) x").low == 2
    assert process_tp_hint(b"(VllmWorker PP0_TP3 pid=8) x").low == 4  # the 0.10.x name
    assert process_tp_hint(b"(Worker_DP1_PP0_TP5_EP5 pid=8) x").low == 6
    # names without a TP rank leave it alone: the uni-process engine core, V0's unnumbered worker, Ray's wrapper
    for text in (b"(EngineCore_DP0 pid=7) x", b"(VllmWorkerProcess pid=90) x", b"(RayWorkerWrapper pid=1, ip=a) x",
                 b"(VllmWorker rank=1 pid=3) x", b"(MyWorker_TPU pid=3) x"):
        assert process_tp_hint(text) is None
    one = explain_log(("(EngineCore_DP0 pid=7) " + _AVAIL).encode())
    assert not any("tp ≥ 2" in n for n in one.context.notes)



# --- vLLM V0's 'Exception in worker … while processing method X' ------------------------------------------------------
_V0_OOM = ("(VllmWorkerProcess pid=5) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] torch.OutOfMemoryError: "
           "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 2 has a total capacity of 14.62 GiB of which 3.31 MiB "
           "is free. Including non-PyTorch memory, this process has 14.61 GiB memory in use.\n")
_V0_HEADER = ("(VllmWorkerProcess pid=7) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] Exception in worker "
              "VllmWorkerProcess while processing method {method}.\n"
              "(VllmWorkerProcess pid=7) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] Traceback (most recent "
              "call last):\n"
              "(VllmWorkerProcess pid=7) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] File \"/x/vllm/executor/"
              "multiproc_worker_utils.py\", line 236, in _run_worker_process\n")


@pytest.mark.parametrize("method,phase", [("load_model", "weights"), ("determine_num_available_blocks", "kv_pool"),
                                          ("start_worker_execution_loop", "first_request")])
def test_v0_worker_method_header_places_the_error(method, phase):
    e = explain_log((_V0_OOM + _V0_HEADER.format(method=method)).encode())
    assert e.diagnosis.phase == phase


def test_without_the_header_the_oom_stays_unplaced():
    header = _V0_HEADER.format(method="load_model").splitlines(keepends=True)[1:]  # the traceback alone
    assert explain_log((_V0_OOM + "".join(header)).encode()).diagnosis.phase == "other"


@pytest.mark.parametrize("case_id,phase", [("vl_1290", "weights"), ("vl_1291", "first_request")])
def test_the_round_s_v0_worker_logs(case_id, phase):
    assert explain_log(log_bytes(case_id)).diagnosis.phase == phase


# --- the engine from the process names and record headers it writes ---------------------------------------------------
def _engine(text: str) -> str | None:
    from tpkit.logs import parse_log

    return parse_log(text.encode()).engine.engine


def test_vllm_process_names_name_the_engine_mid_line():
    """vllm#49101: a tqdm bar glued before '(EngineCore pid=…)', no other vLLM word: the header is vLLM's."""
    bar = "Capturing batches:  82%|███▊ | 42/51 [00:39<00:08,  1.00it/s]"  # SGLang's bar: not a vLLM word
    for name in ("EngineCore pid=9844", "EngineCore_DP0 pid=1", "Worker_TP1 pid=2", "VllmWorkerProcess pid=3",
                 "RayWorkerWrapper pid=4, ip=10.0.0.6"):
        assert _engine(f"{bar}({name}) INFO 07-19 14:32:17 [shm_broadcast.py:705] No available shared memory block\n"
                       "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n") == "vllm"
    for name in ("Worker pid=5", "WorkerDict pid=6, ip=1.2.3.4", "MyEngine pid=7"):
        assert _engine(f"{bar}({name}) INFO 07-19 14:32:17 [shm_broadcast.py:705] No available shared memory block\n"
                       "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n") is None


def test_vllm_capture_bars_name_the_engine():
    assert _engine("Capturing CUDA graph shapes:  91%|█████████▏| 32/35 [00:19<00:01,  1.67it/s]\n") == "vllm"
    assert _engine("Capturing CUDA graphs (PIECEWISE): 100%|██████████| 51/51 [00:47<00:00,  1.08it/s]\n") == "vllm"


def test_sglang_ranked_header_names_the_engine():
    line = "[2026-04-16 01:02:09 TP1] Failed to initialize lk_moe: CUDA out of memory. Tried to allocate 24.00 MiB.\n"
    assert _engine(line) == "sglang"
    assert _engine(line.replace(" TP1]", "]")) is None  # no rank: any Python logger could write '[date time]'


def test_a_threaded_shard_loader_bar_marks_the_weight_load():
    text = ("Multi-thread loading shards: 100% Completed | 142/142 [00:25<00:00,  5.66it/s]\n"
            "[2026-04-16 01:02:09 TP1] Failed to initialize lk_moe: CUDA out of memory. Tried to allocate 24.00 MiB. "
            "GPU 1 has a total capacity of 47.37 GiB of which 4.31 MiB is free.\n")
    assert explain_log(text.encode()).diagnosis.phase == "weights"
    after = text.replace("Multi-thread loading shards: 100% Completed | 142/142 [00:25<00:00,  5.66it/s]\n",
                         "[2026-04-16 01:02:00 TP1] Load weight end. type=X, dtype=torch.bfloat16, avail mem=20.00 GB, "
                         "mem usage=25.00 GB.\n")
    assert explain_log(after.encode()).diagnosis.phase != "weights"


# --- the call on the source line of a cut traceback's innermost frame --------------------------------------------------
_CUT = ('[2026-05-01 15:16:15 TP2] Scheduler hit an exception: Traceback (most recent call last):\n'
        '  File "/root/sglang/python/sglang/srt/managers/scheduler.py", line 3118, in run_scheduler_process\n'
        '    scheduler = Scheduler(\n'
        '  File "/root/sglang/python/sglang/srt/model_executor/model_runner.py", line 495, in initialize\n'
        '    {call}\n'
        '  File "/root/sglang/python/sglang/srt/model_\n')


def test_the_source_line_under_the_last_frame_places_a_cut_traceback():
    assert explain_log(_CUT.format(call="self.load_model()").encode()).diagnosis.phase == "weights"
    assert explain_log(_CUT.format(call="self.init_memory_pool(").encode()).diagnosis.phase == "kv_pool"
    # a source line that is not a call, or no source line at all, leaves the phase to the frames
    assert explain_log(_CUT.format(call="x = 1").encode()).diagnosis.phase == "other"
    whole = _CUT.format(call="self.load_model()").replace('  File "/root/sglang/python/sglang/srt/model_\n', "")
    closed = whole + "RuntimeError: NCCL error: unhandled system error\n"
    assert explain_log(closed.encode()).diagnosis.phase == "other"  # a full traceback: its own frames, no guess


def test_a_prefixed_source_line_is_read_too():
    text = ("(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1] EngineCore failed to start.\n"
            "(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1] Traceback (most recent call last):\n"
            '(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1]   File "/x/vllm/v1/worker/gpu_worker.py", '
            "line 315, in compile_or_warm_up_model\n"
            "(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:1]     self.model_runner.capture_model()\n")
    assert explain_log(text.encode()).diagnosis.phase == "cuda_graph"


# --- an exception line printed just before a header whose traceback is cut (sg_691) -----------------------------------
_HEADER = ("[2026-06-15 14:10:59 TP7] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1024, in event_loop_overlap\n'
           "    batch = self.get_next_batch_to_run()\n")
_ASSERT = "AssertionError: Committed KV cache already freed (self.kv_committed_len=1)\n"


def test_the_exception_line_before_a_cut_header_names_the_error():
    e = explain_log(log_bytes("sg_691"))
    assert e.diagnosis.phase == "first_request" and "AssertionError: Committed KV cache" in e.diagnosis.cause
    assert "AssertionError" in explain_log((_ASSERT + _HEADER).encode()).diagnosis.cause


def test_an_exception_line_far_from_the_header_or_before_a_whole_traceback_is_left_alone():
    far = _ASSERT + "INFO something\nINFO something else\nINFO and more\n" + _HEADER
    assert "AssertionError" not in explain_log(far.encode()).diagnosis.cause
    whole = _ASSERT + _HEADER + "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    assert "AssertionError" not in explain_log(whole.encode()).diagnosis.cause


# --- a failed start-up's header placed by the root cause above it; the encoder's frames are the profile run -----------
_ENCODER_TB = ('(EngineCore_DP0 pid=43) ERROR 03-20 17:39:14 [core.py:1100]   File "/usr/local/lib/python3.12/'
               'dist-packages/vllm/v1/attention/ops/vit_attn_wrappers.py", line 268, in vit_torch_sdpa_wrapper\n'
               "(EngineCore_DP0 pid=43) ERROR 03-20 17:39:14 [core.py:1100]     return torch.ops.vllm.torch_sdpa_wrapper(\n")
_API_TAIL = ('(APIServer pid=7)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py", line 1010, '
             "in wait_for_engine_startup\n"
             "(APIServer pid=7)     raise RuntimeError(\n"
             "(APIServer pid=7) RuntimeError: Engine core initialization failed. See root cause above. "
             "Failed core proc(s): {}\n")


def test_the_encoder_in_a_failed_start_up_is_the_profile_run():
    assert explain_log((_ENCODER_TB + _API_TAIL).encode()).diagnosis.phase == "kv_pool"
    # the same frames without a start-up failure (the encoder also runs per request): not placed by this rule
    assert explain_log(_ENCODER_TB.encode()).diagnosis.phase == "other"
    # the root cause above places the header by its own frames first
    load = _ENCODER_TB.replace("vit_attn_wrappers.py", "gpu_model_runner.py").replace("vit_torch_sdpa_wrapper",
                                                                                       "load_model")
    assert explain_log((load + _API_TAIL).encode()).diagnosis.phase == "weights"
