"""Thin access to NVML (``nvidia-ml-py``'s ``pynvml``): optional, injectable, never fatal.

Every function takes the ``nvml`` module as an argument so tests can pass a stand-in; when the
package or the driver library is missing, ``load_nvml`` returns ``(None, reason)`` and callers
degrade to what torch alone can tell, saying so in their notes.
"""

from __future__ import annotations

import os

from tpkit.runtime.probe import ProcessUsage
from tpkit.units import Bytes

__all__ = ["load_nvml", "pci_bus_id", "normalise_bus_id", "handle_for_cuda_device", "handle_bus_id", "list_processes",
           "driver_version"]

_STATE: dict[str, object] = {}


def load_nvml():
    """``(pynvml, "")`` after ``nvmlInit``, or ``(None, reason)`` when NVML cannot be used."""
    if "module" in _STATE:
        return _STATE["module"], _STATE["reason"]
    try:
        import pynvml  # type: ignore[import-not-found]

        pynvml.nvmlInit()
        module, reason = pynvml, ""
    except ImportError:
        module, reason = None, "NVML not available: install nvidia-ml-py for per-process usage and NVLink counts"
    except Exception as exc:  # noqa: BLE001 - pynvml.NVMLError and driver load failures
        module, reason = None, f"NVML not available: nvmlInit failed ({exc})"
    _STATE.update(module=module, reason=reason)
    return module, reason


def pci_bus_id(props) -> str | None:
    """NVML-style PCI bus id (``"00000000:18:00.0"``) from torch device properties, if torch exposes it."""
    try:
        return f"{int(props.pci_domain_id):08X}:{int(props.pci_bus_id):02X}:{int(props.pci_device_id):02X}.0"
    except (AttributeError, TypeError, ValueError):
        return None


def normalise_bus_id(bus_id) -> str:
    """A PCI bus id as NVML and torch both spell it: an 8-digit upper-case hex domain, e.g. ``00000000:1B:00.0``."""
    text = bus_id.decode() if isinstance(bus_id, bytes) else str(bus_id)
    domain, _, rest = text.strip().upper().partition(":")
    return f"{int(domain, 16):08X}:{rest}" if rest else text.upper()


def handle_for_cuda_device(nvml, cuda_index: int, bus_id: str | None):
    """The NVML handle of a CUDA device: by PCI bus id when known, else by index (only when no
    ``CUDA_VISIBLE_DEVICES`` reorders devices)."""
    if bus_id:
        return nvml.nvmlDeviceGetHandleByPciBusId(bus_id)
    if os.environ.get("CUDA_VISIBLE_DEVICES"):
        raise LookupError("torch gives no PCI bus id and CUDA_VISIBLE_DEVICES is set: NVML index is ambiguous")
    return nvml.nvmlDeviceGetHandleByIndex(cuda_index)


def handle_bus_id(nvml, handle) -> str:
    """The normalised PCI bus id of an NVML handle."""
    return normalise_bus_id(nvml.nvmlDeviceGetPciInfo(handle).busId)


def list_processes(nvml, handle) -> tuple[ProcessUsage, ...]:
    """Compute and graphics processes on the GPU, with the memory the driver attributes to each."""
    seen: dict[int, ProcessUsage] = {}
    for getter in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
        try:
            infos = getattr(nvml, getter)(handle)
        except Exception:  # noqa: BLE001 - not supported on this driver / VM
            continue
        for info in infos:
            used = getattr(info, "usedGpuMemory", None)
            seen[int(info.pid)] = ProcessUsage(
                pid=int(info.pid), name=_process_name(nvml, int(info.pid)),
                used_bytes=Bytes(int(used)) if isinstance(used, int) and used >= 0 and used < 2**62 else None,
            )
    return tuple(sorted(seen.values(), key=lambda p: p.pid))


def _process_name(nvml, pid: int) -> str:
    try:
        name = nvml.nvmlSystemGetProcessName(pid)
        name = name.decode() if isinstance(name, bytes) else str(name)
        return os.path.basename(name) or "?"
    except Exception:  # noqa: BLE001
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:  # any locale
                return fh.read().strip() or "?"
        except OSError:
            return "?"


def driver_version(nvml) -> str:
    """The driver version string, or ``""``."""
    try:
        v = nvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:  # noqa: BLE001
        return ""
