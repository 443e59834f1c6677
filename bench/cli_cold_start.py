"""Cold-start wall time of `tpkit plan`, `perf` and `explain` (a fresh interpreter each run), against bare Python.

    python bench/cli_cold_start.py [--runs 20] [--no-bytecode] [--src DIR]

Prints the median and p90 wall time of each case below and of `python -c pass`, measured in the same run
and interleaved (so a busy machine slows both alike), and the median CPU time (user + system), which a
busy machine inflates less; the difference to bare Python is tpkit's own share.

tpkit's sources (``--src``, default this checkout's ``src``) are copied to a temporary folder and
byte-compiled there first; with --no-bytecode they are not, and the runs set PYTHONDONTWRITEBYTECODE=1,
so every tpkit module is compiled from source on every run: what a user gets after
``pip install --no-compile`` or with a read-only install.  Third-party packages keep their bytecode.
Target (issue 10): under 0.3 s median for `tpkit plan` with --no-bytecode.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = [
    ["plan", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--mem-fraction-static", "0.85"],
    ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H100", "--json"],
    ["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3"],
    ["explain", str(Path(__file__).resolve().parents[1] / "tests/logs/data/synthetic/kimi_k25_8x_rtx_pro_6000_sglang.log")],
    ["explain", "--help"],
]
SRC = Path(__file__).resolve().parents[1] / "src"


def _once(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds user + system) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _stats(times: list[float]) -> tuple[float, float]:
    return statistics.median(times), sorted(times)[int(0.9 * len(times))]


def _env(no_bytecode: bool, src: Path, tmp: str) -> dict:
    """A copy of tpkit under ``tmp``: without bytecode (and none written), or byte-compiled beforehand."""
    shutil.copytree(src / "tpkit", Path(tmp) / "tpkit", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = tmp
    if no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        subprocess.run([sys.executable, "-m", "compileall", "-q", tmp], check=True, env=env)
    return env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--no-bytecode", action="store_true", help="compile tpkit from source on every run")
    ap.add_argument("--src", type=Path, default=SRC, help="the src folder holding the tpkit to time")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(args.no_bytecode, args.src, tmp)
        cmds = [[sys.executable, "-c", "pass"]] + [[sys.executable, "-m", "tpkit", *c] for c in CASES]
        for cmd in cmds:
            _once(cmd, env)  # warm the OS page cache
        times: list[list[float]] = [[] for _ in cmds]
        cpu: list[list[float]] = [[] for _ in cmds]
        for _ in range(args.runs):  # interleaved: load on the machine hits every command alike
            for i, cmd in enumerate(cmds):
                wall, used = _once(cmd, env)
                times[i].append(wall)
                cpu[i].append(used)
    mode = "tpkit compiled from source each run (PYTHONDONTWRITEBYTECODE=1, no __pycache__)" if args.no_bytecode \
        else "with bytecode"
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; {mode}; {args.runs} runs")
    print(f"{'command':62s} {'median_s':>9s} {'p90_s':>7s} {'- bare_s':>9s} {'cpu_s':>7s} {'- bare':>7s}")
    bmed, bcpu = _stats(times[0])[0], statistics.median(cpu[0])
    for cmd, t, c in zip(cmds, times, cpu):
        med, p90 = _stats(t)
        label = "python -c pass" if cmd[1] == "-c" else "tpkit " + " ".join(cmd[3:])
        c_med = statistics.median(c)
        print(f"{label[:62]:62s} {med:9.3f} {p90:7.3f} {med - bmed:9.3f} {c_med:7.3f} {c_med - bcpu:7.3f}")


if __name__ == "__main__":
    main()
