"""``extra_uses`` and ``disable_custom_all_reduce`` in both planners: charged like the CUDA context, and
defaults that leave every plan byte-identical."""

import pytest

from tpkit.comm.plan import planned_allreduce_lines
from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.memory.ledger import LineItem
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB, MiB

MODEL = load_model("meta-llama/Llama-3.1-70B-Instruct")
H100 = lookup_gpu("H100")
TP4 = ParallelSpec(tp=4)
ENGINE_AR = "custom all-reduce buffers"


def _tpkit_lines(tp=4):
    return planned_allreduce_lines(world_size=tp, max_bytes=MiB(8), gpu_has_nvlink=True, full_nvlink=None,
                                   compute_capability=(9, 0), env={})


def _total(lines) -> Bytes:
    return sum((l.bytes for l in lines), Bytes(0))


# KV tokens of Llama-3.1-70B with extra_uses / disable_custom_all_reduce left at their defaults: sglang 0.5.23,
# 0.4.10, vllm current, 0.11, v0.  A golden table: the feature's defaults must not move any plan.  Regenerate it
# (same loop as the test) only when a start-up term or an engine rule changes on purpose, and say so in the commit.
# Regenerated 2026-12-01 (helper AV): vLLM ≥ 0.11 charges the non-torch growth at tp > 1 (current, 0.11 columns);
# the V0 engine ≥ 0.6.5 leaves the CUDA context outside its budget (v0 column); the profile's top-k/top-p sampler
# follows the release (FlashInfer from 0.21, install-dependent in 0.9–0.11: current and 0.11 columns).
# Regenerated 2026-12-01 (helper T): SGLang's load usage holds its rotary cos/sin cache (float32 on CUDA from 0.4.2,
# 64 MiB for this model) and the start-up table's load allocations by release; init_torch_distributed's tp-1 term
# by release (0.00 before 0.5.8, 0.09 GiB from it): sglang 0.5.23 and 0.4.10 columns only.
# Regenerated 2026-12-01 (helper v2): V0's chunked-prefill budget is 2048 tokens from 0.6.5 (was 512 for every V0
# release); this model's 131K context turns chunking on, so the v0 column (0.7.0) profiles 2,048 tokens.
# Regenerated 2026-12-04 (helper srp): SGLang 0.5.6+ plans charge the RoPE cache pre-expansion after the weights
# (engines.sglang.rope, a band term over 0 … 2 MiB for this model's 64 MiB cache: nominal 1 MiB): sglang 0.5.23 column only.
# Regenerated 2026-12-04 (helper cge): vLLM's CUDA-graph estimate is the median of printed estimates (0.65 GiB,
# engines/vllm/graphs.py GRAPH_EVIDENCE) instead of the analytic ≈ 0.15 GiB: vllm current column only.
# Regenerated 2026-12-04 (helper smp): vLLM 0.9.0–0.11.0 plan the PyTorch-native top-k/top-p sampler of a plain pip
# install (flashinfer-python is no requirement of those wheels; was the native/FlashInfer midpoint): 0.11 column only.
# Regenerated 2026-12-04 (helper mrv2): Model Runner V2 (every model from 0.29) keeps its request/sampling state on
# the GPU (engines/vllm/profile.py v2_runner_state_bytes: max_num_seqs × 128,256 vocab × 4 B of output_bin_counts
# and smaller tables): vllm current column only.
# Regenerated 2026-12-04 (helper gap): vLLM >= 0.11's non-torch growth has a world-2 row (0.46 GiB, startup table
# vllm_nontorch_growth[tp2]) apart from the world-4/8 row (1.43 GiB): current and 0.11 columns at tp 2 only.
# Regenerated 2026-12-04 (helper cbw): the blackwell-consumer CUDA context is 0.52 GiB from four rows (was 0.68 from
# sg_047 alone; startup/data/evidence.json): the SGLang columns on RTX-PRO-6000 only (vLLM charges it before its snapshot).
# Regenerated 2026-12-04 (helper ntg): vLLM >= 0.11's non-torch growth on one node with peer access over PCIe is bounded
# by NCCL's PCIe footprint at that world (startup.terms.vllm_nontorch_growth(transport="pcie")): the vllm current and
# 0.11 columns on L40S and RTX-PRO-6000 at tp 2-8 only.
# Regenerated 2026-12-04 (helper nvls): vLLM 0.4.3-0.10.x charge NCCL's NVLink SHARP buffers of two tp communicators
# on one sm90+ NVSwitch board at 2 < tp <= 8 (startup.nvls; 2 x 1.125 GiB at NCCL 2.21, tp 8): v0 (0.7.0) column on
# H100 at tp 4 and 8 only.
# Regenerated 2026-12-05 (helper vres): vLLM's load delta holds the caching allocator's rounding of the weight tensors
# (engines/vllm/weight_blocks.py: a tensor of >= 10 MiB leaving <= 1 MiB of its 2 MiB-rounded segment counts it): the
# three vllm columns at tp 4 only (this model's tensors are whole 2 MiB multiples at tp 1, 2 and 8).
# Regenerated 2026-12-05 (helper vcg10): vLLM's CUDA-graph estimate by its mechanism (engines/vllm/graphs.py
# mechanism_estimate: 0.155 GiB first capture + graphs × layers × 153 KiB; 1.32 GiB for this 80-layer model's
# 51 + 51 graphs, was the 0.65 GiB median): vllm current column only.
# Regenerated 2026-12-05 (helper nc13): nccl[nvlink:4] is measured by two rows (1.36 GiB, was 1.38 interpolated between
# worlds 2 and 8; startup/data/evidence.json sg_105, vllm-a800-tp4-lf): sglang 0.5.23 / 0.4.10 and vllm v0 columns on
# H100 at tp 4 only (vLLM >= 0.11 creates NCCL before its init snapshot).
# Regenerated 2026-12-05 (helper near14): vLLM >= 0.21 loads the weights under max_split_size_mb 20
# (VllmRules.load_max_split_mib), so a tensor of >= 20 MiB keeps its whole 2 MiB-rounded segment: at tp 8 this model's
# embedding and lm_head shards (250.5 MiB) count 1.5 MiB more each: vllm current column at tp 8 only (-80 tokens).
# Regenerated 2026-12-05 (helper ev15): rows mined from the explain corpus (scripts/mine_startup_evidence.py) move
# nccl[pcie:8] 0.190 -> 0.265 GiB (vl_250) and nccl[pcie:2] 0.245 -> 0.240 (sglang_tp1_init[all] 0.00 -> 0.01):
# every column on L40S and RTX-PRO-6000 at tp 8, and on RTX-PRO-6000 at tp 2.
# Regenerated 2026-12-05 (helper v17): vLLM 0.26-0.33 build FlashInfer's mnnvl all-reduce fusion workspace when they
# compile at tp > 1 on an NVSwitch board (engines/vllm/fi_allreduce.py fi_allreduce_fusion_workspace, FI_AR_MNNVL_RELEASES):
# one buffer rounded to the 512 MiB multicast granularity on SM 9.0: vllm current column on H100 at tp 2, 4 and 8.
# Helper cur17 (2026-12-05): the "current" column is now named "0.33" (current = 0.34, whose extensible KV cache sizes
# the pool another way); its numbers are unchanged.
# Helper ev24 (2026-12-06): nccl[pcie:2] 0.240 -> 0.245 GiB (sg-16920 subtracts sglang_tp1_init[all], 0.01 -> 0.00 GiB
# with ex22's sg_527 / sg_529 rows): every column on RTX-PRO-6000 at tp 2, 28-32 tokens fewer.
# Helper vx25 (2026-12-06): FlashAttention 3's split-KV accumulators in the first FULL capture (engines/vllm/graph_fa3.py:
# 32 splits x 32 heads a rank x 512 tokens x 129 x 4 B = 258 MiB, above the 0.155 GiB constant): vllm 0.33 column on
# H100 at tp 2 only (16,112 -> 15,472; at tp 4 / 8 the 16 / 8 heads a rank give 129 / 65 MiB, under the constant).
# Helper ev32 (2026-12-07): SGLang reads NCCL cells of its own init window (sglang: keys: nvlink:4 1.36 -> 1.44,
# nvlink:8 1.94 -> 1.23, pcie:2 0.245 -> 0.26, pcie:8 0.265 -> 0.13 GiB) and sg_051's NCCL sample is out (no flags
# printed): the SGLang columns at H100 tp 4 / 8, L40S tp 8, RTX-PRO-6000 tp 2 / 8 move; vLLM v0 at H100 tp 8 reads
# the pooled nvlink:8 cell, 1.94 -> 1.61 GiB (1,292,672 -> 1,301,312).
BEFORE_THE_FEATURE = {
    # helper ev33 (2026-12-07): vLLM reads its own NCCL cells (vllm:<transport>:<world>, its non-torch lines before
    # 0.11): the v0 column at H100 tp 2 / 4 / 8 and every vLLM column over PCIe (the growth bound) at L40S tp 4 and
    # RTX PRO 6000 tp 2 / 4 moved; the SGLang columns did not. Helper gx33 (2026-12-07): the SGLang 0.5.23 column on
    # the H100 (SM 9.0) loses DeepGEMM's 32 MiB workspace after the pre sample (engines.sglang.streams
    # .deepgemm_workspace): tp 4 395,181 → 394,771, tp 8 1,211,335 → 1,210,516; L40S (SM 8.9), RTX PRO 6000 (SM 12.0)
    # and 0.4.10 do not move
    ("H100", 1): (0, 0, 0, 0, 0),
    ("H100", 2): (0, 10_481, 15_472, 1_328, 19_264),
    # lead (session 37): sg_720 (4x GB300) is nccl[init:nvlink:4]'s second sample, so SGLang's tp 4 columns move:
    # 394,771 -> 395,200 and 432,461 -> 432,910; vLLM's cells are its own and do not
    ("H100", 4): (395_200, 432_910, 450_080, 420_512, 454_384),
    ("H100", 8): (1_210_516, 1_249_569, 1_330_752, 1_271_696, 1_291_360),
    ("L40S", 1): (0, 0, 0, 0, 0),
    ("L40S", 2): (0, 0, 0, 0, 0),
    ("L40S", 4): (42_872, 0, 79_552, 74_688, 74_688),
    ("L40S", 8): (503_766, 368_061, 586_704, 577_024, 577_024),
    ("RTX-PRO-6000", 1): (0, 0, 0, 0, 0),
    ("RTX-PRO-6000", 2): (97_215, 101_480, 116_016, 94_752, 118_064),
    ("RTX-PRO-6000", 4): (616_890, 622_952, 663_696, 621_152, 668_080),
    ("RTX-PRO-6000", 8): (1_652_046, 1_624_597, 1_754_976, 1_669_968, 1_763_808),
}


