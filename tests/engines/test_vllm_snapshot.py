"""What each vLLM release charges to the budget: snapshot order, V1's early V0-style rule, GPTQ and MoE buffers."""

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.startup import nccl_costs
from tpkit.startup.measured import STARTUP_COSTS
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.engines.vllm.profile_moe import FUSED_MOE_CHUNK
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB

from vllm_fixtures import H200, GivenWeights, config_model, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))
NCCL = sum((c.bytes for c in nccl_costs(H200, 2, transport="pcie")), Bytes(0))  # the fixture has no NVLink field
CUBLAS = STARTUP_COSTS["cublas"]


@pytest.mark.parametrize("version, rule, nccl_late, cublas_late", [
    ("0.8.5", "v0_peak", True, True), ("0.9.0", "v0_peak", True, True), ("0.9.1", "increase", True, True),
    ("0.10.1", "increase", True, True), ("0.10.2", "increase", True, True), ("0.11.0", "increase", False, True),
    ("0.20", "increase", False, True), ("0.21", "increase", False, True), ("0.26.1", "increase", False, True),
    ("0.27.0", "consumed", False, True), ("0.32.0", "consumed", False, True), ("0.33.0", "consumed", False, False),
    ("current", "consumed", False, False)])
def test_rules_follow_the_release(version, rule, nccl_late, cublas_late):
    r = resolve_rules(version)
    assert (r.memory_rule, r.distributed_after_snapshot, r.cublas_after_snapshot) == (rule, nccl_late, cublas_late)


def _plan(version, par=ParallelSpec(tp=2), **kw):
    return plan_vllm(llama3_8b(), H200, par, VllmOptions(engine_version=version, **kw), weights=W)


def test_nccl_and_custom_allreduce_are_charged_before_0_11_only():
    old, new = _plan("0.10.1"), _plan("0.11.0")
    late = sum((old.ledger.get(i).bytes for i in ("NCCL communicator init", "NCCL first all-reduce buffers",
                                                  "custom all-reduce buffers")), Bytes(0))
    assert late > NCCL
    # from 0.11 the communicators exist before the snapshot; what the profile's collectives connect lazily after
    # it (and workspaces outside torch) is charged instead: the start-up table's vllm_nontorch_growth row for the world
    growth = new.ledger.get("non-torch growth during profiling").bytes
    assert old.ledger.get("non-torch growth during profiling").bytes == Bytes(0) < growth
    assert new.extra["available_kv_bytes"] - old.extra["available_kv_bytes"] == (late - growth).bytes
    for r in (old, new):
        assert r.ledger.check(Bytes(0)) == []


def test_cublas_is_charged_in_the_0_11_era_but_not_in_current_rules():
    one_gpu = ParallelSpec()
    a = _plan("0.11.0", one_gpu)
    requested = a.extra["requested_bytes"]
    non_kv = sum(a.ledger.get(i).bytes.bytes for i in ("model weights", "rotary cos/sin cache",
                                                       "activation peak (profile run, estimate)"))
    assert a.extra["available_kv_bytes"] == requested - non_kv - CUBLAS.bytes
    current = _plan("current", one_gpu, enforce_eager=True)
    assert "created by the profile run" not in current.ledger.get("cuBLAS/cuBLASLt handles").source


def test_v1_before_0_9_1_charges_all_non_torch_memory_and_has_no_startup_check():
    r = _plan("0.9.0", ParallelSpec(), gpu_memory_utilization=0.9)
    uses = sum(r.ledger.get(i).bytes.bytes for i in ("CUDA context", "cuBLAS/cuBLASLt handles"))
    non_kv = sum(r.ledger.get(i).bytes.bytes for i in ("model weights", "rotary cos/sin cache",
                                                       "activation peak (profile run, estimate)"))
    assert r.extra["available_kv_bytes"] == int(H200.total_bytes.bytes * 0.9) - non_kv - uses
    assert r.ledger.check(Bytes(0)) == []
    busy = _plan("0.9.0", ParallelSpec(), gpu_memory_utilization=0.999)
    assert "Free memory on device" not in " ".join(busy.engine_log)


