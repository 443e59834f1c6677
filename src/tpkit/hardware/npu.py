"""The NPU catalog: Huawei Ascend devices seen in tpkit's crash logs (``hardware/data/npus.json``; helper np37,
2026-12-07, issue 12).  An entry is an NPU, kept apart from the GPU catalog (``hardware.catalog``): no planner rule,
catalog sweep or total-based GPU inference sees it.  What tpkit does with one:

- ``tpkit plan --gpu <NPU>`` refuses it (:class:`NpuNotPlannedError`, an ``UnknownGpuError``: exit 2, no traceback):
  the planner's budget has CUDA-only terms (CUDA graphs, NCCL / custom all-reduce buffers, activation peaks measured
  on NVIDIA and AMD kernels) that no source gives for an NPU;
- ``tpkit explain`` uses an entry for memory only: the device whose printed total (torch_npu's 'total capacity')
  lies in the entry's band (``npu_by_total``)."""

from __future__ import annotations

import json
from functools import lru_cache

from tpkit.errors import UnknownGpuError
from tpkit.pkgdata import data_text
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["NpuSpec", "NpuNotPlannedError", "list_npus", "lookup_npu", "npu_by_total", "refuse_npu"]


@dataclass(frozen=True, kw_only=True, slots=True)
class NpuSpec:
    """One NPU of ``hardware/data/npus.json``: what tpkit knows of it (memory only; never planned with CUDA terms)."""

    name: str
    """catalog name (``Ascend-910B-64GB``)"""
    vendor: str
    """maker (``Huawei``)"""
    device_kind: str
    """``NPU``: what the words call it"""
    aliases: tuple[str, ...]
    """other spellings ``--gpu`` and logs use"""
    hbm_gb: int
    """the vendor's HBM size (GB = 10^9 B, marketing figure)"""
    total_bytes: Bytes
    """the device total torch_npu reports (B)"""
    total_band_gib: tuple[float, float]
    """(low, high) of the torch_npu total as printed with two decimals (GiB = 2^30 B)"""
    plans: str
    """what tpkit plans on it, in words"""
    sources: tuple[tuple[str, str], ...]
    """(fact, source) pairs"""

    def words(self) -> str:
        """'Ascend-910B-64GB (a Huawei NPU, 64 GB HBM; torch_npu total 60.955–60.975 GiB)'."""
        low, high = self.total_band_gib
        return (f"{self.name} (a {self.vendor} {self.device_kind}, {self.hbm_gb} GB HBM; torch_npu total "
                f"{low:.3f}–{high:.3f} GiB)")


class NpuNotPlannedError(UnknownGpuError):
    """``tpkit plan`` named an NPU: refused plainly (exit 2), never planned with CUDA terms."""


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


@lru_cache(maxsize=1)
def _npus() -> tuple[NpuSpec, ...]:
    raw = json.loads(data_text(__file__, __package__, "npus.json"))["npus"]
    return tuple(NpuSpec(name=r["name"], vendor=r["vendor"], device_kind=r["device_kind"],
                         aliases=tuple(r["aliases"]), hbm_gb=int(r["hbm_gb"]), total_bytes=Bytes(int(r["total_bytes"])),
                         total_band_gib=(float(r["total_band_gib"][0]), float(r["total_band_gib"][1])),
                         plans=r["plans"], sources=tuple(sorted(r["sources"].items()))) for r in raw)


def list_npus() -> tuple[NpuSpec, ...]:
    """Every NPU in the catalog, in file order."""
    return _npus()


def lookup_npu(name: str) -> NpuSpec | None:
    """The NPU called ``name`` (its name or an alias, case-, space- and dash-insensitive), else None."""
    if not isinstance(name, str) or not name.strip():
        return None
    key = _key(name)
    return next((n for n in _npus() if key in {_key(a) for a in (n.name, *n.aliases)}), None)


def npu_by_total(total: Bytes | None) -> NpuSpec | None:
    """The one NPU whose printed-total band holds ``total`` (torch_npu's 2-decimal 'total capacity'), else None."""
    if total is None:
        return None
    gib = total.bytes / 2**30
    hits = [n for n in _npus() if n.total_band_gib[0] <= gib <= n.total_band_gib[1]]
    return hits[0] if len(hits) == 1 else None


def refuse_npu(name: str) -> None:
    """Raise :class:`NpuNotPlannedError` where ``name`` is a catalog NPU; return otherwise."""
    npu = lookup_npu(name)
    if npu is None:
        return
    raise NpuNotPlannedError(
        f"{name!r} is {npu.words()}: tpkit does not plan an NPU run — its planner's budget has CUDA-only terms (CUDA "
        "graphs, NCCL and custom all-reduce buffers, activation peaks measured on NVIDIA and AMD kernels) that no "
        "source gives for an Ascend NPU; tpkit explain reads an NPU's out-of-memory log for memory only (the "
        "printed device total and the OOM's own sizes). To size the pool by hand, start from the device total "
        f"{npu.total_band_gib[0]:.3f}–{npu.total_band_gib[1]:.3f} GiB and the vendor back end's own memory flags")
