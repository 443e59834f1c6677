"""Cold-start wall time of `tpkit perf` (a fresh interpreter each run), next to `tpkit plan` and bare Python.

    python bench/decode_perf_cold_start.py [--runs 20]

Same method as bench/cli_cold_start.py (its ``_once`` runner, with bytecode), same run for every command,
so the ratios hold on a loaded machine.  Target (issue 13): `tpkit perf` under 0.3 s, no torch import.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_cold_start import _once  # noqa: E402


def wall(cmd: list[str], runs: int) -> list[float]:
    """Wall seconds of ``runs`` fresh runs of ``cmd`` (cli_cold_start's runner, this checkout's environment)."""
    return [_once(cmd, dict(os.environ))[0] for _ in range(runs)]

CASES = [
    ["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3", "--json"],
    ["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100"],
    ["plan", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--mem-fraction-static", "0.85"],
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    wall([sys.executable, "-m", "tpkit", *CASES[0]], 2)
    base = wall([sys.executable, "-c", "pass"], args.runs)
    bmed = statistics.median(base)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':95s} {'median_s':>9s} {'p90_s':>7s} {'x bare':>7s}")
    print(f"{'python -c pass':95s} {bmed:9.3f} {sorted(base)[int(0.9 * len(base))]:7.3f} {1.0:7.1f}")
    for case in CASES:
        t = wall([sys.executable, "-m", "tpkit", *case], args.runs)
        med = statistics.median(t)
        print(f"{('tpkit ' + ' '.join(case))[:95]:95s} {med:9.3f} {sorted(t)[int(0.9 * len(t))]:7.3f} {med / bmed:7.1f}")


if __name__ == "__main__":
    main()
