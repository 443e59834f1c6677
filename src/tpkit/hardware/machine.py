"""``MachineProfile``: what ``tpkit probe`` measured on a real machine (pure value type, JSON I/O).

``tpkit probe --out machine.json`` writes it; ``tpkit plan --machine machine.json`` plans from
the real free memory of every GPU instead of catalog totals (the minimum decides).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tpkit.units import Bytes

__all__ = ["GpuState", "MachineProfile", "PROFILE_VERSION"]

PROFILE_VERSION = 1


@dataclass(frozen=True, kw_only=True, slots=True)
class GpuState:
    """One GPU as probed."""

    index: int
    """CUDA device index (after CUDA_VISIBLE_DEVICES)"""
    name: str
    """device name as the driver reports it, e.g. ``"NVIDIA H200"``"""
    total_bytes: Bytes
    """cudaMemGetInfo total"""
    free_bytes: Bytes
    """cudaMemGetInfo free at probe time"""
    used_by_this_process_bytes: Bytes = Bytes(0)
    """held by the probing process (bytes)"""
    used_by_others_bytes: Bytes = Bytes(0)
    """total − free − ours: other processes and the driver (bytes)"""
    compute_capability: tuple[int, int] | None = None
    """(major, minor)"""
    processes: tuple[dict, ...] = ()
    """other processes holding memory: {pid, name, used_bytes}"""


@dataclass(frozen=True, kw_only=True, slots=True)
class MachineProfile:
    """All GPUs of one machine plus their links (filled by the runtime probe)."""

    gpus: tuple[GpuState, ...]
    """every probed GPU, in CUDA order"""
    nvlink_links: tuple[tuple[int, ...], ...] = ()
    """[i][j] NVLink link count between GPU i and j (0 = none)"""
    p2p_access: tuple[tuple[bool, ...], ...] = ()
    """[i][j] CUDA peer access possible"""
    pcie_path: tuple[tuple[str, ...], ...] = ()
    """[i][j] nvidia-smi topo style path: X, NV#, PIX, PXB, PHB, NODE, SYS"""
    hostname: str = ""
    """host the probe ran on"""
    driver_version: str = ""
    """NVIDIA driver version (from NVML)"""
    extra: dict = field(default_factory=dict)
    """free-form notes (torch/CUDA versions, probe notes)"""

    def first(self, n: int) -> "MachineProfile":
        """The profile of its first ``n`` GPUs (CUDA order), their link matrices cut to match."""
        def cut(matrix):
            return tuple(tuple(row[:n]) for row in matrix[:n])

        return replace(self, gpus=self.gpus[:n], nvlink_links=cut(self.nvlink_links),
                       p2p_access=cut(self.p2p_access), pcie_path=cut(self.pcie_path))

    @property
    def min_free(self) -> GpuState:
        """The GPU with the least free memory (it decides the plan)."""
        return min(self.gpus, key=lambda g: g.free_bytes)
