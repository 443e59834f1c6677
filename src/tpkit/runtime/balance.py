"""The group's memory table and the imbalance rule (pure; no torch).

Rule (SGLang ``_check_tp_memory_balance``): each rank compares the group minimum of free memory
with its own; it trips when ``min_free < local_free × ratio`` (default ratio 0.9).  Evaluated here
on the whole gathered table, so every rank reaches the same verdict at the same time: the group
is imbalanced exactly when ``min_free < max_free × ratio``.
"""

from __future__ import annotations

import os

from tpkit.errors import RuntimeSetupError
from tpkit.hardware.machine import MachineProfile
from tpkit.records import dataclass
from tpkit.runtime.probe import MemorySnapshot
from tpkit.units import Bytes, format_bytes, gib_text

__all__ = [
    "ALLOW_IMBALANCE_ENV",
    "RankMemory",
    "GroupMemory",
    "imbalance_message",
    "allow_imbalance_from_env",
    "format_group_table",
]

ALLOW_IMBALANCE_ENV = "TPKIT_ALLOW_MEMORY_IMBALANCE"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


@dataclass(frozen=True, kw_only=True, slots=True)
class RankMemory:
    """One rank's snapshot, as gathered."""

    rank: int
    """rank in the group"""
    hostname: str
    snapshot: MemorySnapshot

    @property
    def free_bytes(self) -> Bytes:
        return self.snapshot.free_bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class GroupMemory:
    """Every rank's memory at start-up, the minimum that decides the plan, and the imbalance verdict."""

    ranks: tuple[RankMemory, ...]
    """ordered by rank"""
    local_rank: int
    """the rank of the process holding this value"""
    imbalance_ratio: float
    """the rule's ratio (0.9: trips when min < local × 0.9)"""
    imbalance: str | None = None
    """the imbalance message when the rule tripped and was allowed by the env switch, else None"""

    @property
    def min_rank(self) -> RankMemory:
        """The rank with the least free memory (the lowest rank on ties)."""
        return min(self.ranks, key=lambda r: (r.free_bytes, r.rank))

    @property
    def min_free_bytes(self) -> Bytes:
        return self.min_rank.free_bytes

    @property
    def local(self) -> RankMemory:
        return self.ranks[self.local_rank]

    def to_machine_profile(self, *, hostname: str = "", driver_version: str = "") -> MachineProfile:
        """A ``MachineProfile`` with one GPU per rank (no topology), for planning from live numbers."""
        return MachineProfile(
            gpus=tuple(r.snapshot.to_gpu_state() for r in self.ranks), hostname=hostname,
            driver_version=driver_version, extra={"source": "init_memory", "ranks": len(self.ranks)},
        )


def imbalance_message(ranks: tuple[RankMemory, ...], ratio: float) -> str | None:
    """The error text when ``min_free < local_free × ratio`` holds for some rank, else None."""
    if not 0 < ratio <= 1:
        raise RuntimeSetupError(f"imbalance_ratio must be in (0, 1], got {ratio!r}; SGLang's rule uses 0.9")
    lowest = min(ranks, key=lambda r: (r.free_bytes, r.rank))
    tripped = [r for r in ranks if lowest.free_bytes < r.free_bytes * ratio]
    if not tripped:
        return None
    lines = [
        f"GPU memory is unbalanced across the {len(ranks)} ranks: rank {lowest.rank} has "
        f"{format_bytes(lowest.free_bytes)} free, less than {ratio:g} × the free memory of rank(s) "
        f"{', '.join(str(r.rank) for r in tripped)} (rule: min free < local free × {ratio:g}). "
        "Some GPUs are probably used by other processes. Free memory per rank:",
    ]
    lines += [f"  {_rank_line(r)}" for r in ranks]
    lines.append(
        "Fix: stop the processes listed on the short GPU(s), choose other GPUs with CUDA_VISIBLE_DEVICES, "
        f"or set {ALLOW_IMBALANCE_ENV}=1 to continue with the minimum (the plan then follows rank {lowest.rank})."
    )
    return "\n".join(lines)


def _rank_line(r: RankMemory) -> str:
    s = r.snapshot
    return (
        f"rank {r.rank} ({r.hostname} cuda:{s.device_index} {s.device_name}): free {format_bytes(s.free_bytes)} "
        f"of {format_bytes(s.total_bytes)} ({s.free_bytes.bytes:,} B); this process "
        f"{format_bytes(s.used_by_this_process_bytes)}, others {format_bytes(s.used_by_others_bytes)}; "
        f"processes: {s.describe_processes()}"
    )


def allow_imbalance_from_env(environ: dict[str, str] | None = None) -> bool:
    """True when ``TPKIT_ALLOW_MEMORY_IMBALANCE`` is 1/true/yes/on; an unreadable value raises."""
    value = (os.environ if environ is None else environ).get(ALLOW_IMBALANCE_ENV, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise RuntimeSetupError(
        f"{ALLOW_IMBALANCE_ENV} must be 1/true/yes/on or 0/false/no/off, got {value!r}; "
        "set it to 1 to turn the memory imbalance error into a warning"
    )


def format_group_table(group: GroupMemory) -> str:
    """A plain-text table: one line per rank, GiB named, the minimum marked."""
    low = group.min_rank.rank
    header = (f"{'rank':>4}  {'host':<16} {'gpu':<22} {'total GiB':>10} {'free GiB':>10} {'ours GiB':>9} "
              f"{'others GiB':>10}")
    rows = [header]
    gib = lambda n: gib_text(n, label="")  # noqa: E731  (a cell: the column head names the unit)
    for r in group.ranks:
        s = r.snapshot
        rows.append(
            f"{r.rank:>4}  {r.hostname[:16]:<16} {s.device_name[:22]:<22} {gib(s.total_bytes):>10} "
            f"{gib(s.free_bytes):>10} {gib(s.used_by_this_process_bytes):>9} {gib(s.used_by_others_bytes):>10}"
            + ("  ← min" if r.rank == low else "")
        )
    rows.append(f"min free: rank {low}, {format_bytes(group.min_free_bytes)} ({group.min_free_bytes.bytes:,} B)")
    return "\n".join(rows)
