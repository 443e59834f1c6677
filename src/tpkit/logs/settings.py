"""Run settings from a log: the engine's own dumps and single log lines (the launch command: ``tpkit.logs.command``).

Every value becomes a :class:`Setting` named in tpkit's words (``tp``, ``mem_fraction``,
``context_length`` …) that keeps the engine's key, where it was read and the evidence text.
"""

from __future__ import annotations

from tpkit.logs.dumps import balanced, literal_dict, read_value, split_pairs
from tpkit.logs.lazyre import lazy
from tpkit.records import dataclass

__all__ = ["Setting", "KEYS", "settings_from_record", "SOURCES",
           "compile_cache_state", "SETTING_FLAGS", "flag_settings", "QUANTIZATION_NAMES", "planned_quantization",
           "same_quantization", "runner_settings", "setting_text", "SETTING_TEXT_CHARS"]

SOURCES = ("server_args", "engine_config", "non_default_args", "log_line", "command_line")
"""where a setting can come from, most trusted first"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Setting:
    """One run setting read from the log."""

    name: str
    """tpkit's name (a value of :data:`KEYS`)"""
    value: object
    """int, float, str, bool, list or dict, as the engine printed it"""
    key: str
    """the engine's key or flag, e.g. ``"tp_size"``, ``"--tensor-parallel-size"``"""
    source: str
    """one of :data:`SOURCES`"""
    line_no: int
    text: str
    """the evidence (clipped to 300 characters)"""

    def to_dict(self) -> dict:
        value = self.value if isinstance(self.value, (int, float, str, bool, type(None))) else repr(self.value)
        if isinstance(self.value, (dict, list)):
            value = _jsonable(self.value)
        return {"name": self.name, "value": value, "key": self.key, "source": self.source,
                "line_no": self.line_no, "text": self.text}


def _jsonable(value, depth: int = 0):
    if depth > 8:
        return repr(value)[:200]
    if isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in list(value.items())[:200]}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v, depth + 1) for v in list(value)[:200]]
    return value if isinstance(value, (int, float, str, bool, type(None))) else repr(value)[:200]


