"""Which start-up cost family a GPU belongs to (pure): its architecture, from the catalog's compute capability.

    family               GPUs (compute capability)
    turing               T4, RTX 20xx (7.5)
    ampere               A100, A800, A30 (8.0)
    ampere-consumer      RTX 30xx, A10, A40, RTX A6000 (8.6, 8.7)
    ada                  L4, L40, L40S, RTX 40xx, RTX 6000 Ada (8.9)
    hopper               H100, H200, H20, H800 (9.0)
    blackwell            B200, GB200, B300 (10.x)
    blackwell-consumer   RTX 50xx, RTX PRO 6000 Blackwell, DGX Spark (12.x)
    cdna3                AMD Instinct MI300X, MI325X
    unknown              a GPU known only by its total (``--gpu-memory``) or an unlisted architecture

The CUDA context and cuBLAS workspace depend on the architecture (kernel images loaded, workspace sizes); the
table (``tpkit.startup.table``) is keyed by these names.
"""

from __future__ import annotations

from tpkit.hardware.gpu import GpuSpec, is_amd

__all__ = ["FAMILIES", "gpu_family"]

FAMILIES = ("turing", "ampere", "ampere-consumer", "ada", "hopper", "blackwell", "blackwell-consumer", "cdna3",
            "unknown")

_BY_CC = {(7, 5): "turing", (8, 0): "ampere", (8, 6): "ampere-consumer", (8, 7): "ampere-consumer",
          (8, 9): "ada", (9, 0): "hopper"}
_BY_MAJOR = {10: "blackwell", 11: "blackwell", 12: "blackwell-consumer"}
_AMD_CDNA3 = ("MI300", "MI325")


def gpu_family(gpu: GpuSpec | None) -> str:
    """The start-up cost family of ``gpu`` (``"unknown"`` when the catalog gives no architecture)."""
    if gpu is None:
        return "unknown"
    if is_amd(gpu.vendor):
        return "cdna3" if any(tag in gpu.name.upper() for tag in _AMD_CDNA3) else "unknown"
    cc = gpu.compute_capability
    if cc is None:
        return "unknown"
    return _BY_CC.get(tuple(cc)) or _BY_MAJOR.get(cc[0], "unknown")
