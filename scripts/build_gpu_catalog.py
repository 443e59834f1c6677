"""Build ``src/tpkit/hardware/data/gpus.json`` from the shared research catalog.

Usage::

    python scripts/build_gpu_catalog.py [/work/shared/catalog/gpus.json]

The packaged file is what ``tpkit.hardware.catalog`` reads at run time, so the package works without
the research tree.  Each entry keeps ``total_source``: where the CUDA-reported total came from.
GPUs that the validation cases need but the research catalog lacks are added from ``EXTRA`` below,
each with its own source.

Rate facts for ``tpkit perf`` (added without touching the memory fields): dense FP8 / FP4 TFLOP/s and
INT8 TOP/s, PCIe generation and lanes, and a ``sources`` object that says, per rate field, where
the number came from (the research catalog's datasheet note, or the derivation used here).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

GIB = 2**30
MIB = 2**20
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "tpkit" / "hardware" / "data" / "gpus.json"
DEFAULT_SRC = Path("/work/shared/catalog/gpus.json")

HOPPER_RESERVED_MIB = 616
"""nvidia-smi total − CUDA total measured on H200 SXM (143771 MiB − 143155.9 MiB)."""

CURRENT_DRIVER_TOTALS: dict[str, tuple[int, str]] = {
    "A100-SXM-40GB": (42405855232, (
        "42405855232 bytes (40441 MiB, 39.49 GiB), the total of current drivers (helper tot13, 2026-12-05): "
        "deviceQuery 'NVIDIA A100-PCIE-40GB … CUDA Driver Version / Runtime Version 13.0 / 13.0 … Total amount of "
        "global memory: 40441 MBytes (42405855232 bytes)' (code-search id 27357813220); the same byte count as "
        "PyTorch's 'total: 42405855232' next to 'GPU 0 has a total capacity of 39.49 GiB' (id 59329495952), as "
        "'NVIDIA A100-SXM4-40GB … 42405855232 bytes of total memory' on a Lambda gpu_1x_a100_sxm4 instance (id "
        "70114526041) and in vLLM 0.31.0 'Free memory on device (39.08/39.49 GiB)' (tests/logs/data/vllm/"
        "vl_108.log, 2026-10; cases vp_323, vp_597 print 39.49). Older drivers reserve 102 MiB more: CUDA 12.2 "
        "(driver 535) deviceQuery 'NVIDIA A100-SXM4-40GB … 40339 MBytes (42298834944 bytes)' (39.39 GiB; "
        "bottlerocket-os/bottlerocket PR 3873), '39.39 GiB total capacity' in public PyTorch OOMs (research "
        "catalog gpus.json), the catalog total until 2026-12-05; the first A100 drivers printed 40536MB (39.59 "
        "GiB, paddle docs, id 15187234989). nvidia-smi 40960 MiB")),
    "A100-SXM-80GB": (round(79.25 * GIB), (
        "79.25 GiB (2-decimal prints: ±5 MiB), the total of current drivers (helper tot13, 2026-12-05): vLLM "
        "'Free memory on device (78.84/79.25 GiB)' on an A100-SXM4-80GB "
        "(tests/logs/data/vllm/vl_100.log, 2026-08, case vp_040) and on an A100 80GB in the "
        "vllm/vllm-openai:v0.31.0 image (vl_179.log, 2026-10, case vp_104); 'GPU 0 has a total capacity of 79.25 "
        "GiB' in 2025-2026 public PyTorch OOMs on A100 80GB (e.g. ids 61363762331 'A100-80GB', 57357939455 'an 80 "
        "GB A100'); a CUDA 12.5 driver's deviceQuery printed 'NVIDIA A100-SXM4-80GB … 81158 MBytes (85100068864 "
        "bytes)' (79.26 GiB; thamada/nvidia-smi nvsim/A100SXMx4_deviceQuery.py, code-search id 32810829468). Older "
        "drivers print 79.15 GiB (research catalog gpus.json, the catalog total until 2026-12-05; "
        "'79.15 GiB' in vLLM V0-era OOMs, e.g. id 31116002056); a few hosts print 79.32-79.33 GiB (id 4456729198; "
        "tests/logs/data/vllm/vl_783.log, GPU unnamed). nvidia-smi 81920 MiB")),
    "L4": (22562 * MIB, (
        "22562 MiB (22.03 GiB), the total of current drivers (helper tot13, 2026-12-05): 'GPU 0 has a total "
        "capacity of 22.03 GiB' on an NVIDIA L4 under driver 580.95.05 with torch 2.14.0+cu130 (Modal probe "
        "report, code-search id 71609078484, 2026-09); vLLM 0.29.0 'Free memory on device (21.84/22.03 GiB)' on "
        "an NVIDIA L4 (tests/logs/data/vllm/vl_861.log, image v0.29.0-cu129, 2026-09; case vp_633); GCP L4 OOMs "
        "'total capacity of 22.03 GiB' (ids 54161121023 'g2-standard-96, 8× L4', 61414032113, 71468728327); "
        "'free_before_boot = 22561.0 MiB (22.03 GiB card, nothing resident)' (id 69411228783) bounds it from "
        "below (a 22.03 print is 22554-22563 MiB). AWS g6 L4 hosts print 22.04 GiB (vl_812.log, 2026-09; id "
        "59672298265), ~10 MiB more. Older drivers: 22.05 GiB (research catalog gpus.json, the catalog total "
        "until 2026-12-05; vLLM CI OOMs, id 30262991089), and a CUDA 12.4 driver's deviceQuery 'NVIDIA L4 … 22478 "
        "MBytes (23570219008 bytes)' (21.95 GiB, ECC on; thamada/nvidia-smi gls/L4_deviceQuery.py, id "
        "32822509543). nvidia-smi 23034 MiB")),
}
"""Research-catalog GPUs whose CUDA total is replaced by the one today's drivers print (helper tot13, 2026-12-05):
canonical name → (bytes, source).  The CUDA total is the board's memory less the driver's reservation, and the
reservation changes between driver branches (T4: 14.75 GiB on old drivers, 14.56 today); the research catalog's
figure is often the older drivers'.  A run on another driver passes ``--gpu-memory`` with the total its log prints."""

