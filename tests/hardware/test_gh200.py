"""GH200 in the GPU catalog (helper gh18, 2026-12-05; issue 11, newcomer: `tpkit plan … --gpu GH200` said "unknown
GPU 'GH200'"): the 96 GB HBM3 part (sold as 'GH200 480GB' and 'GH200 120GB') and the 144 GB HBM3e part ('GH200 144G
HBM3e'), each with the CUDA total printed for it; not a unified-memory GPU in the engines' sense; no NVLS buffers on
its NVSwitch-less hosts.  Sources: scripts/gpu_catalog_added.py (GH200_*), docs/accuracy.md §5 "GH200 and other
boards".  Before: every test here failed (no GH200 entry, so lookup raised UnknownGpuError, the log reader left the
names unresolved and the plan CLI refused with exit 2)."""

from __future__ import annotations

import json

import pytest

from tpkit.cli import main
from tpkit.hardware.catalog import lookup_gpu
from tpkit.logs.gpu_names import gpu_in, gpus_with_total
from tpkit.logs.printed import size_from_text
from tpkit.startup.nvls import vllm_nvls_cost
from tpkit.units import Bytes, MiB

GH200_96 = 97280 * 2**20
"""OpenCL '97280 MB VRAM' on 'NVIDIA GH200 480GB'; PyTorch '95.00 GiB total capacity' on Isambard-AI"""
GH200_144 = 153_008_209_920
"""cuDeviceTotalMem_v2 of 'NVIDIA GH200 144G HBM3e' (code-search id 71545924480)"""


@pytest.mark.parametrize("name, canonical", [
    ("GH200", "GH200-96GB"), ("gh200", "GH200-96GB"), ("NVIDIA GH200 480GB", "GH200-96GB"),
    ("GH200 480GB", "GH200-96GB"), ("NVIDIA GH200 120GB", "GH200-96GB"), ("GH200-120GB", "GH200-96GB"),
    ("NVIDIA GH200 96GB HBM3", "GH200-96GB"), ("GH200-96GB", "GH200-96GB"),
    ("NVIDIA GH200 144G HBM3e", "GH200-144GB"), ("GH200-144G", "GH200-144GB"), ("gh200 144gb", "GH200-144GB"),
])
def test_lookup_finds_every_gh200_name(name, canonical):
    assert lookup_gpu(name).name == canonical


def test_totals_are_the_printed_cuda_totals_below_nvidia_smi():
    small, big = lookup_gpu("GH200"), lookup_gpu("GH200 144G HBM3e")
    assert small.total_bytes == Bytes(GH200_96) and not small.total_printed  # printed, kept out of matching (below)
    assert big.total_bytes == Bytes(GH200_144) and big.total_printed
    assert small.nvidia_smi_total_mib == 97871 and big.nvidia_smi_total_mib == 146831
    for gpu in (small, big):
        assert gpu.total_bytes < MiB(gpu.nvidia_smi_total_mib)
        assert "61879620124" in small.total_source and "71545924480" in big.total_source
    # the 96 GB part is not the H20's derived total (nvidia-smi less H200's reservation), which vp_761 assumed
    assert small.total_bytes.bytes - lookup_gpu("H20-96GB").total_bytes.bytes == 25 * 2**20


def test_rates_links_and_memory_model():
    small, big = lookup_gpu("GH200"), lookup_gpu("GH200-144GB")
    h100 = lookup_gpu("H100")
    assert (small.memory_bandwidth_tbps, big.memory_bandwidth_tbps) == (4.0, 4.9)
    for gpu in (small, big):
        assert gpu.sm_count == 132 and gpu.compute_capability == (9, 0)
        for dtype in ("bf16", "fp8", "int8"):
            assert gpu.dense_tflops(dtype) == h100.dense_tflops(dtype)
        assert gpu.nvlink_gbps_per_direction == 450.0 and "NV18" in gpu.source_of("nvlink")
        assert "450 GB/s per direction" in gpu.source_of("nvlink_c2c")
        # CUDA reports the HBM only (is_integrated 0): not the GB10 kind of unified memory
        assert gpu.unified_memory is False and "INTEGRATED is 0" in gpu.source_of("unified_memory")
        assert gpu.nvlink_multicast is False and "attribute 132" in gpu.source_of("nvlink_multicast")
    assert lookup_gpu("GB10").unified_memory is True


def test_no_nvls_buffers_on_gh200_hosts_but_on_nvswitch_boards():
    """NCCL's NVLS needs CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 0 on GH200 (no NVSwitch on its 1-4-GPU hosts)."""
    assert vllm_nvls_cost(lookup_gpu("GH200"), 4, (0, 10, 1), full_nvlink=True) is None
    assert vllm_nvls_cost(lookup_gpu("H100"), 4, (0, 10, 1), full_nvlink=True) is not None


@pytest.mark.parametrize("line, printed, canonical", [
    ("Device: NVIDIA GH200 480GB", "NVIDIA GH200 480GB", "GH200-96GB"),  # torch.cuda.get_device_name
    ("Config file not found at .../configs/E=128,N=192,device_name=NVIDIA_GH200_120GB.json", "NVIDIA GH200 120GB",
     "GH200-96GB"),  # vLLM's fused-MoE config path (vp_761)
    ("|   0  NVIDIA GH200 480GB             On  |   00000009:01:00.0 Off |", "NVIDIA GH200 480GB", "GH200-96GB"),
    ("GPU 0: NVIDIA GH200 144G HBM3e (UUID: GPU-0)", "NVIDIA GH200 144G HBM3e", "GH200-144GB"),
])
def test_log_reader_maps_the_printed_names(line, printed, canonical):
    assert gpu_in(line) == (printed, canonical)


def test_an_unnamed_95_gib_total_stays_the_rtx_pro_6000s():
    """GH200-96GB's 95.00 GiB lies 31 MiB from the RTX PRO 6000's 94.97 GiB: it is kept out of total matching
    (``total_printed`` False, ``sources["total_matching"]``), so an unnamed log's total still names the RTX PRO 6000
    alone (the seed scenario); GH200 logs name their GPU (test above)."""
    total = size_from_text("95.00", "GiB", meaning="total capacity (PyTorch OOM)")
    assert gpus_with_total(total) == ("RTX-PRO-6000",)
    assert "RTX PRO 6000" in lookup_gpu("GH200").source_of("total_matching")


def test_plan_cli_takes_gh200(capsys):
    """The issue's command: `tpkit plan Qwen/Qwen3-8B --engine vllm --gpu GH200` (before: exit 2, "unknown GPU")."""
    code = main(["plan", "Qwen/Qwen3-8B", "--engine", "vllm", "--gpu", "GH200", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["gpu"]["name"] == "GH200-96GB" and plan["gpu"]["total_bytes"] == GH200_96
    assert plan["kv_tokens"] > 0 and not any("unified" in w.lower() for w in plan["warnings"])


def test_rtx_a5000_is_a_catalog_board_with_its_printed_total():
    """Task item 2 (other boards the validation set named as custom GPUs): the RTX A5000, torch total_memory=24138MB
    and multi_processor_count=64 printed (code-search ids 29664974753, 29278846479); vp_062 / vp_682 now plan on it."""
    gpu = lookup_gpu("NVIDIA RTX A5000")
    assert gpu.name == "RTX-A5000" and gpu.total_bytes == MiB(24138) and gpu.total_printed
    assert gpu.nvidia_smi_total_mib == 24564 and gpu.sm_count == 64 and gpu.compute_capability == (8, 6)
    assert gpu_in("|   0  NVIDIA RTX A5000               On  |") == ("NVIDIA RTX A5000", "RTX-A5000")
