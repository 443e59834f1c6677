"""A pipeline split deep enough that the stage with the most layers owns no KV cache (only Gemma 4 KV-shared layers,
or only linear-attention layers): vLLM's KV-cache limit is set by a stage that has attention layers, and tpkit plans
that stage (``engines.vllm.pages.stage_layer_kinds``).  Found by ``scripts/fuzz_plan.py --seed 5`` (cases 8996, 9784:
a bare ``max() arg is an empty sequence``)."""

from __future__ import annotations

from tpkit.engines.vllm.pages import stage_layer_kinds
from tpkit.models.load import load_model as load_catalog_model


def test_gemma4_stage_of_only_kv_shared_layers_is_not_the_one_planned():
    model = load_catalog_model("google/gemma-4-E4B-it")
    assert model.kv_shared_layers > 0
    kinds = stage_layer_kinds(model, 8)
    assert kinds and all(k in ("full", "sliding") for k in kinds)


def test_linear_only_stage_is_not_the_one_planned():
    model = load_catalog_model("Qwen/Qwen3.6-27B")
    kinds = stage_layer_kinds(model, 61)
    assert any(k != "linear" for k in kinds), kinds


def test_usual_split_unchanged():
    # 64 layers over 4 stages: the first stage (16 layers, 3 linear : 1 full) as before
    model = load_catalog_model("Qwen/Qwen3.6-27B")
    assert stage_layer_kinds(model, 4) == tuple(model.kinds[:16])


def test_deep_split_plans_without_a_traceback():
    from tpkit.cli import main

    assert main(["plan", "google/gemma-4-E4B-it", "--engine", "vllm", "--gpu", "A100", "--pp", "8"]) in (0, 3)
    assert main(["plan", "Qwen/Qwen3.6-27B", "--engine", "vllm", "--gpu", "RTX-3090", "--pp", "61"]) in (0, 3)
