"""SGLang's ``--attention-backend`` as a plan input (helper ab28, 2026-12-06, session 28).

The ROCm × 0.85 on ``mem_fraction_static`` tests the backend in effect and nothing else: ``if attention_backend ==
"aiter": if context_len > 8192: mem_fraction_static *= 0.85`` (0.4.7 and 0.5.4 wheels ``ModelRunner.
model_specific_adjustment``; 0.5.6, 0.5.9, 0.5.12.post1 and 0.5.13 wheels ``ServerArgs.
_handle_attention_backend_compatibility``, 'AMD platforms backends').  None = the release's HIP default (aiter for
non-MLA models; MLA: aiter at 16 or 128 KV heads per rank, else triton; gpt-oss: triton before 0.5.10)."""

import pytest

from tpkit.engines.sglang import choices
from tpkit.engines.sglang.options import ATTENTION_BACKENDS, SglangOptions
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec


def _factor(gpu: str, version: str, backend: str | None, *, model: str = "Qwen/Qwen3-8B", tp: int = 1,
            context_length: int | None = None):
    options = SglangOptions(engine_version=version, attention_backend=backend, mem_fraction_static=0.8,
                            context_length=context_length)
    return choices.rocm_aiter_factor(load_model(model), lookup_gpu(gpu), ParallelSpec(tp=tp), options)


@pytest.mark.parametrize("backend", [None, "aiter"])
@pytest.mark.parametrize("version", ["0.4.7", "0.5.4", "0.5.6", "0.5.12.post1", "0.5.13"])
def test_hip_aiter_explicit_or_default_gets_the_factor(backend, version):
    found = _factor("MI300X", version, backend)
    assert found is not None and found[0] == pytest.approx(0.85)
    assert ("--attention-backend aiter" if backend else "ROCm default") in found[1]


@pytest.mark.parametrize("backend", ["triton", "torch_native", "wave"])
@pytest.mark.parametrize("version", ["0.4.7", "0.5.4", "0.5.13"])
def test_hip_with_another_backend_has_none(backend, version):
    assert _factor("MI355X", version, backend) is None


@pytest.mark.parametrize("backend", [None, "aiter", "triton", "fa3", "flashinfer"])
def test_cuda_has_none(backend):
    assert _factor("H100-SXM-80GB", "0.5.13", backend) is None


def test_release_boundary_of_the_factor_holds_for_an_explicit_backend():
    assert _factor("MI300X", "0.4.6", "aiter") is None  # no step before 0.4.7 (ModelRunner of 0.4.7 adds it)
    assert _factor("MI300X", "0.4.7", "aiter")[0] == pytest.approx(0.85)
    assert _factor("MI300X", "0.5.4.post1", "aiter")[0] == pytest.approx(0.90)  # the one × 0.90 release
    assert _factor("MI300X", "0.5.4.post2", "aiter")[0] == pytest.approx(0.85)


def test_context_of_8192_or_less_has_none_whatever_the_backend():
    assert _factor("MI300X", "0.5.13", "aiter", context_length=8192) is None
    assert _factor("MI300X", "0.5.13", "aiter", context_length=8193)[0] == pytest.approx(0.85)


def test_explicit_aiter_overrides_the_default_choice_for_mla_and_gpt_oss():
    # DeepSeek-V3 (128 KV heads) at tp 4: 32 per rank, the HIP default is triton; --attention-backend aiter gets
    # the factor, as the step reads the backend alone
    assert _factor("MI300X", "0.5.13", None, model="deepseek-ai/DeepSeek-V3", tp=4) is None
    assert _factor("MI300X", "0.5.13", "aiter", model="deepseek-ai/DeepSeek-V3", tp=4)[0] == pytest.approx(0.85)
    assert _factor("MI355X", "0.5.6", None, model="openai/gpt-oss-20b") is None  # triton before 0.5.10
    assert _factor("MI355X", "0.5.6", "aiter", model="openai/gpt-oss-20b")[0] == pytest.approx(0.85)


def test_names_are_sglangs_lower_case_list():
    for name in ("triton", "aiter", "fa3", "flashinfer", "flashmla", "trtllm_mha", "wave", "intel_xpu"):
        assert name in ATTENTION_BACKENDS
    assert all(name == name.lower() for name in ATTENTION_BACKENDS)


def test_unknown_name_is_refused_with_the_list():
    with pytest.raises(PlanInputError, match=r"'bogus' is not an SGLang attention backend; use one of triton, "):
        SglangOptions(attention_backend="bogus")
    with pytest.raises(PlanInputError, match=r"lower case: flashinfer"):
        SglangOptions(attention_backend="FLASHINFER")  # vLLM's spelling
