"""tpkit one-shot all-reduce: Triton kernel over a double-buffered symmetric allocation."""

from __future__ import annotations

import torch
import torch.distributed as dist

from tpkit.comm.backends import BackendUnavailable
from tpkit.comm.backends._symm import SymmBuffer
from tpkit.comm.ledger import DEFAULT_MAX_BLOCKS

__all__ = ["TritonLaunch", "TritonSymmBackend", "start"]

_MAX_WORLD = 8


class TritonLaunch:
    """What every tpkit Triton backend shares once ``_launch(x, out, *, warmup)`` exists."""

    def run(self, x: torch.Tensor, out: torch.Tensor) -> None:
        """Sum ``x`` over the group into ``out`` (which may be ``x``); graph-capturable."""
        if x.numel():
            self._launch(x, out)

    def compile_for(self, x: torch.Tensor, out: torch.Tensor) -> None:
        """Compile the kernel variant for these tensors without launching it (no barrier wait)."""
        self._launch(x, out, warmup=True)

    def ledger_lines(self) -> tuple:
        return self.buf.ledger_lines(max_blocks=self.max_blocks)


class TritonSymmBackend(TritonLaunch):
    """Launches ``kernel`` (one-shot or two-shot) with every rank's buffer and signal pad."""

    def __init__(self, name: str, buf: SymmBuffer, kernel, *, regions: int, max_blocks: int, num_warps: int) -> None:
        from tpkit.comm.backends._triton_kernels import CHUNK_BYTES

        self.name, self.buf, self.kernel = name, buf, kernel
        self.capacity = buf.capacity
        self.regions = regions
        self.max_blocks = max_blocks
        self.num_warps = num_warps
        self.chunk_bytes = CHUNK_BYTES
        device = buf.raw.device
        self.counters = torch.zeros(max_blocks, dtype=torch.int32, device=device)
        ws = buf.world_size
        pads = list(buf.handle.signal_pad_ptrs)
        if buf.handle.signal_pad_size < max_blocks * ws * 4:
            raise BackendUnavailable(f"signal pad of {buf.handle.signal_pad_size} B < {max_blocks}×{ws}×4 B")
        self.pads8 = pads + [pads[0]] * (_MAX_WORLD - ws)
        self.pad_self = pads[buf.rank]
        self.views = {dt: buf.peer_views(dt) for dt in (torch.bfloat16, torch.float16, torch.float32)}

    def grid(self, numel: int, elem: int) -> int:
        """Blocks launched for ``numel`` elements."""
        block = self.chunk_bytes // elem
        units = -(-numel // block)
        if self.regions == 2:
            units = -(-units // self.buf.world_size)
        return min(units, self.max_blocks)

    def _launch(self, x: torch.Tensor, out: torch.Tensor, *, warmup: bool = False):
        numel, elem = x.numel(), x.element_size()
        views = self.views[x.dtype]
        ws, rank = self.buf.world_size, self.buf.rank
        peers8 = views + [views[0]] * (_MAX_WORLD - ws)
        args = (x, out, views[rank], *peers8, *self.pads8, self.pad_self, self.counters,
                numel, self.capacity.bytes // elem, rank)
        meta = dict(WS=ws, BLOCK=self.chunk_bytes // elem, MAXB=self.max_blocks, num_warps=self.num_warps)
        grid = (self.grid(numel, elem),)
        if warmup:
            return self.kernel.warmup(*args, grid=grid, **meta)
        return self.kernel[grid](*args, **meta)



def start_triton(name: str, group, *, max_bytes: int, device, kernel_name: str, regions: int,
                 max_blocks: int = DEFAULT_MAX_BLOCKS, num_warps: int = 16, **_options) -> TritonSymmBackend:
    """Allocate, rendezvous and warm up (compile) the kernel for bf16/fp16/fp32 — collective."""
    ws = dist.get_world_size(group)
    if ws > _MAX_WORLD:
        raise BackendUnavailable(f"world size {ws} > {_MAX_WORLD}")
    try:
        from tpkit.comm.backends import _triton_kernels
    except Exception as exc:  # noqa: BLE001
        raise BackendUnavailable(f"triton is unavailable: {type(exc).__name__}: {exc}") from None
    buf = SymmBuffer(name, group, max_bytes=max_bytes, device=device, world_size=ws)
    backend = TritonSymmBackend(name, buf, getattr(_triton_kernels, kernel_name), regions=regions,
                                max_blocks=max_blocks, num_warps=num_warps)
    warm_up(backend, group, device)
    return backend


def warm_up(backend, group, device) -> None:
    """Compile for bf16/fp16/fp32 on every rank, then run once together (no rank spins while another compiles)."""
    try:
        samples = [torch.ones(4096, dtype=dt, device=device) for dt in (torch.bfloat16, torch.float16, torch.float32)]
        for x in samples:
            backend.compile_for(x, torch.empty_like(x))
        dist.barrier(group=group)
        for x in samples:
            backend.run(x, torch.empty_like(x))
        torch.cuda.synchronize(device)
    except Exception as exc:  # noqa: BLE001 - a kernel that does not compile or run is skipped
        raise BackendUnavailable(f"kernel warm-up failed: {type(exc).__name__}: {str(exc)[:300]}") from None


def start(name: str, group, *, max_bytes: int, device, **options) -> TritonSymmBackend:
    """One-shot backend (collective)."""
    return start_triton(name, group, max_bytes=max_bytes, device=device, kernel_name="one_shot_kernel",
                        regions=1, **options)
