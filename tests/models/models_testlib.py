"""Helpers for the models tests: tiny HF configs and a safetensors writer (header + zero bytes)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

VALIDATION = Path(__file__).resolve().parents[1] / "validation" / "data" / "configs"
"""HF config.json files of the validation cases, shipped in the repo (tests/validation/data/README.md)"""


def tiny_llama(**overrides) -> dict:
    """A small Llama-style config.json dict (real HF key names; also scripts/fuzz_cases.py's checkpoints)."""
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 128,
           "intermediate_size": 320, "num_hidden_layers": 4, "num_attention_heads": 8,
           "num_key_value_heads": 2, "vocab_size": 1000, "max_position_embeddings": 4096,
           "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    cfg.update(overrides)
    return cfg


def write_safetensors(path: Path, tensors: dict[str, tuple[str, list[int]]]) -> int:
    """Write a safetensors file: 8-byte LE header length, JSON header, zero bytes for the data.

    ``tensors`` maps name → (dtype, shape). Returns the data bytes written.
    """
    entries, offset = safetensors_entries(tensors)
    raw = json.dumps({"__metadata__": {"format": "pt"}, **entries}).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(offset))
    return offset


def safetensors_entries(tensors: dict[str, tuple[str, list[int]]]) -> tuple[dict[str, dict], int]:
    """The header entries of ``tensors`` (name → (dtype, shape)) laid out back to back in their order, without
    ``__metadata__``, and the data bytes they span (also scripts/fuzz_cases.py's checkpoints)."""
    sizes = {"BF16": 2, "F16": 2, "F32": 4, "I32": 4, "U8": 1, "F8_E4M3": 1, "I8": 1}
    entries, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        n = sizes[dtype]
        for dim in shape:
            n *= dim
        entries[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    return entries, offset


def llama_tensors(cfg: dict, layers: range) -> dict[str, tuple[str, list[int]]]:
    """HF Llama tensor names and shapes for ``layers`` (+ embed, norm, lm_head when in range)."""
    h, i = cfg["hidden_size"], cfg["intermediate_size"]
    hd = h // cfg["num_attention_heads"]
    kv = cfg["num_key_value_heads"] * hd
    t = {}
    for n in layers:
        p = f"model.layers.{n}"
        t[f"{p}.self_attn.q_proj.weight"] = ("BF16", [h, h])
        t[f"{p}.self_attn.k_proj.weight"] = ("BF16", [kv, h])
        t[f"{p}.self_attn.v_proj.weight"] = ("BF16", [kv, h])
        t[f"{p}.self_attn.o_proj.weight"] = ("BF16", [h, h])
        t[f"{p}.mlp.gate_proj.weight"] = ("BF16", [i, h])
        t[f"{p}.mlp.up_proj.weight"] = ("BF16", [i, h])
        t[f"{p}.mlp.down_proj.weight"] = ("BF16", [h, i])
        t[f"{p}.input_layernorm.weight"] = ("BF16", [h])
        t[f"{p}.post_attention_layernorm.weight"] = ("BF16", [h])
    return t
