"""A multimodal run's compiled language model takes ``inputs_embeds``: no cold-compile vocabulary × hidden scratch
(helper v11b, 2026-12-05; ``engines/vllm/profile_lines.embeds_input``).

vLLM's V1 runner (``_dummy_run``, 0.20.2 / 0.26.0 / 0.29.0 wheels) and Model Runner V2 (``execute_model``, 0.26.0 /
0.29.0) pass ``input_ids=None`` and the ``inputs_embeds`` buffer where ``supports_multimodal_inputs`` holds, so the
embedding table is not an input of the graph a first start compiles.  Runs that print it: vp_594's cold and warm boots
both print 7.04 GiB (0.26.0, Qwen3.8-27B-FP8, L40S), vp_597's AOT-loaded and fresh-compile boots both 16.74 GiB;
vp_440 (0.27.1, cold) prints a 1.84 GiB peak, the encoder phase (1.88), not the scratch phase (2.71).
--language-model-only and an all-zero --limit-mm-per-prompt turn the multimodal inputs off: the token ids go in
and the phase stays."""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parent.parent / "validation" / "configs"
VH = "profile phase: cold compile scratch ≈ vocab × hidden"
ENC = "profile phase: vision encoder (dummy items)"
ACT = "activation peak (profile run, estimate)"


def _model(stem, name):
    path = CONFIGS / f"{stem}.json"
    return from_config_dict(json.loads(path.read_text()), name=name, source=str(path))


def _qwen38_fp8():
    return _model("Qwen--Qwen3.8-27B", "Qwen/Qwen3.8-27B-FP8")


def _plan(version="0.26.0", model=None, **kw):
    opts = dict(max_model_len=131072, gpu_memory_utilization=0.9, max_num_seqs=16, quantization="fp8") | kw
    return plan_vllm(model or _qwen38_fp8(), lookup_gpu("L40S"), ParallelSpec(),
                     VllmOptions(engine_version=version, **opts))


def _line(plan, item):
    return next((l for l in plan.ledger.items if l.item == item), None)


@pytest.mark.parametrize("version", ["0.26.0", "0.27.1", "0.29.0"])
def test_multimodal_run_has_no_scratch_and_the_encoder_is_the_peak(version):
    p = _plan(version)
    assert _line(p, VH) is None
    assert _line(p, ACT).bytes == _line(p, ENC).bytes       # the encoder's dummy image is the peak
    assert "assumed cold" not in _line(p, ACT).source


@pytest.mark.parametrize("flags", [dict(language_model_only=True),
                                   dict(limit_mm_per_prompt='{"image": 0, "video": 0}')])
def test_text_only_run_of_the_same_model_keeps_the_scratch(flags):
    p = _plan(**flags)
    model = _qwen38_fp8()
    assert _line(p, VH).bytes.bytes == model.vocab_size * model.hidden_size * 2
    assert _line(p, ENC) is None


def test_cold_and_warm_starts_plan_the_same_multimodal_pool():
    # vp_594: the first boot's four attempts (cold compile 57 s, then 15 s from the cache) print the same 7.04 GiB
    cold, warm = _plan(gpu_memory_utilization=0.86, max_num_seqs=None), _plan(gpu_memory_utilization=0.86,
                                                                              max_num_seqs=None, compile_cache="warm")
    assert cold.extra["available_kv_bytes"] == warm.extra["available_kv_bytes"]
    assert cold.kv_tokens == warm.kv_tokens
    # and the text-only run still depends on the cache
    t_cold, t_warm = _plan(language_model_only=True), _plan(language_model_only=True, compile_cache="warm")
    assert t_warm.kv_tokens > t_cold.kv_tokens


def test_warm_flag_on_a_multimodal_run_says_it_changes_nothing():
    p = _plan(compile_cache="warm")
    notes = " ".join(p.warnings)
    assert "--compile-cache warm changes nothing here" in notes and "inputs_embeds" in notes


def test_vp_594_pool_from_the_printed_boot():
    # 0.86 of the L40S, 256 sequences, image=4 video=0: vLLM printed 7.04 GiB available (every attempt)
    p = _plan(gpu_memory_utilization=0.86, max_num_seqs=None, limit_mm_per_prompt='{"image": 4, "video": 0}')
    assert abs(p.extra["available_kv_bytes"] / 2**30 - 7.04) < 0.15