KEYS: dict[str, str] = {
    # SGLang ServerArgs (python/sglang/srt/server_args.py, 0.2–0.5.x)
    "model_path": "model", "tp_size": "tp", "pp_size": "pp", "dp_size": "dp", "ep_size": "ep",
    "expert_parallel_size": "ep", "mem_fraction_static": "mem_fraction", "context_length": "context_length",
    "kv_cache_dtype": "kv_cache_dtype", "page_size": "page_size", "speculative_algorithm": "spec_algorithm",
    "speculative_draft_model_path": "spec_draft_model", "speculative_num_steps": "spec_num_steps",
    "speculative_eagle_topk": "spec_topk", "speculative_num_draft_tokens": "spec_num_draft_tokens",
    "chunked_prefill_size": "chunked_prefill_size", "cuda_graph_max_bs": "cuda_graph_max_bs",
    "disable_cuda_graph": "cuda_graph_disabled", "enable_dp_attention": "enable_dp_attention",
    "disable_custom_all_reduce": "disable_custom_all_reduce", "quantization": "quantization", "dtype": "dtype",
    "max_running_requests": "max_running_requests", "max_total_tokens": "max_total_tokens",
    "attention_backend": "attention_backend", "enable_ep_moe": "enable_ep_moe",
    "dcp_size": "dcp", "attn_cp_size": "attn_cp", "enable_torch_symm_mem": "enable_torch_symm_mem",
    "max_mamba_cache_size": "max_mamba_cache_size", "mamba_full_memory_ratio": "mamba_full_memory_ratio",
    "mamba_ssm_dtype": "mamba_ssm_dtype", "mm_feature_transport": "mm_feature_transport",
    "disable_radix_cache": "disable_radix_cache", "swa_full_tokens_ratio": "swa_full_tokens_ratio",
    "disable_overlap_schedule": "disable_overlap_schedule",
    "enable_lora": "enable_lora", "max_lora_rank": "max_lora_rank", "max_loras_per_batch": "max_loras_per_batch",
    "max_loras": "max_loras",  # vLLM --max-loras (vllm/config/lora.py); the two keys above are vLLM's too
    # vLLM engine args (vllm/engine/arg_utils.py) and the engine config repr (vllm/config)
    "model": "model", "model_tag": "model", "tensor_parallel_size": "tp", "pipeline_parallel_size": "pp",
    "data_parallel_size": "dp", "enable_expert_parallel": "enable_expert_parallel",
    "gpu_memory_utilization": "mem_fraction", "max_model_len": "context_length", "max_seq_len": "context_length",
    "block_size": "page_size", "speculative_config": "speculative_config",
    "enable_chunked_prefill": "enable_chunked_prefill", "chunked_prefill_enabled": "enable_chunked_prefill",
    "max_num_batched_tokens": "max_num_batched_tokens", "max_num_seqs": "max_running_requests",
    "enforce_eager": "cuda_graph_disabled", "max_cudagraph_capture_size": "cuda_graph_max_bs",
    "max_capture_size": "cuda_graph_max_bs", "max_seq_len_to_capture": "max_seq_len_to_capture",
    "decode_context_parallel_size": "dcp", "kv_cache_memory_bytes": "kv_cache_memory_bytes",
    "num_gpu_blocks_override": "num_gpu_blocks_override", "cpu_offload_gb": "cpu_offload_gb",
    "skip_mm_profiling": "skip_mm_profiling",
    "async_scheduling": "async_scheduling",  # vLLM --(no-)async-scheduling (config/scheduler.py; non-default args)
    "limit_mm_per_prompt": "limit_mm_per_prompt",  # vLLM --limit-mm-per-prompt (engines/vllm/mmlimits.py)
    "language_model_only": "language_model_only",  # vLLM --language-model-only (engines/vllm/towers.py)
    "cudagraph_capture_sizes": "cudagraph_capture_sizes", "optimization_level": "optimization_level",  # helper cap11:
    "cudagraph_mode": "cudagraph_mode",  # vLLM's graph sizes and mode (logs.graphsettings)
}
"""engine key → tpkit setting name (both engines; the keys do not collide in meaning)"""

SETTING_FLAGS = ("tp", "pp", "dp", "ep", "topk_topp_sampler", "compile_cache", "vllm_use_v2_model_runner",
                 "vllm_entrypoint", "pp_layer_partition", "sglang_int4_weight", "vllm_allow_long_max_model_len",
                 "vllm_mxfp4_use_marlin")
"""tpkit's own plan flags (argparse dests) that carry a run setting under the setting's name: ``--tp`` for SGLang's
``tp_size`` and vLLM's ``tensor_parallel_size`` (likewise pp, dp, ep), ``--topk-topp-sampler``, ``--compile-cache``
(a log line's state), ``--vllm-use-v2-model-runner``, ``--vllm-entrypoint``, ``--pp-layer-partition`` (``logs.run``)"""


def flag_settings(dests) -> dict[str, str]:
    """Plan flag (argparse dest) → run setting name, for ``dests`` in their order: tpkit's own
    (:data:`SETTING_FLAGS`) name their setting; an engine's spelling (``mem_fraction_static``,
    ``gpu_memory_utilization``, ``block_size``, ``enforce_eager`` …) maps through :data:`KEYS`, the one map of
    the engines' keys.  A dest that is neither raises KeyError (a programming error)."""
    return {dest: dest if dest in SETTING_FLAGS else KEYS[dest] for dest in dests}


