"""CUDA-graph memory, estimated before KV sizing as vLLM ≥ 0.21 does by default (vLLM 0.33
``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory``, ``vllm/v1/worker/gpu/cudagraph_utils.py``).

vLLM captures the largest graphs in a throw-away pool and extrapolates:
``estimate = first graph + Σ_modes (n_mode − 1) × max(second graph, 1 MiB)``.  tpkit cannot capture, so
the first graph is ESTIMATED as the forward activations of the largest capture size (the graph pool holds
them) and every further graph costs vLLM's 1 MiB floor.

Capture sizes (``vllm/config/vllm.py`` ``_set_cudagraph_sizes``): 1, 2, 4, then 8…248 step 8, then 256…max step 16, where
``max = min(2 × max_num_seqs, 512)`` (1024 on compute capability 10.x), all ≤ max_num_batched_tokens.
Modes: FULL_AND_PIECEWISE (default) captures a piecewise and a full graph per size.
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, MiB

__all__ = ["GraphEstimate", "capture_sizes", "estimate_cudagraph_memory", "MIN_PER_GRAPH"]

MIN_PER_GRAPH = MiB(1)
"""vLLM's floor for each further graph (_MIN_PER_GRAPH_BYTES)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphEstimate:
    """The CUDA-graph memory estimate and how it was formed."""

    bytes: Bytes
    sizes: tuple[int, ...]
    """captured batch sizes (tokens)"""
    first_graph: Bytes
    """estimated pool for the largest size"""
    formula: str


def capture_sizes(*, max_num_seqs: int, max_num_batched_tokens: int,
                  compute_capability: tuple[int, int] | None) -> tuple[int, ...]:
    """The batch sizes vLLM captures by default (``vllm/config/vllm.py`` ``_set_cudagraph_sizes``)."""
    ceiling = 1024 if (compute_capability or (0, 0))[0] == 10 else 512
    top = min(max_num_seqs * 2, ceiling, max_num_batched_tokens)
    sizes = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, top + 1, 16))
    return tuple(s for s in sizes if s <= top)


def estimate_cudagraph_memory(model: ModelSpec, parallel: ParallelSpec, *, max_num_seqs: int,
                              max_num_batched_tokens: int, compute_capability: tuple[int, int] | None,
                              act_bytes: int) -> GraphEstimate:
    """Estimated CUDA-graph pool memory of one rank (FULL_AND_PIECEWISE, both modes over all sizes)."""
    sizes = capture_sizes(max_num_seqs=max_num_seqs, max_num_batched_tokens=max_num_batched_tokens,
                          compute_capability=compute_capability)
    top = sizes[-1]
    first = estimate_profile_peak(model, parallel, tokens=top, rows=0, act_bytes=act_bytes)
    forward = max((p.bytes for p in first.parts if "sampler" not in p.item), default=Bytes(0))
    further = MIN_PER_GRAPH * (2 * (len(sizes) - 1))
    formula = (f"estimate: forward activations at the largest capture size {top} ({forward.mib:.1f} MiB) + "
               f"2 modes × ({len(sizes)} sizes − 1) × 1 MiB floor")
    return GraphEstimate(bytes=forward + further, sizes=sizes, first_graph=forward, formula=formula)
