"""GB300 in the catalog (helper pl37, 2026-12-07, session 37): a Blackwell Ultra GPU of the GB300 NVL72, with the
torch total a public OOM prints (276.50 GiB), sm_103 and 148 SMs as public GB300 kernel notes print, and the
vendor's per-GPU rates (its rack table / 72)."""

from __future__ import annotations

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.logs.gpu_names import gpu_in


@pytest.mark.parametrize("name", ["GB300", "gb300", "NVIDIA GB300", "NVIDIA GB300 NVL", "GB300-NVL72"])
def test_spellings_resolve_to_gb300(name):
    assert lookup_gpu(name).name == "GB300"


def test_neighbours_keep_their_names():
    assert lookup_gpu("B300").name == "B300" and lookup_gpu("GB200").name == "GB200"
    assert gpu_in("torch.OutOfMemoryError ... NVIDIA GB300")[1] == "GB300"
    assert gpu_in("NVIDIA B300 SXM6 AC")[1] == "B300"


def test_gb300_facts():
    g = lookup_gpu("GB300")
    assert round(int(g.total_bytes) / 2**30, 2) == 276.50  # "a total capacity of 276.50 GiB"
    assert g.compute_capability == (10, 3) and g.sm_count == 148
    assert g.bf16_dense_tflops == 2500.0 and g.fp8_dense_tflops == 5000.0 and g.fp4_dense_tflops == 15000.0
    assert g.memory_bandwidth_tbps == 8.0 and g.nvlink_gbps_per_direction == 900.0
    assert g.total_bytes > lookup_gpu("B300").total_bytes > lookup_gpu("GB200").total_bytes


def test_every_rate_names_a_source_url():
    src = dict(lookup_gpu("GB300").sources)
    for key in ("memory_bandwidth_tbps", "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops"):
        assert "https://www.nvidia.com/en-us/data-center/gb300-nvl72/" in src[key]
