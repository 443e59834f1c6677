"""Blocks, printed tokens, concurrency and the max_model_len check per era (spec §3.5–§3.7)."""

import pytest

from tpkit.engines.vllm.capacity import plan_capacity
from tpkit.engines.vllm.pages import build_layout
from tpkit.engines.vllm.versions import RULES
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB

from vllm_fixtures import config_model, llama3_8b


def _layout(model, tp=1, era="0.33", pp=1):
    return build_layout(model, ParallelSpec(tp=tp, pp=pp), block_size=16, era=era, dtype_bytes=2,
                        dtype_name="bfloat16")


@pytest.mark.parametrize("era", ["0.33", "0.11", "v0"])
def test_spec_example_60_gib_gives_30720_blocks_and_491520_tokens(era):
    cap = plan_capacity(_layout(llama3_8b(), era=era), GiB(60), max_model_len=8192, max_num_batched_tokens=8192,
                        pp=1, rules=RULES[era])
    assert cap.num_blocks == 30_720
    assert cap.tokens == 491_520
    assert cap.max_concurrency == pytest.approx(30_720 / 512)


def test_current_tokens_follow_concurrency_when_len_is_not_a_block_multiple():
    layout = _layout(llama3_8b())
    cap = plan_capacity(layout, GiB(10), max_model_len=1000, max_num_batched_tokens=8192, pp=1, rules=RULES["0.33"])
    assert cap.num_blocks == 5120
    assert cap.tokens == int(5120 / 63 * 1000) != 5120 * 16
    old = plan_capacity(layout, GiB(10), max_model_len=1000, max_num_batched_tokens=8192, pp=1, rules=RULES["0.11"])
    assert old.tokens == 5120 * 16


def test_estimated_max_model_len_for_one_group_is_blocks_times_block_size():
    layout = _layout(llama3_8b())
    available = layout.bytes_per_block * 1000 + Bytes(123)
    old = plan_capacity(layout, available, max_model_len=131072, max_num_batched_tokens=8192, pp=1,
                        rules=RULES["0.11"])
    assert not old.fits and old.estimated_max_model_len == 16_000
    assert old.needed == layout.bytes_per_block * (131072 // 16)
    new = plan_capacity(layout, available, max_model_len=131072, max_num_batched_tokens=8192, pp=1,
                        rules=RULES["0.33"])
    assert new.estimated_max_model_len == 15_984  # one block is kept back by the current check


def test_fit_check_boundary_is_exact():
    layout = _layout(llama3_8b())
    exact = layout.bytes_per_block * 512
    assert plan_capacity(layout, exact, max_model_len=8192, max_num_batched_tokens=8192, pp=1,
                         rules=RULES["0.11"]).fits
    assert not plan_capacity(layout, exact - Bytes(1), max_model_len=8192, max_num_batched_tokens=8192, pp=1,
                             rules=RULES["0.11"]).fits
    assert not plan_capacity(layout, exact, max_model_len=8192, max_num_batched_tokens=8192, pp=1,
                             rules=RULES["0.33"]).fits


def test_hybrid_0_11_tokens_divide_blocks_by_groups():
    model = config_model("cyankiwi--Kimi-Linear-48B-A3B-Instruct-AWQ-4bit")
    layout = _layout(model, tp=2, era="0.11")
    cap = plan_capacity(layout, layout.bytes_per_block * 318, max_model_len=120_000, max_num_batched_tokens=64_000,
                        pp=1, rules=RULES["0.11"])
    assert cap.tokens == 318 // 4 * 960 == 75_840
    assert cap.blocks_per_request == 125 + 3
    assert f"{cap.max_concurrency:.2f}" == "2.48"


def test_v0_concurrency_is_tokens_over_len():
    layout = _layout(llama3_8b(), era="v0")
    cap = plan_capacity(layout, layout.bytes_per_block * 1478, max_model_len=29_000, max_num_batched_tokens=29_000,
                        pp=1, rules=RULES["v0"])
    assert cap.tokens == 23_648 and not cap.fits
    assert f"{cap.max_concurrency:.2f}" == "0.82"
