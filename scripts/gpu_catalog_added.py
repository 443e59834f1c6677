"""GPUs added to the catalog on 2026-12-04 (helper gpux): cards that public SGLang/vLLM threads serve on.

Read by ``scripts/build_gpu_catalog.py`` (appended after ``EXTRA``).  Every ``total_bytes`` rests on printed evidence
(found with the code-search index; ``id`` = its file id) or on the sibling relation stated in ``total_source``:

* ``torch ... total_memory=NMB`` (``_CudaDeviceProperties``) is ``cudaMemGetInfo``'s total floored to MiB, so the
  total is N MiB (+<1 MiB);
* 'X GiB total capacity' (PyTorch OOM) and vLLM's 'Free memory on device (a/X GiB)' are 2-decimal GiB (±5 MiB);
* a sibling board (same die, same memory, same nvidia-smi MiB total, same driver architecture) is assumed to
  reserve the same driver memory; the entry names the sibling.

Rates are vendor datasheet figures, recalled (UNVERIFIED against the PDFs, as the rest of the catalog); a rate
that was not checked is ``None`` and ``sources`` says why (``tpkit perf`` then refuses with a clear error).
"""

from __future__ import annotations

GIB = 2**30
MIB = 2**20

_RECALLED = "vendor datasheet value recalled (UNVERIFIED against the PDF)"


def _gpu(name, aliases, total_bytes, total_source, smi, cc, sms, bw, bf16, fp8, int8, nvlink, pcie_gen, sources,
         fp4=None):
    """One catalog entry; ``total_printed`` is False where ``total_source`` derives or assumes the total."""
    pcie = {3: 16.0, 4: 32.0, 5: 64.0, 6: 128.0}.get(pcie_gen)
    return {
        "name": name, "vendor": "NVIDIA", "aliases": list(aliases), "total_bytes": int(total_bytes),
        "total_source": total_source,
        **({"total_printed": False} if total_source.startswith(("derived", "assumed")) else {}),
        "nvidia_smi_total_mib": smi, "compute_capability": list(cc) if cc else None,
        "sm_count": sms, "memory_bandwidth_tbps": bw, "bf16_dense_tflops": bf16, "nvlink_gbps_per_direction": nvlink,
        "pcie_gbps_per_direction": pcie, "fp8_dense_tflops": fp8, "fp4_dense_tflops": fp4, "int8_dense_tops": int8,
        "pcie_generation": pcie_gen, "pcie_lanes": 16 if pcie_gen else None,
        "sources": {**sources, **({"pcie": f"PCIe Gen{pcie_gen} x16: {pcie:g} GB/s per direction"} if pcie else {})},
    }


def _gib(x: float) -> int:
    return round(x * GIB)


A6000_RESERVED_MIB = 49140 - 47.54 * 1024
"""RTX A6000: nvidia-smi 49140 MiB − CUDA 47.54 GiB (OOM messages) ≈ 459 MiB (GA102 professional board, ECC off)"""

GH200_NAMES = ("PCI device ids: 0x2342 'GH200 120GB / 480GB', 0x2348 'GH200 144G HBM3e' (a public device-id table, "
               "code-search id 56908000193). Both the '480GB' name (Lambda, CoreWeave: 96 GB HBM3 + 480 GB LPDDR5X) "
               "and the '120GB' name (Isambard-AI, CSCS Alps: 96 GB HBM3 + 120 GB LPDDR5X) are the 96 GB HBM3 part: "
               "nvidia-smi 97871 MiB for 'NVIDIA GH200 480GB' (ids 63088167599, 70251699437, 21145329640) and for "
               "'NVIDIA GH200 120GB' (ids 56775069589, 27227423299); DCGM names the same part 'NVIDIA GH200 96GB "
               "HBM3' (id 1624910371). The HBM3e part prints 'NVIDIA GH200 144G HBM3e'. The LPDDR5X figure in the "
               "name is the Grace CPU's memory, not the GPU's")
"""which marketing name is which HBM size (helper gh18, 2026-12-05)"""

QUADRO_RTX_6000_TOTAL = (
    "derived: 23.48 GiB, the value the current drivers' public prints bound, not one print (helper cat20, 2026-12-06): "
    "'Quadro RTX 6000 (25.2 GB VRAM), CUDA 12.1' on Chameleon Cloud in a pytorch 2.3.1 container (torch total_memory / "
    "1e9 to one decimal, code-search id 53943975161: 25.15-25.25e9 B = 23.42-23.52 GiB) and 'Quadro RTX 6000 (23.5 "
    "GB)' (id 53737208711; read as GiB, 23.45-23.55: as 10^9 B it would be 21.9 GiB, below even the ECC total) leave "
    "23.45-23.52 GiB; the midpoint is taken (+-0.04 GiB). An older driver printed more: TensorFlow 'deviceMemorySize: "
    "23.65GiB' (CUDA 10.1, 2021, id 30987391085), as the T4's total fell from 14.75 to 14.56 GiB across drivers. "
    "nvidia-smi 24576 MiB ('Quadro RTX 6000, 24576 MiB', ids 24772025572, 62464896316, 57664220311): about 530 MiB "
    "kept by current drivers. total_printed False: no 2-decimal print, so a log's printed total is not matched to it")
QUADRO_RTX_6000_ECC = (
    "ECC on (GDDR6 ECC takes 1/16 of the memory): TensorFlow 'totalMemory: 22.17GiB' for 'Quadro RTX 6000' on hosts "
    "with ECC enabled (2020, ids 23092698863, 22295764174), nvidia-smi 23040 MiB expected; pass --gpu-memory with the "
    "total such a host prints. The catalog total is the ECC-off board (nvidia-smi 24576 MiB)")
RTX_PRO_4000_TOTAL = (
    "derived: 25.15e9 B (23.42 GiB), where two public one-decimal prints of torch's total meet (helper cat20, "
    "2026-12-06): 'NVIDIA RTX PRO 4000 Blackwell (25.1 GB)' on Linux 7.0.0, PyTorch 2.10.0+cu128 (code-search id "
    "55782846507: 25.05-25.15e9 B) and '2x NVIDIA RTX PRO 4000 Blackwell (25.2 GB each)', driver 580.126.20, CUDA 12.8 "
    "(id 53994408445: 25.15-25.25e9 B); 'NVIDIA RTX PRO 4000 Blackwell (23.4 GB)' (id 58288009175, read as GiB: "
    "23.35-23.45) agrees. +-0.05 GiB across drivers. nvidia-smi 24467 MiB ('NVIDIA RTX PRO 4000 Blackwell, 24467 "
    "MiB', ids 58724219395, 69530223407, 70333623464): about 480 MiB kept by the driver, as the 16 GB GeForce RTX 50 "
    "cards' 462 and the RTX 5090's 497. total_printed False: no 2-decimal print")
