"""SGLang's MoE router on grouped sigmoid routing with a correction bias: a fused gate, or the torch.compile
fallback with more kernels (``tpkit.perf.runtime_sglang.router_extra_kernels`` through ``perf.impl``; read in the sglang 0.4.3–0.5.15 wheels' layers/moe/topk.py).
Helper sg13 (2026-12-05)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.impl import impl_for, impl_profile
from tpkit.perf.impl import sglang_router_kernels as router_extra_kernels
from tpkit.perf.runtime_sglang import ROUTER_FALLBACK_KERNELS as FALLBACK_EXTRA_KERNELS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("model", "version", "extra"), [
    ("zai-org/GLM-4.7-Flash", "0.5.8", 6),          # 64 experts in one group: no fused gate in any release
    ("zai-org/GLM-4.7-Flash", None, 6),
    ("zai-org/GLM-4.6", "0.5.10", 6),               # 160 experts: not a power of two
    ("deepseek-ai/DeepSeek-V3", "0.4.3", 6),        # before 0.4.6 biased_grouped_topk itself is compiled
    ("deepseek-ai/DeepSeek-V3", "0.4.5", 6),
    ("deepseek-ai/DeepSeek-V3", "0.4.6", 0),        # 8 groups of 32: moe_fused_gate
    ("moonshotai/Kimi-K2-Instruct", "0.5.5.post2", 6),
    ("moonshotai/Kimi-K2-Instruct", "0.5.5.post3", 0),  # kimi_k2_moe_fused_gate
    ("Qwen/Qwen3-30B-A3B", "0.5.8", 0),             # softmax top-k, no correction bias
    ("meta-llama/Llama-3.1-8B-Instruct", "0.5.8", 0),
])
def test_which_releases_and_models_run_the_unfused_router(model, version, extra):
    got, why = router_extra_kernels(load_model(model), version)
    assert got == extra and bool(why) == bool(extra)
    if extra:
        assert "biased_grouped_topk_impl" in why and f"+{FALLBACK_EXTRA_KERNELS}" in why


def test_only_sglang_on_nvidia_gets_the_router_kernels():
    glm = load_model("zai-org/GLM-4.7-Flash")
    assert router_extra_kernels(glm, "0.5.8", vendor="AMD") == (0, "")
    h100 = lookup_gpu("H100")
    base = dict(model=glm, gpu=h100, tp=1, batch=1, context=512, engine_version="0.5.8")
    sglang = impl_for(PerfRequest(engine="sglang", **base))
    assert sglang.moe_small_kernels == impl_profile("sglang").moe_small_kernels + FALLBACK_EXTRA_KERNELS
    vllm = impl_for(PerfRequest(engine="vllm", **{**base, "engine_version": "0.11.0"}))
    assert vllm.moe_small_kernels == impl_profile("vllm").moe_small_kernels and vllm.release == (0, 11, 0)  # ws36a
    assert impl_for(PerfRequest(engine="sglang", impl="reference", **base)) == impl_profile("reference")


def test_glm47_flash_plain_step_carries_the_router_and_row_166_turns_right():
    """glm47f_e3 row 166 (GLM-4.7-Flash, one H100, SGLang 0.5.8, EAGLE3 3/4/6, batch 1, accept length 2.4): measured
    1.39x (120.3 -> 167.75 tok/s).  Without the router's kernels the plain step was 5.84 ms (1,175 kernels) and the
    prediction 0.97x; the 46 MoE layers' 6 extra launches make it 1,451 kernels and the prediction > 1."""
    sys.path.insert(0, str(ROOT / "bench"))
    from decode_published import predict
    import json

    rows = json.loads((Path(__file__).parent / "data" / "published_spec.json").read_text())["rows"]
    row = rows[166 - 1]
    assert (row["source"], row["batch"], row["engine_version"]) == ("glm47f_e3", 1, "0.5.8")
    result = predict(row)
    assert result.breakdown["baseline"]["kernels"] == 1175 + 46 * FALLBACK_EXTRA_KERNELS
    assert result.speculative.speedup > 1.0
    spec = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=4, num_draft_tokens=6)
    newest = plan_perf(PerfRequest(model=load_model("zai-org/GLM-4.7-Flash"), gpu=lookup_gpu("H100"), tp=1, batch=1,
                                   context=512, engine="sglang", spec=spec, accept_length=2.4))
    assert newest.breakdown["baseline"]["kernels"] == result.breakdown["baseline"]["kernels"]
