"""torch's built-in symmetric-memory all-reduce (``torch.ops.symm_mem``), multicast off.

One-shot: ``one_shot_all_reduce_copy_out`` (copy-in fused).  Two-shot: copy into the buffer, then
``two_shot_all_reduce_out`` (world sizes 2, 4, 8).  bf16/fp32 only; bf16 is summed in bf16.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

import tpkit.comm.registry as registry
from tpkit.comm.backends import BackendUnavailable
from tpkit.comm.backends._symm import SymmBuffer
from tpkit.units import Bytes

__all__ = ["SymmMemBackend", "start"]


class SymmMemBackend:
    """torch symm-mem one-shot or two-shot over one staging buffer."""

    def __init__(self, name: str, buf: SymmBuffer) -> None:
        self.name = name
        self.buf = buf
        self.capacity = buf.capacity
        self.gname = buf.group_name

    def run(self, x: torch.Tensor, out: torch.Tensor) -> None:
        """Sum ``x`` over the group into ``out`` (which may be ``x``).

        torch's kernels pick their vector width from the symmetric buffer, so an ``out`` that is not
        16-byte aligned goes through an aligned temporary, and an unaligned ``x`` is staged by a copy.
        """
        staged = self.buf.raw[: x.numel() * x.element_size()].view(x.dtype)
        target = out if out.data_ptr() % 16 == 0 else torch.empty_like(out)
        if self.name == "symm_mem_one_shot" and x.data_ptr() % 16 == 0:
            torch.ops.symm_mem.one_shot_all_reduce_copy_out(staged, x, "sum", self.gname, target)
        elif self.name == "symm_mem_one_shot":
            staged.copy_(x)
            torch.ops.symm_mem.one_shot_all_reduce_out(staged, "sum", self.gname, target)
        else:
            staged.copy_(x)
            torch.ops.symm_mem.two_shot_all_reduce_out(staged, "sum", self.gname, target)
        if target is not out:
            out.copy_(target)

    def ledger_lines(self) -> tuple:
        return self.buf.ledger_lines()


def start(name: str, group, *, max_bytes: Bytes, device, **_options) -> SymmMemBackend:
    """Allocate and rendezvous the staging buffer (collective)."""
    ws = dist.get_world_size(group)
    sizes = registry.row(name).world_sizes
    if sizes is not None and ws not in sizes:
        raise BackendUnavailable(f"{registry.row(name).world_sizes_why} for world sizes "
                                 f"{', '.join(map(str, sizes))} only (got {ws})")
    if not hasattr(torch.ops, "symm_mem") or not hasattr(torch.ops.symm_mem, "one_shot_all_reduce_copy_out"):
        raise BackendUnavailable("torch.ops.symm_mem.one_shot_all_reduce_copy_out is missing in this torch")
    return SymmMemBackend(name, SymmBuffer(name, group, max_bytes=max_bytes, device=device, world_size=ws))
