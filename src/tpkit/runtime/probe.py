"""What one GPU's memory looks like right now: ``MemorySnapshot``, the ``MemoryProbe`` protocol, ``FakeProbe``.

This module imports no torch: snapshots travel between ranks as plain dicts and the fake probe
serves the CPU tests.  The CUDA implementation is ``tpkit.runtime.cuda_probe.CudaProbe``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Protocol, runtime_checkable

from tpkit.errors import RuntimeSetupError
from tpkit.hardware.machine import GpuState
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes

__all__ = ["ProcessUsage", "MemorySnapshot", "MemoryProbe", "FakeProbe"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ProcessUsage:
    """One process holding device memory (from NVML)."""

    pid: int
    """process id as NVML reports it (the host's id; may differ inside a container)"""
    name: str
    """executable name, or ``"?"`` when it cannot be read"""
    used_bytes: Bytes | None
    """device memory it holds; None when the driver does not say (e.g. some VMs)"""

    def describe(self) -> str:
        used = format_bytes(self.used_bytes) if self.used_bytes is not None else "unknown amount"
        return f"pid {self.pid} ({self.name}) {used}"

    def to_dict(self) -> dict:
        return {"pid": self.pid, "name": self.name,
                "used_bytes": None if self.used_bytes is None else self.used_bytes.bytes}

    @classmethod
    def from_dict(cls, d: dict) -> "ProcessUsage":
        used = d.get("used_bytes")
        return cls(pid=int(d["pid"]), name=str(d.get("name", "?")),
                   used_bytes=None if used is None else Bytes(int(used)))


@dataclass(frozen=True, kw_only=True, slots=True)
class MemorySnapshot:
    """Device memory of one GPU at one instant, as seen by one process."""

    device_index: int
    """CUDA device index in this process (after CUDA_VISIBLE_DEVICES)"""
    device_name: str
    """driver's name, e.g. ``"NVIDIA H200"``"""
    compute_capability: tuple[int, int] | None
    total_bytes: Bytes
    """cudaMemGetInfo total"""
    free_bytes: Bytes
    """cudaMemGetInfo free"""
    used_by_this_process_bytes: Bytes
    """held by this process (NVML, else the torch caching allocator's reserved bytes)"""
    used_by_others_bytes: Bytes
    """total − free − ours: other processes, driver reservations, contexts torch does not count"""
    processes: tuple[ProcessUsage, ...] = ()
    """every process NVML lists on this GPU (ours included)"""
    notes: tuple[str, ...] = ()
    """how the numbers were obtained when a source was missing (e.g. "NVML not available")"""

    def __post_init__(self) -> None:
        for name in ("total_bytes", "free_bytes", "used_by_this_process_bytes", "used_by_others_bytes"):
            if not isinstance(getattr(self, name), Bytes):
                raise TypeError(f"MemorySnapshot.{name} must be Bytes, got {type(getattr(self, name)).__name__}")

    @property
    def used_bytes(self) -> Bytes:
        """total − free."""
        return self.total_bytes - self.free_bytes

    def describe_processes(self) -> str:
        """``"pid 12 (python) 3.00 GiB, …"`` or a sentence saying none were listed."""
        if not self.processes:
            return "no processes listed" + (" (NVML not available)" if any("NVML" in n for n in self.notes) else "")
        return ", ".join(p.describe() for p in self.processes)

    def to_gpu_state(self) -> GpuState:
        """The ``MachineProfile`` entry for this GPU."""
        return GpuState(
            index=self.device_index, name=self.device_name, total_bytes=self.total_bytes,
            free_bytes=self.free_bytes, used_by_this_process_bytes=self.used_by_this_process_bytes,
            used_by_others_bytes=self.used_by_others_bytes, compute_capability=self.compute_capability,
            processes=tuple(p.to_dict() for p in self.processes),
        )

    def to_dict(self) -> dict:
        """Plain JSON-able dict (what ranks exchange; byte counts as ints)."""
        return {
            "device_index": self.device_index, "device_name": self.device_name,
            "compute_capability": list(self.compute_capability) if self.compute_capability else None,
            "total_bytes": self.total_bytes.bytes, "free_bytes": self.free_bytes.bytes,
            "used_by_this_process_bytes": self.used_by_this_process_bytes.bytes,
            "used_by_others_bytes": self.used_by_others_bytes.bytes,
            "processes": [p.to_dict() for p in self.processes], "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "MemorySnapshot":
        cc = d.get("compute_capability")
        return cls(
            device_index=int(d["device_index"]), device_name=str(d["device_name"]),
            compute_capability=(int(cc[0]), int(cc[1])) if cc else None,
            total_bytes=Bytes(int(d["total_bytes"])), free_bytes=Bytes(int(d["free_bytes"])),
            used_by_this_process_bytes=Bytes(int(d["used_by_this_process_bytes"])),
            used_by_others_bytes=Bytes(int(d["used_by_others_bytes"])),
            processes=tuple(ProcessUsage.from_dict(p) for p in d.get("processes", ())),
            notes=tuple(d.get("notes", ())),
        )


@runtime_checkable
class MemoryProbe(Protocol):
    """Anything that can say how much memory one device has free right now."""

    def snapshot(self) -> MemorySnapshot:
        """Measure now (implementations release cached allocator blocks first)."""
        ...


class FakeProbe:
    """A probe with scripted numbers, for tests and ``scripts/gpu_memory_check.py --fake`` runs (no GPU, no torch;
    the ``tpkit probe`` command has no fake mode: it measures real GPUs only).

    ``free_bytes`` may be one value or a sequence: each ``snapshot()`` takes the next value and
    repeats the last one, so a test can script "before" and "after" an allocation.
    """

    def __init__(
        self, *, total_bytes: Bytes, free_bytes: Bytes | Iterable[Bytes], device_index: int = 0,
        device_name: str = "Fake GPU", compute_capability: tuple[int, int] | None = (9, 0),
        used_by_this_process_bytes: Bytes = Bytes(0), processes: Iterable[ProcessUsage] = (),
    ) -> None:
        frees = [free_bytes] if isinstance(free_bytes, Bytes) else list(free_bytes)
        if not frees:
            raise RuntimeSetupError("FakeProbe needs at least one free_bytes value, got an empty sequence")
        for value in frees:
            if not isinstance(value, Bytes) or value > total_bytes or value < Bytes(0):
                raise RuntimeSetupError(
                    f"FakeProbe free_bytes must be Bytes between 0 and total {total_bytes!r}, got {value!r}"
                )
        self._frees = frees
        self._calls = 0
        self._template = MemorySnapshot(
            device_index=device_index, device_name=device_name, compute_capability=compute_capability,
            total_bytes=total_bytes, free_bytes=frees[0], used_by_this_process_bytes=used_by_this_process_bytes,
            used_by_others_bytes=Bytes(0), processes=tuple(processes), notes=("fake probe",),
        )

    @property
    def calls(self) -> int:
        """How many snapshots were taken."""
        return self._calls

    def snapshot(self) -> MemorySnapshot:
        free = self._frees[min(self._calls, len(self._frees) - 1)]
        self._calls += 1
        t = self._template
        others = t.total_bytes - free - t.used_by_this_process_bytes
        return replace(t, free_bytes=free, used_by_others_bytes=others if others > Bytes(0) else Bytes(0))
