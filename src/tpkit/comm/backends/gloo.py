"""gloo all-reduce on CPU tensors (tests and CI run the whole path with it)."""

from __future__ import annotations

from tpkit.comm.backends.nccl import ProcessGroupBackend, start_process_group

__all__ = ["start"]


def start(name: str, group, *, max_bytes, device, **_options) -> ProcessGroupBackend:
    """gloo backend if the group runs gloo and tensors live on the CPU."""
    return start_process_group(name, group, device, expected="gloo", device_type="cpu")
