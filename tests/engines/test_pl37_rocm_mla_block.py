"""ROCm MLA ``--block-size`` (helper pl37, 2026-12-07, session 37): vLLM's ROCm AITER MLA backend takes
``--block-size 1`` (0.9.0 on) and any size from 0.16 (kernel block [1] / MultipleOf(1)); Triton MLA and every
CUDA / non-MLA backend still need multiples of 16 (``engines.vllm.rocm_mla_block``)."""

from __future__ import annotations

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.rocm_mla_block import rocm_mla_backend, rocm_mla_block_refusal
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

from vllm_fixtures import H200, GivenWeights, deepseek_v3_like, llama3_8b

W = GivenWeights(GiB(15))
MI355X = lookup_gpu("MI355X")


@pytest.mark.parametrize("block, release, ok", [
    (1, (0, 21, 0), True), (1, (0, 16, 0), True), (1, (0, 11, 0), True), (1, (0, 9, 0), True),
    (1, (0, 8, 0), False),                      # no AITER MLA in the 0.8.0 wheel
    (8, (0, 11, 0), False), (8, (0, 16, 0), True), (24, (0, 17, 0), False), (24, (0, 18, 0), True),
    (16, (0, 8, 0), True), (64, (0, 11, 0), True), (0, (0, 21, 0), False),
])
def test_the_table_by_release(block, release, ok):
    assert (rocm_mla_block_refusal(block, release) is None) is ok


def test_block_1_plans_on_rocm_mla_and_runs_aiter_mla():
    r = plan_vllm(deepseek_v3_like(), MI355X, ParallelSpec(tp=8),
                  VllmOptions(block_size=1, engine_version="0.21.0", max_model_len=8192), weights=W)
    assert r.extra["block_size"] == 1 and r.extra["attention_backend"] == "ROCM_AITER_MLA"
    assert r.kv_tokens == r.extra["kv_blocks"]  # one token per block


def test_block_1_is_refused_off_rocm_and_for_non_mla():
    with pytest.raises(PlanInputError, match="--block-size 1 is not a multiple of 16"):
        plan_vllm(deepseek_v3_like(), H200, ParallelSpec(tp=8), VllmOptions(block_size=1, engine_version="0.21.0"),
                  weights=W)
    with pytest.raises(PlanInputError, match="--block-size 1 is not a multiple of 16"):
        plan_vllm(llama3_8b(), MI355X, ParallelSpec(), VllmOptions(block_size=1, engine_version="0.21.0"), weights=W)


def test_rocm_mla_before_016_takes_1_but_not_8():
    opts = dict(engine_version="0.11.0", max_model_len=8192)
    assert plan_vllm(deepseek_v3_like(), MI355X, ParallelSpec(tp=8), VllmOptions(block_size=1, **opts),
                     weights=W).extra["block_size"] == 1
    with pytest.raises(PlanInputError, match="neither 1 .* nor a multiple of 16"):
        plan_vllm(deepseek_v3_like(), MI355X, ParallelSpec(tp=8), VllmOptions(block_size=8, **opts), weights=W)


def test_backend_label_only_where_triton_mla_cannot_take_the_size():
    assert rocm_mla_backend("TRITON_MLA", 1, rocm=True, dense_mla=True, given=None) == "ROCM_AITER_MLA"
    assert rocm_mla_backend("TRITON_MLA", 16, rocm=True, dense_mla=True, given=None) == "TRITON_MLA"
    assert rocm_mla_backend("FLASH_ATTN_MLA", 1, rocm=False, dense_mla=True, given=None) == "FLASH_ATTN_MLA"
    assert rocm_mla_backend("TRITON_MLA", 1, rocm=True, dense_mla=True, given="TRITON_MLA") == "TRITON_MLA"
