"""CUDA peer access (P2P) between two boards of one GPU model over PCIe, per catalog GPU (helper p2p, 2026-12-04).

``scripts/build_gpu_catalog.py`` writes each fact into ``src/tpkit/hardware/data/gpus.json`` as ``pcie_p2p``
(true / false) with its source and caveat in ``sources["pcie_p2p"]``.  A GPU missing here keeps ``pcie_p2p`` null:
nothing recorded, and the planner keeps its old assumption (peer access available).  GPUs whose catalog entry is
an NVLink mesh (SXM / HGX boards) are not listed: their peer access goes over NVLink.

What "false" means: on the stock NVIDIA driver, on the hosts these boards are publicly reported on (workstations
for GeForce cards, cloud VMs for A10 / A10G / L4 / T4), ``torch.cuda.can_device_access_peer`` (what vLLM's and SGLang's
custom all-reduce ask, ``_can_p2p``) is False and NCCL connects the ranks over SHM.  Each false entry names what
turns peer access on (an NVLink bridge on two boards, a patched open kernel module with IOMMU / ACS off and
resizable BAR on); ``tpkit plan --p2p`` says so for a plan.

What "true" means: the board is sold with peer access over PCIe (professional and datacenter boards) and a
public start-up or test shows it; peer access still fails across CPU sockets, with ACS / IOMMU on, or between
containers or VMs that each hold one GPU (``tpkit plan --no-p2p`` says so for a plan).
"""

from __future__ import annotations

_GEFORCE_NVIDIA = ("https://github.com/NVIDIA/nccl-tests/issues/287 (NVIDIA's NCCL maintainer sjeaugey, 2025-02-20, "
                   "on two RTX 5090: 'GeForce cards do not support P2P.')")
_PATCHED = ("patched open kernel modules turn it on: https://github.com/tinygrad/open-gpu-kernel-modules (RTX 4090; "
            "simpleP2P 'Peer access … : Yes' in tinygrad/open-gpu-kernel-modules PR #22) and the "
            "aikitoria/open-gpu-kernel-modules fork (RTX 3090 / 4090 / 5090 / 5060 Ti: PR #5, issues #3, #6, #12), "
            "with IOMMU and ACS off and resizable BAR on (aikitoria issue #6)")