def test_gptq_kernel_adds_the_dequantised_weight_of_the_last_gemm():
    model = config_model("Qwen--Qwen1.5-7B-Chat-GPTQ-Int4")
    kw = dict(tokens=32768, rows=256, act_bytes=2)
    plain = estimate_profile_peak(model, ParallelSpec(), **kw)
    gptq = estimate_profile_peak(model, ParallelSpec(), dequant_gemm=True, **kw)
    assert gptq.peak - plain.peak == Bytes(model.intermediate_size * model.hidden_size * 2)  # down_proj temp_dq
    flagged = plan_vllm(model, H200, ParallelSpec(), VllmOptions(engine_version="v0", quantization="gptq"))
    unflagged = plan_vllm(model, H200, ParallelSpec(), VllmOptions(engine_version="v0"))
    assert "GPTQ temp_dq" in flagged.ledger.get("profile phase: dense MLP").source
    assert "GPTQ temp_dq" not in unflagged.ledger.get("profile phase: dense MLP").source


@pytest.mark.parametrize("version, exllama", [("v0", True), ("0.11", True), ("0.21.0", True), ("0.22.0", False),
                                              ("0.29.0", False), ("0.33.0", False)])
def test_explicit_gptq_runs_exllama_only_up_to_0_21(version, exllama):
    """0.21.0 forces the exllama GPTQConfig for an explicit --quantization gptq; from 0.22.0 AutoGPTQConfig takes
    it (Marlin-family kernel, no per-call dequantised weight)."""
    model = config_model("Qwen--Qwen1.5-7B-Chat-GPTQ-Int4")
    plan = plan_vllm(model, H200, ParallelSpec(), VllmOptions(engine_version=version, quantization="gptq"))
    assert ("GPTQ temp_dq" in plan.ledger.get("profile phase: dense MLP").source) is exllama


def test_moe_gathers_dp_tokens_with_or_without_ep():
    model = config_model("Qwen--Qwen3-Coder-480B-A35B-Instruct-FP8")
    kw = dict(tokens=8192, rows=1024, act_bytes=2)
    ep = estimate_profile_peak(model, ParallelSpec(dp=8, ep=8), **kw).parts
    no_ep = estimate_profile_peak(model, ParallelSpec(dp=8), **kw).parts
    single = estimate_profile_peak(model, ParallelSpec(), **kw).parts
    moe = {name: next(p for p in parts if p.item == "profile phase: MoE layer")
           for name, parts in (("ep", ep), ("no_ep", no_ep), ("single", single))}
    assert f"M 65,536 tokens (chunk {FUSED_MOE_CHUNK:,})" in moe["ep"].source
    assert "M 65,536 tokens" in moe["no_ep"].source and "N 320" in moe["no_ep"].source  # 2560 / (tp 1 × dp 8)
    assert "M 8,192 tokens" in moe["single"].source
    assert moe["ep"].bytes > moe["single"].bytes


def test_nontorch_growth_is_charged_from_0_11_on_more_than_one_rank_only():
    from tpkit.startup.terms import vllm_nontorch_growth

    # the fixture H200 has no NVLink field: two GPUs over PCIe with peer access, the tp2 row bounded by NCCL's
    # PCIe footprint (helper ntg)
    tp2 = vllm_nontorch_growth(2, transport="pcie")
    assert tp2.bytes > Bytes(0) and tp2.uncertainty > Bytes(0) and "vllm_nontorch_growth[tp2]" in tp2.source
    for version in ("0.11.0", "0.27.0", "current"):
        assert _plan(version).ledger.get("non-torch growth during profiling").bytes == tp2.bytes
        assert _plan(version, par=ParallelSpec()).ledger.get("non-torch growth during profiling").bytes == Bytes(0)
        assert _plan(version, par=ParallelSpec(pp=2)).ledger.get("non-torch growth during profiling").bytes == tp2.bytes
    assert _plan("0.10.2").ledger.get("non-torch growth during profiling").bytes == Bytes(0)
    assert "non-torch growth during profiling" not in [l.item for l in _plan("v0").ledger.items]


