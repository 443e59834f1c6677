"""The start-up terms a serving process charges before its weights, and the order it creates them.

    term               bytes from                                          charged when
    CUDA context       the probe's own context on the deciding GPU (a      always
                       measurement: no band), else the start-up table by
                       GPU family
    NCCL init          the start-up table by transport (NVLink / PCIe)     the engine's start-up world > 1
    NCCL warm-up       and world size, split in the measured ratio
    custom all-reduce  the engine's implementation (``custom_allreduce``)  the engine initialises it
    extra              the caller (e.g. tpkit's own all-reduce buffers)    given
    cuBLAS             the start-up table by GPU family                    always
    process overhead   an engine's own start-up allocations (SGLang: what  the engine has one
                       init_torch_distributed allocates besides NCCL)

Every table term carries its ± band (``Cost.uncertainty``) and is returned at the band end being planned
(``tpkit.memory.band``); ``startup_costs`` resolves the terms an engine passes in the same way, so a constant
such as ``SGLANG_PROCESS_OVERHEAD`` moves with the band too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.ledger import LineItem
from tpkit.startup.cost import Cost
from tpkit.startup.families import gpu_family
from tpkit.startup.table import entry, nccl_entry, nccl_init_fraction
from tpkit.units import Bytes

if TYPE_CHECKING:
    from tpkit.hardware.machine import GpuState

__all__ = ["cuda_context", "nccl_costs", "cublas", "extra_costs", "startup_costs", "SGLANG_PROCESS_OVERHEAD",
           "table_cost", "sglang_load_extra", "vllm_nontorch_growth"]


def table_cost(key: str, term: str, table_key: str, *, item: str, note: str = "") -> Cost:
    """A ``Cost`` from the start-up table cell ``term[table_key]``, at the current band end."""
    e = entry(term, table_key)
    return Cost(key=key, item=item, bytes=e.bytes, uncertainty=e.uncertainty, source=e.source + note).resolved()


_INIT = entry("sglang_tp1_init", "all")
SGLANG_PROCESS_OVERHEAD = Cost(
    key="process_overhead", item="SGLang init_torch_distributed (besides NCCL)", bytes=_INIT.bytes,
    uncertainty=_INIT.uncertainty,
    source="SGLang's 'Init torch distributed ends. mem usage' at tp 1 (0.00 GiB in 2025 builds, 0.09 GiB in 2026 "
           "builds, H100/H200/B200/16 GB cards); " + _INIT.source)
"""What SGLang's ``init_torch_distributed`` allocates at world 1, charged before weights on every world.

It replaces the 0.39 GiB "process overhead" fitted on one RTX PRO 6000 log: the "Load weight begin" lines of 16
Hopper start-ups, one B200, one RTX 5090, two L40S/L4 and one A100 put total − free before weights at the CUDA
context plus this term (docs/accuracy.md §5), with no 0.39 GiB left over on any of them.
"""


def cuda_context(gpu: GpuSpec | None, state: GpuState | None = None) -> Cost:
    """The CUDA context on ``state`` (a probed GPU): the probe's own context when it recorded one, which was
    measured on that very machine and driver (no band); else the start-up table for the GPU's family."""
    own = state.used_by_this_process_bytes if state is not None else Bytes(0)
    if own > Bytes(0):
        return Cost(key="cuda_context", item="CUDA context", bytes=own,
                    source=f"measured by tpkit probe on GPU {state.index} (the probe's own context)")
    return table_cost("cuda_context", "cuda_context", gpu_family(gpu), item="CUDA context")


def nccl_costs(gpu: GpuSpec | None, world: int, *, transport: str) -> tuple[Cost, ...]:
    """NCCL communicator init and its first (warm-up) collective for a ``world``-rank group over ``transport``
    (``"nvlink"`` or ``"pcie"``); none for one rank.  The table's total is split in the ratio measured on 2× H200."""
    if world < 2:
        return ()
    e = nccl_entry(transport, world)
    share = nccl_init_fraction()
    init = Bytes(round(e.bytes.bytes * share))
    init_unc = Bytes(round(e.uncertainty.bytes * share))
    split = f" (init {share:.0%} of the total, as measured on 2× H200)"
    return (Cost(key="nccl_init", item="NCCL process group", bytes=init, uncertainty=init_unc,
                 source=e.source + split).resolved(),
            Cost(key="nccl_warmup", item="NCCL communicator warm-up", bytes=e.bytes - init,
                 uncertainty=e.uncertainty - init_unc, source=e.source + split).resolved())


def cublas(gpu: GpuSpec | None) -> Cost:
    """cuBLAS/cuBLASLt handles and workspace (first GEMM)."""
    return table_cost("cublas", "cublas", gpu_family(gpu), item="cuBLAS workspace")


def sglang_load_extra() -> Cost:
    """What SGLang's model load allocates beyond the parameters ("Load weight begin" − "Load weight end" avail, minus
    the weights; 10 cases on H100/B200/L4/RTX 4090/RTX 3090).  In the table, not charged yet: SGLang's KV budget is
    measured after loading, so the engine would charge it with the weights (helper S decides)."""
    return table_cost("extra", "sglang_load_extra", "all", item="SGLang model-load buffers (beyond the weights)")


def vllm_nontorch_growth(world: int) -> Cost:
    """Non-torch memory vLLM (≥ 0.11) finds grown after its init snapshot beyond cuBLAS (its own term), for a
    ``world`` of tp × pp ranks: NCCL channels and protocols connected lazily at the profile run's first large
    collectives and kernel workspaces outside torch's allocator (late-0.2x 'non-torch' / 'consumed memory' lines).
    The vLLM rules charge it at world > 1 (``tpkit.engines.vllm.baseline.profile_nontorch_growth``); at world 1 the
    rows give 0 beyond cuBLAS."""
    return table_cost("extra", "vllm_nontorch_growth", "tp1" if world < 2 else "tp>1",
                      item="non-torch memory grown after the snapshot")


def extra_costs(lines: tuple[LineItem, ...]) -> tuple[Cost, ...]:
    """The caller's own start-up allocations (``use`` lines) as costs."""
    return tuple(Cost(key="extra", item=u.item, bytes=u.bytes, source=u.source, uncertainty=u.uncertainty)
                 for u in lines)


def startup_costs(*, context: Cost, nccl: tuple[Cost, ...], custom_allreduce: Cost | None,
                  extra: tuple[LineItem, ...] = (), cublas_cost: Cost,
                  process_overhead: Cost | None = None) -> tuple[Cost, ...]:
    """Every charged term in creation order, each at the current band end; a custom all-reduce of 0 bytes (not
    initialised) is left out."""
    car = (custom_allreduce,) if custom_allreduce is not None and custom_allreduce.bytes else ()
    tail = (process_overhead,) if process_overhead is not None else ()
    return tuple(c.resolved() for c in (context, *nccl, *car, *extra_costs(extra), cublas_cost, *tail))
