"""``allocate_kv_pool``: create exactly the buffers of a ``KVPoolPlan``, then check the bytes moved.

Size first, allocate last: the plan (from the same pure function ``tpkit plan`` shows) fixes every
shape; this module only turns it into tensors, refuses to start when the probe says it cannot fit,
and compares the measured drop in free memory with the planned bytes as a ledger check.
"""

from __future__ import annotations

import warnings
from dataclasses import field

from tpkit.dtypes import lookup_dtype
from tpkit.errors import RuntimeSetupError
from tpkit.memory.kvpool import KVBuffer, KVPoolPlan
from tpkit.memory.ledger import Ledger
from tpkit.records import dataclass
from tpkit.runtime.probe import MemoryProbe
from tpkit.units import Bytes, MiB, format_bytes

__all__ = ["KVPoolAllocation", "allocate_kv_pool", "allocator_rounding", "allocation_tolerance", "torch_dtype"]

ALLOCATOR_GRANULE = MiB(2)
"""the CUDA caching allocator rounds a large tensor's own segment up to a multiple of 2 MiB"""
LARGE_TENSOR = MiB(10)
"""tensors above this get their own segment; smaller ones share 2 MiB / 20 MiB segments"""
SMALL_SEGMENT = MiB(20)


@dataclass(frozen=True, kw_only=True, slots=True)
class KVPoolAllocation:
    """The allocated pool and its ledger check (planned vs measured)."""

    plan: KVPoolPlan
    """the plan that was allocated"""
    tensors: dict = field(repr=False)
    """buffer name → tuple of tensors (``count`` each), exactly as planned"""
    free_before_bytes: Bytes
    """probe's free memory before allocating (bytes)"""
    free_after_bytes: Bytes
    """probe's free memory after (bytes)"""
    planned_bytes: Bytes
    """``plan.total_bytes``"""
    rounding_bytes: Bytes
    """CUDA caching-allocator rounding of the large tensors to 2 MiB segments (0 off CUDA)"""
    tolerance_bytes: Bytes
    """allowed |measured − (planned + rounding)|"""
    ledger: Ledger
    """capacity = free before; uses = planned KV pool + allocator rounding; must leave free after"""
    problems: tuple[str, ...] = ()
    """empty when the ledger check passed"""

    @property
    def measured_bytes(self) -> Bytes:
        """How much free memory dropped across the allocation."""
        return self.free_before_bytes - self.free_after_bytes

    @property
    def difference_bytes(self) -> Bytes:
        """measured − planned (the allocator's rounding plus anything unexplained)."""
        return self.measured_bytes - self.planned_bytes

    @property
    def unexplained_bytes(self) -> Bytes:
        """measured − planned − allocator rounding."""
        return self.difference_bytes - self.rounding_bytes

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """One line: planned, measured, difference, verdict."""
        return (
            f"KV pool: planned {format_bytes(self.planned_bytes)} ({self.planned_bytes.bytes:,} B), measured "
            f"{format_bytes(self.measured_bytes)} ({self.measured_bytes.bytes:,} B), difference "
            f"{self.difference_bytes.bytes:+,} B = allocator rounding {self.rounding_bytes.bytes:,} B + unexplained "
            f"{self.unexplained_bytes.bytes:+,} B (tolerance ±{self.tolerance_bytes.bytes:,} B): "
            + ("ok" if self.ok else "MISMATCH")
        )


def torch_dtype(plan: KVPoolPlan, buffer: KVBuffer):
    """The torch dtype for a buffer: ``plan.dtype`` when its size matches ``element_bytes``, else raw bytes."""
    import torch

    known = lookup_dtype(plan.dtype)
    dtype = getattr(torch, known.torch_name if known else plan.dtype, None)
    if not isinstance(dtype, torch.dtype):
        raise RuntimeSetupError(
            f"KV pool plan dtype {plan.dtype!r} is not a torch dtype; use a torch spelling such as "
            "'bfloat16', 'float16', 'float8_e4m3fn' (or bf16, fp16, fp8_e4m3, fp8_e5m2)"
        )
    return dtype if dtype.itemsize == buffer.element_bytes else torch.uint8