@pytest.mark.parametrize("gpu, tp", sorted(BEFORE_THE_FEATURE))
def test_defaults_leave_plans_as_they_were_before_the_feature(gpu, tp):
    g, par = lookup_gpu(gpu), ParallelSpec(tp=tp)
    tokens = [plan_sglang(MODEL, g, par, SglangOptions(engine_version=v)).kv_tokens for v in ("0.5.23", "0.4.10")]
    tokens += [plan_vllm(MODEL, g, par, VllmOptions(engine_version=v)).kv_tokens for v in ("0.33", "0.11", "v0")]
    assert tuple(tokens) == BEFORE_THE_FEATURE[(gpu, tp)]


def _sglang(extra=(), disable=False, machine=None):
    return plan_sglang(MODEL, H100, TP4, SglangOptions(mem_fraction_static=0.85, disable_custom_all_reduce=disable),
                       extra_uses=extra, machine=machine)


def _machine():
    gpus = tuple(GpuState(index=i, name="NVIDIA H100 80GB HBM3", total_bytes=GiB(79.19), free_bytes=GiB(78.5))
                 for i in range(4))
    return MachineProfile(gpus=gpus)


def _slack(result) -> int:
    return next(l.bytes.bytes for l in result.ledger.items if l.item.startswith("slack"))


