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


def test_sglang_cut_exception_text_is_not_read_as_memory():
    """sg_031: the excerpt cuts the exception text, so nothing names a cause, memory included: since round ex32 the
    capture is one of ``explain.unnamed.UNNAMED_PHASES`` ("does not print the error", skip the capture) instead of
    a memory reading from the phase alone."""
    e, d = _diag(log_bytes("sg_031"))
    assert capture_error_not_memory(e.parsed) is None
    assert "does not print the error" in d.cause and "out of memory" not in d.cause
    assert [f.flags for f in d.fixes] == ["--disable-cuda-graph"]


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


# --- the KV pool's creation (helper sgz, 2026-12-04) ---------------------------------------------------------------
# SGLang sizes the pool, then builds it in ``_init_pools`` (model_executor/model_runner_kv_cache_mixin.py, 0.5.11
# wheel).  An exception of another kind than a memory error raised there is not fixed by memory knobs.

from tpkit.explain.diagnose import pool_error_not_memory  # noqa: E402


def test_sglang_pool_creation_error_that_is_not_memory():
    """sg_121 (sglang#25118): DeepSeek-V4-Flash on MI300X, 'assert self.store_dtype == torch.uint8' in
    deepseekv4_memory_pool.create_buffer after the pool was sized with an 87 GiB budget."""
    e, d = _diag(log_bytes("sg_121"))
    assert d.phase == "kv_pool"
    assert pool_error_not_memory(e.parsed) == "AssertionError"
    assert "not a lack of memory" in d.cause and "did not fit" not in d.cause
    assert "87.27 GiB" in d.cause
    assert d.fixes == () and d.short_by is None


def test_sglang_same_pool_log_with_an_oom_keeps_the_memory_reading():
    raw = log_bytes("sg_121").replace(b"    assert self.store_dtype == torch.uint8\nAssertionError",
                                      b"torch.OutOfMemoryError: HIP out of memory. Tried to allocate 20.00 GiB.")
    e, d = _diag(raw)
    assert pool_error_not_memory(e.parsed) is None
    assert "not a lack of memory" not in d.cause


def test_sglang_pool_memory_failures_in_the_corpus_are_unchanged():
    """'Not enough memory' (sg_060), a negative budget (sg_045, sg_105), an OOM allocating the pool (sg_038)."""
    for log in ("sg_060", "sg_045", "sg_105", "sg_038"):
        e, d = _diag(log_bytes(log))
        assert pool_error_not_memory(e.parsed) is None, log
        assert d.phase == "kv_pool" and "not a lack of memory" not in d.cause, log
