"""NCCL (or any torch.distributed group backend) all-reduce: the universal fallback."""

from __future__ import annotations

import torch
import torch.distributed as dist

from tpkit.comm.backends import BackendUnavailable

__all__ = ["ProcessGroupBackend", "start"]


class ProcessGroupBackend:
    """``dist.all_reduce`` on the group; out-of-place copies first, then reduces in place."""

    capacity = None

    def __init__(self, name: str, group, expected: str) -> None:
        self.name = name
        self.group = group
        self.expected = expected

    def run(self, x: torch.Tensor, out: torch.Tensor) -> None:
        """Sum ``x`` over the group into ``out`` (which may be ``x``)."""
        if out.data_ptr() != x.data_ptr():
            out.copy_(x)
        dist.all_reduce(out, group=self.group)

    def ledger_lines(self) -> tuple:
        """No buffers of its own (NCCL's communicator memory is the runtime ledger's line)."""
        return ()


def start(name: str, group, *, max_bytes: int, device, **_options) -> ProcessGroupBackend:
    """NCCL backend if the group runs NCCL and the device is CUDA."""
    backend = dist.get_backend(group)
    if "nccl" not in str(backend).lower():
        raise BackendUnavailable(f"the process group backend is {backend!r}, not nccl")
    if torch.device(device).type != "cuda":
        raise BackendUnavailable("nccl needs CUDA tensors")
    return ProcessGroupBackend(name, group, "nccl")
