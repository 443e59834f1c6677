"""SGLang's default ``mem_fraction_static`` and capacity defaults, per release era (spec §4).

Units: ``gpu_mem_mib`` is what SGLang's ``get_device_memory_capacity`` returns — the nvidia-smi total
in MiB (fallback: the CUDA total in MiB).  Every reserve here is in MiB, as in SGLang.

    era        rule
    0.2.15     by tp: ≥16 0.79, ≥8 0.83, ≥4 0.85, ≥2 0.87, else 0.88
    0.3.6      … ≥8 0.82 …;   0.4.3 … ≥8 0.81 …
    0.4.6      ≤ 81920 MiB: the 0.4.3 table; else (gpu − 13 GiB) / gpu
    0.4.10     reserved GiB by capacity (2.8 + p/10, 9.5 + p/2, 12 + p/2, 32)
    0.5.3      512 + 1.5·max(cpp, 2048) + 2·max_bs + p/8·1024; 10 GiB floor above 60 GiB
    0.5.10     + piecewise-graph term (8 MiB × #buckets, MLA 1536) before the floor
    0.5.15+    + prefill-graph term (8 MiB × #prefill sizes, MLA 1536); 10 GiB floor
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tpkit.engines.sglang.versions import era_at_least

__all__ = ["CapacityDefaults", "FractionChoice", "capacity_defaults", "prefill_capture_sizes",
           "default_mem_fraction", "slack_estimate_mib", "graph_reserve_mib"]

_TP_TABLES = {
    "0.2.15": ((16, 0.79), (8, 0.83), (4, 0.85), (2, 0.87), (1, 0.88)),
    "0.3.6": ((16, 0.79), (8, 0.82), (4, 0.85), (2, 0.87), (1, 0.88)),
    "0.4.3": ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88)),
}


@dataclass(frozen=True, kw_only=True, slots=True)
class CapacityDefaults:
    """Server defaults SGLang derives from GPU capacity when the user leaves them unset."""

    chunked_prefill_size: int
    """tokens per prefill chunk (≤ 0: chunking disabled)"""
    cuda_graph_max_bs: int
    """largest decode batch captured in a CUDA graph (requests)"""
    source: str
    """the rule, in words"""


@dataclass(frozen=True, kw_only=True, slots=True)
class FractionChoice:
    """The ``mem_fraction_static`` in effect and why."""

    value: float
    """fraction of pre-load free memory kept for weights + KV"""
    reserved_mib: float | None
    """the engine's reserve behind a default (MiB); None for table rules or a user value"""
    source: str
    """the rule and its numbers, in words"""


def capacity_defaults(gpu_mem_mib: float, tp: int, era: str, *, chunked_prefill_size: int | None,
                      cuda_graph_max_bs: int | None, max_running_requests: int | None) -> CapacityDefaults:
    """Fill unset chunked-prefill size and decode CUDA-graph max batch (spec §4.1 step A)."""
    gib = gpu_mem_mib / 1024
    if gib < 20:
        cpp, bs = 2048, 8
    elif gib < 35:
        cpp, bs = 4096, _small_gpu_bs(era, tp)
    elif gib < 60:
        cpp, bs = 4096, 32 if tp < 4 else 160
    elif gib < 160:
        cpp, bs = 8192, 256 if tp < 4 else 512
    else:
        cpp, bs = 16384, 512
    if not era_at_least(era, "0.5.3"):  # 0.4.10 table: cpp 2048 below 35 GiB, 8192 below 160 GiB
        cpp = 2048 if gib < 35 else (8192 if gib < 160 else 16384)
        bs = (8 if tp < 4 else 80) if gib < 35 else 160
    source = f"SGLang {era}+ capacity defaults for {gpu_mem_mib:.0f} MiB, tp {tp}"
    if cuda_graph_max_bs is None and max_running_requests is not None and max_running_requests < bs:
        bs, source = max_running_requests, source + "; graph max bs lowered to --max-running-requests"
    return CapacityDefaults(
        chunked_prefill_size=chunked_prefill_size if chunked_prefill_size is not None else cpp,
        cuda_graph_max_bs=cuda_graph_max_bs if cuda_graph_max_bs is not None else bs, source=source)


