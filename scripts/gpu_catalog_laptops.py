"""GeForce RTX 40 / 50 laptop GPUs (helper bl32b, 2026-12-07, session 32; round bl32's lead: a new user's RTX 4060
Laptop under WSL2 had no catalog entry).

Appended after ``gpu_catalog_cat23.ADDED_23`` by ``scripts/build_gpu_catalog.py``.  A laptop part is its own card:
torch and nvidia-smi print 'NVIDIA GeForce RTX 4060 Laptop GPU', and its memory, die and SM count differ from the
desktop board of the same number (the RTX 4090 Laptop is an AD103 with 16 GB, the desktop RTX 4090 an AD102 with 24).

Conventions of ``gpu_catalog_added`` / ``gpu_catalog_cat23``:

* ``nvidia_smi_total_mib`` is the MiB total public ``nvidia-smi`` output prints with the laptop name (search-index
  file ids below; every one of them has at least two independent prints);
* ``total_bytes`` is the Linux CUDA total.  No two-decimal Linux CUDA print of a laptop part was found, so each is
  ``assumed``: the desktop sibling's total where the die, memory and nvidia-smi total are the same (RTX 4090 Laptop =
  RTX 4070 Ti SUPER, AD103 16 GB, 16376 MiB; RTX 5080 Laptop = RTX 5080, GB203 16 GB, 16303 MiB), otherwise the
  nvidia-smi total less the generation's driver reservation (Ada: 402 MiB, the RTX 4070 Ti SUPER's, as the catalog's
  RTX 4060 Ti 8GB; Blackwell GeForce: 462 MiB, the 16 GB RTX 50 cards').  ``total_printed`` is False, so a log's
  printed total is never matched to them.  Under Windows and WSL2, CUDA reports the nvidia-smi total itself
  (``sources["total_windows"]``; the planner's ``_wsl2_total``);
* SM counts and compute capabilities are printed ones where found; NVIDIA's laptop comparison pages list CUDA cores
  (128 per SM on Ada and Blackwell) and bus widths; a memory bandwidth is kept only where a data rate was found with
  the part's name, and no tensor rate was checked (``tpkit perf`` then refuses with that reason); the host link
  (PCIe generation and lanes) is recorded only where a print names it.
"""

from __future__ import annotations

from gpu_catalog_added import MIB, _gpu

from tpkit.units import Bytes, MiB, gib_text

ADA_RESERVED_MIB = 16376 - 15974
"""RTX 4070 Ti SUPER (AD103) on Linux: nvidia-smi 16376 MiB less torch total_memory=15974MB: 402 MiB"""
BLACKWELL_RESERVED_MIB = 16303 - 15841
"""16 GB GeForce RTX 50 cards on Linux: nvidia-smi 16303 MiB less 15.47 GiB (15841 MiB): 462 MiB"""
RTX_4070_TI_SUPER_TOTAL = 16_749_953_024
"""15974 MiB, the catalog's RTX 4070 Ti SUPER (AD103, 16 GB, nvidia-smi 16376 MiB)"""
RTX_5080_TOTAL = 16_610_492_416
"""15841 MiB = 15.47 GiB, the catalog's RTX 5080 (GB203, 16 GB, nvidia-smi 16303 MiB)"""

_NVIDIA_ADA = ("NVIDIA's GeForce laptop comparison page (nvidia.com/de-de/geforce/gaming-laptops/compare): RTX 4090 / "
               "4080 / 4070 / 4060 / 4050 Laptop GPU 9,728 / 7,424 / 4,608 / 3,072 / 2,560 CUDA cores, 16 / 12 / 8 / 8 "
               "/ 6 GB GDDR6 on 256 / 192 / 128 / 128 / 96-bit, PCI Express Gen 4")
_NVIDIA_BLACKWELL = ("NVIDIA's CES 2025 laptop specifications (neowin.net 2025-01-07; comptoir-hardware.com 47921): RTX "
                     "5090 / 5080 / 5070 Ti / 5070 Laptop GPU 10,496 / 7,680 / 5,888 / 4,608 CUDA cores, 24 / 16 / 12 / 8 "
                     "GB GDDR7 on 256 / 256 / 192 / 128-bit; dies GB203 / GB203 / GB205 / GB206")
