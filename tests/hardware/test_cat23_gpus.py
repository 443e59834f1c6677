"""GPUs a new user named that the catalog lacked (helper cat23, 2026-12-06, session 23; ux23 typed them into
`tpkit plan --gpu`): H200 NVL, L20, RTX 3080 10 GB / 12 GB, RTX 4060 Ti 8 GB / 16 GB, RTX 4080 SUPER, H800 PCIe, MI250X,
MI250, MI210 (scripts/gpu_catalog_cat23.py; each total from a public print or a sibling board, marked as such).
Before: every one said 'unknown GPU', and `--gpu "RTX 6000"` offered neither Quadro-RTX-6000 nor RTX-6000-Ada's
sibling Quadro among its close matches."""

from __future__ import annotations

import json

import pytest

from tpkit.cli import main
from tpkit.errors import UnknownGpuError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.logs.gpu_names import gpu_in
from tpkit.units import MiB

NEW = ("H200-NVL", "L20", "RTX-3080-10GB", "RTX-3080-12GB", "RTX-4060-Ti-8GB", "RTX-4060-Ti-16GB", "RTX-4080-SUPER",
       "H800-PCIe", "MI250X", "MI250", "MI210")


@pytest.mark.parametrize("name, canonical", [
    ("H200 NVL", "H200-NVL"), ("NVIDIA H200 NVL", "H200-NVL"), ("NVIDIA L20", "L20"), ("L20", "L20"),
    ("RTX 3080 10GB", "RTX-3080-10GB"), ("RTX 3080 12GB", "RTX-3080-12GB"), ("rtx-3080-12g", "RTX-3080-12GB"),
    ("RTX 4060 Ti 8GB", "RTX-4060-Ti-8GB"), ("RTX 4060 Ti 16GB", "RTX-4060-Ti-16GB"),
    ("RTX 4080 SUPER", "RTX-4080-SUPER"), ("NVIDIA GeForce RTX 4080 SUPER", "RTX-4080-SUPER"),
    ("H800 PCIe", "H800-PCIe"), ("NVIDIA H800 PCIe", "H800-PCIe"), ("AMD Instinct MI250X", "MI250X"),
    ("MI250", "MI250"), ("mi210", "MI210"),
])
def test_every_spelling_resolves(name, canonical):
    assert lookup_gpu(name).name == canonical


def test_neighbours_keep_their_names():
    """The new boards take no name of an older entry: H200 is the SXM, H800 the SXM, RTX 4080 the non-SUPER."""
    assert lookup_gpu("H200").name == "H200-SXM-141GB" and lookup_gpu("H800").name == "H800"
    assert lookup_gpu("RTX 4080").name == "RTX-4080"


@pytest.mark.parametrize("name", NEW)
def test_every_entry_is_sourced_and_below_nvidia_smi(name):
    gpu = lookup_gpu(name)
    assert gpu.total_source and gpu.memory_bandwidth_tbps
    for rate in ("bf16_dense_tflops", "sm_count", "compute_capability"):
        assert gpu.source_of(rate), (name, rate)  # a value or the reason it is None
    if gpu.nvidia_smi_total_mib:
        assert gpu.total_bytes < MiB(gpu.nvidia_smi_total_mib)
    # only a total printed for this very name may be matched against a log's printed total
    assert gpu.total_printed == (name == "MI250X"), name


