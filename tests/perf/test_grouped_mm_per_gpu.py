"""torch._grouped_mm's expert-GEMM terms per GPU (helper moe17, 2026-12-05, session 17; docs/benchmarks.md §3.9).

The reference layout's expert GEMMs were charged the H200's 0.70 of the copy rate on every GPU; the H100 run of
session 15 measured its own grouped_mm (0.94).  A GPU with a micro-benchmark gets its own line, any other the H200
default with the band of the GPUs measured.  The constants are checked against the run files they come from.
"""

import json
from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.perf.constants import C, GROUPED_MM_BY_GPU, grouped_mm_terms
from tpkit.perf.device import device_rates
from tpkit.perf.forward import kernel_us
from tpkit.perf.impl import impl_profile
from tpkit.perf.kernels import Kernel

RUNS = Path(__file__).resolve().parents[2] / "docs" / "runs"
W13_BYTES = 2 * 768 * 2048 * 2          # one Qwen3-30B-A3B expert's gate_up, bf16


def _line(run: str) -> tuple[float, float]:
    """(efficiency vs the run's copy rate, intercept µs) through the run's 8- and 128-expert grouped_mm timings."""
    micro = json.loads((RUNS / run).read_text())["micro"]
    t8, t128 = micro["grouped_mm"]["8experts_x1"]["us"], micro["grouped_mm"]["128experts_x1"]["us"]
    rate = 120 * W13_BYTES / ((t128 - t8) / 1e6)
    return rate / micro["copy_bytes_per_s_read_plus_write"], t8 - 8 * W13_BYTES / rate * 1e6


def test_the_h100_gets_its_own_measured_line():
    terms = grouped_mm_terms("H100-SXM-80GB")
    assert (terms.efficiency, terms.overhead_us, terms.measured, terms.measured_on) == (0.94, 12.6, True,
                                                                                        "H100-SXM-80GB")
    assert "decode_h100_moe_2026-12-05.json" in terms.source
    assert device_rates(lookup_gpu("H100")).grouped_mm == terms


def test_a_gpu_without_a_microbenchmark_gets_the_h200_value_with_the_band():
    for name in ("B200", "A100-SXM-80GB", "H100-PCIe-80GB", "MI300X"):
        gpu = lookup_gpu(name)
        terms = device_rates(gpu).grouped_mm
        assert (terms.efficiency, terms.overhead_us) == (C["grouped_gemm_efficiency"].value,
                                                         C["grouped_gemm_overhead_us"].value), name
        assert not terms.measured and terms.measured_on == "H200-SXM-141GB"
        assert terms.band == (0.70, 0.94)
        assert f"assumed for {gpu.name}" in terms.source and "band 0.70–0.94" in terms.source
    h200 = grouped_mm_terms("H200-SXM-141GB")
    assert h200.measured and (h200.efficiency, h200.overhead_us) == (0.70, 11.6)


@pytest.mark.parametrize("run, gpu", [("decode_h200_2026-12-01.json", "H200-SXM-141GB"),
                                      ("decode_h100_moe_2026-12-05.json", "H100-SXM-80GB"),
                                      ("decode_h100_dense_2026-12-05.json", "H100-SXM-80GB")])
def test_each_constant_is_the_line_through_its_run(run, gpu):
    eff, fixed = _line(run)
    own_eff, own_fixed = GROUPED_MM_BY_GPU[gpu]
    assert own_eff.value == pytest.approx(eff, abs=0.005) and own_fixed.value == pytest.approx(fixed, abs=0.25)


def test_reference_layout_prices_experts_per_gpu_and_engines_do_not_move():
    k = Kernel(kind="grouped", name="experts", bytes=128 * W13_BYTES, flops=0.0, dtype="bf16")
    h100, b200 = device_rates(lookup_gpu("H100")), device_rates(lookup_gpu("B200"))
    ref = impl_profile("reference")
    assert kernel_us(k, h100, ref) == pytest.approx(128 * W13_BYTES / (h100.hbm_bytes_per_s * 0.94) * 1e6 + 12.6)
    assert kernel_us(k, b200, ref) == pytest.approx(128 * W13_BYTES / (b200.hbm_bytes_per_s * 0.70) * 1e6 + 11.6)
    assert kernel_us(k, h100) == kernel_us(k, h100, ref)              # no layout: torch's, per GPU
    sglang = impl_profile("sglang")                                    # engine fused_moe: unchanged, not per GPU
    assert kernel_us(k, h100, sglang) == pytest.approx(
        128 * W13_BYTES / (h100.hbm_bytes_per_s * C["engine_moe_efficiency"].value) * 1e6
        + C["gemm_overhead_us"].value)


def test_perf_says_which_line_it_used():
    from tpkit.models import load_model
    from tpkit.perf import PerfRequest, plan_perf

    qwen = load_model("Qwen/Qwen3-30B-A3B")

    def notes(gpu, impl):
        r = plan_perf(PerfRequest(model=qwen, gpu=lookup_gpu(gpu), batch=8, context=2048, engine="sglang", impl=impl))
        return [a for a in r.assumptions if "torch._grouped_mm" in a]

    assert notes("H100", "reference") == ["expert GEMMs (torch._grouped_mm): 0.94 of the copy rate + 12.6 µs a "
                                          "launch, measured on H100-SXM-80GB"]
    (b200,) = notes("B200", "reference")
    assert "assumed for B200 (band 0.70–0.94" in b200
    assert notes("H100", None) == []                  # SGLang's fused_moe: not torch's grouped GEMM
