"""Gemma 4 E2B's per-layer embeddings (PLE) and double-wide MLP in vLLM's load delta and profile peak (helper t4g4,
2026-12-05), hand-computed from the wheels:

- ``models/gemma4_mm.py`` ``Gemma4ForConditionalGeneration.__init__`` (0.19.0–0.33.0) allocates
  ``per_layer_embeddings = torch.zeros(max_num_batched_tokens, num_hidden_layers, hidden_size_per_layer_input)`` of
  the model dtype while the model is built: "Model loading took" holds it.  E2B at 2,048 tokens: 2,048 × 35 × 256 ×
  2 B = 36,700,160 B.  ``Gemma4ForCausalLM`` (text-only checkpoints) has no such buffer.
- ``models/gemma4.py`` ``Gemma4DecoderLayer``: with ``use_double_wide_mlp`` the last ``num_kv_shared_layers`` layers
  have an MLP of 2 × ``intermediate_size`` (E2B: 12,288); ``project_per_layer_inputs`` builds a (T, 35, 256) tensor
  before the layer loop that every layer reads, so it is alive under the MLP's peak.
"""

from __future__ import annotations

import json
from pathlib import Path

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.models.params import per_layer_input_width, widest_dense_mlp
from tpkit.parallel import ParallelSpec

CONFIG = json.loads((Path(__file__).resolve().parents[1] / "validation" / "configs" / "google--gemma-4-E2B.json")
                    .read_text())
ITEM = "Gemma 4 per-layer-embedding buffer"


def _model(architecture="Gemma4ForConditionalGeneration", **text):
    t = {k: v for k, v in {**CONFIG["text_config"], **text}.items() if v is not None}
    return from_config_dict({**CONFIG, "architectures": [architecture], "text_config": t}, name="gemma-4-E2B",
                            source="test")


def _plan(model, version="0.28.0", **flags):
    options = VllmOptions(engine_version=version, gpu_memory_utilization=0.9, max_model_len=16384, max_num_seqs=8,
                          dtype="float16", **flags)
    return plan_vllm(model, lookup_gpu("T4"), ParallelSpec(tp=1), options)


def _line(result, item):
    return next((l for l in result.ledger.items if l.item == item), None)


def test_e2b_widths():
    m = _model()
    assert widest_dense_mlp(m) == 2 * 6144 and per_layer_input_width(m) == 35 * 256
    assert widest_dense_mlp(_model(use_double_wide_mlp=False)) == 6144
    assert widest_dense_mlp(_model(num_kv_shared_layers=0)) == 6144  # no shared-KV layer to widen
    assert per_layer_input_width(_model(hidden_size_per_layer_input=0)) == 0


def test_ple_buffer_is_in_the_load_delta_of_the_multimodal_class_only():
    line = _line(_plan(_model()), ITEM)
    assert line is not None and line.bytes.bytes == 2048 * 35 * 256 * 2 == 36_700_160
    assert _line(_plan(_model(), language_model_only=True), ITEM).bytes.bytes == 36_700_160  # built all the same
    assert _line(_plan(_model("Gemma4ForCausalLM")), ITEM) is None
    assert _line(_plan(_model(hidden_size_per_layer_input=0)), ITEM) is None
    # the buffer follows max_num_batched_tokens
    assert _line(_plan(_model(), max_num_batched_tokens=4096), ITEM).bytes.bytes == 2 * 36_700_160


def test_ple_buffer_closes_vp_252s_printed_load():
    """vp_252 (0.21.0, L4, --language-model-only): 'Model loading took 8.89 GiB'; the weights + rotary cache +
    allocator rounding come to 8.85 GiB without the buffer, 8.884 with it."""
    options = VllmOptions(engine_version="0.21.0", gpu_memory_utilization=0.9, max_model_len=8192, enforce_eager=True,
                          language_model_only=True)
    result = plan_vllm(_model("Gemma4ForConditionalGeneration"), lookup_gpu("L4"), ParallelSpec(tp=1), options)
    load = sum(l.bytes.bytes for l in result.ledger.items
               if l.item in ("model weights", "rotary cos/sin cache", ITEM)
               or l.item.startswith("weight tensors: caching-allocator rounding")) / 2**30
    assert abs(load - 8.89) < 0.01
    assert abs(load - _line(result, ITEM).bytes.bytes / 2**30 - 8.89) > 0.03


def test_profile_mlp_phase_takes_the_double_wide_layer_and_the_per_layer_inputs():
    t, a = 2048, 2
    act = estimate_profile_peak(_model(), ParallelSpec(tp=1), tokens=t, rows=8, act_bytes=a, sampler="v2_greedy")
    phases = {p.item.removeprefix("profile phase: "): p.bytes.bytes for p in act.parts}
    assert phases["dense MLP"] == t * (3 * 1536 + 3 * 12288 + 35 * 256) * a
    assert phases["attention"] == t * (3 * 1536 + (2 * 8 + 1) * 256 + 256) * a + t * 35 * 256 * a
    assert act.limiting_phase == "dense MLP"
    narrow = estimate_profile_peak(_model(use_double_wide_mlp=False, hidden_size_per_layer_input=0),
                                   ParallelSpec(tp=1), tokens=t, rows=8, act_bytes=a, sampler="v2_greedy")
    assert {p.item: p.bytes.bytes for p in narrow.parts}["profile phase: dense MLP"] == t * (3 * 1536 + 3 * 6144) * a
