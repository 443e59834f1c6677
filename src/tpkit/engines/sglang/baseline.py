"""SGLang's pre-model-load baseline: free memory after the CUDA context, process groups and custom
all-reduce buffers, before weights (spec §2, §6.4, §6.5).

SGLang never computes these terms; it measures free memory after them (``pre_model_load_memory``,
min over ranks).  tpkit predicts that measurement from sourced terms:

    term                      bytes             source
    CUDA context              648,937,472       measured, H200 ×2 (measurements/h200x2-startup-…json)
    NCCL process group        383,778,816       measured, same run (init_process_group, nccl)
    NCCL first all-reduce     499,122,176       measured, same run (PyNccl warm-up all-reduce)
    cuBLAS workspace          102,760,448       measured, same run (first bf16 matmul)
    SGLang process overhead   0.39 GiB          inferred from a real SGLang log (below)
    custom all-reduce         spec §6.4 legacy: 2 × 8 MiB + 8 MiB rank data + Signal;
                              §6.5 V2 (0.5.15+, full NVLink): symmetric buffer + graph table, per world size

NCCL terms apply only when the TP×PP world has more than one rank.  With a ``MachineProfile`` the
starting point is the measured free memory of the tightest rank instead of the catalog total.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tpkit.engines.sglang.versions import era_at_least
from tpkit.hardware.gpu import GpuSpec
from tpkit.hardware.startup import STARTUP_COSTS, STARTUP_SOURCE
from tpkit.hardware.machine import MachineProfile
from tpkit.memory.ledger import LineItem
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, MiB, format_bytes
from tpkit.errors import PlanInputError

__all__ = ["Baseline", "plan_baseline", "custom_allreduce_bytes", "MEASURED", "PROCESS_OVERHEAD"]

_MEASURED_SRC = STARTUP_SOURCE
MEASURED = STARTUP_COSTS
"""start-up costs measured step by step on one H200 rank (``tpkit.hardware.startup``)"""

PROCESS_OVERHEAD = Bytes(round(0.39 * 2**30))
"""Free memory SGLang's own process loses before weights beyond context + cuBLAS (bytes).

Inferred from sgl-project/sglang PR#19718 (gpt-oss-120b, RTX PRO 6000, tp 1, default f = 0.858):
"Memory pool end. avail mem=12.33 GB" = pre × (1 − f) − req_to_token (1.00 GiB) ⇒ pre ≈ 93.88 GiB,
0.39 GiB (±0.04) below total − context − cuBLAS.  Plausibly device code of the kernel libraries
an SGLang process loads (sgl-kernel, FlashInfer, Triton): UNVERIFIED.
"""
_OVERHEAD_SRC = ("inferred from a real SGLang log (sglang PR#19718 'Memory pool end' line, tp 1): kernel "
                 "libraries and allocator state of the server process (UNVERIFIED split)")

_V2_SM90_MIB = {2: (80.0, 2), 3: (34.0, 3), 4: (23.0, 4), 5: (19.8, 5), 6: (18.3, 6), 7: (17.8, 7), 8: (18.0, 8)}
"""CustomAllReduceV2 on SM90: world size → (symmetric buffer MiB, graph-params table MiB), spec §6.5"""
_SIGNAL_BYTES = 3_456
"""sizeof(Signal) with kSignalBlocks = 36 (spec §6.4)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Baseline:
    """The starting capacity and the uses that precede weight loading, for the tightest rank."""

    capacity: LineItem
    """device total (catalog) or measured free memory (machine profile)"""
    uses: tuple[LineItem, ...]
    """CUDA context, NCCL, custom all-reduce, the caller's extra uses, cuBLAS, process overhead"""
    rank_label: str
    """which GPU the ledger describes"""
    free_before_weights: Bytes
    """predicted ``pre_model_load_memory``: capacity − uses (bytes)"""
    warnings: tuple[str, ...] = ()
    """notes for the plan (e.g. memory imbalance)"""


def custom_allreduce_bytes(gpu: GpuSpec, world: int, era: str) -> tuple[Bytes, str]:
    """Device bytes of the TP group's custom all-reduce buffers, and which implementation."""
    if world < 2:
        return Bytes(0), "none (tp = 1)"
    nvlink = gpu.nvlink_gbps_per_direction is not None
    cuda = gpu.vendor == "NVIDIA"
    sm90 = gpu.compute_capability == (9, 0)
    if cuda and nvlink and era_at_least(era, "0.5.15") and world in _V2_SM90_MIB:
        sym_mib, table_mib = _V2_SM90_MIB[world]
        note = "" if sm90 else " (SM90 sizes used for another arch: UNVERIFIED)"
        return MiB(sym_mib) + MiB(table_mib), (
            f"CustomAllReduceV2, ws {world}: {sym_mib} MiB symmetric + {table_mib} MiB graph table (spec §6.5){note}")
    if world not in (2, 4, 6, 8) or (world > 2 and not nvlink):
        return Bytes(0), f"disabled (world {world}, {'NVLink' if nvlink else 'PCIe'}; spec §6.3)"
    max_size = MiB(16) if not cuda else MiB(8)
    return max_size * 3 + Bytes(_SIGNAL_BYTES), (
        f"legacy CustomAllreduce: 2 × {format_bytes(max_size)} IPC buffers + {format_bytes(max_size)} rank data "
        f"+ Signal {_SIGNAL_BYTES} B (spec §6.4)")


