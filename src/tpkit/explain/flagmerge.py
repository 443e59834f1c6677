"""The run's settings as the log states them, and the command-line flags merged into them (``explain.context``).

The log's own values come first (the reader's ``RunSettings``, then the free-form settings of
``result.free_form_settings``); a flag fills what the log leaves open, and a flag that differs from the log's value
is a ``Contradiction`` (the log's value is kept: the log is what ran).  The engine and its release come from the
reader, an error message's wording, or ``--engine`` / ``--engine-version``.
"""

from __future__ import annotations

from tpkit.explain.contradiction import Contradiction
from tpkit.logs import ParsedLog
from tpkit.logs.engine import pre_release_ends
from tpkit.logs.settings import flag_settings, same_quantization

__all__ = ["FLAG_SETTINGS",
           "apply_flags", "engine_and_version", "host_gpus_flag", "logged_values", "prefix_caching_flag",
           "virtualiser_flag"]

FLAG_SETTINGS = flag_settings((
    "tp", "pp", "dp", "ep", "mem_fraction_static", "gpu_memory_utilization", "context_length", "max_model_len",
    "kv_cache_dtype", "page_size", "block_size", "quantization", "cuda_graph_max_bs", "max_total_tokens",
    "max_running_requests", "max_num_seqs", "chunked_prefill_size", "max_num_batched_tokens", "enable_dp_attention",
    "data_parallel_size", "disable_radix_cache", "disable_overlap_schedule", "swa_full_tokens_ratio",
    "topk_topp_sampler", "skip_mm_profiling", "compile_cache", "cpu_offload_gb", "vllm_use_v2_model_runner",
    "language_model_only", "max_cudagraph_capture_size", "cudagraph_capture_sizes", "optimization_level",
    "cudagraph_mode", "mamba_ssm_dtype", "mm_feature_transport", "vllm_entrypoint", "pp_layer_partition",
    "attention_backend"))
"""flag dest → Run setting name: the plan flags an explanation takes (``logs.settings.flag_settings``)"""


_LOGGED = ("tp", "pp", "dp", "ep", "mem_fraction", "context_length", "kv_cache_dtype", "page_size",
           "quantization", "cuda_graph_max_bs", "max_total_tokens", "max_running_requests",
           "chunked_prefill_size", "max_num_batched_tokens", "cuda_graph_disabled",
           "disable_custom_all_reduce", "speculative", "dtype", "enable_dp_attention", "disable_radix_cache",
           "disable_overlap_schedule", "swa_full_tokens_ratio", "topk_topp_sampler", "skip_mm_profiling",
           "compile_cache", "cpu_offload_gb", "limit_mm_per_prompt", "async_scheduling", "vllm_use_v2_model_runner",
           "language_model_only", "cudagraph_capture_sizes", "optimization_level", "cudagraph_mode",
           "mamba_ssm_dtype", "mm_feature_transport", "vllm_entrypoint", "pp_layer_partition", "sglang_int4_weight",
           "vllm_allow_long_max_model_len", "vllm_mxfp4_use_marlin", "attention_backend")
"""the run settings ``build_context`` takes from the reader's ``RunSettings`` (in this order)"""


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):  # vLLM's capture sizes, as printed or given
        from tpkit.engines.vllm.option_checks import capture_size_list
        from tpkit.errors import PlanInputError

        try:
            return sorted(set(capture_size_list(a) or ())) == sorted(set(capture_size_list(b) or ()))
        except PlanInputError:
            return False
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and not isinstance(b, bool):
        return a == b  # exact: an int beyond float's range (--context-length 10**400) is not an OverflowError
    try:
        return abs(float(a) - float(b)) < 1e-9
    except (TypeError, ValueError, OverflowError):
        return str(a).strip().lower() == str(b).strip().lower()


