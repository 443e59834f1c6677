"""Device buffers of the engines' own custom all-reduce on the TP group, per implementation (pure).

    implementation                 engine, releases                 per-rank buffers
    SGLang CustomAllReduceV2       SGLang ≥ 0.5.15, CUDA, NVLink    symmetric buffer + graph table, by world size
                                                                    (SM90 sizes; sglang 0.5.23 custom_all_reduce_v2.py)
    SGLang legacy CustomAllreduce  SGLang (else)                    2 × max_size IPC buffers + max_size rank data
                                                                    + Signal (CustomAllreduce.__init__); world 2, 4,
                                                                    6, 8, > 2 only over full NVLink (sglang ≤ 0.5.23
                                                                    custom_all_reduce_utils.py
                                                                    can_use_custom_all_reduce_with_nvlink)
    SGLang on HIP (aiter CA +      SGLang ≥ 0.5.6, AMD              aiter CustomAllreduce 2-3 × max_size + 8 MiB
    QuickAllReduce)                                                 (max_size 64 MiB / 128 MiB / 1 GiB by the aiter
                                                                    the release's image pins) + from 0.5.9 the
                                                                    image's QuickAllReduce 2 × 2 GiB
                                                                    (``sglang_rocm_allreduce``, helper xg27)
    vLLM CustomAllreduce           vLLM, every release              Signal + max_size meta + staging + 8 MiB
                                                                    rank_data (vLLM ≤ 0.33 custom_all_reduce.py
                                                                    CustomAllreduce.__init__), on its world sizes

vLLM's TP all-reduce buffers (``vllm_allreduce_costs``), per release.

Created in ``CudaCommunicator.__init__`` (``distributed/device_communicators/cuda_communicator.py``) for the
group named "tp", in this order:

1. torch symmetric-memory all-reduce (``symm_mem.py SymmMemCommunicator``; on by default from 0.11.0,
   ``envs.py VLLM_ALLREDUCE_USE_SYMM_MEM``): a bf16 buffer of ``SYMM_MEM_ALL_REDUCE_MAX_SIZES[cap][ws]``
   bytes (``all_reduce_utils.py``; cap 9.0: 64/32/64/64 MiB for ws 2/4/6/8, cap 10.0: 8/32/128/128 MiB).
   It is allocated before the multicast check and stays referenced when that check disables the
   communicator; independent of ``--disable-custom-all-reduce``.
2. custom all-reduce (``custom_all_reduce.py CustomAllreduce``), unless ``--disable-custom-all-reduce``:
   only on world sizes {2, 4, 6, 8} ({2, 4, 6, 8, 16} from 0.27, 16 serving only multi-node MNNVL), disabled
   on more than two CUDA GPUs without a full NVLink mesh and without P2P (ROCm: XGMI counts as fully
   connected and the P2P test is skipped; the MI300X/MI325X boards are taken as one XGMI mesh).  ``max_size`` = 8 MiB,
   capped to ``CUSTOM_ALL_REDUCE_MAX_SIZES[cap][ws]`` when the symm-mem communicator came up (multicast: NVSwitch;
   cap 9.0: 64 MiB / 32 MiB / 512 KiB / 256 KiB for ws 2/4/6/8, cap 10.0: 2/2/1/1 MiB).  Buffers per rank:
   meta ``sizeof(Signal) + max_size``, staging ``max_size`` (≤ 0.26) or ``max(max_size, 2 MiB, 16 MiB)``
   (≥ 0.27), and 8 MiB ``rank_data``.  ``sizeof(Signal)`` 2,560 B ([36][8] flags), 4,864 B from 0.27
   ([36][16], the release that allows ws 16; csrc, not in the wheel's Python: derived).
3. ≥ 0.27, inside custom all-reduce: a ``6 × 16 MiB`` MNNVL Lamport buffer (``_init_mnnvl_buffer``), kept
   only when the symm-mem rendezvous returns a multicast pointer.

Across nodes (``GroupTopology.num_nodes`` > 1) neither engine keeps it: vLLM ≤ 0.26 and SGLang 0.4.2–0.5.23 print
"… is disabled because this process group spans across nodes"; vLLM ≥ 0.27 keeps it only through MNNVL (compute
capability ≥ 10.0 and a multicast pointer, 0.27.1 / 0.29.0 ``_group_can_attempt_mnnvl``); SGLang 0.5.23's V2 crosses
nodes only on one NVLink clique with the expandable-segments allocator (not modelled: off).  Without CUDA peer access
both print "… your platform lacks GPU P2P capability" and keep none.  The links come from
``tpkit.startup.links`` (catalog, probe, or what the user or the log says).

Multicast is taken to exist on a CUDA GPU of compute capability 9.x/10.x whose TP group is a full NVLink
mesh (an NVSwitch board); a symm-mem buffer without multicast carries its whole size as uncertainty.

Each returns a ``Cost`` of 0 bytes, with the reason, when the implementation does not initialise.
"""

