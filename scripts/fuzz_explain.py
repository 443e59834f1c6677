"""Fuzz ``tpkit explain``: mutated, truncated, glued, re-encoded and garbage versions of the real logs in
tests/logs/data (the mutations of scripts/fuzz_logs.py), each explained through the CLI's ``main`` with random
flags (``--json``, ``--rank``, ``--model``, ``--gpu``, ``--tp`` …, some of them wrong).  A case passes when
``main`` returns 0 or 2 (or argparse exits 2) and nothing raises: no traceback.

    .venv/bin/python scripts/fuzz_explain.py --count 5000 --seed 1

Exit code 0 when every case passed, 1 otherwise (the mutation chain, flags and traceback are printed).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import random
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tpkit.cli import main as tpkit_main  # noqa: E402


_PRINTED_TRACEBACK = re.compile(r"(?m)^Traceback \(most recent call last\):")

def _fuzz_logs():
    spec = importlib.util.spec_from_file_location("fuzz_logs", ROOT / "scripts" / "fuzz_logs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fuzz_logs", module)
    spec.loader.exec_module(module)
    return module


_FLAG_CHOICES = (
    [], ["--json"], ["--rank", "0"], ["--rank", "3"], ["--rank", "TP1"], ["--rank", "no-such-rank"],
    ["--model", "meta-llama/Llama-3.1-8B-Instruct"], ["--model", "no/such-model"], ["--gpu", "H100"],
    ["--gpu", "no-such-gpu"], ["--gpu-memory", "80"], ["--gpu-memory", "80GiB"], ["--tp", "4"], ["--tp", "0"],
    ["--engine", "sglang"], ["--engine", "vllm"], ["--mem-fraction-static", "0.8"], ["--gpu-memory-utilization", "2"],
    ["--context-length", "4096"], ["--kv-cache-dtype", "fp8_e4m3"], ["--engine-version", "0.4.6"],
)


def _flags(rng: random.Random) -> list[str]:
    out = []
    for _ in range(rng.randrange(0, 4)):
        out += rng.choice(_FLAG_CHOICES)
    return out


def run(*, count: int, seed: int, huge_line: int = 3 << 20) -> dict:
    fuzz = _fuzz_logs()
    fuzz._LIMITS["huge_line"] = huge_line
    rng = random.Random(seed)
    errors, codes, started, slowest = [], {}, time.perf_counter(), (0.0, -1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.log")
        for index in range(count):
            data, chain = fuzz.case(rng)
            flags = _flags(rng)
            with open(path, "wb") as fh:
                fh.write(data)
            tic = time.perf_counter()
            out, err = io.StringIO(), io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    try:
                        code = tpkit_main(["explain", path, *flags])
                    except SystemExit as exc:  # argparse: a bad flag value
                        code = exc.code
            except Exception:  # noqa: BLE001 - the point is to catch anything
                errors.append({"case": index, "chain": chain, "flags": flags, "traceback": traceback.format_exc()})
                continue
            codes[code] = codes.get(code, 0) + 1
            # a printed traceback starts a line; the refusal of a garbage file may quote the file's own first
            # bytes, which can hold the word (a log that begins with a traceback)
            if code not in (0, 2) or _PRINTED_TRACEBACK.search(err.getvalue()):
                errors.append({"case": index, "chain": chain, "flags": flags,
                               "traceback": f"exit {code}; stderr: {err.getvalue()[-2000:]}"})
            slowest = max(slowest, (time.perf_counter() - tic, index))
    return {"count": count, "seed": seed, "errors": errors, "exit_codes": codes,
            "seconds": round(time.perf_counter() - started, 1),
            "slowest_case": {"seconds": round(slowest[0], 3), "case": slowest[1]}}


def _show(report: dict) -> None:
    kinds = {}
    for error in report["errors"]:
        kinds.setdefault(error["traceback"].strip().splitlines()[-1], []).append(error["case"])
    for last, which in kinds.items():
        print(f"{len(which)} × {last} (cases {which[:8]})")
    for error in report["errors"][:3]:
        print(f"case {error['case']} ({' → '.join(error['chain'])}; flags {error['flags']}):\n{error['traceback']}")
    print(f"{report['count']} cases, seed {report['seed']}: {len(report['errors'])} failed, exit codes "
          f"{report['exit_codes']}, {report['seconds']} s; slowest case {report['slowest_case']}")


def main() -> int:
    return _fuzz_logs().fuzz_main(__doc__, run, _show)


if __name__ == "__main__":
    sys.exit(main())
