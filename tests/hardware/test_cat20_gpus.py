"""Three cards public vLLM start-ups ran on, added to the GPU catalog (helper cat20, 2026-12-06, session 20; issue 11:
the listed-but-not-scored cases and session 19's catalog gaps): the Quadro RTX 6000 (Turing, 24 GB), the RTX PRO 4000
Blackwell (24 GB) and the GeForce RTX 5090 Laptop GPU (24 GB, a different card from the 32 GB desktop RTX 5090).
Every total rests on public prints (scripts/gpu_catalog_added.py QUADRO_RTX_6000_TOTAL, RTX_PRO_4000_TOTAL,
RTX_5090_LAPTOP_TOTAL; docs/accuracy.md §6.4 round cat20). Before: `--gpu "Quadro RTX 6000"` and `--gpu "RTX PRO 4000
Blackwell"` said "unknown GPU", and the log reader read 'NVIDIA GeForce RTX 5090 Laptop GPU' as the desktop RTX 5090
(31.36 GiB), so `tpkit explain` sized a laptop's log with 8 GiB too much memory."""

from __future__ import annotations

import json

import pytest

from tpkit.cli import main
from tpkit.errors import UnknownGpuError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.logs.gpu_names import gpu_in, gpus_with_total
from tpkit.logs.printed import size_from_text
from tpkit.units import GiB, MiB

LAPTOP, QUADRO, PRO4000 = "RTX-5090-Laptop", "Quadro-RTX-6000", "RTX-PRO-4000"


@pytest.mark.parametrize("name, canonical", [
    # as torch / nvidia-smi print them, as users write them, and the catalog names
    ("NVIDIA GeForce RTX 5090 Laptop GPU", LAPTOP), ("GeForce RTX 5090 Laptop GPU", LAPTOP),
    ("RTX 5090 Laptop GPU", LAPTOP), ("RTX 5090 Laptop", LAPTOP), ("rtx-5090-laptop", LAPTOP),
    ("RTX 5090 Mobile", LAPTOP), ("RTX-5090-Laptop-24GB", LAPTOP),
    ("Quadro RTX 6000", QUADRO), ("NVIDIA Quadro RTX 6000", QUADRO), ("quadro_rtx_6000", QUADRO),
    ("Quadro-RTX-6000-24GB", QUADRO),
    ("NVIDIA RTX PRO 4000 Blackwell", PRO4000), ("RTX PRO 4000 Blackwell", PRO4000), ("RTX PRO 4000", PRO4000),
    ("rtx-pro-4000", PRO4000),
])
def test_every_spelling_resolves(name, canonical):
    assert lookup_gpu(name).name == canonical


def test_the_desktop_rtx_5090_and_the_pro_6000_keep_their_names():
    assert lookup_gpu("RTX 5090").name == "RTX-5090" and lookup_gpu("NVIDIA GeForce RTX 5090").name == "RTX-5090"
    assert lookup_gpu("RTX 6000 Ada").name == "RTX-6000-Ada" and lookup_gpu("RTX PRO 6000").name == "RTX-PRO-6000"
    with pytest.raises(UnknownGpuError):  # 'RTX 6000' alone names three cards: none is guessed
        lookup_gpu("RTX 6000")


def test_totals_rest_on_the_public_prints_and_stay_out_of_total_matching():
    quadro, pro, laptop = lookup_gpu(QUADRO), lookup_gpu(PRO4000), lookup_gpu(LAPTOP)
    # Quadro: '25.2 GB' (torch total / 1e9, CUDA 12.1) and '23.5 GB' (GiB) bound 23.45-23.52 GiB; below nvidia-smi
    assert GiB(23.45) <= quadro.total_bytes < GiB(23.52) and quadro.nvidia_smi_total_mib == 24576
    assert "53943975161" in quadro.total_source and "23.65GiB" in quadro.total_source  # the older driver's print
    assert "22.17GiB" in quadro.source_of("ecc") and quadro.compute_capability == (7, 5) and quadro.sm_count == 72
    # RTX PRO 4000: '25.1 GB' and '25.2 GB' meet at 25.15e9 B
    assert pro.total_bytes.bytes == 25_150_000_000 and pro.nvidia_smi_total_mib == 24467
    assert "55782846507" in pro.total_source and "53994408445" in pro.total_source
    # laptop: nvidia-smi 24463 MiB less the RTX PRO 4000's reservation (same GB203 die), about 482 MiB
    assert laptop.nvidia_smi_total_mib == 24463
    assert laptop.total_bytes == MiB(24463 - 482) and laptop.total_source.startswith("assumed")
    assert "69444620476" in laptop.source_of("total_windows")  # the WSL2 print: '(23.9GiB vram)'
    assert lookup_gpu("RTX 5090").total_bytes.gib > laptop.total_bytes.gib + 7.9
    for gpu in (quadro, pro, laptop):
        assert not gpu.total_printed and gpu.total_bytes < MiB(gpu.nvidia_smi_total_mib)
    # a printed 23.42 / 23.48 GiB total names none of them (no 2-decimal print of theirs; 24 GB cards crowd there)
    for text in ("23.42", "23.48"):
        found = gpus_with_total(size_from_text(text, "GiB", meaning="total capacity (PyTorch OOM)"))
        assert not {QUADRO, PRO4000, LAPTOP} & set(found), found


