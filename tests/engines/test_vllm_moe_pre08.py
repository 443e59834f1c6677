"""vLLM's fused-MoE profile phase before 0.8.0 and before 0.11.0 (helper vres, 2026-12-05; ``VllmRules.moe_cache3_separate``,
``VllmRules.moe_shared_output_held``, ``engines/vllm/profile.py`` ``_moe``).

* Before 0.8.0 ``fused_experts_impl`` allocates intermediate_cache1 (C, k, 2N), intermediate_cache2 (C·k, N) and
  intermediate_cache3 (C, k, H) as three buffers (vllm 0.4.1, 0.5.5, 0.6.3, 0.7.0–0.7.3 wheels); 0.8.0 views cache1
  and cache3 in one ``cache13`` of C·k·max(2N, H) elements.
* Before 0.11.0 a MoE block with shared experts runs them first and keeps their (T, H) output through the routed
  experts (``DeepseekV2MoE.forward`` / ``Qwen2MoeSparseMoeBlock.forward``, 0.7.3 and 0.10.0 wheels).

vp_325 (DeepSeek-R1, H200 tp 8, 0.7.3, 32,000 batched tokens) prints a 6.37 GiB activation peak; tpkit planned
5.12 GiB before these two terms and 5.79 GiB with them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from towers_testlib import config_model  # noqa: E402


def _moe(model, parallel, tokens, *, separate=False, shared=False):
    est = estimate_profile_peak(model, parallel, tokens=tokens, rows=256, act_bytes=2,
                                moe_cache3_separate=separate, moe_shared_held=shared)
    return next(p for p in est.parts if p.item == "profile phase: MoE layer")


@pytest.mark.parametrize("version, separate", [
    ("0.4.1", True), ("0.6.3", True), ("0.7.3", True), ("0.7.3:v1", True), ("0.7.2:v1", True),
    ("0.8.0", False), ("0.8.2:v0", False), ("0.10.0", False), ("0.33.0", False)])
def test_cache3_apart_before_0_8_0(version, separate):
    assert resolve_rules(version).moe_cache3_separate is separate


@pytest.mark.parametrize("version, held", [
    ("0.4.1", True), ("0.7.3", True), ("0.7.3:v1", True), ("0.8.0", True), ("0.8.2:v0", True), ("0.10.2", True),
    ("0.10.1:v0", True), ("0.11.0", False), ("0.17.1", False), ("0.33.0", False)])
def test_shared_output_held_before_0_11_0(version, held):
    assert resolve_rules(version).moe_shared_output_held is held


def test_cache3_apart_adds_the_smaller_output_buffer():
    model = config_model("deepseek-ai--DeepSeek-V3")  # H 7168, 256 experts of 2048, top-8, 1 shared expert
    par = ParallelSpec(tp=8)
    t, k, h, n = 32_000, 8, 7_168, 2_048 // 8
    shared = _moe(model, par, t).bytes.bytes
    apart = _moe(model, par, t, separate=True).bytes.bytes
    assert apart - shared == t * k * min(2 * n, h) * 2  # cache1 no longer inside cache3's buffer
    assert "apart" in _moe(model, par, t, separate=True).source


def test_shared_output_only_for_models_with_shared_experts():
    ds = config_model("deepseek-ai--DeepSeek-V3")
    par = ParallelSpec(tp=8)
    t = 32_000
    assert (_moe(ds, par, t, shared=True).bytes.bytes - _moe(ds, par, t).bytes.bytes) == t * 7_168 * 2
    assert "shared experts" in _moe(ds, par, t, shared=True).source
    qwen3 = config_model("Qwen--Qwen3-30B-A3B")  # no shared expert
    assert _moe(qwen3, ParallelSpec(), 8_192, shared=True).bytes == _moe(qwen3, ParallelSpec(), 8_192).bytes
    qwen15 = config_model("Qwen--Qwen1.5-MoE-A2.7B")  # one shared expert
    assert _moe(qwen15, ParallelSpec(), 8_192, shared=True).bytes.bytes > _moe(qwen15, ParallelSpec(), 8_192).bytes.bytes


def _plan_peak(version):
    model = config_model("deepseek-ai--DeepSeek-V3")
    options = VllmOptions(engine_version=version, gpu_memory_utilization=0.85, max_model_len=128_000,
                          max_num_batched_tokens=32_000, max_num_seqs=1_024)
    plan = get_engine("vllm").plan(model, lookup_gpu("H200-SXM-141GB"), ParallelSpec(tp=8), options)
    return next(line for line in plan.ledger.items if line.item == "profile phase: MoE layer").bytes.bytes


def test_the_plan_applies_both_rules_by_release():
    t, k, h, n = 32_000, 8, 7_168, 256
    # 0.7.3 (both rules) against 0.8.2:v0 (cache13, the shared output still held): the same V0 eager MoE phase
    assert _plan_peak("0.7.3") - _plan_peak("0.8.2:v0") == t * k * min(2 * n, h) * 2
