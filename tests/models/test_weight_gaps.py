"""Weights derived vs printed at load: the layer families the rules used to miss (helper wts, issue 11).

Each test pins a rule read in the engine wheels; the printed figures in the comments come from public start-up
logs of the validation set (the rule is general; no case is looked up)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.sglang import SglangOptions
from tpkit.engines.sglang.spec import plan_speculative
from tpkit.models.config import from_config_dict
from tpkit.models.params import count_params, layer_parts
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

ROOT = Path(__file__).resolve().parents[2]
GROK2 = ROOT / "tests/logs/data/configs/xai-org__grok-2/config.json"
QWEN38 = ROOT / "tests/validation/configs/Qwen--Qwen3.8-27B.json"
EAGLE3 = ROOT / "tests/validation/configs/jamesliu1--sglang-EAGLE3-Llama-3.1-Instruct-8B.json"
LLAMA8B = ROOT / "tests/validation/configs/meta-llama--Llama-3.1-8B-Instruct.json"


def _spec(path: Path, **change):
    cfg = json.loads(path.read_text())
    cfg.update(change)
    return from_config_dict(cfg, name=path.stem, source=str(path))


# Grok-2: the dense residual MLP beside the experts (sglang models/grok.py Grok1DecoderLayer) -------------------

def test_grok2_counts_the_residual_mlp_four_norms_and_its_own_lm_head():
    m = _spec(GROK2)
    assert not m.tie_word_embeddings and m.extra["residual_moe"] and m.extra["norms_per_layer"] == 4
    names = [p.name for p in layer_parts(m, 0)]
    assert "model.layers.0.mlp.gate_proj" in names and "model.layers.0.mlp.experts.gate_proj" in names
    # SGLang 0.5.2rc2 prints '#parameters (actual): 269.56 B' = Σ numel per rank × tp: the replicated router and
    # norms (6,299,648) count 8 times there, once here
    replicated = 64 * (8192 * 8 + 4 * 8192) + 8192
    assert count_params(m) + 7 * replicated == pytest.approx(269.56e9, abs=0.005e9)
    w = plan_weights(m, ParallelSpec(tp=8), quantization="fp8", engine="sglang")
    dense = next(l for l in w.lines if l.item == "dense MLP")
    assert dense.params == 64 * 3 * 8192 * 32768 // 8
    assert w.bytes_per_rank.gib == pytest.approx(31.67, abs=0.01)


def test_residual_moe_false_or_absent_adds_no_dense_mlp():
    for change in ({"residual_moe": False}, {"residual_moe": None}):
        m = _spec(GROK2, **change)
        assert not any(p.category == "dense_mlp" for p in layer_parts(m, 0))
    # a Grok-1 shape (no residual_moe key): experts only, still four norms and an untied lm_head
    cfg = json.loads(GROK2.read_text())
    del cfg["residual_moe"]
    m = from_config_dict(cfg, name="grok-1-like", source="test")
    assert not any(p.category == "dense_mlp" for p in layer_parts(m, 0)) and m.extra["norms_per_layer"] == 4


def test_residual_moe_on_another_architecture_is_read_too_and_tie_follows_the_config():
    cfg = json.loads(GROK2.read_text())
    cfg.update(architectures=["MixtralForCausalLM"], model_type="mixtral", tie_word_embeddings=True)
    m = from_config_dict(cfg, name="x", source="test")
    assert m.tie_word_embeddings and m.extra["norms_per_layer"] == 2
    assert any(p.category == "dense_mlp" for p in layer_parts(m, 0))


# Qwen3.5 family: gated full attention + the Qwen3-VL tower (vLLM 0.29.0 qwen3_5.py) ------------------------------

def test_qwen3_5_full_attention_q_proj_carries_the_output_gate():
    m = _spec(QWEN38)
    full = next(i for i in range(m.num_layers) if m.kind_of(i) != "linear")
    q = next(p for p in layer_parts(m, full) if p.name.endswith("q_proj"))
    assert q.out == 2 * 24 * 256
    cfg = json.loads(QWEN38.read_text())
    cfg["text_config"]["attn_output_gate"] = False
    off = from_config_dict(cfg, name="x", source="test")
    q_off = next(p for p in layer_parts(off, full) if p.name.endswith("q_proj"))
    assert q_off.out == 24 * 256


def test_qwen3_5_wrapper_loads_the_qwen3_vl_tower_and_matches_the_vllm_0_29_print():
    m = _spec(QWEN38)
    assert m.vision_params == 460_730_096
    w = plan_weights(m, ParallelSpec(), engine="vllm")
    # vLLM 0.29.0 'Model loading took 51.1 GiB' (RTX PRO 6000, bf16, TP 1): within the print's rounding + 0.3 %
    assert w.bytes_per_rank.gib == pytest.approx(51.1, rel=0.01)


def test_a_qwen3_next_text_model_keeps_its_gate_and_qwen3_keeps_none():
    base = {"hidden_size": 2048, "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2,
            "head_dim": 256, "intermediate_size": 5120, "vocab_size": 1000, "max_position_embeddings": 4096}
    nxt = from_config_dict({**base, "model_type": "qwen3_next"}, name="n", source="t")
    plain = from_config_dict({**base, "model_type": "qwen3"}, name="q", source="t")
    assert nxt.extra.get("attn_output_gate") and not plain.extra.get("attn_output_gate")


# EAGLE-3 draft: loaded with its own embedding, then set_embed (sglang 0.5.2 eagle_worker.py) ----------------------

@pytest.mark.parametrize("version", ["0.5.2", "0.5.20"])
def test_eagle3_draft_peak_at_load_holds_its_own_embedding_the_steady_state_does_not(version):
    target = _spec(LLAMA8B)
    opts = SglangOptions(engine_version=version, speculative_algorithm="EAGLE3",
                         speculative_draft_model_path=str(EAGLE3), speculative_num_steps=5,
                         speculative_eagle_topk=8, speculative_num_draft_tokens=32)
    s = plan_speculative(target, ParallelSpec(), opts, kv_dtype="bfloat16")
    # SGLang 0.5.2 prints the draft's 'Load weight end … mem usage=1.77 GB' (GiB): 0.79 GiB + 128,256 × 4,096 × 2 B
    assert s.weights.gib == pytest.approx(0.791, abs=0.001)
    assert s.weights_at_load.bytes - s.weights.bytes == 128_256 * 4_096 * 2
    assert s.weights_at_load.gib == pytest.approx(1.77, abs=0.005)
    given = plan_speculative(target, ParallelSpec(), opts, kv_dtype="bfloat16", weights=s.weights)
    assert given.weights_at_load.bytes == 0


def test_sglang_plan_reports_the_draft_peak_at_load_beside_the_steady_state():
    from tpkit.engines.sglang import plan_sglang
    from tpkit.hardware.catalog import lookup_gpu

    target = _spec(LLAMA8B)
    opts = SglangOptions(engine_version="0.5.2", speculative_algorithm="EAGLE3",
                         speculative_draft_model_path=str(EAGLE3), speculative_num_steps=5,
                         speculative_eagle_topk=8, speculative_num_draft_tokens=32, mem_fraction_static=0.6)
    r = plan_sglang(target, lookup_gpu("H100-SXM-80GB"), ParallelSpec(), opts)
    spec = r.extra["sglang"]["speculative"]
    assert spec["draft_weights_at_load_bytes"] - spec["draft_weights_bytes"] == 128_256 * 4_096 * 2
    line = next(l for l in r.ledger.items if l.item.startswith("draft weights"))
    assert line.bytes.bytes == spec["draft_weights_bytes"] and "1.77 GiB while the draft loads" in line.source
