"""Which all-reduce backends ``AllReduce.create`` would start, and their buffers as ledger lines (pure).

The planner (``tpkit plan --tpkit-allreduce SIZE``) charges tpkit's all-reduce buffers before launch:

    planned_allreduce_lines(world_size=4, max_bytes=MiB(8), gpu_has_nvlink=True, full_nvlink=None,
                            compute_capability=(9, 0), env={})
    → (all-reduce one_shot buffers, all-reduce one_shot_pull buffers, all-reduce two_shot buffers, …)

A backend starts when ``comm.dispatch._static_custom_reason`` lets it (the very rule ``AllReduce.create``
applies); NCCL and gloo allocate nothing of their own here.  The sizes are ``comm.ledger``'s, the same
function the started backends' ``ledger_lines()`` call.  What the planner cannot know (a Triton or torch
build that fails at start-up, ``BackendUnavailable``) is assumed to work: the plan charges the buffers.

Topology when it is not measured:

- ``full_nvlink=None``: a GPU with NVLink is taken as a full NVLink mesh (HGX board); one without as PCIe;
- ``p2p=None``: CUDA peer access is taken as available between the GPUs of the group (one node).

Each line's source says which of these facts were assumed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tpkit.comm.dispatch import BACKENDS, CUSTOM_BACKENDS, _static_custom_reason
from tpkit.comm.env import parse_env
from tpkit.comm.ledger import allreduce_buffer_lines
from tpkit.comm.topology import CommTopology
from tpkit.errors import PlanInputError
from tpkit.memory.ledger import LineItem
from tpkit.units import Bytes, format_bytes

__all__ = ["AllReducePlan", "plan_allreduce", "planned_allreduce_lines", "planned_topology", "describe_skipped"]


@dataclass(frozen=True, kw_only=True, slots=True)
class AllReducePlan:
    """What ``AllReduce.create`` would do on one group, predicted before launch."""

    world_size: int
    """ranks in the group (count)"""
    topology: CommTopology
    """the links the prediction assumed"""
    topology_note: str
    """the topology in words, with what was assumed rather than measured"""
    started: tuple[str, ...]
    """backends that would start (peer-memory ones and nccl/gloo), in ``BACKENDS`` order"""
    skipped: tuple[tuple[str, str], ...]
    """(backend, why) for peer-memory backends the static rules skip"""
    lines: tuple[LineItem, ...]
    """one "use" line per started backend that allocates device memory"""


def planned_topology(*, gpu_has_nvlink: bool, full_nvlink: bool | None,
                     p2p: bool | None = None) -> tuple[CommTopology, str]:
    """The group's topology for planning, and a note naming what was assumed (None = not measured)."""
    if full_nvlink is None:
        full = bool(gpu_has_nvlink)
        link = ("NVLink GPU assumed to be a full NVLink mesh (HGX)" if full
                else "GPU without NVLink: PCIe assumed")
    else:
        full = bool(full_nvlink)
        link = "full NVLink mesh (measured)" if full else "no full NVLink mesh (measured)"
    if p2p is None:
        peer, text = True, "CUDA P2P assumed"
    else:
        peer, text = bool(p2p) or full, "CUDA P2P (measured)" if (p2p or full) else "no CUDA P2P (measured)"
    return CommTopology(full_nvlink=full, p2p=peer, num_nodes=1), f"one node, {link}, {text}"


def plan_allreduce(*, world_size: int, max_bytes: Bytes | int, gpu_has_nvlink: bool, full_nvlink: bool | None,
                   compute_capability: tuple[int, int] | None, env: Mapping[str, str], p2p: bool | None = None,
                   backends: Iterable[str] | None = None) -> AllReducePlan:
    """Predict ``AllReduce.create(group, max_bytes=…, backends=…)`` on a ``world_size`` group.

    ``env`` is read as ``AllReduce.create`` reads it (``TPKIT_ALLREDUCE_FORCE_PCIE`` matters here; a bad
    value raises ``ConfigError``).  Raises ``PlanInputError`` for a world size < 1, a size ≤ 0 or an
    unknown backend name.
    """
    names = _check(world_size, max_bytes, backends)
    cenv = parse_env(env)
    topology, note = planned_topology(gpu_has_nvlink=gpu_has_nvlink, full_nvlink=full_nvlink, p2p=p2p)
    cc = tuple(compute_capability) if compute_capability is not None else None
    started, skipped = [], []
    for name in names:
        why = _static_custom_reason(name, world_size, topology, cc, cenv) if name in CUSTOM_BACKENDS else None
        if why is None:
            started.append(name)
        else:
            skipped.append((name, why))
    lines = tuple(_with_context(line, world_size, note)
                  for line in allreduce_buffer_lines(world_size, Bytes(int(max_bytes)), started))
    return AllReducePlan(world_size=world_size, topology=topology, topology_note=note, started=tuple(started),
                         skipped=tuple(skipped), lines=lines)


def planned_allreduce_lines(*, world_size: int, max_bytes: Bytes | int, gpu_has_nvlink: bool,
                            full_nvlink: bool | None, compute_capability: tuple[int, int] | None,
                            env: Mapping[str, str], p2p: bool | None = None,
                            backends: Iterable[str] | None = None) -> tuple[LineItem, ...]:
    """The buffers tpkit's ``AllReduce`` would allocate on each GPU of the group, as ledger "use" lines.

    World size 1 gives nothing; peer-memory backends the static rules skip (more than 2 GPUs without a full
    NVLink mesh unless ``TPKIT_ALLREDUCE_FORCE_PCIE=1``, no P2P, compute capability < 8.0 or unknown, world
    size > 8) give nothing either.  See ``plan_allreduce`` for the backends and the reasons.
    """
    return plan_allreduce(world_size=world_size, max_bytes=max_bytes, gpu_has_nvlink=gpu_has_nvlink,
                          full_nvlink=full_nvlink, compute_capability=compute_capability, env=env, p2p=p2p,
                          backends=backends).lines


def _check(world_size: int, max_bytes: Bytes | int, backends: Iterable[str] | None) -> tuple[str, ...]:
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise PlanInputError(f"all-reduce world size must be a whole number ≥ 1, got {world_size!r}; "
                             "pass the TP size of the group")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, Bytes)) or int(max_bytes) <= 0:
        raise PlanInputError(f"all-reduce max_bytes must be a size > 0 such as MiB(8), got {max_bytes!r}; "
                             "it is the largest message the custom kernels take")
    names = BACKENDS if backends is None else tuple(backends)
    unknown = [n for n in names if n not in BACKENDS]
    if unknown:
        raise PlanInputError(f"unknown all-reduce backends {unknown}; choose from {', '.join(BACKENDS)}")
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
