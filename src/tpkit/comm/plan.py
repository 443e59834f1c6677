"""Which all-reduce backends ``AllReduce.create`` would start, and their buffers as ledger lines (pure).

The planner (``tpkit plan --tpkit-allreduce SIZE``) charges tpkit's all-reduce buffers before launch:

    plan_allreduce(world_size=4, max_bytes=MiB(8), topology=Topology.from_catalog(gpu, num_gpus=4), env={})
    → started (one_shot, one_shot_pull, two_shot, …), skipped, lines (all-reduce one_shot buffers, …)

A backend starts when ``comm.registry.device_reason`` and ``startup_reason`` let it (the very rules
``AllReduce.create`` applies; a GPU group never starts gloo); NCCL allocates nothing of its own here.  The sizes are
``comm.ledger``'s, the same function the started backends' ``ledger_lines()`` call.  What the planner cannot know (a
Triton or torch build that fails at start-up, ``BackendUnavailable``) is assumed to work: the plan charges the buffers.

The group is GPUs ``0 .. world_size−1`` of ``topology`` (a ``hardware.topology.Topology``: a machine
profile, or the catalog's assumption).  The older keywords describe it without a ``Topology``:

- ``full_nvlink=None``: a GPU with NVLink (``gpu_has_nvlink``) is taken as a full NVLink mesh (HGX board);
  one without as PCIe;
- ``p2p=None``: CUDA peer access is taken as available between the GPUs of the group (one node).

Each line's source says which of these facts were assumed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tpkit.records import dataclass
import tpkit.comm.registry as registry
from tpkit.comm.env import parse_env
from tpkit.comm.ledger import allreduce_buffer_lines
from tpkit.errors import PlanInputError
from tpkit.hardware.topology import GroupTopology, Topology
from tpkit.memory.ledger import LineItem
from tpkit.units import Bytes, format_bytes

__all__ = ["AllReducePlan", "plan_allreduce", "planned_allreduce_lines", "describe_skipped", "topology_note"]


@dataclass(frozen=True, kw_only=True, slots=True)
class AllReducePlan:
    """What ``AllReduce.create`` would do on one group, predicted before launch."""

    world_size: int
    """ranks in the group (count)"""
    topology: GroupTopology
    """the links the prediction assumed"""
    topology_note: str
    """the topology in words, with what was assumed rather than measured"""
    started: tuple[str, ...]
    """backends that would start (peer-memory ones and nccl), in registry order"""
    skipped: tuple[tuple[str, str], ...]
    """(backend, why) for peer-memory backends the start-up rules skip"""
    lines: tuple[LineItem, ...]
    """one "use" line per started backend that allocates device memory"""


def topology_note(group: GroupTopology) -> str:
    """The group's links in words, naming what was assumed rather than measured (or given: ``tpkit plan --link``,
    ``--no-p2p``, ``--nnodes`` or a log's lines, ``tpkit.startup.links``)."""
    given = group.source.split(", in place of: ")[0] if ", in place of: " in group.source else None
    how = f"({given})" if given else "(measured)"
    if "nvlink" in group.assumed:
        link = ("NVLink GPU assumed to be a full NVLink mesh (HGX)" if group.full_nvlink
                else "GPU without NVLink: PCIe assumed")
    else:
        link = f"full NVLink mesh {how}" if group.full_nvlink else f"no full NVLink mesh {how}"
    if "p2p" in group.assumed:
        peer = "CUDA P2P assumed" if group.p2p else "no CUDA P2P assumed"
    else:
        peer = f"CUDA P2P {how}" if group.p2p else f"no CUDA P2P {how}"
    nodes = "one node" if group.num_nodes == 1 else f"{group.num_nodes} nodes"
    return f"{nodes}, {link}, {peer}"


def _keyword_topology(world_size: int, gpu_has_nvlink: bool | None, full_nvlink: bool | None, p2p: bool | None,
                      compute_capability) -> Topology:
    if gpu_has_nvlink is None and full_nvlink is None:
        raise PlanInputError("plan_allreduce needs topology=Topology(...) or gpu_has_nvlink=True/False; "
                             "pass Topology.from_catalog(gpu, num_gpus=...) when nothing was measured")
    assumed = {"nvlink"} if full_nvlink is None else set()
    if p2p is None:
        assumed.add("p2p")
    nvlink = bool(gpu_has_nvlink) if full_nvlink is None else bool(full_nvlink)
    return Topology.uniform(world_size, nvlink=nvlink, p2p=True if p2p is None else bool(p2p),
                            compute_capability=compute_capability, source="plan_allreduce keywords",
                            assumed=frozenset(assumed))


