"""The run a log describes: engine, model, GPU and the settings that size memory.

Each value is the :class:`~tpkit.logs.settings.Setting` it was read from.  When several sources give a
value, the most trusted wins (the engine's own dump over a log line over the command line, which may
belong to another attempt) and a disagreement is kept as a :class:`Conflict`.
"""

from __future__ import annotations

from dataclasses import fields

from tpkit.logs.dumps import balanced, read_value, split_pairs
from tpkit.logs.engine import EngineGuess
from tpkit.logs.printed import PrintedSize
from tpkit.logs.lazyre import lazy
from tpkit.logs.settings import SOURCES, Setting, runner_settings, setting_text
from tpkit.records import dataclass

__all__ = ["Run", "Conflict", "build_run", "RUN_SETTINGS", "entrypoint_settings", "raw_line_settings"]

_INTS = ("tp", "pp", "dp", "ep", "dcp", "attn_cp", "page_size", "cuda_graph_max_bs", "max_running_requests",
         "max_total_tokens",
         "chunked_prefill_size", "max_num_batched_tokens", "context_length", "kv_cache_memory_bytes",
         "max_loras", "max_lora_rank", "max_loras_per_batch", "optimization_level")
_POSITIVE = ("tp", "pp", "dp", "ep", "dcp", "attn_cp", "page_size")
"""sizes an engine never prints below 1 (a group size, a page of tokens): a smaller number is a damaged line, not a
setting (fuzz_explain seed 6 case 3683: ``page_size=-07`` with ``#tokens: 7`` divided by 7 + (−7))"""
_FLOATS = ("mem_fraction", "swa_full_tokens_ratio", "cpu_offload_gb")
_BOOLS = ("cuda_graph_disabled", "enable_dp_attention", "disable_custom_all_reduce", "enable_chunked_prefill",
          "disable_radix_cache", "disable_overlap_schedule", "skip_mm_profiling", "enable_lora", "async_scheduling")
_STRS = ("model", "kv_cache_dtype", "quantization", "dtype", "attention_backend", "topk_topp_sampler",
         "compile_cache", "vllm_use_v2_model_runner", "cudagraph_mode", "mamba_ssm_dtype", "mm_feature_transport",
         "vllm_entrypoint", "pp_layer_partition", "sglang_int4_weight", "vllm_allow_long_max_model_len",
         "vllm_mxfp4_use_marlin")
RUN_SETTINGS = ("model", "tp", "pp", "dp", "ep", "mem_fraction", "context_length", "kv_cache_dtype", "page_size",
                "speculative", "chunked_prefill_size", "max_num_batched_tokens", "enable_chunked_prefill",
                "cuda_graph_max_bs", "cuda_graph_disabled", "enable_dp_attention", "dcp", "attn_cp",
                "disable_custom_all_reduce",
                "quantization", "dtype", "max_running_requests", "max_total_tokens", "attention_backend",
                "kv_cache_memory_bytes", "disable_radix_cache", "disable_overlap_schedule", "swa_full_tokens_ratio",
                "topk_topp_sampler", "skip_mm_profiling", "compile_cache", "enable_lora", "max_loras",
                "max_lora_rank", "max_loras_per_batch", "cpu_offload_gb", "limit_mm_per_prompt", "async_scheduling",
                "vllm_use_v2_model_runner", "language_model_only", "cudagraph_capture_sizes", "optimization_level",
                "cudagraph_mode", "mamba_ssm_dtype", "mm_feature_transport", "vllm_entrypoint", "pp_layer_partition",
                "sglang_int4_weight", "vllm_allow_long_max_model_len", "vllm_mxfp4_use_marlin")


@dataclass(frozen=True, kw_only=True, slots=True)
class Conflict:
    """Two sources in the log that disagree about one setting."""

    name: str
    chosen: Setting
    other: Setting

    def to_dict(self) -> dict:
        return {"name": self.name, "chosen": self.chosen.to_dict(), "other": self.other.to_dict()}


