"""``AllReduce``: a sum all-reduce bound to one process group, with every backend set up at init.

    ar = AllReduce.create(group, max_bytes=MiB(8))     # collective; allocates, rendezvous, compiles
    y = ar(x)                                           # out of place
    ar(x, out=x)                                        # in place
    ar.decide(x).reason                                 # why that backend
    ar.check_errors()                                   # after a sync / graph replay: raise kernel timeouts

Nothing is allocated or rendezvoused per call, so calls can be captured in CUDA graphs.  A custom
kernel whose peer does not answer within its spin limit reports it in an error word the host reads
without synchronising (``backends.error_flag``): eager calls raise it on the next call of that
backend; after a CUDA-graph replay, call ``check_errors()`` once the replay has finished.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping

import torch
import torch.distributed as dist

import tpkit.comm.registry as registry
from tpkit.comm.backends import BackendUnavailable, start_backend
from tpkit.comm.dispatch import Decision, choose_allreduce
from tpkit.comm.env import parse_env
from tpkit.comm.profile import BenchProfile, default_profile
from tpkit.errors import ConfigError, PlanInputError
from tpkit.hardware.topology import GroupTopology
from tpkit.units import Bytes, MiB

__all__ = ["AllReduce"]

log = logging.getLogger("tpkit.comm")
_DTYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}


class AllReduce:
    """Sum all-reduce over ``group``; the backend per call comes from ``comm.dispatch``."""

    def __init__(self, *, group, device, backends: dict, skipped: dict, topology: GroupTopology,
                 profile: BenchProfile | None, env: Mapping[str, str]) -> None:
        self.group = group
        self.device = device
        self.backends = backends
        self.skipped = skipped
        self.topology = topology
        self.profile = profile
        self.env = parse_env(env)
        self.world_size = dist.get_world_size(group)
        self._decisions: dict[tuple[int, str, str], Decision] = {}

    @property
    def compute_capability(self) -> tuple[int, int] | None:
        """The lowest compute capability of the group's GPUs (None on CPU)."""
        return self.topology.compute_capability

    @classmethod
    def create(cls, group=None, *, max_bytes: Bytes = MiB(8), backends: Iterable[str] | None = None,
               device: torch.device | str | None = None, profile: BenchProfile | None = None,
               env: Mapping[str, str] | None = None, topology: GroupTopology | None = None,
               **backend_options) -> "AllReduce":
        """Start every requested backend on ``group`` (collective: call on all ranks, outside graph capture).

        ``max_bytes`` is the largest message the custom kernels take (their buffer); ``topology`` defaults to
        ``tpkit.runtime.topology.group_topology`` (a collective probe).
        """
        if not isinstance(max_bytes, Bytes) or max_bytes.bytes <= 0:
            raise PlanInputError(f"max_bytes must be a size > 0 such as MiB(8) or parse_bytes('8MiB'), "
                                 f"got {max_bytes!r}")
        group = group or dist.group.WORLD
        env = dict(os.environ if env is None else env)
        cenv = parse_env(env)
        device = torch.device(device) if device is not None else _default_device(group)
        ws = dist.get_world_size(group)
        names = tuple(backends) if backends is not None else registry.names()
        for name in names:
            registry.row(name)
        if topology is None:
            from tpkit.runtime.topology import group_topology

            topology = group_topology(group, device)
        started, skipped = _start_all(names, group, max_bytes, device, ws, topology, cenv, backend_options)
        prof = profile if profile is not None else _safe_default_profile()
        ar = cls(group=group, device=device, backends=started, skipped=skipped, topology=topology,
                 profile=prof, env=env)
        if dist.get_rank(group) == 0:  # once, on rank 0; peer-memory backends matter, the others are expected
            for name, why in skipped.items():
                level = logging.WARNING if registry.row(name).peer_memory else logging.INFO
                log.log(level, "tpkit all-reduce: backend %s skipped: %s", name, why)
        return ar

    def set_profile(self, profile: BenchProfile | None) -> None:
        """Dispatch from ``profile`` from now on (e.g. one just measured); clears cached decisions."""
        self.profile = profile
        self._decisions.clear()

    @property
    def available(self) -> dict[str, Bytes | None]:
        """Started backends and their capacity (None = any size)."""
        return {name: b.capacity for name, b in self.backends.items()}

    def decide(self, tensor: torch.Tensor) -> Decision:
        """The backend (and reason) that would take ``tensor`` now (graph rows while capturing)."""
        capturing = tensor.is_cuda and torch.cuda.is_current_stream_capturing()
        mode = "graph" if capturing else "eager"
        key = (tensor.numel() * tensor.element_size(), _dtype_name(tensor.dtype), mode)
        found = self._decisions.get(key)
        return found if found is not None else self.decide_bytes(Bytes(key[0]), key[1], mode)

    def decide_bytes(self, nbytes: Bytes, dtype: str, mode: str = "graph") -> Decision:
        """Dispatch decision for a message of ``nbytes`` of ``dtype`` in ``mode``; cached."""
        key = (nbytes.bytes, dtype, mode)
        found = self._decisions.get(key)
        if found is None:
            found = choose_allreduce(nbytes=nbytes, dtype=dtype, world_size=self.world_size, topology=self.topology,
                                     profile=self.profile, env=self.env, available=self.available, mode=mode)
            self._decisions[key] = found
        return found

    def __call__(self, tensor: torch.Tensor, *, out: torch.Tensor | None = None,
                 backend: str | None = None) -> torch.Tensor:
        """Sum ``tensor`` over the group; ``out=tensor`` reduces in place; ``backend`` forces one."""
        if not tensor.is_contiguous():
            raise PlanInputError("all-reduce input must be contiguous; call .contiguous() first")
        if out is None:
            out = torch.empty_like(tensor)
        elif out.shape != tensor.shape or out.dtype != tensor.dtype or not out.is_contiguous():
            raise PlanInputError(f"out must be a contiguous {tensor.dtype} tensor of shape {tuple(tensor.shape)}, "
                                 f"got {out.dtype} {tuple(out.shape)}")
        name = backend or self.decide(tensor).backend
        if name == "none":
            if out.data_ptr() != tensor.data_ptr():
                out.copy_(tensor)
            return out
        self.backends[name].run(tensor.view(-1), out.view(-1))
        return out

    def check_errors(self) -> None:
        """Raise ``AllReduceTimeout`` if a finished call of a custom kernel timed out waiting for a peer.

        Reads one host word per Triton backend (no CUDA synchronisation, ~0.1 µs each).  Only calls that have
        finished on the GPU have reported: call it after ``torch.cuda.synchronize()``, an event wait, or a
        CUDA-graph replay you have waited for.
        """
        for b in self.backends.values():
            check = getattr(b, "check_errors", None)
            if check is not None:
                check()

    def ledger_lines(self) -> tuple:
        """Ledger lines (kind "use") for every buffer the started backends allocated on this GPU."""
        return tuple(line for b in self.backends.values() for line in b.ledger_lines())


