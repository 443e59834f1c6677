"""NCCL NVLink SHARP (NVLS) buffers of vLLM's tensor-parallel communicators (pure).

Facts (NVIDIA/nccl, read at tags v2.20.5-1, v2.21.5-1, v2.26.2-1, v2.27.5-1; src/transport/nvls.cc, src/init.cc):

* ``ncclNvlsInit``: NVLS is on by default (``NCCL_NVLS_ENABLE`` 2) and stays off when the communicator's topology
  holds two GPUs or fewer (``gpuCount <= 2``, single node) or the device lacks
  ``CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`` (NVSwitch boards of compute capability 9.0 and later; A100 has none:
  NVIDIA/nccl-tests#228).  A catalog GPU whose hosts report the attribute as 0 (``GpuSpec.nvlink_multicast`` False:
  GH200, whose 1-4-superchip hosts join the GPUs by direct NVLink without an NVSwitch) gets no term (helper gh18).
* Buffer size per rank is ``nChannels x 2 x slot x nHeads``, one unicast allocation bound to the multicast object
  (``cuMemCreate`` of that size in ``nvlsGroupBindMem`` / ``nvlsAllocateMem``; the multicast mapping adds no
  physical memory), nHeads = the ranks on the node.
  - 2.20.x: slot = SIMPLE buffer (4 MiB) + 2 MiB of head/tail (``NVLS_MEM_ALIGN_SIZE``), nChannels =
    ``comm->nChannels``; allocated at communicator init (``ncclNvlsSetup``).  vllm-project/vllm#9699 prints it
    on 8 x H200: "nHeads 8 buffSize 4194304 memSize 2097152 nvlsPerRankSize 301989888 nvlsTotalSize 2415919104",
    i.e. 24 channels and 2.25 GiB per communicator.
  - 2.21.x: slot = ``NCCL_NVLS_CHUNKSIZE`` (128 KiB) x ``NCCL_STEPS`` (8) + 2 MiB = 3 MiB, same nChannels, at init.
  - >= 2.22: slot = 1 MiB, nChannels = the NVLS channels (16 on sm90; sm100: 32 in 2.26, 24 on one node from
    2.27, ``NVLS_NCHANNELS_SM90/SM100/SM100_NVL``), allocated by ``ncclNvlsBufferSetup`` at the first collective
    that runs the NVLS algorithm (``NCCL_RUNTIME_CONNECT``, default on).
  The driver rounds each size up to the multicast granularity (``cuMulticastGetGranularity``, RECOMMENDED); that
  granularity is not in the source and is not added here.
* NCCL of each vLLM release (the torch it pins, and the nvidia-nccl-cu12 that torch pins): torch 2.3-2.4 (vLLM
  0.4.3-0.6.3) 2.20.5; torch 2.5.1-2.6.0 (0.6.4-0.8.5) 2.21.5; torch 2.7 (0.9.0-0.10.0) 2.26.2; torch 2.8
  (0.10.1-0.10.2) 2.27.3.
* Communicators (vllm 0.7.3 wheel, distributed/parallel_state.py ``GroupCoordinator``,
  device_communicators/cuda_communicator.py, pynccl.py): the tensor-parallel group opens PyNccl's own
  communicator at init (warm-up all-reduce) and torch's ProcessGroupNCCL on its device group at the first
  gather / all-gather / broadcast (the profile run's logits gather), so two tp-rank communicators hold NVLS buffers.
  The world group uses no device communicator.

Scope: vLLM releases before 0.11 (from 0.11 the init snapshot follows the distributed init and the lazily connected
buffers are inside the start-up table's ``vllm_nontorch_growth[tp>2]`` row, whose H200 and GB200 samples hold
them).  SGLang sets ``NCCL_NVLS_ENABLE`` from ``--enable-nccl-nvls`` (default off, sgl-project/sglang#631 and
#3502), so it gets no term.  A tensor-parallel group spanning nodes, or larger than one 8-GPU NVSwitch board, is
not modelled (no term).
"""