@dataclass(frozen=True, kw_only=True, slots=True)
class Run:
    """The run, as far as the log tells.  A setting is None when the log does not show it."""

    engine: EngineGuess
    fraction_key: str | None
    """the engine's name for the memory fraction: ``"mem_fraction_static"`` or ``"gpu_memory_utilization"``"""
    gpu: Setting | None
    """GPU name as printed (value: catalog name when the catalog knows it, else the printed text)"""
    gpu_total: PrintedSize | None
    """device total as printed (vLLM total_gpu_memory, 'Free memory on device', torch OOM 'total capacity')"""
    gpu_candidates: tuple[str, ...]
    """catalog GPUs whose total prints as ``gpu_total``"""
    gpus_named: tuple[str, ...] = ()
    """every distinct GPU the log names, in order (catalog name, else the printed text): more than one is a
    machine of mixed GPUs (an nvidia-smi list, an issue's environment)"""
    gpus_by_index: tuple[tuple[str, int], ...] = ()
    """(GPU, log line) of a device list that numbers its GPUs "0: NAME", "1: NAME", … (``nvidia-smi -L`` style),
    in index order: device i of the machine; empty where the log numbers none (or not 0, 1, … in order)"""
    model: Setting | None = None
    tp: Setting | None = None
    pp: Setting | None = None
    dp: Setting | None = None
    ep: Setting | None = None
    mem_fraction: Setting | None = None
    context_length: Setting | None = None
    """SGLang context_length / vLLM max_model_len"""
    kv_cache_dtype: Setting | None = None
    page_size: Setting | None = None
    """SGLang page_size / vLLM block_size"""
    speculative: Setting | None = None
    """value: dict with algorithm, draft_model, num_steps, topk, num_draft_tokens (None when off)"""
    chunked_prefill_size: Setting | None = None
    max_num_batched_tokens: Setting | None = None
    enable_chunked_prefill: Setting | None = None
    cuda_graph_max_bs: Setting | None = None
    cuda_graph_disabled: Setting | None = None
    """SGLang disable_cuda_graph / vLLM enforce_eager"""
    enable_dp_attention: Setting | None = None
    dcp: Setting | None = None
    """decode context parallel size (SGLang dcp_size / vLLM decode_context_parallel_size)"""
    attn_cp: Setting | None = None
    """SGLang attention context parallel size (attn_cp_size)"""
    disable_custom_all_reduce: Setting | None = None
    quantization: Setting | None = None
    dtype: Setting | None = None
    max_running_requests: Setting | None = None
    """SGLang max_running_requests / vLLM max_num_seqs"""
    max_total_tokens: Setting | None = None
    attention_backend: Setting | None = None
    kv_cache_memory_bytes: Setting | None = None
    disable_radix_cache: Setting | None = None
    """SGLang --disable-radix-cache (the request-capped SWA pool, ``engines.sglang.swa_cap.swa_pool_choice``)"""
    disable_overlap_schedule: Setting | None = None
    swa_full_tokens_ratio: Setting | None = None
    """SGLang --swa-full-tokens-ratio"""
    mamba_ssm_dtype: Setting | None = None
    """SGLang --mamba-ssm-dtype as its ServerArgs dump prints it (0.5.3 – 0.5.8: 'float32' unless given; 0.5.9+: None
    unless given; ``engines.sglang.mamba.ssm_state_choice``)"""
    mm_feature_transport: Setting | None = None
    """SGLang --mm-feature-transport as its ServerArgs dump prints it, resolved (0.5.16+; 0.5.17 prints cuda_ipc
    where the unset flag resolved to it; ``engines.sglang.multimodal.resolved_transport``)"""
    topk_topp_sampler: Setting | None = None
    """vLLM V1's top-k/top-p sampler as its topk_topp_sampler.py line names it: ``"native"`` / ``"flashinfer"``"""
    skip_mm_profiling: Setting | None = None
    """vLLM --skip-mm-profiling (its argument dump, or the profile's 'Skipping memory profiling' line)"""
    limit_mm_per_prompt: Setting | None = None
    """vLLM --limit-mm-per-prompt as its argument dump prints it (a dict of modality → count)"""
    async_scheduling: Setting | None = None
    """vLLM --(no-)async-scheduling as its non-default args print it (False: one batch in flight)"""
    vllm_use_v2_model_runner: Setting | None = None
    """vLLM's model runner as the log's lines show it: ``"1"`` Model Runner V2, ``"0"`` the V1 runner
    (``logs.settings.runner_settings``); None: no such line"""
    vllm_entrypoint: Setting | None = None
    """the vLLM entrypoint the log's lines show: ``"llm"`` the offline ``vllm.LLM`` class, ``"serve"`` the API
    server (``logs.run.entrypoint_settings``); None: no such line"""
    language_model_only: Setting | None = None
    """vLLM --language-model-only as its non-default args print it (engines/vllm/towers.py)"""
    pp_layer_partition: Setting | None = None
    """the PP layer split the launch command sets by hand (``VLLM_PP_LAYER_PARTITION`` /
    ``SGLANG_PP_LAYER_PARTITION``, ``logs.run.partition_settings``): "16,32"; None: the engine's default"""
    sglang_int4_weight: Setting | None = None
    """SGLANG_INT4_WEIGHT (USE_INT4_WEIGHT before SGLang 0.4.7) as a launch line or an environment line of the log
    sets it: ``"on"`` / ``"off"`` (:func:`env_settings`); None: not shown"""
    vllm_allow_long_max_model_len: Setting | None = None
    """VLLM_ALLOW_LONG_MAX_MODEL_LEN as a launch line or an environment line of the log sets it: ``"on"`` /
    ``"off"`` (:func:`env_settings`); None: not shown"""
    vllm_mxfp4_use_marlin: Setting | None = None
    """VLLM_MXFP4_USE_MARLIN as a launch line or an environment line of the log sets it: ``"on"`` / ``"off"``
    (:func:`env_settings`; ``engines.vllm.mxfp4.marlin_forced``); None: not shown"""
    compile_cache: Setting | None = None
    """vLLM's torch.compile cache as the log shows it: ``"cold"`` (graphs compiled in this run, or the cache off) /
    ``"warm"`` (every graph loaded from the cache); None: unknown, no such line (``logs.settings.
    _COMPILE_CACHE_LINES``)"""
    """vLLM V1's top-k/top-p sampler as its topk_topp_sampler.py line names it: ``"native"`` / ``"flashinfer"``"""
    enable_lora: Setting | None = None
    """vLLM / SGLang --enable-lora (SGLang's ServerArgs prints True when --lora-paths turned it on)"""
    max_loras: Setting | None = None
    """vLLM --max-loras (adapter slots on the GPU)"""
    max_lora_rank: Setting | None = None
    """vLLM / SGLang --max-lora-rank"""
    max_loras_per_batch: Setting | None = None
    """SGLang --max-loras-per-batch (LoRA memory pool slots)"""
    cpu_offload_gb: Setting | None = None
    """vLLM / SGLang --cpu-offload-gb (GiB per GPU of decoder-layer weights kept in CPU memory)"""
    cudagraph_capture_sizes: Setting | None = None
    """vLLM's CUDA-graph capture sizes (the engine config's final list, or --cudagraph-capture-sizes)"""
    optimization_level: Setting | None = None
    """vLLM --optimization-level (non-default args)"""
    cudagraph_mode: Setting | None = None
    """vLLM's compilation_config cudagraph_mode (engine config, or --compilation-config)"""
    conflicts: tuple[Conflict, ...] = ()

    def value(self, name: str):
        """The value of a setting, or None."""
        setting = getattr(self, name)
        return None if setting is None else setting.value

    def to_dict(self) -> dict:
        out = {"engine": self.engine.engine, "engine_version": self.engine.version,
               "fraction_key": self.fraction_key,
               "gpu": None if self.gpu is None else self.gpu.to_dict(),
               "gpu_total": None if self.gpu_total is None else self.gpu_total.to_dict(),
               "gpu_candidates": list(self.gpu_candidates), "gpus_named": list(self.gpus_named)}
        if self.gpus_by_index:
            out["gpus_by_index"] = [name for name, _ in self.gpus_by_index]
        for f in fields(self):
            if f.name in RUN_SETTINGS:
                setting = getattr(self, f.name)
                out[f.name] = None if setting is None else setting.to_dict()
        out["conflicts"] = [c.to_dict() for c in self.conflicts]
        return out