def _start_all(names, group, cap: Bytes, device, ws, topology: GroupTopology, cenv, options):
    """Start backends; a backend that fails on any rank is dropped on every rank (same dispatch everywhere)."""
    started, skipped = {}, {}
    for name in names:
        peer = registry.row(name).peer_memory
        why = (registry.device_reason(name, device.type)
               or registry.startup_reason(name, world_size=ws, topology=topology, force_pcie=cenv.force_pcie))
        if why is not None:
            skipped[name] = why
            continue
        try:
            backend = start_backend(name, group, max_bytes=cap, device=device, **options)
            ok = 1
        except BackendUnavailable as exc:
            backend, ok, skipped[name] = None, 0, str(exc)
        if peer and ws > 1 and not _all_ranks_ok(ok, group, device):
            skipped.setdefault(name, "failed to start on another rank")
            continue
        if backend is not None:
            started[name] = backend
    return started, skipped


def _all_ranks_ok(ok: int, group, device) -> bool:
    flag = torch.tensor([ok], dtype=torch.int32, device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MIN, group=group)
    return bool(flag.item())


def _default_device(group) -> torch.device:
    if "nccl" in str(dist.get_backend(group)).lower():
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def _dtype_name(dtype: torch.dtype) -> str:
    try:
        return _DTYPE_NAMES[dtype]
    except KeyError:
        raise PlanInputError(f"all-reduce supports bf16, fp16, fp32 tensors, got {dtype}") from None


def _safe_default_profile() -> BenchProfile | None:
    try:
        return default_profile()
    except (OSError, ValueError, ConfigError):  # no shipped profile, or one that is not JSON / not a profile:
        # the dispatcher uses published crossovers (a bug in the reader still raises)
        return None