def _shape(plan: KVPoolPlan, buffer: KVBuffer, dtype) -> tuple[int, ...]:
    if dtype.itemsize == buffer.element_bytes:
        return tuple(buffer.shape)
    # a buffer whose element differs from the pool dtype (e.g. scales, indexer) is held as bytes
    return (*buffer.shape[:-1], buffer.shape[-1] * buffer.element_bytes) if buffer.shape else (buffer.element_bytes,)


def allocator_rounding(plan: KVPoolPlan) -> Bytes:
    """Bytes the CUDA caching allocator adds: each tensor > 10 MiB is a segment rounded up to 2 MiB."""
    g = ALLOCATOR_GRANULE.bytes
    return sum(
        (Bytes((-b.bytes_each.bytes) % g) * b.count for b in plan.buffers if b.bytes_each > LARGE_TENSOR), Bytes(0)
    )


def allocation_tolerance(plan: KVPoolPlan) -> Bytes:
    """2 MiB, plus one 20 MiB shared segment per small tensor (whose placement is not predictable)."""
    small = sum(b.count for b in plan.buffers if not b.bytes_each > LARGE_TENSOR)
    return ALLOCATOR_GRANULE + SMALL_SEGMENT * small


def allocate_kv_pool(
    plan: KVPoolPlan, device, probe: MemoryProbe, *, tolerance: Bytes | None = None, strict: bool = False
) -> KVPoolAllocation:
    """Allocate ``plan.buffers`` on ``device`` (uninitialised), re-probe, and check the bytes moved.

    Raises ``RuntimeSetupError`` before allocating when the probe shows less free memory than
    planned; after allocating, a mismatch beyond ``tolerance`` warns (or raises when ``strict``).
    """
    import torch

    tol = allocation_tolerance(plan) if tolerance is None else tolerance
    before = probe.snapshot().free_bytes
    planned = plan.total_bytes
    if planned > before:
        raise RuntimeSetupError(
            f"the KV pool plan needs {format_bytes(planned)} ({planned.bytes:,} B) but only "
            f"{format_bytes(before)} is free on {device}; re-plan with the measured free memory "
            "(tpkit plan --machine) or lower the memory fraction"
        )
    names = [b.name for b in plan.buffers]
    if len(set(names)) != len(names):
        raise RuntimeSetupError(f"KV pool plan has duplicate buffer names {names}; "
                                "each buffer group needs its own name")
    tensors = {b.name: _allocate(plan, b, device) for b in plan.buffers}
    _assert_matches_plan(plan, tensors)
    after = probe.snapshot().free_bytes
    rounding = allocator_rounding(plan) if torch.device(device).type == "cuda" else Bytes(0)
    ledger = (
        Ledger(rank_label=f"{device}")
        .add("free before KV pool", before, "probe (cudaMemGetInfo)", kind="capacity")
        .add("KV pool", planned, f"plan: {len(plan.buffers)} buffer groups, {plan.padded_tokens:,} rows each")
        .add("allocator rounding", rounding, "CUDA caching allocator: tensors > 10 MiB rounded up to 2 MiB segments")
    )
    problems = tuple(ledger.check(after, tolerance=tol))
    result = KVPoolAllocation(
        plan=plan, tensors=tensors, free_before_bytes=before, free_after_bytes=after, planned_bytes=planned,
        rounding_bytes=rounding, tolerance_bytes=tol, ledger=ledger, problems=problems,
    )
    if problems and strict:
        raise RuntimeSetupError(result.summary() + "; " + "; ".join(problems))
    if problems:
        warnings.warn(result.summary(), RuntimeWarning, stacklevel=2)
    return result


def _allocate(plan: KVPoolPlan, buffer: KVBuffer, device) -> tuple:
    import torch

    dtype = torch_dtype(plan, buffer)
    shape = _shape(plan, buffer, dtype)
    return tuple(torch.empty(shape, dtype=dtype, device=device) for _ in range(buffer.count))


def _assert_matches_plan(plan: KVPoolPlan, tensors: dict) -> None:
    """Internal invariant: the tensors hold exactly the planned bytes."""
    got = sum(t.numel() * t.element_size() for group in tensors.values() for t in group)
    assert got == plan.total_bytes.bytes, f"allocated {got} B, plan says {plan.total_bytes.bytes} B"
    assert all(len(tensors[b.name]) == b.count for b in plan.buffers)
