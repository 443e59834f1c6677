"""Round rl35 (lead 1): vLLM keeps a Granite-4.0-H / Bamba / Falcon-H1 Mamba-2 temporal state in the conv dtype.

``models/granitemoehybrid.py get_mamba_state_dtype_from_config`` → ``layers/mamba/mamba_utils.py
MambaStateDtypeCalculator.mamba2_state_dtype(model_config.dtype, mamba_cache_dtype, mamba_ssm_cache_dtype)``: with
``--mamba-ssm-cache-dtype auto`` (the CacheConfig default) the temporal state takes the conv state's dtype, the
model dtype (0.10.1, 0.10.1.1, 0.13.0, 0.20.0, 0.33.0 wheels read).  No ``VerifyAndUpdateConfig`` class changes it
for these architectures (only NemotronH from 0.13.0 and Qwen3.5 from 0.17.0, ``models/config.py``).  SGLang keeps
it in fp32 (``ModelSpec.linear_attn``).  vl_1451 / vp_1120 (vLLM 0.10.1.1) print the page this gives: 'Setting
attention block size to 528 tokens' and 'Padding mamba page size by 0.62%'.
"""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm.layer_bytes import MAMBA2_SPEC_TYPES, linear_state_bytes, ssm_state_bytes
from tpkit.engines.vllm.pages import build_layout
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

GRANITE_H = json.loads((Path(__file__).resolve().parents[1] / "validation" / "configs"
                        / "ibm-granite--granite-4.0-h-micro.json").read_text("utf-8"))
"""granite-4.0-h-micro's config.json as the validation set holds it (attention at layers 5, 15, 25, 35; Mamba-2
elsewhere: 64 heads × 64 head dim × d_state 128, d_conv 4, one group)"""
CONV = (4096 + 2 * 128) * 3  # elements: (d_conv − 1) × conv_dim
TEMPORAL = 64 * 64 * 128  # elements: heads × d_head × d_state


def _granite(**changes):
    return from_config_dict({**GRANITE_H, **changes}, name="granite-4.0-h-micro (architecture)", source="test")


@pytest.mark.parametrize("version", ["0.10.1", "0.10.1.1", "0.13.0", "0.20.0", "0.33"])
def test_granite_temporal_state_is_in_the_model_dtype_on_every_release(version):
    rules = resolve_rules(version)
    assert ssm_state_bytes(_granite(), rules, 2) == 2
    assert linear_state_bytes(_granite(), 1, 2, rules=rules) == CONV * 2 + TEMPORAL * 2 == 1_074_688


def test_sglang_spec_keeps_its_fp32_temporal_state():
    assert _granite().linear_attn.state_bytes_per_layer.bytes == CONV * 2 + TEMPORAL * 4


def test_state_splits_by_tp_and_follows_a_16_bit_model_dtype():
    rules = resolve_rules("0.10.1.1")
    assert linear_state_bytes(_granite(), 2, 2, rules=rules) == (CONV + TEMPORAL) * 2 // 2
    assert linear_state_bytes(_granite(torch_dtype="float16"), 1, 2, rules=rules) == 1_074_688


def test_0_10_1_1_page_reproduces_the_printed_block_and_padding():
    """vl_1451: 'Setting attention block size to 528 tokens', 'Padding mamba page size by 0.62%'."""
    rules = resolve_rules("0.10.1.1")
    layout = build_layout(_granite(), ParallelSpec(tp=1), block_size=16, era=rules.era, dtype_bytes=2,
                          dtype_name="bfloat16", rules=rules)
    assert layout.block_size == 528
    attention_page = 528 * 2 * 8 * 64 * 2  # K and V, 8 KV heads × head_dim 2048/32
    assert round((attention_page / 1_074_688 - 1) * 100, 2) == 0.62


def test_nemotron_h_is_left_to_its_own_release_default():
    """NemotronH's default moves 0.13 float16 → 0.20 float32 (``NemotronHForCausalLMConfig``, ``ssm_state_bytes``)."""
    assert "nemotron_h" not in MAMBA2_SPEC_TYPES
    assert resolve_rules("0.19.0").nemotron_h_ssm_default == "float16"
    assert resolve_rules("0.20.0").nemotron_h_ssm_default == "float32"
