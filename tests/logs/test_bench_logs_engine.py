"""The benchmark logs read as the engine they are built for (tests/logs/bench_parse.py ``ENGINE``; helper tidy34,
session 34).  Session 33's 100 MB "traffic" log drew its filler from every corpus log, vLLM's worker-prefixed lines
among them, and read as vLLM although it starts with an SGLang start-up (docs/benchmarks.md §1.3);
bench/explain_speed.py now checks each log's engine before timing it."""

from __future__ import annotations

import pytest
from tests.scripts_testlib import ROOT, import_bench

from tpkit.logs import parse_log

explain_speed = import_bench("explain_speed")
bench_parse = explain_speed._load(ROOT / "tests" / "logs" / "bench_parse.py", "bench_parse")


@pytest.mark.parametrize("kind", sorted(bench_parse.ENGINE))
def test_each_log_reads_as_its_engine(kind):
    data = bench_parse.build(kind, 2)
    assert parse_log(data).engine.engine == bench_parse.ENGINE[kind]
    explain_speed.check_engine(kind, data, bench_parse.ENGINE[kind])  # passes: no exit


def test_the_filler_comes_from_the_engines_own_logs():
    for engine in ("sglang", "vllm"):
        quiet = set(bench_parse._quiet_lines(engine))
        assert quiet and quiet <= _lines_of(engine)


def _lines_of(engine: str) -> set[str]:
    lines = set()
    for path in (ROOT / "tests" / "logs" / "data" / engine).glob("*.log"):
        lines.update(path.read_text(encoding="utf-8", errors="replace").splitlines())
    return lines


def test_a_log_that_reads_as_another_engine_is_not_timed():
    data = bench_parse.build("traffic_vllm", 1)
    with pytest.raises(SystemExit) as stop:
        explain_speed.check_engine("traffic_vllm", data, "sglang")
    assert "reads as vllm, built as sglang" in str(stop.value.code)
