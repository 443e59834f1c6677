"""``one_shot``: tpkit's barrier-free push one-shot.  Each rank writes its input into every rank's buffer
and the readers wait for the data itself (sentinel-marked slots, Lamport style): no flag round trip."""

from __future__ import annotations

import torch
import torch.distributed as dist

from tpkit.comm.backends._symm import SymmBuffer
from tpkit.comm.backends.error_flag import DEFAULT_SPIN_LIMIT
from tpkit.comm.backends.triton_base import TritonLaunch, check_world, warm_up
from tpkit.comm.ledger import DEFAULT_MAX_BLOCKS
from tpkit.units import Bytes

__all__ = ["PushOneShotBackend", "start"]

_INT_VIEW = {2: torch.int16, 4: torch.int32}


class PushOneShotBackend(TritonLaunch):
    """Launches ``push_one_shot_kernel`` with every rank's buffer viewed as int16/int32.

    ``buf`` needs ``raw`` (the local tensor), ``capacity``, ``world_size``, ``rank``, ``peer_views(dtype)``
    and ``ledger_lines(**kw)``: a ``SymmBuffer``, or local stand-ins in the one-GPU timeout check.
    """

    def __init__(self, name: str, buf, *, max_blocks: int, num_warps: int,
                 spin_limit: int = DEFAULT_SPIN_LIMIT) -> None:
        from tpkit.comm.backends import _triton_kernels as k

        self.name, self.buf, self.kernel = name, buf, k.push_one_shot_kernel
        self.capacity = buf.capacity
        self.max_blocks, self.num_warps, self.chunk_bytes = max_blocks, num_warps, k.PUSH_CHUNK_BYTES
        self.sentinel = {2: k.SENTINEL16, 4: k.SENTINEL32}
        self.counters = torch.zeros(max_blocks, dtype=torch.int32, device=buf.raw.device)
        self._init_errors(buf, spin_limit)
        self.views = {size: buf.peer_views(dt) for size, dt in _INT_VIEW.items()}
        buf.raw.view(torch.int16).fill_(k.SENTINEL16)
        torch.cuda.synchronize(buf.raw.device)

    def grid(self, numel: int, elem: int) -> int:
        """Blocks launched for ``numel`` elements of ``elem`` bytes."""
        return min(-(-numel // (self.chunk_bytes // elem)), self.max_blocks)

    def _launch(self, x: torch.Tensor, out: torch.Tensor, *, warmup: bool = False):
        numel, elem = x.numel(), x.element_size()
        views, rank = self.views[elem], self.buf.rank
        args = (x, out, views[rank], *self._peers(views), self.counters, numel, self.capacity.bytes // elem, rank,
                *self._error_args())
        return self._dispatch(args, numel, elem, warmup=warmup, SENT=self.sentinel[elem])


def start(name: str, group, *, max_bytes: Bytes, device, max_blocks: int = DEFAULT_MAX_BLOCKS, num_warps: int = 4,
          spin_limit: int = DEFAULT_SPIN_LIMIT, **_options) -> PushOneShotBackend:
    """Allocate (2 slots × world size × capacity), fill with the sentinel, compile, warm up — collective."""
    ws = check_world(group)
    buf = SymmBuffer(name, group, max_bytes=max_bytes, device=device, world_size=ws)
    backend = PushOneShotBackend(name, buf, max_blocks=max_blocks, num_warps=num_warps, spin_limit=spin_limit)
    dist.barrier(group=group)
    warm_up(backend, group, device)
    return backend
