"""Resident threads per streaming multiprocessor, by compute capability (pure; a fact of the architecture).

The CUDA C++ Programming Guide, table "Technical Specifications per Compute Capability", row "Maximum number of
resident threads per SM" (= maximum resident warps per SM × 32): 2048 on 7.0, 8.0, 9.0 and 10.x; 1024 on 7.5;
1536 on 8.6, 8.9 and 12.x (PyTorch cites the same table for 8.6's 1536, pytorch/pytorch#45889).  Used by the
start-up table's CUDA-context model (``tpkit.startup.terms.cuda_context``): the driver sizes the context's local
memory (per-thread stack) as resident threads per SM × SMs × the per-thread size (NVIDIA developer forum,
"Local memory management", forums.developer.nvidia.com/t/local-memory-management/289339, answer 9; ``cuCtxSetLimit``
``CU_LIMIT_STACK_SIZE`` in the driver API reference).  A capability not listed gives ``None`` (no guess).
"""

from __future__ import annotations

__all__ = ["MAX_THREADS_PER_SM", "max_threads_per_sm", "resident_threads"]

MAX_THREADS_PER_SM: dict[tuple[int, int], int] = {
    (7, 0): 2048, (7, 5): 1024, (8, 0): 2048, (8, 6): 1536, (8, 9): 1536, (9, 0): 2048,
    (10, 0): 2048, (10, 3): 2048, (12, 0): 1536, (12, 1): 1536,
}
"""compute capability → maximum resident threads per SM (CUDA C++ Programming Guide, technical specifications)"""


def max_threads_per_sm(compute_capability: tuple[int, int] | None) -> int | None:
    """Maximum resident threads per SM of ``compute_capability`` (``None`` when not listed)."""
    if compute_capability is None:
        return None
    return MAX_THREADS_PER_SM.get(tuple(compute_capability))


def resident_threads(sm_count: int | None, compute_capability: tuple[int, int] | None) -> int | None:
    """SMs × maximum resident threads per SM: the threads the context's local memory is sized for (``None`` when
    either is unknown)."""
    per_sm = max_threads_per_sm(compute_capability)
    if not sm_count or per_sm is None:
        return None
    return sm_count * per_sm
