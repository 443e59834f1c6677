"""Flags resolved to the values vLLM would use for a version, with every input check (vLLM 0.33
``vllm/config/cache.py`` ``CacheConfig``, ``vllm/engine/arg_utils.py`` ``get_batch_defaults``; 0.11 as noted).  The
default batch sizes per release, device and entrypoint are ``batch_defaults``.

Batches in flight (for the sliding-window need, ≥ 0.26): Model Runner V2 is the default on CUDA from 0.29.0;
in 0.26–0.28 only for models that are neither attention+mamba hybrids nor MoE (``config/vllm.py
_is_default_v2_model_runner_model``; a few MoE architectures are listed) and only with EAGLE/EAGLE-3/MTP
speculation.  Async scheduling is off on the V1 runner with pp > 1 or with a speculative method other than
EAGLE/EAGLE-3/MTP/draft-model/ngram-GPU (``VllmConfig.__post_init__``).
"""

from __future__ import annotations

from tpkit.dtypes import lookup_dtype
from tpkit.engines.vllm.batch_defaults import default_batched_tokens, resolve_batch
from tpkit.engines.vllm.blocksize import resolve_block_size
from tpkit.engines.vllm.capacity import max_concurrent_batches
from tpkit.engines.vllm.backend_choice import attention_head_dim, auto_attention_backend
from tpkit.engines.vllm.kvdtype import KvDtype, checkpoint_kv_dtype, kv_dtype
from tpkit.engines.vllm.layout import resolve_dcp
from tpkit.engines.vllm.maxlen import (_YARN, config_model_max_length, derived_max_model_len,  # noqa: F401
                                       tokenizer_clamp)
from tpkit.engines.vllm.options import DTYPES_ACCEPTED, VllmOptions, extensible_kv_active, v2_runner_override

from tpkit.engines.vllm.pages import pp_split, stage_layer_kinds
from tpkit.engines.vllm.speculative import (SpecConfig, check_method_release, parse_speculative_config,
                                             v2_unsupported)
from tpkit.engines.vllm.versions import VllmRules
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec, is_amd
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass

