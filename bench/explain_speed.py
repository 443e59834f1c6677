"""Speed of ``tpkit explain`` (docs/benchmarks.md §4): a 100 MB log, and the cold start without torch.

    python bench/explain_speed.py [--mb 100] [--runs 3] [--cold-runs 10] [--no-bytecode] [--src DIR]

1. ``explain_log`` on the 100 MB logs of tests/logs/bench_parse.py (an SGLang and a vLLM start-up, each followed by
   its engine's traffic lines, or by lines all distinct for the worst case), median wall and CPU time; and the CLI
   end to end (``tpkit explain FILE --json`` in a fresh interpreter: reading the file included).  Before timing, each
   log must read as the engine it is built for (``bench_parse.ENGINE``): a filler that tips the engine vote would
   time another reading (session 33's traffic log read as vLLM).
2. Cold start: ``tpkit explain --help`` and ``tpkit explain <synthetic Kimi log>`` against ``python -c pass``,
   interleaved in the same run (bench/cli_cold_start.py's method; --no-bytecode compiles tpkit from source on
   every run, PYTHONDONTWRITEBYTECODE=1).

``--src DIR`` times another tree's ``src`` (a baseline) on this tree's logs: the same inputs on both sides.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
"""the tpkit timed (``--src``); the logs are always built from this tree's tests/logs"""


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check_engine(kind: str, data: bytes, intended: str) -> None:
    """Exit (status 1) unless ``data`` reads as ``intended``: checked before the log is timed."""
    from tpkit.logs import parse_log

    got = parse_log(data).engine.engine
    if got != intended:
        sys.exit(f"bench: the {kind} log reads as {got}, built as {intended}: its filler is not {intended}'s "
                 "(tests/logs/bench_parse.py); not timed")


def big_logs(mb: int, runs: int) -> None:
    from tpkit.explain import explain_log

    bench_parse = _load(ROOT / "tests" / "logs" / "bench_parse.py", "bench_parse")
    for kind, engine in bench_parse.ENGINE.items():
        data = bench_parse.build(kind, mb)
        check_engine(kind, data, engine)
        walls, cpus = [], []
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            e = explain_log(data)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        with tempfile.NamedTemporaryFile(suffix=".log", delete=False) as fh:
            fh.write(data)
        env = {**os.environ, "PYTHONPATH": str(SRC)}
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tpkit", "explain", fh.name, "--json"], check=True,
                       stdout=subprocess.DEVNULL, env=env)
        cli = time.perf_counter() - t0
        os.unlink(fh.name)
        assert e.context.engine == engine, (kind, e.context.engine)
        print(f"{kind:12s} {len(data) / 1e6:6.1f} MB  explain_log wall {statistics.median(walls):5.2f} s  "
              f"cpu {statistics.median(cpus):5.2f} s  CLI end to end {cli:5.2f} s  "
              f"(kv printed {e.kv_printed}, engine {e.context.engine})")


def cold(runs: int, no_bytecode: bool) -> None:
    cc = _load(ROOT / "bench" / "cli_cold_start.py", "cli_cold_start")
    kimi = ROOT / "tests" / "logs" / "data" / "synthetic" / "kimi_k25_8x_rtx_pro_6000_sglang.log"
    with tempfile.TemporaryDirectory() as tmp:
        env = cc._env(no_bytecode, SRC, tmp)
        cmds = [[sys.executable, "-c", "pass"], [sys.executable, "-m", "tpkit", "explain", "--help"],
                [sys.executable, "-m", "tpkit", "explain", str(kimi), "--json"]]
        for cmd in cmds:
            cc._once(cmd, env)
        times = [[] for _ in cmds]
        cpu = [[] for _ in cmds]
        for _ in range(runs):
            for i, cmd in enumerate(cmds):
                wall, used = cc._once(cmd, env)
                times[i].append(wall)
                cpu[i].append(used)
    mode = "no bytecode (PYTHONDONTWRITEBYTECODE=1)" if no_bytecode else "with bytecode"
    print(f"cold start, {mode}, {runs} runs, load average {os.getloadavg()[0]:.1f}")
    bare, bare_cpu = statistics.median(times[0]), statistics.median(cpu[0])
    for cmd, t, c in zip(cmds, times, cpu):
        label = "python -c pass" if cmd[1] == "-c" else "tpkit " + " ".join(Path(x).name for x in cmd[3:])
        print(f"  {label:50s} median {statistics.median(t):6.3f} s  − bare {statistics.median(t) - bare:6.3f} s  "
              f"cpu {statistics.median(c):6.3f} s  − bare {statistics.median(c) - bare_cpu:6.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold-runs", type=int, default=10)
    ap.add_argument("--no-bytecode", action="store_true")
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the tpkit src to time (default: this tree's)")
    args = ap.parse_args()
    global SRC
    SRC = args.src.resolve()
    sys.path.insert(0, str(SRC))  # before anything imports tpkit: bench_parse's own path then finds it loaded
    import tpkit

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"tpkit from {Path(tpkit.__file__).parent.parent}")
    if not args.skip_big:
        big_logs(args.mb, args.runs)
    cold(args.cold_runs, args.no_bytecode)


if __name__ == "__main__":
    main()
