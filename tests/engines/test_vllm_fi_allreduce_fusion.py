"""The FlashInfer all-reduce + RMSNorm fusion workspace (helper c715; engines/vllm/baseline.py
``fi_allreduce_fusion_workspace``): vLLM 0.18.1–0.19.1 with torch.compile on, tp 2/4/8 on SM 9.0 / 10.0, dp 1, pp 1
cudaMalloc three buffers outside torch when the AllReduceFusionPass is built (config/vllm.py OPTIMIZATION_LEVEL_02
``enable_allreduce_rms_fusion``; flashinfer 0.6.6 comm/trtllm_ar.py), which the profile window charges as non-torch
memory.  Both sides: eager, -O1, an A100, tp 1, other releases, and the size at tp 2 and tp 4."""

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import A100, H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2 // 2))
ITEM = "FlashInfer all-reduce fusion workspace"


def _plan(version="0.19.1", gpu=H200, tp=2, **kw):
    return plan_vllm(llama3_8b(), gpu, ParallelSpec(tp=tp), VllmOptions(engine_version=version, **kw), weights=W)


def _line(plan):
    return next((l for l in plan.ledger.items if l.item == ITEM), None)


def test_tp2_hopper_compiled_charges_the_workspace():
    # H 4,096, bf16: T = min(64 MiB // (4,096 × 2), 8,192 batched tokens on H200) = 8,192;
    # 2 × 8,192 × 4,096 × 2 = 128 MiB, flags 2 MiB (rounded), Lamport 3 × 128 = 384 MiB
    line = _line(_plan())
    assert line is not None and line.bytes == Bytes((128 + 2 + 384) * 2**20)
    assert "trtllm_create_ipc_workspace_for_all_reduce_fusion" in line.source


def test_tp4_hopper_uses_the_2_mib_limit():
    # T = 2 MiB // 8,192 B = 256 tokens: 4 × 256 × 4,096 × 2 = 8 MiB, flags 2 MiB, Lamport 24 MiB
    assert _line(_plan(tp=4)).bytes == Bytes((8 + 2 + 24) * 2**20)


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
    assert _line(_plan(version="0.18.1")) is not None and _line(_plan(version="0.19.0")) is not None
    assert _line(_plan(version="0.18.0")) is None and _line(_plan(version="0.20.0")) is None
