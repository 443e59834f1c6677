"""Cold-start wall time of `tpkit perf` (a fresh interpreter each run), next to `tpkit plan` and bare Python.

    python bench/decode_perf_cold_start.py [--runs 20] [--no-bytecode]

Same method as bench/cli_cold_start.py (its ``_env`` copy of tpkit and its ``_once`` runner): tpkit is copied
to a temporary folder; with --no-bytecode nothing is byte-compiled and every run sets
PYTHONDONTWRITEBYTECODE=1, so every tpkit module is compiled from source each time.  Commands are
interleaved with ``python -c pass`` so load on the machine hits them alike; the load average is printed
before and after.  Each case is also run once with ``-X importtime`` to check that torch is never imported.
Target (issue 13): `tpkit perf` under 0.3 s, no torch import.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_cold_start import SRC, _env, _once  # noqa: E402

CASES = [
    ["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3",
     "--engine-version", "0.5.10", "--context", "8192", "--accept-length", "2.0", "--json"],
    ["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3"],
    ["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100"],
    ["plan", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--mem-fraction-static", "0.85"],
]


def _imports_torch(cmd: list[str], env: dict) -> bool:
    out = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], env=env, capture_output=True, text=True, check=True)
    return any(line.rsplit("|", 1)[-1].strip().split(".")[0] == "torch" for line in out.stderr.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--no-bytecode", action="store_true", help="compile tpkit from source on every run")
    args = ap.parse_args()
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(args.no_bytecode, SRC, tmp)
        cmds = [[sys.executable, "-c", "pass"]] + [[sys.executable, "-m", "tpkit", *c] for c in CASES]
        torch = {i: _imports_torch(c, env) for i, c in enumerate(cmds) if i}
        for cmd in cmds:
            _once(cmd, env)  # warm the OS page cache
        times: list[list[float]] = [[] for _ in cmds]
        cpu: list[list[float]] = [[] for _ in cmds]
        for _ in range(args.runs):
            for i, cmd in enumerate(cmds):
                wall, used = _once(cmd, env)
                times[i].append(wall)
                cpu[i].append(used)
    load1 = os.getloadavg()
    mode = "PYTHONDONTWRITEBYTECODE=1, no __pycache__" if args.no_bytecode else "with bytecode"
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; {mode}; "
          f"{args.runs} runs; load average (1 min) {load0[0]:.2f} before, {load1[0]:.2f} after")
    print(f"{'command':100s} {'median_s':>9s} {'p90_s':>7s} {'cpu_s':>7s} {'x bare':>7s} torch")
    bmed = statistics.median(times[0])
    for i, (cmd, t, c) in enumerate(zip(cmds, times, cpu)):
        label = "python -c pass" if cmd[1] == "-c" else "tpkit " + " ".join(cmd[3:])
        med = statistics.median(t)
        print(f"{label[:100]:100s} {med:9.3f} {sorted(t)[int(0.9 * len(t))]:7.3f} {statistics.median(c):7.3f} "
              f"{med / bmed:7.1f} {'' if not i else ('YES' if torch[i] else 'no')}")


if __name__ == "__main__":
    main()
