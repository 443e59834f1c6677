"""A log pasted into markdown (a GitHub issue, a README, notes) reads as the engine printed it: blockquote markers
before a line (``logs.text.unquote_markdown``) and inline-code backticks around a memory line or only its value
(``logs.rules.apply_rules``) are dropped; a prose sentence stays prose.  Helper nb13 (2026-12-05)."""

from __future__ import annotations

import pytest
from logs_testlib import cases, log_bytes

from tpkit.logs import parse_log


def _anchors(text: str) -> dict[str, str]:
    return {a.name: (a.size.text if a.size else a.count.text) for a in parse_log(text).anchors}


def _read(text: str) -> tuple:
    """Everything the reader takes from a log that the quoting must not change: anchors and settings."""
    parsed = parse_log(text)
    return (sorted((a.name, a.rank.label, str(a.group), str(a.size), str(a.count), a.line_no) for a in parsed.anchors),
            sorted((s.name, repr(s.value)) for s in parsed.settings))


@pytest.mark.parametrize("line, name, text", [
    ("- GPU KV cache size: `418,304 tokens`", "kv_tokens", "418,304"),                 # vl_862's bullet
    ("GPU KV cache size: `12,345` tokens", "kv_tokens", "12,345"),
    ("Available KV cache memory: `9.1 GiB`", "available_kv", "9.1 GiB"),
    ("`Available KV cache memory: 9.1 GiB`", "available_kv", "9.1 GiB"),
    ("> `GPU KV cache size: 12,345 tokens`", "kv_tokens", "12,345"),
    ("> > INFO 07-22 10:11:12 [gpu_worker.py:1] Available KV cache memory: 9.1 GiB", "available_kv", "9.1 GiB"),
    ("[2026-01-02 03:04:05 TP0] Load weight end. type=X, avail mem=`70.10 GB`, mem usage=`8.20 GB`.",
     "load_end_avail", "70.10 GB"),
])
def test_a_quoted_memory_line_is_read(line, name, text):
    assert _anchors(line + "\n").get(name) == text


@pytest.mark.parametrize("line", [
    "We measured 267,842 tokens of KV cache on the L4.",
    "**Tokens: predicted 398,458, measured 267,842.**",
    "Available KV cache memory (after we raised the utilization): 30.52 GiB",   # the writer's words, not a 'per'
    "Available KV cache memory (per GPU 0 of 8): 30.52 GiB",   # a digit in the parenthesis: not the restated meaning
])
def test_prose_stays_prose(line):
    """Helper cap14 (2026-12-05): vl_862's '(per GPU worker)' is now read (test_per_worker_qualifier_is_read); a
    parenthesis that does not restate the per-worker meaning stays prose."""
    assert "kv_tokens" not in _anchors(line) and "available_kv" not in _anchors(line)


def test_backticks_still_end_a_command_in_prose():
    settings = {s.name: s.value for s in parse_log("If you run `vllm serve` without `--kv-cache-dtype fp8`, it fails.\n").settings}
    assert settings.get("model") != "without"


def _sample() -> list[str]:
    ids = [c["id"] for c in cases()]
    return sorted(set(ids[::12]) | {"vl_521", "vl_540", "vl_879", "sg_011", "vl_075"} & set(ids))


def _text(case_id: str) -> str:
    """the log with its line ends made Unix ones, so that the quoting adds nothing but the markup"""
    return log_bytes(case_id).decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


@pytest.mark.parametrize("case_id", _sample())
def test_a_blockquoted_log_reads_as_the_log(case_id):
    # every line quoted with '> ' (a GitHub reply); a launch command's continuation lines were read as '>' before
    text = _text(case_id)
    quoted = "\n".join("> " + line if line.strip() else ">" for line in text.split("\n"))
    assert _read(quoted) == _read(text)


@pytest.mark.parametrize("case_id", _sample())
def test_backticked_lines_give_the_same_anchors(case_id):
    text = _text(case_id)
    ticked = "\n".join("`" + line + "`" if line.strip() else line for line in text.split("\n"))
    assert _read(ticked)[0] == _read(text)[0]


@pytest.mark.parametrize("line, text", [
    ("    - Available KV cache memory (per GPU worker): `30.52 GiB`", "30.52 GiB"),   # vl_862's bullet
    ("| Available KV cache memory (per GPU): 10.93 GiB |", "10.93 GiB"),
    ("Available KV cache memory (per rank): 4.5 GiB", "4.5 GiB"),
    ("Available KV cache memory (per card, post-profiling): 61.02 GiB", "61.02 GiB"),
])
def test_per_worker_qualifier_is_read(line, text):
    """Helper cap14 (2026-12-05): notes that summarise vLLM's 'Available KV cache memory: X GiB' insert the
    figure's meaning, 'per GPU' / 'per GPU worker' / 'per rank' / 'per card' (public notes, search-index file ids
    68378441594, 56391744290, 70161627715, 55512011005): the number is still the engine's one-worker figure."""
    assert _anchors(line + "\n").get("available_kv") == text
