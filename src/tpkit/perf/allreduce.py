"""Cost of one all-reduce (and all-gather) call: measured profile → shipped profile → analytical model.

    in:  message bytes, a ``Link`` (NVLink or PCIe, world size, rates), a backend, an optional profile
    out: ``ArCost(us, backend, source)``

Analytical models (constants and their sources in ``constants``):

    nccl        NCCL's own tuner model (src/graph/tuning.cc): ring all-reduce over 2(n−1) steps,
                t = baseLat[proto] + 2(n−1)·hwLat[link, proto] + S / algBw,  algBw = busBw · n / (2(n−1));
                busBw: Simple = NCCL bus bandwidth, LL = min(llMaxBw, P2P link) (tuning.cc halves the graph
                bandwidth of several channels; ≈ one link, which reproduces 24.1 µs at 64 KB and 28.0 µs at
                256 KB measured on 8× RTX PRO 6000), LL128 (NVLink only) = 0.92·bus; the cheapest protocol
                wins, as NCCL's tuner picks it
    one-shot    every rank reads the other n−1 ranks' S bytes and reduces locally:
                NVLink (switched):  α(n) + (n−1)·S / link
                PCIe:               α_pcie + max((n−1)·S / link, n(n−1)·S / fabric)   ← all ranks read from all
                                    peers at once through the shared host bridges / switch uplinks
    two-shot    reduce-scatter + all-gather of S/n pieces: α + 2(n−1)/n · S / link (PCIe: also fabric-bound)
    symm-mem    torch symmetric-memory one-shot (NVLink only): measured 6.6 µs floor at 2 GPUs + (n−1)·S / link

xGMI (AMD Instinct MI300X / MI325X / MI355X, link kind ``xgmi``): every GPU has a dedicated Infinity Fabric link to
each of the other seven (a full mesh, no switch), so a group of n ranks has n − 1 links per rank and ``link_gbps`` is
their sum (usable = ``xgmi_efficiency`` × raw per link).  A one-shot rank reads S from each peer over its own link:
α_xgmi + S / per-link; two-shot: 1.5 α_xgmi + 2(n−1)/n · S / (n−1 links).  RCCL (the engines' fallback, and every
call with ``--disable-custom-all-reduce``) is priced from the published rccl-tests curve on 8× MI300X, not from
NCCL's tuner tables: min(LL: α_LL + 2(n−1)/n · S / (0.33 × group), Simple: α_S + 2(n−1)/n · S / (0.98 × group)).

A measured profile (``tpkit bench allreduce --json``) or the shipped 2× H200 NVLink profile replaces the
model for its world size; between measured sizes the time is interpolated linearly in bytes.
"""

from __future__ import annotations

from tpkit.errors import PlanInputError
from tpkit.perf.constants import C
from tpkit.records import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:  # the profile type only: tpkit.comm.profile loads when a profile file is given
    from tpkit.comm.profile import BenchProfile

__all__ = ["Link", "ArCost", "BACKENDS", "allreduce_cost", "allgather_cost", "make_link"]

BACKENDS = ("nccl", "custom_oneshot", "custom_twoshot", "symm_mem")
"""all-reduce implementations the model knows"""
_PROFILE_NAMES = {"nccl": ("nccl",), "custom_oneshot": ("one_shot", "one_shot_pull"),
                  "custom_twoshot": ("two_shot",), "symm_mem": ("symm_mem_one_shot", "symm_mem_two_shot")}
_NVLINK_SHIPPED_GPUS = ("H100-SXM-80GB", "H200-SXM-141GB", "H20-96GB", "H20-141GB")


@dataclass(frozen=True, kw_only=True, slots=True)
class Link:
    """The interconnect of one tensor-parallel group."""

    kind: str
    """``nvlink``, ``xgmi`` (AMD Infinity Fabric full mesh) or ``pcie``"""
    world: int
    """ranks in the group (count)"""
    link_gbps: float
    """usable bandwidth per GPU per direction (GB/s, 10^9 B/s); xGMI: the sum over the rank's n − 1 links in the
    group"""
    nccl_busbw_gbps: float
    """NCCL ring bus bandwidth with the Simple protocol (GB/s)"""
    ll_max_gbps: float
    """NCCL's LL protocol ceiling for this GPU generation (GB/s)"""
    fabric_gbps: float | None = None
    """PCIe: aggregate bandwidth of all-to-all peer reads through the host bridges/switches (GB/s)"""
    gpu: str = ""
    """catalog GPU name (decides whether the shipped profile applies)"""
    p2p: bool = True
    """CUDA peer access between the ranks: without it both engines turn their custom all-reduce off (vLLM
    ``custom_all_reduce.py`` ``CustomAllreduce.__init__`` after ``_can_p2p``, 0.4–0.34; SGLang
    ``custom_all_reduce_utils.py`` ``can_use_custom_all_reduce_with_nvlink`` after ``can_p2p``, 0.4–0.5.23; not on
    ROCm) and NCCL runs (helper ux25)"""
    notes: tuple[str, ...] = ()
    """where the rates came from"""


