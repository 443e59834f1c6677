"""GPUs a new user named that the catalog lacked (helper cat23, 2026-12-06, session 23; ux23's list).

Appended after ``gpu_catalog_added.ADDED`` by ``scripts/build_gpu_catalog.py``.  Totals follow the conventions of
``gpu_catalog_added``: a printed CUDA total where a public print was found (code-search ``id``), otherwise the total
of a sibling board (same die, same memory, same nvidia-smi MiB total) or the nvidia-smi total less a sibling's driver
reservation, marked ``assumed`` (``total_printed`` False: a log's printed total is never matched to it).  Rates are
vendor datasheet figures, recalled (UNVERIFIED against the PDFs, as the rest of the catalog); a rate not checked is
``None`` and ``sources`` says why.
"""

from __future__ import annotations

from gpu_catalog_added import _RECALLED, MIB, _gpu

H200_SXM_TOTAL = 150_109_880_320
"""CUDA total measured on an H200 SXM (research catalog NOTES.md)"""
L40S_TOTAL = 47_663_399_567
"""44.39 GiB, the L40S's total in public PyTorch OOMs (research catalog)"""
H100_PCIE_TOTAL = 85_029_615_043
"""79.19 GiB, the H100 PCIe 80GB's total in public OOMs (research catalog)"""
GA102_RESERVED_MIB = 24576 - round(25_275_882_537 / MIB)
"""RTX 3090 (GA102): nvidia-smi 24576 MiB less its catalog CUDA total: about 471 MiB kept by the driver"""
AD103_RESERVED_MIB = 16376 - 15974
"""RTX 4070 Ti SUPER (AD103) on Linux: nvidia-smi 16376 MiB less torch total_memory=15974MB: 402 MiB"""
MI250X_GCD_MIB = 65520
"""torch total_memory=65520MB for one MI250X GCD (ids 6974116335, 5556608319)"""

_GEFORCE_P2P = "GeForce board: no P2P over PCIe on the stock driver, as the catalog's other GeForce cards"


_X8 = {"pcie_p2p": False, "pcie_lanes": 8, "pcie_gbps_per_direction": 16.0}
"""the RTX 4060 Ti boards' host link: PCIe Gen4 x8, 16 GB/s per direction (NVIDIA specifications, recalled, UNVERIFIED)"""


def _x8(entry: dict) -> dict:
    entry["sources"]["pcie"] = "PCIe Gen4 x8 (the RTX 4060 Ti's link): 16 GB/s per direction [" + _RECALLED + "]"
    return entry | _X8


def _amd(entry: dict) -> dict:
    return entry | {"vendor": "AMD", "nvidia_smi_total_mib": None}


