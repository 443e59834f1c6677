"""``GpuSpec``: one GPU model's facts (pure value type); its vendor's tests, the one home of every vendor test.

``is_amd`` / ``is_nvidia`` / ``gpu_platform`` (helper tidy33, 2026-12-07, session 33): the catalog's ``vendor``
(``hardware/data/gpus.json``) is ``"NVIDIA"`` or ``"AMD"``; a GPU given by ``--gpu-memory`` alone is planned as NVIDIA
(``GpuSpec``'s default).  Every rule that branches on the vendor (CUDA or ROCm builds of the engines, XGMI links, the
HIP all-reduce, the rotary cache's dtype) asks here, so the spelling (case, a missing GPU, a vendor neither of the
two) is decided once: a vendor string is compared upper-cased, and None (no GPU known) is neither vendor.  Here,
beside ``GpuSpec``, because every command imports this module already (tests/cli/test_cold_imports.py);
``tests/core/test_vendor_one_home.py`` fails when a comparison with a vendor literal comes back elsewhere in src/.
"""

from __future__ import annotations

from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["GpuSpec", "AMD", "NVIDIA", "is_amd", "is_nvidia", "gpu_platform"]


@dataclass(frozen=True, kw_only=True, slots=True)
class GpuSpec:
    """One GPU as tpkit plans it: the CUDA-reported total with its source, compute capability, links and bandwidths
    (``hardware/data/gpus.json``)."""
    name: str
    """canonical catalog name, e.g. ``"H100-SXM-80GB"``"""
    total_bytes: Bytes
    """device memory as CUDA reports it (cudaMemGetInfo total)"""
    total_source: str
    """where total_bytes came from (measured, OOM messages, derived, --gpu-memory)"""
    nvidia_smi_total_mib: int | None = None
    """what nvidia-smi prints as total (MiB); SGLang's default fraction uses it"""
    compute_capability: tuple[int, int] | None = None
    """(major, minor)"""
    sm_count: int | None = None
    """streaming multiprocessors (count)"""
    memory_bandwidth_tbps: float | None = None
    """HBM/GDDR bandwidth (TB/s, decimal)"""
    bf16_dense_tflops: float | None = None
    """dense bf16 tensor throughput (TFLOP/s, 10^12)"""
    nvlink_gbps_per_direction: float | None = None
    """NVLink bandwidth per direction per GPU (GB/s, decimal); None if no NVLink"""
    pcie_gbps_per_direction: float | None = None
    """PCIe bandwidth per direction (GB/s, decimal)"""
    fp8_dense_tflops: float | None = None
    """dense FP8 tensor throughput (TFLOP/s); None where the GPU has no FP8 tensor cores or it is unknown"""
    fp4_dense_tflops: float | None = None
    """dense FP4 tensor throughput (TFLOP/s; Blackwell and later)"""
    int8_dense_tops: float | None = None
    """dense INT8 tensor throughput (TOP/s, 10^12 operations per second)"""
    pcie_generation: int | None = None
    """PCIe generation of the host link (4, 5 …)"""
    pcie_lanes: int | None = None
    """PCIe lanes of the host link (count)"""
    sources: tuple[tuple[str, str], ...] = ()
    """(field, where its value came from) for the rate fields above"""
    vendor: str = "NVIDIA"
    """``NVIDIA`` or ``AMD``"""
    aliases: tuple[str, ...] = ()
    """other names that find this GPU (``H100``, ``NVIDIA H100 80GB HBM3`` …)"""
    total_printed: bool = True
    """``total_bytes`` was printed for this GPU (measured, PyTorch OOMs, engine logs); False where it is derived from
    nvidia-smi or assumed equal to a sibling board's: such a total is not matched against a log's numbers
    (``logs.gpu_names.gpus_with_total``, ``explain.gpuinfer``), so a sibling never makes a printed match ambiguous.
    Also False for a printed total kept out of that matching, with the reason in ``source_of("total_matching")``
    (GH200-96GB, 31 MiB from the RTX PRO 6000; helper gh18) and for MIG slices"""

    unified_memory: bool = False
    """the GPU shares the host's memory (GB10 / DGX Spark, Jetson Thor and Orin): cudaMemGetInfo reports the system
    memory the OS leaves, so the total and the free memory at start-up vary with what the host uses
    (``engines.unified``)"""

    pcie_p2p: bool | None = None
    """two boards of this GPU on one host have CUDA peer access over PCIe with the stock driver, as the boards are
    publicly reported (``torch.cuda.can_device_access_peer``, which vLLM's and SGLang's custom all-reduce ask):
    False for GeForce cards and the cloud-rented A10 / A10G / L4 / T4, True for professional and datacenter PCIe boards,
    None where nothing is recorded (NVLink boards, AMD, GB10: peer access assumed).  Its source and caveats (NVLink
    bridges, patched drivers, VMs, ACS / IOMMU) are ``source_of("pcie_p2p")``; ``tpkit plan --p2p`` / ``--no-p2p``
    override it (``startup.links``).  Built by ``scripts/build_gpu_catalog.py`` from ``scripts/gpu_p2p.py``."""

    hbm_efficiency: float | None = None
    """achievable fraction of ``memory_bandwidth_tbps`` from public microbenchmarks on this GPU, put on the same
    footing as the H200-measured copy efficiency (``scripts/gpu_hbm.py``; source: ``source_of("hbm_efficiency")``);
    None where nothing is recorded: ``tpkit.perf`` then uses the H200 figure"""

    hbm_efficiency_band: tuple[float, float] | None = None
    """(low, high) of ``hbm_efficiency`` over the microbenchmarks behind it"""

    xgmi_gbps_per_link: float | None = None
    """AMD Infinity Fabric (xGMI): raw bandwidth of one GPU-to-GPU link per direction (GB/s, decimal); None where the
    GPU has no xGMI mesh.  Source: ``source_of("xgmi")`` (``scripts/gpu_xgmi.py``)"""

    xgmi_links: int | None = None
    """xGMI links per GPU (count): the 8-GPU MI300X / MI325X / MI355X platforms link every GPU directly to the other
    seven (a full mesh, no switch)"""

    nvlink_multicast: bool | None = None
    """CUDA's ``CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`` on the GPU's usual hosts, which NCCL's NVLink SHARP (NVLS)
    needs (``startup.nvls``): False where it is recorded as 0 (GH200 hosts of 1-4 superchips with direct NVLink and no
    NVSwitch); None where not recorded: an NVLink GPU of compute capability 9.0+ is then taken to sit on an NVSwitch
    board, as before.  Source: ``source_of("nvlink_multicast")`` (helper gh18, 2026-12-05)"""

    mig_parent: str | None = None
    """the catalog GPU this MIG slice is cut from (``A100-SXM-40GB``); None for a whole card.  A slice has no peer
    access and no NVLink to any other GPU (``hardware.catalog.refuse_mig_layout``)"""

    mig_profile: str | None = None
    """the MIG profile (``1g.5gb``); None for a whole card"""

    mig_memory_fraction: float | None = None
    """the slice's share of the card's memory slices (MIG user guide, eighths): its share of the memory bandwidth"""

    def source_of(self, field: str) -> str:
        """Where the value of ``field`` came from (``"not recorded"`` when the catalog says nothing)."""
        return dict(self.sources).get(field, "not recorded")

    def total_with_os_note(self) -> str:
        """``total_source``, and for a catalog card whose total differs under Windows / WSL2 (``sources
        ["total_windows"]``: there CUDA reports nvidia-smi's total, the catalog holds the Linux one, docs/accuracy.md
        "GPU totals: Linux, not Windows") the flag a WSL2 user passes: ``--gpu-memory <nvidia-smi MiB>MiB``."""
        if (self.total_source.startswith("--") or self.nvidia_smi_total_mib is None
                or "total_windows" not in dict(self.sources)):
            return self.total_source
        mib = self.nvidia_smi_total_mib
        return (f"{self.total_source}. This is the Linux total: under WSL2 or Windows CUDA reports about "
                f"nvidia-smi's total, {mib:,} MiB ({mib / 1024:.2f} GiB); plan such a run with --gpu-memory {mib}MiB")

    def dense_tflops(self, dtype: str) -> float | None:
        """Dense tensor throughput for ``dtype`` (``bf16``, ``fp8``, ``fp4``, ``int8``) in TFLOP/s (TOP/s for int8)."""
        return {"bf16": self.bf16_dense_tflops, "fp8": self.fp8_dense_tflops, "fp4": self.fp4_dense_tflops,
                "int8": self.int8_dense_tops}.get(dtype)

    def summary(self) -> dict:
        return {
            "name": self.name, "total_bytes": self.total_bytes.bytes,
            "total_source": self.total_source, "nvidia_smi_total_mib": self.nvidia_smi_total_mib,
            "compute_capability": ".".join(map(str, self.compute_capability)) if self.compute_capability else None,
        }


