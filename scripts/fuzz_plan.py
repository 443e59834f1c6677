#!/usr/bin/env python3
"""Fuzz the ``tpkit`` CLI: ``plan`` flags, mutated config.json files, fake safetensors headers, machine.json
profiles, and ``probe`` / ``bench allreduce`` flags on a CPU. Seeded and replayable.

    python scripts/fuzz_plan.py --cases 12000 --seed 1 [--jobs 2] [--report findings.md]
    python scripts/fuzz_plan.py --seed 1 --replay 4711        # one case, with its files kept and its traceback

Each case runs the CLI in-process (``tpkit.cli.main``) in a worker process that has a memory cap and a
watchdog, and is classified:

    ok           exit 0 (plans with --json are then checked by ``fuzz_rules.check_plan``)
    user_error   exit 2 with a message
    traceback    an exception escaped (grouped by type + innermost tpkit function)
    impossible   exit 0 but a rule is broken, broken input was accepted, or a temp file was left behind
    timeout      the case ran past its time limit (killed)

The summary groups tracebacks and impossible answers by signature, with one reproducer each.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shlex
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from multiprocessing import Pipe, get_context
from multiprocessing.connection import wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_cases import make_case  # noqa: E402
from fuzz_rules import check_plan  # noqa: E402

__all__ = ["run_case", "run_cases", "summarize", "format_report", "OUTCOMES", "signature"]

OUTCOMES = ("ok", "user_error", "traceback", "impossible", "timeout")
MEMORY_CAP = 3 * 2**30
"""bytes of address space data a worker may use (RLIMIT_DATA): a case that asks for more gets MemoryError"""


# ---- one case ------------------------------------------------------------------------------------------------

def materialise(case: dict, root: Path) -> list[str]:
    """Write the case's files under ``root``; return argv with ``{D}`` replaced."""
    for rel, spec in sorted(case["files"].items(), key=lambda kv: kv[0].count("/")):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if "dir" in spec:
            path.mkdir(exist_ok=True)
        elif "symlink" in spec:
            path.symlink_to(spec["symlink"])
        elif "text" in spec:
            path.write_bytes(spec["text"].encode("utf-8", "surrogateescape"))
        elif "safetensors" in spec:
            st = spec["safetensors"]
            head = st["header"] if isinstance(st["header"], str) else json.dumps(st["header"])
            raw = head.encode("utf-8", "surrogateescape")
            size = st["declared_len"] if st["declared_len"] is not None else len(raw)
            path.write_bytes(size.to_bytes(8, "little") + raw + bytes(min(st["data_len"], 2**24)))
    for rel, spec in case["files"].items():
        if "mode" in spec:
            os.chmod(root / rel, spec["mode"])
    return [a.replace("{D}", str(root)) for a in case["argv"]]