def test_totals_rest_on_their_sources():
    assert lookup_gpu("H200-NVL").total_bytes == lookup_gpu("H200").total_bytes  # '139.80 GB via torch'
    assert lookup_gpu("L20").total_bytes == lookup_gpu("L40S").total_bytes  # same AD102 board, 46068 MiB
    assert lookup_gpu("H800-PCIe").total_bytes == lookup_gpu("H100-PCIe-80GB").total_bytes  # 81559 MiB both
    assert lookup_gpu("RTX-4080-SUPER").total_bytes == lookup_gpu("RTX-4070-Ti-SUPER").total_bytes  # AD103, 16376
    assert lookup_gpu("RTX-3080-10GB").total_bytes == MiB(10240 - 471)  # nvidia-smi less the RTX 3090's reservation
    assert lookup_gpu("RTX-4060-Ti-16GB").total_bytes == MiB(16380 - 402)
    for amd in ("MI250X", "MI250", "MI210"):  # one GCD: torch total_memory=65520MB
        gpu = lookup_gpu(amd)
        assert gpu.vendor == "AMD" and gpu.total_bytes == MiB(65520) and gpu.compute_capability is None
    assert lookup_gpu("RTX-4060-Ti-8GB").pcie_lanes == 8 and lookup_gpu("RTX-4060-Ti-16GB").pcie_gbps_per_direction == 16.0
    assert "65520MB" in lookup_gpu("MI250X").total_source and lookup_gpu("MI250X").sm_count == 110


@pytest.mark.parametrize("bare, boards", [
    ("RTX 3080", ("RTX-3080-10GB", "RTX-3080-12GB")), ("RTX 4060 Ti", ("RTX-4060-Ti-8GB", "RTX-4060-Ti-16GB"))])
def test_a_name_two_boards_print_is_not_guessed(bare, boards):
    """torch and nvidia-smi print one name for both memory sizes: the refusal offers both, the first two."""
    with pytest.raises(UnknownGpuError) as err:
        lookup_gpu(bare)
    hint = str(err.value).split("did you mean", 1)[1].split("?", 1)[0]
    assert [s.strip() for s in hint.split(",")][:2] == list(boards)


def test_rtx_6000_offers_every_rtx_6000():
    """'RTX 6000' names four cards: each is offered (before, Quadro-RTX-6000 was crowded out of difflib's six)."""
    with pytest.raises(UnknownGpuError) as err:
        lookup_gpu("RTX 6000")
    hint = str(err.value).split("did you mean", 1)[1].split("?", 1)[0]
    for name in ("Quadro-RTX-6000", "RTX-6000-Ada", "RTX-A6000", "RTX-PRO-6000"):
        assert name in hint, hint


@pytest.mark.parametrize("printed, canonical", [
    ("GPU: 8 x NVIDIA H200 NVL", "H200-NVL"), ("0, NVIDIA H800 PCIe, 81559 MiB, 570.124.04", "H800-PCIe"),
    ("0, NVIDIA GeForce RTX 4080 SUPER, 16376 MiB, 1309 MiB", "RTX-4080-SUPER"),
    ("6, NVIDIA L20, 46068 MiB, 580.65.06", "L20")])
def test_log_reader_maps_the_printed_names(printed, canonical):
    assert gpu_in(printed)[1] == canonical


@pytest.mark.parametrize("name", NEW)
def test_plan_runs_on_every_new_gpu(name, capsys):
    code = main(["plan", "Qwen/Qwen2.5-1.5B-Instruct", "--engine", "vllm", "--gpu", name, "--max-model-len", "4096",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["gpu"]["name"] == name and plan["kv_tokens"] > 0


@pytest.mark.parametrize("typo, suggestion", [
    ("H200 NLV", "H200-NVL"), ("L2O", "L20"), ("RTX 3080 10", "RTX-3080-10GB"), ("RTX 3080 12", "RTX-3080-12GB"),
    ("RTX 4060Ti 8", "RTX-4060-Ti-8GB"), ("RTX 4060Ti 16", "RTX-4060-Ti-16GB"), ("RTX 4080 Supr", "RTX-4080-SUPER"),
    ("H800 PCI", "H800-PCIe"), ("MI25OX", "MI250X"), ("MI 25", "MI250"), ("Instinct MI21", "MI210")])
def test_a_wrong_spelling_suggests_the_new_gpu(typo, suggestion, capsys):
    assert main(["plan", "Qwen/Qwen2.5-7B-Instruct", "--engine", "vllm", "--gpu", typo]) == 2
    err = capsys.readouterr().err
    assert f"unknown GPU {typo!r}" in err and "Traceback" not in err
    hint = err.split("did you mean", 1)[1].split("?", 1)[0]
    assert suggestion in hint, hint
