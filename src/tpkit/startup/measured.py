"""Start-up memory costs of a serving process as measured (pure facts, bytes).

Measured step by step on one rank of 2× H200 SXM (torch 2.11 + CUDA 13, NCCL 2.28.9): free memory
from ``cudaMemGetInfo`` (after ``empty_cache``) before and after each step, total 150,109,880,320 B.
Source: ``shared/measurements/h200x2-startup-memory-and-graph-allreduce.json`` (``memory_steps``).
Other GPUs and CUDA versions differ; until a per-GPU-family table replaces it, ``measured_cost`` answers
with this one measurement for every GPU (a ``tpkit probe`` machine profile replaces the CUDA context with
the live number of the real machine).
"""

from __future__ import annotations

from tpkit.hardware.gpu import GpuSpec
from tpkit.startup.cost import Cost
from tpkit.units import Bytes

__all__ = ["STARTUP_COSTS", "STARTUP_SOURCE", "measured_cost"]

_FREE_AFTER = {  # free bytes after each step, as measured
    "start": 150_109_880_320,
    "cuda_context": 149_460_942_848,
    "nccl_process_group": 149_077_164_032,
    "nccl_first_allreduce": 148_578_041_856,
    "cublas": 148_475_281_408,
}
_ORDER = tuple(_FREE_AFTER)

STARTUP_COSTS: dict[str, Bytes] = {
    step: Bytes(_FREE_AFTER[prev] - _FREE_AFTER[step]) for prev, step in zip(_ORDER, _ORDER[1:])
}
"""bytes each start-up step took: cuda_context, nccl_process_group, nccl_first_allreduce, cublas"""

STARTUP_SOURCE = "measured on 2× H200 (measurements/h200x2-startup-memory-and-graph-allreduce.json)"

_STEP = {"cuda_context": "cuda_context", "nccl_init": "nccl_process_group", "nccl_warmup": "nccl_first_allreduce",
         "cublas": "cublas"}
"""cost key → measured step"""


def measured_cost(key: str, gpu: GpuSpec | None, *, item: str) -> Cost:
    """The measured ``key`` cost (``cuda_context``, ``nccl_init``, ``nccl_warmup``, ``cublas``) for ``gpu``.

    Today one H200 measurement serves every GPU (no band yet: ``uncertainty`` 0).
    """
    return Cost(key=key, item=item, bytes=STARTUP_COSTS[_STEP[key]], source=STARTUP_SOURCE)
