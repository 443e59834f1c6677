"""vLLM's decoder-layer split over pipeline stages, by release (``tpkit.models.layout.stage_sizes``,
``engines.vllm.pages.pp_split``): ``distributed/utils.py get_pp_indices`` gives the whole remainder to the last
stage up to 0.7.3 and one layer each to the stages before the last from 0.8.0 (read in the 0.6.4, 0.7.2, 0.7.3,
0.8.0, 0.8.3, 0.9.1 and 0.34.0 wheels); SGLang's rule (the last ``layers % pp`` stages) is unchanged."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tpkit.engines.offload import plan_offload
from tpkit.engines.registry import get_engine
from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.mla import mla_absorbed_bytes
from tpkit.engines.vllm.pages import PP_SPLIT_BEFORE_LAST, pp_split, stage_layer_kinds
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError
from tpkit.models.layout import stage_layers, stage_sizes
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

from vllm_fixtures import H200, deepseek_v3_like, llama3_8b


@pytest.mark.parametrize("layers, pp, sglang, vllm, vllm_last", [
    (62, 4, (15, 15, 16, 16), (15, 16, 16, 15), (15, 15, 15, 17)),
    (61, 2, (30, 31), (31, 30), (30, 31)),
    (32, 3, (10, 11, 11), (11, 11, 10), (10, 10, 12)),
    (7, 4, (1, 2, 2, 2), (2, 2, 2, 1), (1, 1, 1, 4)),  # remainder pp − 1: vLLM ≥ 0.8 reaches stage 0
    (60, 2, (30, 30), (30, 30), (30, 30)),  # even: every rule agrees
])
def test_stage_sizes_by_rule(layers, pp, sglang, vllm, vllm_last):
    assert stage_sizes(layers, pp) == stage_sizes(layers, pp, "sglang") == sglang
    assert stage_sizes(layers, pp, "vllm") == vllm
    assert stage_sizes(layers, pp, "vllm-last") == vllm_last
    for split in ("sglang", "vllm", "vllm-last"):
        ranges = [stage_layers(layers, pp, s, split) for s in range(pp)]
        assert [r.start for r in ranges] == [sum(stage_sizes(layers, pp, split)[:s]) for s in range(pp)]
        assert ranges[-1].stop == layers


def test_unknown_split_is_refused():
    with pytest.raises(PlanInputError, match="vllm-last"):
        stage_sizes(10, 2, "megatron")


@pytest.mark.parametrize("version, split", [
    ("0.6.4", "vllm-last"), ("0.7.2", "vllm-last"), ("0.7.3", "vllm-last"),
    ("0.8.0", "vllm"), ("0.8.3", "vllm"), ("0.9.1", "vllm"), ("0.34.0", "vllm")])
def test_release_boundary(version, split):
    assert PP_SPLIT_BEFORE_LAST == (0, 8, 0)
    assert pp_split(resolve_rules(version).release) == split


def test_kv_layers_follow_the_split():
    model = llama3_8b()  # 32 layers
    assert len(stage_layer_kinds(model, 3, split="vllm-last")) == 12
    assert len(stage_layer_kinds(model, 3, split="vllm")) == 11
    assert len(stage_layer_kinds(model, 4, split="vllm-last")) == len(stage_layer_kinds(model, 4)) == 8


def test_weights_stage_follows_the_split():
    model = llama3_8b()
    par = ParallelSpec(pp=3)
    old = plan_weights(model, par, engine="vllm", pp_split="vllm-last")
    new = plan_weights(model, par, engine="vllm", pp_split="vllm")
    sg = plan_weights(model, par, engine="sglang")
    assert (old.stage, new.stage, sg.stage) == (2, 0, 2)
    assert "lm_head" in {l.item for l in old.lines} and "embedding" in {l.item for l in new.lines}
    whole = plan_weights(model, ParallelSpec(), engine="vllm").bytes_per_rank  # 32 layers + both vocab matrices
    assert old.bytes_per_rank > new.bytes_per_rank  # 12 layers + lm_head against 11 + the embedding
    assert old.pp_split == "vllm-last" and new.pp_split == "vllm" and sg.pp_split == "sglang"
    assert old.bytes_per_rank < whole


@pytest.mark.parametrize("version, layers", [("0.7.3", 12), ("0.8.0", 11)])
def test_vllm_plan_uses_the_release_split(version, layers):
    model = llama3_8b()
    plan = get_engine("vllm").plan(model, H200, ParallelSpec(pp=3), VllmOptions(engine_version=version,
                                                                                 max_model_len=4096))
    assert [g["layers"] for g in plan.extra["kv_groups"]] == [layers]
    weights = next(i for i in plan.ledger.items if i.item == "model weights").bytes
    expected = plan_weights(model, ParallelSpec(pp=3), engine="vllm", pp_split=pp_split(resolve_rules(version).release))
    assert weights == expected.bytes_per_rank


def test_offload_counts_the_stage_of_the_split():
    model = llama3_8b()
    par = ParallelSpec(pp=3)
    assert plan_offload(model, par, 1.0, dtype="bfloat16", stage=2, pp_split="vllm-last").layers_total == 12
    assert plan_offload(model, par, 1.0, dtype="bfloat16", stage=2, pp_split="vllm").layers_total == 10
    assert plan_offload(model, par, 1.0, dtype="bfloat16", stage=2).layers_total == 11


def test_absorbed_mla_matrices_on_the_last_stage_of_0_7_x():
    model = deepseek_v3_like()  # 61 layers: 0.7.3 puts 15 + 1 on the last of 4 stages, 0.7.x pp 3 → 20, 20, 21
    one = mla_absorbed_bytes(model, ParallelSpec(), (0, 7, 3), act_bytes=2).bytes / 61
    assert mla_absorbed_bytes(model, ParallelSpec(pp=4), (0, 7, 3), act_bytes=2).bytes == pytest.approx(16 * one)
    model62 = replace(model, num_layers=62)
    one62 = mla_absorbed_bytes(model62, ParallelSpec(), (0, 7, 3), act_bytes=2).bytes / 62
    assert mla_absorbed_bytes(model62, ParallelSpec(pp=4), (0, 7, 3), act_bytes=2).bytes == pytest.approx(17 * one62)


@pytest.mark.parametrize("version, stage, sizes", [("0.7.3", 2, "10/10/12"), ("0.8.0", 0, "11/11/10")])
def test_pp_ledger_names_the_stage_and_the_split(version, stage, sizes):
    """A pp > 1 plan's ledger is not 'every rank alike': it says which stage its weights are and how the release
    splits the layers (32 layers over 3 stages: 0.7.3 10/10/12, heaviest the last; 0.8.0 11/11/10, heaviest the
    first with the embedding)."""
    opts = VllmOptions(engine_version=version, max_model_len=4096)
    plan = get_engine("vllm").plan(llama3_8b(), H200, ParallelSpec(pp=3), opts)
    assert plan.ledger.rank_label.startswith("per GPU of the heaviest PP stage")
    source = next(i for i in plan.ledger.items if i.item == "model weights").source
    assert f"PP stage {stage} of 3, the heaviest" in source and f"decoder layers per PP stage {sizes}: " in source
    flat = get_engine("vllm").plan(llama3_8b(), H200, ParallelSpec(), opts)
    assert flat.ledger.rank_label == "per GPU (every rank alike)"
    assert "PP stage" not in next(i for i in flat.ledger.items if i.item == "model weights").source
