"""The K-latency floor of small-M GEMMs (helper pbw, 2026-12-04): pure layer, no torch.

A weight-streaming GEMM of ≤ 16 tokens takes at least gemm_overhead_us + min(K, cap) × gemv_k_latency_ns,
measured on one H200 (bench/gemv_small_m.py, docs/runs/gemv_small_m_h200_2026-12-04.json).
"""

import json
from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf.constants import C
from tpkit.perf.device import device_rates
from tpkit.perf.forward import gemv_floor_us, kernel_us
from tpkit.perf.impl import impl_profile
from tpkit.perf.spec import SpecSettings, extra_draft_kernels
from tpkit.perf.kernels import GEMV_MAX_TOKENS, Batch, Kernel, Shard
from tpkit.perf.work import forward_kernels

ROOT = Path(__file__).resolve().parents[2]
SWEEP = json.loads((ROOT / "docs" / "runs" / "gemv_small_m_h200_2026-12-04.json").read_text())
CALIB = json.loads((ROOT / "docs" / "runs" / "gemv_calib_h200_2026-12-04.json").read_text())
H200 = device_rates(lookup_gpu("H200"))


def _gemm(n, k, m, *, floor=True):
    return Kernel(kind="gemm", name="w", bytes=2.0 * n * k + 2.0 * m * (n + k), flops=2.0 * m * n * k,
                  latency_k=k if floor and m <= GEMV_MAX_TOKENS else 0)


def test_floor_grows_with_k_up_to_the_cap():
    o, ns = C["gemm_overhead_us"].value, C["gemv_k_latency_ns"].value
    assert gemv_floor_us(0) == pytest.approx(o)
    assert gemv_floor_us(2048) == pytest.approx(o + 2048 * ns / 1e3)
    cap = int(C["gemv_k_latency_cap"].value)
    assert gemv_floor_us(cap) == gemv_floor_us(cap + 1) == gemv_floor_us(7168)
    assert gemv_floor_us(cap - 1) < gemv_floor_us(cap)


def test_small_n_gemv_takes_the_floor_and_a_large_one_its_bytes():
    small = _gemm(256, 2048, 1)
    assert kernel_us(small, H200) == pytest.approx(gemv_floor_us(2048))
    assert kernel_us(small, H200) > kernel_us(_gemm(256, 2048, 1, floor=False), H200)
    big = _gemm(28672, 4096, 1)          # 235 MB: bandwidth-bound, the floor does not bind
    assert kernel_us(big, H200) == pytest.approx(kernel_us(_gemm(28672, 4096, 1, floor=False), H200))


@pytest.mark.parametrize("row", [r for r in SWEEP["rows"] if r["weight_bytes"] <= 8e6 and r["n"] <= r["k"]],
                         ids=lambda r: f"{r['n']}x{r['k']}@{r['m']}")
def test_floor_is_at_or_below_the_measured_small_n_rows_and_near_them(row):
    """Small-N matrices (N ≤ K, ≤ 8 MB): never above the measurement by more than the run's spread (+6 %), and
    within 15 % of it except the shapes cuBLAS runs with too few blocks at M = 1 (1024×2048, 1536×2048)."""
    pred = kernel_us(_gemm(row["n"], row["k"], row["m"]), H200)
    err = pred / row["us_per_gemm"] - 1
    assert err <= 0.07
    if not (row["m"] < 16 and (row["n"], row["k"]) in ((1024, 2048), (1536, 2048))):
        assert err >= -0.15, (row, pred)


def test_calibration_run_matches_the_reference_machine():
    """The second run's eager copy and the reference-style GEMV (one weight repeated) agree with
    decode_reference.py's run within 2 %, so the floor was measured on a comparable H200."""
    assert CALIB["copy_eager_tb_s"] == pytest.approx(4.273, rel=0.02)
    assert CALIB["same"]["28672x4096@1"] == pytest.approx(55.0 + 1.1, rel=0.02)
    for shape in ("256x2048@1", "768x4096@1", "128x7168@1", "2048x256@1"):
        n, k = (int(v) for v in shape.split("@")[0].split("x"))
        assert kernel_us(_gemm(n, k, 1), H200) <= CALIB["distinct"][shape] * 1.07


def test_forward_marks_gemms_up_to_16_tokens_only():
    spec = load_model("Qwen/Qwen3-30B-A3B")
    impl = impl_profile("sglang")

    def gemm_ks(tokens):
        ks = forward_kernels(spec, Shard(tp=4), Batch(sequences=tokens, context=512), impl)
        return [k.latency_k for k in ks if k.kind == "gemm"]

    assert all(k > 0 for k in gemm_ks(GEMV_MAX_TOKENS))
    assert all(k == 0 for k in gemm_ks(GEMV_MAX_TOKENS + 1))
    assert 2048 in gemm_ks(1)                       # hidden 2048: qkv / gate_up / router read K = hidden


def test_layers_with_the_same_shape_still_merge():
    spec = load_model("meta-llama/Llama-3.1-8B-Instruct")
    ks = forward_kernels(spec, Shard(), Batch(sequences=1, context=512), impl_profile("vllm"))
    qkv = [k for k in ks if k.name == "qkv"]
    assert len(qkv) == 1 and qkv[0].count == spec.num_layers and qkv[0].latency_k == spec.hidden_size


def test_draft_fusion_gemm_carries_the_floor_at_small_batch():
    spec = load_model("meta-llama/Llama-3.1-8B-Instruct")
    s = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
    assert extra_draft_kernels(spec, s, 4, 1)[0].latency_k == 3 * spec.hidden_size
    assert extra_draft_kernels(spec, s, 64, 1)[0].latency_k == 0
