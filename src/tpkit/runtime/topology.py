"""GPU-to-GPU topology from NVML and CUDA: NVLink link counts, PCIe path, peer access.

The only place tpkit reads links from NVML.  ``probe_topology`` fills a ``hardware.topology.Topology``
for the GPUs this process sees; ``group_topology`` answers for the GPUs of a process group (collective);
``read_topology`` takes the NVML module, the devices' NVML handles and a peer-access callable, so it runs
against a stand-in in the CPU tests.  The questions ("full NVLink mesh?") are ``Topology.group``'s.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence

from tpkit.hardware.topology import GroupTopology, Topology, path_matrix
from tpkit.records import dataclass
from tpkit.runtime import nvml as _nvml

__all__ = ["TopologyReading", "read_topology", "read_visible", "probe_topology", "group_topology",
           "NVLINK_DEVICE_TYPE_SWITCH"]

NVLINK_DEVICE_TYPE_SWITCH = 2
"""``NVML_NVLINK_DEVICE_TYPE_SWITCH``"""
_NVLINK_DEVICE_TYPE_GPU = 0
_FEATURE_ENABLED = 1


@dataclass(frozen=True, kw_only=True, slots=True)
class TopologyReading:
    """Matrices indexed by CUDA device index."""

    nvlink_links: tuple[tuple[int, ...], ...]
    """[i][j] active NVLink links between GPU i and j (through NVSwitch: the smaller side's count)"""
    pcie_levels: tuple[tuple[int | None, ...], ...]
    """[i][j] NVML common-ancestor level (10 PIX … 50 SYS); None when unknown or i == j"""
    p2p_access: tuple[tuple[bool, ...], ...]
    """[i][j] ``torch.cuda.can_device_access_peer(i, j)`` (True on the diagonal)"""
    notes: tuple[str, ...] = ()

    @property
    def path(self) -> tuple[tuple[str, ...], ...]:
        """``nvidia-smi topo -m`` labels: X, NV#, PIX, PXB, PHB, NODE, SYS."""
        return path_matrix(self.nvlink_links, self.pcie_levels)


def read_topology(nvml, handles: Sequence, can_access: Callable[[int, int], bool]) -> TopologyReading:
    """Read links between the GPUs whose NVML ``handles`` are given in CUDA order.

    ``nvml`` may be None (NVML missing): link counts are then 0 and PCIe levels unknown, and the
    notes say so; peer access still comes from ``can_access``.
    """
    n = len(handles)
    p2p = tuple(tuple(i == j or bool(can_access(i, j)) for j in range(n)) for i in range(n))
    if nvml is None:
        zeros = tuple(tuple(0 for _ in range(n)) for _ in range(n))
        unknown = tuple(tuple(None for _ in range(n)) for _ in range(n))
        return TopologyReading(nvlink_links=zeros, pcie_levels=unknown, p2p_access=p2p,
                               notes=("NVML not available: NVLink counts and PCIe paths unknown",))
    notes: list[str] = []
    links = _nvlink_counts(nvml, handles, notes)
    levels = tuple(tuple(None if i == j else _ancestor(nvml, handles[i], handles[j]) for j in range(n))
                   for i in range(n))
    return TopologyReading(nvlink_links=links, pcie_levels=levels, p2p_access=p2p, notes=tuple(notes))


def _ancestor(nvml, a, b) -> int | None:
    try:
        return int(nvml.nvmlDeviceGetTopologyCommonAncestor(a, b))
    except Exception:  # noqa: BLE001
        return None


def _nvlink_counts(nvml, handles: Sequence, notes: list[str]) -> tuple[tuple[int, ...], ...]:
    n = len(handles)
    bus_index = {_nvml.handle_bus_id(nvml, h): i for i, h in enumerate(handles)}
    links = [[0] * n for _ in range(n)]
    to_switch = [0] * n
    max_links = int(getattr(nvml, "NVML_NVLINK_MAX_LINKS", 18))
    for i, h in enumerate(handles):
        for link in range(max_links):
            kind, j = _remote(nvml, h, link, bus_index)
            if kind == "switch":
                to_switch[i] += 1
            elif kind == "gpu" and j is not None and j != i:
                links[i][j] += 1
    for i in range(n):
        for j in range(n):
            if i != j and to_switch[i] and to_switch[j]:
                links[i][j] += min(to_switch[i], to_switch[j])
    if any(to_switch):
        notes.append(f"NVSwitch links per GPU: {to_switch} (pair count = the smaller side)")
    _p2p_status_fallback(nvml, handles, links, notes)
    return tuple(tuple(row) for row in links)


def _remote(nvml, handle, link: int, bus_index: dict[str, int]) -> tuple[str, int | None]:
    """("gpu", index) / ("switch", None) / ("none", None) for one link of one GPU."""
    try:
        if int(nvml.nvmlDeviceGetNvLinkState(handle, link)) != _FEATURE_ENABLED:
            return "none", None
        remote_pci = getattr(nvml, "nvmlDeviceGetNvLinkRemotePciInfo", None) or nvml.nvmlDeviceGetNvLinkRemotePciInfo_v2
        remote = _nvml.normalise_bus_id(remote_pci(handle, link).busId)
    except Exception:  # noqa: BLE001 - link absent / not supported
        return "none", None
    try:
        dtype = int(nvml.nvmlDeviceGetNvLinkRemoteDeviceType(handle, link))
    except Exception:  # noqa: BLE001 - old drivers: infer from the bus id
        dtype = _NVLINK_DEVICE_TYPE_GPU if remote in bus_index else NVLINK_DEVICE_TYPE_SWITCH
    if dtype == NVLINK_DEVICE_TYPE_SWITCH:
        return "switch", None
    return ("gpu", bus_index[remote]) if remote in bus_index else ("none", None)


def _p2p_status_fallback(nvml, handles: Sequence, links: list[list[int]], notes: list[str]) -> None:
    """Where link enumeration found nothing but NVML says the pair talks over NVLink, record 1 link."""
    index = getattr(nvml, "NVML_P2P_CAPS_INDEX_NVLINK", None)
    ok = getattr(nvml, "NVML_P2P_STATUS_OK", 0)
    if index is None:
        return
    for i, a in enumerate(handles):
        for j, b in enumerate(handles):
            if i == j or links[i][j]:
                continue
            try:
                if int(nvml.nvmlDeviceGetP2PStatus(a, b, index)) == ok:
                    links[i][j] = 1
                    notes.append(f"GPU {i}→{j}: NVLink reported by P2P status, link count unknown (recorded as 1)")
            except Exception:  # noqa: BLE001
                continue


def read_visible(nvml, torch) -> tuple[TopologyReading, set[str]]:
    """The links between every GPU this process sees (``nvml`` None: torch only), and notes on what failed."""
    n = torch.cuda.device_count()
    can_access = lambda i, j: torch.cuda.can_device_access_peer(i, j)  # noqa: E731
    if nvml is None:
        return read_topology(None, [None] * n, can_access), set()
    try:
        handles = [
            _nvml.handle_for_cuda_device(nvml, i, _nvml.pci_bus_id(torch.cuda.get_device_properties(i)))
            for i in range(n)
        ]
    except Exception as exc:  # noqa: BLE001 - degrade to torch-only
        return read_topology(None, [None] * n, can_access), {f"NVML handles unavailable ({exc})"}
    return read_topology(nvml, handles, can_access), set()


def probe_topology(*, use_nvml: bool = True) -> Topology:
    """The ``Topology`` of every GPU this process sees, probed now (NVML link counts, torch peer access)."""
    import torch

    nvml, reason = _nvml.load_nvml() if use_nvml else (None, "NVML not used")
    reading, notes = read_visible(nvml, torch)
    ccs = tuple(tuple(torch.cuda.get_device_capability(i)) for i in range(torch.cuda.device_count()))
    said = sorted(set(reading.notes) | notes | ({reason} - {""}))
    return Topology(nvlink_links=reading.nvlink_links, p2p_access=reading.p2p_access, pcie_path=reading.path,
                    compute_capability=ccs, source="; ".join(["probed", *said]))


def group_topology(group, device) -> GroupTopology:
    """The links between the GPUs of ``group`` (collective: every rank calls it with its own device).

    Every rank tells the others its host and CUDA device index; on one host, the GPUs are looked up in this
    process's probe.  When the ranks cannot be matched to GPUs this process sees (each rank restricted by its
    own ``CUDA_VISIBLE_DEVICES``) the answer is the safe one: no NVLink, no P2P, and the source says why.
    """
    import torch
    import torch.distributed as dist

    world = dist.get_world_size(group)
    if device.type != "cuda":
        return Topology.cpu(world).group()
    me = (socket.gethostname(), device.index, tuple(torch.cuda.get_device_capability(device)))
    ranks: list = [None] * world
    dist.all_gather_object(ranks, me, group=group)
    hosts = {h: k for k, h in enumerate(dict.fromkeys(h for h, _, _ in ranks))}
    indices = [i for _, i, _ in ranks]
    if len(hosts) == 1 and len(set(indices)) == world and max(indices) < torch.cuda.device_count():
        return probe_topology().group(indices)
    why = (f"the group spans {len(hosts)} hosts" if len(hosts) > 1 else
           f"ranks use CUDA devices {indices}, which this process cannot tell apart")
    return Topology(nvlink_links=tuple((0,) * world for _ in range(world)),
                    p2p_access=tuple((False,) * world for _ in range(world)),
                    compute_capability=tuple(tuple(cc) for _, _, cc in ranks),
                    nodes=tuple(hosts[h] for h, _, _ in ranks),
                    source=f"probed: {why}; no peer links assumed").group()
