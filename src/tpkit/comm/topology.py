"""Pure topology facts the all-reduce dispatcher needs (no torch, no NVML).

The runtime probe (NVML / torch) fills a :class:`CommTopology`; tests build one by hand.
``from_machine_profile`` reads the link matrices of a :class:`tpkit.hardware.machine.MachineProfile`.
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.errors import PlanInputError

__all__ = ["CommTopology", "from_machine_profile", "NVLINK_SINGLE_NODE"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CommTopology:
    """How the GPUs of one group are connected."""

    full_nvlink: bool
    """every pair of GPUs in the group has an NVLink path (NVML P2P NVLink status OK)"""
    p2p: bool
    """every pair can map the other's memory (CUDA peer access)"""
    num_nodes: int = 1
    """hosts the group spans (count); custom kernels need 1"""

    def __post_init__(self) -> None:
        if isinstance(self.num_nodes, bool) or not isinstance(self.num_nodes, int) or self.num_nodes < 1:
            raise PlanInputError(f"num_nodes must be a whole number ≥ 1, got {self.num_nodes!r}")

    def describe(self) -> str:
        """One line, e.g. ``"1 node, full NVLink, P2P"``."""
        link = "full NVLink" if self.full_nvlink else "no full NVLink mesh (PCIe)"
        p2p = "P2P" if self.p2p else "no P2P"
        nodes = f"{self.num_nodes} node" + ("s" if self.num_nodes != 1 else "")
        return f"{nodes}, {link}, {p2p}"


NVLINK_SINGLE_NODE = CommTopology(full_nvlink=True, p2p=True, num_nodes=1)
"""An HGX-style single node with NVLink between all GPUs (H100/H200 SXM)."""


def from_machine_profile(profile, ranks: tuple[int, ...] | None = None) -> CommTopology:
    """Topology facts for ``ranks`` (GPU indices; default all) of a probed ``MachineProfile``.

    Missing matrices count as "no link" (the safe answer: custom kernels stay off).
    """
    n = len(profile.gpus)
    idx = tuple(range(n)) if ranks is None else tuple(ranks)
    pairs = [(i, j) for i in idx for j in idx if i != j]

    def all_pairs(matrix, test) -> bool:
        try:
            return all(test(matrix[i][j]) for i, j in pairs)
        except (IndexError, TypeError):
            return False

    nvlink = all_pairs(profile.nvlink_links, lambda v: int(v) > 0)
    p2p = all_pairs(profile.p2p_access, bool)
    return CommTopology(full_nvlink=nvlink, p2p=p2p or nvlink, num_nodes=1)
