"""Memory the all-reduce backends allocate per GPU, as ledger lines (pure: the planner can use it).

Each backend's buffer layout is its ``comm.registry`` row (``buffer_slots``, ``call_counters``,
``buffer_note``).  torch's CUDA symmetric memory maps ``buffer + signal pad`` rounded up to the VMM
allocation granularity (2 MiB on H100/H200); measured on 2×H200: an 8 MiB buffer took 10 MiB of
free memory (`tests/comm/data/h200x2-startup-memory-and-graph-allreduce.json`).
"""

from __future__ import annotations

from collections.abc import Iterable

import tpkit.comm.registry as registry
from tpkit.memory.ledger import LineItem
from tpkit.units import Bytes, MiB, format_bytes

__all__ = ["allreduce_buffer_lines", "symm_allocation_bytes", "buffer_bytes", "round_capacity",
           "SIGNAL_PAD_BYTES", "VMM_GRANULARITY", "DEFAULT_MAX_BLOCKS"]

SIGNAL_PAD_BYTES = Bytes(9216)
"""torch 2.11 default signal pad: 32 blocks × 72 ranks × 4 B"""
VMM_GRANULARITY = MiB(2)
"""cuMemCreate granularity on H100/H200"""
DEFAULT_MAX_BLOCKS = 128
"""blocks of tpkit's Triton kernels (each keeps a 4-byte call counter)"""
_COUNTER_BYTES = 4


def round_capacity(max_bytes: Bytes) -> Bytes:
    """Capacity actually used: ``max_bytes`` rounded up to 256 bytes (keeps slots 16-element aligned)."""
    return Bytes(-(-max_bytes.bytes // 256) * 256)


def buffer_bytes(backend: str, max_bytes: Bytes, world_size: int) -> Bytes:
    """Bytes of the symmetric tensor ``backend`` asks for on each GPU (0 for nccl/gloo)."""
    return round_capacity(max_bytes) * registry.row(backend).buffer_slots(world_size)


def symm_allocation_bytes(buffer: Bytes) -> Bytes:
    """Device memory one ``symm_mem.empty(buffer)`` takes: buffer + signal pad, rounded up to 2 MiB."""
    raw = (buffer + SIGNAL_PAD_BYTES).bytes
    gran = VMM_GRANULARITY.bytes
    return Bytes(-(-raw // gran) * gran)


def allreduce_buffer_lines(world_size: int, max_bytes: Bytes, backends: Iterable[str], *,
                           max_blocks: int = DEFAULT_MAX_BLOCKS) -> tuple[LineItem, ...]:
    """One "use" line per backend that allocates memory on each GPU of a ``world_size`` group."""
    if world_size <= 1:
        return ()
    lines = []
    for name in backends:
        buf = buffer_bytes(name, max_bytes, world_size)
        if not buf:
            continue
        total = symm_allocation_bytes(buf)
        source = (f"{registry.row(name).buffer_note} = {format_bytes(buf)} + {SIGNAL_PAD_BYTES.bytes:,} B signal "
                  f"pad, rounded up to {format_bytes(VMM_GRANULARITY)} (torch CUDA symmetric memory, capacity "
                  f"{format_bytes(round_capacity(max_bytes))})")
        if registry.row(name).call_counters:
            total = total + Bytes(_COUNTER_BYTES * max_blocks)
            source += f"; + {max_blocks} × {_COUNTER_BYTES} B call counters"
        lines.append(LineItem(item=f"all-reduce {name} buffers", bytes=total, source=source, kind="use"))
    return tuple(lines)