def test_nontorch_growth_has_a_world_2_row_below_the_larger_worlds():
    """World 2 has its own row (the printed 0.10.2 split on 2 x H200, vl_084: 1.38 GiB non-torch minus NCCL's
    measured init + warm-up and cuBLAS; llm-d's 2 x H100 table: 0.55 minus cuBLAS); worlds 4 and 8 keep the tp>2 row. NCCL sets up no NVLink SHARP at two GPUs
    (src/transport/nvls.cc ncclNvlsInit, gpuCount <= 2). Before 0.11 neither is charged (NCCL is its own line)."""
    from tpkit.startup.terms import vllm_nontorch_growth

    from tpkit.hardware.catalog import lookup_gpu

    one, two, four, eight = (vllm_nontorch_growth(w) for w in (1, 2, 4, 8))
    assert one.bytes < two.bytes < four.bytes == eight.bytes
    assert "vllm_nontorch_growth[tp2]" in two.source and "vllm_nontorch_growth[tp>2]" in four.source
    assert GiB(0.3) < two.bytes < GiB(0.6) and GiB(1.2) < four.bytes < GiB(1.6)
    item = "non-torch growth during profiling"
    nvlink = lookup_gpu("H200")  # the catalog's H200 sits in a full NVLink mesh: the rows themselves

    def plan(version, par=ParallelSpec(tp=2)):
        return plan_vllm(llama3_8b(), nvlink, par, VllmOptions(engine_version=version), weights=W)

    for version in ("0.11.0", "0.19.0", "current"):
        assert plan(version).ledger.get(item).bytes == two.bytes
        assert plan(version, par=ParallelSpec(tp=4)).ledger.get(item).bytes == four.bytes
        assert plan(version, par=ParallelSpec(tp=2, pp=2)).ledger.get(item).bytes == four.bytes
    for version in ("0.10.1", "0.10.2"):
        assert _plan(version).ledger.get(item).bytes == Bytes(0)
        assert _plan(version, par=ParallelSpec(tp=4)).ledger.get(item).bytes == Bytes(0)


def test_nontorch_growth_without_peer_access_on_one_node_is_the_one_rank_row():
    """No CUDA peer access inside one node: NCCL's SHM transport keeps its channel buffers in host memory (NCCL docs,
    NCCL_SHM_DISABLE), so from 0.11 the profile's collectives grow no device memory beyond the one-rank row (helper
    new6: kaggle-vllm's 2 x T4, vp_033 / vp_035). With peer access, or across nodes, the tp2 row stays."""
    from tpkit.startup.links import link_choice
    from tpkit.startup.terms import vllm_nontorch_growth

    one, many = vllm_nontorch_growth(1), vllm_nontorch_growth(2)
    assert one.bytes < many.bytes
    no_p2p = link_choice(link="pcie", no_p2p=True, num_gpus=2)
    item = "non-torch growth during profiling"
    for version in ("0.11.0", "0.18.1", "0.27.0", "current"):
        line = _plan(version, links=no_p2p).ledger.get(item)
        assert (line.bytes, line.uncertainty) == (one.bytes, one.uncertainty) and "SHM transport" in line.source
        pcie = vllm_nontorch_growth(2, transport="pcie")  # peer access over PCIe: the bounded row (helper ntg)
        assert _plan(version, links=link_choice(link="pcie", num_gpus=2)).ledger.get(item).bytes == pcie.bytes
        across = link_choice(no_p2p=True, nnodes=2, num_gpus=2)
        assert _plan(version, links=across).ledger.get(item).bytes == many.bytes
        assert _plan(version, links=no_p2p).ledger.check(Bytes(0)) == []
    # before 0.11 NCCL is set up after the snapshot and charged as its own lines: no growth line either way
    assert _plan("0.10.2", links=no_p2p).ledger.get(item).bytes == Bytes(0)


def test_nontorch_growth_reads_a_probed_machine_without_peer_access():
    """The same rule from a ``tpkit probe`` profile: two GPUs on one host whose probe found no CUDA peer access get
    the one-rank row; the same two GPUs with peer access keep the tp2 row (the links come from the one place,
    ``startup.links.group_links``, with the machine)."""
    from tpkit.hardware.machine import GpuState, MachineProfile
    from tpkit.startup.terms import vllm_nontorch_growth
    from tpkit.units import GiB

    def machine(p2p: bool) -> MachineProfile:
        gpus = tuple(GpuState(index=i, name="NVIDIA H200", total_bytes=H200.total_bytes,
                              free_bytes=H200.total_bytes - GiB(1), compute_capability=(9, 0)) for i in range(2))
        return MachineProfile(gpus=gpus, nvlink_links=((0, 0), (0, 0)),
                              p2p_access=((False, p2p), (p2p, False)))

    item = "non-torch growth during profiling"
    for version in ("0.11.0", "current"):
        opts = VllmOptions(engine_version=version)
        off = plan_vllm(llama3_8b(), H200, ParallelSpec(tp=2), opts, weights=W, machine=machine(False))
        on = plan_vllm(llama3_8b(), H200, ParallelSpec(tp=2), opts, weights=W, machine=machine(True))
        assert off.ledger.get(item).bytes == vllm_nontorch_growth(1).bytes
        # peer access without NVLink links: PCIe, the tp2 row bounded by NCCL's PCIe footprint (helper ntg)
        assert on.ledger.get(item).bytes == vllm_nontorch_growth(2, transport="pcie").bytes
