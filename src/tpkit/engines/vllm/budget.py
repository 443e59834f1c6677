"""vLLM's start-up budget: baseline memory before the snapshot, the requested memory and the start-up check
(spec §1.1–§1.3, §5.3).

    requested     = ceil(total × gpu_memory_utilization)          (0.33; ≤ 0.11: the float product)
    start-up      : free at the snapshot ≥ requested, else "Free memory on device … is less than desired
                    GPU memory utilization"
    baseline      = CUDA context + NCCL communicators (+ first all-reduce) + custom all-reduce + cuBLAS;
                    V0 charges all of it to the budget (its "non_torch_memory" counts everything outside
                    torch's allocator); V1 charges only what is created after its init snapshot (NCCL and
                    custom all-reduce before 0.11.0, cuBLAS in the 0.11 era: ``VllmRules``), as non-torch
                    increase

Baseline terms are cudaMemGetInfo deltas measured on an H200 (measurements/README.md); on other GPUs they
are estimates.  With a ``MachineProfile`` the tightest GPU's measured free memory replaces the catalog total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tpkit.engines.vllm.versions import VllmRules
from tpkit.hardware.gpu import GpuSpec
from tpkit.hardware.machine import MachineProfile
from tpkit.hardware.startup import STARTUP_COSTS, STARTUP_SOURCE
from tpkit.memory.ledger import LineItem
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, MiB

__all__ = ["Baseline", "plan_baseline", "requested_bytes", "custom_allreduce_bytes", "MEASURED_H200",
           "profile_nontorch_growth"]

_SRC = STARTUP_SOURCE
MEASURED_H200 = {
    "CUDA context": STARTUP_COSTS["cuda_context"],
    "NCCL communicator init": STARTUP_COSTS["nccl_process_group"],
    "NCCL first all-reduce buffers": STARTUP_COSTS["nccl_first_allreduce"],
    "cuBLAS/cuBLASLt handles": STARTUP_COSTS["cublas"],
}
"""vLLM's names for the measured start-up costs (``tpkit.hardware.startup``)"""
_CUSTOM_AR_MAX_SIZE = MiB(8)
"""custom all-reduce ``max_size`` default, 8192 × 1024 bytes (spec §5.2)"""
_RANK_DATA = MiB(8)
"""custom all-reduce rank_data tensor (spec §5.3)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Baseline:
    """Device capacity and the memory in use when vLLM takes its init snapshot (limiting rank)."""

    capacity: LineItem
    """device total (catalog or measured)"""
    pre_existing: LineItem | None
    """memory other processes hold (machine profile only)"""
    uses: tuple[LineItem, ...]
    """what exists at vLLM's init snapshot: CUDA context, and NCCL, custom all-reduce, cuBLAS where the
    release creates them before it"""
    after_snapshot: tuple[LineItem, ...] = ()
    """start-up memory created after the snapshot (V1 charges it as non-torch increase)"""
    total_bytes: Bytes
    """``init_snapshot.total_memory`` (what the utilisation multiplies)"""
    rank_label: str

    @property
    def free_at_snapshot(self) -> Bytes:
        """``init_snapshot.free_memory``: capacity − what others hold − baseline uses."""
        held = self.pre_existing.bytes if self.pre_existing else Bytes(0)
        return self.capacity.bytes - held - sum((u.bytes for u in self.uses), Bytes(0))


def requested_bytes(total: Bytes, utilization: float, rules: VllmRules) -> Bytes:
    """``requested_memory`` (0.33: ceil of total × util; earlier: the float product, floored here because
    the available bytes are truncated to int afterwards)."""
    product = total.bytes * utilization
    return Bytes(math.ceil(product) if rules.ceil_requested else math.floor(product))


def custom_allreduce_bytes(parallel: ParallelSpec, rules: VllmRules, *, disabled: bool = False) -> Bytes:
    """Per-rank buffers of vLLM's custom all-reduce on the TP group, 0 when it does not initialise
    (``disabled``: ``--disable-custom-all-reduce``)."""
    if disabled or parallel.tp not in rules.custom_ar_world_sizes or parallel.tp > 8:
        return Bytes(0)
    meta = Bytes(rules.custom_ar_signal_bytes) + _CUSTOM_AR_MAX_SIZE
    return meta + MiB(rules.custom_ar_buffer_mib) + _RANK_DATA


def _context(machine: MachineProfile | None) -> LineItem:
    own = machine.min_free.used_by_this_process_bytes if machine is not None else Bytes(0)
    if own > Bytes(0):
        return LineItem(item="CUDA context", bytes=own,
                        source=f"measured by tpkit probe on GPU {machine.min_free.index} (the probe's own context)")
    return LineItem(item="CUDA context", bytes=MEASURED_H200["CUDA context"], source=_SRC)


def _uses(parallel: ParallelSpec, rules: VllmRules, machine: MachineProfile | None,
          disable_car: bool = False) -> tuple[LineItem, ...]:
    lines = [_context(machine)]
    if parallel.num_gpus > 1:
        for name in ("NCCL communicator init", "NCCL first all-reduce buffers"):
            lines.append(LineItem(item=name, bytes=MEASURED_H200[name], source=_SRC))
    car = custom_allreduce_bytes(parallel, rules, disabled=disable_car)
    if car:
        lines.append(LineItem(
            item="custom all-reduce buffers", bytes=car,
            source=f"Signal {rules.custom_ar_signal_bytes:,} B + max_size 8 MiB (meta) + "
                   f"{rules.custom_ar_buffer_mib} MiB staging + 8 MiB rank_data (spec §5.3), TP {parallel.tp}"))
    lines.append(LineItem(item="cuBLAS/cuBLASLt handles", bytes=MEASURED_H200["cuBLAS/cuBLASLt handles"],
                          source=_SRC))
    return tuple(lines)


_AFTER_SNAPSHOT_SRC = {
    "distributed": "created after vLLM's init snapshot: < 0.11.0 gpu_worker.init_device takes MemorySnapshot() "
                   "before init_worker_distributed_environment (vllm 0.10.1/0.10.2 wheels), so "
                   "memory_profiling counts it in non_torch_increase",
    "cublas": "created by the profile run's first GEMM, after vLLM's init snapshot (no cuBLAS warm-up in "
              "0.11.0 gpu_worker.init_device), so it lands in the profile's increase",
}


def _split_at_snapshot(uses: tuple[LineItem, ...], rules: VllmRules) -> tuple[tuple, tuple]:
    """(before the init snapshot, after it) for V1; V0 charges everything anyway, so all stay before."""
    if rules.engine != "V1" or rules.memory_rule == "v0_peak":
        return uses, ()
    before, after = [], []
    for u in uses:
        key = ("cublas" if u.item.startswith("cuBLAS") else
               "distributed" if u.item.startswith(("NCCL", "custom all-reduce")) else None)
        late = (key == "cublas" and rules.cublas_after_snapshot) or (
            key == "distributed" and rules.distributed_after_snapshot)
        if late:
            after.append(LineItem(item=u.item, bytes=u.bytes, kind=u.kind,
                                  source=f"{u.source}; {_AFTER_SNAPSHOT_SRC[key]}"))
        else:
            before.append(u)
    return tuple(before), tuple(after)


def _insert_extra(uses: tuple[LineItem, ...], extra: tuple[LineItem, ...]) -> tuple[LineItem, ...]:
    """``extra`` after the distributed lines, before cuBLAS (where a process allocates it at start-up)."""
    at = next((i for i, u in enumerate(uses) if u.item.startswith("cuBLAS")), len(uses))
    return uses[:at] + extra + uses[at:]


def plan_baseline(gpu: GpuSpec, parallel: ParallelSpec, rules: VllmRules, machine: MachineProfile | None = None,
                  *, disable_custom_all_reduce: bool = False, extra_uses: tuple[LineItem, ...] = ()) -> Baseline:
    """Capacity and pre-snapshot uses of the limiting rank.

    ``extra_uses``: memory the process allocates before vLLM's init snapshot (e.g. tpkit's all-reduce
    buffers), charged like the CUDA context in every era.  ``disable_custom_all_reduce`` drops vLLM's own
    custom all-reduce buffers (``--disable-custom-all-reduce``).
    """
    uses, after = _split_at_snapshot(_uses(parallel, rules, machine, disable_custom_all_reduce), rules)
    uses = _insert_extra(uses, tuple(extra_uses)) if extra_uses else uses
    if machine is None:
        cap = LineItem(item="device memory", bytes=gpu.total_bytes, kind="capacity",
                       source=f"{gpu.name} total as CUDA reports it ({gpu.total_source})")
        return Baseline(capacity=cap, pre_existing=None, uses=uses, after_snapshot=after,
                        total_bytes=gpu.total_bytes, rank_label="per GPU (every rank alike)")
    state = machine.min_free
    free = state.free_bytes + state.used_by_this_process_bytes
    cap = LineItem(item="device memory", bytes=state.total_bytes, kind="capacity",
                   source=f"GPU {state.index} ({state.name}) total, measured by tpkit probe")
    held = LineItem(item="held by other processes", bytes=state.total_bytes - free,
                    source=f"GPU {state.index}: total − measured free (tpkit probe)")
    return Baseline(capacity=cap, pre_existing=held, uses=uses, after_snapshot=after, total_bytes=state.total_bytes,
                    rank_label=f"GPU {state.index} (least free memory)")


def profile_nontorch_growth(parallel: ParallelSpec, rules: VllmRules, *, moe: bool = True) -> LineItem:
    """Non-torch memory that first appears during the V1 profile run.

    With DP > 1 (with or without EP: ``FusedMoE.forward_impl`` ``do_naive_dispatch_combine``, vllm 0.10.1),
    the MoE layers broadcast tokens over the DP group's torch.distributed NCCL communicator (the "naive"
    all-to-all), which NCCL creates lazily at that first use: its init and first-collective buffers land
    inside the profile.  Start-up memory created after the snapshot is charged separately
    (``Baseline.after_snapshot``); anything else is taken as 0.
    """
    if rules.engine == "V1" and parallel.dp > 1 and moe:
        grown = MEASURED_H200["NCCL communicator init"] + MEASURED_H200["NCCL first all-reduce buffers"]
        return LineItem(item="non-torch growth during profiling", bytes=grown,
                        source="DP-group NCCL communicator created lazily by the MoE all-to-all broadcast; "
                               "init + first collective " + _SRC)
    return LineItem(item="non-torch growth during profiling", bytes=Bytes(0),
                    source="assumed 0 beyond the start-up lines created after the snapshot (listed separately)")
