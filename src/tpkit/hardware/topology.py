"""GPU-to-GPU links as plain matrices, and the pure questions asked of them (no torch, no NVML).

The runtime probe (``tpkit.runtime.topology``) fills the matrices from NVML and CUDA; the
all-reduce dispatcher reads them from a ``MachineProfile``.  Labels follow ``nvidia-smi topo -m``:

    X     the GPU itself
    NV#   connected by # NVLink links
    PIX   at most one PCIe bridge between them
    PXB   several PCIe bridges, no host bridge
    PHB   through a PCIe host bridge (the CPU)
    NODE  across host bridges within one NUMA node
    SYS   across the inter-socket link (QPI/UPI/xGMI)
    INT   on one board (NVML "internal")
"""

from __future__ import annotations

from collections.abc import Sequence

from tpkit.errors import RuntimeSetupError

__all__ = [
    "PCIE_LEVEL_LABELS",
    "pcie_label",
    "path_label",
    "path_matrix",
    "check_square",
    "is_full_nvlink",
    "all_peer_access",
    "min_nvlink_links",
]

PCIE_LEVEL_LABELS: dict[int, str] = {0: "INT", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}
"""NVML ``nvmlGpuTopologyLevel_t`` value → nvidia-smi topo label"""


def pcie_label(level: int | None) -> str:
    """The nvidia-smi label of an NVML common-ancestor level (``"?"`` when unknown)."""
    if level is None:
        return "?"
    return PCIE_LEVEL_LABELS.get(int(level), "?")


def path_label(*, same: bool, nvlink_links: int, pcie_level: int | None) -> str:
    """One cell of ``nvidia-smi topo -m``: ``X``, ``NV<links>`` or the PCIe path label."""
    if same:
        return "X"
    if nvlink_links > 0:
        return f"NV{nvlink_links}"
    return pcie_label(pcie_level)


def path_matrix(
    nvlink_links: Sequence[Sequence[int]], pcie_levels: Sequence[Sequence[int | None]]
) -> tuple[tuple[str, ...], ...]:
    """The full label matrix from the NVLink-count and PCIe-level matrices."""
    n = len(nvlink_links)
    check_square(nvlink_links, n, "nvlink_links")
    check_square(pcie_levels, n, "pcie_levels")
    return tuple(
        tuple(path_label(same=i == j, nvlink_links=nvlink_links[i][j], pcie_level=pcie_levels[i][j]) for j in range(n))
        for i in range(n)
    )


def check_square(matrix: Sequence[Sequence[object]], n: int, what: str) -> None:
    """Raise ``RuntimeSetupError`` unless ``matrix`` is ``n × n``."""
    rows = len(matrix)
    widths = sorted({len(row) for row in matrix})
    if rows != n or any(w != n for w in widths):
        raise RuntimeSetupError(
            f"{what} must be a {n}×{n} matrix (one row and column per GPU), got {rows} rows of "
            f"widths {widths}; re-run `tpkit probe --out` to write a consistent profile"
        )


def _members(n: int, gpus: Sequence[int] | None) -> list[int]:
    members = list(range(n)) if gpus is None else list(gpus)
    for g in members:
        if not 0 <= g < n:
            raise RuntimeSetupError(f"GPU index {g} is outside the {n} probed GPUs (0..{n - 1})")
    return members


def is_full_nvlink(nvlink_links: Sequence[Sequence[int]], gpus: Sequence[int] | None = None) -> bool:
    """True when every pair of ``gpus`` (default: all) has at least one NVLink link.

    A group of one GPU is trivially a full mesh (it needs no all-reduce).
    """
    n = len(nvlink_links)
    check_square(nvlink_links, n, "nvlink_links")
    members = _members(n, gpus)
    return all(nvlink_links[i][j] > 0 for i in members for j in members if i != j)


def all_peer_access(p2p_access: Sequence[Sequence[bool]], gpus: Sequence[int] | None = None) -> bool:
    """True when every ordered pair of ``gpus`` (default: all) can access each other's memory."""
    n = len(p2p_access)
    check_square(p2p_access, n, "p2p_access")
    members = _members(n, gpus)
    return all(bool(p2p_access[i][j]) for i in members for j in members if i != j)


def min_nvlink_links(nvlink_links: Sequence[Sequence[int]], gpus: Sequence[int] | None = None) -> int:
    """The fewest NVLink links between any pair of ``gpus`` (0 when a pair has none or only one GPU)."""
    n = len(nvlink_links)
    check_square(nvlink_links, n, "nvlink_links")
    members = _members(n, gpus)
    pairs = [nvlink_links[i][j] for i in members for j in members if i != j]
    return min(pairs) if pairs else 0
