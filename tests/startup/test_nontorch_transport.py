"""vLLM >= 0.11's non-torch growth during the profile, by transport (helper ntg, 2026-12-04).

Over PCIe (one node, CUDA peer access, no full NVLink mesh) the growth row is bounded by the start-up table's NCCL
cell for PCIe at that world: before 0.11 the init snapshot precedes the distributed init (gpu_worker.init_device,
vllm 0.10.x wheels), so the non-torch lines behind the PCIe cells hold all of NCCL; from 0.11 only the part made
after the snapshot grows.  NVLink and multi-node groups keep the rows (docs/accuracy.md §5, "vLLM non-torch growth
by transport").
"""

from __future__ import annotations

import pytest

from tpkit.engines.vllm.baseline import profile_nontorch_growth
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec
from tpkit.startup.links import link_choice
from tpkit.startup.table import entry, nccl_entry
from tpkit.startup.terms import vllm_nontorch_growth

ITEM = "non-torch growth during profiling"


@pytest.mark.parametrize("world, key", [(2, "tp2"), (3, "tp>2"), (4, "tp>2"), (8, "tp>2"), (16, "tp>2")])
def test_pcie_growth_is_the_smaller_of_the_row_and_nccls_pcie_cell(world, key):
    # helper ev33: the bound reads the profile window's PCIe cell (vLLM's non-torch lines before 0.11), not the pooled one
    row, nccl = entry("vllm_nontorch_growth", key), nccl_entry("pcie", world, window="profile")
    assert "profile:pcie:" in nccl.source
    pcie, plain = vllm_nontorch_growth(world, transport="pcie"), vllm_nontorch_growth(world)
    assert (plain.bytes, plain.uncertainty) == (row.bytes, row.uncertainty)
    # today every vLLM PCIe cell lies below the rows (0.15-0.27 GiB against 0.46 / 1.43 GiB)
    assert nccl.bytes < row.bytes
    assert (pcie.bytes, pcie.uncertainty) == (nccl.bytes, nccl.uncertainty)
    assert "bounded by NCCL's whole footprint over PCIe" in pcie.source and f"vllm_nontorch_growth[{key}]" in pcie.source


def test_one_rank_has_no_transport_and_a_bad_transport_is_refused():
    assert vllm_nontorch_growth(1, transport="pcie").bytes == vllm_nontorch_growth(1).bytes
    with pytest.raises(ValueError, match="transport must be None or 'pcie'"):
        vllm_nontorch_growth(4, transport="nvlink")


def test_pcie_with_peer_access_takes_the_bound_nvlink_and_other_hosts_the_row():
    rules, tp4 = resolve_rules("0.19.0"), ParallelSpec(tp=4)
    bounded, row = vllm_nontorch_growth(4, transport="pcie"), vllm_nontorch_growth(4)
    (l40s,) = profile_nontorch_growth(lookup_gpu("L40S"), tp4, rules)  # catalog: PCIe with peer access
    assert (l40s.bytes, l40s.uncertainty) == (bounded.bytes, bounded.uncertainty) and "over PCIe" in l40s.source
    (h100,) = profile_nontorch_growth(lookup_gpu("H100"), tp4, rules)  # catalog: full NVLink mesh
    assert (h100.bytes, h100.uncertainty) == (row.bytes, row.uncertainty) and "over PCIe" not in h100.source
    # told PCIe on an NVLink board: the bound; two hosts (the NCCL cells measure no network): the row
    (told,) = profile_nontorch_growth(lookup_gpu("H100"), tp4, rules, links=link_choice(link="pcie", num_gpus=4))
    assert told.bytes == bounded.bytes
    (hosts,) = profile_nontorch_growth(lookup_gpu("L40S"), tp4, rules, links=link_choice(nnodes=2, num_gpus=4))
    assert hosts.bytes == row.bytes
    # no peer access keeps the one-rank row, as before
    (no_p2p,) = profile_nontorch_growth(lookup_gpu("L40S"), tp4, rules, links=link_choice(no_p2p=True, num_gpus=4))
    assert no_p2p.bytes == vllm_nontorch_growth(1).bytes


@pytest.mark.parametrize("version, charged", [("0.10.2", False), ("0.11.0", True), ("0.19.0", True),
                                              ("0.27.0", True), ("current", True)])
def test_the_bound_applies_where_the_growth_row_does(version, charged):
    """Before 0.11 NCCL is created after the snapshot and charged as its own lines (no growth line); from 0.11 the
    PCIe group takes the bounded row."""
    (line,) = profile_nontorch_growth(lookup_gpu("L40S"), ParallelSpec(tp=4), resolve_rules(version))
    expected = vllm_nontorch_growth(4, transport="pcie").bytes if charged else 0
    assert line.item == ITEM and line.bytes.bytes == int(expected)