def _normal(name: str, value):
    """The value in the setting's type, or ``ValueError``."""
    if value is None:
        return None
    if name in _INTS:
        if isinstance(value, bool):
            raise ValueError(name)
        number = float(value) if isinstance(value, (int, float)) else float(str(value).replace(",", ""))
        if number != int(number) or (name in _POSITIVE and number < 1):
            raise ValueError(name)
        return int(number)
    if name in _FLOATS:
        return float(value)
    if name in _BOOLS:
        if isinstance(value, str):
            return value.strip().lower() in ("true", "1", "yes")
        return bool(value)
    if name in _STRS:
        text = str(value)
        return text.removeprefix("torch.") if name == "dtype" else text
    if name == "cudagraph_capture_sizes":  # vLLM's list (helper cap11): whole numbers ≥ 1, or not a setting
        sizes = tuple(value) if isinstance(value, (list, tuple)) else ()
        if not sizes or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in sizes):
            raise ValueError(name)
        return sizes
    return value


def _rank(setting: Setting) -> tuple[int, int]:
    return SOURCES.index(setting.source) if setting.source in SOURCES else len(SOURCES), -setting.line_no


def _normalised(settings: list[Setting]) -> dict[str, list[Setting]]:
    by_name: dict[str, list[Setting]] = {}
    for s in settings:
        try:
            value = _normal(s.name, s.value)
        except (ValueError, TypeError, OverflowError):
            continue
        by_name.setdefault(s.name, []).append(Setting(name=s.name, value=value, key=s.key, source=s.source,
                                                      line_no=s.line_no, text=s.text))
    return by_name