def plan_allreduce(*, world_size: int, max_bytes: Bytes, env: Mapping[str, str], topology: Topology | None = None,
                   gpu_has_nvlink: bool | None = None, full_nvlink: bool | None = None,
                   compute_capability: tuple[int, int] | None = None, p2p: bool | None = None,
                   backends: Iterable[str] | None = None) -> AllReducePlan:
    """Predict ``AllReduce.create(group, max_bytes=…, backends=…)`` on a ``world_size`` group.

    ``env`` is read as ``AllReduce.create`` reads it (``TPKIT_ALLREDUCE_FORCE_PCIE`` matters here; a bad
    value raises ``ConfigError``).  Raises ``PlanInputError`` for a world size < 1, a size ≤ 0, an unknown
    backend name, or a ``topology`` with fewer GPUs than the group.
    """
    names = _check(world_size, max_bytes, backends)
    cenv = parse_env(env)
    if topology is None:
        topology = _keyword_topology(world_size, gpu_has_nvlink, full_nvlink, p2p, compute_capability)
    if topology.num_gpus < world_size:
        raise PlanInputError(f"the topology ({topology.source}) has {topology.num_gpus} GPUs but the all-reduce "
                             f"group needs {world_size}; lower --tp or describe a machine with more GPUs")
    group = topology.group(range(world_size))
    note = topology_note(group)
    started, skipped = [], []
    for name in names:
        why = (registry.device_reason(name, group.device)
               or registry.startup_reason(name, world_size=world_size, topology=group, force_pcie=cenv.force_pcie))
        if why is None:
            started.append(name)
        elif registry.row(name).peer_memory:
            skipped.append((name, why))
    lines = tuple(_with_context(line, world_size, note)
                  for line in allreduce_buffer_lines(world_size, max_bytes, started))
    return AllReducePlan(world_size=world_size, topology=group, topology_note=note, started=tuple(started),
                         skipped=tuple(skipped), lines=lines)


def planned_allreduce_lines(**kwargs) -> tuple[LineItem, ...]:
    """The buffers tpkit's ``AllReduce`` would allocate on each GPU of the group, as ledger "use" lines.

    Same keywords as ``plan_allreduce``.  World size 1 gives nothing; peer-memory backends the start-up rules
    skip (more than 2 GPUs without a full NVLink mesh unless ``TPKIT_ALLREDUCE_FORCE_PCIE=1``, no P2P, compute
    capability < 8.0 or unknown, world size > 8) give nothing either.
    """
    return plan_allreduce(**kwargs).lines


def _check(world_size: int, max_bytes: Bytes, backends: Iterable[str] | None) -> tuple[str, ...]:
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise PlanInputError(f"all-reduce world size must be a whole number ≥ 1, got {world_size!r}; "
                             "pass the TP size of the group")
    if not isinstance(max_bytes, Bytes) or max_bytes.bytes <= 0:
        raise PlanInputError(f"all-reduce max_bytes must be a size > 0 such as MiB(8), got {max_bytes!r}; "
                             "it is the largest message the custom kernels take")
    names = registry.names() if backends is None else tuple(backends)
    for name in names:
        registry.row(name)
    return names


def _with_context(line: LineItem, world_size: int, note: str) -> LineItem:
    return LineItem(item=line.item, bytes=line.bytes, kind=line.kind,
                    source=f"{line.source}; tpkit AllReduce on the TP group of {world_size} ({note})")


def describe_skipped(plan: AllReducePlan) -> str:
    """One line: which peer-memory backends would not start and why, grouped by reason ("" when all start)."""
    if not plan.skipped or plan.world_size < 2:
        return ""
    total = sum((l.bytes for l in plan.lines), Bytes(0))
    reasons: dict[str, list[str]] = {}
    for name, why in plan.skipped:
        reasons.setdefault(why, []).append(name)
    parts = "; ".join(f"{', '.join(names)} ({why})" for why, names in reasons.items())
    return (f"tpkit all-reduce at world size {plan.world_size} ({plan.topology_note}): skipped {parts}; "
            f"charged {format_bytes(total)} of buffers")
