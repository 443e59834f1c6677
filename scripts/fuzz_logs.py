"""Fuzz the log reader: mutated, truncated, glued, re-encoded and garbage versions of the real logs in
tests/logs/data, each read in full (parse, JSON, rank selection).  No case may raise.

    .venv/bin/python scripts/fuzz_logs.py --count 5000 --seed 1

Prints a summary; exit code 0 when every case was read, 1 when one raised (its mutation chain and
traceback are printed, so the case can be replayed with the same seed).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tpkit.logs import parse_log  # noqa: E402

DATA = ROOT / "tests" / "logs" / "data"
_NOISE = [b"\x1b[31m", b"\x1b[0m", b"[0;36m", b"\r", b"\r\n", b"\x00", b"\xff", b"\xc3", b"\xe2\x82", b"\t",
          b"\\\n", b"(VllmWorker rank=9 pid=1) ", b"[2025-01-01 00:00:00 TP9] ", b"Traceback (most recent call last):\n",
          b'  File "/x/cuda_graph_runner.py", line 1, in capture\n', b"GiB", b" GB", b"=", b",", b"(", b")", b"{", b"'",
          b"KV Cache is allocated. #tokens: ", b"Tried to allocate ", b"ServerArgs(", b"non-default args: {"]


def _corpus() -> list[bytes]:
    return [p.read_bytes() for p in sorted(DATA.glob("*/*.log"))]


def _truncate(rng, data):
    return data[: rng.randrange(len(data) + 1)]


def _delete_lines(rng, data):
    lines = data.split(b"\n")
    return b"\n".join(l for l in lines if rng.random() > 0.3)


def _duplicate_lines(rng, data):
    lines = data.split(b"\n")
    return b"\n".join(l for l in lines for _ in range(rng.choice((1, 1, 2, 3))))


def _shuffle_blocks(rng, data):
    lines = data.split(b"\n")
    blocks = [lines[i:i + 3] for i in range(0, len(lines), 3)]
    rng.shuffle(blocks)
    return b"\n".join(l for b in blocks for l in b)


def _glue(rng, data):
    return data.replace(b"\n", b" ", rng.randrange(1, 200))


def _insert_noise(rng, data):
    out = bytearray(data)
    for _ in range(rng.randrange(1, 30)):
        out[rng.randrange(len(out) + 1):0] = rng.choice(_NOISE)
    return bytes(out)


def _flip_bytes(rng, data):
    out = bytearray(data)
    for _ in range(rng.randrange(1, 50)):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _digits(rng, data):
    table = bytes.maketrans(b"0123456789", bytes(rng.sample(b"0123456789-.", 10)))
    return data.translate(table)


def _recode(rng, data):
    text = data.decode("utf-8", "replace")
    return rng.choice([text.encode("utf-16"), text.encode("utf-16-le"), b"\xef\xbb\xbf" + data, text.encode("latin-1", "replace")])


def _huge_line(rng, data):
    cut, filler = rng.randrange(len(data) + 1), rng.choice([b"x", b"9", b"[", b"GiB ", b"avail mem="])
    return data[:cut] + filler * (rng.randrange(1 << 14, _LIMITS["huge_line"]) // len(filler)) + data[cut:]


def _garbage(rng, data):
    return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 4000)))


def _mix(rng, data):
    other = rng.choice(_CORPUS)
    return data[: len(data) // 2] + other[len(other) // 2:]


_LIMITS = {"huge_line": 3 << 20}
"""longest inserted line, bytes (the test suite's sample uses a smaller one to stay fast)"""
MUTATIONS = (_truncate, _delete_lines, _duplicate_lines, _shuffle_blocks, _glue, _insert_noise, _flip_bytes, _digits,
             _recode, _huge_line, _garbage, _mix)
_CORPUS = _corpus()


def case(rng: random.Random) -> tuple[bytes, list[str]]:
    """One fuzz case: a corpus log with 1–4 mutations, and their names."""
    data = rng.choice(_CORPUS)
    chain = []
    for _ in range(rng.randrange(1, 5)):
        mutate = rng.choice(MUTATIONS)
        if mutate is _huge_line and rng.random() > 0.1:
            mutate = _insert_noise
        data = mutate(rng, data)
        chain.append(mutate.__name__.lstrip("_"))
    return data, chain


def read_fully(data: bytes) -> None:
    parsed = parse_log(data)
    json.dumps(parsed.to_dict())
    parsed.select_rank()
    _ = parsed.status, parsed.primary_failure


def run(*, count: int, seed: int, huge_line: int = 3 << 20) -> dict:
    """Read ``count`` fuzz cases; the report lists every case that raised."""
    _LIMITS["huge_line"] = huge_line
    rng = random.Random(seed)
    errors, started, slowest = [], time.perf_counter(), (0.0, -1, [])
    for index in range(count):
        data, chain = case(rng)
        tic = time.perf_counter()
        try:
            read_fully(data)
        except Exception:  # noqa: BLE001 - the point is to catch anything
            errors.append({"case": index, "chain": chain, "traceback": traceback.format_exc()})
        slowest = max(slowest, (time.perf_counter() - tic, index, chain))
    return {"count": count, "seed": seed, "errors": errors, "seconds": round(time.perf_counter() - started, 1),
            "corpus_logs": len(_CORPUS), "slowest_case": {"seconds": round(slowest[0], 2), "case": slowest[1],
                                                          "chain": slowest[2]}}


def fuzz_main(doc: str, run, show) -> int:
    """The command line of the log fuzzers (this script, scripts/fuzz_explain.py): ``--count`` and ``--seed``, then
    ``run(count=, seed=)``; ``show(report)`` prints the report.  Exit code 1 when a case failed, else 0."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    report = run(count=args.count, seed=args.seed)
    show(report)
    return 1 if report["errors"] else 0


def _show(report: dict) -> None:
    for error in report["errors"][:5]:
        print(f"case {error['case']} ({' → '.join(error['chain'])}):\n{error['traceback']}")
    print(f"{report['count']} cases from {report['corpus_logs']} real logs, seed {report['seed']}: "
          f"{len(report['errors'])} raised, {report['seconds']} s; slowest case {report['slowest_case']}")


def main() -> int:
    return fuzz_main(__doc__, run, _show)


if __name__ == "__main__":
    sys.exit(main())