RTX_5090_LAPTOP_LINUX_MIB = 24463 - round(24467 - 25_150_000_000 / MIB)
"""the laptop's nvidia-smi total less the RTX PRO 4000 Blackwell's driver reservation (RTX_5090_LAPTOP_TOTAL)"""
RTX_5090_LAPTOP_TOTAL = (
    "assumed: 23,981 MiB (23.42 GiB) on native Linux, the laptop's nvidia-smi total less the driver reservation of the "
    "RTX PRO 4000 Blackwell (the same GB203 die with 24 GB GDDR7, per spec databases: sources['sm_count'] of both; "
    "nvidia-smi 24467 MiB against "
    "25.15e9 B: about 482 MiB); no native-Linux CUDA total of the laptop part was found (helper cat20, 2026-12-06). "
    "nvidia-smi 24463 MiB ('NVIDIA GeForce RTX 5090 Laptop GPU, 24463 MiB', native Linux driver 595.84, code-search "
    "id 63394556998; WSL2, id 70087897011; Windows, id 70097303325). Under Windows and WSL2 CUDA reports that whole "
    "24463 MiB (23.89 GiB): sources['total_windows']; a laptop that drives its display holds about 1.25 GiB more "
    "before an engine starts (id 69300623191)")

GH200_96_TOTAL = (
    "97280 MiB (95.00 GiB), printed for the 96 GB HBM3 GH200 ('GH200 480GB' / 'GH200 120GB'; which name is which: "
    "sources['names']): OpenCL-Benchmark '97280 MB VRAM' (whole MiB) on 'NVIDIA GH200 480GB', driver 555.42.06 "
    "(github.com/mredenti/PowerCapping configuration/OpenCL_benchmark.md); PyTorch 'GPU 3 has a total capacity of "
    "95.00 GiB' on Isambard-AI's GH200 nodes (code-search id 61879620124). nvidia-smi 97871 MiB: the driver keeps "
    "591 MiB (helper gh18, 2026-12-05)")

GH200_96_NOT_MATCHED = (
    "total_printed False although the total is printed: GH200-96GB is kept out of matching a log's total to a GPU "
    "(logs.gpu_names.gpus_with_total, explain.gpuinfer), as MIG slices are. Its 95.00 GiB lies 31 MiB from the "
    "RTX PRO 6000's printed 94.97 GiB: no 2-decimal print or start-up bound separates them, and a match would make "
    "every unnamed RTX PRO 6000 log ambiguous (the seed scenario's among them). GH200 logs name their GPU (torch's "
    "'NVIDIA GH200 480GB', vLLM's device_name=NVIDIA_GH200_120GB config paths), which the log reader maps")

GH200_144_TOTAL = (
    "153008209920 bytes (145920 MiB, 142.50 GiB), printed for 'NVIDIA GH200 144G HBM3e': a recorded snapshot of a "
    "real device's cuDeviceTotalMem_v2, CUDA driver 13.2 (code-search id 71545924480), and the same project's torch "
    "check total_memory == 153008209920 (id 71276350143). One host, one driver: pass --gpu-memory with the total yours "
    "prints if it differs. nvidia-smi 146831 MiB (a test fixture, id 71515830599): about 911 MiB kept by the driver "
    "(helper gh18, 2026-12-05)")

GH200_96_BANDWIDTH = (
    f"NVIDIA GH200 datasheet: 96 GB HBM3 at 4 TB/s [{_RECALLED}]; 'a GH200 96GB HBM3 part with a 4.0 TB/s nominal "
    "peak and a measured 3.6 TB/s achieved copy rate' (id 57479413698); OpenCL-Benchmark on 'NVIDIA GH200 480GB': "
    "coalesced read 3614.60 GB/s, write 3704.77 GB/s (mredenti/PowerCapping)")

GH200_144_BANDWIDTH = (
    f"NVIDIA GH200 datasheet: 144 GB HBM3e at 4.9 TB/s [{_RECALLED}]; the device snapshot (id 71545924480) gives a "
    "memory clock of 3,201,000 kHz on a 6144-bit bus: 2 x 3.201 GHz x 768 B = 4.92 TB/s")

GH200_COMMON = {
    "bf16_dense_tflops": ("as H100 SXM5: the GH200 datasheet's Hopper GPU lists FP16/BF16 1,979* and FP8 3,958* "
                          f"TFLOPS (*sparsity; dense = half: 989.4 / 1,978.9), the H100 SXM5 figures [{_RECALLED}]"),
    "fp8_dense_tflops": f"as H100 SXM5: GH200 datasheet FP8 3,958* TFLOPS (*sparsity; dense 1,978.9) [{_RECALLED}]",
    "int8_dense_tops": "derived: = dense FP8 (Hopper datasheets list INT8 TOPS equal to FP8 TFLOPS)",
    "sm_count": ("132 SMs: OpenCL-Benchmark 'Compute Units | 132 at 1980 MHz (16896 cores)' on 'NVIDIA GH200 480GB' "
                 "(mredenti/PowerCapping); CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 132 in the 'NVIDIA GH200 144G "
                 "HBM3e' snapshot (id 71545924480); 'GH200 144G HBM3e, 132 SMs' (id 70157782105)"),
    "compute_capability": ("9.0: attributes 75/76 (major/minor) 9 / 0 in the GH200 144G HBM3e snapshot (id "
                           "71545924480); 'NVIDIA GH200 480GB | 9.0' (id 57374765967)"),
    "nvlink": ("NVLink 4, 18 links, 900 GB/s bidirectional per GPU (450 per direction), as H100 SXM5, between "
               "superchips: GH200 NVL2 pairs two over NVLink ('Two NVIDIA GH200 144G HBM3e GPUs … nvidia-smi topo -m "
               "reports NV18 between the GPUs', id 70402585252), GH200 NVL32 joins 32 through NVLink switches "
               f"[{_RECALLED}], and an Isambard-AI / Alps node (HPE Cray EX254n: 4 GH200 per node, "
               "glennklockwood.com/garden/systems/Isambard-AI) runs TP inside the node over NVLink ('TP 2: Tensor "
               "parallel (node-local NVLink)', 'a single node (NVLink-only)', id 52901019904; with 4 GPUs the 18 links "
               "are shared by 3 peers: about 150 GB/s per direction per pair, inferred, not printed). Caveats: a "
               "1x GH200 cloud instance has one GPU; some 2x GH200 MGX servers have no GPU-to-GPU NVLink ('The two "
               "GH200 modules are connected through the CPU side. There is no GPU peer path between the two "
               "Hoppers', id 56803091566): plan such a host with --link pcie --no-p2p"),
    "nvlink_c2c": ("NVLink-C2C to the Grace CPU: 900 GB/s bidirectional, 450 GB/s per direction ('NVIDIA's published "
                   "NVLink-C2C link peak', id 71545924480; 'NVLINK C2C interface with data rates upto 450GB/s per "
                   "direction', DGX-GH200 notes). Not a PCIe host link: pcie left null, as GB200"),
    "unified_memory": (
        "not unified in the catalog's sense (False): CUDA's total and free memory are the HBM only (95.00 / 142.50 "
        "GiB, not HBM + LPDDR5X); CU_DEVICE_ATTRIBUTE_INTEGRATED is 0 in the GH200 144G HBM3e snapshot (attribute 18, "
        "id 71545924480; PAGEABLE_MEMORY_ACCESS 1: the GPU reads host memory through ATS, which no engine's KV sizing "
        "uses). So the engines' unified-memory branches are not taken (read in the wheels, helper gh18): vLLM 0.11.1-"
        "0.19 test the compute capability against (8,7) / (11,0) / (12,1) (utils/mem_utils.py "
        "shared_sysmem_device_mem_sms; GH200 is (9,0)), vLLM 0.20+ ask torch's is_integrated (platforms/cuda.py "
        "is_integrated_gpu, read in 0.33.0; its docstring names GH200 among UMA systems, but the test is "
        "is_integrated, 0 on GH200), SGLang get_available_gpu_memory asks props.is_integrated (read in 0.5.20), vLLM "
        "before 0.11.1 has no such branch. GB10 (is_integrated 1, no HBM) is the unified one. A GH200 caveat the "
        "engines do not model: drivers before R570 let the Linux page cache migrate into GPU memory and not be "
        "evicted, which lowers the free memory at start-up (CSCS known issues, eth-cscs/cscs-docs "
        "docs/running/known-issues.md, driver R550.54.15)"),
    "pcie": "None: the GPU's host link is NVLink-C2C, not PCIe",
    "names": GH200_NAMES,
    "total_evidence": (
        "GH200-96GB: '95GB usable' for the Isambard 'NVIDIA GH200 120GB' (id 52901019904); further unnamed '95.00 GiB "
        "total capacity' OOMs (ids 69680186473, 68731773155, 67652956043). Until 2026-12-05 vp_761 assumed 94.98 GiB "
        "(nvidia-smi 97871 MiB less H200's 616 MiB, the H20-96GB derivation); the printed 95.00 is 20 MiB more. "
        "GH200-144GB: one snapshot only; band unknown across drivers"),
    "nvlink_multicast": (
        "False: CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED (attribute 132) is 0 in the 'NVIDIA GH200 144G HBM3e' snapshot "
        "(id 71545924480, a 1-GPU host; attributes 126 MEM_SYNC_DOMAIN_COUNT 4 and 128 HANDLE_TYPE_FABRIC_SUPPORTED "
        "1 read as expected, so the enum is aligned). Multicast objects need an NVSwitch; the GH200 hosts tpkit "
        "plans (1x, NVL2 pairs, the 4-superchip Isambard-AI / Alps nodes) join their GPUs by direct NVLink, so "
        "NCCL's NVLS stays off (src/transport/nvls.cc ncclNvlsInit) and startup.nvls plans no NVLS buffers. Inferred "
        "for the 4-GPU nodes from the missing NVSwitch, not printed there; a GH200 NVL32 (NVLink switches) would "
        "have multicast: not modelled"),
}
"""facts shared by both GH200 entries (helper gh18, 2026-12-05)"""

