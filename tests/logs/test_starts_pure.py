"""``logs.text._starts`` returns what it finds (helper tidy27, session 27): (offsets, engines), no out-parameter.
Fails on main f2af02a5, where it filled a list passed in and returned the offsets alone."""

from __future__ import annotations

from tpkit.logs.text import _starts, last_start

SGLANG = "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='m', tp_size=1)\n"
VLLM = "INFO 01-01 00:00:01 [api_server.py:1] vLLM API server version 0.19.0\n"


def test_starts_returns_offsets_and_engines():
    text = SGLANG + "x\n" + VLLM
    opened, engines = _starts(text)
    assert opened == [0, len(SGLANG) + 2]
    assert engines == ["SGLang", "vLLM"]
    assert _starts("no start here\n") == ([], [])


def test_last_start_names_both_engines_as_before():
    text, notes = last_start(SGLANG + "x\n" + VLLM)
    assert text.startswith("\n\n") and text.endswith(VLLM)
    assert "SGLang from line 1" in notes[0] and "vLLM from line 3" in notes[0]
