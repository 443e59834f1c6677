"""``MachineProfile`` ⇄ JSON, with validation (pure: no torch, safe for ``tpkit plan --machine``).

File layout (all byte counts are exact integers of bytes)::

    {"schema": "tpkit.probe/1", "profile_version": 1, "hostname": "...", "driver_version": "...",
     "gpus": [{"index": 0, "name": "NVIDIA H200", "total_bytes": 150109880320, "free_bytes": ...,
               "used_by_this_process_bytes": 0, "used_by_others_bytes": ..., "compute_capability": [9, 0],
               "processes": [{"pid": 1234, "name": "python3", "used_bytes": 1048576}]}],
     "nvlink_links": [[0, 18], [18, 0]], "p2p_access": [[true, true], [true, true]],
     "pcie_path": [["X", "NV18"], ["NV18", "X"]], "extra": {}}

Every field is checked: unknown keys, missing fields, wrong types, impossible values (a negative count or
compute capability, more free than total memory, byte counts beyond ``MAX_DEVICE_BYTES``), inconsistent
matrices (NVLink counts not symmetric, a label that disagrees with the link count) and JSON nested too deep
to read raise ``PlanInputError``.  ``schema`` (the name every ``--json`` document carries) is optional on
reading, so a profile written before it was added still loads; present, it must be ``SCHEMA``.  Writing is atomic (temporary file in the same directory, then rename).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tpkit.errors import PlanInputError, json_kind
from tpkit.fileio import read_small_text, write_atomic
from tpkit.hardware.gpu import GpuSpec
from tpkit.hardware.machine import PROFILE_VERSION, GpuState, MachineProfile
from tpkit.units import Bytes

__all__ = ["SCHEMA", "profile_to_dict", "profile_from_dict", "save_machine_profile", "load_machine_profile", "select_gpus"]

SCHEMA = "tpkit.probe/1"
"""``schema`` of ``tpkit probe --json`` and of the file ``--out`` writes (the same document)"""
_TOP_REQUIRED = {"profile_version", "gpus"}
_TOP_OPTIONAL = {"schema", "hostname", "driver_version", "nvlink_links", "p2p_access", "pcie_path", "extra"}
_GPU_REQUIRED = {"index", "name", "total_bytes", "free_bytes"}
_GPU_OPTIONAL = {"used_by_this_process_bytes", "used_by_others_bytes", "compute_capability", "processes"}
_PROC_KEYS = {"pid", "name", "used_bytes"}
_EXTRA_TYPES = {"torch": (str,), "cuda": (str, type(None)), "notes": (list,), "source": (str,), "ranks": (int,)}
"""what ``tpkit probe`` (torch, cuda, notes) and ``GroupMemory.to_machine_profile`` (source, ranks) write"""
_PCIE_LABELS = {"PIX", "PXB", "PHB", "NODE", "SYS", "INT", "?"}
MAX_DEVICE_BYTES = 2**48
"""largest memory figure a GPU entry may hold (256 TiB; today's largest GPUs have < 2**38 bytes)"""
MAX_NVLINK_LINKS = 64
"""most NVLink links one pair of GPUs may report (H100/H200/B200 have 18 per GPU)"""
_MAX_TEXT = 4096


def profile_to_dict(profile: MachineProfile) -> dict:
    """The JSON-able form (see the module doc)."""
    return {
        "schema": SCHEMA, "profile_version": PROFILE_VERSION, "hostname": profile.hostname, "driver_version": profile.driver_version,
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
        data = json.loads(read_small_text(p, what="--machine", fix="give the file `tpkit probe --out FILE` wrote"))
    except FileNotFoundError:
        raise PlanInputError(f"--machine {p}: no such file; write one with `tpkit probe --out {p}`") from None
    except IsADirectoryError:  # helper tidy32: the errno text said "re-create it", which does not help
        raise PlanInputError(f"--machine {p}: is a directory; give the file `tpkit probe --out FILE` wrote "
                             f"(e.g. {p / 'machine.json'})") from None
    except PermissionError:
        raise PlanInputError(f"--machine {p}: cannot be read (permission denied); check the file's permissions "
                             "(tpkit's user must be able to read it) or copy it somewhere readable") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, an int of > 4300 digits
        raise PlanInputError(f"--machine {p}: not a readable JSON file ({str(exc)[:200]}); re-create it with "
                             "`tpkit probe --out`") from None
    except RecursionError:
        raise PlanInputError(f"--machine {p}: the JSON is nested too deeply to be a machine profile; re-create "
                             "it with `tpkit probe --out`") from None
    if isinstance(data, dict) and ("model_type" in data or "architectures" in data):
        raise PlanInputError(f"--machine {p}: is a model config.json (JSON with "
                             f"{'model_type' if 'model_type' in data else 'architectures'}), not a machine profile; "
                             "pass it as MODEL (tpkit plan FILE --gpu NAME) and the profile `tpkit probe --out "
                             "FILE` wrote as --machine")
    try:
        return profile_from_dict(data, where=f"--machine {p}")
    except PlanInputError as exc:  # what is wrong inside the file: the way out is the same for every field
        text = str(exc)
        if "tpkit probe --out" in text:
            raise
        raise PlanInputError(f"{text}; this is not a profile as `tpkit probe --out` writes it: fix the field or "
                             "re-create the file with `tpkit probe --out FILE` on the GPU machine") from None


def profile_from_dict(data, *, where: str = "machine profile") -> MachineProfile:
    """Validate a decoded profile and build the value."""
    _keys(data, _TOP_REQUIRED, _TOP_OPTIONAL, where)
    if data.get("schema", SCHEMA) != SCHEMA:
        raise PlanInputError(f"{where}: schema is {data['schema']!r:.60}, not {SCHEMA!r}: not a machine profile "
                             "as `tpkit probe --out` writes it; re-create the file with `tpkit probe --out FILE`")
    version = data["profile_version"]
    if type(version) is not int:  # "1" or 1.0 or true: a hand edit or another writer, not tpkit probe
        raise PlanInputError(
            f"{where}: profile_version must be the integer {PROFILE_VERSION}, got {type(version).__name__} "
            f"{version!r:.40}; write \"profile_version\": {PROFILE_VERSION} or re-create the file with "
            "`tpkit probe --out`"
        )
    if version != PROFILE_VERSION:
        raise PlanInputError(
            f"{where}: profile_version {version!r} is not supported (this tpkit reads "
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
    links = _matrix(data.get("nvlink_links", []), n, int, "nvlink_links", where)
    _check_links(links, where)
    p2p = _matrix(data.get("p2p_access", []), n, bool, "p2p_access", where)
    path = _matrix(data.get("pcie_path", []), n, str, "pcie_path", where)
    _check_paths(path, links, where)
    return MachineProfile(
        gpus=gpus, nvlink_links=links, p2p_access=p2p, pcie_path=path,
        hostname=_text(data.get("hostname", ""), "hostname", where),
        driver_version=_text(data.get("driver_version", ""), "driver_version", where),
        extra=_extra(data.get("extra", {}), where),
    )


def _text(value, name: str, where: str) -> str:
    _typed(value, str, name, where)
    if len(value) > _MAX_TEXT:
        raise PlanInputError(f"{where}: {name} is {len(value):,} characters long; at most {_MAX_TEXT:,} are read")
    return value


def _extra(extra, where: str) -> dict:
    _typed(extra, dict, "extra", where)
    unknown = sorted(set(extra) - set(_EXTRA_TYPES))
    if unknown:
        raise PlanInputError(f"{where}: unknown key(s) {unknown} in extra; allowed: {sorted(_EXTRA_TYPES)}")
    for key, value in extra.items():
        if not isinstance(value, _EXTRA_TYPES[key]) or isinstance(value, bool):
            raise PlanInputError(f"{where}: extra.{key} must be {' or '.join(t.__name__ for t in _EXTRA_TYPES[key])}, "
                                 f"got {type(value).__name__}")
    notes = extra.get("notes", [])
    if any(not isinstance(n, str) or len(n) > _MAX_TEXT for n in notes):
        raise PlanInputError(f"{where}: extra.notes must be a list of strings")
    if "torch" in extra:
        _text(extra["torch"], "extra.torch", where)
    if isinstance(extra.get("cuda"), str):
        _text(extra["cuda"], "extra.cuda", where)
    if "source" in extra:
        _text(extra["source"], "extra.source", where)
    if "ranks" in extra and extra["ranks"] < 1:
        raise PlanInputError(f"{where}: extra.ranks must be ≥ 1, got {extra['ranks']}")
    return extra


def _check_links(links, where: str) -> None:
    n = len(links)
    for i in range(n):
        for j in range(n):
            v = links[i][j]
            if not 0 <= v <= MAX_NVLINK_LINKS:
                raise PlanInputError(f"{where}: nvlink_links[{i}][{j}] is {v}; a link count is 0..{MAX_NVLINK_LINKS}")
            if i == j and v:
                raise PlanInputError(f"{where}: nvlink_links[{i}][{i}] is {v}; a GPU has no NVLink to itself (0)")
            if v != links[j][i]:
                raise PlanInputError(f"{where}: nvlink_links[{i}][{j}] = {v} but [{j}][{i}] = {links[j][i]}; "
                                     "links join both GPUs, so the matrix is symmetric")


def _check_paths(path, links, where: str) -> None:
    for i, row in enumerate(path):
        for j, label in enumerate(row):
            if i == j:
                ok = label == "X"
            elif links and links[i][j]:
                ok = label == f"NV{links[i][j]}"
            else:
                ok = label in _PCIE_LABELS or (not links and re.fullmatch(r"NV[1-9][0-9]?", label) is not None)
            if not ok:
                want = "X" if i == j else (f"NV{links[i][j]}" if links and links[i][j] else
                                          "one of " + ", ".join(sorted(_PCIE_LABELS)))
                raise PlanInputError(f"{where}: pcie_path[{i}][{j}] is {label!r:.40}; expected {want} "
                                     "(nvidia-smi topo labels, consistent with nvlink_links)")


def _keys(obj, required: set[str], optional: set[str], where: str) -> None:
    if not isinstance(obj, dict):
        raise PlanInputError(f"{where}: expected a JSON object, got {json_kind(obj)}")
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


def _count(value, name: str, where: str, *, most: int | None = None) -> int:
    _typed(value, int, name, where)
    if value < 0:
        raise PlanInputError(f"{where}: {name} must be ≥ 0, got {value}")
    if most is not None and value > most:
        raise PlanInputError(f"{where}: {name} is {value:,}, more than any GPU has (at most {most:,})")
    return value


def _bytes(g: dict, key: str, where: str, default=None) -> Bytes:
    value = g.get(key, default)
    return Bytes(_count(value, f"{key} (bytes, an integer)", where, most=MAX_DEVICE_BYTES))


def _compute_capability(cc, where: str) -> tuple[int, int] | None:
    if cc is None:
        return None
    ok = (isinstance(cc, list) and len(cc) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in cc)
          and 1 <= cc[0] < 100 and 0 <= cc[1] < 100)
    if not ok:
        raise PlanInputError(f"{where}: compute_capability must be [major, minor] with major ≥ 1 and minor ≥ 0 "
                             f"(e.g. [9, 0]) or null, got {cc!r:.60}")
    return (cc[0], cc[1])


def _process(proc, where: str) -> dict:
    _keys(proc, {"pid"}, _PROC_KEYS - {"pid"}, where)
    _count(proc["pid"], "pid", where, most=2**32)
    if "name" in proc:
        _text(proc["name"], "name", where)
    if proc.get("used_bytes") is not None:
        _count(proc["used_bytes"], "used_bytes (bytes, an integer or null)", where, most=MAX_DEVICE_BYTES)
    return dict(proc)


def _gpu_from_dict(g, where: str) -> GpuState:
    _keys(g, _GPU_REQUIRED, _GPU_OPTIONAL, where)
    total = _bytes(g, "total_bytes", where)
    free = _bytes(g, "free_bytes", where)
    if not total:
        raise PlanInputError(f"{where}: total_bytes is 0; a probed GPU has memory, so the file is damaged: "
                             "re-create it with `tpkit probe --out`")
    if free > total:
        raise PlanInputError(f"{where}: free_bytes {free.bytes:,} exceeds total_bytes {total.bytes:,}")
    ours = _bytes(g, "used_by_this_process_bytes", where, 0)
    others = _bytes(g, "used_by_others_bytes", where, 0)
    if ours > total or others > total - free:
        raise PlanInputError(f"{where}: used_by_this_process_bytes {ours.bytes:,} / used_by_others_bytes "
                             f"{others.bytes:,} do not fit in the {(total - free).bytes:,} bytes in use (total − free)")
    name = _text(g["name"], "name", where)
    if not name.strip():
        raise PlanInputError(f"{where}: name is empty; the driver always names a GPU")
    procs = _typed(g.get("processes", []), list, "processes", where)
    return GpuState(
        index=_count(g["index"], "index", where, most=1 << 16), name=name, total_bytes=total, free_bytes=free,
        used_by_this_process_bytes=ours, used_by_others_bytes=others,
        compute_capability=_compute_capability(g.get("compute_capability"), where),
        processes=tuple(_process(p, f"{where}.processes[{k}]") for k, p in enumerate(procs)),
    )


def _matrix(rows, n: int, kind: type, name: str, where: str) -> tuple[tuple, ...]:
    if rows == []:
        return ()
    if not isinstance(rows, list) or len(rows) != n or any(not isinstance(r, list) or len(r) != n for r in rows):
        raise PlanInputError(f"{where}: {name} must be a {n}×{n} list of lists (one row per GPU) or [], "
                             f"got {rows!r:.80}")
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