from __future__ import annotations

from tpkit.hardware.gpu import GpuSpec, is_nvidia
from tpkit.records import dataclass
from tpkit.startup.cost import Cost
from tpkit.hardware.topology import GroupTopology
from tpkit.units import Bytes, KiB, MiB, format_bytes, mib_text

__all__ = ["sglang_custom_allreduce", "sglang_rocm_allreduce", "RocmAllreduceRelease", "VllmAllreduceRelease",
           "vllm_allreduce_costs", "multicast_group", "SYMM_MEM_SIZES", "CUSTOM_AR_SIZES"]

_ITEM = "custom all-reduce buffers"
_V2_SM90_MIB = {2: (80.0, 2), 3: (34.0, 3), 4: (23.0, 4), 5: (19.8, 5), 6: (18.3, 6), 7: (17.8, 7), 8: (18.0, 8)}
"""CustomAllReduceV2 on SM90: world size → (symmetric buffer MiB, graph-params table MiB),
sglang 0.5.15–0.5.23 ``python/sglang/srt/distributed/device_communicators/custom_all_reduce_v2.py`` with the SM90 table
of ``configs/custom_all_reduce_v2.py``"""
_SGLANG_SIGNAL_BYTES = 3_456
"""sizeof(Signal) with kSignalBlocks = 36 (``sgl-kernel/csrc/allreduce/custom_all_reduce.cuh`` ``struct Signal``)"""


def _cost(nbytes: Bytes, source: str) -> Cost:
    return Cost(key="custom_allreduce", item=_ITEM, bytes=nbytes, source=source)


def sglang_custom_allreduce(gpu: GpuSpec, links: GroupTopology, world: int, *, v2: bool) -> Cost:
    """SGLang's custom all-reduce on a ``world``-rank TP group; ``v2``: the release has CustomAllReduceV2."""
    if world < 2:
        return _cost(Bytes(0), "none (tp = 1)")
    nvlink = links.full_nvlink
    cuda = is_nvidia(gpu.vendor)
    if links.num_nodes > 1:
        return _cost(Bytes(0), f"disabled: the TP group spans {links.num_nodes} nodes (sglang 0.4.2–0.5.23 "
                               "CustomAllreduce.__init__ / custom_all_reduce_utils.py "
                               "can_use_custom_all_reduce_with_nvlink: 'spans across nodes'; 0.5.23's "
                               "CustomAllReduceV2 crosses nodes only on one NVLink clique with the expandable-segments "
                               "allocator, not modelled)")
    if cuda and links.p2p is False:
        return _cost(Bytes(0), f"disabled: no GPU P2P access in the TP group ({links.source or 'probed'}; sglang "
                               "0.4.2–0.5.23 custom all-reduce: 'your platform lacks GPU P2P capability')")
    if cuda and nvlink and v2 and world in _V2_SM90_MIB:
        sym_mib, table_mib = _V2_SM90_MIB[world]
        note = "" if gpu.compute_capability == (9, 0) else " (SM90 sizes used for another arch: UNVERIFIED)"
        return _cost(MiB(sym_mib) + MiB(table_mib),
                     f"CustomAllReduceV2, ws {world}: {sym_mib} MiB symmetric + {table_mib} MiB graph table "
                     f"(sglang 0.5.23 custom_all_reduce_v2.py CustomAllReduceV2){note}")
    if world not in (2, 4, 6, 8) or (world > 2 and not nvlink):
        return _cost(Bytes(0), f"disabled (world {world}, {'NVLink' if nvlink else 'PCIe'}; sglang "
                                       "custom_all_reduce_utils.py can_use_custom_all_reduce_with_nvlink)")
    max_size = MiB(16) if not cuda else MiB(8)
    return _cost(max_size * 3 + Bytes(_SGLANG_SIGNAL_BYTES),
                 f"legacy CustomAllreduce: 2 × {format_bytes(max_size)} IPC buffers + {format_bytes(max_size)} rank "
                 f"data + Signal {_SGLANG_SIGNAL_BYTES} B (sglang custom_all_reduce.py CustomAllreduce.__init__)")


