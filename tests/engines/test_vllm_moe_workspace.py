"""vLLM's fused-MoE workspaces from 0.18.0 (helper gem4, 2026-12-04; ``VllmRules.moe_unchunked_workspace``,
``engines/vllm/profile_moe.py`` ``moe_phase``).

From 0.18.0 the modular kernel runs all M tokens in one pass (``FusedMoEModularKernel._allocate_buffers(…, M_full,
M_full, …)``; 0.15.0–0.17.0 pass ``CHUNK_SIZE``) and takes ``TritonExperts.workspace_shapes`` — (M, k, max(N, H))
and (M, k, max(2N, H)) in the activation dtype — from the ``WorkspaceManager``.  Read in the 0.17.0, 0.18.0, 0.19.0,
0.22.0, 0.25.0, 0.27.1, 0.28.0, 0.29.0 and 0.33.0 wheels.  The FP8 experts (CUTLASS, DeepGEMM) ask for the same two
sizes; MXFP4 / INT4 / NVFP4 experts have other layouts and keep the older estimate.

The check: RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic on an L40S, vLLM 0.29.0, 16,384 batched tokens (vl_272 = vp_192):
the workspaces alone are 16,384 × 8 × (2,816 + 2,816) × 2 B = 1.375 GiB, which vLLM's "consumed memory" holds
(27.01 GiB printed against 24.72 of weights); tpkit's earlier 0.10.1 layout gave 0.86 GiB."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.engines.vllm.profile_lines import _moe_workspace_experts
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from towers_testlib import config_model  # noqa: E402

GIB = 2**30


def _moe_phase(model, tokens, experts):
    est = estimate_profile_peak(model, ParallelSpec(), tokens=tokens, rows=256, act_bytes=2,
                                moe_workspace_experts=experts)
    return next(p for p in est.parts if p.item == "profile phase: MoE layer")


@pytest.mark.parametrize("version, on", [("0.17.0", False), ("0.18.0", True), ("0.29.0", True), ("0.33.0", True)])
def test_rule_starts_at_0_18_0(version, on):
    assert resolve_rules(version).moe_unchunked_workspace is on


def test_gemma4_fp8_workspace_at_16384_tokens():
    model = config_model("google--gemma-4-26B-A4B-it")  # H 2816, 128 experts of 704, top-8
    m, k, h, n = 16_384, 8, 2_816, 704
    rows = m * (2 * h + 128) * 2 + m * k * 8
    workspace = m * k * (max(n, h) + max(2 * n, h)) * 2
    assert workspace / GIB == pytest.approx(1.375)
    fp8 = int((m * h + m * k * n) * (1 + 4 / 128))
    assert _moe_phase(model, m, "fp8").bytes.bytes == rows + workspace + fp8
    assert _moe_phase(model, m, "bf16").bytes.bytes == rows + workspace
    old = _moe_phase(model, m, None)
    assert old.bytes.bytes == rows + m * k * (max(2 * n, h) + n) * 2  # 0.10.1 layout (bf16 config: no fp8 term)
    assert "modular kernel" in _moe_phase(model, m, "fp8").source and "chunk" in old.source


def test_which_experts_take_the_workspace_rule():
    gemma = config_model("google--gemma-4-26B-A4B-it")
    r29, r17 = resolve_rules("0.29.0"), resolve_rules("0.17.0")
    assert _moe_workspace_experts(gemma, VllmOptions(engine_version="0.29.0"), r29) == "bf16"
    assert _moe_workspace_experts(gemma, VllmOptions(engine_version="0.29.0", quantization="fp8"), r29) == "fp8"
    assert _moe_workspace_experts(gemma, VllmOptions(engine_version="0.17.0"), r17) is None  # chunked release
    fp8_ckpt = config_model("Qwen--Qwen3-30B-A3B-Instruct-2507-FP8")
    assert _moe_workspace_experts(fp8_ckpt, VllmOptions(engine_version="0.29.0"), r29) == "fp8"
    mxfp4 = config_model("openai--gpt-oss-20b")  # MXFP4 experts: other kernels, other layout
    assert _moe_workspace_experts(mxfp4, VllmOptions(engine_version="0.29.0"), r29) is None
    dense = config_model("google--gemma-4-E2B")
    assert _moe_workspace_experts(dense, VllmOptions(engine_version="0.29.0"), r29) is None


def test_the_kept_workspace_sits_under_the_later_phases_not_the_compile():
    """Helper v11a (wheels 0.29.0, 0.30.0): ``WorkspaceManager._ensure_workspace_size`` only grows, so the MoE
    workspace taken by the first MoE layer stays allocated under the attention of the later layers and under the
    sampler run after the forward; the cold compile (``PiecewiseBackend.__init__ → compile_all_ranges``) runs before
    the forward, so its scratch phase does not carry it.  Gemma-4-26B-A4B FP8 at 16,384 tokens (vp_199 / vp_192):
    attention 0.63 GiB + the 1.375 GiB workspace = 2.01 GiB, above the MoE phase (1.69) and the scratch (1.375);
    vLLM prints 26.85 GiB consumed (24.72 of weights) + 1.48 GiB peak activation for vp_199."""
    model = config_model("google--gemma-4-26B-A4B-it")
    m, k, h, n = 16_384, 8, 2_816, 704
    workspace = m * k * (max(n, h) + max(2 * n, h)) * 2
    kw = dict(tokens=m, rows=451, act_bytes=2, sampler="v2_greedy", vocab_hidden=True)
    with_ws = estimate_profile_peak(model, ParallelSpec(), moe_workspace_experts="fp8", **kw)
    without = estimate_profile_peak(model, ParallelSpec(), moe_workspace_experts=None, **kw)
    part = {p.item: p.bytes.bytes for p in with_ws.parts}
    base = {p.item: p.bytes.bytes for p in without.parts}
    assert part["profile phase: attention"] == base["profile phase: attention"] + workspace
    assert part["profile phase: logits + sampler"] == base["profile phase: logits + sampler"] + workspace
    scratch = "profile phase: cold compile scratch ≈ vocab × hidden"
    assert part[scratch] == base[scratch]
    assert with_ws.limiting_phase == "attention"
    assert with_ws.peak.bytes / GIB == pytest.approx(2.01, abs=0.01)
    # chunked releases (no WorkspaceManager workspace) keep the plain maximum
    assert without.limiting_phase != "attention"


@pytest.mark.parametrize("stem", ["deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct", "deepseek-ai--DeepSeek-V4-Flash"])
def test_attention_that_draws_on_the_same_workspace_keeps_the_plain_maximum(stem):
    """MLA and DeepSeek-V4 attention take their scratch from the same ``WorkspaceManager`` buffer
    (``v1/attention/backends/mla/*``, ``flashmla_sparse.py``): the kept-workspace rule leaves them out (helper v11a)."""
    model = config_model(stem)
    kw = dict(tokens=16_384, rows=256, act_bytes=2, sampler="v2_greedy")
    with_ws = estimate_profile_peak(model, ParallelSpec(), moe_workspace_experts="bf16", **kw)
    assert not any("MoE workspace kept" in p.source for p in with_ws.parts)