def _small_gpu_bs(era: str, tp: int) -> int:
    """Decode graph max bs for 20–35 GiB GPUs: 16/80 (0.5.3), 24/80 (0.5.10), 48/160 (0.5.15+)."""
    if era_at_least(era, "0.5.15"):
        return 48 if tp < 4 else 160
    if era_at_least(era, "0.5.10"):
        return 24 if tp < 4 else 80
    return 16 if tp < 4 else 80


@lru_cache(maxsize=64)
def prefill_capture_sizes(max_bs: int) -> tuple[int, ...]:
    """Prefill CUDA-graph token sizes up to ``max_bs`` (spec §4.1; always includes ``max_bs``)."""
    steps = ((4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64), (1280, 4096, 256))
    sizes = [s for lo, hi, step in steps for s in range(lo, hi + 1, step) if s <= max_bs]
    sizes += list(range(4608, max_bs + 1, 512))
    if max_bs > 0 and max_bs not in sizes:
        sizes.append(max_bs)
    return tuple(sizes)


def graph_reserve_mib(era: str, *, max_bs: int, cpp: int, is_mla: bool) -> float:
    """CUDA-graph term of the reserve (``reserve_for_graph_mb``), MiB."""
    decode = 2 * max_bs
    if not era_at_least(era, "0.5.10"):
        return decode
    if is_mla:
        return decode + 1536
    prefill_max_bs = cpp if cpp > 0 else 16384  # prefill graphs go up to the chunk size
    return decode + 8 * len(prefill_capture_sizes(prefill_max_bs))


def slack_estimate_mib(era: str, *, tp: int, pp: int, cpp: int, max_bs: int, is_mla: bool,
                       gpu_mem_mib: float) -> float:
    """SGLang's own estimate of activations + CUDA graphs + overhead (MiB), the formula-era reserve."""
    activation_tokens = max(cpp if cpp > 0 else 16384, 2048)
    reserved = 512 + 1.5 * activation_tokens + tp * pp / 8 * 1024
    reserved += graph_reserve_mib(era, max_bs=max_bs, cpp=cpp, is_mla=is_mla)
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10240)
    return reserved


def default_mem_fraction(era: str, *, gpu_mem_mib: float, tp: int, pp: int, cpp: int, max_bs: int,
                         is_mla: bool) -> FractionChoice:
    """SGLang's default ``mem_fraction_static`` for this era and capacity (spec §4)."""
    if era in _TP_TABLES or (era == "0.4.6" and gpu_mem_mib <= 81920):
        table = _TP_TABLES.get(era, _TP_TABLES["0.4.3"])
        value = next(f for min_tp, f in table if tp >= min_tp)
        return FractionChoice(value=value, reserved_mib=None, source=f"SGLang {era} default by tp={tp}")
    if era == "0.4.6":
        reserved = 13 * 1024
        return _formula(gpu_mem_mib, reserved, f"SGLang 0.4.6 default: (gpu − 13 GiB) / gpu", ndigits=None)
    if era == "0.4.10":
        reserved = _reserved_0410_gib(gpu_mem_mib / 1024, tp * pp) * 1024
        return _formula(gpu_mem_mib, reserved, "SGLang 0.4.10 default: capacity-class reserve")
    reserved = slack_estimate_mib(era, tp=tp, pp=pp, cpp=cpp, max_bs=max_bs, is_mla=is_mla, gpu_mem_mib=gpu_mem_mib)
    return _formula(gpu_mem_mib, reserved,
                    f"SGLang {era}+ default: reserve {reserved:.0f} MiB = 512 + 1.5×max(cpp {cpp}, 2048) + "
                    f"tp×pp/8×1024 + graphs (max bs {max_bs}){', 10 GiB floor' if reserved == 10240 else ''}")


def _reserved_0410_gib(gib: float, p: int) -> float:
    if gib < 35:
        return 2.8 + p / 10
    if gib < 90:
        return 9.5 + p / 2
    if gib < 160:
        return 12 + p / 2
    return 32


def _formula(gpu_mem_mib: float, reserved_mib: float, source: str, ndigits: int | None = 3) -> FractionChoice:
    value = (gpu_mem_mib - reserved_mib) / gpu_mem_mib
    value = round(value, ndigits) if ndigits is not None else value
    return FractionChoice(value=value, reserved_mib=reserved_mib,
                          source=f"{source} → f = (gpu {gpu_mem_mib:.0f} − {reserved_mib:.0f}) / gpu = {value:.3f}")
