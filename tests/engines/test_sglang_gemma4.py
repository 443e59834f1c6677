"""Gemma 4 in SGLang: the hybrid-SWA pool with separate full / SWA head shapes, hand-computed from the wheels:

- ``utils/hf_transformers/config.py`` (0.5.11 – 0.5.23): the gemma4 wrapper's text config is turned
  full-attention-first: ``head_dim`` ← ``global_head_dim`` (512), ``num_key_value_heads`` ← the full layers' KV
  heads, the sliding shape moves to ``swa_head_dim`` / ``swa_num_key_value_heads``.  0.5.11 – 0.5.21 take
  ``num_global_key_value_heads`` whenever set; 0.5.22+ take transformers' per-layer spec, which applies it only
  with ``attention_k_eq_v``.
- ``model_executor/pool_configurator.py HybridSWAPoolConfigurator`` (0.5.11 – 0.5.23): per layer
  F = max(1, full_kv // tp) × 2 × full_dim × e, S = max(1, swa_kv // tp) × 2 × swa_dim × e;
  cell = F × full_layers + 0.8 × S × sliding_layers; swa_tokens = int(full_tokens × 0.8) page-floored.
- ``configs/model_config.py get_hybrid_layer_ids``: every ``layer_types`` entry is a pool layer, shared-KV
  layers included (``gemma4_causal.py`` only skips ``save_kv_cache`` for them).
- No ``models/gemma4*.py`` in 0.5.10 / 0.5.10.post1; ``gemma4_causal.py`` / ``gemma4_mm.py`` from 0.5.11,
  ``gemma4_unified.py`` from 0.5.13.

gemma-4-26B-A4B: 30 layers (25 sliding, 5 full), head_dim 256 × 8 KV heads, global_head_dim 512 × 2 global KV
heads (attention_k_eq_v), bf16.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang_fixtures import ledger_problems, plan
from tpkit.engines.sglang.pool import compute_cell, gemma4_pools, pool_buffers, size_tokens
from tpkit.errors import PlanInputError
from tpkit.models import from_config_dict
from tpkit.units import GiB

CONFIG = json.loads((Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "google__gemma-4-26B-A4B-it"
                     / "config.json").read_text())


def _model(cfg=CONFIG, **text):
    t = {k: v for k, v in {**cfg["text_config"], **text}.items() if v is not None}
    return from_config_dict({**cfg, "text_config": t}, name="gemma-4-26B-A4B", source="test")


@pytest.mark.parametrize("version", ["0.5.11", "0.5.20", "0.5.23"])
def test_26b_cell_two_shapes(version):
    c = compute_cell(_model(), 1, 1, "bfloat16", version=version)
    # full 2 × (512 + 512) × 2 B = 4,096 × 5 layers; SWA 8 × (256 + 256) × 2 B = 8,192 × 25 × 0.8
    assert (c.layout, c.full_layers, c.swa_layers) == ("swa", 5, 25)
    assert c.bytes_per_token == pytest.approx(4_096 * 5 + 0.8 * 8_192 * 25) == 184_320
    assert (c.n_kv_heads, c.k_dim, c.v_dim) == (2, 512, 512)
    assert (c.swa_n_kv_heads, c.swa_k_dim, c.swa_v_dim) == (8, 256, 256)


def test_26b_cell_tp_replicates_the_two_full_heads():
    c = compute_cell(_model(), 4, 1, "bfloat16")
    # full max(1, 2 // 4) = 1 head: 1 × 1,024 × 2 = 2,048 × 5; SWA 8 // 4 = 2: 2 × 512 × 2 = 2,048 × 25 × 0.8
    assert (c.n_kv_heads, c.swa_n_kv_heads) == (1, 2)
    assert c.bytes_per_token == pytest.approx(2_048 * 5 + 0.8 * 2_048 * 25)


def test_26b_buffers_use_each_pools_shape():
    c = compute_cell(_model(), 1, 1, "bfloat16")
    full, swa = size_tokens(GiB(10), c, page_size=1, max_total_tokens=None)
    assert full == 10 * 2**30 // 184_320 == 58_254 and swa == int(58_254 * 0.8) == 46_603
    pool = pool_buffers(c, full, swa, 1)
    shapes = {b.name: (b.count, b.shape) for b in pool.buffers}
    assert shapes == {"k": (5, (58_255, 2, 512)), "v": (5, (58_255, 2, 512)),
                      "swa_k": (25, (46_604, 8, 256)), "swa_v": (25, (46_604, 8, 256))}


def test_shared_kv_layers_keep_their_rows_in_sglang():
    # num_kv_shared_layers 10: vLLM drops their KV; SGLang still counts every layer_types entry
    c = compute_cell(_model(num_kv_shared_layers=10), 1, 1, "bfloat16")
    assert (c.full_layers, c.swa_layers) == (5, 25) and c.bytes_per_token == 184_320


def test_global_kv_heads_without_k_eq_v_split_at_0_5_22():
    m = _model(attention_k_eq_v=False)
    # 0.5.11 – 0.5.21: num_global_key_value_heads (2) whenever set → full 4,096 B/layer
    assert gemma4_pools(m, "0.5.21").full_kv_heads == 2
    assert compute_cell(m, 1, 1, "bfloat16", version="0.5.21").bytes_per_token == 184_320
    # 0.5.22+: transformers applies it only with attention_k_eq_v → 8 × (512 + 512) × 2 = 16,384 B/layer
    assert gemma4_pools(m, "0.5.22").full_kv_heads == 8
    assert compute_cell(m, 1, 1, "bfloat16", version="0.5.23").bytes_per_token == \
        pytest.approx(16_384 * 5 + 0.8 * 8_192 * 25)


@pytest.mark.parametrize("version", ["0.5.10", "0.5.10.post1", "0.5.9"])
def test_releases_before_0_5_11_refuse(version):
    with pytest.raises(PlanInputError, match="does not serve Gemma 4.*0.5.11"):
        compute_cell(_model(), 1, 1, "bfloat16", version=version)


def test_unified_class_starts_at_0_5_13():
    m = _model({**CONFIG, "architectures": ["Gemma4UnifiedForConditionalGeneration"], "model_type": "gemma4_unified"})
    with pytest.raises(PlanInputError, match="0.5.13"):
        compute_cell(m, 1, 1, "bfloat16", version="0.5.12")
    assert compute_cell(m, 1, 1, "bfloat16", version="0.5.13").bytes_per_token == 184_320


def test_bare_text_config_with_two_shapes_refuses():
    text = {**CONFIG["text_config"], "architectures": ["Gemma4ForCausalLM"]}
    m = from_config_dict({k: v for k, v in text.items() if v is not None}, name="g4-text", source="test")
    with pytest.raises(PlanInputError, match="bare Gemma 4 text config"):
        compute_cell(m, 1, 1, "bfloat16")


def test_plan_itemises_both_pools_and_balances():
    r = plan(_model(), gpu="H100", weights=GiB(48))
    items = {line.item: line.bytes.bytes for line in r.ledger.items}
    full, swa = r.kv_pool.num_tokens, int(r.kv_pool.num_tokens * 0.8)
    assert r.kv_pool.cell_bytes.bytes == 184_320
    assert items["KV pool, full-attention layers"] == 5 * 2 * (full + 1) * 2 * 512 * 2
    assert items["KV pool, sliding-window layers"] == 25 * 2 * (swa + 1) * 8 * 256 * 2
    assert ledger_problems(r) == []


def test_plan_before_first_release_exits_with_a_clear_error():
    with pytest.raises(PlanInputError, match="does not serve Gemma 4"):
        plan(_model(), gpu="H100", weights=GiB(48), engine_version="0.5.10")


def test_cli_plans_the_26b_and_refuses_0_5_10_with_exit_2(capsys):
    from tpkit.cli import main

    path = str(Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "google__gemma-4-26B-A4B-it"
               / "config.json")
    assert main(["plan", path, "--engine", "sglang", "--gpu", "H100"]) == 0
    out = capsys.readouterr().out
    assert "KV pool, full-attention layers" in out and "KV pool, sliding-window layers" in out
    assert "184,320 B/token" in out
    assert main(["plan", path, "--engine", "sglang", "--gpu", "H100", "--engine-version", "0.5.10"]) == 2
    err = capsys.readouterr().err
    assert "does not serve Gemma 4" in err and "Traceback" not in err
