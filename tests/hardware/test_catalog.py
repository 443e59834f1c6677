"""GPU catalog: lookups by alias, exact H200 total, the escape hatch for unknown GPUs."""

import json
from importlib import resources
from pathlib import Path

import pytest
from tests.scripts_testlib import load_script

from tpkit.errors import PlanInputError, UnknownGpuError, is_user_error
from tpkit.hardware.catalog import custom_gpu, list_gpus, lookup_gpu, normalise_gpu_name
from tpkit.units import GiB, MiB, Bytes

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name, canonical", [
    ("H100", "H100-SXM-80GB"), ("h100-sxm", "H100-SXM-80GB"), ("H100-80GB", "H100-SXM-80GB"),
    ("NVIDIA H100 80GB HBM3", "H100-SXM-80GB"), ("h100 pcie", "H100-PCIe-80GB"),
    ("RTX-PRO-6000", "RTX-PRO-6000"), ("rtx pro 6000", "RTX-PRO-6000"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000"),
    ("H200", "H200-SXM-141GB"), ("NVIDIA H200", "H200-SXM-141GB"), ("A100-80GB", "A100-SXM-80GB"),
    ("A100_40GB", "A100-SXM-40GB"), ("RTX-3090", "RTX-3090"), ("NVIDIA GeForce RTX 3090", "RTX-3090"),
    ("H20-141GB", "H20-141GB"), ("H20", "H20-96GB"), ("b200", "B200"), ("mi300x", "MI300X"),
])
def test_lookup_accepts_common_names(name, canonical):
    assert lookup_gpu(name).name == canonical


def test_h200_total_is_the_measured_byte_count():
    h200 = lookup_gpu("H200")
    assert h200.total_bytes == Bytes(150_109_880_320)
    assert h200.nvidia_smi_total_mib == 143_771
    assert "measured" in h200.total_source


def test_totals_are_below_nvidia_smi_totals_and_sourced():
    for gpu in list_gpus():
        assert gpu.total_source.strip(), gpu.name
        assert GiB(5) < gpu.total_bytes < GiB(300), gpu.name  # the smallest: RTX 4050 Laptop, 5.60 GiB (bl32b)
        if gpu.nvidia_smi_total_mib:
            reserved = MiB(gpu.nvidia_smi_total_mib) - gpu.total_bytes
            assert Bytes(0) <= reserved < GiB(1.5), (gpu.name, reserved)


def test_validation_gpus_have_their_sources():
    rtx3090 = lookup_gpu("RTX-3090")
    assert abs(rtx3090.total_bytes.gib - 23.54) < 0.005 and rtx3090.nvidia_smi_total_mib == 24576  # tot13
    assert "vllm" in rtx3090.total_source.lower()
    assert lookup_gpu("H20-141GB").total_bytes > lookup_gpu("H20").total_bytes + GiB(40)
    mi355x = lookup_gpu("AMD Instinct MI355X")  # sg_019 / sg_021 (helper npr): the HIP total public OOMs print
    assert mi355x.name == "MI355X" and mi355x.vendor == "AMD" and abs(mi355x.total_bytes.gib - 287.98) < 0.005
    assert "OOM" in mi355x.total_source and "index file ids" in mi355x.total_source


def test_names_and_aliases_are_unique():
    seen = {}
    for gpu in list_gpus():
        for alias in (gpu.name, *gpu.aliases):
            key = normalise_gpu_name(alias)
            assert seen.setdefault(key, gpu.name) == gpu.name, alias


def test_unknown_gpu_lists_close_matches_and_the_escape_hatch():
    with pytest.raises(UnknownGpuError) as info:
        lookup_gpu("H300")
    text = str(info.value)
    assert "'H300'" in text and "H200-SXM-141GB" in text and "--gpu-memory" in text
    assert is_user_error(info.value)


@pytest.mark.parametrize("bad", ["", "   ", None])
def test_empty_names_are_user_errors(bad):
    with pytest.raises(UnknownGpuError):
        lookup_gpu(bad)


def test_custom_gpu_from_gpu_memory_flag():
    gpu = custom_gpu(GiB(96), name="my-gpu")
    assert gpu.total_bytes == GiB(96) and gpu.name == "my-gpu" and "96.00 GiB" in gpu.total_source
    with pytest.raises(PlanInputError, match="> 0"):
        custom_gpu(Bytes(0))
    with pytest.raises(TypeError):
        custom_gpu(96)