__all__ = ["Resolved", "resolve_inputs", "resolve_attention_backend", "uses_v2_runner", "v2_unsupported"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Resolved:
    """Every sizing input after defaults."""

    max_model_len: int
    """tokens per request"""
    utilization: float
    """gpu_memory_utilization used"""
    act_dtype: str
    act_bytes: int
    """bytes per activation element"""
    kv_dtype: str
    kv_bytes: int
    """bytes per KV element"""
    block_size: int
    """tokens per block (before hybrid alignment)"""
    max_num_batched_tokens: int
    max_num_seqs: int
    sampler_rows: int
    """dummy requests in the profile run = sampler rows (min(tokens, seqs))"""
    compute_capability: tuple[int, int] | None
    sm_count: int | None = None
    """the GPU's streaming multiprocessors (the Triton top-k/top-p kernel's per-program buffer rows)"""
    enable_prefix_caching: bool | None = None
    """``--enable-prefix-caching`` as given (None: the release's default; ``engines.vllm.mamba``)"""
    notes: tuple[str, ...] = ()
    block_log: str | None = None
    """vLLM's line when it overrides ``--block-size`` (MLA backends ≤ 0.17)"""
    dcp: int = 1
    """decode-context-parallel size"""
    spec: SpecConfig | None = None
    """speculative decoding settings"""
    concurrent_batches: int = 1
    """``max_concurrent_batches`` (batches in flight for the sliding-window need)"""
    kv_format: KvDtype | None = None
    """the ``--kv-cache-dtype`` layout (``engines.vllm.kvdtype``); None: dense ``kv_bytes`` elements"""
    attention_backend: str = "FLASH_ATTN"
    """the attention backend planned with (``AttentionBackendEnum`` name): ``--attention-backend``
    upper-cased, else vLLM's automatic choice (:func:`resolve_attention_backend`)"""
    entrypoint: str = "serve"
    """``--vllm-entrypoint`` planned with: ``"serve"`` (API server) or ``"llm"`` (offline ``vllm.LLM``)"""
    extensible_kv: bool = False
    """vLLM ≥ 0.34 sizes the KV cache from the memory measured after warm-up and graph capture
    (``options.extensible_kv_active``; ``engines.vllm.budget``)"""
    v2_runner: bool = False
    """Model Runner V2 runs the engine (:func:`uses_v2_runner`, ``--vllm-use-v2-model-runner`` first); V1-engine
    releases only"""


def long_len_allowed(options: VllmOptions) -> bool:
    """``--vllm-allow-long-max-model-len on`` (VLLM_ALLOW_LONG_MAX_MODEL_LEN set; options.py)."""
    value = getattr(options, "vllm_allow_long_max_model_len", None)
    return str(value).strip().lower() in ("on", "1", "true")


def _clamp_note(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> str:
    """The note of vLLM 0.9.1's tokenizer clamp (``engines.vllm.maxlen.tokenizer_clamp``), else ""."""
    wanted = options.max_model_len or derived_max_model_len(model, rules)[0]
    return tokenizer_clamp(model, rules, wanted)[1]


def _max_model_len(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> int:
    limit, how = derived_max_model_len(model, rules)
    if options.max_model_len is None:
        return tokenizer_clamp(model, rules, limit)[0]
    allowed = config_model_max_length(model)  # a config.json model_max_length admits lengths up to it (every release)
    if options.max_model_len > limit and (long_len_allowed(options) or (allowed and options.max_model_len <= allowed)):
        return tokenizer_clamp(model, rules, options.max_model_len)[0]
    if options.max_model_len > limit:
        rope = model.extra.get("rope_scaling")  # a YaRN config under the ≥ 0.30 rules: the factor is not applied (ux24)
        yarn = (rules.yarn_prescaled and isinstance(rope, dict)
                and str(rope.get("rope_type") or rope.get("type")) in _YARN and how == "max_position_embeddings")
        raise PlanInputError(
            f"--max-model-len {options.max_model_len:,} is above {model.name}'s limit of {max(limit, allowed or 0):,} "
            f"tokens ({how}" + (f"; config.json model_max_length {allowed:,}" if allowed and allowed > limit else "")
            + f"); pass --max-model-len {max(limit, allowed or 0)} or less (vLLM refuses longer unless "
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: plan that with --vllm-allow-long-max-model-len on)" + (
                f"; vLLM {rules.label} takes a YaRN config's max_position_embeddings as already scaled, so serving "
                "longer means raising max_position_embeddings too (--hf-overrides; for tpkit, in a copy of "
                "config.json passed as MODEL)" if yarn else ""))
    return tokenizer_clamp(model, rules, options.max_model_len)[0]


def _act_dtype(model: ModelSpec, options: VllmOptions) -> tuple[str, int]:
    """(canonical activation dtype, bytes per element)."""
    return served_dtype(model, options.dtype)


def served_dtype(model: ModelSpec, dtype: str | None) -> tuple[str, int]:
    """(canonical dtype, bytes per element) of ``--dtype`` (None or "auto": the checkpoint's, float32 served as
    bfloat16): the unquantised weights', the activations' and, with ``--kv-cache-dtype auto``, the KV cache's
    (``engines.vllm.kvdtype``: auto = the model dtype)."""
    name = (dtype or "auto").removeprefix("torch.")
    if name == "auto":
        name = model.torch_dtype if model.torch_dtype != "float32" else "bfloat16"
    elif name not in DTYPES_ACCEPTED:
        raise PlanInputError(f"--dtype {dtype!r} is not one of auto, bfloat16, float16, float32; --dtype is "
                             "the type of the unquantised weights and activations, as in vLLM: quantised weights come "
                             "from the checkpoint or --quantization (e.g. --quantization fp8)")
    found = lookup_dtype(name)
    return found.name, found.bytes


_DEFAULT_V2_MOE_ARCHS = ("DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "Qwen2MoeForCausalLM",
                         "LongcatFlashNgramForCausalLM", "InklingForCausalLM", "InklingForConditionalGeneration")
"""MoE architectures on Model Runner V2 by default in 0.26–0.28 (``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES``;
0.27 adds KimiK3ForConditionalGeneration, 0.28 DeepseekV4ForCausalLM)"""

_V2_LISTED = {
    (0, 22, 0): frozenset({"Qwen3ForCausalLM"}),
    (0, 23, 0): frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"}),
    (0, 24, 0): frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM", "DeepseekV2ForCausalLM",
                           "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM"}),
    (0, 25, 0): frozenset({"DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM"}),
    (0, 26, 0): frozenset(_DEFAULT_V2_MOE_ARCHS),
    (0, 27, 0): frozenset(_DEFAULT_V2_MOE_ARCHS) | {"KimiK3ForConditionalGeneration"},
    (0, 28, 0): frozenset(_DEFAULT_V2_MOE_ARCHS) | {"KimiK3ForConditionalGeneration", "DeepseekV4ForCausalLM"},
}
"""``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` per release (``config/vllm.py``, wheels 0.22.0–0.28.0)"""