# research-catalog "gpu" name → (canonical tpkit name, aliases)
NAMES = {
    "H100 SXM5 80GB": ("H100-SXM-80GB", ("H100", "H100-SXM", "H100-SXM5", "H100-80GB", "H100-SXM5-80GB")),
    "H100 PCIe 80GB": ("H100-PCIe-80GB", ("H100-PCIe", "H100-PCIE-80GB")),
    "H200 SXM 141GB": ("H200-SXM-141GB", ("H200", "H200-SXM", "H200-141GB")),
    "H20": ("H20-96GB", ("H20",)),
    "A100 SXM4 40GB": ("A100-SXM-40GB", ("A100-40GB", "A100-SXM4-40GB")),
    "A100 SXM4 80GB": ("A100-SXM-80GB", ("A100", "A100-80GB", "A100-SXM4-80GB", "A100-SXM")),
    "L40S": ("L40S", ("L40S-48GB",)),
    "L4": ("L4", ("L4-24GB",)),
    "GeForce RTX 4090": ("RTX-4090", ("4090", "GeForce-RTX-4090")),
    "GeForce RTX 5090": ("RTX-5090", ("5090", "GeForce-RTX-5090")),
    "RTX PRO 6000 Blackwell (96GB)": ("RTX-PRO-6000", (
        "RTX-PRO-6000-Blackwell", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        "NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
        "RTX PRO 6000 Blackwell Max-Q",  # ux26 (session 26) added it to gpus.json by hand
        "RTX-PRO-6000-96GB")),
    "B200 (HGX B200, SXM)": ("B200", ("B200-180GB", "HGX-B200")),
    "GB200 (per Blackwell GPU, NVL72)": ("GB200", ("GB200-NVL72",)),
    "Instinct MI300X": ("MI300X", ("AMD Instinct MI300X",)),
    "Instinct MI325X": ("MI325X", ("AMD Instinct MI325X",)),
}

