"""What tpkit's Triton backends share: launch bookkeeping, the error word, start-up and warm-up.

``TritonSymmBackend`` launches the barrier-synchronised kernels (``one_shot_pull``, ``two_shot``);
``one_shot.PushOneShotBackend`` the barrier-free push kernel.  Every kernel wait is bounded by
``spin_limit`` polls and reports a timeout through the backend's ``ErrorFlag`` (``backends.error_flag``).
"""

from __future__ import annotations

import torch
import torch.distributed as dist

from tpkit.comm.backends import BackendUnavailable
from tpkit.comm.backends._symm import SymmBuffer
from tpkit.comm.backends.error_flag import DEFAULT_SPIN_LIMIT, ErrorFlag, encode
from tpkit.comm.ledger import DEFAULT_MAX_BLOCKS
from tpkit.comm.registry import MAX_PEER_WORLD_SIZE
from tpkit.units import Bytes

__all__ = ["TritonLaunch", "TritonSymmBackend", "start_triton", "warm_up", "check_spin_limit"]


def check_spin_limit(spin_limit: int) -> int:
    """``spin_limit`` as the kernels take it (a 32-bit count ≥ 1)."""
    if isinstance(spin_limit, bool) or not isinstance(spin_limit, int) or not 1 <= spin_limit < 2**31:
        raise BackendUnavailable(f"spin_limit must be a whole number of polls in [1, 2^31), got {spin_limit!r}")
    return spin_limit


class TritonLaunch:
    """What every tpkit Triton backend shares once ``_launch(x, out, *, warmup)`` exists."""

    def _init_errors(self, buf, spin_limit: int) -> None:
        self.spin_limit = check_spin_limit(spin_limit)
        self.errors = ErrorFlag.allocate(buf.raw.device, rank=buf.rank, world_size=buf.world_size,
                                         spin_limit=spin_limit)
        self.code_base = encode(self.name, 0, 0)

    def run(self, x: torch.Tensor, out: torch.Tensor) -> None:
        """Sum ``x`` over the group into ``out`` (which may be ``x``); graph-capturable.

        Raises ``AllReduceTimeout`` when an earlier call of this backend timed out (read without a sync).
        """
        self.errors.check(synchronize=False)
        if x.numel():
            self._launch(x, out)

    def check_errors(self) -> None:
        """Raise ``AllReduceTimeout`` if a finished call of this backend timed out."""
        self.errors.check()

    def compile_for(self, x: torch.Tensor, out: torch.Tensor):
        """Compile the kernel variant for these tensors without launching it (no barrier wait); the compiled
        kernel is returned."""
        return self._launch(x, out, warmup=True)

    def ledger_lines(self) -> tuple:
        return self.buf.ledger_lines(max_blocks=self.max_blocks)

    def _error_args(self) -> tuple[int, int, int, int]:
        """The kernels' last arguments: error word, claim word, this backend's code base, spin limit."""
        return self.errors.address, self.errors.claim_address, self.code_base, self.spin_limit

    def _peers(self, views: list) -> list:
        """Every rank's view, then rank 0's again up to the kernels' ``MAX_PEER_WORLD_SIZE`` peer arguments."""
        return views + [views[0]] * (MAX_PEER_WORLD_SIZE - self.buf.world_size)

    def _dispatch(self, args: tuple, numel: int, elem: int, *, warmup: bool, **extra_meta):
        """Launch ``self.kernel`` on ``grid(numel, elem)`` blocks of ``chunk_bytes`` (or, with ``warmup``, only
        compile it and return the compiled kernel); the meta-parameters every kernel takes plus ``extra_meta``."""
        meta = dict(WS=self.buf.world_size, BLOCK=self.chunk_bytes // elem, MAXB=self.max_blocks, **extra_meta,
                    num_warps=self.num_warps)
        grid = (self.grid(numel, elem),)
        if warmup:
            return self.kernel.warmup(*args, grid=grid, **meta)
        return self.kernel[grid](*args, **meta)


class TritonSymmBackend(TritonLaunch):
    """Launches ``kernel`` (one-shot or two-shot) with every rank's buffer and signal pad."""

    def __init__(self, name: str, buf: SymmBuffer, kernel, *, regions: int, max_blocks: int, num_warps: int,
                 spin_limit: int = DEFAULT_SPIN_LIMIT) -> None:
        from tpkit.comm.backends._triton_kernels import CHUNK_BYTES

        self.name, self.buf, self.kernel = name, buf, kernel
        self.capacity = buf.capacity
        self.regions = regions
        self.max_blocks = max_blocks
        self.num_warps = num_warps
        self.chunk_bytes = CHUNK_BYTES
        device = buf.raw.device
        self.counters = torch.zeros(max_blocks, dtype=torch.int32, device=device)
        self._init_errors(buf, spin_limit)
        ws = buf.world_size
        pads = list(buf.handle.signal_pad_ptrs)
        if buf.handle.signal_pad_size < max_blocks * ws * 4:
            raise BackendUnavailable(f"signal pad of {buf.handle.signal_pad_size} B < {max_blocks}×{ws}×4 B")
        self.pads8 = pads + [pads[0]] * (MAX_PEER_WORLD_SIZE - ws)
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
        views, rank = self.views[x.dtype], self.buf.rank
        args = (x, out, views[rank], *self._peers(views), *self.pads8, self.pad_self, self.counters,
                numel, self.capacity.bytes // elem, rank, *self._error_args())
        return self._dispatch(args, numel, elem, warmup=warmup)


def check_world(group) -> int:
    """The group's world size, if the kernels can serve it (``BackendUnavailable`` otherwise)."""
    ws = dist.get_world_size(group)
    if ws > MAX_PEER_WORLD_SIZE:
        raise BackendUnavailable(f"world size {ws} > {MAX_PEER_WORLD_SIZE}")
    try:
        from tpkit.comm.backends import _triton_kernels  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        raise BackendUnavailable(f"triton is unavailable: {type(exc).__name__}: {exc}") from None
    return ws


def start_triton(name: str, group, *, max_bytes: Bytes, device, kernel_name: str, regions: int,
                 max_blocks: int = DEFAULT_MAX_BLOCKS, num_warps: int = 16, spin_limit: int = DEFAULT_SPIN_LIMIT,
                 **_options) -> TritonSymmBackend:
    """Allocate, rendezvous and warm up (compile) the kernel for bf16/fp16/fp32 — collective."""
    ws = check_world(group)
    from tpkit.comm.backends import _triton_kernels

    buf = SymmBuffer(name, group, max_bytes=max_bytes, device=device, world_size=ws)
    backend = TritonSymmBackend(name, buf, getattr(_triton_kernels, kernel_name), regions=regions,
                                max_blocks=max_blocks, num_warps=num_warps, spin_limit=spin_limit)
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
        backend.check_errors()
    except Exception as exc:  # noqa: BLE001 - a kernel that does not compile or run is skipped
        raise BackendUnavailable(f"kernel warm-up failed: {type(exc).__name__}: {str(exc)[:300]}") from None
