"""Cold-start wall time of `tpkit plan` (a fresh interpreter each run), against bare Python.

    python bench/cli_cold_start.py [--runs 20]

Prints the median and p90 wall time of `python -m tpkit plan MODEL --gpu GPU --tp 8` and of
`python -c pass` measured in the same run (the ratio is the figure to report).
Target (issue 2): under 0.3 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

CASES = [
    ["plan", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--mem-fraction-static", "0.85"],
    ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H100", "--json"],
]


def wall(cmd: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    wall([sys.executable, "-m", "tpkit", *CASES[0]], 2)  # warm the OS page cache / pyc files
    base = wall([sys.executable, "-c", "pass"], args.runs)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'command':70s} {'median_s':>9s} {'p90_s':>7s} {'x bare python':>14s}")
    bmed = statistics.median(base)
    print(f"{'python -c pass':70s} {bmed:9.3f} {sorted(base)[int(0.9 * len(base))]:7.3f} {1.0:14.1f}")
    for case in CASES:
        t = wall([sys.executable, "-m", "tpkit", *case], args.runs)
        med = statistics.median(t)
        label = "tpkit " + " ".join(case)
        print(f"{label[:70]:70s} {med:9.3f} {sorted(t)[int(0.9 * len(t))]:7.3f} {med / bmed:14.1f}")


if __name__ == "__main__":
    main()
