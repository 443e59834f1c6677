"""``MachineProfile`` ⇄ JSON, with validation (pure: no torch, safe for ``tpkit plan --machine``).

File layout (all byte counts are exact integers of bytes)::

    {"profile_version": 1, "hostname": "...", "driver_version": "...",
     "gpus": [{"index": 0, "name": "NVIDIA H200", "total_bytes": 150109880320, "free_bytes": ...,
               "used_by_this_process_bytes": 0, "used_by_others_bytes": ..., "compute_capability": [9, 0],
               "processes": [{"pid": 1234, "name": "python3", "used_bytes": 1048576}]}],
     "nvlink_links": [[0, 18], [18, 0]], "p2p_access": [[true, true], [true, true]],
     "pcie_path": [["X", "NV18"], ["NV18", "X"]], "extra": {}}

Unknown keys, missing fields, wrong types and inconsistent matrices raise ``PlanInputError``.
Writing is atomic (temporary file in the same directory, then rename).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tpkit.errors import PlanInputError
from tpkit.fileio import write_atomic
from tpkit.hardware.gpu import GpuSpec
from tpkit.hardware.machine import PROFILE_VERSION, GpuState, MachineProfile
from tpkit.units import Bytes

__all__ = ["profile_to_dict", "profile_from_dict", "save_machine_profile", "load_machine_profile", "select_gpus"]

_TOP_REQUIRED = {"profile_version", "gpus"}
_TOP_OPTIONAL = {"hostname", "driver_version", "nvlink_links", "p2p_access", "pcie_path", "extra"}
_GPU_REQUIRED = {"index", "name", "total_bytes", "free_bytes"}
_GPU_OPTIONAL = {"used_by_this_process_bytes", "used_by_others_bytes", "compute_capability", "processes"}
_PROC_KEYS = {"pid", "name", "used_bytes"}


def profile_to_dict(profile: MachineProfile) -> dict:
    """The JSON-able form (see the module doc)."""
    return {
        "profile_version": PROFILE_VERSION, "hostname": profile.hostname, "driver_version": profile.driver_version,
        "gpus": [_gpu_to_dict(g) for g in profile.gpus],
        "nvlink_links": [list(r) for r in profile.nvlink_links], "p2p_access": [list(r) for r in profile.p2p_access],
        "pcie_path": [list(r) for r in profile.pcie_path], "extra": profile.extra,
    }


def _gpu_to_dict(g: GpuState) -> dict:
    return {
        "index": g.index, "name": g.name, "total_bytes": g.total_bytes.bytes, "free_bytes": g.free_bytes.bytes,
        "used_by_this_process_bytes": g.used_by_this_process_bytes.bytes,
        "used_by_others_bytes": g.used_by_others_bytes.bytes,
        "compute_capability": list(g.compute_capability) if g.compute_capability else None,
        "processes": [dict(p) for p in g.processes],
    }


def save_machine_profile(profile: MachineProfile, path: str | os.PathLike) -> Path:
    """Write ``profile`` as JSON atomically: a reader sees the old file or the whole new one."""
    return write_atomic(path, json.dumps(profile_to_dict(profile), indent=2) + "\n")


def load_machine_profile(path: str | os.PathLike) -> MachineProfile:
    """Read and validate a profile written by ``tpkit probe --out``."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise PlanInputError(f"--machine {p}: no such file; write one with `tpkit probe --out {p}`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlanInputError(f"--machine {p}: not a readable JSON file ({exc}); re-create it with `tpkit probe --out`") from None
    return profile_from_dict(data, where=str(p))


def profile_from_dict(data, *, where: str = "machine profile") -> MachineProfile:
    """Validate a decoded profile and build the value."""
    _keys(data, _TOP_REQUIRED, _TOP_OPTIONAL, where)
    if data["profile_version"] != PROFILE_VERSION:
        raise PlanInputError(
            f"{where}: profile_version {data['profile_version']!r} is not supported (this tpkit reads "
            f"{PROFILE_VERSION}); re-create the file with this tpkit's `tpkit probe --out`"
        )
    raw = data["gpus"]
    if not isinstance(raw, list) or not raw:
        raise PlanInputError(f"{where}: 'gpus' must be a non-empty list of GPU objects, got {raw!r:.80}")
    gpus = tuple(_gpu_from_dict(g, f"{where}: gpus[{i}]") for i, g in enumerate(raw))
    indices = [g.index for g in gpus]
    if len(set(indices)) != len(indices):
        raise PlanInputError(f"{where}: GPU indices {indices} repeat; each GPU appears once, with its own CUDA "
                             "index; re-create the file with `tpkit probe --out`")
    n = len(gpus)
    return MachineProfile(
        gpus=gpus,
        nvlink_links=_matrix(data.get("nvlink_links", []), n, int, "nvlink_links", where),
        p2p_access=_matrix(data.get("p2p_access", []), n, bool, "p2p_access", where),
        pcie_path=_matrix(data.get("pcie_path", []), n, str, "pcie_path", where),
        hostname=_typed(data.get("hostname", ""), str, "hostname", where),
        driver_version=_typed(data.get("driver_version", ""), str, "driver_version", where),
        extra=_typed(data.get("extra", {}), dict, "extra", where),
    )


