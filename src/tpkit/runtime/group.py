"""Start-up memory over a process group: every rank probes, the table is gathered, the rule is applied.

Uses a gloo (CPU) group for the exchange, as SGLang does with its ``cpu_group``: on a NCCL job a gloo group
over the same ranks is created once and reused.  Every wait of the exchange is bounded by ``timeout_s``
itself (``Work.wait(timeout)``), whatever timeout the group was created with, so a rank that died, hangs
or never calls ``init_memory`` turns into ``RuntimeSetupError`` on every other rank within ``timeout_s``;
each rank marks its arrival in the group's store first, so the message names the missing ranks.
"""

from __future__ import annotations

import json
import socket
import time
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
    """``init_process_group("gloo", …)`` with a timeout; a rank that never joins raises ``RuntimeSetupError``.

    torch applies ``timeout_s`` to each rendezvous step (connecting to the store, its retries, waiting for the
    other ranks), so the error can come later than ``timeout_s``; the message states the time actually waited.
    """
    import torch.distributed as dist

    started = time.monotonic()
    try:
        dist.init_process_group(
            "gloo", init_method=init_method, rank=rank, world_size=world_size, timeout=timedelta(seconds=timeout_s)
        )
    except Exception as exc:  # noqa: BLE001 - torch raises several types for a missing peer
        waited = time.monotonic() - started
        raise RuntimeSetupError(
            f"rank {rank} of {world_size}: the process group at {init_method} did not form; gave up after "
            f"{waited:.1f} s (timeout_s={timeout_s:g} bounds each rendezvous step) ({_first_line(exc)}); a rank "
            "crashed before joining or was never started. Check every rank's log and that all ranks use the "
            "same address and world size."
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
    rank = dist.get_rank(group)
    payload = {"rank": rank, "hostname": socket.gethostname(), "snapshot": snapshot.to_dict()}
    gathered = _exchange(payload, group, rank, timeout_s)
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
        raise RuntimeSetupError("init_memory without a probe needs a CUDA GPU; none is visible "
                                "(pass probe=FakeProbe(...) on CPU)")
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


_CALLS: dict[object, int] = {}
"""init_memory calls per group in this process (every rank makes the same calls, so keys line up)"""


def _exchange(payload: dict, group, rank: int, timeout_s: float) -> list[dict]:
    """Gather every rank's payload over the gloo group, every wait bounded by ``timeout_s`` (``Work.wait``).

    Each rank first marks its arrival in the group's store, so a timed-out rank can name who never came.
    """
    import torch.distributed as dist

    gloo = cpu_group(group, timeout_s)
    world = dist.get_world_size(gloo)
    deadline = time.monotonic() + timeout_s
    arrived = _mark_arrival(gloo, rank, world)
    try:
        return _all_gather_json(payload, gloo, world, deadline)
    except Exception as exc:  # noqa: BLE001 - "Operation timed out!", or gloo's error for a lost peer
        missing = arrived() if arrived is not None else []
        who = (f"rank(s) {missing} never called init_memory (died, hang, or were never started)" if missing
               else "a rank died, hangs, or never called init_memory")
        raise RuntimeSetupError(
            f"rank {rank} of {world}: the start-up memory exchange failed within {timeout_s:g} s: {who}. "
            f"Details: {_first_line(exc)}. Check the log of every rank; all ranks of the group must call "
            "init_memory at start-up."
        ) from exc


def _all_gather_json(payload: dict, gloo, world: int, deadline: float) -> list[dict]:
    import torch
    import torch.distributed as dist

    def gather(tensors, mine) -> None:
        left = max(deadline - time.monotonic(), 0.001)
        dist.all_gather(tensors, mine, group=gloo, async_op=True).wait(timeout=timedelta(seconds=left))

    data = json.dumps(payload).encode()
    sizes = [torch.zeros(1, dtype=torch.int64) for _ in range(world)]
    gather(sizes, torch.tensor([len(data)], dtype=torch.int64))
    longest = max(int(n) for n in sizes)
    mine = torch.zeros(longest, dtype=torch.uint8)
    mine[: len(data)] = torch.tensor(list(data), dtype=torch.uint8)
    bufs = [torch.empty(longest, dtype=torch.uint8) for _ in range(world)]
    gather(bufs, mine)
    return [json.loads(bytes(b[: int(n)].tolist())) for b, n in zip(bufs, sizes)]


def _mark_arrival(gloo, rank: int, world: int):
    """Set this rank's arrival key in the group's store; return a function listing ranks without one."""
    try:
        from torch.distributed import distributed_c10d as c10d

        pg = gloo if gloo is not None else c10d._get_default_group()
        store = c10d._get_process_group_store(pg)
        key = id(pg)
        _CALLS[key] = _CALLS.get(key, 0) + 1
        keys = [f"tpkit/init_memory/{_CALLS[key]}/{r}" for r in range(world)]
        store.set(keys[rank], "1")
    except Exception:  # noqa: BLE001 - a private torch API or a store that is gone: no names, still an error
        return None

    def missing() -> list[int]:
        try:
            return [r for r, k in enumerate(keys) if not store.check([k])]
        except Exception:  # noqa: BLE001
            return []

    return missing


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {(text[0] if text else '').rstrip('.')}"
