"""``MachineProfile``: what ``tpkit probe`` measured on a real machine (pure value type, JSON I/O).

``tpkit probe --out machine.json`` writes it; ``tpkit plan --machine machine.json`` plans from
the real free memory of every GPU instead of catalog totals (the minimum decides).
"""

from __future__ import annotations

from dataclasses import field, replace

from tpkit.errors import PlanInputError
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes

__all__ = ["GpuState", "MachineProfile", "PROFILE_VERSION", "TOTAL_TOLERANCE", "check_same_gpu"]

PROFILE_VERSION = 1
TOTAL_TOLERANCE = 0.03
"""how far a probed total may be from the GPU spec's total and still be that GPU (driver/ECC reserves differ a
little between boards and releases; a MIG slice or another model differs by far more)"""


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


def check_same_gpu(gpus: tuple[GpuState, ...], total: Bytes, name: str) -> None:
    """Refuse a plan whose GPU spec (``--gpu``/``--gpu-memory``/the catalog entry of the probed name) and the
    probed GPUs disagree on the memory: the plan would mix one GPU's total with another's free memory (a KV pool
    larger than the GPU).  ``PlanInputError`` names the GPU and both totals."""
    for g in gpus:
        if g.free_bytes > total or abs(g.total_bytes.bytes - total.bytes) > TOTAL_TOLERANCE * total.bytes:
            raise PlanInputError(
                f"the machine profile's GPU {g.index} ({g.name!r}) reports {format_bytes(g.total_bytes)} total and "
                f"{format_bytes(g.free_bytes)} free, but the GPU planned for ({name}) has {format_bytes(total)}: "
                "they are not the same GPU; drop --gpu/--gpu-memory to plan for the probed GPUs, or re-probe "
                "(`tpkit probe --out`) if the file is damaged")
