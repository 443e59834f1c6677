"""``tpkit explain``'s vLLM diagnosis of an OOM on hardware tpkit does not plan (helper cr34c, 2026-12-07): the
device read from the OOM's own message (``explain.sgdevice.unplanned_device``: torch_npu's 'NPU out of memory' on an
Ascend NPU, vLLM-Ascend; torch's 'XPU out of memory' on an Intel GPU), the printed sizes, and no fix.  Before, a
vLLM-Ascend OOM (vllm-project/vllm-ascend#3357) got the CUDA rules' lower ``--gpu-memory-utilization``, whose
meaning on the plug-in's NPU worker tpkit has not read; SGLang's logs had this outcome since round cr33a
(``explain.sgdevice.unplanned_device_failure``)."""

from __future__ import annotations

__all__ = ["unplanned_device_diagnosis"]


def unplanned_device_diagnosis(failure, a=None, ctx=None, tokens_for=None, texts: str = "") -> tuple | None:
    """(cause, short, fixes) where the failure is an OOM whose message names a device tpkit does not plan, else
    None: on an Ascend NPU while serving, the lower utilization re-planned from the log (``explain.npuplan``,
    helper np37); else no fix."""
    from tpkit.explain.npugraph import npu_capture_diagnosis
    from tpkit.explain.sgdevice import unplanned_device, unplanned_device_failure

    if (npu := npu_capture_diagnosis(failure, "--enforce-eager")) is not None:  # CANN's capture begin (ex36)
        return npu
    device = unplanned_device(failure) if failure.kind == "cuda_oom" else None
    if device is None:
        return None
    from tpkit.explain.npuplan import npu_vllm_diagnosis

    if (planned := npu_vllm_diagnosis(failure, device, a, ctx, tokens_for, texts)) is not None:
        return planned
    cause, short, _ = unplanned_device_failure(failure, device, "vllm")
    cause = cause.replace("size the pool with the vendor's SGLang back end (--mem-fraction-static, "
                          "--max-total-tokens)", "size the KV cache with the vendor's vLLM plug-in (its "
                          "--gpu-memory-utilization, --max-num-batched-tokens)")
    return cause, short, []
