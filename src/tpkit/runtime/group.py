"""Start-up memory over a process group: every rank probes, the table is gathered, the rule is applied.

Uses a gloo (CPU) group for the exchange, as SGLang does with its ``cpu_group``: on a NCCL job a
gloo group over the same ranks is created once and reused.  A rank that died, hangs or never calls
``init_memory`` turns into ``RuntimeSetupError`` within ``timeout_s`` (a monitored barrier names
the missing ranks), never a hang.
"""

from __future__ import annotations

import socket
import warnings
from datetime import timedelta

from tpkit.errors import RuntimeSetupError
from tpkit.runtime.balance import (
    ALLOW_IMBALANCE_ENV,
    GroupMemory,
    RankMemory,
    allow_imbalance_from_env,
    imbalance_message,
)
from tpkit.runtime.probe import MemoryProbe, MemorySnapshot

__all__ = ["init_cpu_group", "init_memory", "cpu_group", "MemoryImbalanceWarning"]

_GLOO_GROUPS: dict[object, object] = {}


class MemoryImbalanceWarning(UserWarning):
    """The imbalance rule tripped but ``TPKIT_ALLOW_MEMORY_IMBALANCE=1`` allowed it."""


def init_cpu_group(*, rank: int, world_size: int, init_method: str, timeout_s: float = 60.0) -> None:
    """``init_process_group("gloo", …)`` with a timeout; a rank that never joins raises ``RuntimeSetupError``."""
    import torch.distributed as dist

    try:
        dist.init_process_group(
            "gloo", init_method=init_method, rank=rank, world_size=world_size, timeout=timedelta(seconds=timeout_s)
        )
    except Exception as exc:  # noqa: BLE001 - torch raises several types for a missing peer
        raise RuntimeSetupError(
            f"rank {rank} of {world_size}: the process group at {init_method} did not form within "
            f"{timeout_s:g} s ({type(exc).__name__}: {exc}); a rank crashed before joining or was never "
            "started. Check every rank's log and that all ranks use the same address and world size."
        ) from exc


def init_memory(
    group=None, probe: MemoryProbe | None = None, *, imbalance_ratio: float = 0.9, timeout_s: float = 60.0
) -> GroupMemory:
    """Probe this rank, gather every rank's snapshot, return the table and the minimum.

    ``group``: a torch.distributed group (default: WORLD); every rank of it must call this.
    ``probe``: default ``CudaProbe`` of the current CUDA device.
    Raises ``RuntimeSetupError`` when the group is imbalanced (``min < local × imbalance_ratio`` for
    some rank) unless ``TPKIT_ALLOW_MEMORY_IMBALANCE=1``, which makes it a ``MemoryImbalanceWarning``.
    """
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        raise RuntimeSetupError(
            "init_memory needs an initialised torch.distributed process group; call "
            "torch.distributed.init_process_group (or tpkit.runtime.group.init_cpu_group) first"
        )
    snapshot = (probe if probe is not None else _default_probe()).snapshot()
    gloo = cpu_group(group, timeout_s)
    rank = dist.get_rank(gloo)
    payload = {"rank": rank, "hostname": socket.gethostname(), "snapshot": snapshot.to_dict()}
    gathered = _exchange(payload, gloo, rank, timeout_s)
    ranks = tuple(
        RankMemory(rank=g["rank"], hostname=g["hostname"], snapshot=MemorySnapshot.from_dict(g["snapshot"]))
        for g in sorted(gathered, key=lambda g: g["rank"])
    )
    message = imbalance_message(ranks, imbalance_ratio) if len(ranks) > 1 else None
    if message and not allow_imbalance_from_env():
        raise RuntimeSetupError(message)
    if message:
        warnings.warn(f"{message}\n({ALLOW_IMBALANCE_ENV}=1: continuing)", MemoryImbalanceWarning, stacklevel=2)
    return GroupMemory(ranks=ranks, local_rank=rank, imbalance_ratio=imbalance_ratio, imbalance=message)


def _default_probe() -> MemoryProbe:
    import torch

    from tpkit.runtime.cuda_probe import CudaProbe

    if not torch.cuda.is_available():
        raise RuntimeSetupError("init_memory without a probe needs a CUDA GPU; none is visible (pass probe=FakeProbe(...) on CPU)")
    return CudaProbe(torch.cuda.current_device())


def cpu_group(group=None, timeout_s: float = 60.0):
    """``group`` itself when it is gloo, else a cached gloo group over the same ranks (collective
    on first use: every rank of WORLD must call it)."""
    import torch.distributed as dist

    if dist.get_backend(group) == "gloo":
        return group
    key = id(group) if group is not None else "WORLD"
    if key not in _GLOO_GROUPS:
        ranks = None if group is None else dist.get_process_group_ranks(group)
        _GLOO_GROUPS[key] = dist.new_group(ranks=ranks, backend="gloo", timeout=timedelta(seconds=timeout_s))
    return _GLOO_GROUPS[key]


def _exchange(payload: dict, gloo, rank: int, timeout_s: float) -> list[dict]:
    """A monitored barrier (names missing ranks, bounded wait), then ``all_gather_object``."""
    import torch.distributed as dist

    world = dist.get_world_size(gloo)
    out: list = [None] * world
    try:
        dist.monitored_barrier(group=gloo, timeout=timedelta(seconds=timeout_s), wait_all_ranks=True)
        dist.all_gather_object(out, payload, group=gloo)
    except Exception as exc:  # noqa: BLE001 - gloo raises RuntimeError/DistBackendError for a lost peer
        raise RuntimeSetupError(
            f"rank {rank} of {world}: the start-up memory exchange failed within {timeout_s:g} s: a rank "
            f"died, hangs, or never called init_memory. Details: {_first_line(exc)}. Check the log of every "
            "rank; all ranks of the group must call init_memory at start-up."
        ) from exc
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {(text[0] if text else '').rstrip('.')}"
