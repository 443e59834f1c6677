"""Per-GPU achievable HBM fraction (helper amdbw, 2026-12-04): catalog facts, their sources, and their use in perf.

Pure layer: catalog + ``tpkit.perf.device`` only (no torch).
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.hardware.catalog import list_gpus, lookup_gpu
from tpkit.perf.constants import C
from tpkit.perf.device import device_rates

ROOT = Path(__file__).resolve().parents[2]


def test_catalog_facts_pinned():
    mi300x, mi325x = lookup_gpu("MI300X"), lookup_gpu("MI325X")
    assert (mi300x.hbm_efficiency, mi300x.hbm_efficiency_band) == (0.83, (0.80, 0.87))
    assert (mi325x.hbm_efficiency, mi325x.hbm_efficiency_band) == (0.80, (0.77, 0.84))
    # sources name the public harnesses the figures come from
    assert "BabelStream" in mi300x.source_of("hbm_efficiency")
    assert "RRZE-HPC/gpu-benches" in mi300x.source_of("hbm_efficiency")
    assert "4,287.31" in mi325x.source_of("hbm_efficiency")


def test_no_fact_where_no_microbenchmark():
    # MI355X: no public measurement found; H200: its 0.89 is the measured constant, not a catalog fact
    for name in ("MI355X", "H200", "H100", "RTX-PRO-6000"):
        gpu = lookup_gpu(name)
        assert gpu.hbm_efficiency is None and gpu.hbm_efficiency_band is None, name


def test_every_fact_has_a_source_and_a_band_around_it():
    for gpu in list_gpus():
        if gpu.hbm_efficiency is None:
            continue
        low, high = gpu.hbm_efficiency_band
        assert 0 < low <= gpu.hbm_efficiency <= high < 1, gpu.name
        assert gpu.source_of("hbm_efficiency") != "not recorded", gpu.name


def test_perf_uses_the_fact():
    for name, eff in (("MI300X", 0.83), ("MI325X", 0.80)):
        gpu = lookup_gpu(name)
        rates = device_rates(gpu)
        assert rates.hbm_bytes_per_s == pytest.approx(eff * gpu.memory_bandwidth_tbps * 1e12)
        assert f"{eff} achievable fraction on {name}" in rates.notes[0]
        assert "GEMM efficiency was measured on H200" in rates.notes[-1]


def test_perf_keeps_the_h200_constant_elsewhere():
    assert C["hbm_efficiency"].value == 0.890
    for name in ("H200", "MI355X", "H100"):
        gpu = lookup_gpu(name)
        rates = device_rates(gpu)
        assert rates.hbm_bytes_per_s == pytest.approx(0.890 * gpu.memory_bandwidth_tbps * 1e12)
        assert "0.89 measured copy efficiency" in rates.notes[0]


def test_both_sides_of_the_fact():
    # the same GPU without the fact falls back to the H200 constant: the fact alone moves the bandwidth
    gpu = lookup_gpu("MI300X")
    bare = replace(gpu, hbm_efficiency=None, hbm_efficiency_band=None)
    assert device_rates(bare).hbm_bytes_per_s == pytest.approx(0.89 * 5.3e12)
    assert device_rates(gpu).hbm_bytes_per_s == pytest.approx(0.83 * 5.3e12)


def test_packaged_json_matches_the_builder_table():
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from gpu_hbm import HBM_EFFICIENCY

    entries = {e["name"]: e for e in json.loads((ROOT / "src/tpkit/hardware/data/gpus.json").read_text())["gpus"]}
    for name, (value, band, source) in HBM_EFFICIENCY.items():
        assert entries[name]["hbm_efficiency"] == value
        assert tuple(entries[name]["hbm_efficiency_band"]) == band
        assert entries[name]["sources"]["hbm_efficiency"] == source