def uses_v2_runner(model: ModelSpec, rules: VllmRules, spec: SpecConfig | None, *,
                   quantized: bool | None = None, pp: int = 1, override: bool | None = None) -> bool:
    """Model Runner V2 runs this model on CUDA (``config/vllm.py`` ``use_v2_model_runner`` /
    ``_is_default_v2_model_runner_model``, read in the 0.21.0–0.33.0 wheels).

    ``override``: ``VLLM_USE_V2_MODEL_RUNNER`` as the user set it (``--vllm-use-v2-model-runner``), which every
    release honours first (0.12.0–0.21.0: ``v1/worker/gpu_worker.py`` reads it, default 0; 0.22.0–0.33.0:
    ``use_v2_model_runner`` returns it before any choice of its own).  Not set: V1 before 0.22.0.  0.22–0.23: a
    listed dense architecture (0.22 Qwen3 only; 0.23 Llama, Mistral, Qwen3) that is neither MoE nor quantised;
    0.24: any listed architecture; 0.25–0.26: any non-MoE model or a listed MoE one, never an attention+mamba
    hybrid; 0.27–0.28: a listed architecture or a model that is neither MoE nor hybrid; from 0.29 every model.
    In every release the features V2 lacks send the run back to V1 (:func:`v2_unsupported`; hybrids too in 0.22,
    "hybrid/mamba models")."""
    if rules.engine == "V1" and not rules.v1_runner:
        return True  # ≥ 0.34.0: Model Runner V2 is the only runner; VLLM_USE_V2_MODEL_RUNNER is not read
    if override is not None:
        return override
    if rules.v2_runner_default:
        return v2_unsupported(rules, spec, pp) is None
    release = rules.release
    if release < (0, 22, 0):
        return False
    if v2_unsupported(rules, spec, pp) is not None:
        return False
    listed = _V2_LISTED[max(k for k in _V2_LISTED if k <= release)]
    arch = model.architecture in listed
    hybrid = "linear" in model.kinds
    moe = model.moe is not None
    if release < (0, 24, 0):
        quant = model.quant is not None if quantized is None else quantized
        return arch and not moe and not quant and not hybrid
    if release < (0, 25, 0):
        return arch
    if release < (0, 27, 0):
        return not hybrid and (arch or not moe)
    return arch or (not moe and not hybrid)


def _runner_notes(model: ModelSpec, rules: VllmRules, spec: SpecConfig | None, pp: int, v2: bool,
                  override: bool | None, quantized: bool) -> tuple[str, ...]:
    """The plan's line on the model runner where it is not the plain default: the user's override, or vLLM's own
    fall-back to V1 (:func:`v2_unsupported`)."""
    if rules.engine != "V1" or rules.release < (0, 22, 0) and override is None:
        return ()
    if not rules.v1_runner:
        return () if override is not False else (
            f"model runner: Model Runner V2 — vLLM {rules.label} has no V1 runner (v1/worker/gpu_model_runner.py is "
            "gone, VllmRules.v1_runner) and no longer reads VLLM_USE_V2_MODEL_RUNNER; --vllm-use-v2-model-runner 0 "
            "is ignored",)
    if override is not None:
        return (f"model runner: {'Model Runner V2' if v2 else 'V1 (gpu_model_runner.py)'} as "
                f"--vllm-use-v2-model-runner {int(v2)} (VLLM_USE_V2_MODEL_RUNNER) sets it",)
    reason = v2_unsupported(rules, spec, pp)
    if reason is not None and uses_v2_runner(model, rules, None, quantized=quantized):
        return (f"model runner: V1 — vLLM {rules.label} falls back from Model Runner V2 (\"does not yet support "
                f"{reason}\", config/vllm.py use_v2_model_runner); --vllm-use-v2-model-runner 1 forces V2",)
    return ()


def concurrent_batches(model: ModelSpec, rules: VllmRules, pp: int, spec: SpecConfig | None, *,
                       async_off: bool = False, v2: bool | None = None) -> int:
    """``max_concurrent_batches`` with vLLM's default scheduling for this model and layout (``async_off``:
    ``--no-async-scheduling``, ``config/vllm.py VllmConfig.max_concurrent_batches`` then returns pp; ``v2``: the
    runner, None = :func:`uses_v2_runner`'s default)."""
    v2 = uses_v2_runner(model, rules, spec, pp=pp) if v2 is None else v2
    async_ok = v2 or spec is None or spec.eagle_family or spec.method in ("draft_model", "ngram_gpu")
    return max_concurrent_batches(rules, pp, v2_runner=v2, async_scheduling=async_ok and not async_off)


