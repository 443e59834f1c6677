"""The GeForce RTX 40 / 50 laptop parts a new user names (helper bl32b, 2026-12-07, session 32; round bl32's lead:
an RTX 4060 Laptop under WSL2 had no catalog entry).  Facts and their sources: scripts/gpu_catalog_laptops.py;
docs/accuracy.md §6.4 round bl32b.  Before: `tpkit plan … --gpu "RTX 4060 Laptop"` said "unknown GPU", and the log
reader left 'NVIDIA GeForce RTX 5080 Laptop GPU' unresolved."""

from __future__ import annotations

import json

import pytest

from tpkit.cli import main
from tpkit.errors import UnknownGpuError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.logs.gpu_names import gpu_in, gpus_with_total
from tpkit.logs.printed import size_from_text
from tpkit.units import MiB

# name, nvidia-smi MiB (printed), Linux total MiB (assumed), SMs, compute capability
LAPTOPS = [
    ("RTX-4050-Laptop", "4050", 6141, 6141 - 402, 20, (8, 9)),
    ("RTX-4060-Laptop", "4060", 8188, 8188 - 402, 24, (8, 9)),
    ("RTX-4070-Laptop", "4070", 8188, 8188 - 402, 36, (8, 9)),
    ("RTX-4080-Laptop", "4080", 12282, 12282 - 402, 58, (8, 9)),
    ("RTX-4090-Laptop", "4090", 16376, 15974, 76, (8, 9)),  # = RTX 4070 Ti SUPER (AD103, 16376 MiB)
    ("RTX-5070-Laptop", "5070", 8151, 8151 - 462, 36, (12, 0)),
    ("RTX-5070-Ti-Laptop", "5070 Ti", 12227, 12227 - 462, 46, (12, 0)),
    ("RTX-5080-Laptop", "5080", 16303, 15841, 60, (12, 0)),  # = desktop RTX 5080 (GB203, 16303 MiB)
]
IDS = [row[0] for row in LAPTOPS]


@pytest.mark.parametrize("canonical, number", [row[:2] for row in LAPTOPS], ids=IDS)
@pytest.mark.parametrize("spelling", ["NVIDIA GeForce RTX {} Laptop GPU", "GeForce RTX {} Laptop GPU",
                                      "RTX {} Laptop GPU", "RTX {} Laptop", "rtx {} laptop", "RTX {} Mobile"])
def test_every_spelling_resolves(canonical, number, spelling):
    assert lookup_gpu(spelling.format(number)).name == canonical
    assert lookup_gpu(canonical.lower()).name == canonical


@pytest.mark.parametrize("canonical, number, smi, linux, sms, cc", LAPTOPS, ids=IDS)
def test_facts_are_the_sourced_ones_and_unknowns_stay_unknown(canonical, number, smi, linux, sms, cc):
    gpu = lookup_gpu(canonical)
    assert gpu.nvidia_smi_total_mib == smi and gpu.total_bytes == MiB(linux)
    assert gpu.sm_count == sms and gpu.compute_capability == cc
    # the totals are assumed (no Linux CUDA print with the laptop name): never matched to a log's printed total
    assert not gpu.total_printed and gpu.total_source.startswith("assumed") and gpu.total_bytes < MiB(smi)
    assert f"{smi} MiB" in gpu.source_of("total_windows") and gpu.source_of("total_linux")
    # no tensor rate was checked; only the RTX 4060 Laptop has a data rate with its name
    assert gpu.bf16_dense_tflops is None and gpu.fp8_dense_tflops is None
    assert (gpu.memory_bandwidth_tbps is None) == (canonical != "RTX-4060-Laptop")
    assert gpu.pcie_p2p is False and "id " in gpu.source_of("sm_count") + gpu.total_source


