"""Run ``tpkit plan`` in-process over a sweep and write each case's text and JSON output to a directory.

    python scripts/plan_sweep.py OUT_DIR [--quick] [--every N]
    diff -r OUT_BEFORE OUT_AFTER      # a refactor must leave every file byte-identical

The sweep: every catalog model × H100, H200, A100-40GB, L4, RTX-4090, RTX-PRO-6000, B200, MI300X × tp 1/2/4/8
× both engines, then flag variants (older engine eras, ``--kv-cache-dtype fp8``, ``--disable-custom-all-reduce``,
``--tpkit-allreduce 8MiB``) on a few GPUs, and ``--machine`` with fake machine profiles (written under
``OUT_DIR/profiles``; the path is printed as ``$OUT`` so two sweeps compare).  A user error is recorded as its
message and exit code 2; an internal error as its exception type and message (the sweep carries on).
One file per case: ``cases/NNNNN.txt`` holds the command, the text output and the ``--json`` output.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/: cli_inproc
from cli_inproc import run_tpkit  # noqa: E402

GPUS = ("H100", "H200", "A100-40GB", "L4", "RTX-4090", "RTX-PRO-6000", "B200", "MI300X")
VARIANT_GPUS = ("H100", "RTX-4090", "MI300X")
TPS = (1, 2, 4, 8)
VARIANTS = {
    "sglang": (["--engine-version", "0.4.10"], ["--engine-version", "0.5.3"], ["--engine-version", "0.3.6"],
               ["--engine-version", "0.5.15"]),
    "vllm": (["--engine-version", "0.11"], ["--engine-version", "v0"], ["--engine-version", "0.10.1"],
             ["--engine-version", "0.8.5"]),
    "both": (["--kv-cache-dtype", "fp8"], ["--disable-custom-all-reduce"], ["--tpkit-allreduce", "8MiB"],
             ["--tpkit-allreduce", "8MiB", "--disable-custom-all-reduce"]),
}
MACHINE_MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen3-30B-A3B",
                  "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-120b", "google/gemma-3-27b-it")
MACHINE_LAYOUTS = (["--tp", "1"], ["--tp", "2"], ["--tp", "4"], ["--tp", "8"], ["--tp", "2", "--dp", "2"],
                   ["--tp", "4", "--dp", "2"], ["--tp", "2", "--pp", "2"],
                   ["--tp", "4", "--tpkit-allreduce", "8MiB"], ["--tp", "8", "--disable-custom-all-reduce"])

_H200_TOTAL = 150_109_880_320
_GIB = 2**30


def _gpu(index: int, name: str, total: int, free: int, own: int, cc) -> dict:
    return {"index": index, "name": name, "total_bytes": total, "free_bytes": free,
            "used_by_this_process_bytes": own, "used_by_others_bytes": total - free - own,
            "compute_capability": list(cc) if cc else None, "processes": []}


def _square(n: int, value, diag):
    return [[diag if i == j else value for j in range(n)] for i in range(n)]


def fake_profiles() -> dict[str, dict]:
    """Three machines: H200 ×8 (NVLink, one busy GPU in the second half), H100 ×4 without NVLink links
    (a catalog NVLink GPU probed on PCIe), RTX 4090 ×8 (PCIe, no P2P, probe context not recorded)."""
    own = 560 * 2**20
    h200 = [_gpu(i, "NVIDIA H200", _H200_TOTAL, _H200_TOTAL - own - (i * 37 * 2**20), own, (9, 0)) for i in range(8)]
    h200[5] = _gpu(5, "NVIDIA H200", _H200_TOTAL, _H200_TOTAL - own - 20 * _GIB, own, (9, 0))
    h100_total = 85_029_615_043
    h100 = [_gpu(i, "NVIDIA H100 80GB HBM3", h100_total, h100_total - own - i * _GIB, own, (9, 0)) for i in range(4)]
    r_total = 25_393_994_138
    rtx = [_gpu(i, "NVIDIA GeForce RTX 4090", r_total, r_total - 300 * 2**20 - i * 64 * 2**20, 0, (8, 9))
           for i in range(8)]
    return {
        "h200x8": {"profile_version": 1, "gpus": h200, "nvlink_links": _square(8, 18, 0),
                   "p2p_access": _square(8, True, True), "pcie_path": _square(8, "NV18", "X")},
        "h100x4_pcie": {"profile_version": 1, "gpus": h100, "nvlink_links": _square(4, 0, 0),
                        "p2p_access": _square(4, True, True), "pcie_path": _square(4, "NODE", "X")},
        "rtx4090x8": {"profile_version": 1, "gpus": rtx, "nvlink_links": _square(8, 0, 0),
                      "p2p_access": _square(8, False, True), "pcie_path": _square(8, "SYS", "X")},
    }


def cases(models: list[str], profiles: dict[str, Path], *, quick: bool) -> list[list[str]]:
    """Every argument list of the sweep, in a fixed order."""
    gpus = GPUS[:3] if quick else GPUS
    out = []
    for engine in ("sglang", "vllm"):
        for model in models:
            for gpu in gpus:
                for tp in TPS:
                    out.append(["plan", model, "--engine", engine, "--gpu", gpu, "--tp", str(tp)])
    for engine in ("sglang", "vllm"):
        for flags in VARIANTS[engine] + VARIANTS["both"]:
            for model in models:
                for gpu in VARIANT_GPUS[:2] if quick else VARIANT_GPUS:
                    for tp in TPS:
                        out.append(["plan", model, "--engine", engine, "--gpu", gpu, "--tp", str(tp), *flags])
    for engine in ("sglang", "vllm"):
        for name, path in profiles.items():
            for model in MACHINE_MODELS:
                for layout in MACHINE_LAYOUTS:
                    out.append(["plan", model, "--engine", engine, "--machine", str(path), *layout])
    return out


def run_one(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``tpkit`` in this process."""
    return run_tpkit(argv, internal_errors=True)  # an internal error is a result to compare, not a crash