def signature(exc: BaseException) -> str:
    """``Type in tpkit/file.py:function``: the innermost frame inside the tpkit package."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if "/tpkit/" in f.filename.replace("\\", "/")]
    f = (mine or frames or [None])[-1]
    where = "?" if f is None else f"{f.filename.replace(os.sep, '/').split('/tpkit/')[-1]}:{f.name}"
    return f"{type(exc).__name__} in {where}"


def run_cli(argv: list[str]) -> tuple[int, str, str, BaseException | None]:
    """Run ``tpkit ARGV`` in this process: (exit code, stdout, stderr, escaped exception or None)."""
    from tpkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    exc = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        except Exception as e:  # noqa: BLE001 - this is what the fuzzer looks for
            rc, exc = 1, e
        except RecursionError as e:  # pragma: no cover - RecursionError is an Exception; kept explicit
            rc, exc = 1, e
    return rc, out.getvalue(), err.getvalue(), exc


def _replan(argv: list[str]):
    rc, out, err, exc = run_cli(argv)
    if exc is not None:
        return f"traceback {signature(exc)}"
    if rc not in (0, 3):  # 3: DOES NOT FIT / WILL NOT START, whose JSON plan check_plan reads
        return f"exit {rc}: {err.strip()[:200]}"
    try:
        return json.loads(out)
    except json.JSONDecodeError:
        return "no JSON on stdout"


def _leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.name.startswith(".") and "tmp" in p.name)


def run_case(case: dict) -> dict:
    """Run one case in this process and classify it."""
    saved = {k: os.environ.get(k) for k in case["env"]}
    os.environ.update(case["env"])
    cwd = os.getcwd()
    try:
        with tempfile.TemporaryDirectory(prefix="tpkit-fuzz-") as d:
            root = Path(d)
            try:
                argv = materialise(case, root)
            except OSError as e:
                return {"outcome": "ok", "detail": f"case not materialised: {e}", "id": case["id"]}
            os.chdir(root)
            try:
                result = _classify(case, argv, root)
            finally:
                os.chdir(cwd)
                for rel, spec in case["files"].items():
                    if "mode" in spec:
                        os.chmod(root / rel, 0o700)
            return result
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _classify(case: dict, argv: list[str], root: Path) -> dict:
    t0 = time.perf_counter()
    rc, out, err, exc = run_cli(argv)
    res = {"id": case["id"], "area": case["area"], "rc": rc, "seconds": round(time.perf_counter() - t0, 3)}
    if exc is not None:
        tail = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
        return {**res, "outcome": "traceback", "signature": signature(exc), "detail": (tail[-1] if tail else "")[:300]}
    if rc == 2:
        if not err.strip():
            return {**res, "outcome": "impossible", "signature": "user error without a message", "detail": ""}
        return {**res, "outcome": "user_error", "detail": err.strip().splitlines()[-1][:200]}
    if rc not in (0, 3):
        return {**res, "outcome": "traceback", "signature": f"exit {rc} without a traceback", "detail": err[-300:]}
    problems = []
    if case.get("expect") == "error":
        problems.append(f"broken input accepted ({case['area']})")
    if case.get("output_dir"):
        problems += [f"temp file left behind: {p}" for p in _leftovers(root)]
    if argv[:1] == ["plan"] and "--json" in argv:
        try:
            plan = json.loads(out)
        except json.JSONDecodeError:
            problems.append("plan --json printed no JSON")
        else:
            problems += check_plan(plan, argv, _replan)
    if problems:
        return {**res, "outcome": "impossible", "signature": _rule_signature(problems[0], argv),
                "detail": "; ".join(problems)[:400]}
    return {**res, "outcome": "ok"}


def _rule_signature(problem: str, argv: list[str]) -> str:
    """Group an impossible answer by its rule and the engine (numbers stripped)."""
    import re

    rule = re.sub(r"-?\d[\d,.]*(e[+-]?\d+)?", "N", problem.split(" → ")[0])
    rule = re.sub(r"\[N\]", "[i]", rule)
    engine = argv[argv.index("--engine") + 1] if "--engine" in argv else "sglang"
    return f"{rule} [{engine}]" if argv[:1] == ["plan"] else rule


# ---- workers -------------------------------------------------------------------------------------------------

def _worker(conn, stack_file: str) -> None:
    import faulthandler

    os.setpgrp()  # the watchdog kills this worker with everything it spawned
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1), os.dup2(null, 2)  # bench ranks print to the inherited descriptors
    stacks = open(stack_file, "w")  # noqa: SIM115 - lives as long as the worker
    soft = min(MEMORY_CAP, resource.getrlimit(resource.RLIMIT_DATA)[1])
    resource.setrlimit(resource.RLIMIT_DATA, (soft, resource.getrlimit(resource.RLIMIT_DATA)[1]))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    while True:
        case = conn.recv()
        if case is None:
            return
        stacks.seek(0), stacks.truncate()
        faulthandler.dump_traceback_later(max(case["timeout_s"] - 1, 0.5), file=stacks)
        try:
            result = run_case(case)
        except BaseException as e:  # noqa: BLE001 - the harness itself must keep going
            result = {"id": case["id"], "area": case["area"], "outcome": "traceback",
                      "signature": f"harness: {signature(e)}", "detail": repr(e)[:300]}
        faulthandler.cancel_dump_traceback_later()
        conn.send(result)


def _stuck_in(stack_file: str) -> str:
    """The innermost tpkit function of the stack faulthandler dumped just before the time limit."""
    try:
        text = Path(stack_file).read_text(errors="replace")
    except OSError:
        return "?"
    for line in text.splitlines():  # most recent call first
        if "/tpkit/" in line and 'File "' in line:
            path = line.split('File "', 1)[1].split('"', 1)[0].split("/tpkit/")[-1]
            return f"{path}:{line.rsplit(' in ', 1)[-1].strip()}"
    return "?"


class _Pool:
    """Workers with a per-case watchdog: a case past its time limit is killed with its process group."""

    def __init__(self, jobs: int, tmp: str):
        self.ctx, self.tmp = get_context("fork"), tmp
        self.slots = [self._spawn(i) for i in range(jobs)]

    def _spawn(self, i: int):
        parent, child = Pipe()
        stack_file = os.path.join(self.tmp, f"stack-{i}.txt")
        proc = self.ctx.Process(target=_worker, args=(child, stack_file))  # not daemonic: bench spawns ranks
        proc.start()
        child.close()
        return {"proc": proc, "conn": parent, "case": None, "t0": 0.0, "stack_file": stack_file, "i": i}

    def _kill(self, slot) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(slot["proc"].pid, signal.SIGKILL)
        slot["proc"].join(5)

    def run(self, cases, on_result) -> None:
        pending = list(reversed(cases))
        while pending or any(s["case"] for s in self.slots):
            for s in self.slots:
                if s["case"] is None and pending:
                    s["case"], s["t0"] = pending.pop(), time.monotonic()
                    s["conn"].send(s["case"])
            busy = [s for s in self.slots if s["case"] is not None]
            ready = wait([s["conn"] for s in busy], timeout=0.5)
            for s in busy:
                if s["conn"] in ready:
                    try:
                        result = s["conn"].recv()
                    except (EOFError, OSError):
                        result = self._dead(s, "worker died (killed by the kernel? out of memory?)")
                    else:
                        s["case"] = None
                    on_result(result)
                elif time.monotonic() - s["t0"] > s["case"]["timeout_s"]:
                    on_result(self._dead(s, f"ran past {s['case']['timeout_s']} s"))

    def _dead(self, s, why: str) -> dict:
        case = s["case"]
        where = _stuck_in(s["stack_file"])
        self._kill(s)
        s.update(self._spawn(s["i"]))
        return {"id": case["id"], "area": case["area"], "outcome": "timeout", "signature": f"timeout in {where}",
                "detail": why}

    def close(self) -> None:
        for s in self.slots:
            with contextlib.suppress(OSError):
                s["conn"].send(None)
            s["proc"].join(5)
            if s["proc"].is_alive():
                self._kill(s)


def run_cases(seed: int, n: int, *, jobs: int = 2, quick: bool = False, max_timeout_s: float | None = None,
              progress=None) -> tuple[list[dict], dict]:
    """Generate and run cases ``0..n-1`` of ``seed``; return (results sorted by id, cases by id).

    ``quick``: bench cases only validate flags; ``max_timeout_s`` caps each case's time limit.
    """
    cases = {i: make_case(seed, i, quick=quick) for i in range(n)}
    if max_timeout_s is not None:
        for c in cases.values():
            c["timeout_s"] = min(c["timeout_s"], max_timeout_s)
    results: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tpkit-fuzz-pool-") as tmp:
        pool = _Pool(jobs, tmp)
        try:
            def on_result(r):
                results.append(r)
                if progress and len(results) % progress == 0:
                    print(f"  {len(results)}/{n} cases", file=sys.stderr, flush=True)
            pool.run(list(cases.values()), on_result)
        finally:
            pool.close()
    return sorted(results, key=lambda r: r["id"]), cases


# ---- summary -------------------------------------------------------------------------------------------------

def summarize(results: list[dict]) -> dict:
    """Totals by outcome and area, and the groups of tracebacks / impossible answers / timeouts."""
    by_outcome = Counter(r["outcome"] for r in results)
    by_area: dict[str, Counter] = defaultdict(Counter)
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in results:
        by_area[r["area"]][r["outcome"]] += 1
        if r["outcome"] in ("traceback", "impossible", "timeout"):
            groups[(r["outcome"], r["signature"])].append(r)
    return {"cases": len(results), "by_outcome": dict(by_outcome),
            "by_area": {a: dict(c) for a, c in sorted(by_area.items())},
            "groups": sorted(((o, s, rs) for (o, s), rs in groups.items()), key=lambda g: (g[0], -len(g[2])))}


def reproducer(case: dict) -> str:
    """A shell command that reproduces the case."""
    if not case["files"] and not case["env"] and "{D}" not in " ".join(case["argv"]):
        return "tpkit " + shlex.join(case["argv"])
    return f"python scripts/fuzz_plan.py --seed {case['seed']} --replay {case['id']}"


def format_report(summary: dict, cases: dict, *, seed: int, seconds: float) -> str:
    s = summary
    lines = [f"cases {s['cases']:,} (seed {seed}, {seconds:.0f} s): "
             + ", ".join(f"{o} {s['by_outcome'].get(o, 0):,}" for o in OUTCOMES), "",
             "| area | " + " | ".join(OUTCOMES) + " |", "|---|" + "---:|" * len(OUTCOMES)]
    for area, c in s["by_area"].items():
        lines.append(f"| {area} | " + " | ".join(f"{c.get(o, 0):,}" for o in OUTCOMES) + " |")
    for outcome, sig, rs in s["groups"]:
        first = cases[rs[0]["id"]]
        areas = Counter(r["area"] for r in rs)
        lines += ["", f"### {outcome}: {sig}",
                  f"- count: {len(rs)} ({', '.join(f'{a} {n}' for a, n in areas.most_common())})",
                  f"- example: case {first['id']}: {first['note']}",
                  f"- detail: {rs[0].get('detail', '')}",
                  f"- reproduce: `{reproducer(first)}`"]
        if first["files"] or first["env"]:
            lines.append(f"- argv: `{shlex.join(first['argv'])}`" + (f" env {first['env']}" if first["env"] else ""))
    return "\n".join(lines) + "\n"


def replay(seed: int, index: int) -> int:
    """Run one case with its files kept under a printed directory, showing any traceback."""
    case = make_case(seed, index)
    root = Path(tempfile.mkdtemp(prefix=f"tpkit-fuzz-{index}-"))
    argv = materialise(case, root)
    print(f"case {index}: {case['note']}\nfiles under {root}\nenv {case['env']}\n$ tpkit {shlex.join(argv)}",
          file=sys.stderr)
    os.environ.update(case["env"])
    from tpkit.cli import main

    return main(argv)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=12_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--report", default=None, help="write the summary (markdown) to this file")
    p.add_argument("--json", default=None, help="write every case's result to this file")
    p.add_argument("--replay", type=int, default=None, metavar="ID", help="run one case and show its traceback")
    args = p.parse_args(argv)
    if args.replay is not None:
        return replay(args.seed, args.replay)
    t0 = time.perf_counter()
    results, cases = run_cases(args.seed, args.cases, jobs=args.jobs, progress=1000)
    summary = summarize(results)
    report = format_report(summary, cases, seed=args.seed, seconds=time.perf_counter() - t0)
    print(report)
    if args.report:
        Path(args.report).write_text(report)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
