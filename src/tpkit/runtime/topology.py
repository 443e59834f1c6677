"""GPU-to-GPU topology from NVML and CUDA: NVLink link counts, PCIe path, peer access.

``read_topology`` takes the NVML module, the devices' NVML handles and a peer-access callable,
so it runs against a stand-in in the CPU tests.  The pure questions ("full NVLink mesh?") live
in ``tpkit.hardware.topology``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tpkit.hardware.topology import path_matrix
from tpkit.runtime import nvml as _nvml

__all__ = ["TopologyReading", "read_topology", "NVLINK_DEVICE_TYPE_SWITCH"]

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
    levels = tuple(tuple(None if i == j else _ancestor(nvml, handles[i], handles[j]) for j in range(n)) for i in range(n))
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