@dataclass(frozen=True, kw_only=True, slots=True)
class ArCost:
    """One collective call."""

    us: float
    """time per call (µs)"""
    backend: str
    """which implementation"""
    source: str
    """``measured profile FILE``, ``shipped profile …`` or ``analytical: …``"""


def make_link(*, kind: str, world: int, gpu_name: str, nvlink_gbps: float | None, pcie_gbps: float | None,
              compute_capability: tuple[int, int] | None, fabric_gbps: float | None = None,
              xgmi_gbps_per_link: float | None = None, xgmi_links: int | None = None, peer: bool = True,
              p2p_source: str = "") -> Link:
    """The link of ``world`` GPUs of one type; ``kind`` ``nvlink`` needs a GPU with NVLink, ``xgmi`` one with an
    Infinity Fabric mesh (``GpuSpec.xgmi_gbps_per_link``); ``peer`` False: PCIe GPUs without CUDA peer access
    (``p2p_source`` says why), on which no custom all-reduce runs."""
    if kind == "xgmi":
        return _xgmi_link(world, gpu_name, xgmi_gbps_per_link, xgmi_links)
    cc_major = compute_capability[0] if compute_capability else 9
    ll_max = C["nccl_ll_max_bw_hopper_gbps"].value * (2 if cc_major >= 10 else 1) if cc_major >= 9 else 87.7
    if kind == "nvlink":
        if not nvlink_gbps:
            mesh = "xgmi (its AMD Infinity Fabric mesh) or --link pcie" if xgmi_gbps_per_link else "pcie"
            raise PlanInputError(f"--link nvlink: {gpu_name} has no NVLink in the catalog; use --link {mesh}")
        eff = C["nvlink_efficiency"].value * nvlink_gbps
        return Link(kind="nvlink", world=world, link_gbps=eff, nccl_busbw_gbps=eff, ll_max_gbps=ll_max, gpu=gpu_name,
                    notes=(f"NVLink {nvlink_gbps:g} GB/s per direction × {C['nvlink_efficiency'].value} "
                           f"({C['nvlink_efficiency'].source})",))
    if not pcie_gbps:
        raise PlanInputError(f"{gpu_name} has no PCIe bandwidth in the catalog; pass a catalog GPU with --gpu")
    fabric = fabric_gbps or _default_fabric(world)
    p2p = C["pcie_p2p_efficiency"].value * pcie_gbps
    bus = C["pcie_nccl_busbw_fraction"].value * pcie_gbps
    notes = (f"PCIe {pcie_gbps:g} GB/s per direction: P2P {p2p:.1f} GB/s ({C['pcie_p2p_efficiency'].source}); NCCL "
             f"bus bandwidth {bus:.1f} GB/s", f"host fabric {fabric:g} GB/s aggregate for all-to-all peer reads"
             + ("" if fabric_gbps else f" (default: {_fabric_source(world)})"))
    if not peer and world > 1:
        notes += (f"no CUDA peer access between the {world} GPUs ({p2p_source or 'assumed'}): both engines turn "
                  "their custom all-reduce off and run NCCL, whose transport then goes through host memory (its "
                  "SHM path); priced with the PCIe NCCL model (no separate host-memory rate measured)",)
    return Link(kind="pcie", world=world, link_gbps=p2p, nccl_busbw_gbps=bus, ll_max_gbps=ll_max,
                fabric_gbps=fabric, gpu=gpu_name, notes=notes, p2p=peer)


def _xgmi_link(world: int, gpu_name: str, per_link: float | None, links: int | None) -> Link:
    """A TP group of ``world`` ranks on an xGMI full mesh: n − 1 dedicated links per rank."""
    if not per_link or not links:
        raise PlanInputError(f"--link xgmi: {gpu_name} has no xGMI (Infinity Fabric) mesh in the catalog; use "
                             "--link pcie, or a catalog AMD Instinct GPU (MI300X, MI325X, MI355X)")
    if world - 1 > links:
        raise PlanInputError(f"--link xgmi: a TP group of {world} needs {world - 1} xGMI links per GPU, {gpu_name} "
                             f"has {links} (a full mesh of {links + 1}); use --tp {links + 1} or less")
    usable = C["xgmi_efficiency"].value * per_link
    group = usable * max(world - 1, 1)
    notes = (f"xGMI full mesh: {world - 1} link(s) per rank × {per_link:g} GB/s per direction × "
             f"{C['xgmi_efficiency'].value} ({C['xgmi_efficiency'].source[:90]}…) = {group:.0f} GB/s",
             "RCCL priced from the published rccl-tests curve on 8× MI300X (ROCm blog mi300x-rccl-xgmi)")
    return Link(kind="xgmi", world=world, link_gbps=group,
                nccl_busbw_gbps=C["rccl_xgmi_busbw_fraction"].value * group,
                ll_max_gbps=C["rccl_xgmi_ll_bus_fraction"].value * group, gpu=gpu_name, notes=notes)


