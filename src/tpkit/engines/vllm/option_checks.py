"""The values vLLM's flags take and the checks ``VllmOptions`` runs when it is built, one named validator per rule
(split from ``VllmOptions.__post_init__`` by helper opt21, 2026-12-06, session 21; messages and order unchanged).
The closed value lists stay in ``engines.vllm.options``' flag table and are read from the options' fields, so
this module imports nothing of ``options`` and is loaded only when options are built (not for ``--help`` or
another engine's plan).

Each validator is a pure function of the options and the release's rules (``versions.resolve_rules``): it returns
None or raises ``PlanInputError`` with what was given, why it is refused and how to fix it.  ``VALIDATORS`` runs them
in the order ``__post_init__`` always checked, so a launch with two bad flags still names the same one first.
"""

from __future__ import annotations

from tpkit.engines.engine import check_fraction, check_switches, check_whole_numbers
from tpkit.errors import PlanInputError
from tpkit.units import Bytes

__all__ = ["VALIDATORS", "check_options", "capture_size_list", "POSITIVE_INTS"]

POSITIVE_INTS = ("max_model_len", "block_size", "max_num_batched_tokens", "max_num_seqs", "max_cudagraph_capture_size",
                  "decode_context_parallel_size", "data_parallel_size")
"""the ``VllmOptions`` counts that must be whole numbers ≥ 1 (vLLM's ``int`` engine arguments)"""

_SWITCHES = ("disable_custom_all_reduce", "enable_expert_parallel", "skip_mm_profiling", "language_model_only",
             "no_async_scheduling", "no_enable_extensible_kv_cache", "enable_eplb")
_ENV_BOOLS = ("0", "1", "True", "False")
"""the spellings of a 0/1 environment variable tpkit takes"""


def _choices(o, name: str) -> tuple[str, ...]:
    """The values the flag table offers for the field ``name`` (``VllmOptions``' ``flag(choices=…)``: the
    ``engines.vllm.options`` tuple itself), read from the options so this module needs no import of theirs."""
    return type(o).__dataclass_fields__[name].metadata["flag"].choices


def capture_size_list(value) -> tuple[int, ...] | None:
    """``--cudagraph-capture-sizes`` as a tuple of whole numbers ≥ 1 (None where not given): text with the sizes
    separated by spaces or commas, optionally in brackets, or a sequence of ints (a list of such texts from the
    command line).  Anything else is refused with what was received."""
    if value is None:
        return None
    how = ("give whole numbers ≥ 1 separated by spaces or commas, e.g. --cudagraph-capture-sizes 1 2 4 8 16 "
           "(vLLM's --cudagraph-capture-sizes)")
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise PlanInputError(f"--cudagraph-capture-sizes must be a list of sizes, got {value!r}; {how}")
    parts = []
    for item in items:
        if isinstance(item, str):
            parts += [p for p in item.replace("[", " ").replace("]", " ").replace(",", " ").split() if p]
        else:
            parts.append(item)
    if not parts:
        raise PlanInputError(f"--cudagraph-capture-sizes is empty (got {value!r}); {how}; leave the flag out for "
                             "vLLM's own sizes")
    sizes = []
    for p in parts:
        n = p
        if isinstance(p, str):
            n = int(p) if p.strip().lstrip("+").isdigit() else None
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise PlanInputError(f"--cudagraph-capture-sizes: {p!r} is not a whole number ≥ 1 (got {value!r}); {how}")
        sizes.append(n)
    return tuple(sizes)


def multimodal_flags_exist(o, rules) -> None:
    """``--skip-mm-profiling`` exists from vLLM 0.10.1 (``engine/arg_utils.py``), ``--language-model-only`` from
    0.17.0 (``config/multimodal.py``): a plan of an earlier release with either set is refused."""
    if o.skip_mm_profiling is True and rules.release < (0, 10, 1):
        raise PlanInputError(f"--skip-mm-profiling exists from vLLM 0.10.1 (engine/arg_utils.py), not in "
                             f"{o.engine_version}; leave it out or plan a later --engine-version")
    if o.language_model_only is True and rules.release < (0, 17, 0):
        raise PlanInputError(f"--language-model-only exists from vLLM 0.17.0 (config/multimodal.py), not in "
                             f"{o.engine_version}; use --limit-mm-per-prompt with every modality at 0, or "
                             "plan a later --engine-version")


