"""``VllmOptions``' refusals, one named validator each (``engines.vllm.option_checks``, helper opt21, 2026-12-06,
session 21).  The messages below are those ``VllmOptions.__post_init__`` raised before the split (main 03270160),
each pinned whole: a launch that breaks a rule is refused with the same words, by the validator named, and a
launch that breaks several is refused for the first one in ``VALIDATORS`` order, as before."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from tpkit.engines.vllm import option_checks
from tpkit.engines.vllm.options import ATTENTION_BACKENDS, COMPILE_CACHE_STATES, ENTRYPOINTS, KV_CACHE_DTYPES, \
    TOPK_TOPP_SAMPLERS, VllmOptions
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError
from tpkit.units import Bytes

REFUSED = [
    ({'enable_eplb': True, 'engine_version': '0.25.1'}, 'eplb_flags_agree',
     "--enable-eplb needs --enable-expert-parallel (vLLM: 'enable_expert_parallel must be True to use EPLB')"),
    ({'skip_mm_profiling': True, 'engine_version': '0.10.0'}, 'multimodal_flags_exist',
     '--skip-mm-profiling exists from vLLM 0.10.1 (engine/arg_utils.py), not in 0.10.0; leave it out or plan a later --engine-version'),
    ({'language_model_only': True, 'engine_version': '0.16.0'}, 'multimodal_flags_exist',
     '--language-model-only exists from vLLM 0.17.0 (config/multimodal.py), not in 0.16.0; use --limit-mm-per-prompt with every modality at 0, or plan a later --engine-version'),
    ({'gpu_memory_utilization': 1.5}, 'utilization_is_a_fraction',
     '--gpu-memory-utilization must be in the range (0, 1], got 1.5; it is the fraction of the device total this vLLM instance may use (e.g. 0.9)'),
    ({'gpu_memory_utilization': 0}, 'utilization_is_a_fraction',
     '--gpu-memory-utilization must be in the range (0, 1], got 0; it is the fraction of the device total this vLLM instance may use (e.g. 0.9)'),
    ({'max_model_len': 0}, 'counts_are_whole',
     '--max-model-len must be a whole number ≥ 1, got 0'),
    ({'max_num_seqs': 2.5}, 'counts_are_whole',
     '--max-num-seqs must be a whole number ≥ 1, got 2.5'),
    ({'cpu_offload_gb': -1}, 'cpu_offload_exists',
     '--cpu-offload-gb must be ≥ 0 GiB per GPU, got -1; 0 (the default) offloads nothing'),
    ({'cpu_offload_gb': 4, 'engine_version': '0.4.1'}, 'cpu_offload_exists',
     '--cpu-offload-gb is not a flag of vLLM 0.4.1 and earlier (engine/arg_utils.py), not in 0.4.1; leave it out or plan a later --engine-version'),
    ({'kv_cache_memory_bytes': Bytes(0)}, 'kv_cache_memory_is_a_size',
     "--kv-cache-memory-bytes must be a size > 0 such as '40GiB', got 0 bytes"),
    ({'kv_cache_memory_bytes': 40}, 'kv_cache_memory_is_a_size',
     "--kv-cache-memory-bytes must be a size > 0 such as '40GiB', got 40"),
    ({'disable_custom_all_reduce': 'yes'}, 'switches_are_bools',
     "disable_custom_all_reduce must be True or False, got 'yes'"),
    ({'no_enable_extensible_kv_cache': 1}, 'switches_are_bools',
     'no_enable_extensible_kv_cache must be True or False, got 1'),
    ({'vllm_use_v2_model_runner': '2'}, 'v2_runner_exists',
     "--vllm-use-v2-model-runner must be 0 or 1 (the VLLM_USE_V2_MODEL_RUNNER value the server ran with), got '2'; leave it out for the release's choice"),
    ({'vllm_use_v2_model_runner': '1', 'engine_version': '0.11.0'}, 'v2_runner_exists',
     '--vllm-use-v2-model-runner 1: Model Runner V2 (VLLM_USE_V2_MODEL_RUNNER) exists from vLLM 0.12.0 (envs.py, v1/worker/gpu/), not in 0.11.0; leave it out (0 = the only runner there) or plan a later --engine-version'),
    ({'vllm_use_v2_model_runner': '1', 'engine_version': 'v0'}, 'v2_runner_exists',
     '--vllm-use-v2-model-runner 1: Model Runner V2 (VLLM_USE_V2_MODEL_RUNNER) exists from vLLM 0.12.0 (envs.py, v1/worker/gpu/), not in v0; leave it out (0 = the only runner there) or plan a later --engine-version'),
    ({'vllm_memory_profiler_estimate_cudagraphs': 'x'}, 'cudagraph_estimate_env_exists',
     "--vllm-memory-profiler-estimate-cudagraphs must be 0 or 1 (the VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS value the server ran with), got 'x'; leave it out for the release's default"),
    ({'vllm_memory_profiler_estimate_cudagraphs': '1', 'engine_version': '0.17.0'}, 'cudagraph_estimate_env_exists',
     '--vllm-memory-profiler-estimate-cudagraphs: the variable VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS exists from vLLM 0.18.0 (envs.py), not in 0.17.0, which subtracts no CUDA-graph estimate; leave it out or plan a later --engine-version'),
    ({'enable_prefix_caching': 'yes'}, 'defaults_are_tristate',
     "enable_prefix_caching must be True, False or None (the release's default), got 'yes'"),
    ({'enable_chunked_prefill': 1}, 'defaults_are_tristate',
     "enable_chunked_prefill must be True, False or None (the release's default), got 1"),
    ({'limit_mm_per_prompt': 'image=x'}, 'mm_limits_parse',
     '--limit-mm-per-prompt: vLLM 0.10.0 and later parse this flag as JSON only (engine/arg_utils.py), not KEY=VALUE, got \'image=x\'; pass a JSON object such as \'{"image": 2, "video": 0}\' (vLLM 0.8.5 and later) or image=2,video=0 (vLLM up to 0.9.2)'),
    ({'speculative_config': '{not json'}, 'speculative_config_parses',
     '--speculative-config is not valid JSON (Expecting property name enclosed in double quotes at character 1): got \'{not json\'; write it like \'{"method": "eagle3", "model": "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", "num_speculative_tokens": 3}\''),
    ({'topk_topp_sampler': 'torch'}, 'sampler_is_known',
     "--topk-topp-sampler must be one of native, flashinfer, got 'torch'; it names the sampler the vLLM log reports (leave it out for the release's default)"),
    ({'attention_backend': 'nope'}, 'attention_backend_is_known',
     "--attention-backend must be one of auto, FLASH_ATTN, FLASH_ATTN_DIFFKV, TRITON_ATTN, TRITON_ATTN_DIFFKV, TRITON_FLASH_ATTN, TORCH_SDPA, FLASHINFER, TRITON_FLASHINFER, FLASHINFER_MLA, FLASHINFER_MLA_SPARSE, TRITON_MLA, CUTLASS_MLA, FLASHMLA, FLASHMLA_SPARSE, FLASH_ATTN_MLA, FLEX_ATTENTION, TREE_ATTN, TURBOQUANT, ROCM_ATTN, ROCM_AITER_FA, ROCM_AITER_UNIFIED_ATTN, ROCM_AITER_MLA, ROCM_AITER_TRITON_MLA, got 'nope' (vLLM's AttentionBackendEnum names; leave it out for vLLM's automatic choice)"),
    ({'max_cudagraph_capture_size': 64, 'engine_version': '0.11.0'}, 'capture_sizes_agree',
     '--max-cudagraph-capture-size exists from vLLM 0.11.1 (engine/arg_utils.py), not in 0.11.0 (got 64); releases up to 0.11.0 take --cuda-graph-sizes, which tpkit does not read (they subtract no CUDA-graph estimate): leave it out or plan a later --engine-version'),
    ({'cudagraph_capture_sizes': '1 2 4', 'engine_version': '0.11.0'}, 'capture_sizes_agree',
     '--cudagraph-capture-sizes exists from vLLM 0.11.1 (engine/arg_utils.py), not in 0.11.0; releases up to 0.11.0 take --cuda-graph-sizes, which tpkit does not read (they subtract no CUDA-graph estimate): leave it out or plan a later --engine-version'),
    ({'cudagraph_capture_sizes': '1 2 x'}, 'capture_sizes_agree',
     "--cudagraph-capture-sizes: 'x' is not a whole number ≥ 1 (got '1 2 x'); give whole numbers ≥ 1 separated by spaces or commas, e.g. --cudagraph-capture-sizes 1 2 4 8 16 (vLLM's --cudagraph-capture-sizes)"),
    ({'cudagraph_capture_sizes': '1 2 4', 'max_cudagraph_capture_size': 8}, 'capture_sizes_agree',
     "--max-cudagraph-capture-size 8 differs from the largest of --cudagraph-capture-sizes (4): vLLM refuses the pair (config/vllm.py _set_cudagraph_sizes, 'should be consistent'); give one of the two"),
    ({'optimization_level': 5}, 'optimization_level_exists',
     "--optimization-level must be 0, 1, 2 or 3 (vLLM's -O levels), got 5"),
    ({'optimization_level': True}, 'optimization_level_exists',
     "--optimization-level must be 0, 1, 2 or 3 (vLLM's -O levels), got True"),
    ({'optimization_level': 2, 'engine_version': '0.14.0'}, 'optimization_level_exists',
     '--optimization-level is read by tpkit from vLLM 0.15.0 (config/vllm.py OptimizationLevel; the earliest wheel read), not for 0.14.0; leave it out (use --enforce-eager for no CUDA graphs) or plan a later --engine-version'),
    ({'cudagraph_mode': 'sometimes'}, 'cudagraph_mode_exists',
     "--cudagraph-mode must be one of NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE (vLLM's CUDAGraphMode names), got 'sometimes'"),
    ({'cudagraph_mode': 'FULL', 'engine_version': '0.11.0'}, 'cudagraph_mode_exists',
     "--cudagraph-mode: tpkit reads vLLM's cudagraph_mode from 0.11.1 (config/compilation.py), not for 0.11.0 (those releases subtract no CUDA-graph estimate): leave it out or plan a later --engine-version"),
    ({'compile_cache': 'hot'}, 'compile_cache_is_known',
     "--compile-cache must be one of cold, warm, got 'hot'; cold: a first start (empty torch.compile cache), warm: a restart that loads the compiled graphs from vLLM's cache"),
    ({'vllm_entrypoint': 'grpc'}, 'entrypoint_is_known',
     "--vllm-entrypoint must be one of serve, llm, got 'grpc'; serve: vllm serve / the OpenAI API server, llm: the offline vllm.LLM class (python scripts, benchmark_throughput.py)"),
    ({'enable_lora': True, 'max_lora_rank': 0}, 'lora_flags_exist',
     '--max-lora-rank must be a whole number ≥ 1, got 0'),
    ({'kv_cache_dtype': 'int4'}, 'kv_cache_dtype_is_known',
     "--kv-cache-dtype 'int4' is not supported; use one of auto, float16, bfloat16, fp16, bf16, half, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla, nvfp4, nvfp4_4over6, turboquant_k8v4, turboquant_4bit_nc, turboquant_k3v4_nc, turboquant_3bit_nc, int8_per_token_head, fp8_per_token_head, int4_per_token_head"),
    ({'kv_cache_dtype': 'int4', 'compile_cache': 'hot', 'topk_topp_sampler': 'torch'}, 'sampler_is_known',
     "--topk-topp-sampler must be one of native, flashinfer, got 'torch'; it names the sampler the vLLM log reports (leave it out for the release's default)"),
    ({'gpu_memory_utilization': 2, 'max_model_len': -1, 'engine_version': '0.10.0', 'skip_mm_profiling': True}, 'multimodal_flags_exist',
     '--skip-mm-profiling exists from vLLM 0.10.1 (engine/arg_utils.py), not in 0.10.0; leave it out or plan a later --engine-version'),
]
"""(flags, the validator that refuses them, the message main raised for them)"""


def _unchecked(**flags) -> VllmOptions:
    """options with ``flags`` set and no check run (to call one validator alone)"""
    o = object.__new__(VllmOptions)
    for f in dataclasses.fields(VllmOptions):
        object.__setattr__(o, f.name, flags.get(f.name, f.default))
    return o


@pytest.mark.parametrize("flags, validator, message", REFUSED)
def test_each_refusal_keeps_its_message_and_its_validator(flags, validator, message):
    with pytest.raises(PlanInputError) as built:
        VllmOptions(**flags)
    assert str(built.value) == message
    o, rules = _unchecked(**flags), resolve_rules(flags.get("engine_version", "current"))
    with pytest.raises(PlanInputError) as alone:
        getattr(option_checks, validator)(o, rules)
    assert str(alone.value) == message
    before = option_checks.VALIDATORS[:[v.__name__ for v in option_checks.VALIDATORS].index(validator)]
    for v in before:  # the ones that run first let these flags through
        v(o, rules)


def test_validators_are_documented_pure_functions_of_options_and_rules():
    assert len({v.__name__ for v in option_checks.VALIDATORS}) == len(option_checks.VALIDATORS) == 21
    for v in option_checks.VALIDATORS:
        assert list(inspect.signature(v).parameters) == ["o", "rules"], v.__name__
        assert v.__doc__ and len(v.__doc__.split()) >= 8, v.__name__
    ok, rules = _unchecked(), resolve_rules("current")
    assert all(v(ok, rules) is None for v in option_checks.VALIDATORS)
    VllmOptions()  # the defaults pass


def test_closed_value_lists_come_from_the_flag_table():
    for name, values in (("kv_cache_dtype", KV_CACHE_DTYPES), ("topk_topp_sampler", TOPK_TOPP_SAMPLERS),
                         ("attention_backend", ATTENTION_BACKENDS), ("compile_cache", COMPILE_CACHE_STATES),
                         ("vllm_entrypoint", ENTRYPOINTS)):
        assert option_checks._choices(VllmOptions(), name) == values
    assert VllmOptions(attention_backend="flash_attn").attention_backend == "flash_attn"  # any case, as vLLM reads it
