"""DeepGEMM's cuBLASLt workspace after SGLang's pre sample (engines.sglang.streams.deepgemm_workspace; helper cap33, docs/accuracy.md §7).

0.5.13 / 0.5.14 call ``deep_gemm.set_pdl`` only when their pinned sgl-deep-gemm (0.1.2 / 0.1.3) binds it, which it
does not; 0.5.15 pins 0.1.4, which does: the boundary is tested on both sides, and the GPU condition
(``configurer._compute_enable_deep_gemm``: CUDA, compute capability ≥ 9.0, not 12.0) on each side of each edge."""

from __future__ import annotations

from tpkit.engines.sglang.streams import DEEPGEMM_FIRST, WORKSPACE_BYTES, deepgemm_workspace, takes_deepgemm
from tpkit.explain import explain_log
from tpkit.hardware.catalog import lookup_gpu
from tpkit.units import Bytes, MiB


def test_workspace_is_deepgemms_32_mib_constant():
    assert WORKSPACE_BYTES == MiB(32) and DEEPGEMM_FIRST == "0.5.15"


def test_release_boundary_both_sides():
    h100 = (9, 0)
    for before in ("0.5.12", "0.5.13", "0.5.14"):
        assert deepgemm_workspace(before, compute_capability=h100, vendor="NVIDIA") == Bytes(0)
    for after in ("0.5.15", "0.5.16", "0.5.18", "0.5.23"):
        assert deepgemm_workspace(after, compute_capability=h100, vendor="NVIDIA") == MiB(32)


def test_gpu_condition_each_edge():
    assert takes_deepgemm((8, 9), "NVIDIA") is False      # RTX 4090, L40S: below SM90
    assert takes_deepgemm((9, 0), "NVIDIA") is True       # H100 / H200
    assert takes_deepgemm((10, 0), "NVIDIA") is True      # B200
    assert takes_deepgemm((12, 0), "NVIDIA") is False     # RTX 5090 / RTX PRO 6000: SM120 excluded
    assert takes_deepgemm((12, 1), "NVIDIA") is True      # GB10: only 12.0 is excluded by the source
    assert takes_deepgemm(None, "AMD") is False           # not CUDA
    assert takes_deepgemm(None, "NVIDIA") is None         # not known
    assert deepgemm_workspace("0.5.15", compute_capability=(8, 9), vendor="NVIDIA") == Bytes(0)
    assert deepgemm_workspace("0.5.15", compute_capability=(12, 0), vendor="NVIDIA") == Bytes(0)
    assert deepgemm_workspace("0.5.15", compute_capability=None, vendor="AMD") == Bytes(0)


_LOG = """\
[2026-07-23 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, mem_fraction_static=0.85, page_size=1)
[2026-07-23 10:00:01 TP0] Init torch distributed begin.
[2026-07-23 10:00:02 TP0] Init torch distributed ends. mem usage=1.16 GB
[2026-07-23 10:00:03 TP0] Load weight begin. avail mem=176.54 GB
[2026-07-23 10:00:09 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=168.90 GB, mem usage=7.65 GB.
"""


def _explained(version: str, gpu: str):
    return explain_log(_LOG, flags={"model": "Qwen/Qwen3-8B", "engine_version": version, "gpu": gpu, "tp": 2})


def test_explain_charges_the_workspace_from_0_5_15_at_tp_2():
    old, new = _explained("0.5.14", "B200"), _explained("0.5.15", "B200")
    item = "DeepGEMM's cuBLASLt workspace (after the pre sample)"
    assert not any(r.item == item for r in old.anchored.rows)
    row = next(r for r in new.anchored.rows if r.item == item)
    assert row.value.low == row.value.high == MiB(32)
    # slack = (1 − f) × ('Load weight begin' + the workspace): the budget is 0.15 × 32 MiB smaller (tp 2: no pool)
    shift = old.anchored.rest.mid.bytes - new.anchored.rest.mid.bytes
    assert abs(shift - 0.15 * 32 * 2**20) <= 1


def test_no_workspace_on_sm120_or_sm89():
    from tpkit.explain.context import Context
    from tpkit.explain.sgrelease import deepgemm_workspace_for

    for gpu in ("RTX-PRO-6000", "RTX-5090", "RTX-4090", "L40S"):
        ctx = Context(engine="sglang", version="0.5.18", values={}, sources={}, model=None, model_source="",
                      gpu=lookup_gpu(gpu), gpu_source="", contradictions=(), notes=())
        assert deepgemm_workspace_for(ctx, 1, 1) == (None, ""), gpu


def test_versions_straddling_0_5_15_or_an_unknown_card_give_zero_to_the_workspace():
    from tpkit.explain.context import Context
    from tpkit.explain.sgrelease import deepgemm_workspace_for

    def ctx(version, gpu):
        return Context(engine="sglang", version=version, values={}, sources={}, model=None, model_source="",
                       gpu=gpu, gpu_source="", contradictions=(), notes=())

    iv, why = deepgemm_workspace_for(ctx("0.5.14–0.5.20", lookup_gpu("H100-SXM-80GB")), 1, 1)
    assert iv.low == Bytes(0) and iv.high == MiB(32) and "0 before 0.5.15" in why
    iv, why = deepgemm_workspace_for(ctx("0.5.15", lookup_gpu("B200")), 4, 1)
    assert iv.low == iv.high == MiB(32)
    iv, why = deepgemm_workspace_for(ctx("0.5.15", None), 1, 1)
    assert iv.low == Bytes(0) and iv.high == MiB(32) and "compute capability not known" in why
    assert deepgemm_workspace_for(ctx("0.5.13", lookup_gpu("B200")), 1, 1) == (None, "")
    assert deepgemm_workspace_for(ctx("0.5.15", lookup_gpu("MI300X")), 8, 1) == (None, "")
