"""``Topology``: how the GPUs of one machine are linked, and the one place that answers questions about a
group of them (pure: no torch, no NVML).

    topo = Topology.from_machine_profile(profile, where="machine.json")   # measured by ``tpkit probe``
    topo = Topology.from_catalog(gpu, num_gpus=4)                         # assumed from the GPU's catalog entry
    topo = tpkit.runtime.topology.probe_topology()                       # probed now (NVML + torch)
    g = topo.group((0, 1, 2, 3))
    g.full_nvlink, g.p2p, g.min_nvlink_links, g.compute_capability

Labels follow ``nvidia-smi topo -m``:

    X     the GPU itself
    NV#   connected by # NVLink links
    PIX   at most one PCIe bridge between them
    PXB   several PCIe bridges, no host bridge
    PHB   through a PCIe host bridge (the CPU)
    NODE  across host bridges within one NUMA node
    SYS   across the inter-socket link (QPI/UPI/xGMI)
    INT   on one board (NVML "internal")
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tpkit.errors import RuntimeSetupError
from tpkit.records import dataclass

__all__ = [
    "Topology",
    "GroupTopology",
    "PCIE_LEVEL_LABELS",
    "pcie_label",
    "path_label",
    "path_matrix",
    "check_square",
    "is_full_nvlink",
    "all_peer_access",
]

PCIE_LEVEL_LABELS: dict[int, str] = {0: "INT", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}
"""NVML ``nvmlGpuTopologyLevel_t`` value → nvidia-smi topo label"""

ASSUMABLE = frozenset({"nvlink", "p2p", "compute_capability"})
"""facts a ``Topology`` may hold as assumptions rather than measurements"""


@dataclass(frozen=True, kw_only=True, slots=True)
class GroupTopology:
    """The answers for one group of GPUs (made only by :meth:`Topology.group`)."""

    full_nvlink: bool
    """every pair of the group has at least one NVLink link"""
    p2p: bool
    """every pair can map the other's memory (CUDA peer access; a full NVLink mesh implies it)"""
    compute_capability: tuple[int, int] | None
    """the lowest (major, minor) in the group; None when any GPU's is unknown (or the ranks are CPUs)"""
    min_nvlink_links: int | None = None
    """the fewest NVLink links between two GPUs of the group (count); None when a count is unknown"""
    num_nodes: int = 1
    """hosts the group spans (count); peer-memory kernels need 1"""
    device: str = "cuda"
    """``"cuda"`` for GPUs, ``"cpu"`` for CPU ranks (gloo)"""
    source: str = ""
    """where the facts came from: probed, a machine profile, or a catalog assumption"""
    assumed: frozenset[str] = frozenset()
    """which of ``nvlink``, ``p2p``, ``compute_capability`` were assumed rather than measured"""

    def __post_init__(self) -> None:
        if isinstance(self.num_nodes, bool) or not isinstance(self.num_nodes, int) or self.num_nodes < 1:
            raise RuntimeSetupError(f"num_nodes must be a whole number ≥ 1, got {self.num_nodes!r}")

    def describe(self) -> str:
        """One line, e.g. ``"1 node, full NVLink, P2P"``."""
        if self.device != "cuda":
            return f"{self.device.upper()} ranks, no GPU links"
        link = ("full NVLink" if self.full_nvlink else "no full NVLink mesh (PCIe)" if self.num_nodes == 1
                else "no NVLink between the nodes (network)")
        p2p = "P2P" if self.p2p else "no P2P"
        nodes = f"{self.num_nodes} node" + ("s" if self.num_nodes != 1 else "")
        return f"{nodes}, {link}, {p2p}"