@dataclass(frozen=True, kw_only=True, slots=True)
class RocmAllreduceRelease:
    """What an SGLang ROCm release allocates for its TP all-reduce on HIP (the engine's version rules fill it in)."""

    aiter_max_size: Bytes
    """aiter ``CustomAllreduce`` ``max_size`` of the aiter the release's image pins"""
    aiter_buffers: int
    """buffers of ``max_size`` it allocates: 2 (meta + IPC buffer, aiter ≤ v0.1.10.post1) or 3 (meta + input +
    output at 128 MiB, v0.1.10.post2–v0.1.11.post1; meta of 2 × max_size + input from v0.1.12)"""
    quick_reduce: bool
    """the release's image sets ``ROCM_QUICK_REDUCE_QUANTIZATION`` (INT8), so QuickAllReduce initialises"""


_QR_MAX_PROBLEM = Bytes(2**31)
"""quickreduce ``DeviceComms::kMaxProblemSize`` (INT32_MAX + 1), sgl-kernel ``csrc/allreduce/quick_all_reduce.cuh``;
SGLang passes 0 (the default) unless ``ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB`` is set"""
_QR_MAX_BLOCKS = 304 * 4
"""quickreduce ``kMaxNumBlocks`` (304 CUs on MI300 × 4), ``quick_all_reduce_base.h``"""
_QR_ARCHS = ("MI300X", "MI325X", "MI355X")
"""GPUs whose ``gcnArchName`` is gfx94x / gfx95x (``quick_all_reduce.py qr_rocm_arch_available``)"""


def sglang_rocm_allreduce(gpu: GpuSpec, links: GroupTopology, world: int, rel: RocmAllreduceRelease) -> Cost:
    """SGLang's custom all-reduce buffers on HIP for releases that dispatch to aiter (``dispatch_custom_allreduce``,
    sglang ≥ 0.5.6, ``SGLANG_USE_AITER_AR`` default true), per rank of a ``world``-rank TP group, both created in
    ``GroupCoordinator.__init__`` under ``use_custom_allreduce`` (so ``--disable-custom-all-reduce`` drops both):

    * aiter ``CustomAllreduce`` (ROCm/aiter ``aiter/dist/device_communicators/custom_all_reduce.py``): world 2, 4, 6
      or 8 on one node; ``aiter_buffers × max_size`` + 8 MiB ``rank_data`` (``meta_size()``, under 6 KiB, left out).
    * QuickAllReduce (sglang ``quick_all_reduce.py``, 0.5.5.post2–0.5.23): when ``ROCM_QUICK_REDUCE_QUANTIZATION``
      is not NONE (the wheel's default is NONE; the release's image sets INT8), on gfx94x / gfx95x, world 2, 4 or 8,
      one node; ``init_custom_qr`` allocates ``2 × kMaxProblemSize`` (2 × 2 GiB) of uncached data plus
      ``2 × world × kMaxNumBlocks × 4`` B of flags (sgl-kernel ``quick_all_reduce.cuh`` ``DeviceComms::init``).
    """
    if world < 2:
        return _cost(Bytes(0), "none (tp = 1)")
    if links.num_nodes > 1:
        return _cost(Bytes(0), f"disabled: the TP group spans {links.num_nodes} nodes (aiter CustomAllreduce / "
                               "sglang QuickAllReduce: 'spans across nodes')")
    parts, total = [], Bytes(0)
    if world in (2, 4, 6, 8):
        car = rel.aiter_max_size * rel.aiter_buffers + MiB(8)
        total += car
        parts.append(f"aiter CustomAllreduce {rel.aiter_buffers} × {format_bytes(rel.aiter_max_size)} + 8 MiB "
                     "rank_data (aiter custom_all_reduce.py CustomAllreduce.__init__)")
    if rel.quick_reduce and world in (2, 4, 8) and gpu.name in _QR_ARCHS:
        total += _QR_MAX_PROBLEM * 2 + Bytes(2 * world * _QR_MAX_BLOCKS * 4)
        parts.append("QuickAllReduce 2 × 2 GiB + flags (sgl-kernel quick_all_reduce.cuh DeviceComms::init; "
                     "ROCM_QUICK_REDUCE_QUANTIZATION=INT8 in the release's docker/rocm.Dockerfile)")
    if not parts:
        return _cost(Bytes(0), f"not initialised at world {world} (aiter: 2, 4, 6, 8; QuickAllReduce: 2, 4, 8)")
    return _cost(total, "; ".join(parts) + f", TP {world}")


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmAllreduceRelease:
    """What one vLLM release does with its TP all-reduce buffers (the engine's version rules fill it in)."""

    torch_symm_mem: bool
    """the torch symmetric-memory communicator is on by default (``VLLM_ALLREDUCE_USE_SYMM_MEM``, from 0.11)"""
    world_sizes: tuple[int, ...]
    """TP world sizes the custom all-reduce initialises on"""
    signal_bytes: int
    """``sizeof(Signal)`` in bytes"""
    staging_mib: int
    """minimum staging buffer in MiB (8 up to 0.26; 16 from 0.27)"""
    mnnvl_lamport: bool
    """the release keeps a 96 MiB MNNVL Lamport buffer when multicast is available (≥ 0.27)"""