def _default_fabric(world: int) -> float:
    return C["pcie_fabric_gbps_4"].value if world <= 4 else C["pcie_fabric_gbps_8"].value * max(1.0, world / 8)


def _fabric_source(world: int) -> str:
    return C["pcie_fabric_gbps_4" if world <= 4 else "pcie_fabric_gbps_8"].source


def allreduce_cost(nbytes: float, link: Link, backend: str, *, profile: BenchProfile | None = None,
                   profile_name: str = "") -> ArCost:
    """µs of one all-reduce of ``nbytes`` on ``link`` with ``backend`` (0 on one rank)."""
    if backend not in BACKENDS:
        raise PlanInputError(f"unknown all-reduce backend {backend!r}; use one of {', '.join(BACKENDS)}")
    if link.world == 1 or nbytes <= 0:
        return ArCost(us=0.0, backend=backend, source="no all-reduce on one rank")
    measured = _from_profile(nbytes, link.world, backend, profile, profile_name)
    if measured is not None:
        return measured
    shipped = _shipped(nbytes, link, backend)
    if shipped is not None:
        return shipped
    us, how = _ANALYTICAL[backend](nbytes, link)
    return ArCost(us=us, backend=backend, source=f"analytical: {how}")


def allgather_cost(nbytes_total: float, link: Link) -> ArCost:
    """NCCL ring all-gather of ``nbytes_total`` (the gathered size): (n−1) steps of S/n each."""
    if link.world == 1:
        return ArCost(us=0.0, backend="nccl", source="no all-gather on one rank")
    n = link.world
    if link.kind == "xgmi":
        us = min(C["rccl_xgmi_ll_latency_us"].value + nbytes_total * (n - 1) / n / (link.ll_max_gbps * 1e9) * 1e6,
                 C["rccl_xgmi_simple_latency_us"].value
                 + nbytes_total * (n - 1) / n / (link.nccl_busbw_gbps * 1e9) * 1e6)
        return ArCost(us=us, backend="nccl", source="analytical: RCCL all-gather on an xGMI mesh (rccl-tests curve)")
    hw = C["nccl_hw_lat_nvlink_us" if link.kind == "nvlink" else "nccl_hw_lat_pci_us"].value
    lat = C["nccl_base_lat_ring_ll_us"].value + (n - 1) * hw
    bw = min(link.ll_max_gbps, link.link_gbps) * 1e9
    us = lat + nbytes_total * (n - 1) / n / bw * 1e6
    simple = C["nccl_base_lat_ring_simple_us"].value + (n - 1) * 3.4 + nbytes_total * (n - 1) / n / (
        link.nccl_busbw_gbps * 1e9) * 1e6
    return ArCost(us=min(us, simple), backend="nccl", source="analytical: NCCL ring all-gather (tuning.cc model)")


# ------------------------------------------------------------------------------------------------ analytical
def _nccl(s: float, link: Link) -> tuple[float, str]:
    if link.kind == "xgmi":
        return _rccl_xgmi(s, link)
    n, steps = link.world, 2 * (link.world - 1)
    nv = link.kind == "nvlink"
    hw = {"LL": C["nccl_hw_lat_nvlink_us" if nv else "nccl_hw_lat_pci_us"].value,
          "LL128": 1.9 if nv else 2.5, "Simple": 3.4 if nv else 5.7}
    base = {"LL": C["nccl_base_lat_ring_ll_us"].value, "LL128": C["nccl_base_lat_ring_ll128_us"].value,
            "Simple": C["nccl_base_lat_ring_simple_us"].value}
    bus = {"LL": min(link.ll_max_gbps, link.link_gbps), "LL128": 0.92 * link.nccl_busbw_gbps,
           "Simple": link.nccl_busbw_gbps}
    protos = ("LL", "LL128", "Simple") if nv else ("LL", "Simple")  # LL128 is off on PCIe by default
    times = {p: base[p] + steps * hw[p] + s / (bus[p] * 1e9 * n / steps) * 1e6 for p in protos}
    best = min(times, key=times.get)
    return times[best], f"NCCL ring/{best}, {steps} steps ({link.kind})"


