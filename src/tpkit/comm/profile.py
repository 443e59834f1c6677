"""Measured all-reduce profiles: what ``tpkit bench allreduce --json`` writes and the dispatcher reads.

A profile holds, per world size, rows of (message bytes → per-backend time in µs), measured in one
mode (CUDA graph by default).  The dispatcher orders backends by measured time in the row that
covers a message (the smallest measured size ≥ the message; the largest row beyond it), so the
crossovers are the measured ones.  Backend names are ``comm.registry`` names.

Shipped defaults: ``comm/data/h200_nvlink_defaults.json`` (2×H200 SXM, NVLink, measured by the bench).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from tpkit.records import dataclass
import tpkit.comm.registry as registry
from tpkit.errors import ConfigError, json_kind
from tpkit.units import Bytes

__all__ = ["ProfileRow", "BenchProfile", "load_profile", "default_profile", "profile_to_dict",
           "PROFILE_VERSION", "SCHEMA", "DEFAULT_PROFILE_FILE", "profile_from_dict"]

PROFILE_VERSION = 1
SCHEMA = "tpkit.bench.allreduce/1"
"""``schema`` of the profile ``tpkit bench allreduce --json FILE`` writes; optional on reading (older files and
the shipped defaults lack it), present it must be this"""
DEFAULT_PROFILE_FILE = "h200_nvlink_defaults.json"
_TOP_KEYS = {"schema", "version", "source", "mode", "dtype", "world_sizes", "eager_world_sizes", "link_ceiling_gbps"}
_ROW_KEYS = {"bytes", "time_us"}


@dataclass(frozen=True, kw_only=True, slots=True)
class ProfileRow:
    """One measured message size."""

    nbytes: Bytes
    """message size"""
    time_us: tuple[tuple[str, float], ...]
    """(backend, median µs per call), fastest first"""

    def order(self) -> tuple[str, ...]:
        """Backend names, fastest first."""
        return tuple(name for name, _ in self.time_us)

    def time_of(self, name: str) -> float | None:
        """Measured µs of ``name`` in this row (None if not measured)."""
        return dict(self.time_us).get(name)


@dataclass(frozen=True, kw_only=True, slots=True)
class BenchProfile:
    """Per-world-size measurements of every backend."""

    source: str
    """what measured it: command, machine, date"""
    mode: str = "graph"
    """``graph`` (CUDA-graph replay) or ``eager``"""
    dtype: str = "bf16"
    """dtype of the measured messages"""
    world_sizes: tuple[tuple[int, tuple[ProfileRow, ...]], ...] = ()
    """(world size, rows sorted by bytes)"""
    link_ceiling_gbps: float | None = None
    """per-direction link ceiling in GB/s (10^9 B/s) the bench printed, if any"""
    eager_world_sizes: tuple[tuple[int, tuple[ProfileRow, ...]], ...] = ()
    """the same rows measured eagerly (optional; launch overhead reorders small sizes)"""

    def rows(self, world_size: int, mode: str | None = None) -> tuple[ProfileRow, ...]:
        """Rows for ``world_size`` in ``mode`` (default the profile's mode; eager falls back to it)."""
        if mode == "eager" and self.mode != "eager" and self.eager_world_sizes:
            found = dict(self.eager_world_sizes).get(world_size, ())
            if found:
                return found
        return dict(self.world_sizes).get(world_size, ())

    def row_for(self, world_size: int, nbytes: Bytes, mode: str | None = None) -> ProfileRow | None:
        """The row covering ``nbytes``: smallest measured size ≥ nbytes, else the largest row."""
        rows = self.rows(world_size, mode)
        for row in rows:
            if row.nbytes >= nbytes:
                return row
        return rows[-1] if rows else None


def _row_from_dict(raw: dict, where: str) -> ProfileRow:
    unknown = set(raw) - _ROW_KEYS
    if unknown or not _ROW_KEYS <= set(raw):
        raise ConfigError(f"{where}: a row needs exactly the keys {sorted(_ROW_KEYS)}, got {sorted(raw)}")
    times = sorted(((str(k), float(v)) for k, v in raw["time_us"].items()), key=lambda kv: kv[1])
    unknown = [name for name, _ in times if name not in registry.ROWS]
    if unknown:
        raise ConfigError(f"{where}: unknown backends {unknown} in the row of {raw['bytes']} bytes; known: "
                          f"{', '.join(registry.names())}; re-run `tpkit bench allreduce --json` with this tpkit")
    if not times:
        raise ConfigError(f"{where}: row of {raw['bytes']} bytes has no timings; drop it or re-run the bench")
    return ProfileRow(nbytes=Bytes(int(raw["bytes"])), time_us=tuple(times))


def profile_from_dict(raw: dict, *, where: str = "profile") -> BenchProfile:
    """Validate and convert the JSON form; unknown keys and malformed values raise ConfigError."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: a profile is a JSON object, got {json_kind(raw)}; re-run the bench")
    try:
        return _profile(raw, where)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ConfigError(f"{where}: malformed profile ({type(exc).__name__}: {exc}); rows need an integer "
                          "'bytes' and a 'time_us' object of backend → µs; re-run "
                          "`tpkit bench allreduce --json`") from None


def _profile(raw: dict, where: str) -> BenchProfile:
    unknown = set(raw) - _TOP_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown keys {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}; an all-reduce "
                          "profile is the file `tpkit bench allreduce --json FILE` writes")
    if raw.get("schema", SCHEMA) != SCHEMA:
        raise ConfigError(f"{where}: schema {raw['schema']!r:.60} is not {SCHEMA!r}; an all-reduce profile is the "
                          "file `tpkit bench allreduce --json FILE` writes")
    if raw.get("version") != PROFILE_VERSION:
        raise ConfigError(f"{where}: version {raw.get('version')!r} is not {PROFILE_VERSION}; re-run the bench")
    return BenchProfile(source=str(raw.get("source", "")), mode=str(raw.get("mode", "graph")),
                        dtype=str(raw.get("dtype", "bf16")), world_sizes=_sizes_from(raw.get("world_sizes", {}), where),
                        eager_world_sizes=_sizes_from(raw.get("eager_world_sizes", {}), where + " (eager)"),
                        link_ceiling_gbps=raw.get("link_ceiling_gbps"))


def _sizes_from(raw: dict, where: str):
    sizes = []
    for ws, body in raw.items():
        if set(body) - {"rows"}:
            raise ConfigError(f"{where}: world size {ws}: unknown keys {sorted(set(body) - {'rows'})}")
        rows = tuple(sorted((_row_from_dict(r, f"{where} ws={ws}") for r in body["rows"]),
                            key=lambda r: r.nbytes.bytes))
        sizes.append((int(ws), rows))
    return tuple(sorted(sizes))


def profile_to_dict(profile: BenchProfile) -> dict:
    """The JSON form (inverse of ``profile_from_dict``)."""
    def sizes(pairs):
        return {str(ws): {"rows": [{"bytes": r.nbytes.bytes, "time_us": dict(r.time_us)} for r in rows]}
                for ws, rows in pairs}

    out = {"schema": SCHEMA, "version": PROFILE_VERSION, "source": profile.source, "mode": profile.mode, "dtype": profile.dtype,
           "link_ceiling_gbps": profile.link_ceiling_gbps, "world_sizes": sizes(profile.world_sizes)}
    if profile.eager_world_sizes:
        out["eager_world_sizes"] = sizes(profile.eager_world_sizes)
    return out


def load_profile(path: str | Path) -> BenchProfile:
    """Read a profile JSON written by ``tpkit bench allreduce --json``."""
    from tpkit.fileio import read_small_text

    p = Path(path)
    try:
        raw = json.loads(read_small_text(p, what="all-reduce profile",
                                         fix="give the file `tpkit bench allreduce --json FILE` wrote"))
    except FileNotFoundError:
        raise ConfigError(f"all-reduce profile {str(p)!r} does not exist; write one with "
                          "`tpkit bench allreduce --json FILE`") from None
    except IsADirectoryError:
        raise ConfigError(f"all-reduce profile {str(p)!r} is a directory; pass the file `tpkit bench allreduce "
                          "--json FILE` wrote") from None
    except PermissionError:
        raise ConfigError(f"all-reduce profile {str(p)!r} cannot be read (permission denied); check the file's "
                          "permissions (tpkit's user must be able to read it)") from None
    except RecursionError:  # helper tidy32: a traceback before (as were the > 4,300-digit numbers below)
        raise ConfigError(f"all-reduce profile {str(p)!r}: the JSON is nested too deeply to be a profile; pass "
                          "the file `tpkit bench allreduce --json FILE` wrote") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, an int of > 4,300 digits
        raise ConfigError(f"all-reduce profile {str(p)!r} is not valid JSON or cannot be read: {str(exc)[:200]}; "
                          "pass the file `tpkit bench allreduce --json FILE` wrote") from None
    return profile_from_dict(raw, where=str(p))


def default_profile() -> BenchProfile:
    """The shipped H100/H200-class NVLink defaults."""
    text = resources.files("tpkit.comm").joinpath("data", DEFAULT_PROFILE_FILE).read_text(encoding="utf-8")
    return profile_from_dict(json.loads(text), where=DEFAULT_PROFILE_FILE)