@pytest.mark.parametrize("line, printed, canonical", [
    ("GPU 0: NVIDIA GeForce RTX 5090 Laptop GPU (UUID: GPU-0)", "NVIDIA GeForce RTX 5090 Laptop", LAPTOP),
    ("Config file not found at /x/configs/E=64,N=512,device_name=NVIDIA_GeForce_RTX_5090_Laptop_GPU.json",
     "NVIDIA GeForce RTX 5090 Laptop", LAPTOP),
    ("|   0  Quadro RTX 6000                On  |   00000000:3B:00.0 Off |", "Quadro RTX 6000", QUADRO),
    ("0, NVIDIA RTX PRO 4000 Blackwell, 24467 MiB, 595.84", "NVIDIA RTX PRO 4000 Blackwell", PRO4000),
    # a laptop part is never read as its desktop namesake (the RTX 5080 Laptop: catalogued by bl32b, 2026-12-07)
    ("NVIDIA GeForce RTX 5080 Laptop GPU", "NVIDIA GeForce RTX 5080 Laptop", "RTX-5080-Laptop"),  # bl32b added it
    ("NVIDIA RTX PRO 4000 Blackwell Laptop GPU", "NVIDIA RTX PRO 4000 Blackwell Laptop", None),
    ("NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5080", "RTX-5080"),
])
def test_log_reader_maps_the_printed_names(line, printed, canonical):
    assert gpu_in(line) == (printed, canonical)


LOG = """\
INFO 05-19 11:21:02 [utils.py:240] non-default args: {'model': 'Qwen/Qwen2.5-7B-Instruct', 'gpu_memory_utilization': 0.88, 'max_model_len': 4096}
INFO 05-19 11:21:08 [core.py:109] Initializing a V1 LLM engine (v0.21.0) with config: model='Qwen/Qwen2.5-7B-Instruct'
WARNING 05-19 11:21:09 [fused_moe.py:700] Using default MoE config. Config file not found at /x/configs/E=64,N=512,device_name=NVIDIA_GeForce_RTX_5090_Laptop_GPU.json
INFO 05-19 11:21:38 [gpu_model_runner.py:5121] Model loading took 14.25 GiB memory and 28.370276 seconds
INFO 05-19 11:21:44 [gpu_worker.py:462] Available KV cache memory: 4.17 GiB
INFO 05-19 11:21:44 [kv_cache_utils.py:1733] GPU KV cache size: 78,080 tokens
"""


def test_explain_takes_the_laptop_by_its_printed_name(tmp_path, capsys):
    """explain's GPU-by-name: before, the name resolved to the desktop RTX-5090 (31.36 GiB)."""
    log = tmp_path / "laptop.log"
    log.write_text(LOG)
    assert main(["explain", str(log), "--json"]) == 0
    gpu = json.loads(capsys.readouterr().out)["gpu"]
    assert gpu["name"] == LAPTOP and gpu["total_bytes"] == MiB(24463 - 482).bytes


@pytest.mark.parametrize("name, canonical", [
    ("RTX 5090 Laptop GPU", LAPTOP), ("Quadro RTX 6000", QUADRO), ("NVIDIA RTX PRO 4000 Blackwell", PRO4000)])
def test_plan_cli_takes_the_new_names(name, canonical, capsys):
    code = main(["plan", "Qwen/Qwen2.5-7B-Instruct", "--engine", "vllm", "--gpu", name, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["gpu"]["name"] == canonical and plan["kv_tokens"] > 0


@pytest.mark.parametrize("name", ["RTX 5090 Laptop GPU", "Quadro RTX 6000", "NVIDIA RTX PRO 4000 Blackwell"])
def test_perf_cli_knows_the_name_and_says_which_rate_is_missing(name, capsys):
    """tpkit perf resolves the name; no BF16 tensor rate was sourced for these cards (Turing has none), so it refuses
    with the catalog's reason, exit 2, no traceback — not 'unknown GPU'."""
    code = main(["perf", "Qwen/Qwen2.5-7B-Instruct", "--gpu", name, "--tp", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown GPU" not in err and "Traceback" not in err
    assert lookup_gpu(name).name in err and "bf16" in err


@pytest.mark.parametrize("typo, suggestion", [
    ("RTX 5090 Labtop", LAPTOP), ("Quadro RTX 600", QUADRO), ("RTX PRO 4000 Blackwel", PRO4000),
    ("Quadro 6000", QUADRO)])
@pytest.mark.parametrize("command", ["plan", "perf"])
def test_an_unknown_name_suggests_the_nearest(typo, suggestion, command, capsys):
    argv = [command, "Qwen/Qwen2.5-7B-Instruct", "--gpu", typo] + (["--engine", "vllm"] if command == "plan" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"unknown GPU {typo!r}" in err and "did you mean" in err and "Traceback" not in err
    hint = err.split("did you mean", 1)[1].split("?", 1)[0]
    assert suggestion in hint, hint
