"""engines.cliflags: the flags each released vLLM / SGLang parses (helper fix22, session 22).

The spot checks are facts read in the wheels (``pip download --no-deps``) by scripts/engine_flag_table.py; each
names the file it comes from, so a rebuilt table that loses one fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines import cliflags

TABLE = Path(__file__).resolve().parents[2] / "src" / "tpkit" / "engines" / "data" / "cli_flags.json"


def test_table_covers_the_releases_the_corpus_holds_most():
    doc = json.loads(TABLE.read_text(encoding="utf-8"))
    assert "arg_utils.py" in doc["_source"] and "server_args.py" in doc["_source"]
    for v in ("0.6.5", "0.8.5", "0.10.2", "0.11.0", "0.19.1", "0.25.0", "0.34.0"):
        assert v in doc["vllm"]["releases"]
    for v in ("0.4.6", "0.5.6", "0.5.10", "0.5.15", "0.5.23"):
        assert v in doc["sglang"]["releases"]


@pytest.mark.parametrize("engine, flag, first, last", [
    # vllm/engine/arg_utils.py: --speculative-config from 0.8.2 (0.8.0 has only --speculative-model)
    ("vllm", "--speculative-config", "0.8.2", "0.34.0"),
    ("vllm", "--speculative-model", "0.5.5", "0.8.2"),
    ("vllm", "--kv-cache-memory-bytes", "0.10.2", "0.34.0"),
    ("vllm", "--skip-mm-profiling", "0.10.1.1", "0.34.0"),
    ("vllm", "--cuda-graph-sizes", "0.9.2", "0.12.0"),
    ("vllm", "--max-cudagraph-capture-size", "0.12.0", "0.34.0"),
    ("vllm", "--gpu-memory-utilization", "0.5.5", "0.34.0"),
    # sglang server_args.py (≤ 0.5.19) / arg_groups/fields (0.5.20+): --cuda-graph-max-bs ends at 0.5.19
    ("sglang", "--cuda-graph-max-bs", "0.4.0", "0.5.19"),
    ("sglang", "--cuda-graph-max-bs-decode", "0.5.14", "0.5.23"),
    ("sglang", "--enable-torch-symm-mem", "0.5.3", "0.5.23"),
    ("sglang", "--max-mamba-cache-size", "0.5.2", "0.5.23"),
    ("sglang", "--mem-fraction-static", "0.2.15", "0.5.23"),
])
def test_flag_spans_read_in_the_wheels(engine, flag, first, last):
    assert cliflags.flag_releases(engine, flag) == [[first, last]]


def test_boolean_optional_twins():
    """``BooleanOptionalAction`` (explicit, or vLLM's _compute_kwargs for a bool field) registers ``--no-x``."""
    assert cliflags.accepts("vllm", "--no-enable-prefix-caching", "0.13.0") is True
    assert cliflags.accepts("vllm", "--no-async-scheduling", "0.34.0") is True
    assert cliflags.accepts("vllm", "--no-enable-extensible-kv-cache", "0.33.0") is False


def test_accepts_reads_argparse_prefixes_and_releases():
    # SGLang's --tp is argparse's unique prefix of --tp-size; vLLM has only -tp / --tensor-parallel-size
    assert cliflags.accepts("sglang", "--tp", "0.4.6") is True
    assert cliflags.accepts("vllm", "--tp", "0.10.2") is False
    assert cliflags.accepts("vllm", "--tensor-parallel-size", "0.10.2") is True
    # 0.5.20+: --cuda-graph-max-bs is an ambiguous prefix of the -decode / -prefill pair
    assert cliflags.accepts("sglang", "--cuda-graph-max-bs", "0.5.23") is False
    assert cliflags.accepts("sglang", "--cuda-graph-max-bs", "0.5.17") is True
    # post / dev releases fold into their base; a release past the newest checked reads as the newest
    assert cliflags.accepts("vllm", "--speculative-config", "0.8.5.post1") is True
    assert cliflags.accepts("vllm", "--speculative-config", "0.40.0") is True
    # explain's inferred range: both ends must parse it
    assert cliflags.accepts("sglang", "--cuda-graph-max-bs", "0.2.15–0.3.3 (line formats)") is False
    assert cliflags.accepts("sglang", "--mem-fraction-static", "0.4.6–0.5.13 (line formats)") is True


def test_unknown_releases_are_not_guessed():
    assert cliflags.accepts("vllm", "--speculative-config", None) is None
    assert cliflags.accepts("vllm", "--speculative-config", "0.3.0") is None  # older than the oldest checked
    assert cliflags.accepts("vllm", "--speculative-config", "nightly-abc") is None
    # between two checked releases that disagree: unknown (vLLM 0.8.1 lies between 0.8.0 and 0.8.2)
    assert cliflags.accepts("vllm", "--speculative-config", "0.8.1") is None


def test_spelling_picks_the_release_name():
    assert cliflags.spelling("sglang", "0.5.15", "--cuda-graph-max-bs", "--cuda-graph-max-bs-decode") == \
        "--cuda-graph-max-bs"
    assert cliflags.spelling("sglang", "0.5.23", "--cuda-graph-max-bs", "--cuda-graph-max-bs-decode") == \
        "--cuda-graph-max-bs-decode"
    assert cliflags.spelling("sglang", "0.3.0", "--cuda-graph-max-bs", "--cuda-graph-max-bs-decode") is None
    assert cliflags.spelling("sglang", None, "--cuda-graph-max-bs", "--cuda-graph-max-bs-decode") == \
        "--cuda-graph-max-bs"