@pytest.mark.parametrize("machine", [None, _machine()], ids=["catalog", "machine"])
def test_sglang_charges_extra_uses_before_pre_model_load(machine):
    base, tpkit = _sglang(machine=machine), _sglang(_tpkit_lines(), disable=True, machine=machine)
    items = [l.item for l in tpkit.ledger.items]
    assert ENGINE_AR in [l.item for l in base.ledger.items] and ENGINE_AR not in items
    assert items.index("all-reduce one_shot buffers") < items.index("free before weights (pre_model_load_memory)")
    engine_ar = base.ledger.get(ENGINE_AR).bytes
    delta = _total(_tpkit_lines()) - engine_ar
    b, t = base.extra["sglang"], tpkit.extra["sglang"]
    assert b["pre_model_load_bytes"] - t["pre_model_load_bytes"] == delta.bytes  # exactly the difference
    # the KV budget shrinks by the difference less the slack's share of it ((1 − f) × difference, rounded)
    assert b["kv_budget_bytes"] - t["kv_budget_bytes"] == delta.bytes - (_slack(base) - _slack(tpkit))
    assert abs((b["kv_budget_bytes"] - t["kv_budget_bytes"]) - 0.85 * delta.bytes) <= 1
    assert tpkit.kv_tokens < base.kv_tokens


