"""The rates one GPU gives the cost model: effective memory bandwidth, tensor FLOP/s per dtype.

    in:  GpuSpec (catalog facts with their sources)
    out: ``DeviceRates``: bytes/s and FLOP/s the model divides by, each with the source behind it

Effective rate = datasheet rate × an efficiency measured on the H200 (constants ``hbm_efficiency``,
``gemm_flop_efficiency``); for other GPUs that transfer is an assumption and the output says so.  Where the GPU
catalog records a GPU's own achievable HBM fraction (``GpuSpec.hbm_efficiency``: public microbenchmarks put on the
H200 copy's footing, ``scripts/gpu_hbm.py``; MI300X and MI325X as of 2026-12-04) the bandwidth uses it instead.
"""

from __future__ import annotations

from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.perf.constants import C, GroupedMm, grouped_mm_terms
from tpkit.records import dataclass

__all__ = ["DeviceRates", "device_rates"]

_MEASURED_ON = "H200-SXM-141GB"
_FACT_WORDS = {"memory_bandwidth_tbps": "memory bandwidth (TB/s, catalog field memory_bandwidth_tbps)",
               "bf16_dense_tflops": "dense bf16 tensor rate (TFLOP/s, catalog field bf16_dense_tflops)"}


@dataclass(frozen=True, kw_only=True, slots=True)
class DeviceRates:
    """What one GPU sustains."""

    name: str
    """catalog name"""
    hbm_bytes_per_s: float
    """effective memory bandwidth (B/s) = datasheet × hbm_efficiency"""
    flops: tuple[tuple[str, float], ...]
    """(dtype, effective dense FLOP/s) for bf16, fp8, fp4, int8 where the catalog has them"""
    compute_capability: tuple[int, int] | None
    """(major, minor)"""
    nvlink_gbps_per_direction: float | None
    """NVLink bandwidth per direction (GB/s); None on PCIe-only GPUs"""
    pcie_gbps_per_direction: float | None
    """PCIe bandwidth per direction (GB/s)"""
    notes: tuple[str, ...] = ()
    """sources and transfer assumptions, for the output"""
    sm_flops: float | None = None
    """datasheet dense bf16 FLOP/s of one SM (bf16 TFLOP/s ÷ SM count, no efficiency: a ceiling for one block's math,
    ``perf.fa2_verify``); None where the catalog has no SM count"""
    grouped_mm: GroupedMm | None = None
    """``torch._grouped_mm``'s expert-GEMM terms on this GPU (``constants.grouped_mm_terms``: measured per GPU where a
    micro-benchmark exists, else the H200 value with its band); used by the ``reference`` layout.  None: the H200
    constants"""

    def flops_for(self, dtype: str) -> float:
        """Effective FLOP/s for a GEMM whose inputs are ``dtype`` (falls back to bf16)."""
        table = dict(self.flops)
        return table.get(dtype) or table["bf16"]


def device_rates(gpu: GpuSpec) -> DeviceRates:
    """Effective rates of ``gpu``; a GPU without bandwidth or bf16 rate in the catalog is a user error."""
    if not gpu.memory_bandwidth_tbps or not gpu.bf16_dense_tflops:
        missing = [f for f in ("memory_bandwidth_tbps", "bf16_dense_tflops") if not getattr(gpu, f)]
        why = "; ".join(f"{f}: {gpu.source_of(f)}" for f in missing if gpu.source_of(f) != "not recorded")
        facts = " and ".join(_FACT_WORDS[f] for f in missing)
        raise PlanInputError(
            f"GPU {gpu.name!r} has no {facts} in the catalog, so its decode speed cannot "
            "be predicted" + (f" (the catalog says: {why})" if why else "")
            + f"; tpkit plan still sizes its memory (tpkit plan MODEL --gpu {gpu.name}); for a speed estimate pass "
            "a catalog GPU whose memory bandwidth and bf16 TFLOP/s are recorded with --gpu (e.g. --gpu H100), not "
            "--gpu-memory")
    own_hbm = gpu.hbm_efficiency is not None
    hbm_eff = gpu.hbm_efficiency if own_hbm else C["hbm_efficiency"].value
    hbm = hbm_eff * gpu.memory_bandwidth_tbps * 1e12
    eff = C["gemm_flop_efficiency"].value
    flops = tuple((dt, eff * tf * 1e12) for dt in ("bf16", "fp8", "fp4", "int8")
                  if (tf := gpu.dense_tflops(dt)))
    band = (f"band {gpu.hbm_efficiency_band[0]}–{gpu.hbm_efficiency_band[1]}; "
            if gpu.hbm_efficiency_band else "")
    hbm_note = (f"{hbm_eff} achievable fraction on {gpu.name} ({band}{gpu.source_of('hbm_efficiency')})" if own_hbm
                else f"{hbm_eff} measured copy efficiency")
    notes = [f"memory bandwidth {gpu.memory_bandwidth_tbps} TB/s ({gpu.source_of('memory_bandwidth_tbps')}) × "
             f"{hbm_note}",
             f"bf16 {gpu.bf16_dense_tflops} TFLOP/s dense ({gpu.source_of('bf16_dense_tflops')}) × "
             f"{eff} measured GEMM efficiency"]
    if not gpu.sm_count:  # the one-SM ceiling of the verify attention's blocks (perf.forward) is then left out
        notes.append(f"SM count of {gpu.name}: not in the catalog ({gpu.source_of('sm_count')}), so the one-SM tensor "
                     "ceiling of the Triton / FlashAttention-2 verify attention blocks is left out: a verify pass on "
                     "these kernels may be predicted faster than it runs")
    if gpu.name != _MEASURED_ON:
        what = "the GEMM efficiency was" if own_hbm else "efficiencies were"
        notes.append(f"{what} measured on {_MEASURED_ON} and {'is' if own_hbm else 'are'} assumed to carry over to "
                     f"{gpu.name}")
    return DeviceRates(name=gpu.name, hbm_bytes_per_s=hbm, flops=flops, compute_capability=gpu.compute_capability,
                       nvlink_gbps_per_direction=gpu.nvlink_gbps_per_direction,
                       pcie_gbps_per_direction=gpu.pcie_gbps_per_direction, notes=tuple(notes),
                       sm_flops=gpu.bf16_dense_tflops * 1e12 / gpu.sm_count if gpu.sm_count else None,
                       grouped_mm=grouped_mm_terms(gpu.name))
