"""GPU rate facts added for tpkit perf: present where the research catalog has them, each with a source."""

from tpkit.hardware.catalog import list_gpus, lookup_gpu


def test_every_rate_has_a_source():
    for gpu in list_gpus():
        for field in ("memory_bandwidth_tbps", "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops",
                      "int8_dense_tops"):
            if getattr(gpu, field) is not None:
                assert gpu.source_of(field) != "not recorded", (gpu.name, field)
        if gpu.pcie_generation:
            assert gpu.source_of("pcie") != "not recorded", gpu.name


def test_known_values():
    h200 = lookup_gpu("H200")
    assert (h200.memory_bandwidth_tbps, h200.bf16_dense_tflops, h200.fp8_dense_tflops) == (4.8, 989.4, 1978.9)
    assert (h200.pcie_generation, h200.pcie_lanes, h200.nvlink_gbps_per_direction) == (5, 16, 450.0)
    pro = lookup_gpu("RTX-PRO-6000")
    assert pro.fp4_dense_tflops == 2000.0 and "sparse" in pro.source_of("fp4_dense_tflops")
    assert pro.nvlink_gbps_per_direction is None and pro.dense_tflops("fp8") == 1007.6
    assert lookup_gpu("A100-40GB").fp8_dense_tflops is None and lookup_gpu("A100-40GB").int8_dense_tops == 624.0
