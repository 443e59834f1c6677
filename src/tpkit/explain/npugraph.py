"""The diagnosis of an Ascend NPU graph capture that could not begin (round ex36; the reader's rule is
``logs.npucapture``): the failure is placed in graph capture and named with CANN's result code, and nothing is
planned — tpkit's catalog and engine rules do not cover the NPU, and a code such as 207005 ('resource alloc fail', a
stream's queues) is not the memory a fraction sizes, so no memory fix is offered and none is called a fit."""

from __future__ import annotations

from tpkit.logs.npucapture import PREFIX

__all__ = ["npu_capture_diagnosis"]


def npu_capture_diagnosis(failure, skip_flag: str) -> tuple[str, None, list] | None:
    """(cause, no shortfall, no fixes) for a failed NPU capture begin, else None.  ``skip_flag`` is the engine's flag
    that captures no graphs (vLLM's --enforce-eager, SGLang's --disable-cuda-graph), named as what skips the step,
    not as a planned fit."""
    if failure.kind != "exception" or not failure.detail.startswith(PREFIX):
        return None
    return (f"{failure.detail}; tpkit does not plan this hardware (its GPU catalog and engine rules are NVIDIA CUDA "
            f"and AMD ROCm), so no fix is planned and none is called a fit: {skip_flag} skips the capture, at the "
            "cost of slower decode", None, [])
