"""vLLM's maximum model length from every source ``_get_and_verify_max_len`` reads (helper tidy27, session 27;
``engines.vllm.maxlen`` cites the wheels): the smallest length key of the config, the config.json
``model_max_length`` (replaces it from 0.8.3; admits a longer ``--max-model-len`` in every release) and vLLM 0.9.1's
clamp to tokenizer_config.json's ``model_max_length``.  Each test fails on main f2af02a5 (there the plan took
max_position_embeddings alone, refused a Command-R-style length the engine accepts, and never read the tokenizer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import cli, refused

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "tests" / "validation" / "configs" / "meta-llama--Llama-3.2-1B-Instruct.json"


def _model(tmp_path: Path, tokenizer_len: int | None = None, **keys) -> str:
    cfg = json.loads(BASE.read_text())
    cfg.pop("rope_scaling", None)
    cfg.update(keys)
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    if tokenizer_len is not None:
        (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": tokenizer_len}))
    return str(tmp_path / "config.json")


def _length(capsys, model: str, version: str, *flags) -> int:
    code, out, err = cli(capsys, "plan", model, "--engine", "vllm", "--gpu", "H100", "--engine-version", version,
                         *flags, "--json")
    assert code == 0, err
    return json.loads(out)["context_length"]


COMMAND_R = {"max_position_embeddings": 8192, "model_max_length": 131072}
"""CohereForAI/c4ai-command-r-v01's two length keys"""


@pytest.mark.parametrize("version, default", [("0.8.2", 8192), ("0.8.3", 131072), ("0.34.0", 131072)])
def test_config_model_max_length_replaces_the_smallest_key_from_083(capsys, tmp_path, version, default):
    """Before: 8,192 at every release (max_position_embeddings alone)."""
    assert _length(capsys, _model(tmp_path, **COMMAND_R), version) == default


@pytest.mark.parametrize("version", ["0.6.5", "0.8.2", "0.34.0"])
def test_a_length_up_to_config_model_max_length_is_accepted(capsys, tmp_path, version):
    """Before: refused ('above … limit of 8,192') though vLLM accepts it with no warning."""
    model = _model(tmp_path, **COMMAND_R)
    assert _length(capsys, model, version, "--max-model-len", "65536") == 65536
    refused(capsys, "plan", model, "--engine", "vllm", "--gpu", "H100", "--engine-version", version,
            "--max-model-len", "200000", says=("limit of 131,072", "model_max_length", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"))


def test_the_smallest_length_key_wins(capsys, tmp_path):
    """vLLM takes the smallest of the keys present (ChatGLM's seq_length beside max_position_embeddings);
    before: max_position_embeddings."""
    model = _model(tmp_path, max_position_embeddings=32768, seq_length=8192)
    assert _length(capsys, model, "0.34.0") == 8192


@pytest.mark.parametrize("version, expected", [("0.9.0", 131072), ("0.9.1", 16384), ("0.9.2", 131072)])
def test_vllm_091_clamps_to_the_tokenizer_model_max_length(capsys, tmp_path, version, expected):
    """tokenizer_config.json next to config.json: 0.9.1 clamps every model's length to its model_max_length
    (also a given one, silently), 0.9.2 on only pooling models; before: never read."""
    model = _model(tmp_path, tokenizer_len=16384, max_position_embeddings=131072)
    assert _length(capsys, model, version) == expected
    assert _length(capsys, model, version, "--max-model-len", "32768") == min(32768, expected)
    code, out, _ = cli(capsys, "plan", model, "--engine", "vllm", "--gpu", "H100", "--engine-version", version,
                       "--json")
    warned = any("clamps max_model_len 131,072 to the tokenizer's model_max_length 16,384" in w
                 for w in json.loads(out)["warnings"])
    assert code == 0 and warned == (version == "0.9.1")


def test_tokenizer_sentinel_and_absent_file_change_nothing(capsys, tmp_path):
    """transformers' 'no limit' sentinel (int(1e30)) and a missing tokenizer_config.json leave the length."""
    model = _model(tmp_path, tokenizer_len=int(1e30), max_position_embeddings=131072)
    assert _length(capsys, model, "0.9.1") == 131072
    (tmp_path / "tokenizer_config.json").unlink()
    assert _length(capsys, model, "0.9.1") == 131072
