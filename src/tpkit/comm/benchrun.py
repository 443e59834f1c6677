"""``tpkit bench allreduce`` worker: one process per GPU (or CPU rank with gloo).

Each backend is first checked on fresh random data against an fp32 reference and across ranks
(``#wrong``), then timed: eager (back-to-back calls between CUDA events) and CUDA-graph mode
(``graph_calls`` calls captured in one graph; µs per call = replay time / calls); median of repeats.
After each backend's check and timing, ``AllReduce.check_errors`` raises a kernel that timed out.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import field

import torch
import torch.distributed as dist

from tpkit.comm.allreduce import AllReduce
from tpkit.comm.dispatch import skip_reason
from tpkit.comm.env import CommEnv
from tpkit.dtypes import lookup_dtype
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["BenchConfig", "Row", "worker", "check_once", "tolerance", "bench_skip_reason", "row_to_dict",
           "env_rank", "multicast_off", "init_torchrun_nccl"]

_TORCH_DTYPES = {short: getattr(torch, lookup_dtype(short).torch_name) for short in ("bf16", "fp16", "fp32")}
"""the bench's dtypes (``tpkit.dtypes`` short spellings) → torch dtypes"""
_UNIT_ROUNDOFF = {"bf16": 2.0**-8, "fp16": 2.0**-11, "fp32": 2.0**-24}


@dataclass(frozen=True, kw_only=True, slots=True)
class BenchConfig:
    """What to run."""

    sizes: tuple[Bytes, ...]
    """message sizes"""
    backends: tuple[str, ...] | None = None
    """backends to start (None = all)"""
    modes: tuple[str, ...] = ("eager", "graph")
    """``eager`` and/or ``graph``"""
    dtype: str = "bf16"
    """``bf16``, ``fp16`` or ``fp32``"""
    max_bytes: Bytes
    """symmetric buffer capacity (the custom kernels' largest message)"""
    iters: int = 20
    """eager calls per timed repeat"""
    graph_calls: int = 50
    """calls captured per CUDA graph (fewer for large sizes)"""
    repeats: int = 7
    """timed repeats; the median is reported"""
    backend_options: dict = field(default_factory=dict)
    """extra keyword options for the backends (e.g. ``max_blocks``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Row:
    """One measured (size, backend, mode)."""

    nbytes: Bytes
    """message size"""
    backend: str
    """backend name, or ``auto`` (the dispatcher's choice)"""
    mode: str
    """``eager`` or ``graph``"""
    time_us: float | None
    """median µs per call (None = not timed)"""
    wrong: int
    """elements out of tolerance or differing between ranks (max over ranks)"""
    note: str = ""
    """why it was not timed, when it was not"""


def row_to_dict(row: Row) -> dict:
    """The JSON form of a row (``FILE.rows.json``): sizes as integer bytes."""
    return {"nbytes": row.nbytes.bytes, "backend": row.backend, "mode": row.mode, "time_us": row.time_us,
            "wrong": row.wrong, "note": row.note}


def tolerance(inputs_abs_sum: torch.Tensor, world: int, dtype: str) -> torch.Tensor:
    """Per-element bound: 2·(world+1)·u·Σ|x_r| (u = unit roundoff), covers bf16/fp16 sums in any order."""
    return 2.0 * (world + 1) * _UNIT_ROUNDOFF[dtype] * inputs_abs_sum + 1e-30


def check_once(ar: AllReduce, name: str | None, x: torch.Tensor, *, out=None, graph: bool = False,
               inplace: bool = False) -> int:
    """Run one all-reduce of ``x`` (``name`` forced, None = auto) and count wrong elements (max over ranks).

    The output is poisoned with NaN first (so unwritten elements count as wrong); ``inplace`` reduces
    into ``x`` itself; ``graph`` captures the call in a CUDA graph and checks one replay.
    """
    group, world = ar.group, ar.world_size
    dtype = {v: k for k, v in _TORCH_DTYPES.items()}[x.dtype]
    gathered = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(gathered, x.contiguous(), group=group)
    stacked = torch.stack([g.float() for g in gathered])
    ref, abs_sum = stacked.sum(0), stacked.abs().sum(0)
    target = x if inplace else (out if out is not None else torch.empty_like(x))
    if not inplace:
        target.fill_(float("nan"))
    if graph and x.is_cuda:
        scratch = _like_aligned(x)  # warm-up outside capture (compiles this alignment's kernel variant)
        scratch.copy_(x)
        ar(scratch, out=scratch if inplace else _like_aligned(target), backend=name)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            ar(x, out=target, backend=name)
        if not inplace:
            target.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        del g
    else:
        ar(x, out=target, backend=name)
    bad = (~((target.float() - ref).abs() <= tolerance(abs_sum, world, dtype))).sum()
    outs = [torch.empty_like(target) for _ in range(world)]
    dist.all_gather(outs, target, group=group)
    iv = _int_view(target)
    differ = sum(int((o.view(iv) != target.view(iv)).sum()) for o in outs)
    total = torch.tensor([int(bad) + int(differ)], dtype=torch.int64, device=x.device)
    dist.all_reduce(total, op=dist.ReduceOp.MAX, group=group)
    return int(total.item())


def _like_aligned(x: torch.Tensor) -> torch.Tensor:
    """An empty tensor like ``x`` whose address has the same remainder modulo 16 bytes."""
    shift = (x.data_ptr() % 16) // x.element_size()
    return torch.empty(x.numel() + 16, dtype=x.dtype, device=x.device)[shift: shift + x.numel()]


def _int_view(t: torch.Tensor) -> torch.dtype:
    return {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]


def _random(nbytes: Bytes, dtype: str, device, seed: int) -> torch.Tensor:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    numel = nbytes.bytes // torch.tensor([], dtype=_TORCH_DTYPES[dtype]).element_size()
    return torch.randn(numel, generator=gen).to(dtype=_TORCH_DTYPES[dtype], device=device)


def _time_eager(fn, iters: int, repeats: int, cuda: bool) -> float:
    for _ in range(3):
        fn()
    samples = []
    for _ in range(repeats):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1e3 / iters)
        else:
            t0 = time.perf_counter()
            for _ in range(iters):
                fn()
            samples.append((time.perf_counter() - t0) * 1e6 / iters)
    return statistics.median(samples)


