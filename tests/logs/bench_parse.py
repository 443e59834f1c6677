"""Time ``parse_log`` on 100 MB logs built from the real logs of tests/logs/data (not a test; run by hand).

    .venv/bin/python tests/logs/bench_parse.py --mb 100 --runs 3

Four logs, each a real start-up (sg_009: SGLang TP4 with a custom all-reduce warning; vl_021: a vLLM V1 TP start-up)
followed by filler of the same engine (``ENGINE``: a log reads as the engine it is built for, which
bench/explain_speed.py checks before timing):

- ``traffic``: the SGLang corpus's own lines that hold no keyword (request, progress and warning lines of the real
  logs, tests/logs/data/sglang/), repeated with their digits varied, as a long-running server's log looks;
- ``traffic_vllm``: the same from the vLLM corpus (tests/logs/data/vllm/) after vl_021.  Until session 34 both drew
  on every log of the corpus, so vLLM worker-prefixed lines filled the SGLang log and it read as vLLM (helper tidy34);
- ``unique`` / ``unique_vllm``: worst case for the template cache: every line distinct (a request log line with a
  random request id and random words, synthetic text in the engine's own request-log format, ``_request_line``).

Prints the median wall and CPU time of ``parse_log(bytes)`` (decoding included, file reading excluded); on a
shared machine the CPU time is the steadier figure.  Baseline in the same run: the CPU time of the least any
reader must do, decoding the bytes and counting the lines.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from tpkit.logs import parse_log  # noqa: E402
from tpkit.logs.prefilter import KEYWORDS, LOWER_TRIGGERS  # noqa: E402
from tpkit.logs.text import _MARK as START_MARK  # noqa: E402

_WORDS = ("the of and to in is you that it he was for on are as with his they at be this have from or one had by "
          "word but not what all were we when your can said there use an each which she do how their if will up "
          "other about out many then them these so some her would make like him into time has look two more").split()


ENGINE = {"traffic": "sglang", "traffic_vllm": "vllm", "unique": "sglang", "unique_vllm": "vllm"}
"""the engine each log is built to read as (its start's; its filler is drawn from that engine's logs, or written in
its request-log format): ``bench/explain_speed.py`` checks it before timing"""


@functools.lru_cache(maxsize=None)
def _quiet_lines(engine: str) -> tuple[str, ...]:
    """``engine``'s corpus lines (tests/logs/data/<engine>/) that hold no keyword and open no engine start."""
    lines = set()
    for path in sorted((HERE / "data" / engine).glob("*.log")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            # no keyword, and no line that opens an engine start (a long-running server's traffic holds none; a filler
            # line that did would make the log a chain of starts, logs.text.last_start)
            if (20 < len(line) < 400 and not KEYWORDS.search(line) and not any(w in line for w in LOWER_TRIGGERS)
                    and not START_MARK.search(line)):
                lines.add(line)
    return tuple(sorted(lines))


def _vary_digits(rng: random.Random, line: str) -> str:
    return "".join(str(rng.randrange(10)) if ch.isdigit() and rng.random() < 0.3 else ch for ch in line)


START = {"sglang": "sglang/sg_009.log", "vllm": "vllm/vl_021.log"}
"""the real start-up each engine's logs begin with (tests/logs/data/)"""


def _request_line(engine: str, rng: random.Random) -> str:
    """One distinct request log line in ``engine``'s format.  SGLang's ``--log-requests``: the tokenizer manager's
    ``logger.info(f"Receive: obj={dataclass_to_string_truncated(obj, …)}")`` under ``configure_logger``'s
    ``"[%(asctime)s{prefix}] %(message)s"`` (sglang 0.4.10 wheel, srt/managers/tokenizer_manager.py
    ``generate_request``, srt/utils.py); vLLM's ``RequestLogger`` 'Received request' line of the API server."""
    prompt = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(5, 40)))
    minute, second, rid = rng.randrange(60), rng.randrange(60), rng.getrandbits(128)
    if engine == "sglang":
        return (f"[2025-02-24 18:{minute:02d}:{second:02d}] Receive: obj=GenerateReqInput(text='{prompt}', "
                f"sampling_params={{'temperature': 0.7, 'max_new_tokens': 512}}, rid='{rid:032x}', stream=False)\n")
    return (f"(APIServer pid=1) INFO 09-23 18:{minute:02d}:{second:02d} [logger.py:43] "
            f"Received request chatcmpl-{rid:032x}: prompt: '{prompt}', params: "
            f"SamplingParams(n=1, temperature=0.7, max_tokens=512), lora_request: None.\n")


def build(kind: str, megabytes: int, seed: int = 0) -> bytes:
    """The ``kind`` log (``ENGINE``) of about ``megabytes`` MB: its engine's start-up, then filler of that engine."""
    rng = random.Random(seed)
    engine = ENGINE[kind]
    start = (HERE / "data" / START[engine]).read_text()
    parts, size, target = [start], len(start), megabytes * 1_000_000
    if kind.startswith("unique"):
        while size < target:
            line = _request_line(engine, rng)
            parts.append(line)
            size += len(line)
    else:
        quiet = _quiet_lines(engine)
        variants = [_vary_digits(rng, rng.choice(quiet)) + "\n" for _ in range(5000)]
        while size < target:
            line = variants[rng.randrange(len(variants))]
            parts.append(line)
            size += len(line)
    return "".join(parts).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for kind in ENGINE:
        data = build(kind, args.mb)
        tic = time.process_time()
        data.decode("utf-8", "replace").count("\n")
        baseline = time.process_time() - tic
        times, cpu = [], []
        for _ in range(args.runs):
            tic, cpu_tic = time.perf_counter(), time.process_time()
            parsed = parse_log(data)
            times.append(time.perf_counter() - tic)
            cpu.append(time.process_time() - cpu_tic)
        print(f"{kind:13s} {len(data) / 1e6:6.1f} MB  {parsed.line_count:>9,} lines  "
              f"median {statistics.median(times):.2f} s wall, {statistics.median(cpu):.2f} s CPU "
              f"(= {statistics.median(cpu) / baseline:.1f} × decode + count lines, {baseline:.2f} s)  "
              f"(wall runs: {', '.join(f'{t:.2f}' for t in times)})  anchors {len(parsed.anchors)}")


if __name__ == "__main__":
    main()
