"""gloo all-reduce on CPU tensors (tests and CI run the whole path with it)."""

from __future__ import annotations

import torch
import torch.distributed as dist

from tpkit.comm.backends import BackendUnavailable
from tpkit.comm.backends.nccl import ProcessGroupBackend

__all__ = ["start"]


def start(name: str, group, *, max_bytes: int, device, **_options) -> ProcessGroupBackend:
    """gloo backend if the group runs gloo and tensors live on the CPU."""
    backend = dist.get_backend(group)
    if "gloo" not in str(backend).lower():
        raise BackendUnavailable(f"the process group backend is {backend!r}, not gloo")
    if torch.device(device).type != "cpu":
        raise BackendUnavailable("gloo here serves CPU tensors only")
    return ProcessGroupBackend(name, group, "gloo")
