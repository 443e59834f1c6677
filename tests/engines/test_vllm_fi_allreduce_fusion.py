"""The FlashInfer all-reduce + RMSNorm fusion workspace (helper c715; engines/vllm/fi_allreduce.py
``fi_allreduce_fusion_workspace``): vLLM 0.18.1–0.19.1 with torch.compile on, tp 2/4/8 on SM 9.0 / 10.0, dp 1, pp 1
cudaMalloc three buffers outside torch when the AllReduceFusionPass is built (config/vllm.py OPTIMIZATION_LEVEL_02
``enable_allreduce_rms_fusion``; flashinfer 0.6.6 comm/trtllm_ar.py), which the profile window charges as non-torch
memory.  Both sides: eager, -O1, an A100, tp 1, other releases, and the size at tp 2 and tp 4.

Helper fi20 (2026-12-05): the range is 0.17.0–0.21.x (0.17.0/0.18.0/0.20.x/0.21.0 wheels; flashinfer 0.6.4 and
0.6.8.post1 allocate as 0.6.6), each buffer is a flashinfer ``SymmDeviceMemory`` (buffer + 2 KiB signal pad rounded to
2 MiB), SM 9.0 at tp 8 takes 0.5 MiB (the pass's table), SM 10.3 joins in 0.19.0 and 0.21.0 drops the dp/pp gates.

Helper c715b (2026-12-05): on SM 9.0 each buffer is then rounded to the 512 MiB multicast granularity
(``SymmDeviceMemory._get_allocation_prop``; ``fi_allreduce.FI_AR_MULTICAST_GRANULARITY_BYTES``, public evidence), so the
2 MiB sizes are checked on SM 10.x GPUs, whose granularity is not known (2 MiB only).

Helper v17 (2026-12-05): only a TP group with multicast (an NVSwitch board: a full NVLink mesh in tpkit's links)
gets it; flashinfer 0.6.4–0.6.8.post1 ``SymmDeviceMemory`` raises without multicast and vLLM 0.17–0.21 then builds
no workspace ("expected on GPUs without NVSwitch (e.g., NVLink bridge-only or PCIe topologies)").  0.26.0–0.33.x
charge FlashInfer's mnnvl workspace (one multicast buffer of three Lamport buffers), the one-node default there.

Helper cur17b (2026-12-05): 0.34.x too (same pass, gates, table and backend); under its extensible KV cache the
workspace is non-torch growth in both the printed reservation and the final pool."""

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from tpkit.hardware.gpu import GpuSpec

from dataclasses import replace

from vllm_fixtures import A100, GivenWeights, llama3_8b
from vllm_fixtures import H200 as _H200

# the workspace needs multicast, i.e. an NVSwitch board (helper v17): the boards of these tests are NVLink-meshed
H200 = replace(_H200, nvlink_gbps_per_direction=450.0)
B300 = GpuSpec(name="B300", total_bytes=Bytes(287_429_948_867), total_source="test", compute_capability=(10, 3),
               nvlink_gbps_per_direction=900.0)
B200 = GpuSpec(name="B200", total_bytes=Bytes(191_514_689_536), total_source="test", compute_capability=(10, 0),
               nvlink_gbps_per_direction=900.0)
MC = 512 * 2**20