QUANTIZATION_NAMES: dict[str, str] = {
    # the planner's own spellings (models.quant.resolve_quant), kept as printed: a storage format, or the kernel
    # that reads it (gptq: vLLM's exllama kernel up to 0.21, whose per-call dequantised copy tpkit charges,
    # engines.vllm.profile_lines.uses_gptq_kernel; gptq_marlin / awq_marlin: Marlin, no such copy)
    "fp8": "fp8", "fbgemm_fp8": "fbgemm_fp8", "mxfp4": "mxfp4", "awq": "awq", "awq_marlin": "awq_marlin",
    "gptq": "gptq", "gptq_marlin": "gptq_marlin", "compressed-tensors": "compressed-tensors",
    "compressed_tensors": "compressed-tensors", "moe_wna16": "moe_wna16",
    # vLLM's own names for those formats (model_executor/layers/quantization/__init__.py QuantizationMethods and
    # each config's get_name / override_quantization_method, read in the 0.20.0-0.33.0 wheels):
    "auto_awq": "awq",  # ≥ 0.24 AutoAWQConfig: every quant_method "awq" checkpoint (Marlin or the AWQ kernel)
    "auto_gptq": "gptq_marlin",  # ≥ 0.22 AutoGPTQConfig: a quant_method "gptq" checkpoint, mixed-precision kernel
    "gpt_oss_mxfp4": "mxfp4",  # ≥ 0.20 Mxfp4Config.override_quantization_method: gpt-oss's mxfp4 checkpoint
    # bitsandbytes (vLLM's engine config ``quantization=bitsandbytes``, or the loader's line, :data:`_BNB_LINE`):
    # the planner's in-flight nf4 (models.quant.bnb_online); a pre-quantised bnb checkpoint keeps its own config
    "bitsandbytes": "bitsandbytes",
}
"""a quantization name a log prints (vLLM's engine config ``quantization=`` / non-default args, SGLang's
``ServerArgs(quantization=…)`` or a launch command's ``--quantization``) → the ``--quantization`` spelling tpkit's
planner takes for the same weights.  Names not here (modelopt*, gguf, quark, auto-round,
deepseek_v4_fp8, w8a8_*, vLLM's online fp8_per_* shorthands …) have none: a plan then assumes the checkpoint's
``quantization_config``."""


def _quant_name(name) -> str:
    """A quantization name compared as the planner reads it: lower case, unquoted; None / "none" / "auto" → ""."""
    text = "" if name is None else str(name).strip().strip("'\"").lower()
    return "" if text in ("none", "auto") else text


def planned_quantization(printed) -> str | None:
    """The planner's spelling of a printed quantization name (:data:`QUANTIZATION_NAMES`), None when it has none."""
    return QUANTIZATION_NAMES.get(_quant_name(printed))


def same_quantization(logged, given) -> bool:
    """True when a ``--quantization`` flag names what the log printed: the same planner spelling (vLLM's
    ``auto_awq`` is ``--quantization awq``), or, for names without one, the same name."""
    a, b = planned_quantization(logged), planned_quantization(given)
    return a == b if a is not None and b is not None else _quant_name(logged) == _quant_name(given)


SETTING_TEXT_CHARS = 300
"""the longest evidence a ``Setting`` quotes (characters; a longer line ends in "…")"""


def setting_text(line: str) -> str:
    """The evidence a ``Setting`` quotes: ``line`` stripped, clipped to ``SETTING_TEXT_CHARS`` (one home for the
    readers of settings, launch commands and runner lines: ``logs.settings``, ``logs.command``, ``logs.run``)."""
    line = line.strip()
    return line if len(line) <= SETTING_TEXT_CHARS else line[:SETTING_TEXT_CHARS - 3] + "…"


def _pairs_to_settings(pairs, *, source: str, line_no: int, text: str, prefix: str = "") -> list[Setting]:
    out = []
    for key, value in pairs:
        name = KEYS.get(key)
        if name is None:
            continue
        out.append(Setting(name=name, value=value, key=prefix + key, source=source, line_no=line_no, text=text))
    return out


