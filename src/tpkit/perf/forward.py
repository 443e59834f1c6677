"""Time of one forward pass on one rank: kernels through a roofline, plus all-reduces (pure).

    t(gemm)      = max(smooth_max(bytes / BW, FLOPs / F[dtype]) + gemm_overhead,
                       gemm_overhead + min(K, gemv_k_latency_cap) · gemv_k_latency_ns)   (the second term only
                   for a GEMM of ≤ 16 tokens, ``Kernel.latency_k`` = K: a small-N GEMV is latency-bound along K,
                   measured on an H200, docs/runs/gemv_small_m_h200_2026-12-04.json)
    t(grouped)   = smooth_max(bytes / (BW · grouped efficiency), FLOPs / F) + grouped overhead (per ``impl``; for
                   torch._grouped_mm per GPU, ``DeviceRates.grouped_mm``)
    t(attention) = smooth_max(max(bytes / BW, bytes one block streams / per-block rate,
                                  bytes one row streams / triton_mla_row_gbps), FLOPs / F)
                   + attention_overhead   (the block term only for kernels without split-KV, the row term only
                   for vLLM TRITON_MLA decode rows, ``perf.mla_splits``)
    t(small)     = small_kernel_us + max(bytes / (BW · bw_fraction), cta_bytes / row_block_gbps)
                   (bw_fraction 1 and cta_bytes 0 but for the draft's sampling kernels: ``draft_terms``)
    smooth_max(a, b) = (a^p + b^p)^(1/p)                 p = roofline_sharpness

BW and F are the GPU's effective rates (``device``); the constants are in ``constants``.
"""

from __future__ import annotations

from tpkit.perf.constants import C
from tpkit.perf.device import DeviceRates
from tpkit.perf.impl import ImplProfile
from tpkit.perf.kernels import Kernel
from tpkit.records import dataclass