EXTRA = [
    {
        "name": "RTX-3090", "vendor": "NVIDIA", "aliases": ["3090", "RTX3090", "GeForce-RTX-3090",
                                                            "NVIDIA GeForce RTX 3090", "RTX-3090-24GB"],
        "total_bytes": round(23.54 * GIB),
        "total_source": "23.54 GiB (2-decimal rounding: ±5 MiB), the total of current drivers (helper tot13, "
                        "2026-12-05): 'GPU 0 has a total capacity of 23.54 GiB' in vLLM 0.17.1 on an NVIDIA GeForce "
                        "RTX 3090 (TheBuccaneer/vllm-offload-profiles, tests/logs/data/vllm/vl_453.log, 2026-07; its "
                        "cases vp_342-vp_352 print 23.54), vLLM 0.10.2 'Free memory on device (23.08/23.53 GiB)' on "
                        "an RTX 3090 (vl_859.log, 2025-09; case vp_631), 'Global Memory: 25286672384 bytes' (23.55 "
                        "GiB) for an RTX 3090 next to an RTX 5060 Ti, so under a driver of R570 or later "
                        "(Jumperkables/cuda-benchmarking 00_deviceQuery/README.md). Older drivers print more: "
                        "deviceQuery under a CUDA 12.6 driver 'NVIDIA GeForce RTX 3090 … 24154 MBytes (25327697920 "
                        "bytes)' (23.59 GiB; thamada/nvidia-smi gls/RTX3090_deviceQuery.py), vLLM "
                        "'total_gpu_memory=23.58GiB' (vllm-project/vllm#10517, 2024-11; the catalog total until "
                        "2026-12-05), torch total_memory=24268MB / 24259MB (23.70 / 23.69 GiB, 2020-2021 drivers; "
                        "code-search ids 1980879279, 31224020222). One 2026 note prints 23.58 GiB for an RTX 3090 "
                        "(id 66640191653): an older driver; pass --gpu-memory with the total the log prints",
        "nvidia_smi_total_mib": 24576, "compute_capability": [8, 6], "sm_count": 82,
        "memory_bandwidth_tbps": 0.936, "bf16_dense_tflops": 71.0, "nvlink_gbps_per_direction": None,
        "pcie_gbps_per_direction": 32.0,
        "fp8_dense_tflops": None, "fp4_dense_tflops": None, "int8_dense_tops": 284.0,
        "pcie_generation": 4, "pcie_lanes": 16,
        "sources": {
            "memory_bandwidth_tbps": "NVIDIA GeForce RTX 3090 specifications (936 GB/s, GDDR6X 384-bit); recalled",
            "bf16_dense_tflops": "Ampere GA102 whitepaper: 71 TFLOPS dense FP16/BF16 tensor with FP32 accumulate; recalled",
            "int8_dense_tops": "Ampere GA102 whitepaper: 284 TOPS dense INT8 tensor (568 with sparsity); recalled",
            "pcie": "PCIe Gen4 x16 (31.5 GB/s per direction theoretical; catalog rounds to 32)",
        },
    },
    {
        "name": "H20-141GB", "vendor": "NVIDIA", "aliases": ["H20-3e", "H20-141G", "H20-HBM3e"],
        "total_bytes": 150109880320,
        "total_printed": False,
        "total_source": "assumed equal to the measured H200 SXM total (same 141 GB HBM3e stack); consistent with "
                        "vllm-project/recipes#12 (6.99 GiB / 0.05 utilisation = 139.8 GiB)",
        "nvidia_smi_total_mib": 143771, "compute_capability": [9, 0], "sm_count": 78,
        "memory_bandwidth_tbps": 4.8, "bf16_dense_tflops": 148.0, "nvlink_gbps_per_direction": 450.0,
        "pcie_gbps_per_direction": 64.0,
        "fp8_dense_tflops": 296.0, "fp4_dense_tflops": None, "int8_dense_tops": 296.0,
        "pcie_generation": 5, "pcie_lanes": 16,
        "sources": {
            "memory_bandwidth_tbps": "assumed equal to H200's 4.8 TB/s (same HBM3e stack); partner specs, UNVERIFIED",
            "bf16_dense_tflops": "H20 partner specs (148 dense BF16), as the research catalog's H20 entry; UNVERIFIED",
            "fp8_dense_tflops": "H20 partner specs (296 dense FP8); UNVERIFIED",
            "int8_dense_tops": "= FP8 dense (Hopper tensor cores run INT8 at the FP8 rate); derived",
            "pcie": "PCIe Gen5 x16 as H20 (partner specs)",
        },
    },
    {
        "name": "MI355X", "vendor": "AMD", "aliases": ["AMD Instinct MI355X", "Instinct MI355X"],
        "total_bytes": round(287.98 * GIB),
        "total_source": "287.98 GiB total capacity in public PyTorch/HIP OOM messages on MI355X (gfx950) hosts "
                        "(2-decimal rounding: ±5 MiB; e.g. 'HIP out of memory ... GPU 3 has a total capacity of "
                        "287.98 GiB', GitHub code-search index file ids 69068205465, 61205771843, 60904491974); "
                        "consistent with sg_021's load lines (avail mem 210.10 + mem usage 73.58 = 283.68 GiB free "
                        "at load on 8x MI355X) (helper npr, 2026-12-03)",
        "nvidia_smi_total_mib": None, "compute_capability": None, "sm_count": 256,
        "memory_bandwidth_tbps": 8.0, "bf16_dense_tflops": 2516.6, "nvlink_gbps_per_direction": None,
        "pcie_gbps_per_direction": 64.0,
        "fp8_dense_tflops": 5033.2, "fp4_dense_tflops": 10066.3, "int8_dense_tops": None,
        "pcie_generation": 5, "pcie_lanes": 16,
        "sources": {
            "memory_bandwidth_tbps": "288 GB HBM3E at 8 TB/s (Boston Ltd, 'AMD Instinct MI355X', 2025-08-14, boston-uk-l.azurewebsites.net/blog/2025/08/14/amd-instinct-mi355x.aspx; aiwiki.ai/wiki/amd_instinct_mi355x)",
            "bf16_dense_tflops": "half the FP8 rate: 4,096 dense FP16/BF16 FLOPS per CU per clock × 256 CUs × 2.4 GHz = 2,516.6 TFLOPS (AMD ISSCC 2026 talk as reported by world-today-news.com/?p=7253162: FP8 8,192 FLOPS/CU/clock, 32 CUs per XCD × 8; max clock 2.4 GHz per wccftech's Hot Chips 2025 report)",
            "fp8_dense_tflops": "8,192 FP8 FLOPS per CU per clock × 256 CUs × 2.4 GHz = 5,033.2 TFLOPS dense ('five petaflops of FP8', AMD ISSCC 2026 talk as reported by world-today-news.com/?p=7253162; clock from wccftech's Hot Chips 2025 report)",
            "fp4_dense_tflops": "twice the FP8 rate (MXFP4 ~10 PFLOPS: yobitel.com/knowledge-base/amd-mi355x; jaredwatkins.com MI350 series page, '10+ PFLOPS FP4')",
            "pcie": "PCIe Gen5 x16 host interface (as MI300X/MI325X)",
        },
    },
]

