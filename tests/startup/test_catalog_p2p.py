"""CUDA peer access over PCIe as a sourced catalog fact (``GpuSpec.pcie_p2p``, ``scripts/gpu_p2p.py``) and what a
plan does with it: a TP group of GPUs without it (GeForce boards, the cloud-rented A10 / A10G / L4 / T4) gets the
start-up terms of ``--no-p2p`` (no custom all-reduce in either engine; vLLM ≥ 0.11: the one-rank non-torch growth
row), and ``--p2p`` / ``--no-p2p`` / ``--link`` / a machine profile override it (helper p2p, 2026-12-04)."""

import pytest

from tpkit.engines.sglang.baseline import custom_allreduce_cost as sglang_car
from tpkit.engines.vllm.baseline import custom_allreduce_cost as vllm_car, profile_nontorch_growth
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import list_gpus, lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.hardware.topology import Topology
from tpkit.parallel import ParallelSpec
from tpkit.startup.links import catalog_p2p_note, group_links, link_choice
from tpkit.startup.terms import vllm_nontorch_growth
from tpkit.units import GiB

NO_P2P = ("RTX-3090", "RTX-4090", "RTX-5090", "RTX-4080", "RTX-5080", "A10G", "A10", "L4", "T4")
P2P = ("RTX-PRO-6000", "RTX-6000-Ada", "RTX-A6000", "L40S", "L40", "A40", "A100-PCIe-80GB", "H100-PCIe-80GB",
       "V100-32GB")


@pytest.mark.parametrize("name", NO_P2P)
def test_catalog_records_no_peer_access_with_a_source_and_a_caveat(name):
    gpu = lookup_gpu(name)
    assert gpu.pcie_p2p is False and gpu.nvlink_gbps_per_direction is None
    source = gpu.source_of("pcie_p2p")
    assert "https://" in source and "Caveat" in source and source.endswith("Default: no P2P")


@pytest.mark.parametrize("name", P2P)
def test_catalog_records_peer_access_on_professional_and_datacenter_pcie_boards(name):
    gpu = lookup_gpu(name)
    assert gpu.pcie_p2p is True and gpu.source_of("pcie_p2p").endswith("Default: P2P")


def test_nvlink_and_unrecorded_gpus_have_no_fact():
    assert lookup_gpu("H100").pcie_p2p is None and lookup_gpu("MI300X").pcie_p2p is None
    assert lookup_gpu("H100").source_of("pcie_p2p") == "not recorded"
    # every GeForce board of the catalog records none; every recorded fact has its source
    for gpu in list_gpus():
        if any("geforce" in alias.lower() for alias in gpu.aliases):
            assert gpu.pcie_p2p is False, gpu.name
        assert (gpu.pcie_p2p is None) == (gpu.source_of("pcie_p2p") == "not recorded"), gpu.name


def test_catalog_topology_follows_the_fact():
    for name in NO_P2P:
        group = Topology.from_catalog(lookup_gpu(name), num_gpus=4).group()
        assert not group.p2p and not group.full_nvlink and "no CUDA peer access over PCIe" in group.source
        assert "p2p" in group.assumed
    for name in P2P + ("H100", "B200"):
        assert Topology.from_catalog(lookup_gpu(name), num_gpus=4).group().p2p


def _choice(**kw):
    return link_choice(num_gpus=kw.pop("num_gpus", 4), **kw)


def test_flags_and_profiles_override_the_fact():
    gpu = lookup_gpu("RTX-3090")
    assert not group_links(gpu, None, range(2)).p2p
    assert group_links(gpu, None, range(2), _choice(p2p=True, num_gpus=2)).p2p  # an NVLink bridge, a patched driver
    assert "--p2p, in place of: catalog" in group_links(gpu, None, range(2), _choice(p2p=True, num_gpus=2)).source
    assert not group_links(lookup_gpu("L40S"), None, range(2), _choice(no_p2p=True, num_gpus=2)).p2p
    # --link nvlink on an NVLink GPU keeps peer access; on a GeForce board it is refused with --p2p as the way out
    assert group_links(lookup_gpu("H100"), None, range(4), _choice(link="nvlink")).p2p
    with pytest.raises(PlanInputError, match="NVLink bridge, which gives them CUDA peer access, use --p2p"):
        group_links(gpu, None, range(2), _choice(link="nvlink", num_gpus=2))
    with pytest.raises(PlanInputError, match="--p2p and --no-p2p contradict each other"):
        _choice(p2p=True, no_p2p=True)
    assert _choice(p2p=True).flags() == "--p2p"
    # a probed peer-access matrix wins over the catalog; a profile without one falls back to the catalog's fact
    states = tuple(GpuState(index=i, name="NVIDIA GeForce RTX 3090", total_bytes=GiB(24), free_bytes=GiB(23))
                   for i in range(2))
    probed = MachineProfile(gpus=states, nvlink_links=((0, 0), (0, 0)), p2p_access=((True, True), (True, True)))
    assert group_links(gpu, probed, range(2)).p2p
    bare = MachineProfile(gpus=states)
    assert not group_links(gpu, bare, range(2)).p2p
    assert "no CUDA P2P assumed" in group_links(gpu, bare, range(2)).source


