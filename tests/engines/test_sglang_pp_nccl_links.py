"""The NCCL row of a pp-only SGLang world takes the links of its PP group (``engines.sglang.baseline._nccl_group``;
round rl35, session 35, as tidy34 did for vLLM).  SGLang's ``initialize_model_parallel`` (before 'Init torch
distributed ends') builds a ``PyNcclCommunicator`` for the PP group (``GroupCoordinator``: ``use_pynccl and
world_size > 1``; sglang 0.4.3, 0.4.6, 0.5.0rc1, 0.5.10, 0.5.16 wheels) and none for a one-rank TP group.  Before, the
row read the TP group of one GPU, which reads as a full NVLink mesh: nccl[…:nvlink:2] on a PCIe host."""

from __future__ import annotations

from tpkit.engines.sglang.baseline import _nccl_group, plan_baseline
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec
from tpkit.startup.links import link_choice


def _nccl_sources(gpu: str, parallel: ParallelSpec, links=None, version: str = "0.5.10") -> list[str]:
    base = plan_baseline(lookup_gpu(gpu), parallel, version, None, version=version, links=links)
    return [u.source for u in base.uses if "NCCL" in u.item or "nccl" in u.source]


def test_the_group_nccl_connects():
    assert list(_nccl_group(ParallelSpec(tp=1, pp=2))) == [0, 1]
    assert list(_nccl_group(ParallelSpec(tp=1, pp=4))) == [0, 1, 2, 3]
    assert list(_nccl_group(ParallelSpec(tp=2, pp=2))) == [0, 1]
    assert list(_nccl_group(ParallelSpec(tp=1))) == [0]


def test_a_pp_only_world_on_a_pcie_host_reads_the_pcie_cell():
    sources = _nccl_sources("A40", ParallelSpec(tp=1, pp=2))
    assert sources and all(":pcie:2]" in s for s in sources if "nccl[" in s)
    assert not any(":nvlink:" in s for s in sources)
    no_p2p = link_choice(no_p2p=True, num_gpus=2)
    assert all(":nvlink:" not in s for s in _nccl_sources("A40", ParallelSpec(tp=1, pp=2), no_p2p))


def test_a_pp_only_world_on_an_nvlink_host_keeps_the_nvlink_cell():
    assert any(":nvlink:2]" in s for s in _nccl_sources("H100-SXM-80GB", ParallelSpec(tp=1, pp=2)))
    pcie = link_choice(link="pcie", num_gpus=2)
    assert not any(":nvlink:" in s for s in _nccl_sources("H100-SXM-80GB", ParallelSpec(tp=1, pp=2), pcie))


def test_a_world_with_a_tp_group_keeps_the_tp_groups_links():
    assert any(":nvlink:4]" in s for s in _nccl_sources("H100-SXM-80GB", ParallelSpec(tp=2, pp=2)))
    assert any(":pcie:2]" in s for s in _nccl_sources("A40", ParallelSpec(tp=2)))