ADDED = [
    _gpu("T4", ["Tesla T4", "NVIDIA T4", "T4-16GB", "Tesla-T4"], _gib(14.56),
         "14.56 GiB, the total of current drivers (helper t4g4, 2026-12-05): 'GPU 0: Tesla T4; free=14.46 GiB / "
         "total=14.56 GiB' on Kaggle (tests/logs/data/vllm/vl_348.log, 2026), 'GPU 0 has a total capacity of 14.56 "
         "GiB' in vLLM 0.19.1 on a Colab Tesla T4 (vl_159.log, 2026-04) and on a GCP Tesla T4 "
         "(github.com/Zheng-Chong/CatVTON issue 133, 2025-11); the same die and memory (TU104, 16 GB GDDR6) under a "
         "CUDA 13.0 driver: 'Quadro RTX 5000 … Total amount of global memory: 14910 MBytes (15634726912 bytes)' "
         "(code-search id 11157024369). The total shrinks as drivers reserve more: driver 535.183.01 prints "
         "total_memory=14930MB (14.58 GiB, id 12462193998; github.com/mbzuai-oryx/GeoPixel issue 5), older drivers "
         "torch total_memory=15102MB / 15079MB (14.75 GiB; ids 24057668428, 39797959717, 27857302904; OOM messages "
         "'14.75 GiB', ids 29258903864, 29310183345), the catalog total until 2026-12-05. A run on an older driver "
         "should pass --gpu-memory with the total it prints. nvidia-smi "
         "15360MiB ('Tesla T4 … 15360MiB', id 41626499741)",
         15360, (7, 5), 40, 0.32, None, None, 130.0, None, 3,
         {"memory_bandwidth_tbps": f"NVIDIA T4 datasheet: 16 GB GDDR6, 320 GB/s, 70 W [{_RECALLED}; the same 320 GB/s and INT8 130 TOPS in "
                                  "heise.de's launch report, Nvidia-Tesla-P4-K-I-Beschleuniger…-4164684]",
          "bf16_dense_tflops": "None: Turing has no BF16 tensor cores (datasheet: FP16 mixed-precision 65 TFLOPS "
                               "dense); engines run T4 in float16, which the perf model does not rate",
          "int8_dense_tops": f"NVIDIA T4 datasheet: INT8 130 TOPS [{_RECALLED}]"}),
    _gpu("A10G", ["NVIDIA A10G", "A10G-24GB"], _gib(21.98),
         "21.98 GiB 'GPU 0 has a total capacity of 21.98 GiB' in a public PyTorch OOM on AWS g5.12xlarge "
         "('4× NVIDIA A10G', code-search id 62857096736); older drivers print torch total_memory=22723MB "
         "(22.19 GiB, ids 8395161179, 7882622645); nvidia-smi 23028 MiB ('NVIDIA A10G, 23028 MiB', id 71624822744)",
         23028, (8, 6), 80, 0.6, None, None, None, None, 4,
         {"memory_bandwidth_tbps": "600 GB/s GDDR6 (AWS EC2 G5 instance page) [recalled, UNVERIFIED]",
          "bf16_dense_tflops": "None: NVIDIA publishes no A10G datasheet (an AWS-only variant of the A10); not "
                               "taken from the A10's",
          "sm_count": "80 SMs: torch prints multi_processor_count=80 for 'NVIDIA A10G' (code-search id "
                      "67234836605; helper tidy27)"}),
    _gpu("A10", ["NVIDIA A10", "A10-24GB", "NVIDIA A10 Tensor Core GPU"], _gib(21.98),
         "assumed equal to A10G (same GA102 24 GB GDDR6 board, same nvidia-smi total 23028 MiB: 'NVIDIA A10, "
         "23028 MiB', code-search ids 68303699196, 55616450133); consistent with public OOMs printing 21.99 GiB on "
         "24 GB vLLM hosts (id 56778435960, GPU unnamed) and '22.20 GiB total capacity' on a 'Lambda A10' with an "
         "older driver (id 65789298276)",
         23028, (8, 6), 72, 0.6, 125.0, None, 250.0, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA A10 datasheet: 24 GB GDDR6, 600 GB/s, 150 W [{_RECALLED}; 600 GB/s for both A10 and A10G in "
                                  "baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference]",
          "bf16_dense_tflops": f"NVIDIA A10 datasheet: BF16 tensor 125 | 250* TFLOPS (*sparsity) [{_RECALLED}]",
          "int8_dense_tops": f"NVIDIA A10 datasheet: INT8 250 | 500* TOPS [{_RECALLED}]",
          "sm_count": "72 SMs (9,216 CUDA cores = 128 × 72; SM count 72 in sysrqmts.com's A10 PCIe spec table)"}),
    _gpu("RTX-A6000", ["NVIDIA RTX A6000", "RTX A6000", "A6000", "RTX-A6000-48GB"], _gib(47.54),
         "47.54 GiB: torch '_CudaDeviceProperties(name='NVIDIA RTX A6000', … total_memory=48676MB)' (code-search "
         "ids 11265254500, 35432920428) = 47.54 GiB; a CUDA device query printing 'NVIDIA RTX A6000 … Total global "
         "mem : 47.54 GiB' (id 63297095723); '8x RTX A6000 … GPU 0 has a total capacity of 47.54 GiB' (id "
         "56876912941); vLLM 'Free memory on device cuda:3 (33.49/47.54 GiB)' (id 52306291893); nvidia-smi "
         "'NVIDIA RTX A6000, 49140 MiB' (ids 62045867363, 69321511731)",
         49140, (8, 6), 84, 0.768, 154.8, None, 309.7, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA RTX A6000 datasheet: 48 GB GDDR6 ECC, 768 GB/s, 300 W [{_RECALLED}; 768 GB/s, BF16 154.8 dense "
                                  "and INT8 309.7 TOPS in llmperf.net's A6000 page citing Microway]",
          "bf16_dense_tflops": "NVIDIA RTX A6000 datasheet / Ampere GA102 whitepaper: FP16/BF16 tensor with FP32 "
                               f"accumulate 154.8 | 309.7* TFLOPS (*sparsity) [{_RECALLED}]",
          "int8_dense_tops": f"Ampere GA102 whitepaper (RTX A6000): INT8 309.7 | 619.4* TOPS [{_RECALLED}]",
          "sm_count": "84 SMs: torch prints multi_processor_count=84 for 'NVIDIA RTX A6000' (id 11265254500)",
          "nvlink": "NVLink bridge joins two boards only: left null (no NVLink mesh assumed), as H100 PCIe"}),
    _gpu("RTX-6000-Ada", ["NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", "RTX-6000-Ada-48GB", "RTX6000Ada"],
         _gib(47.37),
         "47.37 GiB 'GPU 0 has a total capacity of 47.37 GiB' in public PyTorch OOMs, one naming 'The 48 GiB RTX "
         "6000 Ada' (code-search id 53811563544; same figure in ids 65899189315, 29540830786, 51848403903); "
         "nvidia-smi 49,140 MiB for 'NVIDIA RTX 6000 Ada Generation' (id 53455615656)",
         49140, (8, 9), 142, 0.96, 364.2, 728.5, 728.5, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA RTX 6000 Ada datasheet: 48 GB GDDR6 ECC, 960 GB/s, 300 W [{_RECALLED}; 960 GB/s and 142 SMs in "
                                  "grafikkarten.com's launch table]",
          "bf16_dense_tflops": "NVIDIA RTX 6000 Ada datasheet: tensor 1,457 TFLOPS FP8 with sparsity → FP8 728.5 "
                               f"dense, BF16 half of it, 364.2 dense [{_RECALLED}]",
          "fp8_dense_tflops": f"NVIDIA RTX 6000 Ada datasheet: FP8 1,457* TFLOPS (*sparsity; dense half) [{_RECALLED}]",
          "int8_dense_tops": "derived: = dense FP8 (Ada datasheets list INT8 TOPS equal to FP8 TFLOPS)",
          "sm_count": "142 SMs (AD102 as configured, 18,176 CUDA cores = 128 × 142) [recalled]"}),
    _gpu("L40", ["NVIDIA L40", "L40-48GB"], 47663399567,
         "assumed equal to L40S (same AD102 48 GB GDDR6 board, same nvidia-smi total 46068 MiB: 'NVIDIA L40, 46068 "
         "MiB', code-search ids 67518242752, 62319992236, 57815648328); the L40S total is 44.39 GiB from public "
         "OOMs (research catalog). Public OOMs at 44.52 GiB on unnamed 48 GB hosts (id 56538409782) fit an L40 or "
         "A40 on another driver within 0.13 GiB",
         46068, (8, 9), 142, 0.864, 181.05, 362.0, 362.0, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA L40 datasheet: 48 GB GDDR6 ECC, 864 GB/s, 300 W [{_RECALLED}; a reseller copy of the L40/L40S "
                                  "datasheet table (mullet.se product 355414) gives 864 GB/s, BF16 181.05 | 362.1*, FP8 362 | 724*, "
                                  "INT8 362 | 724*]",
          "bf16_dense_tflops": f"NVIDIA L40 datasheet: BF16 181.05 | 362.1* TFLOPS (*sparsity) [{_RECALLED}]",
          "fp8_dense_tflops": f"NVIDIA L40 datasheet: FP8 362 | 724* TFLOPS [{_RECALLED}]",
          "int8_dense_tops": "derived: = dense FP8 (Ada datasheets list INT8 TOPS equal to FP8 TFLOPS)",
          "sm_count": "142 SMs (AD102 as configured for L40, 18,176 CUDA cores) [recalled]"}),
    _gpu("A40", ["NVIDIA A40", "A40-48GB"], 47608692736,
         "47608692736 bytes (45403 MiB, 44.34 GiB), printed for the A40 (helper tot13, 2026-12-05): deviceQuery "
         "'NVIDIA A40 … CUDA Driver Version / Runtime Version 12.4 / 12.4 … Total amount of global memory: 45403 "
         "MBytes (47608692736 bytes)', ECC on (thamada/nvidia-smi nvsim/A40x10_deviceQuery.py); vLLM 'GPU 0 has a "
         "total capacity of 44.34 GiB' on RunPod A40 pods (a Korean vLLM tutorial, 2× A40, code-search ids "
         "19543808360, 19358378260); an older driver's torch '_CudaDeviceProperties(name='NVIDIA A40', … "
         "total_memory=45416MB' (44.35 GiB; ids 31908259347, 31219571458). No later driver's A40 print was found. "
         "Until 2026-12-05 the catalog derived 45609 MiB (44.54 GiB) from nvidia-smi 46068 MiB ('NVIDIA A40, 46068 "
         "MiB', code-search ids 55365890293, 67500832079) less the RTX A6000's 459 MiB reservation: the A40 (ECC on) "
         "reserves 665 MiB",
         46068, (8, 6), 84, 0.696, 149.7, None, 299.3, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA A40 datasheet: 48 GB GDDR6 ECC, 696 GB/s, 300 W [{_RECALLED}; a reseller copy of the A40 "
                                  "datasheet (ecer.com) gives 696 GB/s, BF16 149.7 | 299.4*, INT8 299.3 | 598.6*, NVLink 112.5 GB/s "
                                  "bidirectional, PCIe Gen4 64 GB/s]",
          "bf16_dense_tflops": f"NVIDIA A40 datasheet: BF16 149.7 | 299.4* TFLOPS (*sparsity) [{_RECALLED}]",
          "int8_dense_tops": f"NVIDIA A40 datasheet: INT8 299.3 | 598.6* TOPS [{_RECALLED}]",
          "sm_count": "84 SMs (GA102, 10,752 CUDA cores = 128 × 84) [recalled]",
          "nvlink": "NVLink bridge joins two boards only: left null (no NVLink mesh assumed)"}),
    _gpu("V100-16GB", ["Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB", "V100", "V100-SXM2-16GB",
                       "V100-PCIE-16GB", "Tesla V100"], _gib(15.77),
         "15.77 GiB total capacity in public PyTorch OOMs on V100 16 GB: Azure NC6s_v3/NC12s_v3 (V100 PCIe 16 GB; "
         "code-search id 7048187110) and a cluster whose 'nvidia-smi --list-gpus' prints 'Tesla V100-SXM2-16GB' "
         "(same author, ids 37847564125 and 38674724423); older drivers print torch total_memory=16130MB (15.75 "
         "GiB, id 239993708); nvidia-smi 16384 MiB on driver 580 ('Tesla V100-PCIE-16GB, 16384 MiB', id "
         "70373575314). vLLM only: SGLang needs SM75+",
         16384, (7, 0), 80, 0.9, None, None, None, None, 3,
         {"memory_bandwidth_tbps": f"NVIDIA V100 datasheet: 900 GB/s HBM2 (SXM2 and PCIe) [{_RECALLED}]",
          "bf16_dense_tflops": "None: Volta has no BF16 tensor cores (FP16 tensor 125 TFLOPS SXM2 / 112 PCIe); "
                               "engines run V100 in float16, which the perf model does not rate",
          "sm_count": "80 SMs (GV100 as configured, 5,120 CUDA cores = 64 × 80) [recalled]",
          "nvlink": "SXM2 boards have NVLink 2 (300 GB/s), PCIe boards none: left null (the PCIe figure is used)"}),
    _gpu("V100-32GB", ["Tesla V100-SXM2-32GB", "Tesla V100-PCIE-32GB", "V100-SXM2-32GB", "V100-PCIE-32GB",
                       "V100-32G"], _gib(31.75),
         "31.75 GiB total capacity in many public PyTorch OOMs from 2019–2022 training hosts (code-search ids "
         "19353376632, 31315442811, 5175656359: 'GPU 4; 31.75 GiB total capacity' on an 8-GPU node); the GPU is "
         "not named in those messages: identity inferred (the only 32 GB CUDA device of that era; 31.75 GiB = 32512 "
         "MiB, the V100 32 GB nvidia-smi total of those drivers). vLLM only",
         None, (7, 0), 80, 0.9, None, None, None, None, 3,
         {"memory_bandwidth_tbps": f"NVIDIA V100 datasheet: 900 GB/s HBM2 [{_RECALLED}]",
          "bf16_dense_tflops": "None: Volta has no BF16 tensor cores (FP16 tensor 125 TFLOPS SXM2 / 112 PCIe)",
          "sm_count": "80 SMs (GV100) [recalled]",
          "nvlink": "SXM2 boards have NVLink 2, PCIe boards none: left null",
          "nvidia_smi_total_mib": "None: no nvidia-smi table for a 32 GB V100 found"}),
    _gpu("RTX-4080", ["NVIDIA GeForce RTX 4080", "GeForce RTX 4080", "4080", "RTX4080"], 16049 * MIB,
         "torch '_CudaDeviceProperties(name='NVIDIA GeForce RTX 4080', major=8, minor=9, total_memory=16049MB, "
         "multi_processor_count=76)' (code-search id 22567041692); consumer cards that also drive a display show "
         "less. nvidia-smi total as the RTX 4070 Ti SUPER (AD103, 16 GB): 16376 MiB",
         16376, (8, 9), 76, 0.7168, None, None, None, None, 4,
         {"memory_bandwidth_tbps": "NVIDIA GeForce RTX 4080 specifications: 16 GB GDDR6X, 256-bit, 22.4 Gbps = "
                                   f"716.8 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate of the 4080 was not checked",
          "sm_count": "76 SMs: torch prints multi_processor_count=76 (id 22567041692)"}),
    _gpu("RTX-4070-Ti-SUPER", ["NVIDIA GeForce RTX 4070 Ti SUPER", "GeForce RTX 4070 Ti SUPER", "4070 Ti SUPER",
                               "RTX 4070 Ti Super"], 15974 * MIB,
         "torch '_CudaDeviceProperties(name='NVIDIA GeForce RTX 4070 Ti SUPER', major=8, minor=9, "
         "total_memory=15974MB, multi_processor_count=66' on Linux with nvidia-smi 'NVIDIA GeForce RTX 4070 Ti "
         "SUPER, 16376 MiB, 560.35.03' (code-search ids 62007510912, 62087872125); a desktop in use prints 15934MB "
         "(id 21059009318)",
         16376, (8, 9), 66, 0.672, None, None, None, None, 4,
         {"memory_bandwidth_tbps": "NVIDIA GeForce RTX 4070 Ti SUPER specifications: 16 GB GDDR6X, 256-bit, 21 Gbps "
                                   f"= 672 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "66 SMs: torch prints multi_processor_count=66 (id 62007510912)"}),
    _gpu("RTX-3060-12GB", ["NVIDIA GeForce RTX 3060", "GeForce RTX 3060", "3060", "RTX 3060", "RTX-3060"],
         12044 * MIB,
         "torch '_CudaDeviceProperties(name='NVIDIA GeForce RTX 3060', major=8, minor=6, total_memory=12044MB, "
         "multi_processor_count=28)' on a Linux host next to two RTX 3090s (code-search id 31224020222); desktops "
         "print 11931–12011MB (ids 47313141004, 3512848646, 35980113475). nvidia-smi 12288 MiB (id 70970259014). "
         "The 8 GB RTX 3060 prints the same name: pass --gpu-memory for it",
         12288, (8, 6), 28, 0.36, None, None, None, None, 4,
         {"memory_bandwidth_tbps": "NVIDIA GeForce RTX 3060 specifications: 12 GB GDDR6, 192-bit, 15 Gbps = 360 GB/s "
                                   f"[{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "28 SMs: torch prints multi_processor_count=28 (id 31224020222)"}),
    _gpu("RTX-5060-Ti-16GB", ["NVIDIA GeForce RTX 5060 Ti", "GeForce RTX 5060 Ti", "5060 Ti", "RTX 5060 Ti",
                              "RTX-5060-Ti"], 15841 * MIB,
         "torch '_CudaDeviceProperties(name='NVIDIA GeForce RTX 5060 Ti', total_memory=15841MB)' in a Linux "
         "container (code-search id 9995932201); nvidia-smi 16303 MiB ('NVIDIA GeForce RTX 5060 Ti, 7987, 16303', "
         "id 71155525970). The 8 GB RTX 5060 Ti prints the same name: pass --gpu-memory for it",
         16303, (12, 0), 36, 0.448, None, None, None, None, 5,
         {"memory_bandwidth_tbps": "NVIDIA GeForce RTX 5060 Ti specifications: 16 GB GDDR7, 128-bit, 28 Gbps = "
                                   f"448 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "36 SMs: torch prints multi_processor_count=36 (id 55124120300)",
          "compute_capability": "12.0: torch prints cc=(12, 0) (id 55124120300)"}),
    _gpu("RTX-5080", ["NVIDIA GeForce RTX 5080", "GeForce RTX 5080", "5080", "RTX5080"], 15841 * MIB,
         "15.47 GiB on Linux: vLLM 0.30 EngineCore on an RTX 5080 'GPU 0 has a total capacity of 15.47 GiB' "
         "(a Chinese write-up of a speculative-decoding RL experiment on the author's RTX 5090 / 5080, 2026-09-29, "
         "code-search id 70302463552); a 16303-MiB card beside a 24576-MiB one prints the same 15.47 GiB (id "
         "55386702992); taken as the RTX 5060 Ti's exact 15841 MiB (same 16303 MiB nvidia-smi total and the same "
         "2-decimal print; helper cbw, 2026-12-04). Windows (WDDM) reports 16302MB = 15.92 GiB instead: torch "
         "'_CudaDeviceProperties(name='NVIDIA GeForce RTX 5080', major=12, minor=0, total_memory=16302MB, "
         "multi_processor_count=84 …)' in a Windows prompt (id 53141676041), the catalog total until 2026-12-04; "
         "nvidia-smi 16303 MiB (Linux hosts, ids 70347760501, 33311716229)",
         16303, (12, 0), 84, 0.96, None, None, None, None, 5,
         {"memory_bandwidth_tbps": "NVIDIA GeForce RTX 5080 specifications: 16 GB GDDR7, 256-bit, 30 Gbps = 960 GB/s "
                                   f"[{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "84 SMs: torch prints multi_processor_count=84 (id 53141676041)",
          "compute_capability": "12.0: torch prints major=12, minor=0 (id 53141676041)"}),
    _gpu("A100-PCIe-40GB", ["NVIDIA A100-PCIE-40GB", "A100-PCIE-40GB", "A100 PCIe 40GB"], 42405855232,
         "42405855232 bytes (40441 MiB, 39.49 GiB), the total of current drivers, printed for this board (helper "
         "tot13, 2026-12-05): deviceQuery 'NVIDIA A100-PCIE-40GB … CUDA Driver Version / Runtime Version 13.0 / 13.0 "
         "… 40441 MBytes (42405855232 bytes)' (code-search id 27357813220); ComfyUI 'cuda:0 NVIDIA A100-PCIE-40GB', "
         "vramTotalBytes 42405855232 (ids 59256106505, 59278154828, 2026-08); the same total as the A100 SXM4 40GB "
         "(same GA100 40 GB HBM2, same nvidia-smi total: 'NVIDIA A100-PCIE-40GB, 40960 MiB', code-search ids "
         "30968376933, 71303864820). Older drivers: 39.39 GiB (driver 535; the catalog total until 2026-12-05); "
         "torch 1.9 printed total_memory=40326MB (39.38 GiB) (id 14004674982)",
         40960, (8, 0), 108, 1.555, 312.0, None, 624.0, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA A100 datasheet (PCIe 40GB): 1,555 GB/s HBM2 [{_RECALLED}]",
          "bf16_dense_tflops": f"NVIDIA A100 datasheet: BF16 312 dense (624 sparse) [{_RECALLED}]",
          "int8_dense_tops": f"NVIDIA A100 datasheet: INT8 624 dense [{_RECALLED}]",
          "sm_count": "108 SMs: torch prints multi_processor_count=108 (id 14004674982)",
          "nvlink": "NVLink bridge joins two boards only: left null (no NVLink mesh assumed), as H100 PCIe"}),
    _gpu("A100-PCIe-80GB", ["NVIDIA A100 80GB PCIe", "A100-PCIE-80GB", "A100 PCIe 80GB"], _gib(79.25),
         "assumed equal to A100 SXM4 80GB (same GA100 80 GB HBM2e, same nvidia-smi total: 'NVIDIA A100 80GB PCIe, "
         "81920 MiB', code-search ids 27074596559, 68922542039); the SXM total is current drivers' 79.25 GiB "
         "(2026 vLLM prints; helper tot13, 2026-12-05), older drivers' 79.15 GiB until 2026-12-05",
         81920, (8, 0), 108, 1.935, 312.0, None, 624.0, None, 4,
         {"memory_bandwidth_tbps": f"NVIDIA A100 datasheet (PCIe 80GB): 1,935 GB/s HBM2e [{_RECALLED}]",
          "bf16_dense_tflops": f"NVIDIA A100 datasheet: BF16 312 dense (624 sparse) [{_RECALLED}]",
          "int8_dense_tops": f"NVIDIA A100 datasheet: INT8 624 dense [{_RECALLED}]",
          "sm_count": "108 SMs (GA100 as configured for A100) [recalled]",
          "nvlink": "NVLink bridge joins two boards only: left null (no NVLink mesh assumed), as H100 PCIe"}),
    _gpu("RTX-5070-Ti", ["NVIDIA GeForce RTX 5070 Ti", "GeForce RTX 5070 Ti", "5070 Ti", "RTX 5070 Ti",
                         "RTX-5070-Ti-16GB"], 15841 * MIB,
         "assumed equal to RTX 5080 on Linux (same GB203 die, 16 GB GDDR7, same nvidia-smi total: 'NVIDIA GeForce "
         "RTX 5070 Ti, 16303 MiB', code-search ids 62490236739, 68987439970, and tests/logs/data/vllm/vl_048.log): "
         "15841 MiB = 15.47 GiB; no CUDA total printed with the name 5070 Ti was found. Windows (WDDM) would "
         "report about 15.92 GiB, as the RTX 5080",
         16303, (12, 0), 70, 0.896, None, None, None, None, 5,
         {"memory_bandwidth_tbps": "NVIDIA GeForce RTX 5070 Ti specifications: 16 GB GDDR7, 256-bit, 28 Gbps = 896 "
                                   f"GB/s [{_RECALLED}]",
          "bf16_dense_tflops": "None: the GeForce FP32-accumulate tensor rate was not checked",
          "sm_count": "70 SMs: 'NVIDIA GeForce RTX 5070 Ti (70 SMs)' in public benchmark notes (code-search ids "
                      "55612672949, 62545543749; helper tidy27)",
          "compute_capability": "12.0 (every GeForce RTX 50 card is SM120; torch prints 12.0 for the 5060 Ti and 5080)"}),
    _gpu("H800", ["NVIDIA H800", "H800-SXM", "H800-80GB", "H800-SXM5-80GB", "NVIDIA H800 80GB HBM3"],
         _gib(79.19),
         "assumed equal to H100 SXM 80GB (same GH100 80 GB HBM3 board, same nvidia-smi total: 'NVIDIA H800, 81559 "
         "MiB', code-search id 71303046155); the H100 total is 79.19 GiB from public OOMs (research catalog); "
         "newer drivers print 79.33 GiB on 80 GB Hopper boards",
         81559, (9, 0), 132, 3.35, 989.4, 1978.9, 1978.9, 200.0, 5,
         {"memory_bandwidth_tbps": "NVIDIA H800 SXM5: compute and HBM3 as H100 SXM5 (3.35 TB/s); only NVLink is cut "
                                   f"[{_RECALLED}]",
          "bf16_dense_tflops": f"as H100 SXM5 datasheet: BF16 989.4 dense [{_RECALLED}]",
          "fp8_dense_tflops": f"as H100 SXM5 datasheet: FP8 1,978.9 dense [{_RECALLED}]",
          "int8_dense_tops": "derived: = dense FP8 (Hopper datasheets list INT8 TOPS equal to FP8 TFLOPS)",
          "nvlink": f"H800 NVLink 400 GB/s bidirectional (8 links), 200 per direction [{_RECALLED}]"}),
    _gpu("A800-SXM-80GB", ["NVIDIA A800-SXM4-80GB", "A800", "A800-80GB", "A800-SXM4-80GB"], _gib(79.25),
         "assumed equal to A100 SXM4 80GB (same GA100 80 GB HBM2e board, same nvidia-smi total: 'NVIDIA "
         "A800-SXM4-80GB, 81920 MiB', code-search ids 60651791858, 59889546879): current drivers' 79.25 GiB "
         "(helper tot13, 2026-12-05), which A800 80GB cards print too: vLLM 'Free memory on "
         "device (37.95/79.25 GiB)' on A800 80GB (tests/logs/data/vllm/vl_792.log); older drivers' 79.15 GiB until "
         "2026-12-05",
         81920, (8, 0), 108, 2.039, 312.0, None, 624.0, 200.0, 4,
         {"memory_bandwidth_tbps": "NVIDIA A800 80GB SXM4: compute and HBM2e as A100 80GB SXM4 (2,039 GB/s); NVLink "
                                   f"cut to 400 GB/s [{_RECALLED}]",
          "bf16_dense_tflops": f"as A100 datasheet: BF16 312 dense (624 sparse) [{_RECALLED}]",
          "int8_dense_tops": f"as A100 datasheet: INT8 624 dense [{_RECALLED}]",
          "nvlink": f"A800 NVLink 400 GB/s bidirectional, 200 per direction [{_RECALLED}]"}),
    _gpu("B300", ["NVIDIA B300", "NVIDIA B300 SXM6 AC", "B300-SXM6", "HGX-B300", "B300-288GB"], _gib(267.69),
         "267.69 GiB: vLLM 'Free memory on device (264.8/267.69 GiB)' on 8× 'NVIDIA B300 SXM6', nvidia-smi "
         "memory.total 275,040 MiB (public benchmark post, code-search id 66974703316); the same 267.69 GiB in "
         "public OOMs on B300 hosts (ids 65719067222, 66068615294)",
         275040, (10, 3), 148, 8.0, 2250.0, 4500.0, None, 900.0, 6,
         {"memory_bandwidth_tbps": f"NVIDIA HGX B300: 288 GB HBM3e, 8 TB/s per GPU [{_RECALLED}]",
          "bf16_dense_tflops": "NVIDIA Blackwell Architecture Technical Brief v2.1 (resources.nvidia.com/"
                               "en-us-blackwell-architecture), Table 3 'NVIDIA HGX B300 and HGX B200' per-GPU column: "
                               "FP16/BF16 Tensor Core 2.2 / 4.5 petaFLOPS dense / sparse, the same for HGX B300 and HGX "
                               "B200; read through a public summary of the PDF (code-search id 57514645364), not the PDF "
                               "itself. Dense = sparse / 2 = 2,250, the catalog's B200 value (helper spw3, 2026-12-04)",
          "fp8_dense_tflops": "same Table 3: FP8/FP6 Tensor Core 4.5 / 9 petaFLOPS dense / sparse per GPU, HGX B300 = "
                              "HGX B200 (helper spw3, 2026-12-04)",
          "compute_capability": "10.3 (sm_103): 'NVIDIA B300 SXM6, compute capability 10.3' (id 66854200485)",
          "sm_count": "148 SMs: 'NVIDIA B300 SXM6 AC (148 SMs, sm_103a)' with its cudaGetDeviceProperties "
                      "(code-search ids 66621682701, 66517663417); the 160 SMs of NVIDIA's Blackwell Ultra "
                      "descriptions count the full dual die (helper tidy27)",
          "nvlink": "NVLink 5: 18 links × 53.125 GB/s per direction ≈ 956 GB/s measured with nvidia-smi nvlink -s "
                    "(id 66974703316); HGX page 1.8 TB/s bidirectional → 900 per direction",
          "pcie": "PCIe Gen6 x16 (HGX B300) [recalled, UNVERIFIED]"}),
    _gpu("GB10", ["NVIDIA GB10", "DGX Spark", "DGX-Spark", "GB10-128GB"], _gib(119.63),
         "119.63 GiB: a vLLM OOM on 'NVIDIA DGX Spark GB10 (128 GB unified LPDDR5x, 119.63 GiB reported)' "
         "(code-search id 57110244904); other DGX Spark OOMs print 119.61–119.70 GiB (ids 54707799443, "
         "55424505868). Unified memory: the CUDA total is the system memory the OS leaves, so it varies with the "
         "host; the free memory at start-up also falls with what the CPU side uses. nvidia-smi prints no memory "
         "total on GB10",
         None, (12, 1), 48, 0.273, None, None, None, None, None,
         {"memory_bandwidth_tbps": "NVIDIA DGX Spark specifications: 128 GB LPDDR5x unified, 273 GB/s (as quoted, 'verified against the "
                                  "NVIDIA DGX Spark product page', by ai-infrastructure.net/dgx-spark)",
          "bf16_dense_tflops": "None: NVIDIA publishes only the FP4 sparse headline (1 PFLOP) for GB10",
          "compute_capability": "12.1 (sm_121): 'NVIDIA GB10 / sm_121' in public benchmark notes (ids 55403413146, "
                                "58604305896)",
          "sm_count": "48 SMs: 'NVIDIA GB10 (48 SMs, cc 12.1' and 'NVIDIA GB10 (48 SMs, sm_121' in public "
                      "benchmark notes (code-search ids 70170093210, 69741399539; helper tidy27)",
          "nvidia_smi_total_mib": "None: unified memory, nvidia-smi prints no total"}),
    # helper gh18 (2026-12-05): the two GH200 Grace Hopper superchips (the Hopper GPU of each; issue 11, newcomer)
    _gpu("GH200-96GB", ["GH200", "NVIDIA GH200 480GB", "GH200 480GB", "GH200-480GB", "NVIDIA GH200 120GB",
                        "GH200 120GB", "GH200-120GB", "NVIDIA GH200 96GB HBM3", "GH200 96GB HBM3", "GH200-HBM3"],
         97280 * MIB, GH200_96_TOTAL, 97871, (9, 0), 132, 4.0, 989.4, 1978.9, 1978.9, 450.0, None,
         {**GH200_COMMON, "memory_bandwidth_tbps": GH200_96_BANDWIDTH,
          "total_matching": GH200_96_NOT_MATCHED}) | {"nvlink_multicast": False, "total_printed": False},
    _gpu("GH200-144GB", ["NVIDIA GH200 144G HBM3e", "GH200 144G HBM3e", "GH200 144G", "GH200-HBM3e",
                         "GH200 HBM3e"],
         153008209920, GH200_144_TOTAL, 146831, (9, 0), 132, 4.9, 989.4, 1978.9, 1978.9, 450.0, None,
         {**GH200_COMMON, "memory_bandwidth_tbps": GH200_144_BANDWIDTH}) | {"nvlink_multicast": False},
    # helper gh18 (2026-12-05): a board the validation set named but planned as a custom GPU (vp_062, vp_682)
    _gpu("RTX-A5000", ["NVIDIA RTX A5000", "RTX A5000", "A5000", "RTX-A5000-24GB"], 24138 * MIB,
         "24138 MiB (23.57 GiB): torch '_CudaDeviceProperties(name='NVIDIA RTX A5000', major=8, minor=6, "
         "total_memory=24138MB, multi_processor_count=64' on a rented pod (code-search ids 29664974753, 29278846479); "
         "vLLM prints 23.57 GiB on RTX A5000 hosts (validation cases vp_062, vp_682); another host prints "
         "total_memory=24114MB (23.55 GiB, id 36903445345: band 24114-24138 MiB). nvidia-smi 24564 MiB ('NVIDIA RTX "
         "A5000, 24564 MiB', ids 55783893242, 68394956307, 39219605614) (helper gh18, 2026-12-05)",
         24564, (8, 6), 64, 0.768, None, None, None, None, 4,
         {"memory_bandwidth_tbps": "NVIDIA RTX A5000 datasheet: 24 GB GDDR6 ECC, 384-bit, 768 GB/s, 230 W "
                                   f"[{_RECALLED}]",
          "bf16_dense_tflops": "None: the A5000's tensor rate was not checked",
          "sm_count": "64 SMs: torch prints multi_processor_count=64 (ids 29664974753, 36903445345)",
          "compute_capability": "8.6: torch prints major=8, minor=6 (id 29664974753)",
          "nvlink": "NVLink bridge joins two boards only: left null (no NVLink mesh assumed), as RTX A6000"}),
    # helper gb11 (2026-12-05): Jetson AGX Thor, the other unified-memory device vLLM's MemorySnapshot names
    # ((11, 0) "Thor" in 0.11.1-0.19 utils/mem_utils.py; is_integrated from 0.20: engines/unified.py)
    _gpu("Jetson-AGX-Thor", ["NVIDIA Thor", "Jetson AGX Thor", "Jetson Thor", "Thor"], 131_900_000_000,
         "131.9 GB (10^9 B, = 122.84 GiB): a CUDA test harness on 'GPU: NVIDIA Thor (20 SMs)' prints 'Memory: 3.2 GB "
         "free / 131.9 GB total' (code-search id 60815229375; the last digit rounds, ±0.05 GB); a Thor "
         "investigation note gives 'RAM: 122GB' (dp-web4/HRM), and vLLM 0.10.2 on a Jetson Thor (explain-corpus "
         "vl_490: util 0.85, eager, 2.05 GiB TinyLlama weights + 101.47 GiB KV) needs 0.85 x total >= 103.5 GiB, "
         "i.e. a total of at least 121.8 GiB (read as GiB, 131.9 would leave 8.6 GiB of profile to a 1.1B model: the "
         "10^9 reading is the one that fits). Unified "
         "memory: the CUDA total is the system memory the OS leaves, so it varies with the host (JetPack, carve-outs)",
         None, (11, 0), 20, 0.273, None, None, None, None, None,
         {"memory_bandwidth_tbps": "Jetson AGX Thor: 128 GB LPDDR5X at 273 GB/s (NVIDIA's Jetson Thor specification "
                                   "as quoted in public hardware-config code, code search 2026-12-05)",
          "bf16_dense_tflops": "None: not checked (NVIDIA quotes FP4 / FP8 headline figures for Thor)",
          "compute_capability": "11.0 (sm_110 under CUDA 13): 'GPU: NVIDIA Thor (SM 11.0), reported as iGPU on tegra "
                                "kernel' in vllm-project/vllm#43969 (index id 56695054620)",
          "sm_count": "20: 'GPU: NVIDIA Thor (20 SMs)' (code-search id 60815229375)",
          "nvidia_smi_total_mib": "None: unified memory, not recorded"}),
    # helper cat20 (2026-12-06): three cards public vLLM start-ups ran on that the catalog lacked (session 19's gaps)
    _gpu("Quadro-RTX-6000", ["Quadro RTX 6000", "NVIDIA Quadro RTX 6000", "Quadro-RTX-6000-24GB", "QuadroRTX6000"],
         _gib(23.48), QUADRO_RTX_6000_TOTAL, 24576, (7, 5), 72, 0.672, None, None, None, None, 3,
         {"memory_bandwidth_tbps": ("672 GB/s: TensorFlow prints 'deviceMemoryBandwidth: 625.94GiB/s' (= 672.1 GB/s) "
                                    "for 'Quadro RTX 6000 computeCapability: 7.5' (code-search id 30987391085); "
                                    f"datasheet 24 GB GDDR6, 384-bit, 672 GB/s [{_RECALLED}]"),
          "bf16_dense_tflops": "None: Turing has no BF16 tensor cores; engines run it in float16 (--dtype half), "
                               "which the perf model does not rate",
          "sm_count": "72 SMs: TensorFlow prints 'coreCount: 72' (id 30987391085)",
          "compute_capability": "7.5: TensorFlow prints 'computeCapability: 7.5' (id 30987391085)",
          "nvlink": "NVLink bridge joins two boards only: left null (no NVLink mesh assumed), as RTX A6000",
          "ecc": QUADRO_RTX_6000_ECC}),
    _gpu("RTX-PRO-4000", ["NVIDIA RTX PRO 4000 Blackwell", "RTX PRO 4000 Blackwell", "RTX-PRO-4000-Blackwell",
                          "RTX PRO 4000", "RTX-PRO-4000-24GB"],
         25_150_000_000, RTX_PRO_4000_TOTAL, 24467, (12, 0), 70, 0.672, None, None, None, None, 5,
         {"memory_bandwidth_tbps": "24 GB GDDR7 ECC, 192-bit, 672.0 GB/s (spec database cputronic.com, 'RTX PRO 4000 "
                                   f"Blackwell vs RTX PRO 2000 Blackwell'; GB203, PCIe 5.0 x16, 140 W) [{_RECALLED}]",
          "bf16_dense_tflops": "None: NVIDIA's figure for this board was not checked (a spec database gives only the "
                               "70 W SFF Edition's clocks)",
          "sm_count": "70 SMs (8,960 CUDA cores = 128 x 70; GB203: technical.city 'RTX PRO 4000 Blackwell vs RTX PRO "
                      "5000 72 GB Blackwell', hmc-tech.com's SFF Edition page: '70 SMs') [spec databases, not printed]",
          "compute_capability": "12.0: 'NVIDIA RTX PRO 4000 Blackwell, 24467 MiB, driver 575.64.03 … 12.0 (sm_120)' "
                                "(code-search id 69530223407)",
          "names": "not the 'RTX PRO 4000 Blackwell Laptop GPU' (16 GB, code-search id 67644978144) nor the 'RTX PRO "
                   "4000 Blackwell SFF Edition': neither is an alias"}),
    _gpu("RTX-5090-Laptop", ["NVIDIA GeForce RTX 5090 Laptop GPU", "GeForce RTX 5090 Laptop GPU", "RTX 5090 Laptop GPU",
                             "GeForce RTX 5090 Laptop", "RTX 5090 Laptop", "RTX-5090-Laptop-24GB", "RTX 5090 Mobile"],
         RTX_5090_LAPTOP_LINUX_MIB * MIB, RTX_5090_LAPTOP_TOTAL, 24463, (12, 0), 82, 0.896, None, None, None, None, 5,
         {"memory_bandwidth_tbps": "NVIDIA GeForce RTX 5090 Laptop GPU: 24 GB GDDR7, 256-bit, 28 Gbps = 896 GB/s "
                                   f"[{_RECALLED}]",
          "bf16_dense_tflops": "None: the laptop part's tensor rate (and its power limit, 95-175 W by design) was not "
                               "checked",
          "sm_count": "82 SMs (10,496 shaders = 128 x 82: hmc-tech.com 'GeForce RTX 5090 Laptop 150W' spec page; the "
                      "GB203 die with 3 GB GDDR7 modules on a 256-bit bus: multiplayer.it, tweaktown.com 100874) "
                      "[spec databases, not printed]",
          "compute_capability": "12.0: 'NVIDIA GeForce RTX 5090 Laptop GPU, 24463 MiB, compute capability 12.0 "
                                "(sm_120)' (code-search id 70087897011)",
          "names": "a different card from the desktop RTX 5090 (32 GB): torch and nvidia-smi print 'NVIDIA GeForce RTX "
                   "5090 Laptop GPU', which the log reader must not shorten to 'RTX 5090' (logs.gpu_names.gpu_in)"}),
]