INT8_EQUALS_FP8 = ("Hopper", "Ada", "Blackwell")
"""architectures whose datasheets list INT8 tensor TOPS equal to dense FP8 TFLOPS"""


def _number(value) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        m = re.match(r"\s*~?([0-9.]+)", value)
        return float(m.group(1)) if m else None
    return None


def _total(mem: dict) -> tuple[int, str]:
    """CUDA-reported total in bytes, and where it came from."""
    if mem.get("cuda_total_memory_bytes"):
        return int(mem["cuda_total_memory_bytes"]), "measured cudaMemGetInfo total (H200 SXM, driver 580)"
    if mem.get("cuda_reported_total_GiB"):
        gib = mem["cuda_reported_total_GiB"]
        return round(gib * GIB), (f"{gib} GiB total capacity in public PyTorch/HIP OOM messages "
                                  "(2-decimal rounding: ±5 MiB); research catalog gpus.json")
    smi = mem["nvidia_smi_total_MiB"]
    return (smi - HOPPER_RESERVED_MIB) * MIB, (
        f"derived: nvidia-smi {smi} MiB − {HOPPER_RESERVED_MIB} MiB driver reservation measured on H200 "
        "(no CUDA-reported total published)")


def _rate(compute: dict, key: str) -> float | None:
    value = compute.get(key)
    return _number(value) if value is not None else None


