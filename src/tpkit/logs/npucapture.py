"""An Ascend NPU graph capture that could not begin: CANN's ``aclmdlRICaptureBegin`` error (round ex36).

torch_npu's ``NPUGraph.capture_begin`` (the NPU counterpart of ``torch.cuda.graph``, which vLLM-Ascend's and SGLang's
NPU back ends use to capture their graphs) calls ACL's ``aclmdlRICaptureBegin``; that calls the runtime's
``rtStreamBeginCapture`` and, when it fails with anything but "feature not supported", logs
``begin capture stream failed, runtime result = %d`` (``aclmdlRICaptureBeginImpl``, CANN's ACL model-RI source read
through the code index; the runtime prints its own 'rtStreamBeginCapture execution failed, reason=…' line above it).
So the line places the failure in graph capture.  The result code says what ran out: 207001
(``ACL_ERROR_RT_MEMORY_ALLOCATION``, the driver's "out of memory") is device memory; 207005
(``ACL_ERROR_RT_RESOURCE_ALLOC_FAIL``, "resource alloc fail", the driver's malloc failure, whose documented remedy is
to check the use of streams and other runtime resources) is a runtime resource such as a stream's submission and
completion queues (vllm-project/vllm-ascend#12113: '[SqCqManage]Alloc sq cq fail, stream_id=1984'), not the
memory a KV pool or a fraction sizes.  tpkit plans neither on an NPU; the failure is named, with its code, and placed.
"""

from __future__ import annotations

from tpkit.logs.lazyre import lazy

__all__ = ["NEEDLE", "PREFIX", "npu_capture_failures", "npu_capture_phase"]

NEEDLE = "begin capture stream failed"
PREFIX = "NPU graph capture could not begin"
"""how a failed capture begin's detail starts (``explain.npugraph`` and ``explain.vdiagnose`` match on it)"""
_BEGIN = lazy(r"begin capture stream failed, runtime result = (\d{6})")
RESULTS = {
    "207001": "ACL_ERROR_RT_MEMORY_ALLOCATION: the device's memory ran out",
    "207005": "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, 'resource alloc fail': a runtime resource (a stream's queues) could "
              "not be allocated, not the device memory a KV pool or a memory fraction sizes",
}
"""ACL's runtime result codes (acl_base.h: 207001, 207005) that a failed capture begin reports"""


def npu_capture_failures(message: str) -> list[tuple]:
    """``detect``'s (kind, severity, sizes, counts, detail) for a failed NPU capture begin: an ``exception`` whose
    detail names the result code (no size is printed, so no memory fix can be sized from it)."""
    m = _BEGIN.search(message)
    if m is None:
        return []
    meaning = RESULTS.get(m.group(1), "an ACL runtime error")
    return [("exception", "error", (), (), f"{PREFIX} (CANN aclmdlRICaptureBegin: 'begin capture stream failed, "
                                            f"runtime result = {m.group(1)}', {meaning})")]


def npu_capture_phase(message: str) -> tuple[str, str] | None:
    """``cuda_graph`` for a failure whose record carries CANN's capture-begin error."""
    if NEEDLE in message:
        return "cuda_graph", "CANN's aclmdlRICaptureBegin failed ('begin capture stream failed'): an NPU graph capture"
    return None
