"""``AllReduce``: a sum all-reduce bound to one process group, with every backend set up at init.

    ar = AllReduce.create(group, max_bytes=MiB(8))     # collective; allocates, rendezvous, compiles
    y = ar(x)                                           # out of place
    ar(x, out=x)                                        # in place
    ar.decide(x).reason                                 # why that backend

Nothing is allocated or rendezvoused per call, so calls can be captured in CUDA graphs.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping

import torch
import torch.distributed as dist

from tpkit.comm.backends import BackendUnavailable, start_backend
from tpkit.comm.dispatch import BACKENDS, Decision, choose_allreduce
from tpkit.comm.env import parse_env
from tpkit.comm.profile import BenchProfile, default_profile
from tpkit.comm.topology import CommTopology
from tpkit.errors import PlanInputError
from tpkit.units import Bytes, MiB, parse_bytes

__all__ = ["AllReduce", "probe_topology"]

log = logging.getLogger("tpkit.comm")
_DTYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}


def probe_topology(world_size: int, device: torch.device) -> CommTopology:
    """Topology facts from torch (P2P to every other visible GPU of this node) and NVML when present."""
    if device.type != "cuda":
        return CommTopology(full_nvlink=False, p2p=False)
    count = torch.cuda.device_count()
    others = [i for i in range(count) if i != device.index][: max(world_size - 1, 0)]
    p2p = all(torch.cuda.can_device_access_peer(device.index, j) for j in others)
    return CommTopology(full_nvlink=_nvml_full_nvlink(list(range(min(count, world_size)))), p2p=p2p)


def _nvml_full_nvlink(indices: list[int]) -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
        handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in indices]
        ok = pynvml.NVML_P2P_STATUS_OK
        idx = pynvml.NVML_P2P_CAPS_INDEX_NVLINK
        return all(pynvml.nvmlDeviceGetP2PStatus(a, b, idx) == ok
                   for i, a in enumerate(handles) for b in handles[i + 1:])
    except Exception:  # noqa: BLE001 - no NVML means "unknown", the safe answer is False
        return False


class AllReduce:
    """Sum all-reduce over ``group``; the backend per call comes from ``comm.dispatch``."""

    def __init__(self, *, group, device, backends: dict, skipped: dict, topology: CommTopology,
                 profile: BenchProfile | None, env: Mapping[str, str]) -> None:
        self.group = group
        self.device = device
        self.backends = backends
        self.skipped = skipped
        self.topology = topology
        self.profile = profile
        self.env = parse_env(env)
        self.world_size = dist.get_world_size(group)
        self.compute_capability = (torch.cuda.get_device_capability(device) if device.type == "cuda" else None)
        self._decisions: dict[tuple[int, str, str], Decision] = {}

    @classmethod
    def create(cls, group=None, *, max_bytes: Bytes | int | str = MiB(8), backends: Iterable[str] | None = None,
               device: torch.device | str | None = None, profile: BenchProfile | None = None,
               env: Mapping[str, str] | None = None, topology: CommTopology | None = None,
               **backend_options) -> "AllReduce":
        """Start every requested backend on ``group`` (collective: call on all ranks, outside graph capture)."""
        group = group or dist.group.WORLD
        env = dict(os.environ if env is None else env)
        cenv = parse_env(env)
        cap = parse_bytes(max_bytes, what="max_bytes") if isinstance(max_bytes, str) else Bytes(int(max_bytes))
        device = torch.device(device) if device is not None else _default_device(group)
        ws = dist.get_world_size(group)
        topology = topology or probe_topology(ws, device)
        names = tuple(backends) if backends is not None else BACKENDS
        unknown = [n for n in names if n not in BACKENDS]
        if unknown:
            raise PlanInputError(f"unknown all-reduce backends {unknown}; choose from {', '.join(BACKENDS)}")
        started, skipped = _start_all(names, group, cap, device, ws, topology, cenv, backend_options)
        prof = profile if profile is not None else _safe_default_profile()
        ar = cls(group=group, device=device, backends=started, skipped=skipped, topology=topology,
                 profile=prof, env=env)
        if dist.get_rank(group) == 0:  # once, on rank 0; peer-memory backends matter, nccl/gloo are expected
            for name, why in skipped.items():
                level = logging.INFO if name in ("nccl", "gloo") else logging.WARNING
                log.log(level, "tpkit all-reduce: backend %s skipped: %s", name, why)
        return ar

    def set_profile(self, profile: BenchProfile | None) -> None:
        """Dispatch from ``profile`` from now on (e.g. one just measured); clears cached decisions."""
        self.profile = profile
        self._decisions.clear()

    @property
    def available(self) -> dict[str, Bytes | None]:
        """Started backends and their capacity (bytes; None = any size)."""
        return {name: b.capacity for name, b in self.backends.items()}

    def decide(self, tensor: torch.Tensor) -> Decision:
        """The backend (and reason) that would take ``tensor`` now (graph rows while capturing)."""
        capturing = tensor.is_cuda and torch.cuda.is_current_stream_capturing()
        return self.decide_bytes(tensor.numel() * tensor.element_size(), _dtype_name(tensor.dtype),
                                 mode="graph" if capturing else "eager")

    def decide_bytes(self, nbytes: int, dtype: str, mode: str = "graph") -> Decision:
        """Dispatch decision for ``nbytes`` of ``dtype`` in ``mode``; cached per (bytes, dtype, mode)."""
        key = (nbytes, dtype, mode)
        found = self._decisions.get(key)
        if found is None:
            found = choose_allreduce(nbytes=nbytes, dtype=dtype, world_size=self.world_size,
                                     topology=self.topology, compute_capability=self.compute_capability,
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

    def ledger_lines(self) -> tuple:
        """Ledger lines (kind "use") for every buffer the started backends allocated on this GPU."""
        return tuple(line for b in self.backends.values() for line in b.ledger_lines())


def _start_all(names, group, cap, device, ws, topology, cenv, options):
    """Start backends; a backend that fails on any rank is dropped on every rank (same dispatch everywhere)."""
    from tpkit.comm.dispatch import CUSTOM_BACKENDS, _static_custom_reason

    started, skipped = {}, {}
    cc = torch.cuda.get_device_capability(device) if device.type == "cuda" else None
    for name in names:
        if name in CUSTOM_BACKENDS:
            why = _static_custom_reason(name, ws, topology, cc, cenv)
            if why is not None or device.type != "cuda":
                skipped[name] = why or "needs CUDA tensors"
                continue
        try:
            backend = start_backend(name, group, max_bytes=cap.bytes, device=device, **options)
            ok = 1
        except BackendUnavailable as exc:
            backend, ok, skipped[name] = None, 0, str(exc)
        if name in CUSTOM_BACKENDS and ws > 1 and not _all_ranks_ok(ok, group, device):
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
    except Exception:  # noqa: BLE001 - no shipped profile: the dispatcher uses published crossovers
        return None
