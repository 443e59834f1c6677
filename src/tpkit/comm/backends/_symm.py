"""Symmetric-memory buffer set-up shared by the symm-mem and Triton backends (init time only)."""

from __future__ import annotations

import importlib
import os

import torch

from tpkit.comm.backends import BackendUnavailable
from tpkit.comm.ledger import allreduce_buffer_lines, buffer_bytes, round_capacity
from tpkit.comm.registry import MIN_COMPUTE_CAPABILITY
from tpkit.units import Bytes

__all__ = ["SymmBuffer", "check_symm_possible"]


def check_symm_possible(group, device) -> None:
    """Raise BackendUnavailable unless symmetric memory can work on this group/device."""
    if torch.device(device).type != "cuda":
        raise BackendUnavailable("symmetric memory needs CUDA tensors")
    if os.environ.get("TORCH_SYMM_MEM_DISABLE_MULTICAST") != "1":
        os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"  # tpkit never uses multimem ops
    try:
        importlib.import_module("torch.distributed._symmetric_memory")
    except ImportError as exc:
        raise BackendUnavailable(f"torch.distributed._symmetric_memory is unavailable: {exc}") from None
    cc = torch.cuda.get_device_capability(torch.device(device))
    if tuple(cc) < MIN_COMPUTE_CAPABILITY:
        raise BackendUnavailable(f"compute capability {cc[0]}.{cc[1]} < "
                                 f"{MIN_COMPUTE_CAPABILITY[0]}.{MIN_COMPUTE_CAPABILITY[1]}")


class SymmBuffer:
    """One symmetric allocation of ``slots × capacity`` bytes, rendezvoused on ``group``."""

    def __init__(self, name: str, group, *, max_bytes: Bytes, device, world_size: int) -> None:
        import torch.distributed._symmetric_memory as symm_mem

        check_symm_possible(group, device)
        self.name = name
        self.capacity = round_capacity(max_bytes)
        self.size = buffer_bytes(name, max_bytes, world_size)
        self.world_size = world_size
        self.max_bytes = max_bytes
        try:
            self.raw = symm_mem.empty(self.size.bytes, dtype=torch.uint8, device=device)
            self.handle = symm_mem.rendezvous(self.raw, group.group_name)
        except Exception as exc:  # noqa: BLE001 - any failure means "cannot start", with its reason
            raise BackendUnavailable(f"symmetric memory rendezvous failed: {type(exc).__name__}: {exc}") from None
        self.group_name = group.group_name
        self.rank = self.handle.rank
        self.handle.barrier(channel=0)

    def peer_views(self, dtype: torch.dtype) -> list[torch.Tensor]:
        """Every rank's buffer viewed as a flat ``dtype`` tensor (index = rank)."""
        numel = self.size.bytes // torch.tensor([], dtype=dtype).element_size()
        return [self.handle.get_buffer(r, (numel,), dtype) for r in range(self.world_size)]

    def ledger_lines(self, **kw) -> tuple:
        """The bytes this buffer takes on each GPU."""
        return allreduce_buffer_lines(self.world_size, self.max_bytes, [self.name], **kw)