def _time_graph(fn, calls: int, repeats: int) -> float:
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    g.replay()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / calls)
    del g
    return statistics.median(samples)


def _agree(value: float, group, device) -> float:
    """The largest value over ranks (a collective finishes when its slowest rank does)."""
    t = torch.tensor([value], dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
    return float(t.item())


def bench_skip_reason(ar, name: str, nbytes: Bytes, dtype: str) -> str | None:
    """Why the bench cannot force ``name`` at ``nbytes`` (None = it runs).

    The bench measures every size a backend can take, so TPKIT_ALLREDUCE and TPKIT_ALLREDUCE_MAX_BYTES
    (dispatch preferences) are ignored; TPKIT_ALLREDUCE_FORCE_PCIE is kept, since it is what lets the
    custom kernels run at all on a PCIe machine (they were started under it).
    """
    if name == "auto":
        return None
    env = CommEnv(force_pcie=ar.env.force_pcie)
    return skip_reason(name, nbytes=nbytes, dtype=dtype, world_size=ar.world_size, topology=ar.topology, env=env,
                       capacity=ar.available[name])


def measure(ar: AllReduce, name: str, nbytes: Bytes, cfg: BenchConfig, *, seed: int) -> list[Row]:
    """Correctness check, then timing in each mode, for one backend and size."""
    why = bench_skip_reason(ar, name, nbytes, cfg.dtype)
    if why is not None:
        return [Row(nbytes=nbytes, backend=name, mode=m, time_us=None, wrong=0, note=why) for m in cfg.modes]
    forced = None if name == "auto" else name
    x = _random(nbytes, cfg.dtype, ar.device, seed * 1000 + dist.get_rank(ar.group))
    out = torch.empty_like(x)
    wrong = check_once(ar, forced, x, out=out)
    ar.check_errors()
    rows = []
    cuda = ar.device.type == "cuda"
    for mode in cfg.modes:
        if wrong:
            rows.append(Row(nbytes=nbytes, backend=name, mode=mode, time_us=None, wrong=wrong, note="wrong: not timed"))
            continue
        if mode == "graph" and not cuda:
            continue
        fn = lambda: ar(x, out=out, backend=forced)  # noqa: E731
        if mode == "eager":
            t = _time_eager(fn, cfg.iters, cfg.repeats, cuda)
        else:
            calls = max(5, min(cfg.graph_calls, int(20000 / max(1.0, nbytes.bytes / 2e5))))
            t = _time_graph(fn, calls, cfg.repeats)
        ar.check_errors()
        rows.append(Row(nbytes=nbytes, backend=name, mode=mode, time_us=_agree(t, ar.group, ar.device), wrong=wrong))
    return rows


def worker(cfg: BenchConfig, ar: AllReduce, names: list[str]) -> list[Row]:
    """All (backend, size) rows for ``names`` on every rank (rank 0 reports)."""
    rows = []
    for i, nbytes in enumerate(cfg.sizes):
        for j, name in enumerate(names):
            rows.extend(measure(ar, name, nbytes, cfg, seed=i * 100 + j + 1))
    return rows


def env_rank() -> tuple[int, int] | None:
    """(rank, world size) when launched by torchrun, else None."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    return None


def multicast_off() -> None:
    """NVLink multicast off where the environment does not say otherwise (``NCCL_NVLS_ENABLE=0``,
    ``TORCH_SYMM_MEM_DISABLE_MULTICAST=1``, ``NVSHMEM_DISABLE_NVLS=1``): set before the process group and symmetric
    memory start."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
    os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")


def init_torchrun_nccl() -> torch.device:
    """The NCCL process group of one torchrun rank (``multicast_off`` first) on GPU ``LOCAL_RANK`` (0 when unset),
    made the current device; returns that device (bench/allreduce_correctness.py, scripts/gpu_skew_check.py)."""
    multicast_off()
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=device)
    return device