def _compilation_settings(value, *, line_no: int, text: str, source: str = "engine_config", raw: str = "") -> list:
    """The CUDA-graph settings of a printed ``compilation_config`` (``logs.graphsettings.compilation_pairs``)."""
    from tpkit.logs.graphsettings import compilation_pairs
    return _pairs_to_settings(compilation_pairs(value, raw), source=source, line_no=line_no, text=text)


def _dump_settings(message: str, *, line_no: int) -> list[Setting]:
    text = setting_text(message)
    at = message.find("ServerArgs(")
    if at >= 0:
        body = balanced(message, at + len("ServerArgs"))[1:]
        pairs = [(k, read_value(v)) for k, v in split_pairs(body)]
        return _pairs_to_settings(pairs, source="server_args", line_no=line_no, text=text)
    at = message.find("with config:")
    if at >= 0:
        pairs = [(k, read_value(v)) for k, v in split_pairs(message[at + len("with config:"):])]
        out = _pairs_to_settings(pairs, source="engine_config", line_no=line_no, text=text)
        for key, value in pairs:
            if key == "compilation_config":
                at_cc = message.find("compilation_config=")
                out += _compilation_settings(value, line_no=line_no, text=text, raw=message[at_cc:])
        return out
    return []


def _non_default_settings(message: str, *, line_no: int) -> list[Setting]:
    at = message.find("{", message.find("non-default args"))
    if at < 0:
        return []
    values = literal_dict(message[at:])
    out = _pairs_to_settings(values.items(), source="non_default_args", line_no=line_no, text=setting_text(message))
    if isinstance(values.get("compilation_config"), (dict, str)):  # --compilation-config '{"cudagraph_mode": …}'
        out += _compilation_settings(values["compilation_config"], line_no=line_no, text=setting_text(message),
                                     source="non_default_args")
    return out


_LOG_LINES = (
    (lazy(r"Using max model len (\d{1,12})"), "max_model_len"),
    (lazy(r"Chunked prefill is enabled with max_num_batched_tokens=(\d{1,12})"), "max_num_batched_tokens"),
    (lazy(r"Defaulting to use (\w+) for (?:speculative|spec)"), None),
    # SGLang's ServerArgs attention-backend checks (server_args.py _handle_attention_backend_compatibility,
    # read in 0.5.10 and 0.5.20: TensorRT-LLM MHA / MLA → 64, FA4 → 128) print the page size they force
    (lazy(r"changing page_size from \S+ to (\d{1,6})\b"), "page_size"),
)


_SAMPLER_LINES = (
    # vLLM V1 TopKTopPSampler.__init__ (v1/sample/ops/topk_topp_sampler.py, read in the 0.8.5, 0.9.2, 0.10.2,
    # 0.11.0, 0.11.2, 0.12.0, 0.20.0, 0.21.0 and 0.33.0 wheels): the sampler its dummy sampler run uses
    ("Using FlashInfer for top-p & top-k sampling", "flashinfer"),
    ("Falling back to the PyTorch-native implementation of top-p & top-k sampling", "native"),
    ("FlashInfer is not available. Falling back to the PyTorch-native", "native"),
    ("FlashInfer is available, but it is not enabled", "native"),
    ("FlashInfer version >= 0.2.3 required. Falling back to default sampling", "native"),
)


def _sampler_settings(message: str, *, line_no: int) -> list[Setting]:
    flat = " ".join(message.split())
    for needle, value in _SAMPLER_LINES:
        if needle in flat:
            return [Setting(name="topk_topp_sampler", value=value, key="topk_topp_sampler.py", source="log_line",
                            line_no=line_no, text=setting_text(message))]
    return []


