"""Exact weights from safetensors headers (tiny files written here: header + zero bytes)."""

from __future__ import annotations

import json
import struct

import pytest

from tpkit.errors import ConfigError
from tpkit.models import from_config_dict, load_model
from tpkit.models.safetensors import classify, read_header
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from models_testlib import llama_tensors, tiny_llama, write_safetensors


def test_header_reader_sizes(tmp_path):
    n = write_safetensors(tmp_path / "a.safetensors", {"x": ("BF16", [3, 5]), "y": ("F32", [7])})
    tensors = {t.name: t for t in read_header(tmp_path / "a.safetensors")}
    assert tensors["x"].nbytes == 30 and tensors["y"].nbytes == 28 and n == 58
    assert tensors["x"].shape == (3, 5) and tensors["x"].dtype == "BF16"


@pytest.mark.parametrize("par", [ParallelSpec(), ParallelSpec(tp=2), ParallelSpec(pp=2), ParallelSpec(tp=2, pp=2)],
                         ids=["tp1", "tp2", "pp2", "tp2pp2"])
def test_headers_agree_with_derivation(llama_dir, par):
    spec = load_model(str(llama_dir))
    exact = plan_weights(spec, par)
    derived = plan_weights(from_config_dict(tiny_llama(), name="t", source="t"), par)
    assert exact.method == "safetensors headers" and derived.method == "derived from config"
    assert exact.bytes_per_rank == derived.bytes_per_rank
    assert exact.total_bytes == derived.total_bytes == Bytes(sum(
        t.nbytes for f in sorted(llama_dir.glob("*.safetensors")) for t in read_header(f)))
    assert sum((l.bytes for l in exact.lines), Bytes(0)) == exact.bytes_per_rank


def test_explicit_checkpoint_dir_and_mtp_and_scales(tmp_path):
    cfg = tiny_llama(num_hidden_layers=2)
    tensors = llama_tensors(cfg, range(0, 3))  # layer 2 = an MTP/nextn layer beyond num_hidden_layers
    tensors["model.layers.0.mlp.down_proj.weight_scale_inv"] = ("F32", [1, 3])
    tensors["model.embed_tokens.weight"] = ("BF16", [1000, 128])
    write_safetensors(tmp_path / "model.safetensors", tensors)
    spec = from_config_dict(cfg, name="t", source="t")
    plan = plan_weights(spec, ParallelSpec(tp=2), checkpoint_dir=str(tmp_path))
    items = {l.item: l for l in plan.lines}
    assert items["mtp/nextn layers"].bytes == Bytes(0) and plan.mtp_bytes > Bytes(0)
    assert items["quant scales"].bytes == Bytes(6)  # 12 B split over the down_proj input dim
    assert plan.total_bytes + plan.mtp_bytes == Bytes(sum(t.nbytes for t in read_header(tmp_path / "model.safetensors")))


def test_experts_split_by_ep_and_router_replicated(tmp_path):
    cfg = tiny_llama(model_type="qwen3_moe", num_hidden_layers=1, num_experts=4, num_experts_per_tok=2,
                     moe_intermediate_size=64)
    t = {f"model.layers.0.mlp.experts.{e}.{p}.weight": ("BF16", [64, 128]) for e in range(4) for p in ("gate_proj", "up_proj")}
    t.update({f"model.layers.0.mlp.experts.{e}.down_proj.weight": ("BF16", [128, 64]) for e in range(4)})
    t["model.layers.0.mlp.gate.weight"] = ("BF16", [4, 128])
    write_safetensors(tmp_path / "m.safetensors", t)
    spec = from_config_dict(cfg, name="t", source="t")
    plan = plan_weights(spec, ParallelSpec(tp=1, dp=4, ep=4), checkpoint_dir=str(tmp_path))
    items = {l.item: l.bytes for l in plan.lines}
    assert items["routed experts"] == Bytes(3 * 64 * 128 * 2) and items["router"] == Bytes(4 * 128 * 2)


@pytest.mark.parametrize("name, item, shard", [
    ("model.layers.0.self_attn.k_proj.weight", "attention", "kv"),
    ("model.layers.0.self_attn.o_proj.weight", "attention", "row"),
    ("model.layers.0.mlp.gate.e_score_correction_bias", "router", "rep"),
    ("model.layers.0.mlp.shared_experts.down_proj.weight", "shared experts", "row"),
    ("model.layers.0.mlp.experts.gate_up_proj_scales", "quant scales", "expert"),
    ("model.layers.0.post_attention_layernorm.weight", "norms", "rep"),
    ("lm_head.weight", "lm_head", "vocab"),
    ("vision_tower.encoder.layers.0.mlp.fc1.weight", "vision tower", "col"),
])
def test_classify_names(name, item, shard):
    spec = from_config_dict(tiny_llama(), name="t", source="t")
    got_item, got_shard, _ = classify(name, spec)
    assert (got_item, got_shard) == (item, shard)


def test_truncated_or_garbled_headers_raise(tmp_path):
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"\x01\x02")
    with pytest.raises(ConfigError, match="too short"):
        read_header(short)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", 5) + b"{nope")
    with pytest.raises(ConfigError, match="not valid JSON"):
        read_header(bad)
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes(struct.pack("<Q", 2**40) + json.dumps({}).encode())
    with pytest.raises(ConfigError, match="implausible"):
        read_header(huge)


@pytest.mark.parametrize("header, match", [
    ([1, 2], "must be a JSON object"),
    ({"w": {"dtype": "BF16", "shape": [2]}}, "needs dtype, shape and data_offsets"),
    ({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0]}}, "needs dtype, shape and data_offsets"),
    ({"w": "BF16"}, "needs dtype, shape and data_offsets"),
])
def test_malformed_header_entries_are_config_errors(tmp_path, header, match):
    raw = json.dumps(header).encode()
    (tmp_path / "m.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw)
    with pytest.raises(ConfigError, match=match):
        read_header(tmp_path / "m.safetensors")
