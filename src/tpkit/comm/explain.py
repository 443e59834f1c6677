"""Which backend takes which message sizes, and why the others are never used (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tpkit.records import dataclass
import tpkit.comm.registry as registry
from tpkit.comm.dispatch import as_capacities, choose_allreduce, normalize_dtype, skip_reason
from tpkit.comm.env import CommEnv, parse_env
from tpkit.comm.profile import BenchProfile
from tpkit.hardware.topology import GroupTopology
from tpkit.units import Bytes, KiB, MiB, format_bytes

__all__ = ["BackendUse", "explain_backends", "format_explain", "default_sizes"]


def default_sizes(lo: Bytes = KiB(1), hi: Bytes = MiB(256)) -> tuple[Bytes, ...]:
    """Powers of two times ``lo`` up to ``hi``."""
    out, n = [], lo
    while n <= hi:
        out.append(n)
        n = n * 2
    return tuple(out)


@dataclass(frozen=True, kw_only=True, slots=True)
class BackendUse:
    """One backend's part in the dispatch over a size sweep."""

    backend: str
    """backend name"""
    ranges: tuple[tuple[Bytes, Bytes], ...]
    """(from, to) message sizes it is chosen for; empty when never chosen"""
    note: str
    """"used for …" or "skipped: …" / "never fastest …\""""


def explain_backends(*, world_size: int, dtype: str, topology: GroupTopology, profile: BenchProfile | None,
                     env: Mapping[str, str] | CommEnv, available: Mapping[str, Bytes | None] | Iterable[str],
                     skipped_at_init: Mapping[str, str] | None = None,
                     sizes: Iterable[Bytes] | None = None, mode: str = "graph") -> tuple[BackendUse, ...]:
    """For every backend: the size ranges the dispatcher gives it, or the reason it gets none."""
    cenv = env if isinstance(env, CommEnv) else parse_env(env)
    caps = as_capacities(available)
    sizes = tuple(sizes or default_sizes())
    dtype = normalize_dtype(dtype)
    chosen = [choose_allreduce(nbytes=n, dtype=dtype, world_size=world_size, topology=topology, profile=profile,
                               env=cenv, available=caps, mode=mode).backend for n in sizes]
    uses = []
    for name in registry.names():
        ranges = _ranges(sizes, chosen, name)
        if ranges:
            text = ", ".join(f"{format_bytes(a)}..{format_bytes(b)}" for a, b in ranges)
            uses.append(BackendUse(backend=name, ranges=ranges, note=f"used for sizes {text}"))
            continue
        uses.append(BackendUse(backend=name, ranges=(), note=_why_unused(
            name, caps, skipped_at_init or {}, sizes, dtype, world_size, topology, cenv)))
    return tuple(uses)


def _ranges(sizes, chosen, name) -> tuple[tuple[Bytes, Bytes], ...]:
    out: list[list[Bytes]] = []
    for i, (n, c) in enumerate(zip(sizes, chosen)):
        if c != name:
            continue
        if out and i > 0 and chosen[i - 1] == name:
            out[-1][1] = n
        else:
            out.append([n, n])
    return tuple((a, b) for a, b in out)


def _why_unused(name, caps, skipped, sizes, dtype, ws, topo, cenv) -> str:
    if name in skipped:
        return f"skipped at init: {skipped[name]}"
    if name not in caps:
        return "skipped: not started in this group"
    reasons = {skip_reason(name, nbytes=n, dtype=dtype, world_size=ws, topology=topo, env=cenv,
                           capacity=caps[name]) for n in sizes}
    if None not in reasons:
        return "skipped: " + "; ".join(sorted(r for r in reasons if r))
    if cenv.allowed() is not None and name not in cenv.allowed():
        return f"skipped: TPKIT_ALLREDUCE={cenv.force}"
    return "never chosen: a faster eligible backend exists at every size (measured order or published crossover)"


def format_explain(uses: Iterable[BackendUse]) -> str:
    """One line per backend."""
    return "\n".join(f"  {u.backend:<18} {u.note}" for u in uses)
