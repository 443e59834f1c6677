"""Pure all-reduce dispatch: which backend takes a message, and why (no torch import).

``choose_allreduce`` walks the backends in preference order — measured order from a bench profile
when one covers the world size, published crossovers otherwise — and returns the first one whose
eligibility rules pass, with a one-line reason that names the skipped faster backends.  The backends
and their rules are the rows of ``comm.registry``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tpkit.records import dataclass
import tpkit.comm.registry as registry
from tpkit.comm.env import CommEnv, parse_env
from tpkit.comm.profile import BenchProfile
from tpkit.dtypes import WEIGHT_DTYPES, lookup_dtype
from tpkit.errors import PlanInputError, RuntimeSetupError
from tpkit.hardware.topology import GroupTopology
from tpkit.units import Bytes, KiB, MiB, format_bytes

__all__ = ["Decision", "choose_allreduce", "skip_reason", "normalize_dtype", "default_order", "as_capacities"]



@dataclass(frozen=True, kw_only=True, slots=True)
class Decision:
    """A dispatch choice."""

    backend: str
    """a registry backend name, or ``"none"`` (world size 1)"""
    reason: str
    """one line saying why"""


def normalize_dtype(dtype: str) -> str:
    """``"bfloat16"``/``torch.bfloat16``/``"bf16"`` → ``"bf16"``; raise PlanInputError for others."""
    found = lookup_dtype(str(dtype))
    if found is None or found.name not in WEIGHT_DTYPES:
        raise PlanInputError(f"all-reduce dtype {dtype!r} is not supported; use bf16, fp16 or fp32")
    return found.short


def as_capacities(available: Mapping[str, Bytes | None] | Iterable[str]) -> dict[str, Bytes | None]:
    """Normalise ``available`` to {backend: buffer capacity or None (no cap)}."""
    if isinstance(available, Mapping):
        return dict(available)
    return {name: None for name in available}


def skip_reason(name: str, *, nbytes: Bytes, dtype: str, world_size: int, topology: GroupTopology, env: CommEnv,
                capacity: Bytes | None) -> str | None:
    """Why ``name`` cannot take this message (None = it can): dtype, start-up rules, then the message."""
    return (registry.dtype_reason(name, dtype)
            or registry.startup_reason(name, world_size=world_size, topology=topology, force_pcie=env.force_pcie)
            or registry.message_reason(name, nbytes=nbytes, capacity=capacity, cap_bytes=env.max_bytes))


_PUBLISHED = {2: (None, MiB(16)), 4: (KiB(512), MiB(8)), 8: (KiB(256), MiB(8))}
"""world size ≤ key → (one-shot below, custom below): TRT-LLM heuristic, vLLM/SGLang 1-stage limits"""


def default_order(world_size: int, nbytes: Bytes) -> tuple[tuple[str, ...], str]:
    """Published crossovers, used when no measured profile covers the world size."""
    kind = {k: tuple(r.name for r in registry.ROWS.values() if r.crossover == k) for k in registry.CROSSOVER_KINDS}
    one, two, fallback = kind["one_shot"], kind["two_shot"], kind["fallback"]
    key = min((k for k in _PUBLISHED if world_size <= k), default=8)
    one_below, custom_below = _PUBLISHED[key]
    if nbytes > custom_below:
        order, rule = fallback + one + two, f"NCCL above {format_bytes(custom_below)}"
    elif one_below is None or nbytes < one_below:
        order, rule = one + two + fallback, "one-shot" + (f" below {format_bytes(one_below)}" if one_below else
                                                          f" up to {format_bytes(custom_below)} (2 GPUs)")
    else:
        order, rule = two + one + fallback, f"two-shot from {format_bytes(one_below)} to {format_bytes(custom_below)}"
    return order + kind["last"], f"published crossover for world size ≤ {key}: {rule} (no measured profile)"


def _measured_order(profile: BenchProfile | None, world_size: int, nbytes: Bytes, mode: str):
    """(order, note, row) from the profile, or None when it does not cover ``world_size``."""
    row = profile.row_for(world_size, nbytes, mode) if profile is not None else None
    if row is None:
        return None
    rest = tuple(n for n in registry.names() if n not in row.order())
    eager_rows = mode == "eager" and profile.mode != "eager" and bool(dict(profile.eager_world_sizes).get(world_size))
    used = "eager" if eager_rows else profile.mode
    note = f"measured at {format_bytes(row.nbytes)}, world size {world_size} ({used} mode)"
    return row.order() + rest, note, row


def choose_allreduce(*, nbytes: Bytes, dtype: str, world_size: int, topology: GroupTopology,
                     profile: BenchProfile | None, env: Mapping[str, str] | CommEnv,
                     available: Mapping[str, Bytes | None] | Iterable[str], mode: str = "graph") -> Decision:
    """Pick the backend for one all-reduce of ``nbytes`` of ``dtype`` and say why.

    ``topology`` is the group's (``Topology.group``; it carries the compute capability).  ``mode`` is
    ``"graph"`` (the call is being captured in a CUDA graph) or ``"eager"``; a profile with eager rows
    orders the backends by those for eager calls (launch overhead differs).
    """
    if not isinstance(nbytes, Bytes):
        raise PlanInputError(f"nbytes must be a Bytes (e.g. Bytes(4096) or KiB(4)), got {nbytes!r}")
    if world_size == 1:
        return Decision(backend="none", reason="world size 1: nothing to reduce, the input is the result")
    if nbytes.bytes < 0 or world_size < 1:
        raise PlanInputError(f"nbytes must be ≥ 0 and world_size ≥ 1, got nbytes={nbytes.bytes}, "
                             f"world_size={world_size}")
    cenv = env if isinstance(env, CommEnv) else parse_env(env)
    dtype = normalize_dtype(dtype)
    caps = as_capacities(available)
    measured = _measured_order(profile, world_size, nbytes, mode)
    order, note = (measured[0], measured[1]) if measured else default_order(world_size, nbytes)
    row = measured[2] if measured else None

    def reason_of(name: str) -> str | None:
        if name not in caps:
            return "not initialised in this group"
        return skip_reason(name, nbytes=nbytes, dtype=dtype, world_size=world_size, topology=topology, env=cenv,
                           capacity=caps[name])

    allowed = cenv.allowed()
    if allowed is not None:
        forced = _first_ok(allowed, order, reason_of)
        if forced[0] is not None:
            return Decision(backend=forced[0], reason=f"forced by TPKIT_ALLREDUCE={cenv.force}")
        auto = _first_ok(None, order, reason_of)
        prefix = f"TPKIT_ALLREDUCE={cenv.force} cannot take it ({'; '.join(forced[1])}); fallback"
        return _decide(auto, prefix, note, row, nbytes)
    return _decide(_first_ok(None, order, reason_of), None, note, row, nbytes)


def _first_ok(allowed, order, reason_of):
    """(first eligible name or None, ['name: reason' for skipped names before it])."""
    skipped = []
    for name in order:
        if allowed is not None and name not in allowed:
            continue
        why = reason_of(name)
        if why is None:
            return name, skipped
        if why != "not initialised in this group" or allowed is not None:
            skipped.append(f"{name} skipped: {why}")
    return None, skipped


def _decide(found, prefix, note, row, nbytes: Bytes) -> Decision:
    name, skipped = found
    if name is None:
        raise RuntimeSetupError(
            f"no all-reduce backend can take {nbytes.bytes} bytes: {'; '.join(skipped) or 'none initialised'}; "
            "initialise the group with nccl (GPU) or gloo (CPU)")
    timing = ""
    if row is not None and row.time_of(name) is not None:
        others = [(n, t) for n, t in row.time_us if n != name]
        timing = f" ({row.time_of(name):.1f} µs" + (f"; next {others[0][0]} {others[0][1]:.1f} µs)" if others else ")")
        head = f"fastest eligible, {note}{timing}"
    else:
        head = f"first eligible in order, {note}"
    parts = [p for p in (prefix, head, "; ".join(skipped)) if p]
    return Decision(backend=name, reason="; ".join(parts))