AMD = "AMD"
"""the catalog's vendor of AMD Instinct GPUs (ROCm / HIP builds of the engines)"""
NVIDIA = "NVIDIA"
"""the catalog's vendor of NVIDIA GPUs (CUDA builds), and ``GpuSpec``'s default"""


def _upper(vendor: str | None) -> str:
    return str(vendor or "").upper()


def is_amd(vendor: str | None) -> bool:
    """Whether ``vendor`` (a ``GpuSpec.vendor``, or None when no GPU is known) is AMD: the engines' ROCm / HIP path."""
    return _upper(vendor) == AMD


def is_nvidia(vendor: str | None) -> bool:
    """Whether ``vendor`` (a ``GpuSpec.vendor``, or None when no GPU is known) is NVIDIA: the engines' CUDA path."""
    return _upper(vendor) == NVIDIA


def gpu_platform(vendor: str | None) -> str | None:
    """The platform of a GPU vendor — ``"rocm"`` for AMD, ``"cuda"`` for NVIDIA — and None for a GPU not known or of
    another vendor (``startup.rankspread.PLATFORM_STATS``' keys; moved here from ``startup.rankspread``, which
    re-exports it).  The rank-spread statistic's own split (``scripts/rank_spread.platform_of``) reads a log's AMD /
    HIP sign; a log without one counts as "cuda" there, which is what an NVIDIA GPU's log is."""
    return "rocm" if is_amd(vendor) else "cuda" if is_nvidia(vendor) else None
