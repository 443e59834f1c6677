"""vLLM's weight-only FP8 Marlin path for block-FP8 checkpoints below compute capability 8.9
(engines/vllm/fp8_marlin.py; read in the 0.8.1–0.33.0 wheels by helper new14, 2026-12-05, session 14):
``prepare_fp8_layer_for_marlin`` turns the fp32 128×128 block scales into bf16/fp16 group scales, ceil(K/128) × N per
matrix, inside 'Model loading took'.  Evidence: vl_701 (Qwen3-8B-FP8, 0.29.0, 'Selected MarlinFP8ScaledMMLinearKernel',
'Model loading took 8.94 GiB' against the checkpoint's 8.79 GiB + 0.01 GiB rotary cache)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.fp8_marlin import marlin_fp8_block_scale_bytes, uses_fp8_block_marlin
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.models.quant import online_quant
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
ITEM = "FP8 block scales as Marlin group scales"


def _model(name="Qwen--Qwen3-8B-FP8.json"):
    return from_config_dict(json.loads((CONFIGS / name).read_text()), name=name, source=name)


def test_path_boundaries():
    """Block FP8 through Marlin: CUDA capability 7.5 ≤ cc < 8.9, vLLM ≥ 0.9.0 (0.8.5: 'Marlin doesn't support
    block-wise fp8'), never ROCm, never a per-channel (online) FP8 layout."""
    block = _model().quant
    assert block.block_size == (128, 128)
    assert uses_fp8_block_marlin(block, (0, 27, 1), (8, 6))
    assert not uses_fp8_block_marlin(block, (0, 27, 1), (8, 9))
    assert uses_fp8_block_marlin(block, (0, 9, 0), (8, 0))
    assert not uses_fp8_block_marlin(block, (0, 8, 5), (8, 0))
    assert uses_fp8_block_marlin(block, (0, 10, 2), (7, 5))
    assert not uses_fp8_block_marlin(block, (0, 10, 2), (7, 0))
    assert not uses_fp8_block_marlin(block, (0, 27, 1), (8, 6), rocm=True)
    assert not uses_fp8_block_marlin(online_quant("fp8"), (0, 27, 1), (8, 6))


def test_qwen3_8b_bytes_by_hand():
    """36 layers; K 4096: q 4096 + k 1024 + v 1024 + o 4096 + gate 12288 + up 12288 columns × 32 groups, K 12288:
    down 4096 × 96 groups, 2 B each, less the fp32 block scales: 2,967,552 B a layer."""
    model = _model()
    per_layer = (32 * (4096 + 1024 + 1024 + 4096 + 12288 + 12288) * 2 + 96 * 4096 * 2
                 - 4 * (32 * (32 + 8 + 8 + 32 + 96 + 96) + 96 * 32))
    got = marlin_fp8_block_scale_bytes(model, ParallelSpec(), model.quant, act_bytes=2, release=(0, 29, 0),
                                       compute_capability=(8, 6))
    assert got.bytes == 36 * per_layer == 106_831_872
    half = marlin_fp8_block_scale_bytes(model, ParallelSpec(tp=2), model.quant, act_bytes=2, release=(0, 29, 0),
                                        compute_capability=(8, 6))
    assert half.bytes == pytest.approx(got.bytes / 2, rel=0.01)


def _plan(gpu, version="0.27.1"):
    return plan_vllm(_model(), lookup_gpu(gpu), ParallelSpec(), VllmOptions(engine_version=version, max_model_len=4096))


def test_plan_charges_the_line_on_ampere_only():
    ampere, ada = _plan("RTX-3090"), _plan("L40S")
    assert any(i.item == ITEM and i.bytes.bytes == 106_831_872 for i in ampere.ledger.items)
    assert not any(i.item == ITEM for i in ada.ledger.items)
    old = _plan("RTX-3090", version="0.8.5")
    assert not any(i.item == ITEM for i in old.ledger.items)
    line = next(i for i in ampere.ledger.items if i.item == ITEM)
    assert "prepare_fp8_layer_for_marlin" in line.source


def test_qwen38_fp8_config_is_block_quantised():
    """The assembled Qwen3.8-27B-FP8 config (vp_594–vp_596, vp_602, vp_671, vp_672, gs_010, gs_142, gs_143)."""
    model = _model("Qwen--Qwen3.8-27B-FP8.json")
    assert model.quant.method == "fp8" and model.quant.block_size == (128, 128)
    tp2 = marlin_fp8_block_scale_bytes(model, ParallelSpec(tp=2), model.quant, act_bytes=2, release=(0, 27, 1),
                                       compute_capability=(8, 6))
    assert 0.17 < tp2.bytes / 2**30 < 0.19


def test_layers_are_grouped_unless_an_ignore_pattern_names_one(monkeypatch):
    """The Marlin scales are summed once per run of alike layers, as ``plan_weights`` sums the weights; one group
    per layer only where an ignore pattern can tell two layers apart (``models.weights.names_matter``).  Per-layer for
    every model made a 30,000-layer config take 33 s (scripts/fuzz_plan.py --seed 9, case 6203, lead session 15)."""
    import dataclasses

    from tpkit.engines.vllm import fp8_marlin

    seen = []
    real = fp8_marlin.layer_groups

    def spy(model, layers, *, by_name=False):
        seen.append(by_name)
        return real(model, layers, by_name=by_name)

    monkeypatch.setattr(fp8_marlin, "layer_groups", spy)
    model = _model()
    grouped = marlin_fp8_block_scale_bytes(model, ParallelSpec(), model.quant, act_bytes=2, release=(0, 29, 0),
                                           compute_capability=(8, 6))
    named = dataclasses.replace(model.quant, ignored=(*model.quant.ignored, "model.layers.3.mlp.down_proj"))
    one_off = marlin_fp8_block_scale_bytes(model, ParallelSpec(), named, act_bytes=2, release=(0, 29, 0),
                                           compute_capability=(8, 6))
    assert seen == [False, True]
    assert grouped.bytes == 106_831_872 and one_off.bytes < grouped.bytes   # layer 3's down_proj stays unquantised
