"""Cold-start wall time of `tpkit plan`, `perf` and `explain` (a fresh interpreter each run), against bare Python.

    python bench/cli_cold_start.py [--runs 20] [--no-bytecode] [--src DIR] [--baseline-src DIR]

Prints the median and p90 wall time of each case below and of `python -c pass`, measured in the same run
and interleaved (so a busy machine slows both alike), and the median CPU time (user + system), which a
busy machine inflates less; the difference to bare Python is tpkit's own share.

tpkit's sources (``--src``, default this checkout's ``src``) are copied to a temporary folder and
byte-compiled there first; with --no-bytecode they are not, and the runs set PYTHONDONTWRITEBYTECODE=1,
so every tpkit module is compiled from source on every run: what a user gets after
``pip install --no-compile`` or with a read-only install.  Third-party packages keep their bytecode.
Target (issue 10): under 0.3 s median for `tpkit plan` with --no-bytecode.

With ``--baseline-src DIR`` (e.g. ``git archive main src | tar -x -C /tmp/old``, DIR ``/tmp/old/src``) a second
tpkit is timed in the same run, every command interleaved with this one's, and the table gains its rows and the
ratio of the two (this / baseline; CPU time is the steadier figure on a busy machine).
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
    """A copy of tpkit under ``tmp`` (a folder of its own): without bytecode (and none written), or byte-compiled
    beforehand."""
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
    ap.add_argument("--baseline-src", type=Path, default=None,
                    help="a second src folder, timed in the same run (interleaved) for a before/after ratio")
    args = ap.parse_args()
    trees = [("", args.src)] + ([("baseline ", args.baseline_src)] if args.baseline_src else [])
    with tempfile.TemporaryDirectory() as tmp:
        envs = [_env(args.no_bytecode, src, str(Path(tmp) / str(i))) for i, (_, src) in enumerate(trees)]
        cmds = [([sys.executable, "-c", "pass"], envs[0], "")]
        for c in CASES:
            cmds += [([sys.executable, "-m", "tpkit", *c], env, tag) for env, (tag, _) in zip(envs, trees)]
        for cmd, env, _ in cmds:
            _once(cmd, env)  # warm the OS page cache
        times: list[list[float]] = [[] for _ in cmds]
        cpu: list[list[float]] = [[] for _ in cmds]
        for _ in range(args.runs):  # interleaved: load on the machine hits every command alike
            for i, (cmd, env, _) in enumerate(cmds):
                wall, used = _once(cmd, env)
                times[i].append(wall)
                cpu[i].append(used)
    mode = "tpkit compiled from source each run (PYTHONDONTWRITEBYTECODE=1, no __pycache__)" if args.no_bytecode \
        else "with bytecode"
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; {mode}; {args.runs} runs; load average at the end "
          f"{os.getloadavg()[0]:.1f}")
    if args.baseline_src:
        print(f"tree: {args.src}; baseline: {args.baseline_src}")
    print(f"{'command':62s} {'median_s':>9s} {'p90_s':>7s} {'- bare_s':>9s} {'cpu_s':>7s} {'- bare':>7s}")
    bmed, bcpu = _stats(times[0])[0], statistics.median(cpu[0])
    rows = {}
    for (cmd, _, tag), t, c in zip(cmds, times, cpu):
        med, p90 = _stats(t)
        label = tag + ("python -c pass" if cmd[1] == "-c" else "tpkit " + " ".join(cmd[3:]))
        c_med = statistics.median(c)
        rows[(tag, tuple(cmd))] = (med, c_med)
        print(f"{label[:62]:62s} {med:9.3f} {p90:7.3f} {med - bmed:9.3f} {c_med:7.3f} {c_med - bcpu:7.3f}")
    if args.baseline_src:
        print(f"{'this / baseline':62s} {'median':>9s} {'- bare':>9s} {'cpu':>7s} {'- bare':>7s}")
        for c in CASES:
            key = tuple([sys.executable, "-m", "tpkit", *c])
            (m1, c1), (m0, c0) = rows[("", key)], rows[("baseline ", key)]
            label = "tpkit " + " ".join(c)
            print(f"{label[:62]:62s} {m1 / m0:9.2f} {(m1 - bmed) / (m0 - bmed):9.2f} {c1 / c0:7.2f} "
                  f"{(c1 - bcpu) / (c0 - bcpu):7.2f}")


if __name__ == "__main__":
    main()