PCIE_P2P: dict[str, tuple[bool, str]] = {
    # GeForce: no peer access on the stock driver
    "RTX-3090": (False, (
        "no P2P over PCIe on the stock driver: https://github.com/NVIDIA/nccl/issues/1127 (8x RTX 3090, PCIe 3.0: "
        "p2pBandwidthLatencyTest 'Device=0 CANNOT Access Peer'); https://github.com/efeslab/Nanoflow/issues/22 "
        "('3090 does not support peer access. Only workstation cards (e.g. Ada 6000) or V100, A100, H100 have this "
        "feature'); vLLM 'Custom allreduce is disabled because your platform lacks GPU P2P capability … expected on "
        "consumer 3090 without NVLink' (search-index id 59736577078); " + _GEFORCE_NVIDIA + ". Caveats: an NVLink "
        "bridge joins two boards with peer access (https://github.com/huggingface/accelerate/issues/2328: "
        "'NVLinked 3090s support p2p'); " + _PATCHED + " (https://github.com/noonghunna/club-3090/issues/922: "
        "patched P2P on 2x 3090, vLLM's custom all-reduce then returned wrong data). Default: no P2P")),
    "RTX-4090": (False, (
        "no P2P over PCIe on the stock driver: NVIDIA's statement on its developer forum that the GeForce RTX 4090 "
        "does not support P2P (reported at https://www.purepc.pl/nvidia-geforce-rtx-4090-amerykanska-firma-"
        "potwierdza-ze-jej-topowy-uklad-nie-obsluguje-profesjonalnego-trybu-peer-to-peer); "
        "https://github.com/sgl-project/sglang/issues/4814 (8x 4090, driver 550, tp 2: 'CUDART error: peer access "
        "is not supported between these two devices') and https://github.com/sgl-project/sglang/pull/531 ('Fix "
        "Regression: Disable p2p for 4090', the same error from the custom all-reduce); "
        "https://github.com/NVIDIA/TensorRT-LLM/issues/2225 (NCCL "
        "'P2P is disabled between connected GPUs' on a 4090 server); https://github.com/OpenRLHF/OpenRLHF/issues/"
        "1064 ('4x RTX 4090 (without P2P support)'); " + _GEFORCE_NVIDIA + ". Caveats: drivers of late 2022 "
        "reported peer access on 4090s that then hung or corrupted data "
        "(https://github.com/NVIDIA/nccl-tests/issues/117), later drivers report none; " + _PATCHED
        + ". Default: no P2P")),
    "RTX-5090": (False, (
        "no P2P over PCIe on the stock driver: " + _GEFORCE_NVIDIA + "; https://github.com/tinygrad/"
        "open-gpu-kernel-modules/issues/29 ('Unable to support P2P on RTX 5090'). Caveat: " + _PATCHED
        + " (aikitoria issue #6: 7-8x 5090 'CAN Access Peer'). Default: no P2P")),
    **{name: (False, "GeForce board: no P2P over PCIe on the stock driver, " + _GEFORCE_NVIDIA + " (a statement "
              "for GeForce cards as a class; no trace of this board found). Caveat: " + _PATCHED
              + ". Default: no P2P")
       for name in ("RTX-4080", "RTX-4070-Ti-SUPER", "RTX-3060-12GB", "RTX-5060-Ti-16GB", "RTX-5070-Ti",
                    "RTX-5080", "RTX-5090-Laptop",  # RTX-5090-Laptop: helper cat20, 2026-12-06 (one per laptop)
                    # the RTX 40 / 50 laptop parts: helper bl32b, 2026-12-07 (one per laptop)
                    "RTX-4050-Laptop", "RTX-4060-Laptop", "RTX-4070-Laptop", "RTX-4080-Laptop", "RTX-4090-Laptop",
                    "RTX-5070-Laptop", "RTX-5070-Ti-Laptop", "RTX-5080-Laptop")},
    # cloud-only boards: the VMs they are rented in expose no peer access
    "A10G": (False, (
        "no P2P on the AWS g5 instances that carry it: https://github.com/vllm-project/vllm/pull/2192 (vLLM "
        "maintainer WoosukKwon: 'CUDA P2P access is not possible for these GPUs [A10G/L4] in cloud environments'); "
        "https://github.com/NVIDIA/TensorRT-LLM/issues/1034 (g5.48xlarge, tp 4: 'peer access is not supported "
        "between these two devices'). Caveat: a property of the instances, not of the chip. Default: no P2P")),
    "L4": (False, (
        "no P2P on the cloud instances that carry it: https://github.com/vllm-project/vllm/pull/2192 (WoosukKwon: "
        "'CUDA P2P access is not possible for these GPUs [A10G/L4] in cloud environments'); "
        "https://github.com/NVIDIA-NeMo/RL/issues/1683 (AWS g6.48xlarge, 8x L4: 'Cuda failure 217 'peer access is "
        "not supported between these two devices''); https://github.com/llm-d-incubation/llm-d-infra/pull/181 "
        "('AWS g6 series does not have NVLink/NVSwitch or PCIe P2P'). Caveat: a property of the instances, not of "
        "the chip (an L4 server on bare metal may have it). Default: no P2P")),
    "T4": (False, (
        "no P2P on the cloud instances that carry it: https://github.com/ray-project/ray/pull/64109 (Ray's T4 CI "
        "fleet: NCCL's cuMem path 'attempts GPU peer access …, which is unsupported on T4'); "
        "https://github.com/ray-project/ray/issues/15495 (4x T4 on AWS, driver 460: collectives ran only with "
        "NCCL_P2P_DISABLE); https://github.com/sgl-project/sglang/issues/552 (2x T4 on Kaggle: the custom "
        "all-reduce failed with 'peer access is not supported between these two devices'); Kaggle's 2x T4 (NCCL "
        "2.27.5 'via SHM/direct/direct', 'isAllDirectP2p 0', validation "
        "cases vp_033 / vp_035, tpkit.engines.vllm.baseline.profile_nontorch_growth). Caveat: a property of the "
        "instances, not of the chip. Default: no P2P")),
    # professional and datacenter PCIe boards: peer access
    "RTX-PRO-6000": (True, (
        "P2P over PCIe: https://github.com/vllm-project/vllm/issues/56128 (4x RTX PRO 6000 Blackwell Server "
        "Edition, 'PCIe peer-to-peer, no NVLink', driver 580.126.09); aikitoria/open-gpu-kernel-modules PR #29 "
        "(a Max-Q board 'CAN Access Peer' with the 5090s beside it, patched driver). Caveat: one user reports no "
        "P2P on a board whose GPUs meet at the host bridge (aikitoria issue #12, 'rtx pro 6000 cannot p2p'). "
        "Default: P2P")),
    "RTX-6000-Ada": (True, (
        "P2P over PCIe (professional board): https://github.com/efeslab/Nanoflow/issues/22 ('Only workstation "
        "cards (e.g. Ada 6000) or V100, A100, H100 have this feature'). No start-up trace of two boards found. "
        "Default: P2P")),
    "RTX-A6000": (True, (
        "P2P over PCIe (professional board: NVIDIA withholds P2P from GeForce cards only, " + _GEFORCE_NVIDIA
        + "; https://github.com/efeslab/Nanoflow/issues/22: workstation cards have it). No trace of two A6000s "
        "found (the simpleP2P 'No' between an A6000 and GeForce boards in aikitoria PR #5 is across models). An "
        "NVLink bridge joins two boards. Default: P2P")),
    "A40": (True, "P2P over PCIe (datacenter board of the RTX A6000's chip; see RTX-A6000). No trace found. "
                  "Default: P2P"),
    "L40S": (True, (
        "P2P over PCIe: a vLLM 0.16.0 start-up on 2x L40S (tests/logs/data/vllm/vl_254.log, validation case "
        "vp_173) prints 'custom_all_reduce.py:216] Registering 13685 cuda graph addresses': the custom all-reduce "
        "came up, which it does only after its P2P check (custom_all_reduce.py CustomAllreduce.__init__, _can_p2p; "
        "vLLM's default VLLM_SKIP_P2P_CHECK=1 trusts the driver's report). Sources disagree: "
        "https://github.com/ai-dynamo/aiconfigurator/issues/1346 (two 8x L40S nodes, vLLM 0.24.0: the custom "
        "all-reduce init hangs, titled 'no GPU P2P'). Default: P2P")),
    "L40": (True, "P2P over PCIe: the L40S's board and chip (see L40S); no trace of the L40 itself. Default: P2P"),
    "A10": (False, (
        "no P2P on the one host traced: https://github.com/NVIDIA/TensorRT-LLM/issues/1374 (2x A10, PHB: "
        "'cudaDeviceCanAccessPeer(0, 1)' returns 0); A10s are mostly rented as cloud VMs, and its AWS variant A10G "
        "has none there (see A10G). Caveat: a datacenter board, so a bare-metal server may have it; no trace of "
        "peer access found. Default: no P2P")),
    "A100-PCIe-40GB": (True, (
        "P2P over PCIe (datacenter board): https://github.com/efeslab/Nanoflow/issues/22 ('V100, A100, H100 have "
        "this feature'). Caveat: containers or VMs holding one GPU each have none (dennislee22/vLLM-benchmarking, "
        "explain log vl_087: 2 pods on one A100 node, 'lacks GPU P2P capability'). Default: P2P")),
    "A100-PCIe-80GB": (True, (
        "P2P over PCIe (datacenter board): https://github.com/efeslab/Nanoflow/issues/22. Caveat: containers or "
        "VMs holding one GPU each have none (explain log vl_087, A100 80 GB pods). Default: P2P")),
    "H100-PCIe-80GB": (True, "P2P over PCIe (datacenter board): https://github.com/efeslab/Nanoflow/issues/22. "
                             "Default: P2P"),
    "H100-NVL-94GB": (True, "P2P over PCIe (datacenter board; an NVLink bridge joins pairs): "
                            "https://github.com/efeslab/Nanoflow/issues/22. Default: P2P"),
    **{name: (True, (
        "P2P over PCIe on the PCIe boards (datacenter; SXM2 boards use NVLink): https://github.com/efeslab/"
        "Nanoflow/issues/22 ('V100, A100, H100 have this feature'). Caveat: none across CPU sockets "
        "(https://github.com/1CatAI/1Cat-vLLM/pull/88: 2x V100-PCIE-32GB 'cross-socket with no GPU<->GPU P2P', "
        "vLLM turns its custom all-reduce off). Default: P2P")) for name in ("V100-16GB", "V100-32GB")},
}
"""catalog name → (CUDA peer access between two boards over PCIe on the stock driver, source and caveat)"""
