"""vLLM's first-request OOM that prints no number: say that no fix can be shown to fit, and what would (round cr36c,
the lead of round ex35).

A vLLM failure after start-up is re-planned from the OOM's sizes (the allocation asked for and the free memory, whose
difference is the shortfall ``explain.voom.first_request_failure`` lowers the utilization by) and from the KV cache
the run printed ('Available KV cache memory', 'GPU KV cache size', '# GPU blocks').  An allocator message without
sizes — vLLM's sleep-mode CuMemAllocator prints only "CUDA Error: out of memory at …/cumem_allocator.cpp:62"
(``csrc/cumem_allocator.cpp``'s CUDA_CHECK, the 0.8.5 wheel's ``cumem_allocator.abi3.so``: the driver's error string,
no size) — gives none of them: no fix can be re-planned or shown to fit.  The diagnosis then offered nothing and said
nothing about why, unlike SGLang's (``explain.sgreplan.no_replan_words``).  What would fit is memory outside vLLM's
budget or a smaller budget, which the words name; none is called a fit."""

from __future__ import annotations

__all__ = ["NO_NUMBERS_WORDS", "worded_cause"]

NO_NUMBERS_WORDS = (
    "no fix can be shown to fit: the log prints neither the OOM's sizes (the allocation asked for, the free memory) "
    "nor the KV cache ('Available KV cache memory', 'GPU KV cache size'), the numbers a fix is re-planned from; what "
    "would fit is more free memory beside vLLM's budget or a smaller budget: fewer other processes on the GPU (a "
    "trainer's memory at a sleep-mode wake_up), a lower --gpu-memory-utilization, more GPUs (a larger "
    "--tensor-parallel-size with the GPUs to hold it), a GPU with more memory, or a smaller or quantized checkpoint")
_KV_PRINTED = ("the log prints its KV cache but not the OOM's sizes (the allocation asked for, the free memory)",
               "the log prints neither the OOM's sizes (the allocation asked for, the free memory) nor the KV cache "
               "('Available KV cache memory', 'GPU KV cache size')")
"""the words, as SGLang's name the same remedies (``explain.sgreplan.no_replan_words``)"""


def worded_cause(cause: str, short, fixes: list, *, kv_printed: bool = False) -> str:
    """``cause`` with ``NO_NUMBERS_WORDS`` where the first-request diagnosis found no shortfall (``short`` None: no
    size printed) and offers no fix (``kv_printed``: the log printed its KV cache, which the words then do not deny);
    unchanged otherwise."""
    if short is not None or fixes:
        return cause
    words = NO_NUMBERS_WORDS.replace(_KV_PRINTED[1], _KV_PRINTED[0]) if kv_printed else NO_NUMBERS_WORDS
    return f"{cause}: {words}"
