"""The shared start-up cost model: terms, the deciding GPU of a probed machine, links, and both engines on it."""

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.memory.ledger import LineItem
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.startup import (Cost, cublas, cuda_context, find_imbalance, group_links, nccl_costs,
                           sglang_custom_allreduce, startup_costs, tightest_rank, vllm_allreduce_costs,
                           VllmAllreduceRelease)
from tpkit.startup.measured import STARTUP_COSTS
from tpkit.units import Bytes, GiB, MiB

H200 = lookup_gpu("H200")
RTX = lookup_gpu("RTX-4090")
TOTAL = H200.total_bytes


def _state(i, free_gib, own_mib=0):
    return GpuState(index=i, name="NVIDIA H200", total_bytes=TOTAL, free_bytes=GiB(free_gib),
                    used_by_this_process_bytes=MiB(own_mib), compute_capability=(9, 0))


def _machine(free_gib, own_mib=0, nvlink=None):
    n = len(free_gib)
    links = () if nvlink is None else tuple(tuple(0 if i == j else nvlink for j in range(n)) for i in range(n))
    return MachineProfile(gpus=tuple(_state(i, f, own_mib) for i, f in enumerate(free_gib)), nvlink_links=links)


def test_cost_keeps_value_source_and_band_and_refuses_unknown_terms():
    c = Cost(key="cublas", item="cuBLAS workspace", bytes=MiB(98), source="measured", uncertainty=MiB(2))
    line = c.line(item="cuBLAS handles", note="; late")
    assert (line.item, line.bytes, line.source, line.kind) == ("cuBLAS handles", MiB(98), "measured; late", "use")
    with pytest.raises(ValueError, match="key"):
        Cost(key="kv", item="x", bytes=Bytes(1), source="y")


def test_context_is_the_probes_own_when_recorded_else_the_measured_table():
    assert cuda_context(H200).bytes == STARTUP_COSTS["cuda_context"]
    probed = cuda_context(H200, _state(3, 100, own_mib=560))
    assert probed.bytes == MiB(560) and "GPU 3" in probed.source
    assert cuda_context(H200, _state(3, 100)).bytes == STARTUP_COSTS["cuda_context"]


def test_nccl_only_for_more_than_one_rank_and_order_of_terms():
    assert nccl_costs(H200, 1, transport="nvlink") == ()
    init, warm = nccl_costs(H200, 2, transport="nvlink")  # the measured cell: 2 ranks over NVLink
    assert init.bytes == STARTUP_COSTS["nccl_process_group"] and warm.bytes == STARTUP_COSTS["nccl_first_allreduce"]
    pcie = nccl_costs(H200, 8, transport="pcie")  # another cell of the table, with its own band
    assert sum(c.bytes.bytes for c in pcie) < (init.bytes + warm.bytes).bytes and all(c.uncertainty for c in pcie)
    assert "nccl[pcie:8]" in pcie[0].source
    extra = LineItem(item="tpkit all-reduce", bytes=MiB(10), source="comm.plan")
    rel = VllmAllreduceRelease(torch_symm_mem=False, world_sizes=(2, 4), signal_bytes=1, staging_mib=8,
                               mnnvl_lamport=False)
    zero_car, _ = vllm_allreduce_costs(H200, group_links(H200, None, range(3)), 3, rel,
                                       disable_custom_all_reduce=False)
    costs = startup_costs(context=cuda_context(H200), nccl=(init, warm), custom_allreduce=zero_car,
                          extra=(extra,), cublas_cost=cublas(H200))
    assert [c.key for c in costs] == ["cuda_context", "nccl_init", "nccl_warmup", "extra", "cublas"]


def test_tightest_rank_looks_at_every_gpu_of_the_layout_dp_included():
    machine = _machine([139, 139, 139, 100], own_mib=500)
    tight = tightest_rank(machine, ParallelSpec(tp=2, dp=2), H200)
    assert (tight.rank, tight.state.index, tight.ranks) == (3, 3, 4)
    assert tight.free_before_process == GiB(100) + MiB(500) and tight.context.bytes == MiB(500)
    assert tightest_rank(machine, ParallelSpec(tp=2), H200).state.index == 0  # GPUs 2, 3 are not used
    with pytest.raises(PlanInputError, match="tp×pp×dp = 8"):
        tightest_rank(machine, ParallelSpec(tp=8), H200)


def test_imbalance_is_checked_inside_each_replica():
    machine = _machine([139, 139, 139, 100])
    found = find_imbalance(machine, ParallelSpec(tp=2, dp=2), H200, ratio=0.9)
    assert (found.tight.index, found.rich.index) == (3, 2)
    assert find_imbalance(_machine([139, 139, 100, 100]), ParallelSpec(tp=2, dp=2), H200, ratio=0.9) is None


def test_links_come_from_the_profile_when_probed_else_from_the_catalog():
    assert group_links(H200, None, range(4)).full_nvlink is True
    assert "nvlink" in group_links(H200, None, range(4)).assumed
    assert group_links(RTX, None, range(4)).full_nvlink is False
    pcie = group_links(H200, _machine([139] * 4, nvlink=0), range(4))
    assert pcie.full_nvlink is False and "nvlink" not in pcie.assumed
    assert group_links(H200, _machine([139] * 4, nvlink=18), range(4)).full_nvlink is True


def test_sglang_custom_allreduce_follows_the_probed_links():
    mesh, pcie = group_links(H200, None, range(4)), group_links(H200, _machine([139] * 4, nvlink=0), range(4))
    assert sglang_custom_allreduce(H200, mesh, 4, v2=True).bytes == MiB(23) + MiB(4)
    assert sglang_custom_allreduce(H200, pcie, 4, v2=True).bytes == Bytes(0)
    assert sglang_custom_allreduce(H200, pcie, 2, v2=True).bytes == MiB(24) + Bytes(3_456)
    assert sglang_custom_allreduce(H200, mesh, 1, v2=True).bytes == Bytes(0)


def test_vllm_custom_allreduce_by_world_size():
    rel = VllmAllreduceRelease(torch_symm_mem=False, world_sizes=(2, 4, 6, 8, 16), signal_bytes=4_864,
                               staging_mib=16, mnnvl_lamport=False)

    def car(world: int) -> Bytes:
        cost, _ = vllm_allreduce_costs(H200, group_links(H200, None, range(world)), world, rel,
                                       disable_custom_all_reduce=False)
        return cost.bytes

    assert car(4) == Bytes(4_864) + MiB(8) + MiB(16) + MiB(8)
    assert car(16) == Bytes(0)
    assert car(3) == Bytes(0)


@pytest.fixture(scope="module")
def llama():
    return load_model("meta-llama/Llama-3.1-8B-Instruct")


def test_both_engines_plan_from_the_same_gpu_and_context_on_a_probed_machine(llama):
    """The rule both engines share: the tightest of all tp×pp×dp GPUs, with the probe's own context."""
    machine = _machine([139, 139, 139, 100], own_mib=500)
    par = ParallelSpec(tp=2, dp=2)
    s = plan_sglang(llama, H200, par, SglangOptions(), machine=machine)
    v = plan_vllm(llama, H200, par, VllmOptions(), machine=machine)
    for r in (s, v):
        assert "GPU 3" in r.ledger.rank_label
        assert r.ledger.get("CUDA context").bytes == MiB(500)
    assert s.ledger.items[0].bytes == GiB(100) + MiB(500)
    assert v.ledger.get("held by other processes").bytes == TOTAL - GiB(100) - MiB(500)
