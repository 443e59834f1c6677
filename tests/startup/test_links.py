"""``tpkit.startup.links``: what the user or a log says about the links replaces the catalog's / probe's assumption,
in the one place every reader of the links goes through (NCCL row, the engines' custom all-reduce)."""

import pytest

from tpkit.engines.sglang.baseline import custom_allreduce_cost as sglang_car
from tpkit.engines.vllm.baseline import custom_allreduce_cost as vllm_car
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.parallel import ParallelSpec
from tpkit.startup.links import LinkChoice, group_links, link_choice
from tpkit.startup.terms import nccl_costs
from tpkit.startup.table import nccl_entry
from tpkit.units import GiB

A100 = lookup_gpu("A100-80GB")


def _choice(**kw):
    return link_choice(num_gpus=kw.pop("num_gpus", 2), **kw)


def test_catalog_default_and_each_flag():
    base = group_links(A100, None, range(2))
    assert base.full_nvlink and base.p2p and base.num_nodes == 1 and base.source.startswith("catalog")
    pcie = group_links(A100, None, range(2), _choice(link="pcie"))
    assert not pcie.full_nvlink and pcie.p2p  # perf's meaning: a PCIe pair keeps peer access
    assert pcie.source.startswith("--link pcie, in place of: catalog") and "nvlink" not in pcie.assumed
    nop2p = group_links(A100, None, range(2), _choice(no_p2p=True))
    assert not nop2p.full_nvlink and not nop2p.p2p  # NCCL's NVLink transport is peer access
    nodes = group_links(A100, None, range(2), _choice(nnodes=2))
    assert nodes.num_nodes == 2 and not nodes.full_nvlink and not nodes.p2p
    assert "network" in nodes.describe()
    # 16 GPUs on 2 nodes: a TP-8 group stays on one host, a TP-16 group spans both
    eight = link_choice(nnodes=2, num_gpus=16)
    assert group_links(A100, None, range(8), eight).num_nodes == 1
    assert group_links(A100, None, range(8), eight).full_nvlink
    assert group_links(A100, None, range(16), eight).num_nodes == 2
    # --link nvlink across nodes: one multi-node NVLink domain (MNNVL)
    mnnvl = group_links(lookup_gpu("B200"), None, range(8), link_choice(link="nvlink", nnodes=2, num_gpus=8))
    assert mnnvl.full_nvlink and mnnvl.num_nodes == 2


def test_flag_replaces_a_probed_matrix():
    gpus = tuple(GpuState(index=i, name="NVIDIA A100-SXM4-80GB", total_bytes=GiB(80), free_bytes=GiB(79))
                 for i in range(2))
    machine = MachineProfile(gpus=gpus, nvlink_links=((0, 12), (12, 0)), p2p_access=((True, True), (True, True)))
    assert group_links(A100, machine, range(2)).full_nvlink
    g = group_links(A100, machine, range(2), _choice(link="pcie"))
    assert not g.full_nvlink and "in place of: machine profile" in g.source


@pytest.mark.parametrize("kw, says", [
    (dict(link="nvlink", no_p2p=True), "--link nvlink with --no-p2p"),
    (dict(nnodes=3), "does not split the 2 GPUs"),
    (dict(nnodes=0), "--nnodes must be a whole number"),
    (dict(link="infiniband"), "--link must be one of nvlink, pcie"),
])
def test_bad_values_are_plan_input_errors(kw, says):
    with pytest.raises(PlanInputError, match=says):
        _choice(**kw)


def test_link_nvlink_needs_an_nvlink_gpu():
    with pytest.raises(PlanInputError, match="has no NVLink in the catalog; use --link pcie"):
        group_links(lookup_gpu("L40S"), None, range(2), _choice(link="nvlink"))


def test_no_choice_is_none():
    assert link_choice(num_gpus=4) is None and link_choice(nnodes=1, num_gpus=4) is None
    assert LinkChoice(source="flag").empty