def plan_baseline(gpu: GpuSpec, parallel: ParallelSpec, era: str, machine: MachineProfile | None, *,
                  disable_custom_all_reduce: bool = False, extra_uses: tuple[LineItem, ...] = ()) -> Baseline:
    """Capacity and pre-weight uses of the rank with the least memory.

    ``extra_uses``: memory the process allocates before SGLang measures ``pre_model_load_memory`` (e.g.
    tpkit's all-reduce buffers), charged like the CUDA context.  ``disable_custom_all_reduce`` drops SGLang's
    own custom all-reduce buffers (``--disable-custom-all-reduce``).
    """
    if machine is None:
        return _catalog_baseline(gpu, parallel.tp, parallel.pp, era, disable_custom_all_reduce, extra_uses)
    return _baseline(gpu, parallel, era, machine, disable_custom_all_reduce, extra_uses)


@lru_cache(maxsize=512)
def _catalog_baseline(gpu: GpuSpec, tp: int, pp: int, era: str, disable_car: bool = False,
                      extra_uses: tuple[LineItem, ...] = ()) -> Baseline:
    """Baseline from the catalog total (memoised: it depends only on these values)."""
    return _baseline(gpu, ParallelSpec(tp=tp, pp=pp), era, None, disable_car, extra_uses)


def _baseline(gpu: GpuSpec, parallel: ParallelSpec, era: str, machine: MachineProfile | None,
              disable_car: bool = False, extra_uses: tuple[LineItem, ...] = ()) -> Baseline:
    capacity, label, warnings = _capacity(gpu, parallel, machine)
    world = parallel.tp * parallel.pp
    uses = [LineItem(item="CUDA context", bytes=MEASURED["cuda_context"], source=_MEASURED_SRC)]
    if world > 1:
        uses.append(LineItem(item="NCCL process group", bytes=MEASURED["nccl_process_group"],
                             source=f"{_MEASURED_SRC}; world {world} (buffers grow with peers: UNVERIFIED)"))
        uses.append(LineItem(item="NCCL communicator warm-up", bytes=MEASURED["nccl_first_allreduce"],
                             source=f"{_MEASURED_SRC}; PyNccl 1-element warm-up all-reduce"))
    ar_bytes, ar_source = (Bytes(0), "") if disable_car else custom_allreduce_bytes(gpu, parallel.tp, era)
    if ar_bytes:
        uses.append(LineItem(item="custom all-reduce buffers", bytes=ar_bytes, source=ar_source))
    uses.extend(extra_uses)
    uses.append(LineItem(item="cuBLAS workspace", bytes=MEASURED["cublas"], source=_MEASURED_SRC))
    uses.append(LineItem(item="SGLang process overhead", bytes=PROCESS_OVERHEAD, source=_OVERHEAD_SRC))
    free = capacity.bytes - sum((u.bytes for u in uses), Bytes(0))
    return Baseline(capacity=capacity, uses=tuple(uses), rank_label=label, free_before_weights=free,
                    warnings=warnings)


def _capacity(gpu: GpuSpec, parallel: ParallelSpec, machine: MachineProfile | None):
    world = parallel.tp * parallel.pp
    if machine is None:
        line = LineItem(item=f"{gpu.name} total", bytes=gpu.total_bytes, source=gpu.total_source, kind="capacity")
        return line, "per GPU (catalog total)", ()
    if len(machine.gpus) < world:
        raise PlanInputError(f"the machine profile has {len(machine.gpus)} GPU(s) but tp×pp = {world}; "
                             "probe a larger machine or lower --tp/--pp")
    ranks = sorted(machine.gpus, key=lambda g: g.index)[:world]
    free = [g.free_bytes + g.used_by_this_process_bytes for g in ranks]
    tight = min(range(world), key=lambda i: free[i])
    g = ranks[tight]
    line = LineItem(item=f"free on GPU {g.index} ({g.name})", bytes=free[tight], kind="capacity",
                    source=f"machine profile: cudaMemGetInfo free, min over {world} ranks (probe's own context "
                           f"{format_bytes(g.used_by_this_process_bytes)} added back)")
    return line, f"rank {tight} = GPU {g.index} (min free)", _imbalance(ranks, free, tight, parallel.tp)


def _imbalance(ranks, free, tight: int, tp: int) -> tuple[str, ...]:
    """SGLang's TP balance check: min free < 0.9 × a rank's own free memory aborts start-up (§2.1)."""
    if tp < 2:
        return ()
    richest = max(range(len(free)), key=lambda i: free[i])
    if free[tight] >= free[richest] * 0.9:
        return ()
    return (f"memory is unbalanced: GPU {ranks[tight].index} has {format_bytes(free[tight])} free, "
            f"GPU {ranks[richest].index} has {format_bytes(free[richest])} (min < 0.9 × local): SGLang raises "
            "'The memory capacity is unbalanced' at start-up; free the busy GPU or set "
            "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=false",)