_NO_RATE = "None: the laptop part's tensor rate (and its configurable power limit) was not checked"
_NO_BW = "None: bus width known ({bits}-bit, {spec}), but no memory data rate was found printed with the part's name"
_ADA_CC = "8.9: every Ada Lovelace part is sm_89"
_BW_CC = "12.0: every GeForce RTX 50 part is sm_120"


def _laptop(name, number, extra_aliases, total_bytes, total_source, smi, cc, sms, bw, sources, pcie_gen=None):
    """One laptop entry; the aliases are the strings torch / nvidia-smi print and the spellings users type."""
    aliases = [f"NVIDIA GeForce RTX {number} Laptop GPU", f"GeForce RTX {number} Laptop GPU",
               f"RTX {number} Laptop GPU", f"GeForce RTX {number} Laptop", f"RTX {number} Laptop",
               f"RTX {number} Mobile", *extra_aliases]
    sources = {"bf16_dense_tflops": _NO_RATE,
               "names": f"a different card from the desktop RTX {number}: torch and nvidia-smi print 'NVIDIA "
                        f"GeForce RTX {number} Laptop GPU', which the log reader keeps whole (logs.gpu_names.gpu_in)",
               **sources}
    entry = _gpu(name, aliases, total_bytes, total_source, smi, cc, sms, bw, None, None, None, None, pcie_gen,
                 sources)
    if pcie_gen is None:
        entry["sources"]["pcie"] = "None: the laptop's host link (lanes vary by part and design) was not checked"
    return entry


def _smi_less(smi_mib: int, reserved_mib: int, sibling: str) -> tuple[int, str]:
    total_mib = smi_mib - reserved_mib
    return total_mib * MIB, (f"assumed: nvidia-smi {smi_mib} MiB less the {sibling} driver reservation "
                             f"({reserved_mib} MiB) = {total_mib} MiB ({gib_text(MiB(total_mib))}); no Linux CUDA "
                             "total printed with the laptop name "
                             "was found (helper bl32b, 2026-12-07)")


_4050 = _smi_less(6141, ADA_RESERVED_MIB, "Ada (RTX 4070 Ti SUPER's, as the catalog's RTX 4060 Ti 8GB)")
_4060 = _smi_less(8188, ADA_RESERVED_MIB, "Ada (RTX 4070 Ti SUPER's, as the catalog's RTX 4060 Ti 8GB)")
_4070 = _smi_less(8188, ADA_RESERVED_MIB, "Ada (RTX 4070 Ti SUPER's, as the catalog's RTX 4060 Ti 8GB)")
_4080 = _smi_less(12282, ADA_RESERVED_MIB, "Ada (RTX 4070 Ti SUPER's)")
_5070 = _smi_less(8151, BLACKWELL_RESERVED_MIB, "16 GB GeForce RTX 50 cards'")
_5070TI = _smi_less(12227, BLACKWELL_RESERVED_MIB, "16 GB GeForce RTX 50 cards'")