__all__ = ["ForwardTime", "gemv_floor_us", "kernel_us", "queued_behind", "time_forward"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ForwardTime:
    """One forward pass on one rank."""

    compute_us: float
    """all kernels except communication (µs)"""
    allreduce_us: float
    """all collective calls (µs)"""
    by_kind_us: tuple[tuple[str, float], ...]
    """(kernel kind, µs) summed over the forward"""
    weight_like_bytes: float
    """bytes read and written by the kernels (B)"""
    kernels: int
    """kernel launches, collectives excluded (count)"""
    host_us: float = 0.0
    """CPU time to launch the pass when it is not one CUDA graph (µs); the pass takes max(GPU, host)"""
    exposed_host_us: float = 0.0
    """host work the GPU waits for after the pass (no overlap scheduling; µs)"""

    @property
    def gpu_us(self) -> float:
        return self.compute_us + self.allreduce_us

    @property
    def total_us(self) -> float:
        return max(self.gpu_us, self.host_us) + self.exposed_host_us

    def to_dict(self) -> dict:
        return {"total_us": round(self.total_us, 2), "compute_us": round(self.compute_us, 2),
                "allreduce_us": round(self.allreduce_us, 2), "host_launch_us": round(self.host_us, 2),
                "exposed_host_us": round(self.exposed_host_us, 2),
                "by_kind_us": {k: round(v, 2) for k, v in self.by_kind_us}, "bytes": round(self.weight_like_bytes),
                "kernels": self.kernels}


def _smooth_max(a: float, b: float) -> float:
    p = C["roofline_sharpness"].value
    return (a ** p + b ** p) ** (1.0 / p)


def _cta_rate(k: Kernel) -> float:
    """Bytes/s one attention block streams alone: the measured rate, scaled by the row width it reads per token
    against the calibration row (latency-bound: bytes in flight grow with the row), within 0.5–4×."""
    scale = min(4.0, max(0.5, k.cta_row_bytes / C["attention_cta_row_bytes"].value)) if k.cta_row_bytes else 1.0
    return C["attention_cta_gbps"].value * 1e9 * scale


def gemv_floor_us(k_dim: int) -> float:
    """Least µs of a weight-streaming GEMM of ≤ 16 tokens whose reduction length is ``k_dim`` elements: the
    launch cost plus a latency that grows with K up to ``gemv_k_latency_cap`` (bf16 cuBLAS on an H200,
    ``bench/gemv_small_m.py``; assumed to carry over to other GPUs like the other H200-measured constants, and to
    quantised GEMMs (fp8, Marlin int4/mxfp4), which were not measured)."""
    return C["gemm_overhead_us"].value + min(k_dim, C["gemv_k_latency_cap"].value) * C["gemv_k_latency_ns"].value / 1e3


def kernel_us(k: Kernel, dev: DeviceRates, impl: ImplProfile | None = None) -> float:
    """µs of one launch of ``k`` on ``dev`` (``impl`` sets the expert-GEMM efficiency; default, and the ``reference``
    layout: torch._grouped_mm as measured on ``dev``'s GPU, ``DeviceRates.grouped_mm``)."""
    bw = dev.hbm_bytes_per_s
    flop_us = k.flops / dev.flops_for(k.dtype) * 1e6 if k.flops else 0.0
    if k.kind == "gemm":
        t = _smooth_max(k.bytes / bw * 1e6, flop_us) + C["gemm_overhead_us"].value
        return max(t, gemv_floor_us(k.latency_k)) if k.latency_k else t
    if k.kind == "grouped":
        eff, fixed = impl.grouped_efficiency if impl else None, impl.grouped_overhead_us if impl else None
        if eff is None or fixed is None:   # torch._grouped_mm: the GPU's own micro-benchmark where there is one
            own = dev.grouped_mm
            eff = own.efficiency if own else C["grouped_gemm_efficiency"].value
            fixed = own.overhead_us if own else C["grouped_gemm_overhead_us"].value
        return _smooth_max(k.bytes / (bw * eff) * 1e6, flop_us) + fixed
    if k.kind == "attention":
        mem_us = max(k.bytes / bw, k.cta_bytes / _cta_rate(k), k.row_bytes / (C["triton_mla_row_gbps"].value * 1e9),
                     k.cta_flops / dev.sm_flops if k.cta_flops and dev.sm_flops else 0.0) * 1e6
        return _smooth_max(mem_us, flop_us) + C["attention_overhead_us"].value
    row_us = k.cta_bytes / (C["row_block_gbps"].value * 1e9) * 1e6 if k.cta_bytes else 0.0
    return C["small_kernel_us"].value + max(k.bytes / (bw * k.bw_fraction) * 1e6, row_us)


def time_forward(kernels: list[Kernel], dev: DeviceRates, *, allreduce_us: float = 0.0,
                 impl: ImplProfile | None = None) -> ForwardTime:
    """Sum the kernels of one forward (and the collectives, costed elsewhere)."""
    by_kind: dict[str, float] = {}
    for k in kernels:
        by_kind[k.kind] = by_kind.get(k.kind, 0.0) + k.count * kernel_us(k, dev, impl)
    return ForwardTime(compute_us=sum(by_kind.values()), allreduce_us=allreduce_us,
                       by_kind_us=tuple(sorted(by_kind.items())),
                       weight_like_bytes=sum(k.count * k.bytes for k in kernels),
                       kernels=sum(k.count for k in kernels))


def queued_behind(ahead: ForwardTime, passes: list[ForwardTime]) -> float:
    """GPU time that ``passes`` add after the pass ``ahead`` when the host launches them one after the other, with
    no blocking CPU operation, as soon as it has launched ``ahead`` (``Runtime.drafter_queued``).  A pass of GPU time
    g and launch time h, whose launches start at host time H while the GPU is free from G, ends at
    max(max(G, H) + g, H + h): with the GPU idle (G ≤ H) that is H + max(g, h), the per-pass rule of
    ``ForwardTime.total_us``; while the GPU is still busy the launches cost nothing."""
    host, gpu = ahead.host_us, ahead.total_us
    start = gpu
    for f in passes:
        gpu = max(max(gpu, host) + f.gpu_us + f.exposed_host_us, host + f.host_us)
        host += f.host_us
    return gpu - start