def logged_values(run, text_settings: dict | None) -> tuple[dict, dict]:
    """(values, sources) the log states: the reader's run settings, then the free-form ``text_settings`` where the
    reader found none."""
    values, sources = {}, {}
    for name in _LOGGED:
        setting = getattr(run, name, None)
        if setting is not None and setting.value is not None:
            values[name] = setting.value
            sources[name] = f"log line {setting.line_no} ({setting.source})"
    for name, found in (text_settings or {}).items():
        if isinstance(found, tuple) and name not in values:
            values[name] = found[0]
            sources[name] = f"log line {(text_settings or {}).get(name + '_line', '?')} ({found[1]})"
    return values, sources


def apply_flags(flags: dict, values: dict, sources: dict, contradictions: list) -> None:
    """The flags of ``FLAG_SETTINGS`` fill what the log leaves open; one that differs from the log's value is a
    contradiction (the log's value stays); ``--memory-virtualiser`` by ``virtualiser_flag``."""
    virtualiser_flag(flags, values, sources)
    host_gpus_flag(flags, values, sources, contradictions)
    for flag, name in FLAG_SETTINGS.items():
        if flag not in flags:
            continue
        given = flags[flag]
        if name in values:
            if not (same_quantization(values[name], given) if name == "quantization" else _same(values[name], given)):
                contradictions.append(Contradiction(flag=flag, given=given, logged=values[name], source=sources[name]))
        else:
            values[name], sources[name] = given, f"flag --{flag.replace('_', '-')}"


def prefix_caching_flag(flags: dict, values: dict, sources: dict, contradictions: list) -> None:
    """``--enable-prefix-caching`` / ``--no-enable-prefix-caching`` (the vLLM option, ``engines.vllm.options``):
    the log's own statement (``result.free_form_settings``: the flag in a printed command, or
    ``enable_prefix_caching`` in the non-default args) wins and a different flag is a contradiction; otherwise the
    flag sets it.  It decides how many state pages a hybrid's mamba groups hold per request ('none' / 'align',
    ``engines.vllm.mamba``; ``explain.vtokens`` reads it)."""
    if flags.get("enable_prefix_caching") is None:
        return
    given = bool(flags["enable_prefix_caching"])
    if "enable_prefix_caching" in values:
        if bool(values["enable_prefix_caching"]) != given:
            contradictions.append(Contradiction(flag="enable_prefix_caching", given=given,
                                                logged=values["enable_prefix_caching"],
                                                source=sources["enable_prefix_caching"]))
        return
    values["enable_prefix_caching"] = given
    sources["enable_prefix_caching"] = "flag --" + ("" if given else "no-") + "enable-prefix-caching"


def virtualiser_flag(flags: dict, values: dict, sources: dict) -> None:
    """``--memory-virtualiser HAMi``: the server ran in a HAMi slice (its free memory does not see the stream pool,
    ``engines.sglang.streams``) though the log does not say so (the slice is in the pod spec, not the log).  A log
    that names HAMi (``result.free_form_settings``) already sets it; the flag names the one virtualiser there is, so
    it fills the gap and never contradicts."""
    given = flags.get("memory_virtualiser")
    if given is None or "memory_virtualiser" in values:
        return
    values["memory_virtualiser"] = given
    sources["memory_virtualiser"] = "flag --memory-virtualiser"


def host_gpus_flag(flags: dict, values: dict, sources: dict, contradictions: list) -> None:
    """``--host-gpus A,B``: the host's cards, which SGLang's capacity query lists whatever CUDA_VISIBLE_DEVICES
    says (``engines.sglang.defaults.host_capacity_mib``), where the log prints no nvidia-smi table naming them
    (``result.host_cards``); a flag that names other models than the log's table is a contradiction."""
    given = flags.get("host_gpus")
    if given is None:
        return
    if "host_gpus" in values:
        from tpkit.engines.sglang.options import host_gpu_specs

        if {g.name for g in host_gpu_specs(given)} != {g.name for g in host_gpu_specs(values["host_gpus"])}:
            contradictions.append(Contradiction(flag="host_gpus", given=given, logged=values["host_gpus"],
                                                source=sources["host_gpus"]))
        return
    values["host_gpus"] = given
    sources["host_gpus"] = "flag --host-gpus"