def _fp4(compute: dict) -> tuple[float | None, str | None]:
    if compute.get("fp4_dense") is not None:
        return _number(compute["fp4_dense"]), "research catalog compute_tflops.fp4_dense (datasheet, dense)"
    for key in ("fp4_sparse", "fp4_sparse_AI_TOPS"):
        if compute.get(key) is not None:
            return _number(compute[key]) / 2, f"research catalog compute_tflops.{key} / 2 (datasheet sparse figure; dense is half)"
    return None, None


def _int8(raw: dict, fp8: float | None) -> tuple[float | None, str | None]:
    note = str(raw["compute_tflops"].get("fp8_note", ""))
    m = re.search(r"INT8 ([0-9.]+) TOPS dense", note)
    if m:
        return float(m.group(1)), f"research catalog compute_tflops.fp8_note ({m.group(0)})"
    arch = str(raw.get("architecture", ""))
    if fp8 is not None and arch.split(" ")[0] in INT8_EQUALS_FP8:
        return fp8, f"derived: = dense FP8 ({arch.split(' ')[0]} datasheets list INT8 TOPS equal to FP8 TFLOPS)"
    return None, None


def _pcie(link: dict) -> tuple[int | None, int | None]:
    m = re.match(r"Gen(\d+)(?: x(\d+))?", str(link.get("pcie") or ""))
    if not m:
        return None, None
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None


def _rates(raw: dict) -> dict:
    """The perf rate fields and their sources (new keys only; existing fields are untouched)."""
    compute, link = raw["compute_tflops"], raw.get("interconnect") or {}
    datasheet = (raw.get("source") or {}).get("datasheet", "vendor datasheet")
    status = raw.get("verification", "")
    fp8 = _rate(compute, "fp8_dense")
    fp4, fp4_src = _fp4(compute)
    int8, int8_src = _int8(raw, fp8)
    gen, lanes = _pcie(link)
    ref = f"research catalog gpus.json: {datasheet} [{status}]"
    sources = {"memory_bandwidth_tbps": ref, "bf16_dense_tflops": ref}
    if fp8 is not None:
        sources["fp8_dense_tflops"] = ref
    if fp4 is not None:
        sources["fp4_dense_tflops"] = fp4_src
    if int8 is not None:
        sources["int8_dense_tops"] = int8_src
    if link.get("nvlink_GBps_bidirectional") and "optional" not in str(link.get("nvlink")):
        sources["nvlink"] = f"{link.get('nvlink')}: {link['nvlink_GBps_bidirectional']} GB/s bidirectional / 2 per direction"
    if gen:
        sources["pcie"] = f"PCIe {link.get('pcie')}: bidirectional GB/s / 2 per direction (research catalog)"
    return {"fp8_dense_tflops": fp8, "fp4_dense_tflops": fp4, "int8_dense_tops": int8,
            "pcie_generation": gen, "pcie_lanes": lanes, "sources": sources}


