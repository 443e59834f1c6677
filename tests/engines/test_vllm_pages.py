"""Per-layer pages, block sizes and groups (spec §3.1–§3.4, worked examples §3.8)."""

import pytest

from tpkit.engines.vllm.blocksize import default_block_size
from tpkit.engines.vllm.layer_bytes import kda_state_bytes
from tpkit.engines.vllm.pages import build_layout, kv_heads_per_rank
from tpkit.engines.vllm.versions import RULES, resolve_rules
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import MiB

from vllm_fixtures import config_model, deepseek_v3_like, llama3_8b


def _layout(model, tp=1, block=16, era="0.33", kv_bytes=2, pp=1):
    return build_layout(model, ParallelSpec(tp=tp, pp=pp), block_size=block, era=era, dtype_bytes=kv_bytes,
                        dtype_name="bfloat16")


def test_llama3_8b_page_and_block_bytes_match_the_spec_example():
    layout = _layout(llama3_8b())
    assert layout.groups[0].page_bytes.bytes == 2 * 16 * 8 * 128 * 2 == 65_536
    assert layout.bytes_per_block == MiB(2)
    assert not layout.is_hybrid and layout.padding_layers == 0


@pytest.mark.parametrize("tp, heads", [(1, 8), (2, 4), (8, 1), (16, 1)])
def test_kv_heads_split_by_tp_and_replicated_beyond_the_head_count(tp, heads):
    model = llama3_8b()
    assert kv_heads_per_rank(model, tp) == heads
    assert _layout(model, tp=tp).bytes_per_block.bytes == 32 * 2 * 16 * heads * 128 * 2


def test_tp_that_does_not_divide_kv_heads_is_refused():
    from dataclasses import replace

    model = replace(llama3_8b(), num_attention_heads=48, num_kv_heads=6)
    with pytest.raises(PlanInputError, match="does not divide the model's 6 KV heads"):
        kv_heads_per_rank(model, 4)


def test_tp_that_does_not_divide_attention_heads_is_refused():
    with pytest.raises(PlanInputError, match="does not divide the 32 attention heads"):
        kv_heads_per_rank(llama3_8b(), 3)


def test_fp8_kv_halves_the_page():
    assert _layout(llama3_8b(), kv_bytes=1).bytes_per_block == MiB(1)


def test_mla_page_is_one_latent_per_rank_with_flashmla_block_64():
    model = deepseek_v3_like()
    block = default_block_size(model, resolve_rules("0.17"), (9, 0))
    assert block == 64
    assert default_block_size(model, RULES["v0"], (9, 0)) == 16
    layout = _layout(model, tp=8, block=block)
    assert layout.groups[0].page_bytes.bytes == 64 * 576 * 2 == 73_728
    assert layout.bytes_per_block.bytes == 61 * 73_728 == 4_497_408


def test_gpt_oss_full_and_sliding_layers_form_two_groups_sharing_one_block():
    model = config_model("openai--gpt-oss-120b")
    layout = _layout(model)
    kinds = sorted(g.kind for g in layout.groups)
    assert kinds == ["full", "sliding"] and layout.group_size == 18
    page = 16 * 8 * (64 + 64) * 2
    assert layout.bytes_per_block.bytes == 18 * page
    sliding = next(g for g in layout.groups if g.kind == "sliding")
    assert sliding.blocks_per_request(131072, 8192) == -(-(128 - 1 + 8192) // 16) + 1
    full = next(g for g in layout.groups if g.kind == "full")
    assert full.blocks_per_request(131072, 8192) == 131072 // 16


def test_v0_gives_sliding_layers_a_full_cache():
    layout = _layout(config_model("openai--gpt-oss-120b"), era="v0")
    assert [g.kind for g in layout.groups] == ["full"] and layout.groups[0].num_layers == 36


def test_kimi_linear_hybrid_grows_the_block_and_pads_one_layer():
    model = config_model("cyankiwi--Kimi-Linear-48B-A3B-Instruct-AWQ-4bit")
    lac = model.extra["linear_attn_config"]
    state = kda_state_bytes(lac, 2, 2)
    assert state == 3 * 3 * 2048 * 2 + 16 * 128 * 128 * 4
    layout = _layout(model, tp=2, era="0.11")
    assert layout.block_size == 64 * -(-state // (64 * 1152)) == 960
    assert layout.group_size == 7 and len(layout.groups) == 4 and layout.padding_layers == 1
    assert layout.bytes_per_block.bytes == 7 * 960 * 1152
    assert layout.warnings == ("Add 1 padding layers, may waste at most 5.00% KV cache memory",)


def test_pipeline_stage_with_most_layers_decides():
    model = llama3_8b()  # 32 layers over pp=3 → 11, 11, 10
    assert _layout(model, pp=3).bytes_per_block.bytes == 11 * 65_536