@dataclass(frozen=True, kw_only=True, slots=True)
class Topology:
    """Links between the GPUs of one machine (or of the hosts a process group spans), indexed by GPU."""

    nvlink_links: tuple[tuple[int | None, ...], ...]
    """[i][j] NVLink links between GPU i and j (count; 0 = none; None = linked, count unknown)"""
    p2p_access: tuple[tuple[bool, ...], ...]
    """[i][j] GPU i can map GPU j's memory (CUDA peer access)"""
    compute_capability: tuple[tuple[int, int] | None, ...]
    """(major, minor) per GPU; None = unknown"""
    source: str
    """``"probed"``, ``"machine profile FILE"``, ``"catalog: GPU X assumed a full NVLink mesh"`` …"""
    pcie_path: tuple[tuple[str, ...], ...] = ()
    """[i][j] nvidia-smi topo label (X, NV#, PIX … SYS); () when not known"""
    nodes: tuple[int, ...] = ()
    """host of each GPU (any id; () = all on one host)"""
    device: str = "cuda"
    """``"cuda"``, or ``"cpu"`` for CPU ranks (no links at all)"""
    assumed: frozenset[str] = frozenset()
    """facts assumed rather than measured (``nvlink``, ``p2p``, ``compute_capability``)"""

    def __post_init__(self) -> None:
        n = len(self.compute_capability)
        check_square(self.nvlink_links, n, "nvlink_links")
        check_square(self.p2p_access, n, "p2p_access")
        if self.pcie_path:
            check_square(self.pcie_path, n, "pcie_path")
        if self.nodes and len(self.nodes) != n:
            raise RuntimeSetupError(f"nodes must name one host per GPU ({n}), got {len(self.nodes)}")
        if not self.assumed <= ASSUMABLE:
            raise RuntimeSetupError(f"assumed facts {sorted(self.assumed - ASSUMABLE)} are unknown; "
                                    f"use {sorted(ASSUMABLE)}")

    @property
    def num_gpus(self) -> int:
        """GPUs (or CPU ranks) described (count)."""
        return len(self.compute_capability)

    def group(self, ranks: Iterable[int] | None = None) -> GroupTopology:
        """The answers for GPUs ``ranks`` (indices; default all): the only place they are decided."""
        members = _members(self.num_gpus, ranks)
        pairs = [(i, j) for i in members for j in members if i != j]
        links = [self.nvlink_links[i][j] for i, j in pairs]
        full = all(v is None or v > 0 for v in links)
        p2p = full or all(self.p2p_access[i][j] for i, j in pairs)
        ccs = [self.compute_capability[i] for i in members]
        cc = None if self.device != "cuda" or not ccs or any(c is None for c in ccs) else min(ccs)
        nodes = {self.nodes[i] for i in members} if self.nodes else {0}
        return GroupTopology(
            full_nvlink=full and self.device == "cuda", p2p=p2p and self.device == "cuda", compute_capability=cc,
            min_nvlink_links=None if any(v is None for v in links) else min(links, default=0),
            num_nodes=len(nodes), device=self.device, source=self.source, assumed=self.assumed)

    @classmethod
    def from_machine_profile(cls, profile, *, where: str | None = None, fallback_gpu=None) -> "Topology":
        """The links ``tpkit probe`` measured (a ``MachineProfile``).

        A matrix the profile lacks is taken from ``fallback_gpu``'s catalog entry (``GpuSpec``) when given, as
        :meth:`from_catalog` assumes it; without one, the safe answer: no NVLink, no P2P.  So is a GPU's
        unknown compute capability.
        """
        n = len(profile.gpus)
        guess = cls.from_catalog(fallback_gpu, num_gpus=n) if fallback_gpu is not None else None
        notes, assumed = [], set()
        links = _from_profile(profile.nvlink_links, guess and guess.nvlink_links, _matrix(n, 0))
        if not profile.nvlink_links:
            notes.append(f"no NVLink matrix in it ({guess.source if guess else 'no NVLink assumed'})")
            assumed.add("nvlink")
        p2p = _from_profile(profile.p2p_access, guess and guess.p2p_access, _matrix(n, False))
        if not profile.p2p_access:
            peer = guess is not None and all(all(row) for row in guess.p2p_access)
            notes.append("no P2P matrix in it (" + ("CUDA P2P assumed" if peer else "no CUDA P2P assumed") + ")")
            assumed.add("p2p")
        ccs = tuple(g.compute_capability if g.compute_capability is not None
                    else (fallback_gpu.compute_capability if fallback_gpu is not None else None)
                    for g in profile.gpus)
        if any(g.compute_capability is None for g in profile.gpus):
            assumed.add("compute_capability")
        source = f"machine profile {where}" if where else "machine profile"
        return cls(nvlink_links=links, p2p_access=p2p, compute_capability=ccs, pcie_path=tuple(profile.pcie_path),
                   source="; ".join([source, *notes]), assumed=frozenset(assumed))

    @classmethod
    def from_catalog(cls, gpu, *, num_gpus: int) -> "Topology":
        """What the catalog lets us assume for ``num_gpus`` GPUs of type ``gpu`` (a ``GpuSpec``) in one node.

        A GPU with NVLink is taken as a full NVLink mesh (an HGX board; link counts unknown); one without as
        PCIe.  CUDA peer access is taken as available, except over PCIe for a GPU whose catalog entry records none
        (``GpuSpec.pcie_p2p`` False: GeForce boards, the cloud-rented A10 / A10G / L4 / T4; sources in
        ``scripts/gpu_p2p.py``).
        """
        nvlink = gpu.nvlink_gbps_per_direction is not None
        p2p = nvlink or getattr(gpu, "pcie_p2p", None) is not False
        source = (f"catalog: GPU {gpu.name} assumed a full NVLink mesh" if nvlink
                  else f"catalog: GPU {gpu.name} has no NVLink, PCIe assumed" if p2p
                  else f"catalog: GPU {gpu.name} has no NVLink, PCIe assumed, and no CUDA peer access over PCIe "
                       "(catalog fact pcie_p2p)")
        return cls.uniform(num_gpus, nvlink=nvlink, p2p=p2p, compute_capability=gpu.compute_capability,
                           source=source, assumed=frozenset({"nvlink", "p2p"}))

    @classmethod
    def uniform(cls, num_gpus: int, *, nvlink: bool, p2p: bool, compute_capability: tuple[int, int] | None,
                source: str, assumed: frozenset[str] = frozenset()) -> "Topology":
        """``num_gpus`` identical GPUs, every pair linked alike (NVLink: count unknown)."""
        if isinstance(num_gpus, bool) or not isinstance(num_gpus, int) or num_gpus < 1:
            raise RuntimeSetupError(f"a topology needs a whole number ≥ 1 of GPUs, got {num_gpus!r}")
        cc = tuple(compute_capability) if compute_capability is not None else None
        links = tuple(tuple(0 if i == j else (None if nvlink else 0) for j in range(num_gpus))
                      for i in range(num_gpus))
        return cls(nvlink_links=links, p2p_access=_matrix(num_gpus, bool(p2p)), compute_capability=(cc,) * num_gpus,
                   source=source, assumed=frozenset(assumed))

    @classmethod
    def cpu(cls, num_ranks: int) -> "Topology":
        """CPU ranks (gloo): no GPU, no links."""
        return cls(nvlink_links=_matrix(num_ranks, 0), p2p_access=_matrix(num_ranks, False),
                   compute_capability=(None,) * num_ranks, source="CPU ranks", device="cpu")


