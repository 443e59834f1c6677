"""Bad input is a PlanInputError that says what, what was received and how to fix it."""

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB

from vllm_fixtures import H200, GivenWeights, deepseek_v3_like, llama3_8b

W = GivenWeights(GiB(15))


@pytest.mark.parametrize("util", [0, -0.1, 1.01, 2, True])
def test_utilisation_outside_zero_one_is_refused(util):
    with pytest.raises(PlanInputError, match=r"--gpu-memory-utilization must be in the range \(0, 1\], got"):
        VllmOptions(gpu_memory_utilization=util)


def test_utilisation_of_exactly_one_is_allowed():
    assert VllmOptions(gpu_memory_utilization=1.0).gpu_memory_utilization == 1.0


def test_max_model_len_above_the_model_limit_names_the_limit():
    with pytest.raises(PlanInputError) as err:
        plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(max_model_len=200_000), weights=W)
    text = str(err.value)
    assert "200,000" in text and "131,072" in text and "--max-model-len 131072" in text


@pytest.mark.parametrize("block", [8, 24, 100])
def test_block_size_not_a_multiple_of_16_is_refused_for_flash_attention(block):
    with pytest.raises(PlanInputError, match=f"--block-size {block} is not a multiple of 16"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(block_size=block), weights=W)


def test_mla_block_16_on_hopper_is_kept_from_0_18_and_forced_to_64_before():
    new = plan_vllm(deepseek_v3_like(), H200, ParallelSpec(tp=8), VllmOptions(block_size=16), weights=W)
    old = plan_vllm(deepseek_v3_like(), H200, ParallelSpec(tp=8),
                    VllmOptions(block_size=16, engine_version="0.17.1"), weights=W)
    assert new.extra["block_size"] == 16 and old.extra["block_size"] == 64
    assert old.engine_log[0] == "Forcing kv cache block size to 64 for FlashMLA backend."


def test_v0_block_size_choices():
    with pytest.raises(PlanInputError, match="V0 engine's choices 8, 16, 32"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version="v0", block_size=64), weights=W)


@pytest.mark.parametrize("field, value", [("max_num_seqs", 0), ("max_model_len", -5), ("block_size", 1.5)])
def test_counts_must_be_positive_whole_numbers(field, value):
    with pytest.raises(PlanInputError, match="must be a whole number ≥ 1"):
        VllmOptions(**{field: value})


def test_unknown_kv_cache_dtype_and_version_are_refused():
    with pytest.raises(PlanInputError, match="--kv-cache-dtype 'int3' is not supported"):
        VllmOptions(kv_cache_dtype="int3")
    with pytest.raises(PlanInputError, match="cannot read 'newest' as a vLLM version"):
        VllmOptions(engine_version="newest")
    with pytest.raises(PlanInputError, match="must be a size > 0"):
        VllmOptions(kv_cache_memory_bytes=Bytes(0))


def test_batched_tokens_below_num_seqs_is_refused():
    with pytest.raises(PlanInputError, match="max_num_batched_tokens ≥ max_num_seqs"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(max_num_batched_tokens=128, max_num_seqs=256),
                  weights=W)


@pytest.mark.parametrize("version, era", [("current", "0.33"), ("0.33.0", "0.33"), ("0.21", "0.33"),
                                          ("0.11", "0.11"), ("v0.10.1.dev101+gbda9d0535", "0.11"),
                                          ("0.8.0", "0.11"), ("0.6.4.post1", "v0"), ("v0", "v0")])
def test_versions_map_to_rule_eras(version, era):
    assert resolve_rules(version).era == era


def test_kv_cache_memory_bytes_is_refused_for_v0_rules():
    with pytest.raises(PlanInputError, match="does not exist in V0-era vLLM"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version="v0", kv_cache_memory_bytes=GiB(10)),
                  weights=W)
