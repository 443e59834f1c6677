"""Topology: the one model (``hardware.topology.Topology``), its group answers, and NVML reading against a
stand-in NVML module."""

from types import SimpleNamespace

import pytest

from tpkit.errors import RuntimeSetupError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.hardware.topology import GroupTopology, Topology, all_peer_access, is_full_nvlink, path_matrix
from tpkit.runtime.topology import read_topology
from tpkit.units import GiB


def _topo(links, p2p=None, ccs=None):
    n = len(links)
    return Topology(nvlink_links=links, p2p_access=p2p or ((False,) * n,) * n,
                    compute_capability=ccs or ((9, 0),) * n, source="test")


def test_full_mesh_and_pairs():
    topo = _topo(((0, 18, 18), (18, 0, 0), (18, 0, 0)))
    assert not topo.group().full_nvlink
    assert topo.group([0, 1]).full_nvlink and topo.group([0, 1]).p2p  # NVLink implies peer access
    assert _topo(((0,),)).group().full_nvlink
    assert topo.group([0, 2]).min_nvlink_links == 18
    assert topo.group().min_nvlink_links == 0
    assert is_full_nvlink(((0, 18, 18), (18, 0, 0), (18, 0, 0)), gpus=[0, 1])  # transitional wrapper, same rule


def test_group_lowest_compute_capability_and_unknowns():
    topo = _topo(((0, 1, 1), (1, 0, 1), (1, 1, 0)), ccs=((9, 0), (8, 0), None))
    assert topo.group([0, 1]).compute_capability == (8, 0)
    assert topo.group().compute_capability is None  # one unknown GPU: the safe answer
    assert topo.group([0]).compute_capability == (9, 0)


def test_machine_profile_matrices_and_fallbacks():
    gpus = tuple(GpuState(index=i, name="NVIDIA H200", total_bytes=GiB(140), free_bytes=GiB(139),
                          compute_capability=None if i == 2 else (9, 0)) for i in range(3))
    bare = MachineProfile(gpus=gpus)
    safe = Topology.from_machine_profile(bare, where="m.json")
    assert not safe.group([0, 1]).full_nvlink and not safe.group([0, 1]).p2p
    assert "m.json" in safe.source and "no NVLink matrix" in safe.source
    h200 = lookup_gpu("H200")
    assumed = Topology.from_machine_profile(bare, fallback_gpu=h200).group()
    assert assumed.full_nvlink and assumed.p2p and assumed.compute_capability == h200.compute_capability
    assert assumed.assumed == {"nvlink", "p2p", "compute_capability"}
    measured = MachineProfile(gpus=gpus, nvlink_links=((0, 18, 0), (18, 0, 0), (0, 0, 0)),
                              p2p_access=((True,) * 3,) * 3)
    group = Topology.from_machine_profile(measured, fallback_gpu=h200).group([0, 1])
    assert group.full_nvlink and group.min_nvlink_links == 18 and "nvlink" not in group.assumed


def test_cpu_ranks_have_no_links():
    group = Topology.cpu(2).group()
    assert not group.full_nvlink and not group.p2p and group.compute_capability is None
    assert group.describe() == "CPU ranks, no GPU links"
    assert GroupTopology(full_nvlink=True, p2p=True, compute_capability=(9, 0)).describe() == "1 node, full NVLink, P2P"


def test_a_group_across_hosts_is_never_one_mesh():
    topo = Topology(nvlink_links=((0, 0), (0, 0)), p2p_access=((True, False), (False, True)),
                    compute_capability=((9, 0), (9, 0)), nodes=(0, 1), source="test")
    assert topo.group().num_nodes == 2 and topo.group([1]).num_nodes == 1


def test_path_labels_like_nvidia_smi():
    labels = path_matrix(((0, 12), (12, 0)), ((None, 50), (50, None)))
    assert labels == (("X", "NV12"), ("NV12", "X"))
    assert path_matrix(((0, 0), (0, 0)), ((None, 40), (20, None)))[0][1] == "NODE"
    assert path_matrix(((0, 0), (0, 0)), ((None, 40), (20, None)))[1][0] == "PXB"


def test_non_square_matrix_is_rejected():
    with pytest.raises(RuntimeSetupError, match="2×2"):
        is_full_nvlink(((0, 1), (1, 0, 1)))
    with pytest.raises(RuntimeSetupError, match="outside"):
        all_peer_access(((True, True), (True, True)), gpus=[0, 5])
    with pytest.raises(RuntimeSetupError, match="2×2"):
        Topology(nvlink_links=((0, 1), (1, 0)), p2p_access=((True,),), compute_capability=(None, None), source="t")


class FakeNvml:
    """A stand-in for pynvml: GPUs by bus id, each link → (remote bus id, remote type)."""

    NVML_NVLINK_MAX_LINKS = 18

    def __init__(self, links: dict[str, list[tuple[str, int]]], ancestor: int = 40):
        self.links, self.ancestor = links, ancestor

    def nvmlDeviceGetPciInfo(self, h):
        return SimpleNamespace(busId=h.encode())

    def nvmlDeviceGetNvLinkState(self, h, link):
        if link >= len(self.links[h]):
            raise RuntimeError("NVML_ERROR_INVALID_ARGUMENT")
        return 1

    def nvmlDeviceGetNvLinkRemotePciInfo(self, h, link):  # pynvml's name (calls the _v2 symbol)
        return SimpleNamespace(busId=self.links[h][link][0])

    def nvmlDeviceGetNvLinkRemoteDeviceType(self, h, link):
        return self.links[h][link][1]

    def nvmlDeviceGetTopologyCommonAncestor(self, a, b):
        return self.ancestor


def test_direct_nvlink_pair_counts_links():
    a, b = "00000000:18:00.0", "00000000:2A:00.0"
    nvml = FakeNvml({a: [(b, 0)] * 18, b: [(a, 0)] * 18})
    topo = read_topology(nvml, [a, b], can_access=lambda i, j: True)
    assert topo.nvlink_links == ((0, 18), (18, 0))
    assert topo.path == (("X", "NV18"), ("NV18", "X"))
    assert is_full_nvlink(topo.nvlink_links) and all_peer_access(topo.p2p_access)


def test_nvswitch_links_count_per_pair_and_pcie_fallback():
    a, b, c = "00000000:18:00.0", "00000000:2A:00.0", "00000000:3B:00.0"
    sw = "00000000:99:00.0"
    nvml = FakeNvml({a: [(sw, 2)] * 18, b: [(sw, 2)] * 12, c: []}, ancestor=50)
    topo = read_topology(nvml, [a, b, c], can_access=lambda i, j: {i, j} != {0, 2})
    assert topo.nvlink_links[0][1] == 12 and topo.nvlink_links[1][0] == 12
    assert topo.path[0][2] == "SYS" and topo.path[2][1] == "SYS"
    assert not is_full_nvlink(topo.nvlink_links) and is_full_nvlink(topo.nvlink_links, gpus=[0, 1])
    assert topo.p2p_access[0][2] is False and topo.p2p_access[0][1] is True
    assert any("NVSwitch" in n for n in topo.notes)


def test_without_nvml_links_are_unknown_but_p2p_still_read():
    topo = read_topology(None, [None, None], can_access=lambda i, j: False)
    assert topo.nvlink_links == ((0, 0), (0, 0))
    assert topo.path[0][1] == "?"
    assert topo.p2p_access == ((True, False), (False, True))
    assert "NVML not available" in topo.notes[0]
