"""A log that holds thousands of engine starts (a server restarting in a loop, `>> server.log` over weeks).

``logs.text.last_start`` numbers each start by its line in the file.  It used to count the newlines from the top
of the file for every start, quadratic in a log with many starts (a 4 MB filler log of start lines took 0.97 s
instead of 0.17 s; the 100 MB benchmark did not finish in 10 minutes).  These tests pin the numbers it must give;
the speed is measured by bench/explain_speed.py (docs/benchmarks.md §4.3), not here.
"""

from __future__ import annotations

from tpkit.logs.text import last_start, starts_read

START = "(APIServer pid=1) INFO 12-06 05:00:00 [api_server.py:1] vLLM API server version 0.30.0\n"
FILLER = "(APIServer pid=1) INFO 12-06 05:00:01 [loggers.py:1] Engine 000: Avg prompt throughput: 0.0 tokens/s\n"


def _log(starts: int, filler: int) -> tuple[str, list[int]]:
    parts, first_lines, line = [], [], 1
    for _ in range(starts):
        first_lines.append(line)
        parts.append(START)
        parts.extend([FILLER] * filler)
        line += 1 + filler
    return "".join(parts), first_lines


def test_every_start_is_numbered_by_its_line_in_the_file():
    text, first_lines = _log(starts=3_000, filler=3)
    kept, notes = last_start(text)
    count, shown = starts_read(notes)
    assert count == 3_000
    assert shown.split(", ")[:8] == [str(n) for n in first_lines[:8]]
    assert f"from line {first_lines[-1]}," in notes[0]
    # the lines before the last start are blanked, so line numbers stay the file's
    assert kept.count("\n") == text.count("\n")
    assert kept.splitlines()[first_lines[-1] - 1] == START.rstrip("\n")
    assert not kept.splitlines()[first_lines[-2] - 1]


def test_a_single_start_is_left_alone():
    text, _ = _log(starts=1, filler=5)
    assert last_start(text) == (text, ())