def utilization_is_a_fraction(o, rules) -> None:
    """``--gpu-memory-utilization`` is the share of the device total in (0, 1] (``config/cache.py``
    ``gpu_memory_utilization``; ``engines.engine.check_fraction``)."""
    check_fraction("gpu-memory-utilization", o.gpu_memory_utilization,
                   "it is the fraction of the device total this vLLM instance may use (e.g. 0.9)")


def counts_are_whole(o, rules) -> None:
    """Lengths, block size, batch and parallel sizes are whole numbers ≥ 1 (vLLM's ``int`` engine arguments)."""
    check_whole_numbers(o, POSITIVE_INTS)


def cpu_offload_exists(o, rules) -> None:
    """``--cpu-offload-gb`` is a size ≥ 0 in GiB (``engines.offload.check_cpu_offload_gb``) and a flag of vLLM
    0.5.4 and later: 0.4.1's ``engine/arg_utils.py`` has no such argument (the releases between are not read)."""
    from tpkit.engines.offload import check_cpu_offload_gb

    check_cpu_offload_gb(o.cpu_offload_gb, whole=False, engine="vLLM")
    if o.cpu_offload_gb and rules.release <= (0, 4, 1):
        raise PlanInputError(f"--cpu-offload-gb is not a flag of vLLM 0.4.1 and earlier (engine/arg_utils.py), "
                             f"not in {o.engine_version}; leave it out or plan a later --engine-version")


def kv_cache_memory_is_a_size(o, rules) -> None:
    """``--kv-cache-memory-bytes`` (``config/cache.py`` ``kv_cache_memory_bytes``) is a size > 0."""
    kv = o.kv_cache_memory_bytes
    if kv is not None and (not isinstance(kv, Bytes) or kv.bytes <= 0):
        raise PlanInputError(f"--kv-cache-memory-bytes must be a size > 0 such as '40GiB', got "
                             f"{f'{kv.bytes:,} bytes' if isinstance(kv, Bytes) else repr(kv)}")


def switches_are_bools(o, rules) -> None:
    """vLLM's store-true switches are True or False (``engines.engine.check_switches``)."""
    check_switches(o, _SWITCHES)


def _env_bool(value, flag: str, variable: str, unset: str) -> None:
    """Refuse an environment-variable flag that is not 0 or 1 (what, received, how to fix)."""
    if str(value) not in _ENV_BOOLS:
        raise PlanInputError(f"{flag} must be 0 or 1 (the {variable} value the server ran with), got {value!r}; "
                             f"leave it out for the release's {unset}")


def v2_runner_exists(o, rules) -> None:
    """``VLLM_USE_V2_MODEL_RUNNER`` is 0 or 1, and Model Runner V2 exists from vLLM 0.12.0 on the V1 engine
    (``envs.py``, ``v1/worker/gpu/``)."""
    v2 = o.vllm_use_v2_model_runner
    if v2 is None:
        return
    _env_bool(v2, "--vllm-use-v2-model-runner", "VLLM_USE_V2_MODEL_RUNNER", "choice")
    if str(v2) in ("1", "True") and (rules.engine != "V1" or rules.release < (0, 12, 0)):
        raise PlanInputError(f"--vllm-use-v2-model-runner 1: Model Runner V2 (VLLM_USE_V2_MODEL_RUNNER) "
                             f"exists from vLLM 0.12.0 (envs.py, v1/worker/gpu/), not in "
                             f"{o.engine_version}; leave it out (0 = the only runner there) or plan a "
                             "later --engine-version")