ADDED_23 = [
    _gpu("H200-NVL", ["H200 NVL", "NVIDIA H200 NVL", "H200NVL", "H200-NVL-141GB", "H200 NVL 141GB"], H200_SXM_TOTAL,
         "assumed equal to the H200 SXM's measured CUDA total (150,109,880,320 B = 139.80 GiB; same GH100 die with "
         "141 GB HBM3e and the same nvidia-smi total 143771 MiB: 'NVIDIA H200 NVL, 143771 MiB' in code-search ids "
         "53178151709, 62047296390, 62032817558); a public H200 NVL host prints '143771 MiB (139.80 GB via torch)' "
         "(id 54844431486), the same 139.80 GiB. total_printed False: the H200 SXM owns that printed total",
         143771, (9, 0), 132, 4.8, 835.5, 1670.5, 1670.5, None, 5,
         {"memory_bandwidth_tbps": f"NVIDIA H200 NVL datasheet: 141 GB HBM3e, 4.8 TB/s, up to 600 W [{_RECALLED}]",
          "bf16_dense_tflops": f"NVIDIA H200 NVL datasheet: BF16 1,671* TFLOPS (*sparsity; dense = half) [{_RECALLED}]",
          "fp8_dense_tflops": f"NVIDIA H200 NVL datasheet: FP8 3,341* TFLOPS (*sparsity; dense = half) [{_RECALLED}]",
          "int8_dense_tops": "derived: = dense FP8 (Hopper datasheets list INT8 TOPS equal to FP8 TFLOPS)",
          "sm_count": "132 SMs: 'GPU: NVIDIA H200 NVL, 143771 MiB, 132 SMs, compute capability 9.0' (id 62047296390)",
          "compute_capability": "9.0: printed with the SM count (id 62047296390)",
          "nvlink": "NVLink bridge joins 2 or 4 boards only (900 GB/s bidirectional, datasheet, recalled): left null, "
                    "as H100 NVL, so the topology does not assume a full NVLink mesh"}),
    _gpu("L20", ["NVIDIA L20", "L20-48GB", "L20 48GB"], L40S_TOTAL,
         "assumed equal to the L40S's 44.39 GiB (same AD102 die with 48 GB GDDR6 and the same nvidia-smi total 46068 "
         "MiB: 'NVIDIA L20, 46068 MiB' in code-search ids 63349564404, 66494970188, 68825294295); '8x NVIDIA L20 "
         "(44.4GB each)' (id 54529074927: GiB to one decimal, 44.35-44.45) agrees. No 2-decimal print found",
         46068, (8, 9), 92, 0.864, None, None, None, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA L20: 48 GB GDDR6 at 864 GB/s, as L40S [{_RECALLED}]",
          "bf16_dense_tflops": "None: the L20's (export-limited) tensor rates were not checked; no vendor datasheet "
                               "figure found (helper tidy27: docs / pages search gave only third-party spec tables)",
          "sm_count": "92 SMs: 'One idle L20 (92 SM)' in a public benchmark note (code-search id 63152052452); "
                      "third-party spec tables list 11,776 CUDA cores = 128 × 92 (helper tidy27)",
          "compute_capability": "8.9: Ada Lovelace (AD102), as L40S [recalled]"}),
    _gpu("RTX-3080-10GB", ["RTX 3080 10GB", "GeForce RTX 3080 10GB", "RTX3080-10GB", "RTX 3080 10G"],
         (10240 - GA102_RESERVED_MIB) * MIB,
         "assumed: nvidia-smi 10240 MiB ('NVIDIA GeForce RTX 3080, 10240 MiB', code-search ids 60338815568, "
         "59528470914) less the RTX 3090's driver reservation (same GA102 die: about 471 MiB) = 9769 MiB (9.54 GiB); "
         "no Linux CUDA total found. torch prints total_memory=10240MB for 'NVIDIA GeForce RTX 3080' on a host whose "
         "OS is not shown (id 15187145315): the whole nvidia-smi total, as Windows / WSL2 report it "
         "(sources['total_windows']). The 12 GB card prints the same name: plan it as RTX-3080-12GB",
         10240, (8, 6), 68, 0.76, None, None, None, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA GeForce RTX 3080: 10 GB GDDR6X, 320-bit, 19 Gbps = 760 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "68 SMs: torch prints multi_processor_count=68 (id 15187145315)",
          "compute_capability": "8.6: torch prints major=8, minor=6 (id 15187145315)",
          "total_windows": "10240MB (10.00 GiB): torch _CudaDeviceProperties (id 15187145315; OS not shown)",
          "pcie_p2p": _GEFORCE_P2P}) | {"pcie_p2p": False},
    _gpu("RTX-3080-12GB", ["RTX 3080 12GB", "GeForce RTX 3080 12GB", "RTX3080-12GB", "RTX 3080 12G"],
         (12288 - GA102_RESERVED_MIB) * MIB,
         "assumed: nvidia-smi 12288 MiB ('NVIDIA RTX 3080, 12288 MiB, driver 580.173.02', code-search ids 68746100837, "
         "68541475662; WSL2, id 54943028613) less the RTX 3090's driver reservation (same GA102 die: about 471 MiB) = "
         "11817 MiB (11.54 GiB); no CUDA total found. It prints the same name as the 10 GB card",
         12288, (8, 6), 70, 0.912, None, None, None, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA GeForce RTX 3080 12GB: 384-bit GDDR6X, 19 Gbps = 912 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "70 SMs: GA102-220 with 8,960 CUDA cores = 128 × 70 (wccftech.com and droix.net launch "
                      "reports, 2021-12 / 2022-01; helper tidy27); no torch print found",
          "compute_capability": "8.6: GA102, as the RTX 3080 10GB and RTX 3090 [recalled]",
          "pcie_p2p": _GEFORCE_P2P}) | {"pcie_p2p": False},
    _x8(_gpu("RTX-4060-Ti-8GB", ["RTX 4060 Ti 8GB", "GeForce RTX 4060 Ti 8GB", "RTX4060Ti-8GB", "4060 Ti 8GB"],
         (8188 - AD103_RESERVED_MIB) * MIB,
         "assumed: nvidia-smi 8188 MiB ('NVIDIA GeForce RTX 4060 Ti, 8188 MiB', code-search ids 68927899329, "
         "57749743577) less the RTX 4070 Ti SUPER's Linux driver reservation (Ada: 402 MiB) = 7786 MiB (7.60 GiB); "
         "no Linux CUDA total found (a 'total_mb=8187' print, id 59633150136, is nvidia-smi's). Both 4060 Ti boards "
         "print 'NVIDIA GeForce RTX 4060 Ti': name the size",
         8188, (8, 9), 34, 0.288, None, None, None, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA GeForce RTX 4060 Ti: 128-bit GDDR6, 18 Gbps = 288 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "34: 'NVIDIA GeForce RTX 4060 Ti, 8188 MiB, compute capability 8.9, 34 multiprocessors' (id "
                      "71436958038)",
          "compute_capability": "8.9: printed with the SM count (id 71436958038)",
          "pcie_p2p": _GEFORCE_P2P})),  # PCIe Gen4 x8
    _x8(_gpu("RTX-4060-Ti-16GB", ["RTX 4060 Ti 16GB", "GeForce RTX 4060 Ti 16GB", "RTX4060Ti-16GB", "4060 Ti 16GB"],
         (16380 - AD103_RESERVED_MIB) * MIB,
         "assumed: nvidia-smi 16380 MiB ('NVIDIA GeForce RTX 4060 Ti, 16380 MiB', code-search ids 57619147197, "
         "69332849201) less the RTX 4070 Ti SUPER's Linux driver reservation (Ada: 402 MiB) = 15978 MiB (15.60 GiB); "
         "no Linux CUDA total found. Both 4060 Ti boards print 'NVIDIA GeForce RTX 4060 Ti': name the size",
         16380, (8, 9), 34, 0.288, None, None, None, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA GeForce RTX 4060 Ti 16GB: 128-bit GDDR6, 18 Gbps = 288 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "34: the same AD106 configuration as the 8 GB board (id 71436958038 prints 34 for it)",
          "compute_capability": "8.9: 'NVIDIA GeForce RTX 4060 Ti, 16380 MiB VRAM, driver 595.84, compute 8.9' (id "
                                "57619147197)",
          "pcie_p2p": _GEFORCE_P2P})),  # PCIe Gen4 x8
    _gpu("RTX-4080-SUPER", ["NVIDIA GeForce RTX 4080 SUPER", "GeForce RTX 4080 SUPER", "RTX 4080 SUPER",
                            "4080 SUPER", "RTX-4080-SUPER-16GB"], 15974 * MIB,
         "assumed equal to the RTX 4070 Ti SUPER on Linux, 15974 MiB (15.60 GiB; same AD103 die with 16 GB GDDR6X "
         "and the same nvidia-smi total 16376 MiB: 'NVIDIA GeForce RTX 4080 SUPER, 16376 MiB' in code-search ids "
         "62143206024, 55356863527, 9381359881); the RTX 4080 prints 16049MB (OS not shown): band 15974-16049 MiB; "
         "no CUDA total printed with this name was found",
         16376, (8, 9), 80, 0.736, None, None, None, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA GeForce RTX 4080 SUPER: 256-bit GDDR6X, 23 Gbps = 736 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "80 SMs: 'RTX 4080 SUPER (80 SMs' in public notes (code-search ids 52935702583, 70636497023; "
                      "helper tidy27)",
          "compute_capability": "8.9: AD103, as the RTX 4080 (torch major=8, minor=9) [recalled]",
          "pcie_p2p": _GEFORCE_P2P}) | {"pcie_p2p": False},
    _gpu("H800-PCIe", ["NVIDIA H800 PCIe", "H800 PCIe", "H800-PCIe-80GB", "H800 PCIe 80GB"], H100_PCIE_TOTAL,
         "assumed equal to the H100 PCIe 80GB's 79.19 GiB (same GH100 board with 80 GB HBM2e and the same nvidia-smi "
         "total 81559 MiB: 'NVIDIA H800 PCIe, 81559 MiB' in code-search ids 67334248980, 56121891976, 66468480194); "
         "no CUDA total printed with this name was found",
         81559, (9, 0), 114, 2.0, 756.5, 1513.0, 1513.0, None, 5,
         {"memory_bandwidth_tbps": f"NVIDIA H800 PCIe: compute and memory as H100 PCIe (2 TB/s); only NVLink is cut "
                                   f"[{_RECALLED}]",
          "bf16_dense_tflops": f"as H100 PCIe datasheet: BF16 1,513* TFLOPS (*sparsity; dense 756.5) [{_RECALLED}]",
          "fp8_dense_tflops": f"as H100 PCIe datasheet: FP8 3,026* TFLOPS (*sparsity; dense 1,513) [{_RECALLED}]",
          "int8_dense_tops": "derived: = dense FP8 (Hopper datasheets list INT8 TOPS equal to FP8 TFLOPS)",
          "sm_count": f"114 SMs, as H100 PCIe [{_RECALLED}]",
          "compute_capability": "9.0: torch capability [9, 0] for 'NVIDIA H800 PCIe' (id 66468480194)",
          "nvlink": "NVLink bridge joins two boards only: left null, as H100 PCIe"}),
    _amd(_gpu("MI250X", ["AMD Instinct MI250X", "Instinct MI250X", "MI250X-GCD", "AMD Instinct MI250X/MI250"],
              MI250X_GCD_MIB * MIB,
              "65520 MiB (63.98 GiB) per GCD: torch '_CudaDeviceProperties(name='AMD Instinct MI250X', major=9, "
              "minor=0, gcnArchName='gfx90a:sramecc+:xnack-', total_memory=65520MB, multi_processor_count=110)' "
              "(code-search id 6974116335; the same for 'AMD Instinct MI250X/MI250', id 5556608319). An MI250X "
              "module holds two GCDs that ROCm shows as two GPUs: --gpu MI250X names one GCD, so a module is --tp 2",
              None, None, 110, 1.6, 191.5, None, None, None, 4,
              {"memory_bandwidth_tbps": "AMD Instinct MI250X data sheet: 128 GB HBM2e at 3.2 TB/s per module, two "
                                        f"GCDs: 1.6 TB/s each [{_RECALLED}]",
               "bf16_dense_tflops": "AMD Instinct MI250X data sheet: BF16 383 TFLOPS per module (CDNA 2 has no "
                                    f"sparsity), two GCDs: 191.5 each [{_RECALLED}]",
               "sm_count": "110 compute units per GCD: torch multi_processor_count=110 (id 6974116335)",
               "compute_capability": "None: an AMD GPU (gfx90a)",
               "pcie": "PCIe Gen4 x16 host link [recalled]"})),
    _amd(_gpu("MI250", ["AMD Instinct MI250", "Instinct MI250", "MI250-GCD"], MI250X_GCD_MIB * MIB,
              "assumed equal to one MI250X GCD, 65520 MiB (63.98 GiB): same gfx90a die with 64 GB HBM2e per GCD; torch "
              "names the family 'AMD Instinct MI250X/MI250' with total_memory=65520MB (code-search id 5556608319). "
              "No print naming the MI250 alone was found. --gpu MI250 names one GCD, so a module is --tp 2",
              None, None, 104, 1.6, 181.05, None, None, None, 4,
              {"memory_bandwidth_tbps": "AMD Instinct MI250 data sheet: 128 GB HBM2e at 3.2 TB/s per module, two "
                                        f"GCDs: 1.6 TB/s each [{_RECALLED}]",
               "bf16_dense_tflops": "AMD Instinct MI250: FP16 / bf16 peak 362.1 TFLOPS per module (AMD's MI200 launch "
                                    "table as quoted by zexron.com; AnandTech's MI210 launch table: FP16 matrix 362), "
                                    "CDNA 2 has no sparsity; two GCDs: 181.05 each (helper tidy27)",
               "sm_count": "104 compute units per GCD: ROCm docs 'AMD Instinct MI250 microarchitecture' ('The MI250 "
                           "GCD has 104 active CUs'); AnandTech's MI210 launch table: 2 × 104 (helper tidy27)",
               "compute_capability": "None: an AMD GPU (gfx90a)",
               "pcie": "PCIe Gen4 x16 host link [recalled]"})),
    _amd(_gpu("MI210", ["AMD Instinct MI210", "Instinct MI210", "MI210-64GB"], MI250X_GCD_MIB * MIB,
              "assumed equal to one MI250X GCD, 65520 MiB (63.98 GiB): the same gfx90a die with 64 GB HBM2e on one "
              "PCIe card (torch total_memory=65520MB for a GCD, code-search id 6974116335); no CUDA total printed "
              "with the name MI210 was found",
              None, None, 104, 1.6, 181.0, None, None, None, 4,
              {"memory_bandwidth_tbps": f"AMD Instinct MI210 data sheet: 64 GB HBM2e at 1.6 TB/s [{_RECALLED}]",
               "bf16_dense_tflops": "AMD Instinct MI210: FP16 matrix 181 TFLOPS (AnandTech's launch table, 2022-03, "
                                    "from AMD's specifications); CDNA 2 runs bf16 at the FP16 matrix rate (AMD's MI250 "
                                    "table gives one 'FP16 | bf16' figure); no sparsity (helper tidy27)",
               "sm_count": "104 compute units: AnandTech's MI210 launch table (one CDNA 2 GCD, as the MI250's) "
                           "(helper tidy27)",
               "compute_capability": "None: an AMD GPU (gfx90a)"})),
]