W = GivenWeights(Bytes(8_030_261_248 * 2 // 2))
ITEM = "FlashInfer all-reduce fusion workspace"


def _plan(version="0.19.1", gpu=H200, tp=2, **kw):
    return plan_vllm(llama3_8b(), gpu, ParallelSpec(tp=tp), VllmOptions(engine_version=version, **kw), weights=W)


def _line(plan):
    return next((l for l in plan.ledger.items if l.item == ITEM), None)


def test_tp2_sm100_compiled_charges_the_workspace():
    # H 4,096, bf16: T = min(64 MiB // (4,096 × 2), batched tokens) = 8,192;
    # 2 × 8,192 × 4,096 × 2 = 128 MiB, flags 8 KiB, Lamport 3 × 128 = 384 MiB; each + 2 KiB signal pad, rounded
    # up to 2 MiB (flashinfer mnnvl.py SymmDeviceMemory): 130 + 2 + 386 MiB (SM 10.0: no multicast rounding known)
    line = _line(_plan(gpu=B200, max_num_batched_tokens=8192))
    assert line is not None and line.bytes == Bytes((130 + 2 + 386) * 2**20)
    assert "trtllm_create_ipc_workspace_for_all_reduce_fusion" in line.source
    assert "multicast granularity not known" in line.source


def test_tp2_hopper_rounds_each_buffer_to_the_multicast_granularity():
    # the same three buffers on SM 9.0: 130, 2 and 386 MiB each round up to 512 MiB (helper c715b)
    line = _line(_plan())
    assert line is not None and line.bytes == Bytes(3 * MC)
    assert "512 MiB multicast granularity" in line.source


def test_tp4_uses_the_2_mib_limit():
    # T = 2 MiB // 8,192 B = 256 tokens: 4 × 256 × 4,096 × 2 = 8 MiB, flags, Lamport 24 MiB (+ pad, 2 MiB rounding)
    # on SM 10.0 (32 MiB there: T 4,096), and on SM 9.0 the token count in the source, each buffer one granule
    assert _line(_plan(tp=4)).bytes == Bytes(3 * MC)
    assert ") = 256;" in _line(_plan(tp=4)).source


def test_the_workspace_lowers_the_kv_budget_by_its_size():
    on, eager = _plan(), _plan(enforce_eager=True)
    assert _line(eager) is None
    assert on.extra["available_kv_bytes"] < eager.extra["available_kv_bytes"]


def test_no_workspace_without_the_pass():
    assert _line(_plan(enforce_eager=True)) is None  # CompilationMode.NONE: no Inductor pass
    assert _line(_plan(optimization_level=1)) is None  # O1: fuse_allreduce_rms False
    assert _line(_plan(optimization_level=0)) is None
    assert _line(_plan(gpu=A100)) is None  # SM 8.0: enable_allreduce_rms_fusion False
    assert _line(_plan(tp=1)) is None


def test_only_the_releases_read():
    for v in ("0.17.0", "0.17.1", "0.18.0", "0.18.1", "0.19.0", "0.20.0", "0.20.2", "0.21.0", "0.21.1"):
        assert _line(_plan(version=v)) is not None, v
    # 0.16: no -O2 fusion default; 0.22-0.25: torch symmetric memory / a separate trtllm quant workspace, not
    # charged; 0.26-0.33: the mnnvl workspace (helper v17)
    for v in ("0.16.0", "0.22.0", "0.24.0", "0.25.0", "0.25.1"):
        assert _line(_plan(version=v)) is None, v
    for v in ("0.26.0", "0.29.0", "0.30.0", "0.33.0"):
        assert "mnnvl workspace" in _line(_plan(version=v)).source, v


def test_tp8_hopper_uses_the_pass_table_half_mib():
    # FI_ALLREDUCE_FUSION_MAX_SIZE_MB[90][8] = 0.5: T = 524,288 // 8,192 = 64; 8 × 64 × 4,096 × 2 = 4 MiB → 6 MiB,
    # flags 2 MiB, Lamport 12 MiB → 14 MiB (1 MiB would give T 128 and 10 + 2 + 26 = 38 MiB)
    assert ") = 64;" in _line(_plan(tp=8)).source and _line(_plan(tp=8)).bytes == Bytes(3 * MC)


def test_dp_gate_dropped_in_0_21():
    def plan_dp(version):
        return plan_vllm(llama3_8b(), H200, ParallelSpec(tp=2, dp=2), VllmOptions(engine_version=version), weights=W)
    assert _line(plan_dp("0.20.2")) is None  # enable_allreduce_rms_fusion: data_parallel_size == 1
    assert _line(plan_dp("0.21.0")) is not None  # the gate is gone


def test_sm103_from_0_19():
    # 0.18: is_device_capability(100) (10.0 only); 0.19: the 10.x family, and the table gains 103 (tp 2: 64 MiB)
    assert _line(_plan(version="0.18.1", gpu=B300)) is None
    assert _line(_plan(version="0.19.0", gpu=B300)) is not None


def test_no_workspace_without_nvswitch():
    # flashinfer SymmDeviceMemory raises "Device does not support multicasting" (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
    # 0: PCIe boards, NVLink bridge pairs), vLLM 0.17-0.21 catch it and build none (helper v17)
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.startup.links import link_choice

    for name in ("H100-PCIe-80GB", "H100-NVL-94GB"):  # no NVLink mesh in the catalog (a bridge at most)
        for v in ("0.17.0", "0.18.1", "0.19.1", "0.21.0"):
            assert _line(_plan(version=v, gpu=lookup_gpu(name))) is None, (name, v)
    sxm = lookup_gpu("H100-SXM-80GB")  # the HGX board: an NVSwitch mesh
    assert _line(_plan(gpu=sxm)).bytes == Bytes(3 * MC)
    pcie = link_choice(link="pcie", no_p2p=False, nnodes=None, num_gpus=2)
    assert _line(_plan(gpu=sxm, links=pcie)) is None  # --link pcie
    nop2p = link_choice(link=None, no_p2p=True, nnodes=None, num_gpus=2)
    assert _line(_plan(gpu=sxm, links=nop2p)) is None  # --no-p2p: NCCL's NVLink transport needs peer access
    nvl = link_choice(link="nvlink", no_p2p=False, nnodes=None, num_gpus=2)
    assert _line(_plan(gpu=sxm, links=nvl)).bytes == Bytes(3 * MC)
    # the budget moves by the workspace: the SXM plan keeps 1.5 GiB less for the KV cache than the same GPU over PCIe
    assert (_plan(gpu=sxm, links=pcie).extra["available_kv_bytes"] - _plan(gpu=sxm).extra["available_kv_bytes"]
            >= 3 * MC - 2**20)


def test_mnnvl_workspace_from_0_26():
    # flashinfer trtllm_mnnvl_ar.py MNNVLAllReduceFusionWorkspace: H 4,096, tp 2, T = min(64 MiB // 8,192, 8,192) =
    # 8,192; one-shot min(1 MiB // (2 × 2 × 4,096) = 64, T) × 4,096 × 2 × 2 = 1 MiB, two-shot 2 × 4,096 × 2 × 4,096
    # × 2 = 128 MiB; 3 × 128 MiB in ONE SymmDeviceMemory: + 2 KiB pad → 386 MiB (SM 10.0), 512 MiB on SM 9.0
    b200 = _line(_plan(version="0.30.0", gpu=B200, max_num_batched_tokens=8192))
    assert b200.bytes == Bytes(386 * 2**20) and "McastGPUBuffer" in b200.source
    assert _line(_plan(version="0.26.0", gpu=B200, max_num_batched_tokens=8192)).bytes == Bytes(386 * 2**20)
    assert _line(_plan(version="0.30.0")).bytes == Bytes(MC)  # one granule, not three as 0.17-0.21's trtllm
    # the token cap: 2,048 batched tokens → two-shot 2 × 1,024 × 2 × 4,096 × 2 = 32 MiB, × 3 + pad → 98 MiB
    assert _line(_plan(version="0.30.0", gpu=B200, max_num_batched_tokens=2048)).bytes == Bytes(98 * 2**20)
    # gates as before: eager, -O1, tp 1, SM 8.0, no NVSwitch
    assert _line(_plan(version="0.30.0", enforce_eager=True)) is None
    assert _line(_plan(version="0.30.0", optimization_level=1)) is None
    assert _line(_plan(version="0.30.0", tp=1)) is None
    assert _line(_plan(version="0.30.0", gpu=A100)) is None
    from tpkit.hardware.catalog import lookup_gpu
    assert _line(_plan(version="0.30.0", gpu=lookup_gpu("H100-PCIe-80GB"))) is None


def test_sm103_tp8_table_from_0_29():
    # FI_ALLREDUCE_FUSION_MAX_SIZE_MB[103][8]: 2 MiB up to 0.28, 4 MiB from 0.29 (T 256 → 512 at H 4,096)
    assert ") = 256;" in _line(_plan(version="0.28.0", gpu=B300, tp=8)).source
    assert ") = 512;" in _line(_plan(version="0.29.0", gpu=B300, tp=8)).source


def test_0_34_keeps_the_mnnvl_workspace_and_charges_it_as_non_torch_growth(monkeypatch):
    # helper cur17b: vLLM 0.34.0's pass, gates, table and _resolve_fi_ar_backend (auto -> mnnvl on one node) are those
    # of 0.33.0; flashinfer 0.7.2.post1 / 0.7.4 size the mnnvl workspace alike.  Under the extensible KV cache it is
    # resident at measure_kv_cache_blocks' free-memory read (non_kv_used), so it is non-torch growth: the final pool
    # and the printed reservation both lose its 512 MiB (one multicast buffer on SM 9.0), the margin does not move.
    from tpkit.engines.vllm import fi_allreduce

    for v in ("0.33.0", "0.34.0"):
        assert _line(_plan(version=v)).bytes == Bytes(MC), v
    on = _plan(version="0.34.0")
    assert "0.26.0–0.34.x" in _line(on).source
    monkeypatch.setattr(fi_allreduce, "FI_AR_MNNVL_RELEASES", ((0, 26, 0), (0, 34, 0)))  # the rule before cur17b
    off = _plan(version="0.34.0")
    assert _line(off) is None and _line(_plan(version="0.33.0")) is not None
    assert off.extra["available_kv_bytes"] - on.extra["available_kv_bytes"] == MC
    margin = [l.bytes for p in (on, off) for l in p.ledger.items if l.item == "extensible KV cache margin"]
    assert len(margin) in (0, 2) and len(set(margin)) <= 1


def test_0_34_printed_reservation_loses_the_workspace_too(monkeypatch):
    # determine_available_memory's profile_run compiles inside memory_profiling: the "Available KV cache memory" a 0.34
    # run prints (the reservation, budget.extensible_reservation) counts the workspace as non-torch growth as well
    from tpkit.engines.vllm import fi_allreduce

    def printed(plan):
        line = next(l for l in plan.engine_log if "Available KV cache memory" in l)
        return float(line.split("Available KV cache memory: ")[1].split(" GiB")[0])

    on = _plan(version="0.34.0")
    monkeypatch.setattr(fi_allreduce, "FI_AR_MNNVL_RELEASES", ((0, 26, 0), (0, 34, 0)))
    off = _plan(version="0.34.0")
    assert abs((printed(off) - printed(on)) - 0.5) < 0.011
