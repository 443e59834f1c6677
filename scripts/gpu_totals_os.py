"""The CUDA total of consumer and workstation GPUs by operating system (helper cbw, 2026-12-04).

Read by ``scripts/build_gpu_catalog.py``: each entry's ``sources["total_linux"]`` says which printed Linux total the
catalog's ``total_bytes`` rests on, and ``sources["total_windows"]`` what Windows or WSL2 reports instead.

On Linux, ``cudaMemGetInfo`` (torch ``total_memory``, PyTorch's 'total capacity of X GiB', vLLM's 'Free memory on
device (a/X GiB)') reports the board's memory less the driver's reservation: 462 MiB on the 16 GB GeForce RTX 50
cards (16303 − 15841), 497 MiB on the RTX 5090 (32607 MiB − 31.36 GiB), 638 MiB on the RTX PRO 6000, 346 MiB on
the RTX 4090.  Under Windows (WDDM) and WSL2 it reports the nvidia-smi total itself (RTX 5090 31.84 GiB = 32607
MiB, RTX PRO 6000 95.59 GiB = 97887 MiB, RTX 4090 23.99 GiB = 24564 MiB, RTX 5080 16302 MiB), while the desktop
and WDDM hold memory that shows up as used; PyTorch's OOM message there prints '17179869184.00 GiB memory in use'
for the process (the WSL signature used below to place a print).  So the catalog keeps the Linux total, and a run
under Windows/WSL2 should pass ``--gpu-memory`` with the total its log prints (the validation harness does so for
vp_022 / vp_100, RTX 4090 under WSL2).  ``id`` = a code-search file id.
"""

from __future__ import annotations

TOTALS_BY_OS: dict[str, tuple[str, str]] = {
    "RTX-5060-Ti-16GB": (
        "15841 MiB (15.47 GiB): torch total_memory=15841MB in a Linux container (id 9995932201); the same 15.47 GiB "
        "prints for other 16303-MiB GeForce RTX 50 cards on Linux (RTX 5080, id 70302463552)",
        "not printed with the name; about 15.92 GiB (the 16303 MiB nvidia-smi total, less a few MiB) expected under "
        "Windows/WSL2, as the RTX 5080's 16302MB"),
    "RTX-5080": (
        "15.47 GiB: vLLM 0.30 on an RTX 5080, 'GPU 0 has a total capacity of 15.47 GiB' (id 70302463552)",
        "16302MB = 15.92 GiB: torch _CudaDeviceProperties in a Windows prompt (id 53141676041); the catalog total "
        "until 2026-12-04"),
    "RTX-5070-Ti": (
        "assumed equal to the RTX 5080 (same GB203 die and nvidia-smi total): 15841 MiB",
        "about 15.92 GiB expected under Windows/WSL2, as the RTX 5080"),
    "RTX-5090": (
        "31.36 GiB: vLLM 0.28.0 'Free memory on device (30.86/31.36 GiB) on startup' on 'NVIDIA GeForce RTX 5090, "
        "32607 MiB, 595.84' in a Linux cgroup (id 57676316864); 'total: 33668857856' (31.357 GiB) in a Linux "
        "PyTorch OOM (id 67378630688)",
        "31.84 GiB (= nvidia-smi 32607 MiB): 'GPU 0 has a total capacity of 31.84 GiB … this process has "
        "17179869184.00 GiB memory in use' on an RTX 5090 (vLLM issue text, id 56735506852; WSL home path, id "
        "65769374529)"),
    "RTX-PRO-6000": (
        "94.97 GiB: vLLM 0.29 'Free memory on device (94.41/94.97 GiB) on startup' on an RTX PRO 6000, '~638 MiB' "
        "below nvidia-smi's 95.59 GiB (id 71198863849). Other Linux hosts print 95.01 GiB (vl_033's 4× sm_120 "
        "guide, id 57935131721; id 70094848024): 41 MiB more, by driver or edition",
        "95.59 GiB (= nvidia-smi 97887 MiB): an SGLang OOM 'total capacity of 95.59 GiB … this process has "
        "17179869184.00 GiB memory in use' (WSL signature, id 54853650048)"),
    "RTX-4090": (
        "23.65 GiB: public PyTorch OOMs (research catalog); vLLM 'Free memory on device (23.21/23.65 GiB)' "
        "(validation set)",
        "23.99 GiB (= nvidia-smi 24564 MiB) under WSL2: vLLM 'Free memory on device (22.45/23.99 GiB)' "
        "(tests/logs/data/vllm/vl_083.log, vl_175.log; cases vp_022, vp_100)"),
    "RTX-3090": (
        "23.54 GiB, current drivers (helper tot13, 2026-12-05): vLLM 0.17.1 'total capacity of 23.54 GiB' "
        "(tests/logs/data/vllm/vl_453.log); older drivers 23.58 GiB (vLLM 'total_gpu_memory=23.58GiB', "
        "vllm-project/vllm#10517)",
        "not traced; about 24.00 GiB (= nvidia-smi 24576 MiB) expected under Windows/WSL2. sg_044 (WSL2 Docker "
        "Desktop) is kept out of the start-up table for that reason"),
    "RTX-4080": (
        "16049MB (15.67 GiB): torch _CudaDeviceProperties (id 22567041692; OS not shown)",
        "about 15.99 GiB (= nvidia-smi 16376 MiB) under WSL2: vLLM 'Free memory on device (14.66/15.99 GiB)' on an "
        "unnamed 16376-MiB card with 'WSL is detected' (validation case vl_022)"),
    "RTX-4070-Ti-SUPER": (
        "15974MB (15.60 GiB): torch _CudaDeviceProperties on Linux (ids 62007510912, 62087872125)",
        "about 15.99 GiB under WSL2, as the RTX 4080 (same 16376 MiB nvidia-smi total)"),
    "RTX-3060-12GB": (
        "12044MB (11.76 GiB): torch _CudaDeviceProperties on a Linux host (id 31224020222)",
        "not traced; about 12.00 GiB (= nvidia-smi 12288 MiB) expected under Windows/WSL2"),
    # helper cat20 (2026-12-06)
    "RTX-5090-Laptop": (
        "not printed: 23,981 MiB (23.42 GiB) assumed from the RTX PRO 4000 Blackwell's reservation (catalog "
        "total_source)",
        "24463 MiB = 23.89 GiB (= nvidia-smi): 'cuda:0 NVIDIA GeForce RTX 5090 Laptop GPU (23.9GiB vram) "
        "backend=vllm:cuda' under WSL2 (code-search id 69444620476); torch 'GPU VRAM Total/Free: 23.89GB / 23.41GB' "
        "(id 48941765225); '23.86 GiB total' (id 70257664549, OS not shown). vp_031 (WSL2) is planned with 24463 MiB"),
    "RTX-PRO-4000": (
        "25.1 / 25.2 GB (10^9 B, one decimal) on Linux hosts (ids 55782846507, 53994408445): 25.15e9 B",
        "not traced; about 23.89 GiB (= nvidia-smi 24467 MiB) expected under Windows/WSL2"),
    "Quadro-RTX-6000": (
        "25.2 GB (10^9 B) under CUDA 12.1 (id 53943975161) and 23.5 GB (id 53737208711): 23.48 GiB; 23.65 GiB on a "
        "2021 driver (id 30987391085)",
        "not traced; about 24.00 GiB (= nvidia-smi 24576 MiB) expected under Windows/WSL2"),
}
"""catalog name → (the Linux total's evidence, what Windows / WSL2 reports)"""