def cudagraph_estimate_env_exists(o, rules) -> None:
    """``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` is 0 or 1 and exists from vLLM 0.18.0 on the V1 engine
    (``envs.py``); earlier releases subtract no CUDA-graph estimate."""
    est = o.vllm_memory_profiler_estimate_cudagraphs
    if est is None:
        return
    _env_bool(est, "--vllm-memory-profiler-estimate-cudagraphs", "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "default")
    if rules.engine != "V1" or rules.release < (0, 18, 0):
        raise PlanInputError(f"--vllm-memory-profiler-estimate-cudagraphs: the variable "
                             f"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS exists from vLLM 0.18.0 (envs.py), "
                             f"not in {o.engine_version}, which subtracts no CUDA-graph estimate; leave "
                             "it out or plan a later --engine-version")


def defaults_are_tristate(o, rules) -> None:
    """``enable_prefix_caching`` / ``enable_chunked_prefill`` are True, False or None: vLLM's
    ``--[no-]enable-prefix-caching`` / ``--[no-]enable-chunked-prefill`` with None for the release's default."""
    if o.enable_prefix_caching is not None and not isinstance(o.enable_prefix_caching, bool):
        raise PlanInputError(f"enable_prefix_caching must be True, False or None (the release's default), got "
                             f"{o.enable_prefix_caching!r}")
    chunked = o.enable_chunked_prefill
    if chunked is not None and not isinstance(chunked, bool):
        raise PlanInputError(f"enable_chunked_prefill must be True, False or None (the release's default), got "
                             f"{chunked!r}")


def mm_limits_parse(o, rules) -> None:
    """``--limit-mm-per-prompt`` reads as the release reads it (``engines.vllm.mmlimits.parse_mm_limits``)."""
    if o.limit_mm_per_prompt is not None:
        from tpkit.engines.vllm.mmlimits import parse_mm_limits

        parse_mm_limits(o.limit_mm_per_prompt, rules.release)


def speculative_config_parses(o, rules) -> None:
    """``--speculative-config`` is a JSON object vLLM takes (``engines.vllm.speculative.parse_speculative_config``)."""
    if o.speculative_config is not None:
        from tpkit.engines.vllm.speculative import parse_speculative_config

        parse_speculative_config(o.speculative_config)


def sampler_is_known(o, rules) -> None:
    """``--topk-topp-sampler`` names the sampler the vLLM log reports (``options.TOPK_TOPP_SAMPLERS``)."""
    samplers = _choices(o, "topk_topp_sampler")
    if o.topk_topp_sampler is not None and o.topk_topp_sampler not in samplers:
        raise PlanInputError(f"--topk-topp-sampler must be one of {', '.join(samplers)}, got "
                             f"{o.topk_topp_sampler!r}; it names the sampler the vLLM log reports (leave it "
                             "out for the release's default)")


def attention_backend_is_known(o, rules) -> None:
    """``--attention-backend`` is a member of vLLM's ``AttentionBackendEnum`` in any case, as
    ``config/attention.py validate_backend_before`` upper-cases it (0.29.0, 0.33.0; ``options.ATTENTION_BACKENDS``)."""
    backends = _choices(o, "attention_backend")
    if o.attention_backend is not None and str(o.attention_backend).upper() not in {b.upper() for b in backends}:
        raise PlanInputError(f"--attention-backend must be one of {', '.join(backends)}, got "
                             f"{o.attention_backend!r} (vLLM's AttentionBackendEnum names; leave it out for "
                             "vLLM's automatic choice)")


def capture_sizes_agree(o, rules) -> None:
    """``--max-cudagraph-capture-size`` and ``--cudagraph-capture-sizes`` exist from vLLM 0.11.1
    (``engine/arg_utils.py``; 0.11.0 and earlier take ``--cuda-graph-sizes``), and given together the largest size
    must equal the maximum (``config/vllm.py _set_cudagraph_sizes``, 'should be consistent')."""
    if o.max_cudagraph_capture_size is not None and rules.release < (0, 11, 1):
        raise PlanInputError(f"--max-cudagraph-capture-size exists from vLLM 0.11.1 (engine/arg_utils.py), not in "
                             f"{o.engine_version} (got {o.max_cudagraph_capture_size}); releases up to "
                             "0.11.0 take --cuda-graph-sizes, which tpkit does not read (they subtract no "
                             "CUDA-graph estimate): leave it out or plan a later --engine-version")
    sizes = capture_size_list(o.cudagraph_capture_sizes)
    if sizes is not None and rules.release < (0, 11, 1):
        raise PlanInputError(f"--cudagraph-capture-sizes exists from vLLM 0.11.1 (engine/arg_utils.py), not in "
                             f"{o.engine_version}; releases up to 0.11.0 take --cuda-graph-sizes, which tpkit "
                             "does not read (they subtract no CUDA-graph estimate): leave it out or plan a later "
                             "--engine-version")
    if sizes is not None and o.max_cudagraph_capture_size is not None \
            and o.max_cudagraph_capture_size != max(sizes):
        raise PlanInputError(f"--max-cudagraph-capture-size {o.max_cudagraph_capture_size} differs from the "
                             f"largest of --cudagraph-capture-sizes ({max(sizes)}): vLLM refuses the pair "
                             "(config/vllm.py _set_cudagraph_sizes, 'should be consistent'); give one of the two")


def optimization_level_exists(o, rules) -> None:
    """``-O`` / ``--optimization-level`` is 0–3 (``config/vllm.py OptimizationLevel``), read by tpkit from vLLM
    0.15.0, the earliest wheel read."""
    level = o.optimization_level
    if level is None:
        return
    if isinstance(level, bool) or not isinstance(level, int) or level not in (0, 1, 2, 3):
        raise PlanInputError(f"--optimization-level must be 0, 1, 2 or 3 (vLLM's -O levels), got {level!r}")
    if rules.release < (0, 15, 0):
        raise PlanInputError(f"--optimization-level is read by tpkit from vLLM 0.15.0 (config/vllm.py "
                             f"OptimizationLevel; the earliest wheel read), not for {o.engine_version}; "
                             "leave it out (use --enforce-eager for no CUDA graphs) or plan a later "
                             "--engine-version")


def cudagraph_mode_exists(o, rules) -> None:
    """``--cudagraph-mode`` is a ``CUDAGraphMode`` name (``config/compilation.py``), read by tpkit from vLLM 0.11.1
    (earlier releases subtract no CUDA-graph estimate)."""
    mode = o.cudagraph_mode
    if mode is None:
        return
    from tpkit.engines.vllm.graphs import CUDAGRAPH_MODES

    if str(mode).upper() not in CUDAGRAPH_MODES:
        raise PlanInputError(f"--cudagraph-mode must be one of {', '.join(CUDAGRAPH_MODES)} (vLLM's "
                             f"CUDAGraphMode names), got {mode!r}")
    if rules.release < (0, 11, 1):
        raise PlanInputError(f"--cudagraph-mode: tpkit reads vLLM's cudagraph_mode from 0.11.1 "
                             f"(config/compilation.py), not for {o.engine_version} (those releases "
                             "subtract no CUDA-graph estimate): leave it out or plan a later --engine-version")


def _one_of(o, field: str, flag: str, meaning: str) -> None:
    """Refuse a value of a choice field that is not among the flag table's choices (what, received, what each means)."""
    choices, value = _choices(o, field), getattr(o, field)
    if value not in choices:
        raise PlanInputError(f"{flag} must be one of {', '.join(choices)}, got {value!r}; {meaning}")


def compile_cache_is_known(o, rules) -> None:
    """tpkit's ``--compile-cache``: cold (an empty torch.compile cache) or warm (vLLM loads its compiled graphs)."""
    _one_of(o, "compile_cache", "--compile-cache", "cold: a first start (empty torch.compile cache), warm: a restart "
            "that loads the compiled graphs from vLLM's cache")


def entrypoint_is_known(o, rules) -> None:
    """tpkit's ``--vllm-entrypoint``: vLLM's ``UsageContext.OPENAI_API_SERVER`` (serve) or ``LLM_CLASS`` (llm)."""
    _one_of(o, "vllm_entrypoint", "--vllm-entrypoint", "serve: vllm serve / the OpenAI API server, llm: the offline "
            "vllm.LLM class (python scripts, benchmark_throughput.py)")


def lora_flags_exist(o, rules) -> None:
    """The LoRA flags as the release takes them (``engines.vllm.lora.check_lora_flags``)."""
    from tpkit.engines.vllm.lora import check_lora_flags

    check_lora_flags(o, rules.release, o.engine_version)


def kv_cache_dtype_is_known(o, rules) -> None:
    """``--kv-cache-dtype`` is a ``CacheDType`` spelling tpkit models (``config/cache.py``; ``options.KV_CACHE_DTYPES``)."""
    dtypes = _choices(o, "kv_cache_dtype")
    if o.kv_cache_dtype not in dtypes:
        raise PlanInputError(f"--kv-cache-dtype {o.kv_cache_dtype!r} is not supported; "
                             f"use one of {', '.join(dtypes)}")


def eplb_flags_agree(o, rules) -> None:
    """``--enable-eplb`` / ``--eplb-config`` as the release takes them (``engines.vllm.eplb``): the balancer read from
    0.10.1 (V1), ``--eplb-config`` from 0.11.0, a JSON object of ``EPLBConfig``'s keys; vLLM refuses EPLB without
    ``--enable-expert-parallel`` and redundant experts without EPLB (``config/parallel.py``, 0.25.1)."""
    if not o.enable_eplb and o.eplb_config is None:
        return
    from tpkit.engines.vllm.eplb import EPLB_CONFIG_FROM, EPLB_FROM, eplb_settings

    if rules.engine != "V1" or rules.release < EPLB_FROM:
        raise PlanInputError(f"--enable-eplb / --eplb-config: tpkit reads vLLM's expert-parallel load balancer "
                             f"from 0.10.1 on the V1 engine, not for {o.engine_version}: leave them out or plan a "
                             "later --engine-version")
    if o.eplb_config is not None and rules.release < EPLB_CONFIG_FROM:
        raise PlanInputError(f"--eplb-config exists from vLLM 0.11.0 (engine/arg_utils.py), not in "
                             f"{o.engine_version} (it spells them --num-redundant-experts and --eplb-window-size, "
                             "which tpkit does not read): leave it out or plan a later --engine-version")
    settings = eplb_settings(o.eplb_config)
    if not o.enable_eplb and settings["num_redundant_experts"]:
        raise PlanInputError(f"--eplb-config sets num_redundant_experts {settings['num_redundant_experts']} without "
                             "--enable-eplb; vLLM refuses it ('Either enable EPLB or unset num_redundant_experts')")
    if o.enable_eplb and not o.enable_expert_parallel:
        raise PlanInputError("--enable-eplb needs --enable-expert-parallel (vLLM: 'enable_expert_parallel must be "
                             "True to use EPLB')")


VALIDATORS = (multimodal_flags_exist, utilization_is_a_fraction, counts_are_whole, cpu_offload_exists,
              kv_cache_memory_is_a_size, switches_are_bools, v2_runner_exists, cudagraph_estimate_env_exists,
              defaults_are_tristate, mm_limits_parse, speculative_config_parses, sampler_is_known,
              attention_backend_is_known, capture_sizes_agree, optimization_level_exists, cudagraph_mode_exists,
              compile_cache_is_known, entrypoint_is_known, lora_flags_exist, kv_cache_dtype_is_known, eplb_flags_agree)
"""every check, in the order ``VllmOptions`` has always run them (the first failing one is reported)"""


def check_options(o, rules) -> None:
    """Run ``VALIDATORS`` on the options ``o`` of the release ``rules``; the first refusal raises."""
    for validate in VALIDATORS:
        validate(o, rules)
