"""Held-back round ex36 (helper ex36, 2026-12-07, docs/accuracy.md §7.3): 8 public crash logs judged before adding.

The labels below were written from each thread before tpkit was run on the logs (the first commit of this file holds
only them); the blind results and the rules made after are recorded in docs/accuracy.md's "round ex36" subsection.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| vl_1481 | vllm-project/vllm#24814 (rangehow, 2025-09-14: '8xA100 oom with qwen235b', V1 multiproc) | crash cuda_graph | frames `compile_or_warm_up_model` -> `capture_model` -> `_capture_cudagraphs` -> `_dummy_run`, cut; the OOM is in the title |
| vl_1482 | vllm-project/vllm PR#30515 (eugr's comment, 2026-03-08, on '[UX][Startup] Account for CUDA graphs during memory profiling') | crash cuda_graph | `cuda_graph_memory_bytes = self.model_runner.capture_model()` -> `_capture_cudagraphs` -> `_warmup_and_capture`, cut |
| vl_1483 | vllm-project/tpu-inference PR#223 (wang2yn84, 2025-07-17: v5e-8 TPU, tpu_commons offline_inference.py) | crash kv_pool | `check_enough_kv_cache_memory` -> 'ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, … (0.71 GiB) … 5632' |
| vl_1484 | vllm-project/vllm#16118 (heheda12345, 2025-04-06: the V1 error quoted in the feature request) | crash kv_pool | '[core.py:390] ValueError: To serve at least one request with the models's max seq len (1048576), (24.00 GiB KV cache is needed, … (9.97 GiB)' |
| vl_1485 | vllm-project/vllm-ascend#12113 (lixikun's comment, 2026-07-18: Qwen3.5-9B on Ascend 910B) | crash cuda_graph | 'rtStreamBeginCapture execution failed, reason=driver error:resource alloc fail' / 'begin capture stream failed'; the comment: 'this error shows that the memory is not enough' |
| sg_1026 | sgl-project/sglang#29838 (zhujianwei-ops, 2026-07-01: GLM-5.2-W8A8 on Ascend A3, tp 16) | crash first_request | a served 'POST /v1/responses 200 OK', then torch_npu's 'NPU out of memory. Tried to allocate 72.00 MiB' and `event_loop_overlap` -> `run_batch`; title 'during inference requests' |
| sg_1027 | sgl-project/sglang#9646 (yangqinghao-cmss, 2025-08: SGLang 0.5.0rc2 on NPU, 'NPU out of memory when tp=2') | crash first_request | `forward_thread_func_` -> `forward_batch_generation` -> `forward_extend` -> deepseek_v2 `forward`, cut |
| sg_1028 | sgl-project/sglang#18329 (giftyang, 2026-02-06: '[NPU] Out of memory while deploying Qwen3-32B-W8A8') | crash first_request | `event_loop_overlap` -> `run_batch` -> `forward_batch_generation`, cut |
"""

from __future__ import annotations

import pytest
from explain_testlib import explain_labelled, log_bytes

from tpkit.explain import explain_log
from tpkit.explain.vblockfit import estimate_block_tokens
from tpkit.logs.failures import detect
from tpkit.logs.npucapture import npu_capture_phase

LABELS = {
    "vl_1481": ("vllm", "crash", "cuda_graph"),
    "vl_1482": ("vllm", "crash", "cuda_graph"),
    "vl_1483": ("vllm", "crash", "kv_pool"),
    "vl_1484": ("vllm", "crash", "kv_pool"),
    "vl_1485": ("vllm", "crash", "cuda_graph"),
    "sg_1026": ("sglang", "crash", "first_request"),
    "sg_1027": ("sglang", "crash", "first_request"),
    "sg_1028": ("sglang", "crash", "first_request"),
}


def _explain(text: str):
    return explain_log(text.encode())


# -- the outcomes after the round's rules (pinned; docs/accuracy.md §7.3 round ex36 has the blind ones) -------------
@pytest.mark.parametrize("case_id", sorted(LABELS))
def test_each_log_gets_its_engine_status_and_phase(case_id):
    explain_labelled(case_id, LABELS[case_id])


def test_the_cut_capture_tracebacks_say_the_error_is_not_printed():
    for case_id in ("vl_1481", "vl_1482"):
        d = explain_log(log_bytes(case_id)).diagnosis
        assert "does not print the error" in d.cause and "no memory fix is given" in d.cause
        assert [f.flags for f in d.fixes] == ["--enforce-eager"] and d.fixes[0].kv_tokens is None