def test_vllm_growth_row_on_both_sides_of_the_fact():
    rules = resolve_rules("0.19.0")
    tp4 = ParallelSpec(tp=4)
    # peer access over PCIe takes the tp>2 row bounded by NCCL's PCIe footprint (helper ntg)
    one, many = vllm_nontorch_growth(1), vllm_nontorch_growth(4, transport="pcie")
    assert one.bytes < many.bytes
    (geforce,) = profile_nontorch_growth(lookup_gpu("RTX-3090"), tp4, rules)
    assert geforce.bytes == one.bytes and "without CUDA peer access" in geforce.source
    (pro,) = profile_nontorch_growth(lookup_gpu("RTX-PRO-6000"), tp4, rules)
    assert pro.bytes == many.bytes
    (bridged,) = profile_nontorch_growth(lookup_gpu("RTX-3090"), tp4, rules, links=_choice(p2p=True))
    assert bridged.bytes == many.bytes
    (told,) = profile_nontorch_growth(lookup_gpu("L40S"), tp4, rules, links=_choice(no_p2p=True))
    assert told.bytes == one.bytes
    # before 0.11 NCCL sits after the init snapshot and has its own line: no growth row either way
    (old,) = profile_nontorch_growth(lookup_gpu("RTX-3090"), tp4, resolve_rules("0.10.1.1"))
    assert old.bytes.bytes == 0


@pytest.mark.parametrize("version", ["0.4.2.post1", "0.5.9"])
def test_sglang_custom_allreduce_on_both_sides_of_the_fact(version):
    tp2 = ParallelSpec(tp=2)
    assert sglang_car(lookup_gpu("RTX-4090"), tp2, version).bytes.bytes == 0
    assert "lacks GPU P2P capability" in sglang_car(lookup_gpu("RTX-4090"), tp2, version).source
    assert sglang_car(lookup_gpu("L40S"), tp2, version).bytes.bytes > 0
    assert sglang_car(lookup_gpu("RTX-4090"), tp2, version, links=_choice(p2p=True, num_gpus=2)).bytes.bytes > 0


@pytest.mark.parametrize("version", ["0.8.5", "0.19.0"])
def test_vllm_custom_allreduce_on_both_sides_of_the_fact(version):
    rules = resolve_rules(version)
    tp2 = ParallelSpec(tp=2)
    off = vllm_car(tp2, rules, lookup_gpu("RTX-3090"))
    assert off.bytes.bytes == 0 and "lacks GPU P2P capability" in off.source
    assert vllm_car(tp2, rules, lookup_gpu("RTX-A6000")).bytes.bytes > 0
    assert vllm_car(tp2, rules, lookup_gpu("RTX-3090"), links=_choice(p2p=True, num_gpus=2)).bytes.bytes > 0


def test_note_only_where_the_catalog_decides():
    gpu = lookup_gpu("RTX-3090")
    (note,) = catalog_p2p_note(gpu, 4)
    assert note.startswith("RTX-3090 over PCIe: no CUDA peer access assumed (no P2P over PCIe on the stock driver")
    assert "--no-p2p" in note and "pass --p2p" in note
    assert catalog_p2p_note(gpu, 1) == ()
    assert catalog_p2p_note(gpu, 4, choice=_choice(p2p=True)) == ()
    assert catalog_p2p_note(gpu, 4, choice=_choice(no_p2p=True)) == ()
    assert len(catalog_p2p_note(gpu, 4, choice=_choice(link="pcie"))) == 1  # the catalog still decides peer access
    states = tuple(GpuState(index=i, name="NVIDIA GeForce RTX 3090", total_bytes=GiB(24), free_bytes=GiB(23))
                   for i in range(4))
    assert catalog_p2p_note(gpu, 4, MachineProfile(gpus=states)) == ()
    assert catalog_p2p_note(lookup_gpu("RTX-PRO-6000"), 4) == ()
    assert catalog_p2p_note(lookup_gpu("H100"), 8) == ()
