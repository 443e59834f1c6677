"""The NCCL row of a pp-only vLLM world takes the links of its PP group (``engines.vllm.baseline._nccl_group``; round
ac33's lead, helper tidy34, session 34).  vLLM builds a PyNccl communicator for every model-parallel group of more
than one rank, the PP group's included (``init_model_parallel_group`` → ``GroupCoordinator``, vllm 0.6.3.post1 and
0.25.1 wheels); at tp 1 the TP group has one rank and builds none.  The row read the TP group of one GPU, which reads
as a full NVLink mesh, so an A40 pp 2 start on a PCIe host showed nccl[init:nvlink:2]."""

from __future__ import annotations

import pytest

from tpkit.engines.vllm import resolve_rules
from tpkit.engines.vllm.baseline import _nccl_group, plan_baseline
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec
from tpkit.startup.links import link_choice


def _nccl_sources(gpu: str, parallel: ParallelSpec, version: str, links=None) -> list[str]:
    base = plan_baseline(lookup_gpu(gpu), parallel, resolve_rules(version), links=links)
    return [u.source for u in base.uses + base.after_snapshot if u.item.startswith("NCCL")]


def test_the_group_nccl_connects():
    assert list(_nccl_group(ParallelSpec(tp=1, pp=2))) == [0, 1]
    assert list(_nccl_group(ParallelSpec(tp=1, pp=4))) == [0, 1, 2, 3]
    assert list(_nccl_group(ParallelSpec(tp=1))) == [0]


@pytest.mark.parametrize("version, window", [("0.10.2", "profile"), ("0.25.1", "init")])
def test_a_pp_only_world_on_a_pcie_host_reads_the_pcie_cell(version, window):
    sources = _nccl_sources("A40", ParallelSpec(tp=1, pp=2), version)
    assert len(sources) == 2 and all(f"nccl[{window}:pcie:2]" in s for s in sources)
    no_p2p = link_choice(no_p2p=True, num_gpus=2)  # round ac33's A40 starts (NCCL_P2P_DISABLE=1)
    assert all(f"nccl[{window}:pcie:2]" in s for s in _nccl_sources("A40", ParallelSpec(tp=1, pp=2), version, no_p2p))


def test_a_pp_only_world_on_an_nvlink_host_keeps_the_nvlink_cell():
    assert all("nccl[init:nvlink:2]" in s for s in _nccl_sources("H100-SXM-80GB", ParallelSpec(tp=1, pp=2), "0.25.1"))
    pcie = link_choice(link="pcie", num_gpus=2)
    assert all("nccl[init:pcie:2]" in s for s in _nccl_sources("H100-SXM-80GB", ParallelSpec(tp=1, pp=2), "0.25.1",
                                                                 pcie))


def test_a_world_with_a_tp_group_keeps_the_tp_groups_links():
    assert all("nccl[init:nvlink:4]" in s for s in _nccl_sources("H100-SXM-80GB", ParallelSpec(tp=2, pp=2), "0.25.1"))
    assert all("nccl[init:pcie:2]" in s for s in _nccl_sources("A40", ParallelSpec(tp=2), "0.25.1"))
