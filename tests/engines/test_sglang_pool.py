"""Cell size, token rounding, buffers and request slots (spec §3.3–§3.5)."""

import pytest

from sglang_fixtures import deepseek_v3, gpt_oss_120b, llama3_8b
from tpkit.engines.sglang.mamba import plan_mamba_pool
from tpkit.engines.sglang.pool import (compute_cell, max_running_requests, pool_buffers, req_to_token_bytes,
                                       size_tokens)
from tpkit.errors import PlanInputError
from tpkit.models.spec import LinearAttnSpec
from tpkit.units import Bytes, GiB


@pytest.mark.parametrize("tp, n_kv, cell", [(1, 8, 131_072), (2, 4, 65_536), (8, 1, 16_384), (16, 1, 16_384)])
def test_gqa_cell_divides_kv_heads_and_replicates_beyond_them(tp, n_kv, cell):
    c = compute_cell(llama3_8b(), tp, 1, "bfloat16")
    assert (c.n_kv_heads, c.bytes_per_token) == (n_kv, cell)


def test_fp8_halves_the_cell_and_old_releases_ignore_v_head_dim():
    assert compute_cell(llama3_8b(), 1, 1, "fp8_e4m3").bytes_per_token == 65_536
    odd = llama3_8b(v_head_dim=64)
    assert compute_cell(odd, 1, 1, "bfloat16").bytes_per_token == 8 * (128 + 64) * 32 * 2
    assert compute_cell(odd, 1, 1, "bfloat16", split_v_dim=False).bytes_per_token == 8 * 256 * 32 * 2


def test_mla_cell_is_not_divided_by_tp():
    for tp in (1, 8):
        assert compute_cell(deepseek_v3(), tp, 1, "bfloat16").bytes_per_token == 70_272
    assert compute_cell(deepseek_v3(), 8, 1, "fp8_e4m3").bytes_per_token == 35_136


def test_pipeline_stage_holds_its_share_of_layers():
    assert compute_cell(llama3_8b(), 1, 2, "bfloat16").bytes_per_token == 65_536


def test_hybrid_swa_cell_weights_sliding_layers_by_ratio():
    c = compute_cell(gpt_oss_120b(), 1, 1, "bfloat16")
    assert (c.full_layers, c.swa_layers) == (18, 18)
    assert c.bytes_per_token == pytest.approx(18 * 2048 + 0.8 * 18 * 2048)


def test_tokens_floor_to_pages_and_respect_the_cap():
    c = compute_cell(llama3_8b(), 1, 1, "bfloat16")
    budget = Bytes(131_072 * 1000 + 5)
    assert size_tokens(budget, c, page_size=1, max_total_tokens=None) == (1000, 0)
    assert size_tokens(budget, c, page_size=64, max_total_tokens=None) == (960, 0)
    assert size_tokens(budget, c, page_size=16, max_total_tokens=500) == (496, 0)
    assert size_tokens(Bytes(-5), c, page_size=1, max_total_tokens=None) == (0, 0)


def test_swa_pool_is_ratio_of_full_pool():
    c = compute_cell(gpt_oss_120b(), 1, 1, "bfloat16")
    full, swa = size_tokens(GiB(19.7), c, page_size=1, max_total_tokens=None)
    assert swa == int(full * 0.8)


def test_buffers_add_a_padding_page_per_layer():
    c = compute_cell(llama3_8b(), 2, 1, "bfloat16")
    pool = pool_buffers(c, 1000, 0, 16)
    assert [(b.name, b.count, b.shape) for b in pool.buffers] == [("k", 32, (1016, 4, 128)), ("v", 32, (1016, 4, 128))]
    assert pool.total_bytes == Bytes(1016 * 65_536)
    mla = pool_buffers(compute_cell(deepseek_v3(), 8, 1, "bfloat16"), 100, 0, 1)
    assert [(b.name, b.count, b.shape) for b in mla.buffers] == [("kv_latent", 61, (101, 1, 576))]
    swa = pool_buffers(compute_cell(gpt_oss_120b(), 1, 1, "bfloat16"), 1000, 800, 1)
    assert {b.name: b.shape[0] for b in swa.buffers} == {"k": 1001, "v": 1001, "swa_k": 801, "swa_v": 801}


def test_linear_layers_hold_no_kv_and_unknown_state_is_refused():
    hybrid = llama3_8b(layer_kinds=("linear", "linear", "linear", "full") * 8,
                       linear_attn=LinearAttnSpec(state_bytes_per_layer=None, description="KDA"))
    assert compute_cell(hybrid, 1, 1, "bfloat16").bytes_per_token == 131_072 // 4
    with pytest.raises(PlanInputError, match="not supported yet"):
        plan_mamba_pool(hybrid, 1, 24, GiB(10), "0.5.20")


def test_mamba_state_pool_takes_its_share_of_the_budget():
    hybrid = llama3_8b(layer_kinds=("linear", "full") * 16,
                       linear_attn=LinearAttnSpec(state_bytes_per_layer=Bytes(2_170_880)))
    pool = plan_mamba_pool(hybrid, 2, 16, GiB(19), "0.5.20")
    per_slot = Bytes(2_170_880 * 16 // 2)
    budget = GiB(19) * (0.9 / 1.9)
    assert pool.per_slot == per_slot and pool.slots == (budget - per_slot) // per_slot
    assert pool.total_bytes == per_slot * (pool.slots + 1) <= budget
    classic = plan_mamba_pool(hybrid, 2, 16, GiB(19), "0.5.10")
    assert classic.slots == budget // per_slot and classic.total_bytes == per_slot * classic.slots
    assert plan_mamba_pool(llama3_8b(), 1, 0, GiB(19), "0.5.20") is None


def test_max_running_requests_rules_by_era():
    assert max_running_requests("0.5.20", tokens=400_000, context_len=131_072, user=None, dp=1)[:2] == (2048, 2049)
    assert max_running_requests("0.5.20", tokens=400_000, context_len=4096, user=None, dp=1)[:2] == (4096, 4097)
    assert max_running_requests("0.5.20", tokens=3000, context_len=4096, user=None, dp=1)[0] == 1500
    assert max_running_requests("0.5.20", tokens=400_000, context_len=4096, user=9000, dp=1)[0] == 9000
    assert max_running_requests("0.5.10", tokens=400_000, context_len=4096, user=9000, dp=1)[0] == 4096
    assert max_running_requests("0.4.10", tokens=400_000, context_len=4096, user=None, dp=1)[:2] == (4096, 4096)


def test_req_to_token_is_int32_rows_by_context_plus_four():
    assert req_to_token_bytes(4097, 131_072) == Bytes(4097 * 131_076 * 4)
