"""Whether a vLLM log's CUDA-graph term is a reading of the run (round cr36c, the lead of round ex35).

``explain.vpeak.graph_estimate_use`` says how much CUDA-graph estimate a vLLM run subtracted before it sized the KV
cache: the printed estimate, 0 where the release or a printed message says it was not applied, and 0 "as far as the
log shows" where neither the release nor a message is printed.  That last 0 describes a log that went through the
profile and printed its KV sizing without an estimate.  A log that stopped before the profile (vLLM's start-up
free-memory check in ``init_device``, a weight-load OOM) printed nothing about the graphs at all: its 0 is no
measurement, and ``tpkit plan --from-log`` charging it as "measured in the log" gave another plan than the one
``tpkit explain`` re-plans its fixes with (``explain.replan.relayout``, which leaves the term to the planner):
a Llama-3.1-8B log cut at that check had its ``--gpu-memory-utilization 0.74`` fix planned at 320,512 tokens in
explain and 325,632 in plan --from-log, the difference the 0.62 GiB of graphs the current rules capture before the
extensible KV sizing.

The profile's own prints are what show the run reached the point where the estimate applies (vLLM V1
``gpu_worker.determine_available_memory``: the estimate is measured after ``profile_run`` and logged with the
'Available KV cache memory' line; 0.20.1 and 0.30.0 wheels; V0's 'the rest of the memory reserved for KV Cache'
line and its '# GPU blocks' are printed by the same step)."""

from __future__ import annotations

__all__ = ["graph_term_read"]


def graph_term_read(a) -> bool:
    """True where the vLLM anchors ``a`` (``explain.vllm.VllmAnchored``) rest on a log that printed the CUDA-graph
    estimate or reached the KV sizing the estimate is part of: the estimate itself, the available KV memory, the
    KV capacity, the profile's peak activation, or the extensible pool measured after warm-up."""
    use = getattr(a, "graph_use", None)
    if use is None:
        return False
    return (use.estimate is not None or a.available is not None or bool(a.tokens_printed)
            or a.activation is not None or a.pool is not None)