def test_packaged_data_has_no_unknown_keys():
    raw = json.loads(resources.files("tpkit.hardware").joinpath("data/gpus.json").read_text())
    assert len(raw["gpus"]) == len(list_gpus()) >= 17


def test_h100_nvl_is_its_own_entry():
    """'NVIDIA H100 NVL' (94 GB HBM3, SM90; sglang-play's log prints it, tests/logs/data/sglang/sg_067.log) is not an
    80 GB H100: CUDA reports 93.09–93.11 GiB in public OOM messages; its NVLink bridge pairs two GPUs only, so the
    catalog records no NVLink (no full-mesh assumption), as for the H100 PCIe."""
    from tpkit.hardware.catalog import lookup_gpu

    g = lookup_gpu("NVIDIA H100 NVL")
    assert g.name == "H100-NVL-94GB" and lookup_gpu("H100 NVL") is g
    assert 93.09 <= g.total_bytes.gib <= 93.11 and g.nvidia_smi_total_mib == 95830
    assert g.compute_capability == (9, 0) and g.memory_bandwidth_tbps == 3.9
    assert g.nvlink_gbps_per_direction is None and "bridge" in g.source_of("nvlink")
    assert lookup_gpu("H100").name == "H100-SXM-80GB"


@pytest.mark.parametrize("printed,name,gib", [
    ("Tesla T4", "T4", 14.56), ("NVIDIA A10G", "A10G", 21.98), ("NVIDIA RTX A6000", "RTX-A6000", 47.54),
    ("NVIDIA RTX 6000 Ada Generation", "RTX-6000-Ada", 47.37), ("Tesla V100-SXM2-16GB", "V100-16GB", 15.77),
    ("NVIDIA B300 SXM6 AC", "B300", 267.69), ("NVIDIA GB10", "GB10", 119.63), ("NVIDIA H800", "H800", 79.19),
    ("NVIDIA A800-SXM4-80GB", "A800-SXM-80GB", 79.25), ("NVIDIA A100-PCIE-40GB", "A100-PCIe-40GB", 39.49),
    ("NVIDIA A100 80GB PCIe", "A100-PCIe-80GB", 79.25), ("NVIDIA GeForce RTX 5070 Ti", "RTX-5070-Ti", 15.47),
    ("NVIDIA GeForce RTX 5080", "RTX-5080", 15.47),
])
def test_added_gpus_by_printed_name(printed, name, gib):
    """GPUs added 2026-12-04 (scripts/gpu_catalog_added.py): found by the name nvidia-smi / torch print, with the CUDA
    total their public logs print (2-decimal GiB)."""
    g = lookup_gpu(printed)
    assert g.name == name and round(g.total_bytes.gib, 2) == gib


def test_sibling_totals_are_not_matched_against_logs():
    """A total assumed from a sibling board (L40 = L40S, H800 = H100) or derived from nvidia-smi (H20) is not a
    candidate for a printed total, so it cannot make a printed match ambiguous.  Two printed totals within the
    driver slack of each other stay ambiguous (22.05 GiB: L4 or A10G, whose totals move by ~0.2 GiB with the
    driver)."""
    from tpkit.logs.gpu_names import gpus_with_total
    from tpkit.logs.printed import size_from_text

    assert not lookup_gpu("L40").total_printed and not lookup_gpu("H800").total_printed
    assert lookup_gpu("T4").total_printed and lookup_gpu("L40S").total_printed
    size = lambda x: size_from_text(x, "GiB", meaning="total capacity")  # noqa: E731
    # helper tot13 (2026-12-05): the A40's total is printed now (44.34 GiB), within the driver slack of the L40S's
    # 44.39: a 48 GB print without a name names both (44.53 was L40S-only while the A40 total was derived)
    assert lookup_gpu("A40").total_printed
    assert gpus_with_total(size("44.53")) == ("L40S", "A40")
    assert set(gpus_with_total(size("22.05"))) == {"L4", "A10G"}
    assert gpus_with_total(size("14.56")) == ("T4",)
    # helper t4g4 (2026-12-05): the T4 total is today's drivers' 14.56 GiB; an older driver's 14.74 (1.3 % more,
    # beyond the 0.5 % slack) no longer names it
    assert gpus_with_total(size("14.74")) == ()
    assert set(gpus_with_total(size("21.99"))) == {"L4", "A10G"}


