"""Which GPU decides a plan on a probed machine, and whether the engine would call its GPUs unbalanced.

Both engines size their pools from what one rank measures: SGLang takes the minimum free memory over the
ranks of its model replica (``pre_model_load_memory``), vLLM unifies the KV cache to its tightest worker,
and with data parallelism every replica does the same on its own GPUs.  So the GPU that decides whether a
layout fits is the one with the least memory left once its own CUDA context exists, over every GPU the
layout uses: the first tp × pp × dp GPUs of the profile, in CUDA order.
"""

from __future__ import annotations

from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.hardware.machine import GpuState, MachineProfile, check_same_gpu
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.startup.cost import Cost
from tpkit.startup.terms import cuda_context
from tpkit.units import Bytes

__all__ = ["TightestRank", "Imbalance", "layout_gpus", "tightest_rank", "find_imbalance"]


@dataclass(frozen=True, kw_only=True, slots=True)
class TightestRank:
    """The GPU with the least memory left after its CUDA context."""

    rank: int
    """its position among the layout's GPUs (CUDA order)"""
    state: GpuState
    """that GPU as probed"""
    free_before_process: Bytes
    """memory free before any serving process: probed free + the probe's own context (bytes)"""
    context: Cost
    """the CUDA context a serving process creates on it"""
    ranks: int
    """GPUs compared (count)"""

    @property
    def held_by_others(self) -> Bytes:
        """Device total − free before the process: other processes and the driver (bytes)."""
        return self.state.total_bytes - self.free_before_process


@dataclass(frozen=True, kw_only=True, slots=True)
class Imbalance:
    """A replica whose tightest GPU has less than ``ratio`` × the free memory of another of its GPUs."""

    tight: GpuState
    """the GPU with the least free memory"""
    tight_free: Bytes
    """its free memory after the CUDA context (bytes)"""
    rich: GpuState
    """the GPU with the most"""
    rich_free: Bytes
    """its free memory after the CUDA context (bytes)"""


def layout_gpus(machine: MachineProfile, parallel: ParallelSpec) -> tuple[GpuState, ...]:
    """The GPUs a layout uses: the first tp × pp × dp of the profile in CUDA order."""
    need = parallel.num_gpus
    if len(machine.gpus) < need:
        raise PlanInputError(f"the machine profile has {len(machine.gpus)} GPU(s) but tp×pp×dp = {need}; "
                             "probe a larger machine or lower --tp/--pp/--dp")
    return tuple(sorted(machine.gpus, key=lambda g: g.index)[:need])


def _free_after_context(state: GpuState, gpu: GpuSpec | None) -> Bytes:
    return state.free_bytes + state.used_by_this_process_bytes - cuda_context(gpu, state).bytes


def tightest_rank(machine: MachineProfile, parallel: ParallelSpec, gpu: GpuSpec | None) -> TightestRank:
    """The GPU of the layout with the least memory left after its CUDA context (the first of equals)."""
    ranks = layout_gpus(machine, parallel)
    if gpu is not None:
        check_same_gpu(ranks, gpu.total_bytes, gpu.name)
    tight = min(range(len(ranks)), key=lambda i: _free_after_context(ranks[i], gpu))
    state = ranks[tight]
    free = state.free_bytes + state.used_by_this_process_bytes
    return TightestRank(rank=tight, state=state, free_before_process=free, context=cuda_context(gpu, state),
                        ranks=len(ranks))


def find_imbalance(machine: MachineProfile, parallel: ParallelSpec, gpu: GpuSpec | None, *,
                   ratio: float) -> Imbalance | None:
    """The first replica (tp × pp consecutive GPUs) whose least free GPU has under ``ratio`` × its most."""
    ranks = layout_gpus(machine, parallel)
    size = parallel.tp * parallel.pp
    for start in range(0, len(ranks), size):
        group = ranks[start:start + size]
        free = [_free_after_context(g, gpu) for g in group]
        low = min(range(len(group)), key=lambda i: free[i])
        high = max(range(len(group)), key=lambda i: free[i])
        if free[low] < free[high] * ratio:
            return Imbalance(tight=group[low], tight_free=free[low], rich=group[high], rich_free=free[high])
    return None
