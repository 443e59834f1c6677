"""Numbers too long to read in a log line (helper tidy32, session 32; fixed by the lead after the merge): each raised on
c0ac6f97.  The rule: a number longer than ``logs.dumps.MAX_DIGITS`` (18 digits, what fits a 64-bit integer) in a
log's setting is a damaged line — no capture sizes are read from it, and a suffixed length is kept as written.

- ``fuzz_explain --seed 33`` case 3866 (tests/explain/data/fuzz_seed33_case3866.log): a 33,615-digit capture size
  in the compilation config; ``logs.graphsettings.compilation_pairs`` calls ``int()`` on it (ValueError, Python's
  4,300-digit int-conversion limit).
- a launch command's ``--max-model-len 999…9K`` (400 digits): ``logs.command._flag_value`` multiplies
  ``float(digits)`` (inf) by the suffix's scale and ``int()`` raises OverflowError.

The general rule either fix would follow: a number in a log line that does not fit a 64-bit integer is a damaged
line, not a setting (as ``logs.run._normal`` treats a group size below 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tpkit.explain import explain_log

CASE = Path(__file__).resolve().parents[1] / "explain" / "data" / "fuzz_seed33_case3866.log"


def test_a_capture_size_of_33615_digits_is_a_damaged_line_not_a_traceback():
    explain_log(CASE.read_bytes())


def test_the_damaged_capture_sizes_are_not_read_and_sane_ones_are():
    from tpkit.logs.graphsettings import compilation_pairs
    assert compilation_pairs({}, "'cudagraph_capture_sizes': [" + "9" * 40 + ", 8]") == []
    assert compilation_pairs({}, "'cudagraph_capture_sizes': [16, 8]") == [("cudagraph_capture_sizes", (16, 8))]


def test_a_suffixed_max_model_len_of_400_digits_is_a_damaged_flag_not_a_traceback():
    explain_log(b"INFO 04-30 10:20:35 [api_server.py:1043] vLLM API server version 0.8.5\n"
                b"vllm serve Qwen/Qwen3-8B --max-model-len " + b"9" * 400 + b"K\n")
