"""What SGLang settles before it sizes the KV budget (``engines.sglang.choices``, split from ``sizing``).

The split changed no rule: ``kv_budget`` (``engines.sglang.budget`` since helper tidy29 split it from ``sizing``)
takes the fraction, context and capacity these functions give; callers import them from ``choices``, their one home
(``sizing`` no longer re-exports them).  The ROCm aiter factor is pinned on both sides of its
lower release bound (0.4.7; ``ModelRunner.model_specific_adjustment`` through 0.5.4, ``ServerArgs`` from 0.5.5 on,
read in the 0.5.5–0.5.23 wheels: sg_222 / sg_223, SGLang 0.5.17 on an MI355X, print pools 0.85 × the plain budget).
"""

import pytest

from tpkit.engines.sglang import budget, choices, sizing
from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.versions import rule_era
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

MODEL = "Qwen/Qwen3-8B"  # catalog: 40960 positions, 32 heads, 8 KV heads


@pytest.mark.parametrize("name", ["validate_layout", "nsa_kv_defaults", "rocm_aiter_factor", "era_has_vlm_factor"])
def test_the_moved_names_have_one_home(name):
    assert name in choices.__all__
    assert name not in sizing.__all__ and name not in budget.__all__ and not hasattr(sizing, name)


def _fraction(gpu: str, version: str, **flags):
    model, parallel = load_model(MODEL), ParallelSpec(tp=1)
    options = SglangOptions(engine_version=version, **flags)
    g = lookup_gpu(gpu)
    mib, era = g.nvidia_smi_total_mib or g.total_bytes.bytes / 2**20, rule_era(version)
    cap = choices.capacity_in_effect(model, g, mib, parallel, era, options)
    extras, _ = choices.reserve_extras(model, g, parallel, options, None)
    return choices.plan_fraction(model, g, parallel, options, era=era, gpu_mem_mib=mib, cap=cap, extras=extras)


def test_user_fraction_is_kept_on_nvidia():
    f = _fraction("H100-SXM-80GB", "0.5.23", mem_fraction_static=0.85)
    assert f.value == 0.85 and f.source == "--mem-fraction-static"


def test_rocm_aiter_factor_from_0_4_7_on():
    inside = _fraction("MI300X", "0.5.4", mem_fraction_static=0.8)
    before = _fraction("MI300X", "0.4.6", mem_fraction_static=0.8)
    assert inside.value == pytest.approx(0.8 * 0.85) and "ModelRunner" in inside.source
    assert before.value == 0.8
    for version in ("0.5.5", "0.5.17", "0.5.23"):  # moved to ServerArgs in 0.5.5, not removed
        after = _fraction("MI300X", version, mem_fraction_static=0.8)
        assert after.value == pytest.approx(0.8 * 0.85) and "ServerArgs" in after.source


def test_rocm_aiter_factor_is_0_90_in_0_5_4_post1_alone():
    """0.5.4.post1's ServerArgs multiplies by 0.90 (wheel read in session 25; gs_365, sglang#12419, closes on it);
    0.5.4 (ModelRunner) and 0.5.4.post2 / 0.5.5 (ServerArgs) by 0.85."""
    post1 = _fraction("MI300X", "0.5.4.post1", mem_fraction_static=0.8)
    assert post1.value == pytest.approx(0.8 * 0.90) and "× 0.90" in post1.source and "ServerArgs" in post1.source
    base = _fraction("MI300X", "0.5.4", mem_fraction_static=0.8)
    assert base.value == pytest.approx(0.8 * 0.85) and "ModelRunner" in base.source
    for version in ("0.5.4.post2", "0.5.4.post3", "0.5.5"):
        after = _fraction("MI300X", version, mem_fraction_static=0.8)
        assert after.value == pytest.approx(0.8 * 0.85) and "ServerArgs" in after.source


def test_rocm_aiter_factor_not_on_nvidia():
    assert _fraction("H100-SXM-80GB", "0.5.17", mem_fraction_static=0.8).value == 0.8


def test_rocm_aiter_factor_needs_a_context_over_8192():
    f = _fraction("MI300X", "0.5.4", mem_fraction_static=0.8, context_length=8192)
    assert f.value == 0.8


def test_context_len_above_the_model_limit_is_refused_with_the_fix():
    model = load_model(MODEL)
    assert choices.context_len(model, SglangOptions()) == model.max_position_embeddings
    with pytest.raises(PlanInputError, match=r"exceeds the model limit 40960 .* use ≤ 40960"):
        choices.context_len(model, SglangOptions(context_length=40961))


def test_kv_budget_takes_the_fraction_and_context_of_choices():
    options = SglangOptions(engine_version="0.5.23", context_length=8192)
    b = budget.kv_budget(load_model(MODEL), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=1), options,
                         machine=None, weights_bytes=GiB(15))
    assert b.fraction == _fraction("H100-SXM-80GB", "0.5.23", context_length=8192)
    assert b.context_len == 8192


def _gpt_oss_fraction(version: str) -> float:
    model, parallel = load_model("openai/gpt-oss-20b"), ParallelSpec(tp=1)
    options = SglangOptions(engine_version=version, mem_fraction_static=0.8)
    return choices._times(choices.FractionChoice(value=0.8, reserved_mib=None, source="--mem-fraction-static"),
                          choices.rocm_aiter_factor(model, lookup_gpu("MI355X"), parallel, options)).value


def test_gpt_oss_gets_triton_on_hip_before_0_5_10():
    # SGLang's model-specific adjustment picks triton for GptOssForCausalLM on HIP in 0.5.2-0.5.9 (no x 0.85);
    # from 0.5.10 the same branch picks aiter (gs_353 / gs_354 / gs_357 / gs_358: 0.5.6 on MI355X / MI300X print
    # the fraction as given)
    for version in ("0.5.2", "0.5.6", "0.5.9"):
        assert _gpt_oss_fraction(version) == 0.8
    for version in ("0.5.10", "0.5.17", "0.5.23"):
        assert _gpt_oss_fraction(version) == pytest.approx(0.8 * 0.85)
