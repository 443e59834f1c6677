"""``two_shot``: tpkit's reduce-scatter + all-gather in one Triton kernel over symmetric memory."""

from __future__ import annotations

from tpkit.comm.backends.triton_base import TritonSymmBackend, start_triton
from tpkit.units import Bytes

__all__ = ["start"]


def start(name: str, group, *, max_bytes: Bytes, device, **options) -> TritonSymmBackend:
    """Two-shot backend (collective)."""
    return start_triton(name, group, max_bytes=max_bytes, device=device, kernel_name="two_shot_kernel",
                        regions=2, **options)