def _matrix(n: int, value) -> tuple[tuple, ...]:
    return tuple(tuple(value for _ in range(n)) for _ in range(n))


def _from_profile(measured, guessed, safe):
    if measured:
        return tuple(tuple(r) for r in measured)
    return guessed if guessed is not None else safe


def _members(n: int, gpus: Iterable[int] | None) -> list[int]:
    members = list(range(n)) if gpus is None else list(gpus)
    for g in members:
        if isinstance(g, bool) or not isinstance(g, int) or not 0 <= g < n:
            raise RuntimeSetupError(f"GPU index {g!r} is outside the {n} GPUs of the topology (0..{n - 1})")
    return members


def pcie_label(level: int | None) -> str:
    """The nvidia-smi label of an NVML common-ancestor level (``"?"`` when unknown)."""
    if level is None:
        return "?"
    return PCIE_LEVEL_LABELS.get(int(level), "?")


def path_label(*, same: bool, nvlink_links: int, pcie_level: int | None) -> str:
    """One cell of ``nvidia-smi topo -m``: ``X``, ``NV<links>`` or the PCIe path label."""
    if same:
        return "X"
    if nvlink_links > 0:
        return f"NV{nvlink_links}"
    return pcie_label(pcie_level)


def path_matrix(
    nvlink_links: Sequence[Sequence[int]], pcie_levels: Sequence[Sequence[int | None]]
) -> tuple[tuple[str, ...], ...]:
    """The full label matrix from the NVLink-count and PCIe-level matrices."""
    n = len(nvlink_links)
    check_square(nvlink_links, n, "nvlink_links")
    check_square(pcie_levels, n, "pcie_levels")
    return tuple(
        tuple(path_label(same=i == j, nvlink_links=nvlink_links[i][j], pcie_level=pcie_levels[i][j]) for j in range(n))
        for i in range(n)
    )


def check_square(matrix: Sequence[Sequence[object]], n: int, what: str) -> None:
    """Raise ``RuntimeSetupError`` unless ``matrix`` is ``n × n``."""
    rows = len(matrix)
    widths = sorted({len(row) for row in matrix})
    if rows != n or any(w != n for w in widths):
        raise RuntimeSetupError(
            f"{what} must be a {n}×{n} matrix (one row and column per GPU), got {rows} rows of "
            f"widths {widths}; re-run `tpkit probe --out` to write a consistent profile"
        )


def is_full_nvlink(nvlink_links: Sequence[Sequence[int]], gpus: Sequence[int] | None = None) -> bool:
    """Transitional: ``Topology.group(gpus).full_nvlink`` over a bare NVLink matrix (use ``Topology``)."""
    n = len(nvlink_links)
    return Topology(nvlink_links=tuple(map(tuple, nvlink_links)), p2p_access=_matrix(n, False),
                    compute_capability=(None,) * n, source="matrix").group(gpus).full_nvlink


def all_peer_access(p2p_access: Sequence[Sequence[bool]], gpus: Sequence[int] | None = None) -> bool:
    """Transitional: every pair of ``gpus`` has CUDA peer access (use ``Topology.group(gpus).p2p``)."""
    n = len(p2p_access)
    return Topology(nvlink_links=_matrix(n, 0), p2p_access=tuple(map(tuple, p2p_access)),
                    compute_capability=(None,) * n, source="matrix").group(gpus).p2p