from __future__ import annotations

from tpkit.hardware.gpu import GpuSpec
from tpkit.startup.cost import Cost
from tpkit.units import UNITS, Bytes, gib_text

__all__ = ["BOARD_GPUS", "COMMUNICATORS", "nccl_for_vllm", "nvls_bytes_per_communicator", "vllm_nvls_cost"]

MIB = UNITS["MiB"]
COMMUNICATORS = 2
"""tp-rank NCCL communicators vLLM opens before its KV sizing (PyNccl + torch's device group)"""
BOARD_GPUS = 8
"""GPUs on one NVSwitch baseboard (HGX H100/H200/B200): a larger tensor-parallel group spans hosts (or an MNNVL
rack), where NCCL's heads and NVLS trees differ; not modelled"""
_COLL_CHANNELS = 24
"""``comm->nChannels`` of the 8 x H200 NCCL log in vllm-project/vllm#9699 (the only printed value)"""


def nccl_for_vllm(release: tuple[int, int, int]) -> str | None:
    """NCCL line ("2.20", "2.21", "2.22+") of the torch wheel a vLLM release pins; None when not determined here
    (before 0.4.3) or when the release charges NCCL's lazy buffers elsewhere (0.11 and later)."""
    if release < (0, 4, 3) or release >= (0, 11, 0):
        return None
    if release < (0, 6, 4):
        return "2.20"
    if release < (0, 9, 0):
        return "2.21"
    return "2.22+"


def nvls_bytes_per_communicator(nccl: str, ranks: int, compute_capability: tuple[int, int]) -> Bytes:
    """NVLS buffer bytes one ``ranks``-rank single-node communicator allocates per GPU (0 at ≤ 2 ranks or before
    compute capability 9.0)."""
    if nccl not in ("2.20", "2.21", "2.22+"):
        raise ValueError(f"NCCL line must be '2.20', '2.21' or '2.22+', got {nccl!r}")
    if ranks <= 2 or compute_capability < (9, 0):
        return Bytes(0)
    if nccl == "2.20":
        return Bytes(_COLL_CHANNELS * 2 * (4 * MIB + 2 * MIB) * ranks)
    if nccl == "2.21":
        return Bytes(_COLL_CHANNELS * 2 * (128 * 1024 * 8 + 2 * MIB) * ranks)
    channels = 16 if compute_capability < (10, 0) else 24
    return Bytes(channels * 2 * MIB * ranks)


def vllm_nvls_cost(gpu: GpuSpec, tp: int, release: tuple[int, int, int], *, full_nvlink: bool,
                   nodes: int = 1) -> Cost | None:
    """NVLS buffers of vLLM's tensor-parallel communicators, or None where none are planned (see module doc)."""
    nccl = nccl_for_vllm(release)
    cc = gpu.compute_capability
    if nccl is None or cc is None or not full_nvlink or nodes != 1 or not 2 < tp <= BOARD_GPUS:
        return None
    if gpu.nvlink_multicast is False:  # no multicast object, no NVLS (ncclNvlsInit); GH200 hosts without NVSwitch
        return None
    one = nvls_bytes_per_communicator(nccl, tp, cc)
    if not one:
        return None
    when = "at communicator init" if nccl != "2.22+" else "at the first NVLS collective (the profile run)"
    return Cost(key="nccl_nvls", item="NCCL NVLink SHARP buffers", bytes=one * COMMUNICATORS,
                uncertainty=one,
                source=(f"NCCL {nccl} (the torch pinned by vLLM {'.'.join(map(str, release))}) on {tp} NVSwitch GPUs "
                        f"of compute capability {cc[0]}.{cc[1]}: {COMMUNICATORS} tp communicators (PyNccl, torch's "
                        f"device group) x {gib_text(one, 3)} allocated {when} (src/transport/nvls.cc; band: one "
                        f"communicator more or less)"))
