"""The start-up terms a serving process charges before its weights, and the order it creates them.

    term               bytes from                                          charged when
    CUDA context       the probe's own context on the deciding GPU, else   always
                       the measured table
    NCCL init          measured table (world size and transport recorded   the engine's start-up world > 1
    NCCL warm-up       for a per-world table; one measurement today)
    custom all-reduce  the engine's implementation (``custom_allreduce``)  the engine initialises it
    extra              the caller (e.g. tpkit's own all-reduce buffers)    given
    cuBLAS             measured table                                      always
    process overhead   an engine's own process (inferred from its logs)    the engine has one
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.ledger import LineItem
from tpkit.startup.cost import Cost
from tpkit.startup.measured import measured_cost
from tpkit.units import Bytes

if TYPE_CHECKING:
    from tpkit.hardware.machine import GpuState

__all__ = ["cuda_context", "nccl_costs", "cublas", "extra_costs", "startup_costs", "SGLANG_PROCESS_OVERHEAD"]

SGLANG_PROCESS_OVERHEAD = Cost(
    key="process_overhead", item="SGLang process overhead", bytes=Bytes(round(0.39 * 2**30)),
    uncertainty=Bytes(round(0.04 * 2**30)),
    source="inferred from a real SGLang log (sglang PR#19718 'Memory pool end' line, tp 1): kernel "
           "libraries and allocator state of the server process (UNVERIFIED split)")
"""Free memory SGLang's own process loses before weights beyond context + cuBLAS.

Inferred from sgl-project/sglang PR#19718 (gpt-oss-120b, RTX PRO 6000, tp 1, default f = 0.858):
"Memory pool end. avail mem=12.33 GB" = pre × (1 − f) − req_to_token (1.00 GiB) ⇒ pre ≈ 93.88 GiB,
0.39 GiB (±0.04) below total − context − cuBLAS.  Plausibly device code of the kernel libraries
an SGLang process loads (sgl-kernel, FlashInfer, Triton): UNVERIFIED.
"""


def cuda_context(gpu: GpuSpec | None, state: GpuState | None = None) -> Cost:
    """The CUDA context on ``state`` (a probed GPU): the probe's own context when it recorded one, which was
    measured on that very machine and driver; else the measured table."""
    own = state.used_by_this_process_bytes if state is not None else Bytes(0)
    if own > Bytes(0):
        return Cost(key="cuda_context", item="CUDA context", bytes=own,
                    source=f"measured by tpkit probe on GPU {state.index} (the probe's own context)")
    return measured_cost("cuda_context", gpu, item="CUDA context")


def nccl_costs(gpu: GpuSpec | None, world: int, *, transport: str) -> tuple[Cost, ...]:
    """NCCL communicator init and its first (warm-up) all-reduce for a ``world``-rank group over ``transport``
    (``"nvlink"`` or ``"pcie"``); none for one rank.  One measurement (2 ranks, NVLink) serves every world today."""
    if world < 2:
        return ()
    return (measured_cost("nccl_init", gpu, item="NCCL process group"),
            measured_cost("nccl_warmup", gpu, item="NCCL communicator warm-up"))


def cublas(gpu: GpuSpec | None) -> Cost:
    """cuBLAS/cuBLASLt handles and workspace (first GEMM)."""
    return measured_cost("cublas", gpu, item="cuBLAS workspace")


def extra_costs(lines: tuple[LineItem, ...]) -> tuple[Cost, ...]:
    """The caller's own start-up allocations (``use`` lines) as costs."""
    return tuple(Cost(key="extra", item=u.item, bytes=u.bytes, source=u.source) for u in lines)


def startup_costs(*, context: Cost, nccl: tuple[Cost, ...], custom_allreduce: Cost | None,
                  extra: tuple[LineItem, ...] = (), cublas_cost: Cost,
                  process_overhead: Cost | None = None) -> tuple[Cost, ...]:
    """Every charged term in creation order; a custom all-reduce of 0 bytes (not initialised) is left out."""
    car = (custom_allreduce,) if custom_allreduce is not None and custom_allreduce.bytes else ()
    tail = (process_overhead,) if process_overhead is not None else ()
    return (context, *nccl, *car, *extra_costs(extra), cublas_cost, *tail)