def _engine_from_failures(parsed: ParsedLog) -> str | None:
    """An error message that names one engine's flag (SGLang's --mem-fraction-static, vLLM's gpu_memory_utilization)."""
    from tpkit.logs.failures import KIND_ENGINE

    for f in parsed.failures:
        if f.kind in KIND_ENGINE:
            return KIND_ENGINE[f.kind]
        text = f.evidence
        if "mem-fraction-static" in text or "mem_fraction_static" in text:
            return "sglang"
        if "gpu_memory_utilization" in text or "gpu-memory-utilization" in text:
            return "vllm"
    return None


def engine_and_version(parsed: ParsedLog, flags: dict, contradictions: list, notes: list, values: dict | None = None):
    """(engine, release) of the run: the reader's, else the engine an error message's wording names; --engine
    fills a gap (a different one is a contradiction); --engine-version replaces a release range inferred from the
    line formats or fills a missing one; a vLLM range inferred from the formats starts no earlier than the
    release that accepts the run's ``kv_cache_dtype`` (``values``; ``kv_dtype_floor``)."""
    engine, version = parsed.engine.engine, parsed.engine.version
    if engine is None:
        engine = _engine_from_failures(parsed)
        if engine:
            notes.append(f"engine {engine}: inferred from the wording of its error message")
    if flags.get("engine"):
        if engine and flags["engine"] != engine:
            contradictions.append(Contradiction(flag="engine", given=flags["engine"], logged=engine,
                                                source="; ".join(e.text for e in parsed.engine.evidence[:1])
                                                if getattr(parsed.engine, "evidence", None) else "the log"))
        engine = engine or flags["engine"]
    pre = bool(version) and engine == "vllm" and pre_release_ends(version) is not None
    if flags.get("engine_version") and flags["engine_version"] != "current" and (
            not version or not parsed.engine.version_printed or pre):
        if pre:
            notes.append(f"--engine-version {flags['engine_version']} picks the rules of the printed pre-release or "
                         f"development build {version} (open between the release before and its release, or the "
                         "next minor release for a main-branch nightly numbered from an rc tag)")
        elif version:
            notes.append(f"--engine-version {flags['engine_version']} replaces the release range {version} inferred "
                         "from the line formats")
        version = flags["engine_version"]
    elif engine == "vllm" and version and not parsed.engine.version_printed and not pre:
        version = kv_dtype_floor(version, (values or {}).get("kv_cache_dtype"), notes)
    return engine, version


def kv_dtype_floor(version: str, kv_cache_dtype, notes: list) -> str:
    """An inferred vLLM release range (the line formats') raised to the first release whose ``CacheDType``
    accepts the run's ``--kv-cache-dtype`` (``engines.vllm.kvdtype.KvDtype.since``: the run started, so its release
    parses the value; e.g. int8_per_token_head from 0.20.0); the range as it was when the value is not one tpkit
    knows, arrived before the range's start, or lies past its end (the formats disagree: their text stands)."""
    from tpkit.engines.vllm.kvdtype import KV_DTYPES
    from tpkit.logs.engine import intersect_ranges, release_range

    found = KV_DTYPES.get(str(kv_cache_dtype or "").strip().lower())
    span = release_range(version)
    if found is None or span is None or span[0] >= found.since:
        return version
    first = ".".join(map(str, found.since))
    narrowed = intersect_ranges([version, f"≥ {first}"])
    if narrowed is None:
        return version
    notes.append(f"release {narrowed}: the line formats give {version}, and --kv-cache-dtype {found.name} is "
                 f"accepted from vLLM {first} (vllm/config/cache.py CacheDType)")
    return narrowed