def _pick(candidates: list[Setting]) -> tuple[Setting, list[Conflict]]:
    ordered = sorted(candidates, key=_rank)
    chosen = ordered[0]
    conflicts, seen = [], set()
    for other in ordered[1:]:
        if other.value is None or chosen.value is None or other.value == chosen.value:
            continue
        key = repr(other.value)
        if key not in seen:
            seen.add(key)
            conflicts.append(Conflict(name=chosen.name, chosen=chosen, other=other))
    return chosen, conflicts


def _spec_from_vllm(value) -> dict | None:
    if isinstance(value, str) and "(" in value:
        value = {k: read_value(v) for k, v in split_pairs(balanced(value, value.index("("))[1:])}
    if not isinstance(value, dict) or not value:
        return None
    return {"algorithm": value.get("method"), "draft_model": value.get("model"),
            "num_steps": value.get("num_speculative_tokens", value.get("num_spec_tokens")),
            "topk": None, "num_draft_tokens": None}


def _speculative(by_name: dict[str, list[Setting]]) -> tuple[Setting | None, list[Conflict]]:
    if "speculative_config" in by_name:
        chosen, conflicts = _pick(by_name["speculative_config"])
        value = _spec_from_vllm(chosen.value)
        return Setting(name="speculative", value=value, key=chosen.key, source=chosen.source,
                       line_no=chosen.line_no, text=chosen.text), conflicts
    if "spec_algorithm" not in by_name:
        return None, []
    chosen, conflicts = _pick(by_name["spec_algorithm"])
    if chosen.value in (None, "NONE", "None"):
        value = None
    else:
        parts = {k: _pick(by_name[f"spec_{k}"])[0].value if f"spec_{k}" in by_name else None
                 for k in ("draft_model", "num_steps", "topk", "num_draft_tokens")}
        value = {"algorithm": chosen.value, **parts}
    return Setting(name="speculative", value=value, key=chosen.key, source=chosen.source, line_no=chosen.line_no,
                   text=chosen.text), conflicts


