"""A torch OOM message that stops right after 'GPU ' (round cr38, 2026-12-08).

PyTorch's caching allocator writes its OOM as "CUDA out of memory. Tried to allocate X. GPU <index> has a total
capacity of T of which F is free. …" (``c10/cuda/CUDACachingAllocator.cpp``).  Older allocators stream the device
index as it is — a ``c10::DeviceIndex``, an 8-bit integer, which a C++ stream writes as a character, not a number:
GPU 0's index is a NUL byte.  Current PyTorch casts it to int first (``static_cast<int>(device_id)``; read in
pytorch/pytorch at eb42ad6e and in the older copies the code index stores, which pass ``device`` unconverted).  Copies
of such a message either drop the byte ("GPU  has a total capacity of …", two spaces, the rest kept: the reader reads
those) or end at it, and then the total, the free memory and the per-process figures — every number but the
allocation — are lost (stored copies of 2024 issue threads end so).  Read only where the message's last words are 'Tried to allocate X. GPU' (markdown quoting
marks aside) and it prints no free memory; the cause then says what was cut and where the figures can be had.
Nothing is re-planned: the numbers are not in the log."""

from __future__ import annotations

import re

__all__ = ["cut_after_gpu", "cut_note"]

_CUT = re.compile(r"Tried to allocate [\d.]+ ?[KMGT]?i?B\.\s+GPU[\s`'\"]*$")
"""the allocation, then 'GPU' and nothing but space or quoting marks up to the end of the failure's text"""


def cut_after_gpu(failure) -> bool:
    """Whether ``failure`` is a CUDA OOM whose message ends at 'GPU ' (the device index and all after it lost)."""
    if failure is None or failure.kind != "cuda_oom" or failure.size("free") is not None:
        return False
    return _CUT.search(failure.evidence or "") is not None


def cut_note(failure) -> str:
    """The cause's clause for such a message, '' otherwise."""
    if not cut_after_gpu(failure):
        return ""
    return (f"; torch's OOM message stops at 'GPU ' (line {failure.line_no}): older PyTorch allocators write the "
            "device index as a raw byte (GPU 0's is a NUL character, where copies of the message end; current "
            "PyTorch prints it as a number), so the device total, its free memory and other processes' memory that "
            "the message goes on to print are lost — nvidia-smi at the failure, or the whole message, would give "
            "them")
