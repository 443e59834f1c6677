"""The topology the planner assumes for a plan: the probed links of a machine profile, else the GPU catalog's
assumption (an NVLink GPU sits in a full NVLink mesh, an HGX board), either one overridden by what the user says
(``tpkit plan --link nvlink|pcie --p2p|--no-p2p --nnodes N``) or what a log printed (``LinkChoice``).

The catalog's assumption for GPUs without an NVLink mesh follows the GPU's sourced ``pcie_p2p`` fact
(``scripts/gpu_p2p.py``): GeForce boards and the cloud-rented A10 / A10G / L4 / T4 get no CUDA peer access, so a plan at
tp × pp > 1 takes the start-up rows for no peer access (vLLM ≥ 0.11: the world-1 ``vllm_nontorch_growth`` row,
``engines.vllm.baseline.profile_nontorch_growth``; both engines: no custom all-reduce buffers,
``startup.custom_allreduce``), as ``--no-p2p`` does; ``catalog_p2p_note`` says so in the plan.

The questions themselves (full NVLink mesh? peer access? how many hosts? lowest compute capability?) are answered
by :meth:`tpkit.hardware.topology.Topology.group`, the one place they are decided.  Everything that reads the links
of a plan (the start-up NCCL row, the engines' custom all-reduce buffers, tpkit's own all-reduce buffers) gets
them here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec, is_nvidia
from tpkit.hardware.topology import GroupTopology, Topology
from tpkit.records import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["LINKS", "LinkChoice", "link_choice", "plan_topology", "group_links", "links_note", "catalog_p2p_note"]

LINKS = ("nvlink", "pcie")
"""values of ``--link`` (the same as ``tpkit perf --link``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class LinkChoice:
    """What the user (flags) or a log says about the GPUs' links; a field left None is not said, and the machine
    profile's or the catalog's value stands for it."""

    link: str | None = None
    """``"nvlink"``: every pair of GPUs is linked by NVLink (peer access follows); ``"pcie"``: no NVLink mesh"""
    p2p: bool | None = None
    """False: no CUDA peer access between the GPUs (VMs, one GPU per container, boards whose driver turns it off);
    NCCL's NVLink transport is peer access, so the GPUs then count as linked by neither.  True (``--p2p``): the GPUs
    of one host have peer access where the catalog says they have none (two GeForce boards joined by an NVLink
    bridge, a patched driver)"""
    nnodes: int = 1
    """hosts the GPUs span (count)"""
    gpus_per_node: int | None = None
    """GPUs on each host (count); GPU i sits on host i // gpus_per_node, as both engines place their ranks (TP
    innermost); None with one host"""
    source: str = "flag"
    """where it was said: ``"flag"`` or a log line"""

    def __post_init__(self) -> None:
        if self.link is not None and self.link not in LINKS:
            raise PlanInputError(f"--link must be one of {', '.join(LINKS)}, got {self.link!r}")
        if self.p2p not in (None, True, False):
            raise PlanInputError(f"p2p must be True, False or None, got {self.p2p!r}")
        if isinstance(self.nnodes, bool) or not isinstance(self.nnodes, int) or self.nnodes < 1:
            raise PlanInputError(f"--nnodes must be a whole number ≥ 1 (the hosts the GPUs span), got "
                                 f"{self.nnodes!r}")
        per = self.gpus_per_node
        if per is not None and (isinstance(per, bool) or not isinstance(per, int) or per < 1):
            raise PlanInputError(f"GPUs per node must be a whole number ≥ 1, got {per!r}")
        if self.nnodes > 1 and per is None:
            raise PlanInputError("--nnodes > 1 needs the GPUs per node (tpkit.startup.links.link_choice gives them)")
        if self.link == "nvlink" and self.p2p is False:
            raise PlanInputError("--link nvlink with --no-p2p: GPUs linked by NVLink have CUDA peer access; drop "
                                 "--no-p2p, or use --link pcie --no-p2p for GPUs without peer access")

    @property
    def empty(self) -> bool:
        return self.link is None and self.p2p is None and self.nnodes == 1

    def flags(self) -> str:
        """The tpkit plan flags that say the same, e.g. ``"--link pcie --no-p2p"``."""
        out = [f"--link {self.link}"] if self.link else []
        out += ["--no-p2p"] if self.p2p is False else ["--p2p"] if self.p2p is True else []
        out += [f"--nnodes {self.nnodes}"] if self.nnodes > 1 else []
        return " ".join(out)


def link_choice(*, link: str | None = None, no_p2p: bool = False, nnodes: int | None = None, num_gpus: int,
                source: str = "flag", p2p: bool = False) -> LinkChoice | None:
    """The ``LinkChoice`` for the flags ``--link``, ``--p2p`` / ``--no-p2p`` and ``--nnodes`` on a deployment of
    ``num_gpus`` GPUs spread evenly over the nodes (None when none is given).  Bad values raise
    ``PlanInputError``."""
    if p2p and no_p2p:
        raise PlanInputError("--p2p and --no-p2p contradict each other: give --p2p when the GPUs have CUDA peer "
                             "access (an NVLink bridge, a patched driver), --no-p2p when they have none, or neither "
                             "for the GPU catalog's fact")
    if link is None and not no_p2p and not p2p and nnodes in (None, 1):
        return None
    n = 1 if nnodes is None else nnodes
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise PlanInputError(f"--nnodes must be a whole number ≥ 1 (the hosts the GPUs span), got {nnodes!r}")
    if n > num_gpus or num_gpus % n:
        fits = ", ".join(str(d) for d in range(1, num_gpus + 1) if num_gpus % d == 0)
        gpus = "the 1 GPU" if num_gpus == 1 else f"the {num_gpus} GPUs"
        here = f"one of {fits}" if num_gpus > 1 else "1"
        raise PlanInputError(f"--nnodes {n} does not split {gpus} of the deployment evenly: give a "
                             f"node count that divides --num-gpus (default tp×pp×dp; here {here}), or raise "
                             "--num-gpus (or --tp) to every GPU of every node")
    return LinkChoice(link=link, p2p=False if no_p2p else True if p2p else None, nnodes=n,
                      gpus_per_node=num_gpus // n if n > 1 else None, source=source)


def plan_topology(gpu: GpuSpec, machine: MachineProfile | None, num_gpus: int,
                  choice: LinkChoice | None = None) -> Topology:
    """The machine profile's measured links (a matrix it lacks assumed from ``gpu``'s catalog entry), else the
    catalog's assumption for ``num_gpus`` GPUs of type ``gpu``; what ``choice`` says replaces either."""
    if machine is None:
        topo = Topology.from_catalog(gpu, num_gpus=num_gpus)
    else:
        topo = Topology.from_machine_profile(machine, fallback_gpu=gpu)
    if choice is None or choice.empty:
        return topo
    return _override(topo, gpu, choice)


def group_links(gpu: GpuSpec, machine: MachineProfile | None, members: Sequence[int],
                choice: LinkChoice | None = None) -> GroupTopology:
    """Links of the TP group made of profile positions ``members`` (CUDA order), for ``gpu``."""
    members = list(members)
    if machine is None and members:
        # the catalog's links are the same for every pair; only the hosts depend on where the GPUs sit: describe
        # the members alone (a DP group of a 16,384-GPU plan is 1,024 GPUs, not a 16,384² matrix)
        if choice is None or choice.empty:
            # one pair answers for every pair of a uniform single-host topology (same links, same source): the
            # group of 2 is the group of any n ≥ 2 without building an n² matrix; a lone GPU stays a group of 1
            return Topology.from_catalog(gpu, num_gpus=min(len(members), 2)).group()
        return _override(Topology.from_catalog(gpu, num_gpus=len(members)), gpu, choice, positions=members).group()
    return plan_topology(gpu, machine, max(members, default=0) + 1, choice).group(members)


def links_note(links: GroupTopology) -> str:
    """Which links a plan assumed and from where (flag / log / probe / catalog), for a ledger line's source."""
    return f"TP group {links.describe()}, from {links.source}" if links.source else f"TP group {links.describe()}"


def _override(topo: Topology, gpu: GpuSpec, choice: LinkChoice, positions: Sequence[int] | None = None) -> Topology:
    """``topo`` with what ``choice`` says in place of its measured or assumed facts; ``positions``: each GPU's
    index in the deployment (default its index in ``topo``), which places it on its host."""
    n = topo.num_gpus
    positions = range(n) if positions is None else positions
    if choice.link == "nvlink" and gpu.nvlink_gbps_per_direction is None and is_nvidia(gpu.vendor):
        raise PlanInputError(f"--link nvlink: {gpu.name} has no NVLink in the catalog; use --link pcie (or name the "
                             "NVLink variant of the GPU with --gpu, see --list-gpus; for two boards joined by an "
                             "NVLink bridge, which gives them CUDA peer access, use --p2p)")
    nodes = tuple(p // choice.gpus_per_node for p in positions) if choice.nnodes > 1 else topo.nodes

    def same_host(i: int, j: int) -> bool:
        return not nodes or nodes[i] == nodes[j]

    def nvlink(i: int, j: int):
        if i == j or choice.p2p is False:  # NCCL's NVLink transport is CUDA peer access: without it, none
            return 0
        if choice.link == "nvlink":  # across hosts too: a multi-node NVLink domain (MNNVL)
            return topo.nvlink_links[i][j] or None
        if choice.link == "pcie" or not same_host(i, j):
            return 0
        return topo.nvlink_links[i][j]

    def p2p(i: int, j: int) -> bool:
        if choice.p2p is False:
            return False
        if not same_host(i, j):
            return choice.link == "nvlink"
        return True if choice.link == "nvlink" or choice.p2p is True else topo.p2p_access[i][j]

    assumed = set(topo.assumed)
    if choice.link is not None or choice.p2p is False:
        assumed.discard("nvlink")
    if choice.p2p is not None or choice.link == "nvlink":
        assumed.discard("p2p")
    said = choice.flags() if choice.source == "flag" else f"{choice.flags()} as the log says ({choice.source})"
    return replace(topo, nvlink_links=tuple(tuple(nvlink(i, j) for j in range(n)) for i in range(n)),
                   p2p_access=tuple(tuple(p2p(i, j) for j in range(n)) for i in range(n)), nodes=nodes,
                   assumed=frozenset(assumed), source=f"{said}, in place of: {topo.source}")


def catalog_p2p_note(gpu: GpuSpec, world: int, machine: MachineProfile | None = None,
                     choice: LinkChoice | None = None) -> tuple[str, ...]:
    """The plan's sentence for a TP × PP group of ``world`` GPUs that the GPU catalog's ``pcie_p2p`` fact leaves
    without CUDA peer access (empty when the group has one GPU, a machine profile or ``--p2p`` / ``--no-p2p`` / a
    log says whether the GPUs have peer access, or the catalog records peer access; ``--link pcie`` and
    ``--nnodes`` leave the question to the catalog)."""
    if world < 2 or machine is not None or (choice is not None and choice.p2p is not None):
        return ()
    if gpu.nvlink_gbps_per_direction is not None or gpu.pcie_p2p is not False:
        return ()
    why = gpu.source_of("pcie_p2p").split(":")[0]
    return (f"{gpu.name} over PCIe: no CUDA peer access assumed ({why}; catalog fact pcie_p2p, sources in "
            "docs/accuracy.md §5), so the plan takes the start-up terms of --no-p2p: no custom all-reduce buffers "
            "in either engine, and in vLLM ≥ 0.11 the one-rank row of the non-torch growth during the profile "
            "(NCCL connects over host memory); pass --p2p if these GPUs do have peer access (an NVLink bridge, a "
            "patched driver)",)
