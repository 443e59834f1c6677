"""Reading a model's ``config.json`` file into a dict, with a message for each way a user's file is not one: a
weights or GGUF file passed in its place, an unreadable, empty, non-UTF-8 or BOM-prefixed file, malformed or too deeply
nested JSON, a top level that is not an object.  Interpreting the dict is ``models.config.from_config_dict``'s work."""

from __future__ import annotations

import json
from pathlib import Path

from tpkit.errors import ConfigError, json_kind

__all__ = ["read_config_file", "gguf_refusal"]


_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
"""file endings of weights, not configs: a user who passes one gets pointed at the checkpoint directory"""


def gguf_refusal(what: str) -> str:
    """Why a GGUF file is no MODEL, and what to pass: the layout comes from the config of the model it was made from."""
    return (f"{what} is a GGUF file, which tpkit does not read (no config.json, and its quantised weight sizes are in "
            "GGUF's own header); pass the config.json or HF id of the model it was quantised from (the config vLLM "
            "takes with --hf-config-path): the plan then has that model's layout, and its weights line counts that "
            "checkpoint's dtype, more than a quantised GGUF holds")


def read_config_file(path: str | Path) -> dict:
    """Read a config.json; malformed JSON raises ``ConfigError`` with file, line and column."""
    path = Path(path)
    if path.suffix.lower() == ".gguf":
        raise ConfigError(gguf_refusal(str(path)))
    if path.suffix.lower() in _WEIGHT_SUFFIXES:
        raise ConfigError(f"{path} is a weights file, not a config.json; pass the checkpoint directory that holds it "
                          "and its config.json (tpkit reads the weight sizes from the safetensors headers there), or "
                          "the config.json itself")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read model config {path}: {exc.strerror or exc}; check the path and its "
                          "permissions (tpkit's user must be able to read it), or pass another config.json") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                          "pass the model's config.json, which HF writes as UTF-8 JSON") from None
    if not text.strip():
        raise ConfigError(f"{path} is empty ({len(text.encode())} bytes); pass the model's config.json (a JSON object "
                          "with model_type, hidden_size, num_hidden_layers …)")
    if text.startswith("\ufeff"):
        raise ConfigError(f"{path} starts with a UTF-8 byte-order mark (an editor added it), which Python's json "
                          "module refuses, and so do the engines (transformers reads config.json as plain UTF-8); "
                          "save the file as UTF-8 without BOM, or pass the original config.json")
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}; "
            "fix the file or pass another config.json"
        ) from None
    except RecursionError:
        raise ConfigError(f"{path}: JSON nested too deeply to read ({len(text):,} characters); "
                          "a config.json is a flat object of a few levels: pass the model's real config.json") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python's 4,300-digit limit
        raise ConfigError(f"{path} is not a usable config.json: {exc}; fix the file") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: a config.json holds a JSON object, got {json_kind(cfg)}")
    return cfg