SYMM_MEM_SIZES = {"9.0": {2: MiB(64), 4: MiB(32), 6: MiB(64), 8: MiB(64)},
                  "10.0": {2: MiB(8), 4: MiB(32), 6: MiB(128), 8: MiB(128)},
                  "10.3": {2: MiB(4), 4: MiB(32), 6: MiB(32), 8: MiB(64)}}
"""``SYMM_MEM_ALL_REDUCE_MAX_SIZES`` (``all_reduce_utils.py``, the same 0.10.2–0.33)"""
CUSTOM_AR_SIZES = {"9.0": {2: MiB(64), 4: MiB(32), 6: KiB(512), 8: KiB(256)},
                   "10.0": {2: MiB(2), 4: MiB(2), 6: MiB(1), 8: MiB(1)},
                   "10.3": {2: MiB(4), 4: MiB(4), 6: MiB(8), 8: MiB(4)}}
"""``CUSTOM_ALL_REDUCE_MAX_SIZES`` (``all_reduce_utils.py``, the same 0.10.2–0.33)"""
_MAX_SIZE = MiB(8)
_RANK_DATA = MiB(8)
_MNNVL = MiB(16) * 6


def _mib(amount: Bytes) -> str:
    return mib_text(amount, None) if amount >= MiB(1) else f"{amount.bytes // 1024} KiB"


def _cap(gpu: GpuSpec, links: GroupTopology) -> str | None:
    cc = links.compute_capability or gpu.compute_capability
    return f"{cc[0]}.{cc[1]}" if cc and is_nvidia(gpu.vendor) else None


def multicast_group(gpu: GpuSpec, links: GroupTopology, world: int) -> bool:
    """torch symm-mem rendezvous gives a multicast pointer (NVSwitch): CUDA 9.x/10.x on a full NVLink mesh."""
    cap = _cap(gpu, links)
    return world > 1 and cap is not None and cap.split(".")[0] in ("9", "10") and links.full_nvlink


def _mnnvl(gpu: GpuSpec, links: GroupTopology, world: int) -> bool:
    """vLLM ≥ 0.27 keeps its custom all-reduce on a group across nodes only through MNNVL: every rank of compute
    capability ≥ 10.0 (``_group_can_attempt_mnnvl``) and a multicast pointer from the symm-mem rendezvous (vllm
    0.27.1 / 0.29.0 custom_all_reduce.py ``CustomAllreduce.__init__``)."""
    cc = links.compute_capability or gpu.compute_capability
    return bool(cc) and cc[0] >= 10 and multicast_group(gpu, links, world)


