"""Is a TP group a full NVLink mesh, with peer access?  Decided here, once, for the whole planner.

The probed matrices of a machine profile win; without them the GPU catalog says whether the GPU has NVLink,
and an NVLink GPU is assumed to sit in a full NVLink mesh (an HGX board).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tpkit.hardware.gpu import GpuSpec

if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["GroupLinks", "group_links"]


@dataclass(frozen=True, kw_only=True, slots=True)
class GroupLinks:
    """The links of one TP group."""

    full_nvlink: bool | None
    """every pair of members has NVLink (measured); None when no profile matrix says"""
    p2p: bool | None
    """every ordered pair of members has CUDA peer access (measured); None when no profile matrix says"""
    compute_capability: tuple[int, int] | None
    """the lowest of the members (profile), else the GPU's (catalog)"""
    catalog_nvlink: bool
    """the catalog lists NVLink for this GPU"""

    @property
    def nvlink_mesh(self) -> bool:
        """Full NVLink mesh: measured when probed, else assumed from the catalog."""
        return self.full_nvlink if self.full_nvlink is not None else self.catalog_nvlink


def group_links(gpu: GpuSpec, machine: MachineProfile | None, members: Sequence[int]) -> GroupLinks:
    """Links of the TP group made of profile positions ``members`` (CUDA order), for ``gpu``."""
    catalog = gpu.nvlink_gbps_per_direction is not None
    if machine is None:
        return GroupLinks(full_nvlink=None, p2p=None, compute_capability=gpu.compute_capability,
                          catalog_nvlink=catalog)
    from tpkit.hardware.topology import all_peer_access, is_full_nvlink

    members = list(members)
    full = is_full_nvlink(machine.nvlink_links, members) if machine.nvlink_links else None
    p2p = all_peer_access(machine.p2p_access, members) if machine.p2p_access else None
    known = [machine.gpus[i].compute_capability for i in members
             if i < len(machine.gpus) and machine.gpus[i].compute_capability is not None]
    return GroupLinks(full_nvlink=full, p2p=p2p, compute_capability=min(known) if known else gpu.compute_capability,
                      catalog_nvlink=catalog)