def test_the_laptop_parts_are_not_their_desktop_namesakes():
    assert lookup_gpu("RTX 4090").name == "RTX-4090" and lookup_gpu("RTX 4090 Laptop").name == "RTX-4090-Laptop"
    assert lookup_gpu("RTX 4090").total_bytes.gib > lookup_gpu("RTX 4090 Laptop").total_bytes.gib + 8
    assert lookup_gpu("RTX 5080").name == "RTX-5080" and lookup_gpu("RTX 5070 Ti").name == "RTX-5070-Ti"
    assert lookup_gpu("RTX 5070 Ti Laptop").name == "RTX-5070-Ti-Laptop"
    assert lookup_gpu("RTX 4060 Ti 8GB").name == "RTX-4060-Ti-8GB"
    with pytest.raises(UnknownGpuError):  # a desktop RTX 4060 is not catalogued: none is guessed
        lookup_gpu("RTX 4060")
    # a printed 15.47 GiB names the desktop RTX 5080 only, never the laptop that is assumed to share it
    found = gpus_with_total(size_from_text("15.47", "GiB", meaning="total capacity (PyTorch OOM)"))
    assert not {name for name in found if name.endswith("Laptop")}, found


@pytest.mark.parametrize("line, printed, canonical", [
    ("GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU (UUID: GPU-0)", "NVIDIA GeForce RTX 4060 Laptop", "RTX-4060-Laptop"),
    ("NVIDIA GeForce RTX 4070 Laptop GPU, 8188 MiB, 617.42", "NVIDIA GeForce RTX 4070 Laptop", "RTX-4070-Laptop"),
    ("NVIDIA GeForce RTX 5080 Laptop GPU", "NVIDIA GeForce RTX 5080 Laptop", "RTX-5080-Laptop"),
    ("NVIDIA GeForce RTX 5070 Ti Laptop GPU, 12227 MiB", "NVIDIA GeForce RTX 5070 Ti Laptop", "RTX-5070-Ti-Laptop"),
    ("NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA GeForce RTX 4090 Laptop", "RTX-4090-Laptop"),
])
def test_log_reader_maps_the_printed_names(line, printed, canonical):
    assert gpu_in(line) == (printed, canonical)


@pytest.mark.parametrize("name, canonical", [("RTX 4060 Laptop", "RTX-4060-Laptop"),
                                             ("NVIDIA GeForce RTX 5070 Ti Laptop GPU", "RTX-5070-Ti-Laptop")])
def test_plan_cli_takes_the_laptop_names(name, canonical, capsys):
    code = main(["plan", "Qwen/Qwen2.5-0.5B-Instruct", "--engine", "vllm", "--gpu", name, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["gpu"]["name"] == canonical and plan["kv_tokens"] > 0


@pytest.mark.parametrize("typo, suggestion", [("RTX 4060 Labtop", "RTX-4060-Laptop"),
                                              ("RTX 4070 Laptp", "RTX-4070-Laptop"),
                                              ("RTX 5070 Ti Labtop", "RTX-5070-Ti-Laptop")])
def test_a_misspelt_name_still_gets_the_clear_error(typo, suggestion, capsys):
    assert main(["plan", "Qwen/Qwen2.5-0.5B-Instruct", "--engine", "vllm", "--gpu", typo]) == 2
    err = capsys.readouterr().err
    assert f"unknown GPU {typo!r}" in err and "did you mean" in err and "Traceback" not in err
    assert suggestion in err.split("did you mean", 1)[1].split("?", 1)[0]


def test_perf_names_the_laptop_and_says_which_rate_is_missing(capsys):
    """No tensor rate was sourced for the laptop parts: tpkit perf resolves the name and refuses with the catalog's
    reason, exit 2, no traceback — not 'unknown GPU'."""
    assert main(["perf", "Qwen/Qwen2.5-0.5B-Instruct", "--gpu", "RTX 4060 Laptop", "--tp", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown GPU" not in err and "Traceback" not in err
    assert "RTX-4060-Laptop" in err and "bf16" in err