def _symm_mem(gpu: GpuSpec, links: GroupTopology, world: int, rel: VllmAllreduceRelease) -> Cost | None:
    cap = _cap(gpu, links)
    size = SYMM_MEM_SIZES.get(cap or "", {}).get(world)
    if not rel.torch_symm_mem or size is None:
        return None
    multicast = multicast_group(gpu, links, world)
    note = "" if multicast else ("; no multicast on this group, so the communicator disables itself after "
                                 "allocating: whether the buffer stays resident is UNVERIFIED (± its size)")
    return Cost(key="extra", item="torch symm-mem all-reduce buffer", bytes=size,
                uncertainty=Bytes(0) if multicast else size,
                source=f"vLLM SymmMemCommunicator: SYMM_MEM_ALL_REDUCE_MAX_SIZES[{cap}][{world}] bf16 buffer "
                       f"(VLLM_ALLREDUCE_USE_SYMM_MEM on by default from 0.11){note}")


def _custom(gpu: GpuSpec, links: GroupTopology, world: int, rel: VllmAllreduceRelease) -> tuple[Cost, ...]:
    if world not in rel.world_sizes or world > 8:
        return (Cost(key="custom_allreduce", item="custom all-reduce buffers", bytes=Bytes(0),
                     source=f"not initialised (TP {world})"),)
    cuda = is_nvidia(gpu.vendor)
    if links.num_nodes > 1 and not (rel.mnnvl_lamport and _mnnvl(gpu, links, world)):
        return (Cost(key="custom_allreduce", item="custom all-reduce buffers", bytes=Bytes(0),
                     source=f"disabled: the TP group spans {links.num_nodes} nodes (vllm ≤ 0.26 custom_all_reduce.py "
                            "CustomAllreduce.__init__: 'spans across nodes'; ≥ 0.27 only on an MNNVL group of "
                            "compute capability ≥ 10.0 with multicast)"),)
    if cuda and world > 2 and not links.full_nvlink:
        return (Cost(key="custom_allreduce", item="custom all-reduce buffers", bytes=Bytes(0),
                     source=f"disabled: TP {world} over PCIe (not a full NVLink mesh)"),)
    if cuda and links.p2p is False:
        return (Cost(key="custom_allreduce", item="custom all-reduce buffers", bytes=Bytes(0),
                     source=f"disabled: no GPU P2P access in the TP group ({links.source or 'probed'}; "
                            "custom_all_reduce.py: 'your platform lacks GPU P2P capability')"),)
    cap = _cap(gpu, links)
    multicast = rel.torch_symm_mem and multicast_group(gpu, links, world) \
        and world in SYMM_MEM_SIZES.get(cap or "", {})
    max_size = min(CUSTOM_AR_SIZES.get(cap, {}).get(world, _MAX_SIZE), _MAX_SIZE) if multicast else _MAX_SIZE
    staging = max(max_size, MiB(rel.staging_mib)) if rel.staging_mib > 8 else max_size
    car = Cost(key="custom_allreduce", item="custom all-reduce buffers",
               bytes=Bytes(rel.signal_bytes) + max_size + staging + _RANK_DATA,
               source=f"Signal {rel.signal_bytes:,} B + max_size {_mib(max_size)} (meta) + "
                      f"{_mib(staging)} staging + 8 MiB rank_data (custom_all_reduce.py CustomAllreduce.__init__), "
                      f"TP {world}"
                      + (f"; max_size = CUSTOM_ALL_REDUCE_MAX_SIZES[{cap}][{world}] (torch symm-mem up)"
                         if multicast and max_size != _MAX_SIZE else ""))
    if not (rel.mnnvl_lamport and multicast):
        return (car,)
    return car, Cost(key="extra", item="custom all-reduce MNNVL Lamport buffer", bytes=_MNNVL,
                     source="vLLM CustomAllreduce._init_mnnvl_buffer: 6 × max(MNNVL all-gather max × ws, 16 MiB) "
                            "= 96 MiB symmetric memory, kept with multicast (≥ 0.27)")


def vllm_allreduce_costs(gpu: GpuSpec, links: GroupTopology, world: int, rel: VllmAllreduceRelease, *,
                         disable_custom_all_reduce: bool) -> tuple[Cost | None, tuple[Cost, ...]]:
    """(the custom all-reduce cost or None, the other all-reduce buffers in creation order) on a TP group."""
    if world < 2:
        return None, ()
    symm = _symm_mem(gpu, links, world, rel)
    before = (symm,) if symm is not None else ()
    if disable_custom_all_reduce:
        return None, before
    car, *after = _custom(gpu, links, world, rel)
    return car, before + tuple(after)