def test_nccl_across_nodes_is_the_pcie_row_with_a_band_of_its_nominal():
    row = nccl_entry("pcie", 2)
    one = nccl_costs(A100, 2, transport="pcie")
    two = nccl_costs(A100, 2, transport="pcie", nodes=2, links="TP group 2 nodes")
    assert sum(c.bytes.bytes for c in two) == sum(c.bytes.bytes for c in one) == row.bytes.bytes
    assert sum(c.uncertainty.bytes for c in one) == row.uncertainty.bytes
    assert sum(c.uncertainty.bytes for c in two) == max(row.uncertainty.bytes, row.bytes.bytes)
    assert "ASSUMPTION" in two[0].source and "links: TP group 2 nodes" in two[0].source


def test_vllm_custom_allreduce_off_across_nodes_and_without_p2p_and_mnnvl_from_027():
    """vllm 0.10.1.1 / 0.26 custom_all_reduce.py: 'spans across nodes' → off; 'lacks GPU P2P' → off; from 0.27
    (0.27.1, 0.29.0 wheels) a group across nodes keeps it only through MNNVL (cap ≥ 10.0, multicast)."""
    tp2 = ParallelSpec(tp=2)
    rules = resolve_rules("0.10.1.1")
    assert vllm_car(tp2, rules, A100).bytes.bytes > 0
    assert vllm_car(tp2, rules, A100, links=_choice(link="pcie")).bytes.bytes > 0  # world 2 over PCIe with P2P
    off = vllm_car(tp2, rules, A100, links=_choice(no_p2p=True))
    assert off.bytes.bytes == 0 and "lacks GPU P2P" in off.source and "--no-p2p" in off.source
    assert vllm_car(tp2, rules, A100, links=_choice(nnodes=2)).bytes.bytes == 0
    b200, tp8 = lookup_gpu("B200"), ParallelSpec(tp=8)
    mnnvl = link_choice(link="nvlink", nnodes=2, num_gpus=8)
    before = vllm_car(tp8, resolve_rules("0.26.0"), b200, links=mnnvl)
    assert before.bytes.bytes == 0 and "spans 2 nodes" in before.source
    assert vllm_car(tp8, resolve_rules("0.27.1"), b200, links=mnnvl).bytes.bytes > 0
    h200 = lookup_gpu("H200")  # cap 9.0: no MNNVL path
    assert vllm_car(tp8, resolve_rules("0.27.1"), h200, links=mnnvl).bytes.bytes == 0


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])  # legacy CustomAllreduce, CustomAllReduceV2
def test_sglang_custom_allreduce_off_across_nodes_and_without_p2p(version):
    """sglang 0.5.9 custom_all_reduce.py and 0.5.23 custom_all_reduce_utils.py: 'spans across nodes' and 'lacks
    GPU P2P' turn it off (0.5.23's V2 across nodes needs one NVLink clique and the VMM allocator: not modelled)."""
    h100, tp2 = lookup_gpu("H100"), ParallelSpec(tp=2)
    assert sglang_car(h100, tp2, version).bytes.bytes > 0
    assert sglang_car(h100, tp2, version, links=_choice(link="pcie")).bytes.bytes > 0
    assert sglang_car(h100, tp2, version, links=_choice(no_p2p=True)).bytes.bytes == 0
    assert sglang_car(h100, tp2, version, links=_choice(nnodes=2)).bytes.bytes == 0


@pytest.mark.parametrize("name", ["H100", "RTX-4090", "L40S"])
@pytest.mark.parametrize("size", [1, 2, 3, 64, 257])
def test_catalog_group_of_any_size_answers_as_the_full_matrix(name, size):
    # group_links describes a catalog group from one pair instead of an n² matrix (a DP group of a 2,048-GPU plan
    # took seconds); the answer must be the one the whole uniform matrix gives
    from tpkit.hardware.topology import Topology

    gpu = lookup_gpu(name)
    assert group_links(gpu, None, range(size)) == Topology.from_catalog(gpu, num_gpus=size).group()