def _expert_parallel(chosen: dict[str, Setting], by_name: dict[str, list[Setting]]) -> None:
    if "ep" in chosen:
        return
    for flag, factors in (("enable_expert_parallel", ("tp", "dp")), ("enable_ep_moe", ("tp",))):
        if flag not in by_name:
            continue
        on, _ = _pick(by_name[flag])
        if str(on.value).lower() not in ("true", "1"):
            continue
        size = 1
        for f in factors:
            size *= int(chosen[f].value) if f in chosen and chosen[f].value else 1
        chosen["ep"] = Setting(name="ep", value=size, key=on.key, source=on.source, line_no=on.line_no,
                               text=f"{on.key} set: experts sharded over {' × '.join(factors)} = {size}")
        return


def _compile_cache(candidates: list[Setting]) -> Setting:
    """One run that compiled any graph is cold, whatever else it loaded from the cache (a new compile range, an
    encoder, a changed config): its first cold line is the evidence, no conflict; else the last warm line."""
    cold = [s for s in candidates if s.value == "cold"]
    return min(cold, key=lambda s: s.line_no) if cold else max(candidates, key=lambda s: s.line_no)


def build_run(settings: list[Setting], *, engine: EngineGuess, gpu: Setting | None, gpu_total: PrintedSize | None,
              gpu_candidates: tuple[str, ...], gpus_named: tuple[str, ...] = (),
              gpus_by_index: tuple[tuple[str, int], ...] = ()) -> Run:
    """The run from every setting the pass read."""
    by_name = _normalised(settings)
    chosen: dict[str, Setting] = {}
    conflicts: list[Conflict] = []
    for name, candidates in by_name.items():
        if name == "compile_cache":
            chosen[name], found = _compile_cache(candidates), []
        elif name in RUN_SETTINGS:
            chosen[name], found = _pick(candidates)
            conflicts += found
    spec, found = _speculative(by_name)
    conflicts += found
    if spec is not None:
        chosen["speculative"] = spec
    _expert_parallel(chosen, by_name)
    fraction_key = {"sglang": "mem_fraction_static", "vllm": "gpu_memory_utilization"}.get(engine.engine or "")
    return Run(engine=engine, fraction_key=fraction_key, gpu=gpu, gpu_total=gpu_total, gpu_candidates=gpu_candidates,
               gpus_named=gpus_named, gpus_by_index=gpus_by_index, conflicts=tuple(conflicts), **chosen)


# -- settings read off the RAW line (the record splitter drops vLLM's [file.py:N] tag) --------------------------
_USAGE_CONTEXT = lazy(r"Setting max_num_batched_tokens to \d+ for (LLM_CLASS|OPENAI_API_SERVER) usage context")
"""V1's default-budget line, which names the entrypoint's ``UsageContext`` (``engine/arg_utils.py``
``_override_v1_engine_args`` 0.6.5–0.7.x: ``logger.warning``; ``_set_default_args_v1`` 0.8.x and
``_set_default_max_num_seqs_and_batched_tokens_args`` later: ``logger.debug``, printed with
``VLLM_LOGGING_LEVEL=DEBUG``); the ``UsageContext`` values (``usage/usage_lib.py``) are ``LLM_CLASS`` and
``OPENAI_API_SERVER``"""
_ENTRY_TAG = lazy(r"\[llm\.py:\d+\] Supported_tasks: |(?:^|[\s\[])api_server\.py:\d+\] ")
"""lines that only one entrypoint's module logs, told apart by vLLM's ``file.py:N]`` tag: ``Supported_tasks: %s``,
which 0.10.1–0.11.0 log from both ``entrypoints/llm.py`` (``LLM.__init__``) and ``entrypoints/openai/api_server.py``
(read in the 0.10.1, 0.10.2 and 0.11.0 wheels; absent in 0.9.2, 0.10.0 and 0.11.1 on), and any line of
``api_server.py`` (the OpenAI server's module: "vLLM API server version %s", "Using supplied chat template", …;
``vllm/entrypoints/api_server.py``, the demo server, shares the name)"""