def _entry(raw: dict) -> dict:
    name, aliases = NAMES[raw["gpu"]]
    mem = raw["memory"]
    total, source = CURRENT_DRIVER_TOTALS.get(name) or _total(mem)
    cc = re.match(r"(\d+)\.(\d+)", str(raw.get("compute_capability", "")))
    link = raw.get("interconnect") or {}
    has_nvlink = bool(link.get("nvlink")) and "optional" not in str(link.get("nvlink"))
    nvlink_bidir = _number(link.get("nvlink_GBps_bidirectional")) if has_nvlink else None
    pcie_bidir = _number(link.get("pcie_GBps_bidirectional"))
    smi_name = raw.get("nvidia_smi_name")
    extra_aliases = [a.strip() for a in smi_name.split("/")] if smi_name else []
    return {
        "name": name, "vendor": raw.get("vendor", "NVIDIA"),
        "aliases": sorted(set(aliases) | set(extra_aliases) | {raw["gpu"]}),
        "total_bytes": total, "total_source": source,
        **({"total_printed": False} if source.startswith("derived") else {}),
        "nvidia_smi_total_mib": mem.get("nvidia_smi_total_MiB"),
        "compute_capability": [int(cc.group(1)), int(cc.group(2))] if cc else None,
        "sm_count": int(_number(raw.get("sm_count"))) if _number(raw.get("sm_count")) else None,
        "memory_bandwidth_tbps": _number(raw.get("memory_bandwidth_TBps")),
        "bf16_dense_tflops": _number(raw["compute_tflops"].get("bf16_dense")),
        "nvlink_gbps_per_direction": nvlink_bidir / 2 if nvlink_bidir else None,
        "pcie_gbps_per_direction": pcie_bidir / 2 if pcie_bidir else None,
        **_rates(raw),
    }


