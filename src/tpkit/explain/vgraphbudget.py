"""vLLM: a KV budget at or below zero after the CUDA-graph estimate was subtracted (round ex37: vllm#53013).

``Worker.determine_available_memory`` measures the graphs before it sizes the KV cache
(``model_runner.profile_cudagraph_memory``, run only when ``cudagraph_mode`` is not ``NONE``) and, with
``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` on (the default from 0.20.0), sets the budget to requested − non-KV −
the estimate; a budget ≤ 0 is "No available memory for the cache blocks" (``v1/worker/gpu_worker.py``,
``v1/core/kv_cache_utils.py``; 0.20.1, 0.26.0 and 0.30.0 wheels).  So where the log prints an applied estimate
("Estimated CUDA graph memory: X GiB total", ``explain.vpeak``), the estimate is one of the terms that left nothing:
the cause names it.  ``--enforce-eager`` (``cudagraph_mode`` NONE) takes the whole estimate off the budget's
subtractions; it is offered as a suggestion (``fits`` false): the budget that would be left is the printed available
memory plus the estimate, and a pool above zero still has to hold one request at the run's max_model_len, which the
log does not say.  ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0`` (the thread's workaround) is named in the note,
not offered: it captures the graphs from what the KV cache leaves, unbudgeted."""

from __future__ import annotations

from tpkit.explain.diagnose import SUGGESTION, Fix
from tpkit.explain.interval import mid_bytes
from tpkit.units import Bytes, gib_text

__all__ = ["graph_budget"]


def graph_budget(a, cause: str, fixes: list) -> tuple[str, list]:
    """``cause`` and ``fixes`` of a no-KV-memory diagnosis, with the applied CUDA-graph estimate of ``a`` (an
    ``explain.vllm.VllmAnchored``) named and ``--enforce-eager`` suggested first; unchanged where the log prints no
    estimate, or one that was not applied (module docstring)."""
    use = getattr(a, "graph_use", None)
    applied = mid_bytes(use.applied) if use is not None and use.estimate is not None else None
    if not applied or applied <= 0:
        return cause, fixes
    text = gib_text(Bytes(round(applied)))
    cause += (f"; the CUDA-graph estimate ({text}) was subtracted from the KV budget before it was sized "
              f"({use.applied_why})")
    avail = mid_bytes(a.available)
    left = ("the budget would be the printed available memory plus the estimate: "
            f"{gib_text(Bytes(round(avail + applied)))}" if avail is not None else "the available memory is not printed, so the budget left without the "
            f"estimate is at most {text}")
    fix = Fix(flags="--enforce-eager", kv_tokens=None, fits=False,
              why="no CUDA graphs: vLLM runs no graph profile and subtracts no estimate from the KV budget "
                  "(slower decode)",
              note=f"{SUGGESTION}: {left}; the pool must still hold one request at max_model_len; "
                   "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 keeps the graphs but leaves them unbudgeted")
    return cause, [fix, *fixes]
