"""``tpkit probe``: every visible GPU's memory, who uses it, and the links between GPUs.

``--out machine.json`` writes a machine profile that ``tpkit plan --machine`` reads.  On a machine
without a GPU (or without torch) it says so and exits 0; with ``--out`` it exits 2 (the profile asked for cannot
be written: ``tpkit probe --out m.json && tpkit plan --machine m.json`` stops at the step that failed).
"""

from __future__ import annotations

import json

from tpkit.errors import RuntimeSetupError
from tpkit.hardware.machine import MachineProfile
from tpkit.hardware.topology import Topology
from tpkit.units import Bytes, format_bytes, gib_text

__all__ = ["register", "run_probe", "format_profile"]


def register(sub, argv: list[str] | None = None) -> None:
    """Add ``tpkit probe [--out FILE] [--json]``."""
    p = sub.add_parser(
        "probe",
        help="measure each GPU's free memory, its users, NVLink/PCIe topology and peer access",
        description="Probe the visible GPUs (torch + NVML). Memory is shown in GiB (2^30 bytes); "
        "--json and --out give exact byte counts.",
    )
    p.add_argument("--json", action="store_true", help="print the machine profile as JSON (schema tpkit.probe/1)")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="write the machine profile to FILE (atomically) for `tpkit plan --machine FILE`")
    p.add_argument("--no-nvml", action="store_true", help="do not use NVML (torch numbers only)")
    p.set_defaults(func=run_probe)


def run_probe(args) -> int:
    """Probe, print, optionally write; exit 0 also when there is no GPU, 2 when ``--out`` cannot be written."""
    from tpkit.runtime.machine_probe import no_gpu_reason, probe_machine
    from tpkit.hardware.profile_io import profile_to_dict, save_machine_profile

    if args.out is not None:
        from tpkit.fileio import check_writable

        check_writable(args.out, what="--out", example="machine.json")
    reason = no_gpu_reason()
    if reason and args.out:
        raise RuntimeSetupError(f"no GPU to probe: {reason}; nothing written to {args.out} (a machine profile is "
                                "measured on the GPU box). Without one, plan with --gpu NAME or --gpu-memory SIZE")
    if reason:
        if args.json:
            from tpkit.hardware.profile_io import SCHEMA

            print(json.dumps({"schema": SCHEMA, "gpus": [], "reason": reason}))
        else:
            print(f"tpkit probe: no GPU to probe: {reason}. Nothing written.")
        return 0
    profile = probe_machine(use_nvml=not args.no_nvml)
    if args.out:
        save_machine_profile(profile, args.out)
    if args.json:
        print(json.dumps(profile_to_dict(profile), indent=2))
    else:
        print(format_profile(profile))
        if args.out:
            print(f"machine profile written to {args.out}")
    return 0


def format_profile(profile: MachineProfile) -> str:
    """Plain text: the memory table, the users, the topology and P2P matrices, notes."""
    lines = [f"host {profile.hostname or '?'}  driver {profile.driver_version or '?'}  GPUs {len(profile.gpus)}", ""]
    lines.append(f"{'gpu':>3}  {'name':<24} {'cc':>4} {'total GiB':>10} {'free GiB':>10} {'used GiB':>10} "
                 f"{'others GiB':>10}")
    for g in profile.gpus:
        cc = ".".join(map(str, g.compute_capability)) if g.compute_capability else "?"
        lines.append(
            f"{g.index:>3}  {g.name[:24]:<24} {cc:>4} {_gib(g.total_bytes):>10} {_gib(g.free_bytes):>10} "
            f"{_gib(g.total_bytes - g.free_bytes):>10} {_gib(g.used_by_others_bytes):>10}"
        )
    low = profile.min_free
    lines.append(f"min free: GPU {low.index}, {format_bytes(low.free_bytes)} ({low.free_bytes.bytes:,} B)")
    lines += ["", "memory users:"] + [f"  GPU {g.index}: {_users(g.processes)}" for g in profile.gpus]
    if profile.pcie_path:
        lines += ["", "topology (nvidia-smi topo style):"] + _matrix(profile.pcie_path)
    if profile.p2p_access:
        lines += ["", "peer access (P2P):"] + _matrix(tuple(tuple("X" if i == j else ("yes" if v else "no")
                                                                 for j, v in enumerate(r))
                                                           for i, r in enumerate(profile.p2p_access)))
    if profile.nvlink_links and len(profile.gpus) > 1:
        group = Topology.from_machine_profile(profile).group()
        lines.append(f"\nfull NVLink mesh: {'yes' if group.full_nvlink else 'no'}; "
                     f"P2P between all pairs: {'yes' if group.p2p else 'no'}")
    notes = profile.extra.get("notes") or []
    lines += ["", "notes:"] + [f"  {n}" for n in notes] if notes else []
    return "\n".join(lines)


def _gib(n: Bytes) -> str:
    """a table cell: the number of GiB alone (the column head names the unit)"""
    return gib_text(n, label="")


def _users(processes) -> str:
    if not processes:
        return "none listed"
    parts = []
    for p in processes:
        used = p.get("used_bytes")
        parts.append(f"pid {p['pid']} ({p.get('name', '?')}) "
                     + (gib_text(Bytes(used)) if used is not None else "?"))
    return ", ".join(parts)


def _matrix(cells) -> list[str]:
    n = len(cells)
    head = "      " + "".join(f"{'GPU' + str(j):>7}" for j in range(n))
    return [head] + [f"  GPU{i}" + "".join(f"{c:>7}" for c in row) for i, row in enumerate(cells)]