_UTIL_LINES = (
    # vLLM V1 Worker.determine_available_memory's CUDA-graph hint (v1/worker/gpu_worker.py; read in the 0.19.0 wheel,
    # both wordings, and the 0.25.1 / 0.29.0 wheels, the second one): it prints the run's gpu_memory_utilization
    # as %.4f; the CUDA-graph estimate off: "... increase --gpu-memory-utilization from 0.9000 to 0.9201 ...",
    # on: "The current --gpu-memory-utilization=0.8500 is equivalent to ..." (helper mv3, 2026-12-04: vl_154)
    lazy(r"--gpu-memory-utilization from (\d(?:\.\d{1,6})?) to \d"),
    lazy(r"The current --gpu-memory-utilization=(\d(?:\.\d{1,6})?) is equivalent"),
)

_SKIP_MM_LINE = "Skipping memory profiling for multimodal encoder"
"""vLLM V1 ``profile_run`` (``v1/worker/gpu_model_runner.py``, 0.10.2 and 0.25.1 wheels) under --skip-mm-profiling
(Model Runner V2, 0.29.0, prints no line)"""


_COMPILE_CACHE_LINES = (
    # vLLM's torch.compile cache (``vllm/compilation``), read in the 0.6.6, 0.8.4, 0.8.5, 0.9.0, 0.9.2, 0.10.1.1
    # and 0.18.0-0.33.0 wheels; 0.32/0.33 put a "%s" prefix in front of the same words.
    # warm: CompilerManager.compile (backends.py) found every graph of a shape / compile range in vLLM's cache:
    #   "Directly load the compiled graph for shape %s from the cache" (0.8.4), "... graph(s) for shape %s ..."
    #   (0.8.5-0.9.x), "... for dynamic shape ..." (0.10.x), "... for compile range %s from the cache, took %.3f s"
    #   (0.18.0-0.33.0); or the whole AOT-compiled function came from it (decorators.py, 0.18.0-0.33.0)
    ("Directly load the compiled graph", "warm"),
    ("Directly load AOT compilation from path", "warm"),
    # cold: CompilerManager.compile compiled a graph in this run: "Compiling a graph for general shape / shape %s /
    # dynamic shape / compile range %s takes %.2f s" and, with the cache on, "Cache the graph of shape %s / for
    # dynamic shape / of compile range %s for later use"; the cache turned off (VLLM_DISABLE_COMPILE_CACHE,
    # backends.py VllmBackend.__call__: "vLLM's torch.compile cache is disabled."); an AOT artifact that failed to
    # load (decorators.py: "Compiling model again due to a load failure from %s")
    ("Compiling a graph for ", "cold"),
    ("Cache the graph of ", "cold"),
    ("Cache the graph for ", "cold"),
    ("torch.compile cache is disabled", "cold"),
    ("Compiling model again due to a load failure", "cold"),
)
"""vLLM log lines that show whether this run compiled its torch.compile graphs (``"cold"``) or loaded them from
vLLM's compile cache (``"warm"``).  "torch.compile takes / took %.2f s in total" (monitor.py) and "Dynamo bytecode
transform time" are printed either way, so they say nothing about the cache.  A run that loads some graphs and
compiles others is cold (``tpkit.logs.run``)."""


def compile_cache_state(message: str) -> str | None:
    """``"cold"`` / ``"warm"`` when the record is one of :data:`_COMPILE_CACHE_LINES`, else None."""
    for needle, state in _COMPILE_CACHE_LINES:
        if needle in message:
            return state
    return None


def _compile_cache_settings(message: str, *, line_no: int) -> list[Setting]:
    state = compile_cache_state(message)
    if state is None:
        return []
    return [Setting(name="compile_cache", value=state, key="vllm/compilation", source="log_line", line_no=line_no,
                    text=setting_text(message))]


