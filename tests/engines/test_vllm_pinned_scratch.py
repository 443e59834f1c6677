"""The cold-compile scratch block kept reserved past vLLM's profile (helper akam, 2026-12-05).

From 0.27.0 ``utils/mem_utils.py memory_profiling`` charges the free-memory drop since the init snapshot
(``total_consumed``) plus ``torch_peak − torch_allocated``; up to 0.30.x ``gpu_worker.py determine_available_memory``
runs ``profile_run`` without an allocator split limit, and 0.31.0 wraps it in ``_scoped_allocator_max_split(20)``
because a later allocation carved out of a freed multi-GiB block pins that segment past ``empty_cache()`` ("counted
as consumed and taken from the KV cache").  On the V1 runner the dummy sampler's Triton top-k/top-p kernel keeps a
float32 buffer in ``_TRITON_BUFFER_CACHE`` (``v1/sample/ops/topk_topp_triton.py``) after the cold compile's scratch
is freed, so the scratch is charged a second time (``VllmRules.pinned_profile_scratch``,
``profile_lines.pinned_scratch_lines``).  Evidence: study 28's six probes (vLLM 0.29.0, V1, Qwen3-8B-FP8 on a MIG
1g.16gb slice of 15.66 GiB, cold) print 1.28–1.31 GiB of "consumed" above the weights and a 1.14–1.16 GiB transient
peak.  Both sides of 0.27.0 and 0.31.0, the runner, the compile cache, --enforce-eager and the sampler rows."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.versions import rules_for
from tpkit.hardware.catalog import custom_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

PINNED = "cold-compile scratch block kept reserved (counted as consumed)"
CONFIG = Path(__file__).resolve().parent.parent / "validation" / "configs" / "Qwen--Qwen3-8B-FP8.json"
V1 = {"vllm_use_v2_model_runner": "0"}   # VLLM_USE_V2_MODEL_RUNNER=0, what study 28's StatefulSet sets
# vp_210 / vl_290 (study 28 probe A-auto): the printed non-default args
PROBE = dict(max_num_batched_tokens=2048, max_num_seqs=256, max_model_len=4096, topk_topp_sampler="flashinfer",
             gpu_memory_utilization=0.9, enable_prefix_caching=False)
SLICE = replace(custom_gpu(Bytes(16_814_796_964), name="MIG 1g.16gb slice (15.66 GiB printed)", source="test"),
                compute_capability=(12, 0))


def _model():
    return from_config_dict(json.loads(CONFIG.read_text()), name="Qwen/Qwen3-8B-FP8", source=str(CONFIG))


def _plan(version, **kw):
    opts = {**PROBE, **V1, **kw}
    return plan_vllm(_model(), SLICE, ParallelSpec(), VllmOptions(engine_version=version, **opts))


def _line(plan, item=PINNED):
    return next((l for l in plan.ledger.items if l.item == item), None)


@pytest.mark.parametrize("version, on", [("0.26.1", False), ("0.27.0", True), ("0.29.0", True), ("0.30.0", True),
                                         ("0.30.2", True), ("0.31.0", False), ("0.33.0", False)])
def test_the_rule_holds_from_0_27_0_to_0_30_x(version, on):
    from tpkit.engines.vllm.versions import parse_version

    assert rules_for(parse_version(version)).pinned_profile_scratch is on
    assert (_line(_plan(version)) is not None) is on


def test_the_pinned_block_is_the_scratch_and_leaves_that_much_less_kv():
    pinned = _plan("0.29.0")
    model = _model()
    assert _line(pinned).bytes == Bytes(model.vocab_size * model.hidden_size * 2)  # 151,936 × 4,096 × 2 B
    assert "_TRITON_BUFFER_CACHE" in _line(pinned).source and "0.31.0" in _line(pinned).source
    # 0.31.0 differs from 0.30.0 in this plan by the pinned block alone (the split limit around profile_run)
    later = _plan("0.30.0")
    assert _line(later).bytes == _line(pinned).bytes
    unpinned = _plan("0.31.0")
    gap = later.extra["available_kv_bytes"] - unpinned.extra["available_kv_bytes"]
    assert gap == -_line(later).bytes.bytes


def test_the_study_28_probe_is_planned_within_ten_percent():
    # vp_210: printed 'GPU KV cache size: 16,288 tokens' ('Available KV cache memory: 2.24 GiB'); without the pinned
    # block tpkit planned 23,408 (+43.7 %)
    tokens = _plan("0.29.0").kv_tokens
    assert abs(tokens - 16_288) / 16_288 < 0.10, tokens


@pytest.mark.parametrize("kw", [dict(compile_cache="warm"), dict(enforce_eager=True), dict(max_num_seqs=4)])
def test_no_pinned_block_without_a_cold_scratch_or_the_triton_buffer(kw):
    # warm: no scratch in the window; eager: no compile; 4 sampler rows: under TRITON_MIN_ROWS the top-k/top-p takes
    # the sort, which keeps no buffer
    assert _line(_plan("0.29.0")) is not None
    assert _line(_plan("0.29.0", **kw)) is None


def test_model_runner_v2_keeps_no_pinned_block():
    # Model Runner V2 (the 0.29.0 default for Qwen3ForCausalLM): its greedy dummy batch runs no top-k/top-p
    v2 = plan_vllm(_model(), SLICE, ParallelSpec(), VllmOptions(engine_version="0.29.0", **PROBE))
    assert _line(v2, "Model Runner V2 request/sampling state") is not None
    assert _line(v2) is None


def test_the_band_spans_half_the_block_either_way():
    from tpkit.memory.band import at_band_end

    lines = []
    for end in (-1, 0, 1):
        with at_band_end(end):
            lines.append(_line(_plan("0.29.0")).bytes.bytes)
    low, mid, high = lines
    assert abs(low - mid / 2) <= 1
    assert abs(high - 1.5 * mid) <= 1
