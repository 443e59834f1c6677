"""Device buffers of the engines' own custom all-reduce on the TP group, per implementation (pure).

    implementation                 engine, releases                 per-rank buffers
    SGLang CustomAllReduceV2       SGLang ≥ 0.5.15, CUDA, NVLink    symmetric buffer + graph table, by world size
                                                                    (SM90 sizes, spec §6.5)
    SGLang legacy CustomAllreduce  SGLang (else)                    2 × max_size IPC buffers + max_size rank data
                                                                    + Signal (spec §6.4); world 2, 4, 6, 8, and
                                                                    > 2 only over a full NVLink mesh (spec §6.3)
    vLLM CustomAllreduce           vLLM, every release              Signal + max_size meta + staging + 8 MiB
                                                                    rank_data (spec §5.3), on its world sizes

Each returns a ``Cost`` of 0 bytes, with the reason, when the implementation does not initialise.
"""

from __future__ import annotations

from tpkit.hardware.gpu import GpuSpec
from tpkit.startup.cost import Cost
from tpkit.hardware.topology import GroupTopology
from tpkit.units import Bytes, MiB, format_bytes

__all__ = ["sglang_custom_allreduce", "vllm_custom_allreduce"]

_ITEM = "custom all-reduce buffers"
_V2_SM90_MIB = {2: (80.0, 2), 3: (34.0, 3), 4: (23.0, 4), 5: (19.8, 5), 6: (18.3, 6), 7: (17.8, 7), 8: (18.0, 8)}
"""CustomAllReduceV2 on SM90: world size → (symmetric buffer MiB, graph-params table MiB), spec §6.5"""
_SGLANG_SIGNAL_BYTES = 3_456
"""sizeof(Signal) with kSignalBlocks = 36 (spec §6.4)"""
_VLLM_MAX_SIZE = MiB(8)
"""vLLM custom all-reduce ``max_size`` default, 8192 × 1024 bytes (spec §5.2)"""
_VLLM_RANK_DATA = MiB(8)
"""vLLM custom all-reduce rank_data tensor (spec §5.3)"""


def _cost(nbytes: Bytes, source: str) -> Cost:
    return Cost(key="custom_allreduce", item=_ITEM, bytes=nbytes, source=source)


def sglang_custom_allreduce(gpu: GpuSpec, links: GroupTopology, world: int, *, v2: bool) -> Cost:
    """SGLang's custom all-reduce on a ``world``-rank TP group; ``v2``: the release has CustomAllReduceV2."""
    if world < 2:
        return _cost(Bytes(0), "none (tp = 1)")
    nvlink = links.full_nvlink
    cuda = gpu.vendor == "NVIDIA"
    if cuda and nvlink and v2 and world in _V2_SM90_MIB:
        sym_mib, table_mib = _V2_SM90_MIB[world]
        note = "" if gpu.compute_capability == (9, 0) else " (SM90 sizes used for another arch: UNVERIFIED)"
        return _cost(MiB(sym_mib) + MiB(table_mib),
                     f"CustomAllReduceV2, ws {world}: {sym_mib} MiB symmetric + {table_mib} MiB graph table "
                     f"(spec §6.5){note}")
    if world not in (2, 4, 6, 8) or (world > 2 and not nvlink):
        return _cost(Bytes(0), f"disabled (world {world}, {'NVLink' if nvlink else 'PCIe'}; spec §6.3)")
    max_size = MiB(16) if not cuda else MiB(8)
    return _cost(max_size * 3 + Bytes(_SGLANG_SIGNAL_BYTES),
                 f"legacy CustomAllreduce: 2 × {format_bytes(max_size)} IPC buffers + {format_bytes(max_size)} rank "
                 f"data + Signal {_SGLANG_SIGNAL_BYTES} B (spec §6.4)")


def vllm_custom_allreduce(world: int, *, world_sizes: tuple[int, ...], signal_bytes: int, staging_mib: int) -> Cost:
    """vLLM's custom all-reduce on a ``world``-rank TP group: initialised on ``world_sizes`` up to 8 ranks."""
    if world not in world_sizes or world > 8:
        return _cost(Bytes(0), f"not initialised (TP {world})")
    meta = Bytes(signal_bytes) + _VLLM_MAX_SIZE
    return _cost(meta + MiB(staging_mib) + _VLLM_RANK_DATA,
                 f"Signal {signal_bytes:,} B + max_size 8 MiB (meta) + {staging_mib} MiB staging + 8 MiB rank_data "
                 f"(spec §5.3), TP {world}")