def entrypoint_settings(line: str, *, line_no: int) -> list[Setting]:
    """The entrypoint a vLLM log line shows, as the ``vllm_entrypoint`` setting (``"llm"``: the offline
    ``vllm.LLM`` class, ``"serve"``: the OpenAI API server; ``VllmOptions.vllm_entrypoint``), read off the RAW line
    (the tag of :data:`_ENTRY_TAG` is dropped by the record splitter) or the usage context :data:`_USAGE_CONTEXT`
    names.  An "Initializing a V1 LLM engine" line says nothing: both entrypoints print it."""
    m = _USAGE_CONTEXT.search(line)
    if m:
        return [Setting(name="vllm_entrypoint", value="llm" if m.group(1) == "LLM_CLASS" else "serve",
                        key=f"UsageContext.{m.group(1)}", source="log_line", line_no=line_no, text=setting_text(line))]
    m = _ENTRY_TAG.search(line)
    if m:
        llm = m.group(0).startswith("[llm")
        return [Setting(name="vllm_entrypoint", value="llm" if llm else "serve",
                        key="llm.py" if llm else "api_server.py", source="log_line", line_no=line_no,
                        text=setting_text(line))]
    return []


def raw_line_settings(line: str, *, line_no: int) -> list[Setting]:
    """The settings of one raw log line: the model runner, the entrypoint, the engine variables a launch or an
    environment line sets (each behind a cheap test)."""
    out = runner_settings(line, line_no=line_no) if "odel" in line and ("unner" in line or "loading took" in line) \
        else []
    if "usage context" in line or "Supported_tasks" in line or "api_server.py:" in line:
        out += entrypoint_settings(line, line_no=line_no)
    if "INT4_WEIGHT" in line or "LONG_MAX_MODEL_LEN" in line or "MXFP4_USE_MARLIN" in line:
        out += env_settings(line, line_no=line_no)
    return out


_ENV_SETTINGS = {"SGLANG_INT4_WEIGHT": "sglang_int4_weight", "USE_INT4_WEIGHT": "sglang_int4_weight",
                 "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "vllm_allow_long_max_model_len",
                 "VLLM_MXFP4_USE_MARLIN": "vllm_mxfp4_use_marlin"}
"""engine variables with a tpkit plan flag (``cli.pasted.ENV_FLAGS``) → the run setting (and flag dest) they set"""
_ENV_ASSIGN = lazy(r"\b(SGLANG_INT4_WEIGHT|USE_INT4_WEIGHT|VLLM_ALLOW_LONG_MAX_MODEL_LEN|VLLM_MXFP4_USE_MARLIN)"
                   r"[\"']?\s*[=:]\s*[\"']?"
                   r"([A-Za-z0-9]+)")
"""an assignment of one of them: ``VAR=1 python -m …``, ``export VAR=1``, ``docker run -e VAR=1``, ``env`` output, or
a Python dict of the environment (``'VAR': '1'``)"""


def env_settings(line: str, *, line_no: int) -> list[Setting]:
    """The ``sglang_int4_weight`` / ``vllm_allow_long_max_model_len`` settings a line assigns, as ``"on"`` /
    ``"off"`` (SGLang's ``get_bool_env_var`` and vLLM's ``envs.py`` read "1" / "true" as set; helper ux26)."""
    return [Setting(name=_ENV_SETTINGS[m.group(1)], value="on" if m.group(2).lower() in ("1", "true", "yes", "on")
                    else "off", key=m.group(1), source="command_line", line_no=line_no, text=setting_text(line))
            for m in _ENV_ASSIGN.finditer(line)]


_PARTITION_ENV = lazy(r"\b(VLLM_PP_LAYER_PARTITION|SGLANG_PP_LAYER_PARTITION)=[\"']?([^\s\"']+)")
"""an assignment of the hand-set PP layer split on a launch command line (``VAR=16,32 vllm serve …``, ``export``,
``docker run -e``): ``tpkit.models.layout.PARTITION_ENV``"""


def partition_settings(command: str, *, line_no: int) -> list[Setting]:
    """The ``pp_layer_partition`` setting a launch command assigns (:data:`_PARTITION_ENV`), its value as written
    ("16,32"; checked when a plan takes it)."""
    m = _PARTITION_ENV.search(command)
    if m is None:
        return []
    return [Setting(name="pp_layer_partition", value=m.group(2), key=m.group(1), source="command_line",
                    line_no=line_no, text=setting_text(command))]