def _rccl_xgmi(s: float, link: Link) -> tuple[float, str]:
    """RCCL all-reduce on an xGMI mesh: the cheaper of a small-message (LL) and a large-message (Simple) line, both
    read off the published rccl-tests graph-mode run on 8× MI300X (constants ``rccl_xgmi_*``)."""
    n = link.world
    moved = 2 * (n - 1) / n * s
    ll = C["rccl_xgmi_ll_latency_us"].value + moved / (link.ll_max_gbps * 1e9) * 1e6
    simple = C["rccl_xgmi_simple_latency_us"].value + moved / (link.nccl_busbw_gbps * 1e9) * 1e6
    best, us = ("LL", ll) if ll <= simple else ("Simple", simple)
    return us, f"RCCL/{best} on an xGMI mesh of {n} (rccl-tests curve, 8× MI300X)"


def _oneshot_alpha(link: Link) -> float:
    if link.kind == "xgmi":
        return C["xgmi_oneshot_latency_us"].value
    if link.kind == "pcie":
        return C["pcie_oneshot_latency_us"].value
    return C["nvlink_oneshot_latency_us"].value + C["nvlink_oneshot_latency_per_peer_us"].value * (link.world - 2)


def _oneshot(s: float, link: Link) -> tuple[float, str]:
    n = link.world
    own = (n - 1) * s / (link.link_gbps * 1e9) * 1e6
    if link.kind == "nvlink":
        return _oneshot_alpha(link) + own, "one-shot, each rank reads (n−1)·S over its NVLink port"
    if link.kind == "xgmi":
        return _oneshot_alpha(link) + own, "one-shot on an xGMI mesh, each rank reads S from each peer over its own link"
    fabric = n * (n - 1) * s / (link.fabric_gbps * 1e9) * 1e6
    bound = "host fabric" if fabric > own else "own PCIe link"
    return _oneshot_alpha(link) + max(own, fabric), (
        f"PCIe one-shot, all {n} ranks read (n−1)·S at once: n(n−1)·S = {n * (n - 1) * s / 1e3:.0f} KB through a "
        f"{link.fabric_gbps:g} GB/s fabric ({bound}-bound)")


def _twoshot(s: float, link: Link) -> tuple[float, str]:
    n = link.world
    own = 2 * (n - 1) / n * s / (link.link_gbps * 1e9) * 1e6
    alpha = 1.5 * _oneshot_alpha(link)
    if link.kind in ("nvlink", "xgmi"):
        return alpha + own, f"two-shot (reduce-scatter + all-gather) over {link.kind}, 1.5× the one-shot sync cost"
    fabric = 2 * (n - 1) * s / (link.fabric_gbps * 1e9) * 1e6
    return alpha + max(own, fabric), "PCIe two-shot, fabric carries 2(n−1)·S"


def _symm(s: float, link: Link) -> tuple[float, str]:
    if link.kind != "nvlink":
        return float("inf"), "torch symmetric memory needs NVLink P2P"
    n = link.world
    return 6.6 + 0.5 * (n - 2) + (n - 1) * s / (link.link_gbps * 1e9) * 1e6, \
        "torch symm-mem one-shot (6.6 µs floor measured at 2× H200)"


_ANALYTICAL = {"nccl": _nccl, "custom_oneshot": _oneshot, "custom_twoshot": _twoshot, "symm_mem": _symm}


# ------------------------------------------------------------------------------------------------ profiles
def _from_profile(nbytes, world, backend, profile, name) -> ArCost | None:
    if profile is None:
        return None
    rows = profile.rows(world)
    if not rows:
        return None
    for key in _PROFILE_NAMES[backend]:
        points = [(r.nbytes.bytes, r.time_of(key)) for r in rows if r.time_of(key) is not None]
        if points:
            return ArCost(us=_interpolate(points, nbytes), backend=backend,
                          source=f"measured profile {name or profile.source} ({key}, world size {world})")
    return None


def _shipped(nbytes, link: Link, backend) -> ArCost | None:
    if link.kind != "nvlink" or link.world != 2 or link.gpu not in _NVLINK_SHIPPED_GPUS:
        return None
    from tpkit.comm.profile import DEFAULT_PROFILE_FILE, default_profile

    found = _from_profile(nbytes, 2, backend, default_profile(), DEFAULT_PROFILE_FILE)
    if found is None:
        return None
    return ArCost(us=found.us, backend=backend, source=f"shipped profile {DEFAULT_PROFILE_FILE} (2× H200 NVLink, "
                                                         "measured)")


def _interpolate(points: list[tuple[int, float]], x: float) -> float:
    """Linear in bytes between measured sizes; flat below the first, extended by the last slope above."""
    points = sorted(points)
    if x <= points[0][0] or len(points) == 1:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    (x0, y0), (x1, y1) = points[-2], points[-1]
    return y1 + (y1 - y0) * (x - x1) / (x1 - x0)
