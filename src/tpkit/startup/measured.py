"""Start-up memory costs of a serving process as measured (pure facts, bytes).

Measured step by step on one rank of 2× H200 SXM (torch 2.11 + CUDA 13, NCCL 2.28.9): free memory
from ``cudaMemGetInfo`` (after ``empty_cache``) before and after each step, total 150,109,880,320 B.
Source: a tpkit measurement on 2× H200 SXM, 2026-11-29 (row ``tpkit-h200x2-steps`` of ``data/evidence.json``).
These bytes are one row of the start-up evidence (``data/evidence.json``, row ``tpkit-h200x2-steps``): the
start-up table (``tpkit.startup.table``) takes them as the Hopper context, the Hopper cuBLAS term and the 2-rank
NVLink NCCL term, and the split of NCCL into init and first collective.  Other GPUs and world sizes get the table's
per-family cells.
"""

from __future__ import annotations

from tpkit.units import Bytes

__all__ = ["STARTUP_COSTS", "STARTUP_SOURCE"]

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

STARTUP_SOURCE = "measured by tpkit on 2× H200 SXM, 2026-11-29 (startup/data/evidence.json, row tpkit-h200x2-steps)"