H100_NVL = {'name': 'H100-NVL-94GB',
     'vendor': 'NVIDIA',
     'aliases': ['H100 NVL', 'H100-NVL', 'H100NVL', 'H100 NVL 94GB', 'NVIDIA H100 NVL'],
     'total_bytes': 99965363814,
     'total_source': "93.09-93.11 GiB total capacity in public PyTorch OOM messages on H100 NVL ('GPU 0 has a total "
                     "capacity of 93.10 GiB', several repositories; 93.09 and 93.11 on other drivers; 2-decimal "
                     "rounding), 93.10 taken; nvidia-smi prints 95830MiB (public nvidia-smi tables of 'NVIDIA H100 "
                     "NVL')",
     'nvidia_smi_total_mib': 95830,
     'compute_capability': [9, 0],
     'sm_count': 132,
     'memory_bandwidth_tbps': 3.9,
     'bf16_dense_tflops': 835.5,
     'nvlink_gbps_per_direction': None,
     'pcie_gbps_per_direction': 64.0,
     'fp8_dense_tflops': 1670.5,
     'fp4_dense_tflops': None,
     'int8_dense_tops': 1670.5,
     'pcie_generation': 5,
     'pcie_lanes': 16,
     'sources': {'memory_bandwidth_tbps': 'NVIDIA H100 NVL datasheet (per GPU): 94 GB HBM3, 3.9 TB/s, BF16 1,671* / '
                                          'FP8 3,341* TFLOPS (*sparsity; dense = half), 350-400 W, NVLink bridge 600 '
                                          'GB/s, PCIe Gen5 128 GB/s [vendor datasheet values recalled (UNVERIFIED '
                                          'against the PDF); corroborated by third-party tables in public '
                                          "repositories: 'H100 NVL | Hopper | 94 GB HBM3 | 3.9 TB/s | ~835 | ~1670 | "
                                          "NVLink bridge (600 GB/s)' (find_string 'H100 NVL', 2026-12-04)]",
                 'bf16_dense_tflops': 'NVIDIA H100 NVL datasheet (per GPU): 94 GB HBM3, 3.9 TB/s, BF16 1,671* / FP8 '
                                      '3,341* TFLOPS (*sparsity; dense = half), 350-400 W, NVLink bridge 600 GB/s, '
                                      'PCIe Gen5 128 GB/s [vendor datasheet values recalled (UNVERIFIED against the '
                                      "PDF); corroborated by third-party tables in public repositories: 'H100 NVL | "
                                      "Hopper | 94 GB HBM3 | 3.9 TB/s | ~835 | ~1670 | NVLink bridge (600 GB/s)' "
                                      "(find_string 'H100 NVL', 2026-12-04)]",
                 'fp8_dense_tflops': 'NVIDIA H100 NVL datasheet (per GPU): 94 GB HBM3, 3.9 TB/s, BF16 1,671* / FP8 '
                                     '3,341* TFLOPS (*sparsity; dense = half), 350-400 W, NVLink bridge 600 GB/s, PCIe '
                                     'Gen5 128 GB/s [vendor datasheet values recalled (UNVERIFIED against the PDF); '
                                     "corroborated by third-party tables in public repositories: 'H100 NVL | Hopper | "
                                     "94 GB HBM3 | 3.9 TB/s | ~835 | ~1670 | NVLink bridge (600 GB/s)' (find_string "
                                     "'H100 NVL', 2026-12-04)]",
                 'int8_dense_tops': 'derived: = dense FP8 (Hopper datasheets list INT8 TOPS equal to FP8 TFLOPS)',
                 'sm_count': '132 SMs (full GH100 configuration of the SXM part; third-party spec page '
                             'gpu.blog/gpus/nvidia-h100-nvl: 132 SMs, 16,896 CUDA cores = 128 x 132)',
                 'compute_capability': "Hopper SM90 (sglang-play check_environment.py prints 'GPU 0,...,7 Compute "
                                       "Capability: 9.0' for 'NVIDIA H100 NVL', tests/logs/data/sglang/sg_067.log)",
                 'nvlink': 'NVLink bridge 600 GB/s bidirectional (300 per direction) joins the two GPUs of a pair '
                           'only; left null so the catalog topology (hardware/topology.py Topology.from_catalog) does '
                           'not assume a full NVLink mesh across more GPUs, as H100-PCIe-80GB (same bridge)',
                 'pcie': 'PCIe Gen5 x16: bidirectional GB/s / 2 per direction (datasheet)'}}
"""H100 NVL (helper near, dc7408e): added to gpus.json by hand after H100 PCIe; kept here so a rebuild reproduces it"""


def _added() -> list[dict]:
    """The GPUs of ``scripts/gpu_catalog_added.py`` (helper gpux, 2026-12-04)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gpu_catalog_added import ADDED
    from gpu_catalog_cat23 import ADDED_23  # helper cat23, 2026-12-06
    from gpu_catalog_laptops import ADDED_LAPTOPS  # helper bl32b, 2026-12-07

    return ADDED + ADDED_23 + ADDED_LAPTOPS


UNIFIED = ("GB10", "Jetson-AGX-Thor")
"""GPUs that share the host's memory (helper uma, 2026-12-04: set in gpus.json by hand, kept here so a rebuild
reproduces it; Jetson AGX Thor added by helper gb11, 2026-12-05)"""


def _with_unified(entry: dict) -> dict:
    """``entry`` with ``unified_memory`` after ``total_source`` for the GPUs of ``UNIFIED``."""
    if entry["name"] not in UNIFIED:
        return entry
    out = {}
    for key, value in entry.items():
        out[key] = value
        if key == "total_source":
            out["unified_memory"] = True
    return out


def _with_p2p(entry: dict) -> dict:
    """``entry`` with ``pcie_p2p`` and its source from ``scripts/gpu_p2p.py`` (helper p2p, 2026-12-04)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gpu_p2p import PCIE_P2P

    if entry["name"] not in PCIE_P2P:
        return entry
    p2p, source = PCIE_P2P[entry["name"]]
    return {**entry, "pcie_p2p": p2p, "sources": {**(entry.get("sources") or {}), "pcie_p2p": source}}