def test_the_npu_ooms_and_cut_serving_tracebacks_plan_nothing():
    d = explain_log(log_bytes("sg_1026")).diagnosis
    assert "tpkit does not plan this hardware" in d.cause and "72.00 MiB" in d.cause and not d.fixes
    for case_id in ("sg_1027", "sg_1028"):
        d = explain_log(log_bytes(case_id)).diagnosis
        assert "does not print the error" in d.cause and not any(f.fits for f in d.fixes)


# -- CANN's failed capture begin (vllm-ascend#12113; logs.npucapture, explain.npugraph) ----------------------------
_BEGIN = ("(EngineCore pid=386) ERROR 07-15 13:23:59 [core.py:1136]        begin capture stream failed, runtime result = "
          "{code}[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]\n")


def test_a_failed_capture_begin_is_a_failure_in_graph_capture():
    """aclmdlRICaptureBegin logs 'begin capture stream failed, runtime result = %d' when rtStreamBeginCapture fails:
    torch_npu's NPUGraph.capture_begin is its caller, so the failure is the graph capture's."""
    (kind, severity, _, _, detail), = detect(_BEGIN.format(code=207005), "")
    assert (kind, severity) == ("exception", "error")
    assert "207005" in detail and "not the device memory" in detail
    d = _explain(_BEGIN.format(code=207005)).diagnosis
    assert (d.status, d.phase) == ("failed", "cuda_graph")
    assert d.cause.startswith("NPU graph capture could not begin") and "tpkit does not plan this hardware" in d.cause
    assert not d.fixes  # nothing planned on an NPU, nothing called a fit


def test_the_result_code_says_what_ran_out():
    (*_, detail), = detect(_BEGIN.format(code=207001), "")
    assert "the device's memory ran out" in detail
    (*_, detail), = detect(_BEGIN.format(code=207999), "")
    assert "an ACL runtime error" in detail


def test_the_cold_start_needle_is_the_rules():
    from tpkit.logs import failures, npucapture
    assert failures._NPU_CAPTURE == npucapture.NEEDLE and npucapture.NEEDLE in failures.FAILURE_NEEDLES


def test_other_capture_words_are_left_alone():
    assert npu_capture_phase("end capture stream failed, runtime result = 207005") is None
    assert npu_capture_phase("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE)") is None
    assert detect("end capture stream failed, runtime result = 207005", "") == []
    assert detect("rtStreamBeginCapture execution failed, reason=driver error:resource alloc fail", "") == []
    d = explain_log(log_bytes("vl_1485")).diagnosis
    assert d.cause.startswith("NPU graph capture could not begin") and not d.fixes


# -- vLLM's estimate at a larger block size (tpu-inference#223; explain.vblockfit) --------------------------------
def _check(estimate: int | None, available: str = "0.71") -> str:
    line = ("ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is "
            f"needed, which is larger than the available KV cache memory ({available} GiB).")
    return line + (f" Based on the available memory, the estimated maximum model length is {estimate}." if estimate
                   else "") + "\n"


def _too_small(text: str):
    return explain_log(text.encode()).parsed.primary_failure


def test_an_estimate_only_a_larger_block_gives_is_the_pools_tokens():
    """L = 5,632 at 128 KiB per token and 0.71 GiB: 16-token blocks give 5,808 (n = 352 blocks end at 0.6895 GiB,
    below the print's 0.705), 256- and 512-token blocks give L."""
    assert estimate_block_tokens(_too_small(_check(5632)), 16) == 5632
    fix = explain_log(log_bytes("vl_1483")).diagnosis.fixes[0]
    assert fix.flags == "--max-model-len 5632" and fix.kv_tokens == 5632 and fix.fits


def test_an_estimate_the_assumed_block_gives_is_left_to_the_pin():
    assert estimate_block_tokens(_too_small(_check(5808)), 16) is None  # 363 blocks of 16 fit the print
    fix = _explain(_check(5808)).diagnosis.fixes[0]
    assert fix.flags == "--max-model-len 5808" and fix.kv_tokens == 5808


def test_an_estimate_no_block_gives_changes_nothing():
    assert estimate_block_tokens(_too_small(_check(5000)), 16) is None  # no power of two ≥ 32 divides 5,000
    assert estimate_block_tokens(_too_small(_check(None)), 16) is None  # no estimate printed (vl_1484's form)
    assert estimate_block_tokens(_too_small(_check(2560)), 16) is None  # 2,560 = 10 × 256 ends far below 0.71 GiB