_RUNNER_WORDS = (
    # Model Runner V2: GPUWorker.init_device, logger.info_once (v1/worker/gpu_worker.py, 0.16.0-0.33.0 wheels;
    # 0.13.0-0.15.0 print no such line)
    ("Using V2 Model Runner", "1", "gpu_worker.py"),
    # the V1 runner chosen by vLLM over V2 (config/vllm.py VllmConfig.use_v2_model_runner, 0.22.0-0.33.0: "Model
    # Runner V2 does not yet support %s; using the V1 model runner instead", "... requires Triton; using the V1
    # model runner instead"; 0.29.0-0.31.0 "Defaulting to V1 model runner on ROCm for model architectures: %s")
    ("using the V1 model runner instead", "0", "config/vllm.py"),
    ("Defaulting to V1 model runner", "0", "config/vllm.py"),
)
RUNNER_FILE = lazy(r"\[(gpu_model_runner|model_runner)\.py:\d+\]")
V0_LOAD = lazy(r"Model loading took \d+\.\d{4} Gi?B and")
"""V0's ``worker/model_runner.py`` load line (``"Model loading took %.4f GiB and %.6f seconds"``, 0.8.0-0.10.x;
"GB" in the 0.8.0-0.8.4 logs): four decimals, which Model Runner V2's ``format_gib`` (``round(b / GiB, 2)``,
``v1/worker/gpu/model_runner.py``, 0.14.1 / 0.27.1 wheels) never prints"""


def runner_settings(line: str, *, line_no: int) -> list[Setting]:
    """The model runner a vLLM log line shows, as the ``vllm_use_v2_model_runner`` setting (``"1"``: Model Runner
    V2, ``"0"``: the V1 runner), read off the RAW line (the record splitter drops vLLM's ``[file.py:N]`` tag):
    the words of :data:`_RUNNER_WORDS`, or the tag of the "Model loading took" line, which both runners print:
    ``[gpu_model_runner.py:N]`` from the V1 runner (``v1/worker/gpu_model_runner.py load_model``),
    ``[model_runner.py:N]`` from Model Runner V2 (``v1/worker/gpu/model_runner.py load_model``; 0.13.0-0.33.0
    wheels).  V0's ``worker/model_runner.py`` prints "Loading model weights took" up to 0.7 and "Model loading
    took" with four decimals from 0.8 (:data:`V0_LOAD`; 0.8.5 / 0.10.1.1 wheels): neither runner, no setting."""
    for words, value, key in _RUNNER_WORDS:
        if words in line:
            return [Setting(name="vllm_use_v2_model_runner", value=value, key=key, source="log_line",
                            line_no=line_no, text=setting_text(line))]
    if "Model loading took" in line:
        m = RUNNER_FILE.search(line)
        if m and not (m.group(1) == "model_runner" and V0_LOAD.search(line)):
            return [Setting(name="vllm_use_v2_model_runner", value="0" if m.group(1) == "gpu_model_runner" else "1",
                            key=m.group(0).strip("[]"), source="log_line", line_no=line_no, text=setting_text(line))]
    return []


_BNB_LINE = "Loading weights with BitsAndBytes quantization"
"""the bitsandbytes loader's line as it starts loading (vLLM ``BitsAndBytesModelLoader``: 0.5.4 ``loader.py``,
0.10.1.1 / 0.14.1 / 0.19.0 / 0.27.1 ``bitsandbytes_loader.py``, vl_059's 0.8.x ``loader.py:1155``; SGLang's
``model_loader/loader.py`` 0.4.10 / 0.5.11 / 0.5.23): the run loads its weights as bitsandbytes (in flight or
pre-quantised), the ``quantization`` setting ``bitsandbytes`` where no dump names it"""


_KERNEL_LINE = lazy(r"Using (\w+Kernel) for (AutoAWQMarlinLinearMethod|AWQMarlinLinearMethod|GPTQMarlinLinearMethod|"
                   r"CompressedTensorsWNA16)\b")
"""vLLM's mixed-precision kernel choice as a weight-only int4/int8 linear method creates its weights (``logger.info(
"Using %s for <method>", kernel_type.__name__)`` after ``choose_mp_linear_kernel``: ``AutoAWQMarlinLinearMethod`` in
``quantization/auto_awq.py`` (0.29.0 wheel), ``GPTQMarlinLinearMethod`` in ``gptq_marlin.py`` and
``CompressedTensorsWNA16`` in ``compressed_tensors/schemes/compressed_tensors_wNa16.py`` (0.11.0 and 0.14.0 wheels),
``AWQMarlinLinearMethod`` as vl_348 prints it): the linear method names the checkpoint's format, the ``quantization``
setting (:data:`_KERNEL_METHODS`) where no dump names it; the kernel (Marlin, Machete, …) is kept as the key"""

