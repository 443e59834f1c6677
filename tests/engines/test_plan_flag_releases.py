"""`tpkit plan` notes and fixes name only flags the --engine-version parses (helper fix22, session 22)."""

from __future__ import annotations

import json

from tpkit.cli import main


def _plan(argv, capsys) -> dict:
    main(["plan", *argv, "--json"])
    return json.loads(capsys.readouterr().out)


def _text(d: dict) -> str:
    return json.dumps(d)


def test_mamba_note_names_max_mamba_cache_size_only_where_it_exists(capsys):
    """--max-mamba-cache-size is new in SGLang 0.5.2 (server_args.py)."""
    base = ["Qwen/Qwen3-Next-80B-A3B-Instruct", "--gpu", "H100", "--tp", "8", "--engine", "sglang"]
    assert "--max-mamba-cache-size" not in _text(_plan(base + ["--engine-version", "0.5.1"], capsys))
    assert "--max-mamba-cache-size" in _text(_plan(base + ["--engine-version", "0.5.23"], capsys))


def test_skip_mm_profiling_is_offered_only_from_0_10_1(capsys):
    base = ["google/gemma-3-27b-it", "--gpu", "H100", "--engine", "vllm"]
    old = _text(_plan(base + ["--engine-version", "0.9.2"], capsys))
    assert "vLLM 0.9.2 has no --skip-mm-profiling" in old
    assert "(--skip-mm-profiling leaves it out)" not in old


def test_vllm_tp_fix_is_written_as_vllm_parses_it(capsys):
    """vLLM registers -tp / --tensor-parallel-size, no --tp (arg_utils.py): the message and the ``fixes`` list say the
    vLLM flag, which tpkit plan takes too (a re-run of the fix)."""
    d = _plan(["deepseek-ai/DeepSeek-V3", "--gpu", "H100", "--tp", "8", "--engine", "vllm"], capsys)
    assert "Fix: --tensor-parallel-size 16" in d["verdict"]["message"]
    assert "--tensor-parallel-size 16" in d["verdict"]["fixes"]
