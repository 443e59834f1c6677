"""Fixtures for the models tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models_testlib import llama_tensors, tiny_llama, write_safetensors


@pytest.fixture
def llama_dir(tmp_path: Path) -> Path:
    """A checkpoint dir with config.json and two safetensors shards of the tiny Llama."""
    cfg = tiny_llama()
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    first = llama_tensors(cfg, range(0, 2))
    first["model.embed_tokens.weight"] = ("BF16", [cfg["vocab_size"], cfg["hidden_size"]])
    second = llama_tensors(cfg, range(2, 4))
    second["model.norm.weight"] = ("BF16", [cfg["hidden_size"]])
    second["lm_head.weight"] = ("BF16", [cfg["vocab_size"], cfg["hidden_size"]])
    write_safetensors(tmp_path / "model-00001-of-00002.safetensors", first)
    write_safetensors(tmp_path / "model-00002-of-00002.safetensors", second)
    return tmp_path
