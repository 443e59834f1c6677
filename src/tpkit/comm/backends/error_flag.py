"""Device-side timeouts of tpkit's Triton kernels, raised on the host.

Every wait in the kernels (the push one-shot waiting for a peer's data, the block barrier signalling or
waiting for a peer) is bounded by a spin limit.  When a wait runs out, the kernel reports one 32-bit code
and carries on (the push one-shot also writes NaN for the missing data, never a partial sum).  The first
report of a backend wins a claim word in device memory and stores its code into the *error word*; later
reports (consequences of the first) are dropped (``_triton_sync`` says why no atomic touches host memory).
The error word lives in pinned host memory that the GPU writes directly (zero-copy), so the host reads it
without a CUDA synchronisation (about 0.1 µs):

- every eager ``AllReduce`` call reads it before launching, so a timeout is raised by the next call at the
  latest (a call still running on the GPU has not written it yet);
- ``AllReduce.check_errors()`` reads it; call it after ``torch.cuda.synchronize()`` or after a CUDA-graph
  replay has finished (graph replays run no host code, so only this check sees their timeouts).

Code layout: ``backend index << 16 | kind << 8 | peer rank`` (0 = no error); the peer is never the reporting
rank itself.  After a timeout the backend's buffers are out of step with its peers: it refuses every later
call; create a new ``AllReduce`` (or force NCCL with ``TPKIT_ALLREDUCE=nccl``).
"""

from __future__ import annotations

import tpkit.comm.registry as registry
from tpkit.errors import RuntimeSetupError

__all__ = ["AllReduceTimeout", "ErrorFlag", "encode", "decode", "timeout_message", "KIND_DATA", "KIND_SIGNAL",
           "KIND_WAIT", "DEFAULT_SPIN_LIMIT"]

DEFAULT_SPIN_LIMIT = 1 << 25
"""polls a kernel spends on one wait before it reports a timeout (count; see docs/benchmarks.md for the time)"""

KIND_DATA = 1
"""push one-shot: a peer's data never arrived"""
KIND_SIGNAL = 2
"""barrier: the peer never consumed this rank's previous signal"""
KIND_WAIT = 3
"""barrier: the peer never signalled"""

_WHAT = {
    KIND_DATA: "timed out waiting for the data of peer rank {peer}; the output is NaN where it was missing",
    KIND_SIGNAL: "timed out signalling peer rank {peer} (it never took this rank's previous barrier signal)",
    KIND_WAIT: "timed out waiting for peer rank {peer} at the barrier",
}


class AllReduceTimeout(RuntimeSetupError):
    """A peer did not answer within a kernel's spin limit; that call's result is not a sum."""


def encode(backend: str, kind: int, peer: int) -> int:
    """The code a kernel writes (also the base the host passes: ``encode(name, 0, 0)``)."""
    return registry.names().index(backend) << 16 | kind << 8 | peer


def decode(code: int) -> tuple[str, int, int]:
    """(backend name, kind, peer rank) of a non-zero code."""
    index, kind, peer = code >> 16, (code >> 8) & 0xFF, code & 0xFF
    names = registry.names()
    return (names[index] if 0 <= index < len(names) else f"backend #{index}"), kind, peer


def timeout_message(code: int, *, rank: int, spin_limit: int, world_size: int | None = None) -> str:
    """What went wrong, for whom, and what to do.

    A code that names no other rank of the group (the rank itself, or one ≥ ``world_size``) or an unknown
    kind is reported as an invalid code: never as a wait for a rank that cannot be the late one.
    """
    backend, kind, peer = decode(code)
    stale = ("This AllReduce's custom kernels are now out of step: create a new AllReduce, or set "
             "TPKIT_ALLREDUCE=nccl to avoid them")
    if kind not in _WHAT or peer == rank or (world_size is not None and peer >= world_size):
        group = f"this {world_size}-rank group" if world_size is not None else "its group"
        return (f"all-reduce backend {backend} on rank {rank} reported a device timeout with an invalid code "
                f"{code:#x} (kind {kind}, peer {peer}: not another rank of {group}); that call did not return a "
                f"sum. {stale}")
    return (f"all-reduce backend {backend} on rank {rank} {_WHAT[kind].format(peer=peer)}, after {spin_limit:,} "
            f"polls; that call did not return a sum. Peer rank {peer} is stuck, crashed or far behind (a cold "
            f"Triton cache compiling, a debugger). {stale}")


class ErrorFlag:
    """One int32 word that kernels write on a timeout and the host reads, and the claim word beside it.

    ``tensor`` is a 1-element int32 tensor: pinned host memory (``mapped``: read without synchronising)
    or, where pinned memory cannot be mapped, device memory (read with a synchronising copy).  ``claim`` is a
    1-element int32 tensor in device memory, 0 until a kernel's first report takes it (``_triton_sync.report``).
    ``world_size`` (ranks in the group) lets the message refuse a code that names no other rank.
    """

    def __init__(self, tensor, *, rank: int, spin_limit: int, world_size: int | None = None, claim=None) -> None:
        self.tensor = tensor
        self.claim = claim
        self.rank = rank
        self.world_size = world_size
        self.spin_limit = spin_limit
        self.mapped = tensor.device.type == "cpu"
        self._host = tensor.numpy() if self.mapped else None

    @classmethod
    def allocate(cls, device, *, rank: int, world_size: int, spin_limit: int) -> "ErrorFlag":
        """A zeroed word the GPU ``device`` can write (pinned host memory when available) and its claim word."""
        import torch

        try:
            word = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        except RuntimeError:  # no pinned memory (some containers): device memory, read at synchronise points
            word = torch.zeros(1, dtype=torch.int32, device=device)
        claim = torch.zeros(1, dtype=torch.int32, device=device)
        return cls(word, rank=rank, spin_limit=spin_limit, world_size=world_size, claim=claim)

    @property
    def address(self) -> int:
        """The address kernels write to (host-mapped pinned memory has one address on host and GPU)."""
        return self.tensor.data_ptr()

    @property
    def claim_address(self) -> int:
        """The device address of the claim word (kernels CAS it 0→1 before writing ``address``)."""
        return self.claim.data_ptr()

    def code(self, *, synchronize: bool = True) -> int:
        """The word now (0 = no timeout); without ``synchronize`` a device-memory word reads as 0."""
        if self._host is not None:
            return int(self._host[0])
        return int(self.tensor.item()) if synchronize else 0

    def check(self, *, synchronize: bool = True) -> None:
        """Raise ``AllReduceTimeout`` when a kernel reported a timeout."""
        code = self.code(synchronize=synchronize)
        if code:
            raise AllReduceTimeout(timeout_message(code, rank=self.rank, spin_limit=self.spin_limit,
                                                   world_size=self.world_size))
