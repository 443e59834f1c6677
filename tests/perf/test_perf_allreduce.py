"""All-reduce cost: analytical NCCL/one-shot models against measurements, profiles, fabric contention."""

import json
from pathlib import Path

import pytest

from tpkit.comm.profile import default_profile
from tpkit.errors import PlanInputError
from tpkit.perf.allreduce import allreduce_cost, make_link
from tpkit.perf.calls import collective_calls

DATA = Path(__file__).parent / "data"
PUBLISHED = json.loads((DATA / "pcie_allreduce_published.json").read_text())


def pcie(world, fabric=None):
    return make_link(kind="pcie", world=world, gpu_name="RTX-PRO-6000", nvlink_gbps=None, pcie_gbps=64.0,
                     compute_capability=(12, 0), fabric_gbps=fabric)


def nvlink(world, gpu="H100-SXM-80GB"):
    return make_link(kind="nvlink", world=world, gpu_name=gpu, nvlink_gbps=450.0, pcie_gbps=64.0,
                     compute_capability=(9, 0))


@pytest.mark.parametrize("row", PUBLISHED["rows"], ids=lambda r: f"w{r['world']}-{r['bytes']}B")
def test_pcie_oneshot_matches_published_rtx_pro_6000_within_30_percent(row):
    got = allreduce_cost(row["bytes"], pcie(row["world"]), "custom_oneshot").us
    assert abs(got / row["oneshot_us"] - 1) <= 0.30


@pytest.mark.parametrize("row", [r for r in PUBLISHED["rows"] if r["world"] == 8], ids=lambda r: f"{r['bytes']}B")
def test_pcie_nccl_matches_published_8_gpu_within_20_percent(row):
    assert abs(allreduce_cost(row["bytes"], pcie(8), "nccl").us / row["nccl_us"] - 1) <= 0.20


def test_nccl_model_matches_the_measured_2x_h200_profile_up_to_1_mib():
    """H100 is not covered by the shipped profile, so this is the analytical model vs the H200 measurement."""
    for row in default_profile().rows(2):
        if row.nbytes.bytes <= 2**20:
            got = allreduce_cost(row.nbytes.bytes, nvlink(2), "nccl").us
            assert abs(got / row.time_of("nccl") - 1) <= 0.15, row.nbytes


def test_shipped_profile_replaces_the_model_on_2x_h200():
    cost = allreduce_cost(16384, nvlink(2, "H200-SXM-141GB"), "nccl")
    assert "shipped profile" in cost.source and cost.us == pytest.approx(8.152)


def test_measured_profile_is_preferred_and_interpolated():
    prof = default_profile()
    cost = allreduce_cost(24576, nvlink(2), "custom_oneshot", profile=prof, profile_name="mine.json")
    assert "measured profile mine.json" in cost.source
    assert 2.903 < cost.us < 3.021  # between the 16 KiB and 32 KiB rows


def test_oneshot_over_pcie_is_bounded_by_the_shared_fabric():
    """All n ranks read (n−1)·S at once: halving the fabric bandwidth slows a large one-shot, not NCCL."""
    s = 57344
    fast, slow = allreduce_cost(s, pcie(8, 168.7), "custom_oneshot").us, allreduce_cost(s, pcie(8, 51.7), "custom_oneshot").us
    assert slow > 2 * fast - 10
    assert allreduce_cost(s, pcie(8, 51.7), "nccl").us == pytest.approx(allreduce_cost(s, pcie(8, 168.7), "nccl").us)
    assert allreduce_cost(s, pcie(8, 51.7), "custom_oneshot").us > allreduce_cost(s, pcie(8, 51.7), "nccl").us


def test_one_rank_costs_nothing_and_bad_backends_are_user_errors():
    assert allreduce_cost(1 << 20, nvlink(1), "nccl").us == 0
    with pytest.raises(PlanInputError, match="backend"):
        allreduce_cost(1024, nvlink(2), "magic")
    with pytest.raises(PlanInputError, match="no NVLink"):
        make_link(kind="nvlink", world=8, gpu_name="RTX-PRO-6000", nvlink_gbps=None, pcie_gbps=64.0,
                  compute_capability=(12, 0))


def test_calls_per_forward_are_two_per_layer_plus_embedding():
    calls = collective_calls(num_layers=61, hidden=7168, vocab_per_rank=20480, tokens=1, tp=8)
    assert sum(c.count for c in calls if c.op == "all_reduce") == 123
    assert sum(c.count for c in calls if c.op == "all_gather") == 1
    assert collective_calls(num_layers=61, hidden=7168, vocab_per_rank=20480, tokens=1, tp=1) == []
    dp = collective_calls(num_layers=61, hidden=7168, vocab_per_rank=20480, tokens=8, tp=8, dp_attention=8)
    assert sum(c.count for c in dp if c.op == "all_reduce") == 1  # attention runs unsplit in each DP group
    assert sum(c.count for c in dp if c.op == "all_gather") == 2 * 61 + 1