ADDED_LAPTOPS = [
    _laptop("RTX-4050-Laptop", "4050", ["RTX-4050-Laptop-6GB"], _4050[0],
            _4050[1] + ". nvidia-smi: 'NVIDIA GeForce RTX 4050 Laptop GPU, 6141 MiB' (Windows, id 64270593646; "
            "WSL2, id 69525328608; Windows, id 70495557676)", 6141, (8, 9), 20, None,
            {"sm_count": "20: 'RTX 4050 Laptop GPU (20 SMs, 2560 CUDA cores)' (id 56098291786) and '(20 SMs, PCIe "
                         "gen4 x8)' (id 57443460952); 2,560 CUDA cores = 128 x 20 (" + _NVIDIA_ADA + ")",
             "compute_capability": _ADA_CC,
             "memory_bandwidth_tbps": _NO_BW.format(bits=96, spec="NVIDIA's comparison page")}),
    _laptop("RTX-4060-Laptop", "4060", ["RTX-4060-Laptop-8GB"], _4060[0],
            _4060[1] + "; torch prints '(7.6 GB VRAM)' on Linux (id 57988996311), as this total. nvidia-smi: 'NVIDIA "
            "GeForce RTX 4060 Laptop GPU, 8188 MiB' (Linux, ids 65934768854, 55883846010; WSL2, id 53229816029; "
            "OSH-2026/KVFabric env.json 'memory_total_mib': '8188 MiB' under WSL2)", 8188, (8, 9), 24, 0.256,
            {"sm_count": "24: 'NVIDIA GeForce RTX 4060 Laptop GPU (24 SMs, CC 8.9)' (id 58702334997), '(24 SMs, "
                          "8.6 GB, sm_89)' (id 56335276257); 3,072 CUDA cores = 128 x 24 (" + _NVIDIA_ADA + ")",
             "compute_capability": "8.9: 'NVIDIA GeForce RTX 4060 Laptop GPU, 8188 MiB, 8.9, 572.83' (nvidia-smi "
                                   "compute_cap, id 61654304447)",
             "memory_bandwidth_tbps": "256 GB/s: 128-bit GDDR6 at 16 Gbps (notebookcheck.com's RTX 4060 Laptop GPU "
                                      "page: 'effektiv 16 Gbps'; cpu-gpu.alldbin.com 'Memory bandwidth 256.0 GB/s')"}),
    _laptop("RTX-4070-Laptop", "4070", ["RTX-4070-Laptop-8GB"], _4070[0],
            _4070[1] + ". nvidia-smi: 'NVIDIA GeForce RTX 4070 Laptop GPU, 8188 MiB' (WSL2, id 56859980764; "
            "Linux driver 610.88, id 68829031216; ids 70224777412, 63031883079); Ultralytics prints 'CUDA:0 (NVIDIA "
            "GeForce RTX 4070 Laptop GPU, 8188MiB)' (id 59940065842)", 8188, (8, 9), 36, None,
            {"sm_count": "36: 'one RTX 4070 Laptop GPU (36 SMs, sm_89)' (id 60826839834); 4,608 CUDA cores = 128 x 36 "
                         "(" + _NVIDIA_ADA + ")",
             "compute_capability": "8.9: printed with the SM count (id 60826839834)",
             "memory_bandwidth_tbps": _NO_BW.format(bits=128, spec="NVIDIA's comparison page")}),
    _laptop("RTX-4080-Laptop", "4080", ["RTX-4080-Laptop-12GB"], _4080[0],
            _4080[1] + ". nvidia-smi: 'NVIDIA GeForce RTX 4080 Laptop GPU, 12282 MiB' (Windows, id 62584158827; "
            "Linux driver 580.159.03, id 57508345888; Linux, id 57921054830; id 61736568208)", 12282, (8, 9), 58,
            None,
            {"sm_count": "58: 7,424 CUDA cores = 128 x 58 (" + _NVIDIA_ADA + "); no printed SM count found",
             "compute_capability": _ADA_CC + " (AD104)",
             "memory_bandwidth_tbps": _NO_BW.format(bits=192, spec="NVIDIA's comparison page") + " (hardwaredb.net "
                                      "says 421 GB/s, a figure no other source gives)"}),
    _laptop("RTX-4090-Laptop", "4090", ["RTX-4090-Laptop-16GB"], RTX_4070_TI_SUPER_TOTAL,
            "assumed equal to the RTX 4070 Ti SUPER's Linux total (15974 MiB = 15.60 GiB): the same AD103 die with 16 "
            "GB GDDR6 and the same nvidia-smi total 16376 MiB ('RTX 4090 Laptop GPU, 16,376 MiB total', Windows, id "
            "68433142606; '1x NVIDIA GeForce RTX 4090 Laptop GPU, 16 GB (16376 MiB), compute capability 8.9', Ubuntu "
            "26.04 driver 615.71.09, id 70089960795; id 68563937849); no Linux CUDA total printed with the laptop "
            "name was found (helper bl32b, 2026-12-07)", 16376, (8, 9), 76, None,
            {"sm_count": "76: 'NVIDIA GeForce RTX 4090 Laptop GPU, 16 GB, compute capability 8.9, 76 SMs' (id "
                         "71074771301); 9,728 CUDA cores = 128 x 76 (" + _NVIDIA_ADA + ")",
             "compute_capability": "8.9: printed (ids 71074771301, 70089960795)",
             "memory_bandwidth_tbps": _NO_BW.format(bits=256, spec="NVIDIA's comparison page") + " (notebookcheck "
                                      "gives 20 Gbps, other spec pages 18 Gbps: left unknown)"}),
    _laptop("RTX-5070-Laptop", "5070", ["RTX-5070-Laptop-8GB"], _5070[0],
            _5070[1] + "; '(7.5 GB VRAM)' on a Linux host (id 42479360526) agrees. nvidia-smi: 'RTX 5070 Laptop "
            "GPU, 8151 MiB' (Windows, id 67379821539; WSL2, id 67125664782; ids 67628891951, 54012032397); Windows "
            "torch '(7.96 GiB)' = 8151 MiB (id 57351065921)", 8151, (12, 0), 36, None,
            {"sm_count": "36: 'NVIDIA GeForce RTX 5070 Laptop GPU (36 SMs, Blackwell SM 12.0, 7.96 GB GDDR7)' (id "
                         "68609352855); 4,608 CUDA cores = 128 x 36 (" + _NVIDIA_BLACKWELL + ")",
             "compute_capability": "12.0: printed with the SM count (id 68609352855); 'SM 12.0' (id 67125664782)",
             "memory_bandwidth_tbps": _NO_BW.format(bits=128, spec="NVIDIA's CES 2025 specifications")}),
    _laptop("RTX-5070-Ti-Laptop", "5070 Ti", ["RTX-5070-Ti-Laptop-12GB"], _5070TI[0],
            _5070TI[1] + ". nvidia-smi: 'NVIDIA GeForce RTX 5070 Ti Laptop GPU, 12227 MiB' (WSL2, id 68530966771; "
            "ids 70708410076, 69272926274, 69586572000)", 12227, (12, 0), 46, None,
            {"sm_count": "46: 'RTX 5070 Ti Laptop GPU (46 SMs)' (id 68693379163); 5,888 CUDA cores = 128 x 46 ("
                          + _NVIDIA_BLACKWELL + ")",
             "compute_capability": "12.0: 'NVIDIA GeForce RTX 5070 Ti Laptop GPU, 12227 MiB (Blackwell sm120)' (id "
                                   "68530966771)",
             "memory_bandwidth_tbps": _NO_BW.format(bits=192, spec="NVIDIA's CES 2025 specifications")}),
    _laptop("RTX-5080-Laptop", "5080", ["RTX-5080-Laptop-16GB"], RTX_5080_TOTAL,
            "assumed equal to the desktop RTX 5080's Linux total (15841 MiB = 15.47 GiB, printed: the catalog's "
            "RTX-5080): the same GB203 die with 16 GB GDDR7 and the same nvidia-smi total 16303 MiB ('NVIDIA GeForce "
            "RTX 5080 Laptop GPU, 16303 MiB', id 71338942517; '16,303 MiB, driver 616.92', id 70606259764; WSL2, id "
            "67588198608); no Linux CUDA total printed with the laptop name was found (helper bl32b, 2026-12-07)",
            16303, (12, 0), 60, None,
            {"sm_count": "60: 'NVIDIA GeForce RTX 5080 Laptop GPU (60 SMs, 16GB, Blackwell Architecture, Compute "
                         "Capability 12.0)' (id 55058610448); 7,680 CUDA cores = 128 x 60 (" + _NVIDIA_BLACKWELL + ")",
             "compute_capability": "12.0: printed with the SM count (id 55058610448)",
             "memory_bandwidth_tbps": _NO_BW.format(bits=256, spec="NVIDIA's CES 2025 specifications")}),
]
"""The RTX 5090 Laptop GPU is catalogued already (helper cat20, ``gpu_catalog_added``)."""

TOTALS_BY_OS_LAPTOPS: dict[str, tuple[str, str]] = {
    entry["name"]: (
        f"not printed: {entry['total_bytes'] // MIB} MiB ({gib_text(Bytes(entry['total_bytes']))}) assumed "
        "(catalog total_source)",
        f"{entry['nvidia_smi_total_mib']} MiB = {gib_text(MiB(entry['nvidia_smi_total_mib']))} (= nvidia-smi) "
        "expected under Windows and WSL2, as every GeForce card the catalog traces there (scripts/gpu_totals_os.py)"
        + ("; Windows torch prints '(7.96 GiB)' for the RTX 5070 Laptop GPU (id 57351065921)"
           if entry["name"] == "RTX-5070-Laptop" else ""))
    for entry in ADDED_LAPTOPS
}
"""``sources["total_linux"]`` / ``sources["total_windows"]`` of the laptop parts (read by build_gpu_catalog)."""
