"""The topology the planner assumes for a plan: the probed links of a machine profile, else the GPU catalog's
assumption (an NVLink GPU sits in a full NVLink mesh, an HGX board).

The questions themselves (full NVLink mesh? peer access? lowest compute capability?) are answered by
:meth:`tpkit.hardware.topology.Topology.group`, the one place they are decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tpkit.hardware.gpu import GpuSpec
from tpkit.hardware.topology import GroupTopology, Topology

if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["plan_topology", "group_links"]


def plan_topology(gpu: GpuSpec, machine: MachineProfile | None, num_gpus: int) -> Topology:
    """The machine profile's measured links (a matrix it lacks assumed from ``gpu``'s catalog entry), else the
    catalog's assumption for ``num_gpus`` GPUs of type ``gpu``."""
    if machine is None:
        return Topology.from_catalog(gpu, num_gpus=num_gpus)
    return Topology.from_machine_profile(machine, fallback_gpu=gpu)


def group_links(gpu: GpuSpec, machine: MachineProfile | None, members: Sequence[int]) -> GroupTopology:
    """Links of the TP group made of profile positions ``members`` (CUDA order), for ``gpu``."""
    members = list(members)
    return plan_topology(gpu, machine, max(members, default=0) + 1).group(members)