_KERNEL_METHODS = {"AutoAWQMarlinLinearMethod": "awq", "AWQMarlinLinearMethod": "awq_marlin",
                   "GPTQMarlinLinearMethod": "gptq_marlin", "CompressedTensorsWNA16": "compressed-tensors"}


def kernel_line(text: str) -> tuple[str, str] | None:
    """(kernel, linear method) of the first :data:`_KERNEL_LINE` in ``text``, None when it prints none."""
    m = _KERNEL_LINE.search(text)
    return (m.group(1), m.group(2)) if m else None


_DSV4_FP8_LINE = "Using DeepSeek's fp8_ds_mla KV cache format"
"""vLLM's DeepSeek-V4 attention as it turns an fp8 ``--kv-cache-dtype`` into the fp8_ds_mla layout and writes it
back onto the cache config (0.20.0 ``model_executor/layers/deepseek_v4_attention.py``, 0.25.1
``models/deepseek_v4/attention.py _resolve_dsv4_kv_cache_dtype``): the run's ``kv_cache_dtype`` is fp8_ds_mla"""


def _log_line_settings(message: str, *, line_no: int) -> list[Setting]:
    out = _sampler_settings(message, line_no=line_no) + _compile_cache_settings(message, line_no=line_no)
    if _DSV4_FP8_LINE in message:
        out.append(Setting(name="kv_cache_dtype", value="fp8_ds_mla", key="deepseek_v4 attention", source="log_line",
                           line_no=line_no, text=setting_text(message)))
    if _BNB_LINE in message:
        out.append(Setting(name="quantization", value="bitsandbytes", key="bitsandbytes loader", source="log_line",
                           line_no=line_no, text=setting_text(message)))
    kernel = kernel_line(message) if "Kernel for " in message else None
    if kernel:
        out.append(Setting(name="quantization", value=_KERNEL_METHODS[kernel[1]], key=f"{kernel[0]} for {kernel[1]}",
                           source="log_line", line_no=line_no, text=setting_text(message)))
    if _SKIP_MM_LINE in message:
        out.append(Setting(name="skip_mm_profiling", value=True, key="gpu_model_runner.py", source="log_line",
                           line_no=line_no, text=setting_text(message)))
    for pattern in _UTIL_LINES:
        m = pattern.search(message)
        if m:
            out += _pairs_to_settings([("gpu_memory_utilization", float(m.group(1)))], source="log_line",
                                      line_no=line_no, text=setting_text(message))
            break
    for pattern, key in _LOG_LINES:
        m = pattern.search(message)
        if m and key:
            out += _pairs_to_settings([(key, int(m.group(1)))], source="log_line", line_no=line_no,
                                      text=setting_text(message))
    return out


def settings_from_record(message: str, *, line_no: int) -> list[Setting]:
    """Settings printed by the engine in one record (dumps and single lines)."""
    if "ServerArgs(" in message or "with config:" in message:
        return _dump_settings(message, line_no=line_no)
    if "non-default args" in message:
        return _non_default_settings(message, line_no=line_no)
    if ("Using max model len" in message or "Chunked prefill is enabled" in message or "changing page_size" in message
            or "top-p & top-k sampling" in message or "FlashInfer version >= 0.2.3 required" in message
            or _SKIP_MM_LINE in message or "--gpu-memory-utilization" in message or _BNB_LINE in message
            or "Kernel for " in message
            or _DSV4_FP8_LINE in message or "Directly load " in message or "ompil" in message or "Cache the graph" in message):
        return _log_line_settings(message, line_no=line_no)
    return []
