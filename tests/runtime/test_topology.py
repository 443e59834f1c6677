"""Topology: pure matrix questions and NVML reading against a stand-in NVML module."""

from types import SimpleNamespace

import pytest

from tpkit.errors import RuntimeSetupError
from tpkit.hardware.topology import all_peer_access, is_full_nvlink, min_nvlink_links, path_matrix
from tpkit.runtime.topology import read_topology


def test_full_mesh_and_pairs():
    links = ((0, 18, 18), (18, 0, 0), (18, 0, 0))
    assert not is_full_nvlink(links)
    assert is_full_nvlink(links, gpus=[0, 1])
    assert is_full_nvlink(((0,),))
    assert min_nvlink_links(links, gpus=[0, 2]) == 18
    assert min_nvlink_links(links) == 0


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