def resolve_attention_backend(model: ModelSpec, options: VllmOptions, compute_capability: tuple[int, int] | None,
                              *, kv_quantized: bool, rocm: bool = False, kv_layout: str = "dense") -> str:
    """``--attention-backend`` upper-cased (vLLM reads any case: ``config/attention.py validate_backend_before``,
    0.29.0, 0.33.0), else vLLM's automatic choice (``backend_choice.auto_attention_backend``).  Refused as vLLM
    refuses them (``platforms/cuda.py get_attn_backend_cls``: "Selected backend ... is not valid"): a backend whose
    MLA-ness differs from the model's (``v1/attention/backend.py validate_configuration``: "MLA not supported" /
    "non-MLA not supported"; the MLA backends are the ``*MLA*`` members of ``v1/attention/backends/registry.py``), and
    ``TORCH_SDPA``, the registry's vision-encoder-only tag with no decoder class (0.20.0–0.33.0).  A per-token-head
    KV (``kv_layout``) leaves TRITON_ATTN alone under auto (``kvdtype``: the only backend that lists it)."""
    mla = model.mla is not None
    given = (options.attention_backend or "auto").upper()
    if given == "AUTO" and kv_layout == "per_token_head" and not mla:
        return "TRITON_ATTN"
    if given == "AUTO":
        return auto_attention_backend(compute_capability=compute_capability, head_dim=attention_head_dim(model),
                                      kv_quantized=kv_quantized, mla=mla, rocm=rocm)
    if given == "TORCH_SDPA":
        raise PlanInputError("--attention-backend TORCH_SDPA names vLLM's vision-encoder attention (registry.py: a "
                             "tag with no decoder backend class), which vLLM refuses for the model's layers; give "
                             "FLASH_ATTN, TRITON_ATTN or FLASHINFER, or leave it out for vLLM's choice")
    if ("MLA" in given) != mla:
        kind, other = ("an MLA backend", "has no MLA (multi-head latent attention)") if not mla else \
            ("not an MLA backend", "uses MLA (multi-head latent attention)")
        pick = "an *MLA* backend (TRITON_MLA, FLASHMLA, FLASHINFER_MLA, CUTLASS_MLA …)" if mla else \
            "FLASH_ATTN, TRITON_ATTN or FLASHINFER"
        raise PlanInputError(f"--attention-backend {given} is {kind}, but {model.architecture} {other}: vLLM refuses "
                             f"it (\"Selected backend {given} is not valid\"); give {pick}, or leave it out for "
                             "vLLM's choice")
    return given


