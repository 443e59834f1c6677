"""perf and plan share vLLM's automatic attention-backend choice
(``engines.vllm.backend_choice.auto_attention_backend``).

Before helper be11 (2026-12-05) perf chose on its own (``perf.runtime._default_backend``: FLASH_ATTN everywhere but
SM 10.x) and ignored the two refusals plan models from vLLM's ``platforms/cuda.py`` priorities and the backends'
``supports_*`` checks (0.20.0–0.33.0): FlashAttention / FlashInfer take no head dim above 256 (Gemma 4's full layers:
``global_head_dim`` 512) and FlashAttention needs SM 8.0 (a T4 is SM 7.5).  Both cases now give TRITON_ATTN in both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, resolve_rules
from tpkit.engines.vllm.inputs import resolve_inputs
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict, load_model
from tpkit.perf import PerfRequest, plan_perf
from tpkit.perf.runtime import runtime_for

CONFIGS = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs"


def _gemma4():
    cfg = json.loads((CONFIGS / "google__gemma-4-26B-A4B-it" / "config.json").read_text())
    return from_config_dict(cfg, name="gemma-4-26B-A4B", source="test")


def _plan_backend(model, gpu, kv="auto"):
    options = VllmOptions(max_model_len=8192, kv_cache_dtype=kv)
    return resolve_inputs(model, gpu, options, resolve_rules("0.25.1")).attention_backend


def _perf_backend(model, gpu, kv="auto"):
    req = PerfRequest(model=model, gpu=gpu, engine="vllm", engine_version="0.25.1", context=512, kv_cache_dtype=kv)
    return plan_perf(req).inputs["runtime"]["attention_backend"]


def test_gemma4_head_dim_512_runs_triton_attention_in_plan_and_perf():
    gemma, h100 = _gemma4(), lookup_gpu("H100")
    assert gemma.full_head_dim == 512
    assert _plan_backend(gemma, h100) == _perf_backend(gemma, h100) == "TRITON_ATTN"   # perf said FLASH_ATTN


def test_sm75_t4_runs_triton_attention():
    t4 = lookup_gpu("T4")
    assert t4.compute_capability == (7, 5)
    llama = load_model("meta-llama/Llama-3.1-8B-Instruct")
    # perf has no T4 rates (no bf16 tensor cores), so its runtime is compared directly
    perf = runtime_for("vllm", "0.25.1", compute_capability=t4.compute_capability, mla=False, topk=None,
                       algorithm=None, head_dim=llama.head_dim).attention_backend
    assert _plan_backend(llama, t4) == perf == "TRITON_ATTN"                           # perf said FLASH_ATTN


@pytest.mark.parametrize("model_id, gpu, kv, backend", [
    ("meta-llama/Llama-3.1-8B-Instruct", "H100", "auto", "FLASH_ATTN"),
    ("meta-llama/Llama-3.1-8B-Instruct", "B200", "auto", "FLASHINFER"),
    ("meta-llama/Llama-3.1-8B-Instruct", "L40S", "fp8", "FLASHINFER"),   # fp8 KV: FlashAttention 3 only on SM 9.x
    ("meta-llama/Llama-3.1-8B-Instruct", "H100", "fp8", "FLASH_ATTN"),
    ("moonshotai/Kimi-K2.5", "H100", "auto", "FLASH_ATTN_MLA"),
    ("moonshotai/Kimi-K2.5", "B200", "auto", "FLASHINFER_MLA"),
    ("moonshotai/Kimi-K2.5", "RTX-PRO-6000", "auto", "TRITON_MLA"),
])
def test_plan_and_perf_agree(model_id, gpu, kv, backend):
    model, g = load_model(model_id), lookup_gpu(gpu)
    assert _plan_backend(model, g, kv) == _perf_backend(model, g, kv) == backend