def _keys(obj, required: set[str], optional: set[str], where: str) -> None:
    if not isinstance(obj, dict):
        raise PlanInputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - required - optional)
    missing = sorted(required - set(obj))
    if unknown:
        raise PlanInputError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(required | optional)}")
    if missing:
        raise PlanInputError(f"{where}: missing required key(s) {missing}")


def _typed(value, kind: type, name: str, where: str):
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        raise PlanInputError(f"{where}: {name} must be {kind.__name__}, got {type(value).__name__} {value!r:.60}")
    return value


def _count(value, name: str, where: str) -> int:
    _typed(value, int, name, where)
    if value < 0:
        raise PlanInputError(f"{where}: {name} must be ≥ 0, got {value}")
    return value


def _gpu_from_dict(g, where: str) -> GpuState:
    _keys(g, _GPU_REQUIRED, _GPU_OPTIONAL, where)
    total = Bytes(_count(g["total_bytes"], "total_bytes (bytes, an integer)", where))
    free = Bytes(_count(g["free_bytes"], "free_bytes (bytes, an integer)", where))
    if not total:
        raise PlanInputError(f"{where}: total_bytes is 0; a probed GPU has memory, so the file is damaged: "
                             "re-create it with `tpkit probe --out`")
    if free > total:
        raise PlanInputError(f"{where}: free_bytes {free.bytes:,} exceeds total_bytes {total.bytes:,}")
    cc = g.get("compute_capability")
    if cc is not None and not (isinstance(cc, list) and len(cc) == 2 and all(isinstance(x, int) for x in cc)):
        raise PlanInputError(f"{where}: compute_capability must be [major, minor] or null, got {cc!r}")
    procs = _typed(g.get("processes", []), list, "processes", where)
    for k, proc in enumerate(procs):
        _keys(proc, {"pid"}, _PROC_KEYS - {"pid"}, f"{where}.processes[{k}]")
    return GpuState(
        index=_count(g["index"], "index", where), name=_typed(g["name"], str, "name", where),
        total_bytes=total, free_bytes=free,
        used_by_this_process_bytes=Bytes(_count(g.get("used_by_this_process_bytes", 0), "used_by_this_process_bytes", where)),
        used_by_others_bytes=Bytes(_count(g.get("used_by_others_bytes", 0), "used_by_others_bytes", where)),
        compute_capability=tuple(cc) if cc else None, processes=tuple(dict(p) for p in procs),
    )


def _matrix(rows, n: int, kind: type, name: str, where: str) -> tuple[tuple, ...]:
    if rows == []:
        return ()
    if not isinstance(rows, list) or len(rows) != n or any(not isinstance(r, list) or len(r) != n for r in rows):
        raise PlanInputError(f"{where}: {name} must be a {n}×{n} list of lists (one row per GPU) or [], got {rows!r:.80}")
    for r in rows:
        for v in r:
            _typed(v, kind, f"{name} entry", where)
    return tuple(tuple(r) for r in rows)


def _tokens(name: str) -> set[str]:
    """Lower-case alphanumeric words of a GPU name, without ``nvidia``: ``{"h100", "80gb", "hbm3"}``."""
    return set(re.findall(r"[a-z0-9]+", name.lower())) - {"nvidia"}


def _name_matches(probed: str, spec: GpuSpec) -> bool:
    """Every word of the probed name is a word of the spec's name or of one alias.

    Whole words, not substrings: ``"NVIDIA H20"`` must not pass for ``H200-SXM-141GB``.
    """
    words = _tokens(probed)
    return bool(words) and any(words <= _tokens(n) for n in (spec.name, *spec.aliases))


def select_gpus(profile: MachineProfile, *, num_gpus: int, gpu: GpuSpec | None = None) -> tuple[GpuState, ...]:
    """The first ``num_gpus`` GPUs of the profile (CUDA order), checked against the flags.

    Raises ``PlanInputError`` when the profile has fewer GPUs than the parallel layout needs, or
    when ``gpu`` (the ``--gpu`` flag) names a different model than the probed devices.
    """
    if num_gpus > len(profile.gpus):
        raise PlanInputError(
            f"the parallel layout needs {num_gpus} GPUs but the machine profile lists {len(profile.gpus)} "
            f"({', '.join(g.name for g in profile.gpus)}); lower --tp/--pp or probe a machine with more GPUs"
        )
    chosen = profile.gpus[:num_gpus]
    if gpu is not None:
        wrong = [g for g in chosen if not _name_matches(g.name, gpu)]
        if wrong:
            raise PlanInputError(
                f"--gpu {gpu.name} does not match the machine profile: GPU {wrong[0].index} is {wrong[0].name!r}; "
                "drop --gpu to plan for the probed GPUs, or pass the profile of the machine you mean"
            )
    return chosen
