"""The OOM of a phase that prints its sizes, where the run's first OOM prints none (round cr35a, 2026-12-07).

A run can fail with more than one CUDA out-of-memory in the same phase: a CUDA runtime error with no figures ("CUDA
error: out of memory", raised by the CUDA runtime, e.g. ``cudaSetStream``, ``c10/cuda/CUDAFunctions.cpp``) and the
caching allocator's message, which prints the allocation that failed and the free memory ("Tried to allocate X. GPU N
has a total capacity of T of which F is free", ``c10/cuda/CUDACachingAllocator.cpp``).  The reader's primary failure
is the first by line (``logs.parsed.ParsedLog.primary_failure``); where it prints no sizes, the shortfall the SGLang
diagnosis re-plans from (``explain.sgdiagnose._first_request_failure`` / ``_graph_failure``: asked − free) is read
from the same phase's OOMs that print them, the largest shortfall of them (a fix must cover each printed one).  The
primary keeps its sizes where it prints them; nothing is read where no OOM of the phase prints both figures."""

from __future__ import annotations

from tpkit.explain.diagnose import oom_sizes

__all__ = ["sized_oom", "sized_note"]


def sized_oom(parsed, failure):
    """``failure`` where it prints asked and free (or is not a CUDA OOM); else the same phase's CUDA OOM with the
    largest printed shortfall, else ``failure``."""
    if failure is None or failure.kind != "cuda_oom" or oom_sizes(failure)[3] is not None:
        return failure
    sized = [(short, f) for f in getattr(parsed, "failures", ()) or ()
             if f.kind == "cuda_oom" and f.phase == failure.phase and (short := oom_sizes(f)[3]) is not None]
    if not sized:
        return failure
    return max(sized, key=lambda pair: (pair[0].bytes, -pair[1].line_no))[1]


def sized_note(primary, used) -> str:
    """The cause's clause naming the OOM the sizes come from, '' where it is the primary."""
    if used is primary:
        return ""
    return (f" (sizes from the OOM at line {used.line_no}; the first, at line {primary.line_no}, prints no allocation "
            "or free memory)")
