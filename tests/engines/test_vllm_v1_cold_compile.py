"""The cold torch.compile scratch on vLLM's V1 model runner (helper gpt20, 2026-12-04).

The compile is the model's own (``compilation/decorators.py`` ``support_torch_compile``: the first forward compiles)
and both runners make that first forward in ``profile_run`` inside ``gpu_worker.determine_available_memory``'s
``memory_profiling`` window (``v1/worker/gpu_model_runner.py`` and ``v1/worker/gpu/model_runner.py``, 0.26.0-0.32.0
wheels), so a V1 run is charged the same scratch phase as a V2 run (``profile_lines._compiles``).  Merged with helper
gem4's reading (``VllmRules.v1_vocab_hidden_peak``): on the V1 runner the scratch starts at 0.17, where vLLM pins
torch 2.10 and the AOT compile is on by default (vl_330 / vl_331, 0.23.0 cold vs warm).  Evidence: vl_290 / vl_291 (vLLM 0.29.0, V1 forced by
VLLM_USE_V2_MODEL_RUNNER=0, Qwen3-8B-FP8, cold compile) print 1.14 GiB of transient peak (printed peak − printed
CUDA-graph estimate) against V × H × 2 B = 1.16 GiB and a FlashInfer sampler phase of 0.52 GiB.  Both sides of the
release boundaries (0.11.0 / 0.11.1 since helper v11b: the torch 2.9 pin and vLLM's Inductor combo-kernel benchmark;
0.32 / 0.33), the compile cache and --enforce-eager."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))
VH = "profile phase: cold compile scratch ≈ vocab × hidden"
ACT = "activation peak (profile run, estimate)"
V1 = {"vllm_use_v2_model_runner": "0"}   # VLLM_USE_V2_MODEL_RUNNER=0, what study 28's probes set


def _plan(version, model=None, **kw):
    model = model or replace(llama3_8b(), architecture="Qwen3ForCausalLM")
    return plan_vllm(model, H200, ParallelSpec(), VllmOptions(engine_version=version, **kw), weights=W)


def _line(plan, item):
    return next((l for l in plan.ledger.items if l.item == item), None)


def _runner(plan):
    return plan.extra["engine_generation"], _line(plan, "Model Runner V2 request/sampling state") is not None


@pytest.mark.parametrize("version, on", [("0.11.0", False), ("0.11.1", True), ("0.16.0", True), ("0.17.0", True), ("0.25.0", True), ("0.26.0", True), ("0.29.0", True), ("0.32.0", True),
                                         ("0.33.0", False)])
def test_v1_runner_cold_compile_scratch_per_release(version, on):
    p = _plan(version, **V1)
    assert not _runner(p)[1]                       # the V1 runner: no Model Runner V2 state line
    assert (_line(p, VH) is not None) is on


@pytest.mark.parametrize("version", ["0.26.0", "0.29.0", "0.32.0"])
def test_v1_and_v2_runners_charge_the_same_scratch(version):
    v1, v2 = _plan(version, **V1), _plan(version)
    assert _line(v1, VH).bytes == _line(v2, VH).bytes
    model = llama3_8b()
    assert _line(v1, VH).bytes == Bytes(model.vocab_size * model.hidden_size * 2)


@pytest.mark.parametrize("version", ["0.26.0", "0.29.0", "0.32.0"])
def test_v1_runner_warm_cache_and_eager_drop_it(version):
    cold = _plan(version, **V1)
    warm = _plan(version, compile_cache="warm", **V1)
    eager = _plan(version, enforce_eager=True, **V1)
    assert _line(warm, VH) is None and _line(eager, VH) is None
    assert warm.kv_tokens >= cold.kv_tokens
    assert "torch.compile cache assumed cold" in _line(cold, ACT).source
    assert "torch.compile cache assumed warm" in _line(warm, ACT).source


def test_v1_probe_of_study_28_peak_is_the_scratch():
    # vl_290's flags (vp_210): Qwen3-8B-FP8, 0.29.0 V1, T 2,048, R 256, FlashInfer sampler, cold compile.  The
    # printed transient peak 1.14 GiB (1.69 − 0.55) is the scratch, not the sampler phase (0.60 GiB: the native
    # warm-up pass, Triton kernel and its buffer of an assumed 132 SMs' rows).
    path = Path(__file__).resolve().parent.parent / "validation" / "configs" / "Qwen--Qwen3-8B-FP8.json"
    model = from_config_dict(json.loads(path.read_text()), name="Qwen/Qwen3-8B-FP8", source=str(path))
    opts = dict(max_num_batched_tokens=2048, max_num_seqs=256, max_model_len=4096, topk_topp_sampler="flashinfer",
                gpu_memory_utilization=0.9, **V1)
    p = _plan("0.29.0", model, **opts)
    act = _line(p, ACT)
    assert act.bytes == _line(p, VH).bytes == Bytes(151_936 * 4_096 * 2)
    assert abs(act.bytes.bytes / 2**30 - 1.14) < 0.03
    sampler = next(l for l in p.ledger.items if "logits + sampler" in l.item)
    assert sampler.bytes.bytes < 0.6 * act.bytes.bytes
    warm = _plan("0.29.0", model, compile_cache="warm", **opts)
    assert _line(warm, ACT).bytes == sampler.bytes
