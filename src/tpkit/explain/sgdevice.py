"""What an SGLang out-of-memory message says about the device itself: hardware tpkit does not plan (an Ascend NPU's
``torch_npu`` OOM), an allocation larger than the whole device, and whose memory fills the card (this process or
others) from torch's own figures.  Helper cr33a (2026-12-07, issue 12: a fix that fits for every crash log, or the
honest reason why not; docs/accuracy.md §7.3)."""

from __future__ import annotations

import re

from tpkit.explain.diagnose import OTHERS_NEGLIGIBLE_FRACTION, bytes_text

__all__ = ["unplanned_device", "unplanned_device_failure", "who_holds_the_card"]

_UNPLANNED_OOM = re.compile(r"\b(NPU|XPU) out of memory\b")
"""The OOM message of a device tpkit has no catalog entry and no engine rules for.  ``NPU``: torch_npu's
``NPU out of memory. Tried to allocate …`` (Huawei Ascend; SGLang's Ascend back end allocates its KV pool in
``sglang/srt/hardware_backend/npu/memory_pool_npu.py`` ``_create_buffers``, present in the 0.5.9, 0.5.10, 0.5.16 and
0.5.23 wheels; gpustack#4761).  ``XPU``: torch's Intel GPU allocator (``XPU out of memory``).  tpkit plans
NVIDIA CUDA and AMD ROCm GPUs only (``tpkit.gpus`` catalog; ``HIP out of memory`` is ROCm and stays planned)."""

_DEVICE_WORDS = {"NPU": "an Ascend NPU (torch_npu's 'NPU out of memory')",
                 "XPU": "an Intel XPU (torch's 'XPU out of memory')"}


def unplanned_device(failure) -> str | None:
    """The words for the device, where the failure's own message is the OOM of hardware tpkit does not plan."""
    m = _UNPLANNED_OOM.search(f"{failure.evidence}\n{failure.detail or ''}")
    return _DEVICE_WORDS[m.group(1)] if m else None


def unplanned_device_failure(failure, device: str, engine: str = "sglang", plan=None):
    """(cause, short, fixes) for an OOM on hardware tpkit does not plan: the printed sizes, what they show, and no
    fix (none is planned, none is called a fit); on an Ascend NPU the refusal names the catalog NPU and what the fix
    would need (``explain.npuplan``, helper np37)."""
    req, free, total = failure.size("requested"), failure.size("free"), failure.size("total")
    short = req.value - free.value if req and free else None
    where = {"kv_pool": "allocating the KV pool", "weights": "loading the weights",
             "cuda_graph": "capturing graphs", "first_request": "serving the first requests"}.get(failure.phase, "")
    cause = "out of memory" + (f" {where}" if where else "") + f" on {device}"
    sizes = [f"asked for {req.text}" if req else "", f"{free.text} free" if free else ""]
    if any(sizes):
        cause += ": " + ", ".join(s for s in sizes if s) + (f" of {total.text}" if total else "")
    if req and total and req.value > total.value:
        cause += (f"; the allocation alone is larger than the whole device ({req.text} > {total.text}), so no other "
                  "process explains it: it was sized for more memory than the device has")
    held = who_holds_the_card(failure)
    if held:
        cause += "; " + held
    if "NPU" in device:  # plan: sgdiagnose's BudgetReplan (the log's anchors), for SGLang's fraction fix
        from tpkit.explain.npuplan import npu_catalog_words, npu_refusal, npu_sglang_fraction

        if engine == "sglang" and (fixes := npu_sglang_fraction(failure, plan)):
            return (cause + npu_catalog_words(failure) + "; SGLang's NPU back end sizes the pool from "
                    "--mem-fraction-static as on CUDA: the lower fraction is re-planned from the log's pre-load "
                    "memory and fraction"), short, fixes
        return cause + npu_refusal(failure, engine, plan), short, []
    cause += ("; tpkit does not plan this hardware (its GPU catalog and engine rules are NVIDIA CUDA and AMD ROCm), "
              "so no fix is planned and none is called a fit: size the pool with the vendor's SGLang back end "
              "(--mem-fraction-static, --max-total-tokens) and check it against the device's total")
    return cause, short, []


def who_holds_the_card(failure) -> str:
    """Whose memory fills the device, from torch's figures: other processes = total − free − this process (the
    'Including non-PyTorch memory, this process has X in use' figure, else what PyTorch reserved).  '' when the
    message does not print the three."""
    total, free = failure.size("total"), failure.size("free")
    mine = failure.size("process_in_use") or failure.size("torch_reserved")
    if total is None or free is None or mine is None:
        return ""
    others = total.value.bytes - free.value.bytes - mine.value.bytes
    what = "this process holds" if failure.size("process_in_use") else "this process's allocator reserved"
    text = f"{what} {mine.text} of the {total.text} device"
    if others <= OTHERS_NEGLIGIBLE_FRACTION * total.value.bytes:
        return (f"{text}, other processes at most {bytes_text(max(others, 0))}: no other process is in the way, "
                "this run's own allocations fill the device")
    return f"{text}, other processes {bytes_text(others)} (total − free − this process)"
