"""A failed CUDA-graph capture is diagnosed as out of memory only when the run says so (helper sgy, 2026-12-04).

SGLang wraps every RuntimeError of ``CudaGraphRunner.capture()`` in "Capture cuda graph failed: {e}" plus the same
memory advice (``model_executor/cuda_graph_runner.py``, 0.5.11 wheel); vLLM re-raises from ``capture_model``.  The
chained CUDA error tells the cause: "out of memory" keeps the memory diagnosis (more slack, a smaller captured
batch), any other CUDA error ("operation not permitted when stream is capturing") is not fixed by memory knobs.
Both sides are pinned on corpus logs and on the same log with only the CUDA error swapped."""

from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.explain.diagnose import capture_error_not_memory


def _diag(raw: bytes):
    e = explain_log(raw)
    return e, e.diagnosis


def test_sglang_capture_error_that_is_not_memory():
    """sg_106: a synchronise call inside the captured NSA indexer (the author's patched build)."""
    e, d = _diag(log_bytes("sg_106"))
    assert d.phase == "cuda_graph"
    assert capture_error_not_memory(e.parsed) == "operation not permitted when stream is capturing"
    assert "not a lack of memory" in d.cause and "out of memory" not in d.cause
    assert [f.flags for f in d.fixes] == ["--disable-cuda-graph"] and d.fixes[0].fits
    assert d.fixes[0].kv_tokens == 446_016


def test_sglang_same_log_with_an_oom_keeps_the_memory_reading():
    raw = log_bytes("sg_106").replace(b"CUDA error: operation not permitted when stream is capturing",
                                      b"CUDA out of memory. Tried to allocate 2.00 GiB.")
    e, d = _diag(raw)
    assert capture_error_not_memory(e.parsed) is None
    assert d.cause.startswith("out of memory while capturing CUDA graphs")


def test_sglang_capture_oom_in_the_corpus_is_unchanged():
    e, d = _diag(log_bytes("sg_028"))
    assert capture_error_not_memory(e.parsed) is None
    assert d.cause.startswith("out of memory while capturing CUDA graphs")


def test_sglang_cut_exception_text_keeps_the_memory_reading():
    """sg_031: the excerpt cuts the exception text, so nothing names another cause."""
    e, d = _diag(log_bytes("sg_031"))
    assert capture_error_not_memory(e.parsed) is None
    assert d.cause.startswith("out of memory while capturing CUDA graphs")


def test_vllm_capture_error_that_is_not_memory():
    """vl_208: vLLM 0.19.1, 'CUDA error: operation not permitted' from capture_model."""
    e, d = _diag(log_bytes("vl_208"))
    assert d.phase == "cuda_graph"
    assert capture_error_not_memory(e.parsed) == "operation not permitted"
    assert "not a lack of memory" in d.cause
    assert [f.flags for f in d.fixes] == ["--enforce-eager"]


def test_vllm_capture_oom_keeps_the_memory_reading():
    e, d = _diag(log_bytes("vl_037"))
    assert capture_error_not_memory(e.parsed) is None
    assert d.cause.startswith("out of memory while capturing CUDA graphs")
