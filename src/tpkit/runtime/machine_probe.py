"""``probe_machine``: every visible GPU's memory plus the links between them, as a ``MachineProfile``."""

from __future__ import annotations

import socket

from tpkit.errors import RuntimeSetupError
from tpkit.hardware.machine import MachineProfile
from tpkit.runtime import nvml as _nvml
from tpkit.runtime.cuda_probe import CudaProbe, cuda_device_count
from tpkit.runtime.topology import read_visible

__all__ = ["probe_machine", "no_gpu_reason"]


def no_gpu_reason() -> str | None:
    """Why there is nothing to probe (no torch, CPU-only torch, no device), or None when GPUs are visible."""
    try:
        import torch
    except ImportError:
        return "torch is not installed (pip install 'tpkit[runtime]'), so no GPU can be probed"
    if not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
        return f"no CUDA GPU is visible (torch {torch.__version__}, {build})"
    return None


def probe_machine(*, use_nvml: bool = True) -> MachineProfile:
    """Snapshot every visible GPU and read the topology; ``RuntimeSetupError`` when there is no GPU."""
    reason = no_gpu_reason()
    if reason:
        raise RuntimeSetupError(f"nothing to probe: {reason}")
    import torch

    n = cuda_device_count()
    snapshots = [CudaProbe(i, use_nvml=use_nvml).snapshot() for i in range(n)]
    nvml, nvml_reason = _nvml.load_nvml() if use_nvml else (None, "NVML not used")
    topo, handle_note = read_visible(nvml, torch)
    notes = sorted({note for s in snapshots for note in s.notes} | set(topo.notes) | ({nvml_reason} - {""})
                   | handle_note)
    return MachineProfile(
        gpus=tuple(s.to_gpu_state() for s in snapshots),
        nvlink_links=topo.nvlink_links, p2p_access=topo.p2p_access, pcie_path=topo.path,
        hostname=socket.gethostname(), driver_version=_nvml.driver_version(nvml) if nvml else "",
        extra={"torch": torch.__version__, "cuda": torch.version.cuda, "notes": notes},
    )
