"""tpkit barrier-free one-shot ("push"): each rank writes its input into every rank's buffer and the
readers wait for the data itself (sentinel-marked slots, Lamport style) — no flag round trip."""

from __future__ import annotations

import importlib

import torch
import torch.distributed as dist

from tpkit.comm.backends import BackendUnavailable
from tpkit.comm.backends._symm import SymmBuffer
from tpkit.comm.backends.triton_oneshot import TritonLaunch
from tpkit.comm.ledger import DEFAULT_MAX_BLOCKS

__all__ = ["PushOneShotBackend", "start"]

_MAX_WORLD = 8
_SPIN_LIMIT = 1 << 24
_INT_VIEW = {2: torch.int16, 4: torch.int32}


class PushOneShotBackend(TritonLaunch):
    """Launches ``push_one_shot_kernel`` with every rank's buffer viewed as int16/int32."""

    def __init__(self, name: str, buf: SymmBuffer, *, max_blocks: int, num_warps: int) -> None:
        from tpkit.comm.backends import _triton_kernels as k

        self.name, self.buf, self.kernel = name, buf, k.push_one_shot_kernel
        self.capacity = buf.capacity
        self.max_blocks, self.num_warps, self.chunk_bytes = max_blocks, num_warps, k.PUSH_CHUNK_BYTES
        self.sentinel = {2: k.SENTINEL16, 4: k.SENTINEL32}
        self.counters = torch.zeros(max_blocks, dtype=torch.int32, device=buf.raw.device)
        self.views = {size: buf.peer_views(dt) for size, dt in _INT_VIEW.items()}
        buf.raw.view(torch.int16).fill_(k.SENTINEL16)
        torch.cuda.synchronize(buf.raw.device)

    def _launch(self, x: torch.Tensor, out: torch.Tensor, *, warmup: bool = False):
        numel, elem = x.numel(), x.element_size()
        views = self.views[elem]
        ws, rank = self.buf.world_size, self.buf.rank
        block = self.chunk_bytes // elem
        args = (x, out, views[rank], *(views + [views[0]] * (_MAX_WORLD - ws)), self.counters, numel,
                self.capacity.bytes // elem, rank)
        meta = dict(WS=ws, BLOCK=block, MAXB=self.max_blocks, SENT=self.sentinel[elem], LIMIT=_SPIN_LIMIT,
                    num_warps=self.num_warps)
        grid = (min(-(-numel // block), self.max_blocks),)
        if warmup:
            return self.kernel.warmup(*args, grid=grid, **meta)
        return self.kernel[grid](*args, **meta)



def start(name: str, group, *, max_bytes: int, device, max_blocks: int = DEFAULT_MAX_BLOCKS, num_warps: int = 4,
          **_options) -> PushOneShotBackend:
    """Allocate (2 slots × world size × capacity), fill with the sentinel, compile, warm up — collective."""
    from tpkit.comm.backends.triton_oneshot import warm_up

    ws = dist.get_world_size(group)
    if ws > _MAX_WORLD:
        raise BackendUnavailable(f"world size {ws} > {_MAX_WORLD}")
    try:
        importlib.import_module("tpkit.comm.backends._triton_kernels")
    except Exception as exc:  # noqa: BLE001
        raise BackendUnavailable(f"triton is unavailable: {type(exc).__name__}: {exc}") from None
    buf = SymmBuffer(name, group, max_bytes=max_bytes, device=device, world_size=ws)
    backend = PushOneShotBackend(name, buf, max_blocks=max_blocks, num_warps=num_warps)
    dist.barrier(group=group)
    warm_up(backend, group, device)
    return backend
