"""Which model runner vLLM runs (``engines.vllm.inputs.uses_v2_runner`` / ``v2_unsupported``): the user's
``VLLM_USE_V2_MODEL_RUNNER`` (``--vllm-use-v2-model-runner``) first, then the release's default and the features
that send Model Runner V2 back to the V1 runner (``config/vllm.py _get_v2_model_runner_unsupported_features``,
0.22.0-0.33.0 wheels), both sides of every boundary."""

from dataclasses import replace

import pytest

from tpkit.engines.vllm import VllmOptions, resolve_rules
from tpkit.engines.vllm.inputs import resolve_inputs, uses_v2_runner, v2_unsupported
from tpkit.engines.vllm.options import v2_runner_override
from tpkit.engines.vllm.speculative import SpecConfig
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec

from vllm_fixtures import H200, llama3_8b


def _spec(method):
    return SpecConfig(method=method, model=None if method.startswith("ngram") else "draft", num_speculative_tokens=3,
                      draft_tensor_parallel_size=None)


def _v2(version, spec=None, **kw):
    return uses_v2_runner(llama3_8b(), resolve_rules(version), spec, **kw)


def test_default_is_v1_before_0_22_and_v2_for_every_model_from_0_29():
    assert not _v2("0.21.0") and _v2("0.29.0")
    moe = replace(llama3_8b(), architecture="SomeMoeForCausalLM")
    assert uses_v2_runner(moe, resolve_rules("0.29.0"), None)


@pytest.mark.parametrize("version", ["0.13.0", "0.21.0", "0.23.0", "0.28.0", "0.29.0", "0.33.0"])
def test_override_wins_both_ways(version):
    assert _v2(version, override=True) is True
    assert _v2(version, override=False) is False


@pytest.mark.parametrize("method,last_v1,first_v2", [
    ("ngram", "0.31.0", "0.32.0"),        # 0.30/0.31 list ngram, 0.32.0 drops it
    ("ngram_gpu", "0.31.0", "0.32.0"),
    ("draft_model", "0.30.0", "0.31.0"),  # 0.30.0 lists draft_model, 0.31.0 drops it
])
def test_speculative_fallback_from_0_29(method, last_v1, first_v2):
    spec = _spec(method)
    assert not _v2("0.29.0", spec) and not _v2(last_v1, spec)
    assert _v2(first_v2, spec) and _v2("0.33.0", spec)
    assert v2_unsupported(resolve_rules(last_v1), spec) == f"speculative method '{method}'"


def test_0_29_names_ngram_as_its_warning_does():
    assert v2_unsupported(resolve_rules("0.29.0"), _spec("ngram")) == "ngram/ngram_gpu speculative decoding"
    assert v2_unsupported(resolve_rules("0.29.0"), _spec("draft_model")) == "speculative method 'draft_model'"


@pytest.mark.parametrize("method", ["eagle", "eagle3", "mtp", "dflash"])
def test_v2_methods_stay_on_v2(method):
    assert _v2("0.29.0", _spec(method)) and _v2("0.33.0", _spec(method))


def test_eagle3_with_pipeline_parallelism_falls_back_up_to_0_29():
    eagle3 = _spec("eagle3")
    assert _v2("0.29.0", eagle3, pp=1) and not _v2("0.29.0", eagle3, pp=2)
    assert _v2("0.30.0", eagle3, pp=2)                     # 0.30.0 no longer lists it
    assert _v2("0.28.0", eagle3, pp=1) and not _v2("0.28.0", eagle3, pp=2)  # a listed 0.28 arch (Llama: dense)
    assert _v2("0.29.0", _spec("eagle"), pp=2)             # EAGLE(1) is not affected


def test_before_0_29_unsupported_methods_as_before():
    assert not _v2("0.28.0", _spec("ngram")) and not _v2("0.23.0", _spec("dflash")) and _v2("0.24.0", _spec("dflash"))


def test_resolved_runner_and_batches_in_flight_follow_the_override():
    rules = resolve_rules("0.29.0")
    pp2 = ParallelSpec(pp=2)
    on = resolve_inputs(llama3_8b(), H200, VllmOptions(engine_version="0.29.0"), rules, pp2)
    off = resolve_inputs(llama3_8b(), H200, VllmOptions(engine_version="0.29.0", vllm_use_v2_model_runner="0"),
                         rules, pp2)
    assert on.v2_runner and on.concurrent_batches == 3   # V2: pp + 1
    assert not off.v2_runner and off.concurrent_batches == 2  # V1 with pp > 1: async off, pp
    assert any("--vllm-use-v2-model-runner 0" in n for n in off.notes)
    assert not any("model runner" in n for n in on.notes)


def test_fallback_note_names_vllm_s_reason():
    rules = resolve_rules("0.29.0")
    r = resolve_inputs(llama3_8b(), H200, VllmOptions(
        engine_version="0.29.0", speculative_config='{"method": "ngram", "num_speculative_tokens": 3, '
                                                     '"prompt_lookup_max": 4}'), rules, ParallelSpec())
    assert not r.v2_runner
    assert any("does not yet support ngram/ngram_gpu speculative decoding" in n for n in r.notes)


@pytest.mark.parametrize("value,expected", [("0", False), ("1", True), (0, False), (1, True), (True, True),
                                            (False, False), (None, None)])
def test_override_spellings(value, expected):
    assert v2_runner_override(VllmOptions(engine_version="0.29.0", vllm_use_v2_model_runner=value)) is expected


def test_v2_needs_0_12_and_zero_is_accepted_everywhere():
    VllmOptions(engine_version="0.12.0", vllm_use_v2_model_runner="1")
    with pytest.raises(PlanInputError, match="exists from vLLM 0.12.0"):
        VllmOptions(engine_version="0.11.2", vllm_use_v2_model_runner="1")
    VllmOptions(engine_version="0.11.2", vllm_use_v2_model_runner="0")
    with pytest.raises(PlanInputError, match="must be 0 or 1"):
        VllmOptions(engine_version="0.29.0", vllm_use_v2_model_runner="2")