def _refuse_newer_than_release(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> None:
    """What the release planned does not have: ``--kv-cache-memory-bytes`` before 0.10.2 (``engine/arg_utils.py``;
    none in the V0 era), Gemma 4 before 0.19.0 (``model_executor/models/gemma4.py``)."""
    if options.kv_cache_memory_bytes is not None and rules.engine == "V0":
        raise PlanInputError("--kv-cache-memory-bytes does not exist in V0-era vLLM (≤ 0.7); remove it or plan "
                             "with --engine-version 0.11 or current")
    if options.kv_cache_memory_bytes is not None and rules.release < (0, 10, 2):
        raise PlanInputError(f"--kv-cache-memory-bytes does not exist in vLLM {rules.label} (it arrived in 0.10.2, "
                             "engine/arg_utils.py); remove it or plan with --engine-version 0.10.2 or later")
    if model.model_type == "gemma4_text" and not rules.gemma4:
        raise PlanInputError(f"vLLM {rules.label} does not serve Gemma 4 ({model.architecture}): the model arrived "
                             "in vLLM 0.19.0 (model_executor/models/gemma4.py); plan with --engine-version 0.19.0 "
                             "or later")


def _rocm_mla_backend(auto: str, block: int, model: ModelSpec, gpu: GpuSpec, options: VllmOptions) -> str:
    """ROCM_AITER_MLA where vLLM's ROCm MLA choice must fall to it (``rocm_mla_block``; lazy: ROCm MLA only)."""
    if not (is_amd(gpu.vendor) and model.mla is not None and block % 16):
        return auto
    from tpkit.engines.vllm.rocm_mla_block import rocm_mla_backend

    return rocm_mla_backend(auto, block, rocm=True, dense_mla=model.dsa is None, given=options.attention_backend)


def resolve_inputs(model: ModelSpec, gpu: GpuSpec, options: VllmOptions, rules: VllmRules,
                   parallel: ParallelSpec | None = None) -> Resolved:
    """Apply the version's defaults and check every flag against the model and GPU."""
    parallel = parallel or ParallelSpec()
    length = _max_model_len(model, options, rules)
    _refuse_newer_than_release(model, options, rules)
    act_name, act_bytes = _act_dtype(model, options)
    requested, notes = options.kv_cache_dtype, ()
    from_checkpoint = checkpoint_kv_dtype(model.quant, rules.release) if (requested or "auto").strip().lower() \
        == "auto" else None
    if from_checkpoint is not None:
        requested = from_checkpoint
        notes = (f"--kv-cache-dtype auto → {from_checkpoint}: the ModelOpt checkpoint's KV scheme "
                 f"({model.quant.kv_cache_scheme}), which vLLM {rules.label} applies to auto "
                 "(utils/torch_utils.py resolve_kv_cache_dtype_string); pass --kv-cache-dtype bfloat16 to keep 16-bit",)
    fmt = kv_dtype(requested, rules.release, mla=model.mla is not None, label=rules.label)
    kv_bytes = fmt.element_bytes or act_bytes
    kv_name = fmt.element_dtype or act_name
    cap = gpu.compute_capability
    block, block_log = resolve_block_size(model, options.block_size, rules, cap, fp8_kv=kv_bytes == 1,
                                           rocm=is_amd(gpu.vendor))
    tokens, seqs = resolve_batch(gpu, options, rules, length, model)
    spec = parse_speculative_config(options.speculative_config) if options.speculative_config else None
    if spec is not None and rules.engine == "V0":
        raise PlanInputError("--speculative-config is planned for the V1 engine only (vLLM ≥ 0.8); plan with "
                             "--engine-version 0.11 or current")
    if spec is not None:
        check_method_release(spec, rules.release, rules.label)
    kinds = stage_layer_kinds(model, parallel.pp, split=pp_split(rules.release, parallel),
                              stage=getattr(parallel, "stage", None))
    dcp = resolve_dcp(options, parallel, kinds, rules)
    override = v2_runner_override(options)
    quantized = model.quant is not None or options.quantization is not None
    v2 = rules.engine == "V1" and uses_v2_runner(model, rules, spec, quantized=quantized, pp=parallel.pp,
                                                 override=override)
    notes = tuple(notes) + tuple(n for n in (_clamp_note(model, options, rules),) if n) + _runner_notes(model, rules, spec, parallel.pp, v2, override, quantized)
    extensible = extensible_kv_active(options, rules)  # ≥ 0.34: utilization default 1.0 (resolved_gpu_memory_…)
    if options.vllm_entrypoint == "llm" and rules.engine == "V1" and not options.max_num_batched_tokens:
        notes += (f"--vllm-entrypoint llm: max_num_batched_tokens {tokens:,}, the offline vllm.LLM class's default on "
                  f"this GPU (the API server's: {default_batched_tokens(gpu, rules):,}; UsageContext.LLM_CLASS)",)
    return Resolved(
        max_model_len=length, utilization=options.gpu_memory_utilization or (
            1.0 if extensible else rules.default_utilization),
        act_dtype=act_name, act_bytes=act_bytes, kv_dtype=kv_name, kv_bytes=kv_bytes, block_size=block,
        max_num_batched_tokens=tokens, max_num_seqs=seqs,
        sampler_rows=tokens if rules.profile_logits_all_tokens else min(tokens, seqs),
        compute_capability=cap, sm_count=gpu.sm_count, enable_prefix_caching=options.enable_prefix_caching,
        block_log=block_log, dcp=dcp, spec=spec, notes=notes,
        concurrent_batches=concurrent_batches(model, rules, parallel.pp, spec,
                                              async_off=options.no_async_scheduling, v2=v2), kv_format=fmt,
        attention_backend=_rocm_mla_backend(
            resolve_attention_backend(model, options, cap, kv_quantized=kv_bytes < act_bytes,
                                      rocm=is_amd(gpu.vendor), kv_layout=fmt.layout), block, model, gpu, options),
        v2_runner=v2, entrypoint=options.vllm_entrypoint, extensible_kv=extensible)
