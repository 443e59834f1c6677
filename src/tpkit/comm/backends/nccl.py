"""NCCL (or any torch.distributed group backend) all-reduce: the universal fallback."""

from __future__ import annotations

import torch
import torch.distributed as dist

from tpkit.comm.backends import BackendUnavailable

__all__ = ["ProcessGroupBackend", "start", "start_process_group"]


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


def start_process_group(name: str, group, device, *, expected: str, device_type: str) -> ProcessGroupBackend:
    """A ``ProcessGroupBackend`` if ``group`` runs ``expected`` (nccl, gloo) and ``device`` is ``device_type``."""
    backend = dist.get_backend(group)
    if expected not in str(backend).lower():
        raise BackendUnavailable(f"the process group backend is {backend!r}, not {expected}")
    if torch.device(device).type != device_type:
        raise BackendUnavailable(f"{expected} here serves {device_type.upper()} tensors only")
    return ProcessGroupBackend(name, group, expected)


def start(name: str, group, *, max_bytes, device, **_options) -> ProcessGroupBackend:
    """NCCL backend if the group runs NCCL and the device is CUDA."""
    return start_process_group(name, group, device, expected="nccl", device_type="cuda")
