"""Gemma 4 in vLLM: per-kind KV pages, shared-KV layers, the prefix-LM batched-token default and the release
bounds, hand-computed from the wheels:

- ``models/gemma4.py`` (0.19.0 – 0.29.0): sliding layers ``head_dim`` × ``num_key_value_heads``, full layers
  ``global_head_dim`` × ``num_global_key_value_heads`` (with ``attention_k_eq_v``); the last
  ``num_kv_shared_layers`` layers get a ``kv_sharing_target_layer_name`` and no KV cache spec
  (``v1/worker/gpu_model_runner.py get_kv_cache_spec``).
- ``v1/core/kv_cache_utils.py`` (0.25.1): ``unify_kv_cache_spec_page_size`` grows the smaller page's block,
  ``_get_kv_cache_groups_uniform_page_size`` groups by the smaller layer count (25 sliding, 5 full → groups of 5),
  ``get_max_concurrency_for_kv_cache_config`` / ``get_kv_cache_capacity``.
- ``engine/arg_utils.py`` (≥ 0.22.0): a multimodal prefix-LM model's default max_num_batched_tokens is raised to
  its largest per-item count, ``models/gemma4_mm.py get_mm_max_tokens_per_item`` video 32 × (70 + 2 + 6) = 2,496.
- The 0.18.0 wheel has no ``models/gemma4.py``.

vl_076 (vLLM 0.25.1, L40S, gemma-4-26B-A4B FP8, 0.92, 32,768): 'Available KV cache memory: 12.75 GiB',
'GPU KV cache size: 321,600 tokens', 'Maximum concurrency for 32,768 tokens per request: 9.81x'.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, resolve_rules
from tpkit.engines.vllm.capacity import plan_capacity
from tpkit.engines.vllm.batch_defaults import mm_prefix_batch_floor
from tpkit.engines.vllm.inputs import resolve_inputs
from tpkit.engines.vllm.pages import build_layout, stage_layer_kinds
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200

CONFIG = json.loads((Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "google__gemma-4-26B-A4B-it"
                     / "config.json").read_text())
L40S = GpuSpec(name="L40S", total_bytes=Bytes(47_663_399_567), total_source="test", compute_capability=(8, 9))


def _model(cfg=CONFIG, **text):
    t = {k: v for k, v in {**cfg["text_config"], **text}.items() if v is not None}
    return from_config_dict({**cfg, "text_config": t}, name="gemma-4-26B-A4B", source="test")


def _layout(model, tp=1, kv_bytes=2, release="0.25.1"):
    return build_layout(model, ParallelSpec(tp=tp), block_size=16, era="0.33", dtype_bytes=kv_bytes,
                        dtype_name="bfloat16", rules=resolve_rules(release))


def test_26b_pages_groups_and_block_bytes():
    layout = _layout(_model())
    # sliding: 16 tokens × 8 heads × (256 + 256) × 2 B = 131,072; full: 16 × 2 × (512 + 512) × 2 = 65,536,
    # which divides it → the full layers' block grows to 32 tokens
    sliding = [g for g in layout.groups if g.kind == "sliding"]
    full = [g for g in layout.groups if g.kind == "full"]
    assert len(sliding) == 5 and all(g.num_layers == 5 and g.block_size == 16 and g.window == 1024 for g in sliding)
    assert len(full) == 1 and full[0].num_layers == 5 and full[0].block_size == 32
    assert {g.page_bytes.bytes for g in layout.groups} == {131_072}
    assert layout.group_size == 5 and layout.padding_layers == 0
    assert layout.bytes_per_block.bytes == 5 * 131_072 == 655_360


def test_26b_tp2_halves_both_kinds():
    layout = _layout(_model(), tp=2)
    # sliding 4 heads × 512 × 2 × 16 = 65,536; full 1 head × 1,024 × 2 × 16 = 32,768 → block 32
    assert {g.page_bytes.bytes for g in layout.groups} == {65_536}
    assert layout.bytes_per_block.bytes == 5 * 65_536


def test_vl_076_capacity_from_its_available_memory():
    layout = _layout(_model())
    # 20,895 blocks (12.7533 GiB, printed 12.75); one request of 32,768 tokens holds, in pages of 131,072 B:
    # full cdiv(32,768, 32) = 1,024 + 5 sliding groups × (cdiv(1,023 + 2,496, 16) + 1 = 221) = 2,129
    cap = plan_capacity(layout, Bytes(20_895 * 655_360), max_model_len=32_768, max_num_batched_tokens=2_496, pp=1,
                        rules=resolve_rules("0.25.1"))
    assert cap.blocks_per_request == 1_024 + 5 * 221 == 2_129
    assert cap.num_blocks == 20_895
    assert cap.tokens == int(20_895 / 2_129 * 32_768) == 321_600
    assert round(cap.max_concurrency, 2) == 9.81


def test_shared_kv_layers_get_no_pages():
    cfg = {**CONFIG, "text_config": {**CONFIG["text_config"], "num_kv_shared_layers": 6}}
    model = _model(cfg)
    kinds = stage_layer_kinds(model, 1)
    assert len(kinds) == 24 and kinds.count("full") == 4 and kinds.count("sliding") == 20
    layout = _layout(model)
    # 20 sliding / 4 full → groups of 4: 5 sliding groups + 1 full group
    assert layout.group_size == 4 and len(layout.groups) == 6
    assert layout.bytes_per_block.bytes == 4 * 131_072


def test_without_k_eq_v_full_layers_keep_eight_heads():
    layout = _layout(_model(attention_k_eq_v=False))
    # full: 16 × 8 × 1,024 × 2 = 262,144 > sliding 131,072 → the sliding block grows to 32
    assert {g.page_bytes.bytes for g in layout.groups} == {262_144}
    assert {g.kind: g.block_size for g in layout.groups} == {"sliding": 32, "full": 16}


def test_prefix_lm_batched_token_floor():
    model = _model()
    assert mm_prefix_batch_floor(model) == 32 * (70 + 2 + 6) == 2_496
    assert mm_prefix_batch_floor(_model(use_bidirectional_attention=None)) is None
    text_only = from_config_dict(CONFIG["text_config"] | {"architectures": ["Gemma4ForCausalLM"]}, name="t",
                                 source="test")
    assert mm_prefix_batch_floor(text_only) is None
    audio = _model({**CONFIG, "audio_config": {"model_type": "gemma4_audio"}})
    assert mm_prefix_batch_floor(audio) == 2_496  # audio 750 tokens is below the video item


@pytest.mark.parametrize("release, gpu, flag, tokens", [
    ("0.25.1", L40S, None, 2_496),     # 2,048 default (< 70 GiB) raised to the video item
    ("0.22.0", L40S, None, 2_496),     # first release with the raise
    ("0.21.0", L40S, None, 2_048),     # no raise before 0.22
    ("0.25.1", H200, None, 8_192),     # the 8,192 default is already above it
    ("0.25.1", L40S, 1_024, 1_024),    # an explicit --max-num-batched-tokens is kept
])
def test_batched_tokens_default_per_release(release, gpu, flag, tokens):
    options = VllmOptions(max_model_len=32_768, max_num_batched_tokens=flag)
    resolved = resolve_inputs(_model(), gpu, options, resolve_rules(release))
    assert resolved.max_num_batched_tokens == tokens


def test_gemma4_needs_vllm_0_19():
    options = VllmOptions(max_model_len=32_768)
    with pytest.raises(PlanInputError, match="does not serve Gemma 4.*0.19.0"):
        resolve_inputs(_model(), L40S, options, resolve_rules("0.18.0"))
    assert resolve_inputs(_model(), L40S, options, resolve_rules("0.19.0")).max_num_batched_tokens == 2_048


def test_sglang_plans_gemma4_from_0_5_11_and_refuses_other_per_kind_models():
    from tpkit.engines.sglang.pool import compute_cell

    # SGLang's own Gemma 4 rules: tests/engines/test_sglang_gemma4.py
    with pytest.raises(PlanInputError, match="does not serve Gemma 4.*0.5.11"):
        compute_cell(_model(), 1, 1, "bfloat16", version="0.5.10")
    assert compute_cell(_model(), 1, 1, "bfloat16", version="0.5.11").bytes_per_token == 184_320
    with pytest.raises(PlanInputError, match="modelled for SGLang only for Gemma 4.*--engine vllm"):
        compute_cell(replace(_model(), model_type="other_text"), 1, 1, "bfloat16")
    other = replace(_model(), model_type="other_text", full_head_dim=None, full_kv_heads=None)
    assert compute_cell(other, 1, 1, "bfloat16").bytes_per_token > 0
