"""``one_shot_pull``: tpkit's barrier-synchronised one-shot (Triton) over a double-buffered symmetric buffer."""

from __future__ import annotations

from tpkit.comm.backends.triton_base import TritonSymmBackend, start_triton
from tpkit.units import Bytes

__all__ = ["start"]


def start(name: str, group, *, max_bytes: Bytes, device, **options) -> TritonSymmBackend:
    """Copy-in, one barrier, read every rank's slot (collective)."""
    return start_triton(name, group, max_bytes=max_bytes, device=device, kernel_name="one_shot_kernel",
                        regions=1, **options)