@pytest.mark.parametrize("name,total_bytes,older_gib,evidence", [
    # helper tot13 (2026-12-05): the A100 40GB total of current drivers, printed in bytes by deviceQuery under a
    # CUDA 13.0 driver; driver 535 printed 42298834944 (39.39 GiB), the catalog total until then
    ("A100-SXM-40GB", 42405855232, 39.39, "27357813220"),
    ("A100-PCIe-40GB", 42405855232, 39.39, "27357813220"),
    # the A100 80GB: 79.25 GiB in 2026 vLLM logs (vl_100, vl_179) and OOMs; older drivers 79.15 GiB
    ("A100-SXM-80GB", round(79.25 * 2**30), 79.15, "vl_179"),
    # the L4: 22.03 GiB under driver 580.95.05 (Modal probe) and in vl_861; 22561 MiB free on an idle card bounds
    # it from below; older drivers 22.05 GiB
    ("L4", 22562 * 2**20, 22.05, "71609078484"),
    # the A40: printed 45403 MBytes (47608692736 bytes) by deviceQuery and 44.34 GiB by vLLM; the catalog derived
    # 44.54 GiB from nvidia-smi until then
    ("A40", 47608692736, 44.54, "19543808360"),
    # the RTX 3090: 23.53-23.55 GiB in 2025-2026 prints (vl_453, vl_859, a deviceQuery next to an RTX 5060 Ti);
    # 23.58-23.59 GiB on 2024 drivers
    ("RTX-3090", round(23.54 * 2**30), 23.58, "vl_453"),
])
def test_totals_are_those_current_drivers_print(name, total_bytes, older_gib, evidence):
    """The catalog keeps the CUDA total that today's drivers print, with the print it rests on and the older drivers'
    figure in ``total_source`` (a run on an older driver passes --gpu-memory)."""
    g = lookup_gpu(name)
    assert g.total_bytes.bytes == total_bytes and g.total_printed
    assert evidence in g.total_source and "tot13" in g.total_source and f"{older_gib:.2f} GiB" in g.total_source


def test_gpus_without_a_rate_refuse_perf_with_a_clear_error():
    """T4 and V100 have no BF16 tensor cores; the catalog leaves bf16_dense_tflops None and perf says so."""
    from tpkit.errors import PlanInputError
    from tpkit.perf.device import device_rates

    with pytest.raises(PlanInputError, match="T4"):
        device_rates(lookup_gpu("T4"))


def test_sglang_refuses_gpus_below_sm75():
    """SGLang's load_model raises 'SGLang only supports sm75 and above.' (sglang 0.4.2–0.5.23): V100 (7.0) gets a
    clear planning error, T4 (7.5) plans; vLLM plans both."""
    from tpkit.cli import main

    cfg = str(ROOT / "tests/logs/data/configs/Qwen__Qwen2.5-0.5B-Instruct")
    assert main(["plan", cfg, "--gpu", "V100", "--engine", "sglang"]) == 2
    assert main(["plan", cfg, "--gpu", "T4", "--engine", "sglang"]) == 0
    assert main(["plan", cfg, "--gpu", "V100", "--engine", "vllm"]) == 0


def test_every_current_driver_total_names_a_catalog_gpu_and_is_in_the_catalog():
    """Review q13 (2026-12-05): scripts/build_gpu_catalog.py ``CURRENT_DRIVER_TOTALS`` is keyed by canonical name and
    read with ``.get(name)``, so a misspelt key would be dropped silently; each key must be one of ``NAMES``'
    canonical names and the shipped catalog must hold its total and source (the catalog rebuilt after an edit)."""
    module = load_script("build_gpu_catalog", as_name="build_gpu_catalog_q13")
    canonical = {name for name, _ in module.NAMES.values()}
    assert module.CURRENT_DRIVER_TOTALS and set(module.CURRENT_DRIVER_TOTALS) <= canonical
    for name, (total, source) in module.CURRENT_DRIVER_TOTALS.items():
        gpu = lookup_gpu(name)
        assert gpu.total_bytes == Bytes(total) and gpu.total_source == source, name