def record(argv: list[str], root: str) -> str:
    parts = [" ".join(argv).replace(root, "$OUT")]
    for mode in ((), ("--json",)):
        code, out, err = run_one(argv + list(mode))
        parts.append(f"--- {'json' if mode else 'text'}: exit {code}\n{out}{err}".replace(root, "$OUT"))
    return "\n".join(parts)


def _write_case(job: tuple[int, list[str], str]) -> None:
    i, argv, root = job
    (Path(root) / "cases" / f"{i:05d}.txt").write_text(record(argv, root))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--quick", action="store_true", help="a smaller sweep (3 GPUs, 4 models)")
    ap.add_argument("--every", type=int, default=1, metavar="N",
                    help="run every N-th case only (same file names, so a sample still compares with a full run)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    args = ap.parse_args()
    from tpkit.models.catalog import catalog_entries

    models = [e.id for e in catalog_entries()]
    models = models[:4] if args.quick else models
    (args.out / "profiles").mkdir(parents=True, exist_ok=True)
    (args.out / "cases").mkdir(exist_ok=True)
    profiles = {}
    for name, data in fake_profiles().items():
        path = args.out / "profiles" / f"{name}.json"
        path.write_text(json.dumps(data, indent=1) + "\n")
        profiles[name] = path.resolve()
    root = str(args.out.resolve())
    all_cases = cases(models, profiles, quick=args.quick)
    jobs = [(i, argv, root) for i, argv in enumerate(all_cases) if i % args.every == 0]
    with multiprocessing.Pool(args.jobs) as pool:
        for _ in pool.imap_unordered(_write_case, jobs, chunksize=16):
            pass
    print(f"{len(jobs)} of {len(all_cases)} cases written to {args.out / 'cases'}", file=sys.stderr)


if __name__ == "__main__":
    main()
