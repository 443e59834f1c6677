"""Catalog facts left null by session 26 (helper tidy27, session 27): SM counts and bf16 rates with their sources
(scripts/gpu_catalog_added.py, scripts/gpu_catalog_cat23.py, scripts/build_gpu_catalog.py ``SM_COUNTS``; every value
names its public print or vendor table).  The bf16 rates no vendor table gives stay None, and ``tpkit perf`` names
the missing fact instead of assuming one.  Each value test fails on main f2af02a5 (None there)."""

from __future__ import annotations

import pytest
from clirun import cli

from tpkit.hardware.catalog import lookup_gpu

SMS = {"GB200": 152, "B300": 148, "A10G": 80, "L20": 92, "RTX-3080-12GB": 70, "RTX-4080-SUPER": 80,
       "RTX-5070-Ti": 70, "GB10": 48, "MI250": 104, "MI210": 104}


@pytest.mark.parametrize("name, sms", sorted(SMS.items()))
def test_sm_counts_are_filled_with_a_source(name, sms):
    gpu = lookup_gpu(name)
    assert gpu.sm_count == sms
    assert "tidy27" in gpu.source_of("sm_count") and str(sms) in gpu.source_of("sm_count")


def test_cdna2_bf16_rates_per_gcd():
    assert lookup_gpu("MI210").bf16_dense_tflops == 181.0
    assert lookup_gpu("MI250").bf16_dense_tflops == 181.05  # 362.1 per two-GCD module, as MI250X's 383 / 2
    assert lookup_gpu("MI250X").bf16_dense_tflops == 191.5


@pytest.mark.parametrize("name", ["L20", "A10G", "RTX-3080-12GB", "RTX-4080-SUPER", "RTX-5070-Ti", "GB10"])
def test_perf_names_the_missing_rate(capsys, name):
    assert lookup_gpu(name).bf16_dense_tflops is None
    code, out, err = cli(capsys, "perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", name, "--engine", "vllm")
    assert code == 2 and not out and "Traceback" not in err
    assert "has no dense bf16 tensor rate (TFLOP/s, catalog field bf16_dense_tflops)" in err
    assert lookup_gpu(name).source_of("bf16_dense_tflops").startswith("None: ")  # the reason, in the message