def _with_hbm(entry: dict) -> dict:
    """``entry`` with ``hbm_efficiency``, ``hbm_efficiency_band`` and their source from ``scripts/gpu_hbm.py``
    (helper amdbw, 2026-12-04): achievable HBM bandwidth from public microbenchmarks."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gpu_hbm import HBM_EFFICIENCY

    if entry["name"] not in HBM_EFFICIENCY:
        return entry
    value, (low, high), source = HBM_EFFICIENCY[entry["name"]]
    return {**entry, "hbm_efficiency": value, "hbm_efficiency_band": [low, high],
            "sources": {**(entry.get("sources") or {}), "hbm_efficiency": source}}


def _with_xgmi(entry: dict) -> dict:
    """``entry`` with ``xgmi_gbps_per_link``, ``xgmi_links`` and their source from ``scripts/gpu_xgmi.py`` (helper
    xgmi, 2026-12-04): the Infinity Fabric full mesh of the 8-GPU AMD Instinct platforms."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gpu_xgmi import XGMI

    if entry["name"] not in XGMI:
        return entry
    per_link, links, source = XGMI[entry["name"]]
    return {**entry, "xgmi_gbps_per_link": per_link, "xgmi_links": links,
            "sources": {**(entry.get("sources") or {}), "xgmi": source}}


def _with_os_totals(entry: dict) -> dict:
    """``entry`` with ``sources["total_linux"]`` / ``sources["total_windows"]`` from ``scripts/gpu_totals_os.py``
    (helper cbw, 2026-12-04): the catalog total is the Linux figure; Windows/WSL2 reports the nvidia-smi total."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gpu_catalog_laptops import TOTALS_BY_OS_LAPTOPS  # helper bl32b, 2026-12-07
    from gpu_totals_os import TOTALS_BY_OS

    totals = {**TOTALS_BY_OS, **TOTALS_BY_OS_LAPTOPS}
    if entry["name"] not in totals:
        return entry
    linux, windows = totals[entry["name"]]
    return {**entry, "sources": {**(entry.get("sources") or {}), "total_linux": linux, "total_windows": windows}}


SM_COUNTS = {
    "GB200": (152, "152 SMs: 'GB200 152 SM' in ByteDance-Seed/VeOmni pull request #986 (peak-FLOPS table: 152 SM × "
                   "8192 FLOP per clock × 2.062 GHz) and 'GB200 has 152 SMs' in a public profiling note (code-search "
                   "id 54352587096); the B200 prints 148 (helper tidy27)"),
}
"""SM counts of research-catalog GPUs that the research catalog lacks: (count, source)"""


def _with_sm_count(entry: dict) -> dict:
    if entry["name"] not in SM_COUNTS or entry.get("sm_count"):
        return entry
    count, source = SM_COUNTS[entry["name"]]
    return {**entry, "sm_count": count, "sources": {**(entry.get("sources") or {}), "sm_count": source}}


def main(argv: list[str]) -> int:
    src = Path(argv[1]) if len(argv) > 1 else DEFAULT_SRC
    entries = [_entry(raw) for raw in json.loads(src.read_text())]
    at = next(i for i, e in enumerate(entries) if e["name"] == "H100-PCIe-80GB") + 1
    entries = entries[:at] + [H100_NVL] + entries[at:] + EXTRA + _added()
    entries = [_with_sm_count(_with_xgmi(_with_hbm(_with_os_totals(_with_p2p(_with_unified(e)))))) for e in entries]
    OUT.write_text(json.dumps({"source": str(src.name), "gpus": entries}, indent=1) + "\n")
    print(f"wrote {len(entries)} GPUs to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
