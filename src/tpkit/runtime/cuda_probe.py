"""``CudaProbe``: free/total from ``torch.cuda.mem_get_info``, per-process usage from NVML when present."""

from __future__ import annotations

import os

from tpkit.errors import RuntimeSetupError
from tpkit.runtime import nvml as _nvml
from tpkit.runtime.probe import MemorySnapshot, ProcessUsage
from tpkit.units import Bytes

__all__ = ["CudaProbe", "cuda_device_count"]


def cuda_device_count() -> int:
    """Visible CUDA devices; 0 when torch is missing or has no CUDA."""
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


class CudaProbe:
    """Measures one CUDA device (``device_index`` after CUDA_VISIBLE_DEVICES).

    Each snapshot first releases the caching allocator's unused blocks (``empty_cache``), as
    SGLang's ``get_available_gpu_memory`` does, so "free" is not understated by cached blocks.
    """

    def __init__(self, device_index: int = 0, *, empty_cache: bool = True, use_nvml: bool = True) -> None:
        count = cuda_device_count()
        if not 0 <= device_index < count:
            raise RuntimeSetupError(
                f"CudaProbe: no CUDA device {device_index}; {count} visible "
                f"(CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '<unset>')})"
            )
        self.device_index = device_index
        self._empty_cache = empty_cache
        self._use_nvml = use_nvml

    def snapshot(self) -> MemorySnapshot:
        """Measure now (free, total, ours, others, processes)."""
        import torch

        idx = self.device_index
        if self._empty_cache:
            torch.cuda.empty_cache()
        free, total = torch.cuda.mem_get_info(idx)
        props = torch.cuda.get_device_properties(idx)
        processes, notes = self._processes(props)
        ours = _own_usage(processes)
        if ours is None:
            ours = Bytes(int(torch.cuda.memory_reserved(idx)))
            notes.append("this process: torch caching-allocator reserved bytes only (NVML did not list this pid)")
        others = Bytes(total - free) - ours
        return MemorySnapshot(
            device_index=idx, device_name=props.name, compute_capability=(props.major, props.minor),
            total_bytes=Bytes(int(total)), free_bytes=Bytes(int(free)), used_by_this_process_bytes=ours,
            used_by_others_bytes=others if others > Bytes(0) else Bytes(0), processes=processes, notes=tuple(notes),
        )

    def _processes(self, props) -> tuple[tuple[ProcessUsage, ...], list[str]]:
        if not self._use_nvml:
            return (), ["NVML not used (use_nvml=False)"]
        nvml, reason = _nvml.load_nvml()
        if nvml is None:
            return (), [reason]
        try:
            handle = _nvml.handle_for_cuda_device(nvml, self.device_index, _nvml.pci_bus_id(props))
            return _nvml.list_processes(nvml, handle), []
        except Exception as exc:  # noqa: BLE001 - degrade, never fail the probe on NVML
            return (), [f"NVML process list unavailable ({exc})"]


def _own_usage(processes: tuple[ProcessUsage, ...]) -> Bytes | None:
    pid = os.getpid()
    for p in processes:
        if p.pid == pid and p.used_bytes is not None:
            return p.used_bytes
    return None