def test_sglang_disable_alone_drops_only_the_engine_line():
    base, off = _sglang(), _sglang(disable=True)
    engine_ar = base.ledger.get(ENGINE_AR).bytes
    assert off.extra["sglang"]["pre_model_load_bytes"] - base.extra["sglang"]["pre_model_load_bytes"] == engine_ar.bytes
    assert [l.item for l in off.ledger.items] == [l.item for l in base.ledger.items if l.item != ENGINE_AR]


def _vllm(version, extra=(), disable=False):
    return plan_vllm(MODEL, H100, TP4, VllmOptions(engine_version=version, disable_custom_all_reduce=disable),
                     extra_uses=extra)


MNNVL = "custom all-reduce MNNVL Lamport buffer"


def test_vllm_v1_charges_extra_uses_before_the_snapshot_outside_the_budget():
    base, tpkit = _vllm("0.33"), _vllm("0.33", _tpkit_lines(), disable=True)
    items = [l.item for l in tpkit.ledger.items]
    assert ENGINE_AR not in items and MNNVL not in items  # the Lamport buffer belongs to custom all-reduce
    assert items.index("all-reduce one_shot buffers") < items.index("cuBLAS/cuBLASLt handles")
    delta = _total(_tpkit_lines()) - base.ledger.get(ENGINE_AR).bytes - base.ledger.get(MNNVL).bytes
    outside = "outside the utilisation budget"
    assert base.ledger.get(outside).bytes - tpkit.ledger.get(outside).bytes == delta
    # like the CUDA context, memory that exists at vLLM's init snapshot is not in the KV budget of V1
    assert tpkit.extra["available_kv_bytes"] == base.extra["available_kv_bytes"]
    assert tpkit.ledger.check(Bytes(0)) == []


def test_vllm_034_extensible_kv_takes_extra_uses_out_of_the_kv_cache():
    """vLLM 0.34's extensible KV cache is capped by the free memory at the snapshot less its margin (budget.py), so
    memory that exists before the snapshot comes out of the KV cache, where 0.33 keeps it outside the budget."""
    base, tpkit = _vllm("0.34.0"), _vllm("0.34.0", _tpkit_lines(), disable=True)
    delta = _total(_tpkit_lines()) - base.ledger.get(ENGINE_AR).bytes - base.ledger.get(MNNVL).bytes
    assert base.extra["available_kv_bytes"] - tpkit.extra["available_kv_bytes"] == delta.bytes
    assert "outside the utilisation budget" not in [l.item for l in tpkit.ledger.items]
    assert tpkit.ledger.check(Bytes(0)) == []


def test_vllm_v0_counts_extra_uses_as_non_torch_memory():
    base, tpkit = _vllm("v0"), _vllm("v0", _tpkit_lines(), disable=True)
    delta = _total(_tpkit_lines()) - base.ledger.get(ENGINE_AR).bytes
    assert base.extra["available_kv_bytes"] - tpkit.extra["available_kv_bytes"] == delta.bytes
    assert ENGINE_AR not in [l.item for l in tpkit.ledger.items]
    assert tpkit.ledger.check(Bytes(0)) == []


def test_vllm_disable_custom_all_reduce_in_the_era_that_charges_it_after_the_snapshot():
    base, off = _vllm("0.10.1"), _vllm("0.10.1", disable=True)
    car = base.ledger.get(ENGINE_AR).bytes
    assert off.extra["available_kv_bytes"] - base.extra["available_kv_bytes"] == car.bytes
    assert ENGINE_AR not in [l.item for l in off.ledger.items]


@pytest.mark.parametrize("bad", [
    (LineItem(item="x", bytes=MiB(1), source="s", kind="info"),),
    ("not a line",),
    5,
])
def test_extra_uses_must_be_use_lines(bad):
    with pytest.raises(PlanInputError, match="extra_uses"):
        _sglang(bad)
    with pytest.raises(PlanInputError, match="extra_uses"):
        _vllm("current", bad)


@pytest.mark.parametrize("cls", [SglangOptions, VllmOptions])
def test_disable_custom_all_reduce_must_be_a_bool(cls):
    with pytest.raises(PlanInputError, match="True or False"):
        cls(disable_custom_all_reduce="yes")
