"""vLLM's batch sizes: the ``max_num_batched_tokens`` and ``max_num_seqs`` an engine runs with when the flags leave
them out, per release, device and entrypoint, and the checks vLLM makes of given ones (``resolve_batch``; the profile
run, the encoder budget and the CUDA-graph sizes follow them).

Default batch sizes (``engine/arg_utils.py get_batch_defaults``, API server): ≥ 160 GiB devices get
16384 / 1024 from 0.28.0, ≥ 70 GiB devices other than A100 8192 / 1024, others 2048 / 256; the offline ``vllm.LLM``
class (``--vllm-entrypoint llm``) gets 16384 tokens where the API server gets 8192 or 16384 and 8192 where it gets
2048, with the same sequences (:func:`default_batched_tokens`); GB10 always the
last (its NVML reports no memory total, ``_nvml_has_no_memory_total``).  Before
0.9.0 (``_set_default_args_v1``, vllm 0.7.3, 0.8.0, 0.8.3, 0.8.4, 0.8.5 wheels): 0.8.5 gives every ≥ 70 GiB device
(A100-80GB included) 8192 / 1024; 0.8.4 only devices named H100/H200; 0.7.x V1 and 0.8.0–0.8.3 give the 8192
tokens to H100/H200 by name and 1024 sequences to every device.  V0
profiled ``max(max_model_len, 2048)`` tokens over 256 sequences, or with chunked prefill (on by default above 32K
tokens from 0.5.3 with exceptions: ``engines.vllm.v0chunk``) its budget: 512 tokens up to 0.6.4, 2048 from 0.6.5 (``config.py``
``SchedulerConfig``, vllm 0.5.4–0.6.4 wheels: 512; 0.6.5, 0.6.6, 0.7.0, 0.8.5: ``_DEFAULT_MAX_NUM_BATCHED_TOKENS``
2048).  Multimodal models: the long-context default leaves chunked prefill off from 0.6.2 (``engine/arg_utils.py``
``create_engine_config`` / 0.8.5 ``_set_default_args_v0``; 0.6.0 and 0.6.1 still turn it on), and the budget is
at least ``_MULTIMODAL_MODEL_MAX_NUM_BATCHED_TOKENS`` (4096 in 0.6.0–0.6.2, 5120 from 0.6.3; none in 0.5.4).

Split from ``inputs`` (helper tidy30, session 30) at its size limit; ``inputs.resolve_inputs`` calls ``resolve_batch``.
"""

from __future__ import annotations

from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.v0chunk import v0_auto_chunked_prefill
from tpkit.engines.vllm.versions import VllmRules
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec, is_amd
from tpkit.models.spec import ModelSpec
from tpkit.units import GiB

__all__ = ["resolve_batch", "default_batched_tokens", "mm_prefix_batch_floor", "V1_CHUNKED_PREFILL_SWITCH"]


V1_CHUNKED_PREFILL_SWITCH = (0, 11, 1)
"""First release whose V1 engine honours ``--no-enable-chunked-prefill`` for a generating model (see
:func:`resolve_batch`)."""


def resolve_batch(gpu: GpuSpec, options: VllmOptions, rules: VllmRules, length: int,
                  model: ModelSpec) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) the engine runs with: V0 by :func:`_v0_batch`; V1 by
    ``engine/arg_utils.py`` (``_set_default_args_v1`` / ``_set_default_args`` up to 0.11.0,
    ``_set_default_max_num_seqs_and_batched_tokens_args`` from 0.11.1).

    ``--no-enable-chunked-prefill`` (``enable_chunked_prefill=False``) on V1: up to 0.11.0 the engine sets
    ``enable_chunked_prefill = True`` for every non-pooling model ('V1 always uses chunked prefills', read in the
    0.8.5, 0.9.0–0.9.2, 0.10.0, 0.10.2 and 0.11.0 wheels), so the switch changes nothing.  From 0.11.1 (read in
    0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.15.0, 0.16.0, 0.17.1, 0.18.0–0.31.0 and 0.33.0) it is kept, and when
    ``--max-num-batched-tokens`` is not given the budget becomes ``max(max_model_len, the device default)``; a
    given budget below ``max_model_len`` is refused (``config/scheduler.py SchedulerConfig.verify_max_model_len``:
    'max_num_batched_tokens (…) is smaller than max_model_len (…)').  From 0.11.1 a default budget is also capped at
    ``max_num_seqs × max_model_len`` (either switch).  The profile run, the encoder budget and the graph sizes then
    follow the budget as they do for a chunked run."""
    if rules.engine == "V0":
        return _v0_batch(options, rules, length, model, rocm=is_amd(gpu.vendor)), options.max_num_seqs or 256
    big_seqs = _large_batch_device(gpu, rules)[1]
    switch = rules.release >= V1_CHUNKED_PREFILL_SWITCH
    unchunked = switch and options.enable_chunked_prefill is False
    given = options.max_num_batched_tokens
    if given and unchunked and given < length:
        raise PlanInputError(f"--max-num-batched-tokens {given} is below --max-model-len {length} with chunked prefill "
                             f"off: vLLM {rules.label} refuses it (config/scheduler.py verify_max_model_len: "
                             "'max_num_batched_tokens ... is smaller than max_model_len'); raise it to "
                             f"{length}, lower --max-model-len, or turn chunked prefill on")
    tokens = given or default_batched_tokens(gpu, rules, options.vllm_entrypoint)
    if not given:
        if unchunked:
            tokens = max(length, tokens)
        if rules.mm_prefix_batch_floor:
            tokens = max(tokens, mm_prefix_batch_floor(model) or 0)
        if switch:
            tokens = min((options.max_num_seqs or (1024 if big_seqs else 256)) * length, tokens)
    seqs = options.max_num_seqs or min(1024 if big_seqs else 256, tokens)
    if tokens < seqs:
        raise PlanInputError(f"--max-num-batched-tokens {tokens} is below --max-num-seqs {seqs}; vLLM needs "
                             f"max_num_batched_tokens ≥ max_num_seqs: raise it to {seqs} or lower --max-num-seqs")
    return tokens, seqs


GEMMA4_VIDEO_FRAMES = 32
"""``_VIDEO_MAX_FRAMES``: frames one Gemma 4 video item is sampled to at most (vLLM 0.19.0 – 0.29.0
``models/gemma4_mm.py``)"""
GEMMA4_FRAME_TOKENS = 70 + 2 + 6
"""tokens per video frame in ``Gemma4ProcessingInfo.get_mm_max_tokens_per_item``: ``_VIDEO_MAX_SOFT_TOKENS`` 70
soft tokens + begin/end-of-image + 6 timestamp tokens"""
GEMMA4_AUDIO_TOKENS = 750
"""``Gemma4Processor.audio_seq_length`` default (transformers 5.25 ``models/gemma4/processing_gemma4.py``)"""


def mm_prefix_batch_floor(model: ModelSpec) -> int | None:
    """The largest per-item multimodal token count of a Gemma 4 prefix-LM model (vLLM ≥ 0.22.0
    ``engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args``: when ``max_num_batched_tokens`` is
    not given and the model is multimodal with ``is_mm_prefix_lm`` — for Gemma 4 ``use_bidirectional_attention
    == "vision"``, ``transformers_utils/model_arch_config_convertor.py Gemma4ModelArchConfigConvertor`` — the
    default is raised to ``max(get_mm_max_tokens_per_item)``: image ``vision_config.default_output_length`` (280),
    video 32 frames × 78 = 2,496, audio 750 when there is an audio tower); None for other models.

    Other prefix-LM models in vLLM's list (Gemma 3, PaliGemma …) do not override ``get_mm_max_tokens_per_item``,
    so vLLM finds no count for them and keeps its default."""
    if not (model.model_type == "gemma4_text" and model.is_multimodal
            and model.extra.get("use_bidirectional_attention") == "vision"):
        return None
    vision = model.extra.get("vision_config")
    image = vision.get("default_output_length") if isinstance(vision, dict) else None
    image = image if isinstance(image, int) and not isinstance(image, bool) and image > 0 else 280
    audio = GEMMA4_AUDIO_TOKENS if model.extra.get("has_audio_tower") else 0
    return max(image, GEMMA4_VIDEO_FRAMES * GEMMA4_FRAME_TOKENS, audio)


def default_batched_tokens(gpu: GpuSpec, rules: VllmRules, entrypoint: str = "serve") -> int:
    """V1's default ``max_num_batched_tokens`` on ``gpu`` for the entrypoint (``VllmOptions.vllm_entrypoint``).
    ``serve``: 16384 on ≥ 160 GiB devices from 0.28.0, 8192 on the large-batch devices, else 2048.  ``llm``
    (``UsageContext.LLM_CLASS``): 16384 on both, else 8192 (GB10 too), with the same device test in every V1 release
    (``engine/arg_utils.py``, read in the 0.7.0, 0.7.3, 0.8.0, 0.8.3–0.8.5, 0.9.0, 0.9.2, 0.10.0, 0.11.0, 0.11.1,
    0.19.0, 0.23.0, 0.28.0 and 0.33.0 wheels).  V0 has no per-entrypoint default (``_v0_batch``)."""
    huge = rules.huge_gpu_batch and gpu.total_bytes >= GiB(160) and not _nvml_has_no_memory_total(gpu)
    large = _large_batch_device(gpu, rules)[0]
    if entrypoint == "llm":
        return 16384 if huge or large else 8192
    return 16384 if huge else 8192 if large else 2048


def _large_batch_device(gpu: GpuSpec, rules: VllmRules) -> tuple[bool, bool]:
    """(large batched-token default, large max_num_seqs default) of V1's ``_set_default_args_v1`` for this device
    and release (``VllmRules.v1_batch_defaults``).  Up to 0.8.4 vLLM reads torch's device name ("NVIDIA H100 80GB
    HBM3"): tpkit matches the catalog name, so an H800 or H20 (no "h100"/"h200" in their names) gets the small
    defaults there, as in vLLM."""
    name = gpu.name.lower()
    by_name = "h100" in name or "h200" in name
    if rules.v1_batch_defaults == "name_tokens":
        return by_name, True
    if rules.v1_batch_defaults == "name":
        return by_name, by_name
    big = gpu.total_bytes >= GiB(70)
    if rules.v1_batch_defaults == "memory_not_a100":
        big = big and "a100" not in name and not _nvml_has_no_memory_total(gpu)
    return big, big


def _nvml_has_no_memory_total(gpu: GpuSpec) -> bool:
    """GB10 (compute capability 12.1, unified memory): vLLM's default batch sizes see a device of 0 bytes, so it
    gets the small defaults (2048 tokens, 256 sequences on the API server) in every release of the memory rule.
    The rule reads the memory through NVML (``platforms/cuda.py`` ``NvmlCudaPlatform.get_device_total_memory``:
    ``pynvml.nvmlDeviceGetMemoryInfo(handle).total``), which GB10's unified memory does not report (nvidia-smi
    prints no memory total there; the catalog's ``nvidia_smi_total_mib`` is empty), and ``engine/arg_utils.py``
    sets ``device_memory = 0`` on any exception of that query (read in the 0.10.2, 0.11.0, 0.12.0, 0.13.0, 0.27.1,
    0.28.0 and 0.29.0 wheels).  The GB10 logs agree: 'Chunked prefill is enabled with max_num_batched_tokens=2048'
    without the flag (vl_072, 0.11.0; vl_134, vl_340, vl_341, 0.13.0).  Until helper mv11 (2026-12-04) tpkit applied
    this from 0.28.0 only."""
    return gpu.compute_capability == (12, 1)


def _v0_batch(options: VllmOptions, rules: VllmRules, length: int, model: ModelSpec, *, rocm: bool) -> int:
    """V0's ``max_num_batched_tokens`` when not given (module docstring: chunked-prefill budget per release and the
    multimodal minimum from 0.6.0; whether the long-context default turns chunked prefill on:
    :func:`tpkit.engines.vllm.v0chunk.v0_auto_chunked_prefill`).  ``--enable-chunked-prefill`` given
    (True or False) replaces the long-context default: vLLM 0.6.3 ``engine/arg_utils.py create_engine_config``
    turns chunked prefill on for > 32K tokens only ``if self.enable_chunked_prefill is None`` (and then prints
    'The model has a long context length' when it stays off); ``config.py SchedulerConfig`` then sizes the budget
    from the switch as given (vp_372: ``benchmark_throughput.py`` passes ``enable_chunked_prefill=False``)."""
    if options.max_num_batched_tokens:
        return options.max_num_batched_tokens
    release = rules.release
    chunked = options.enable_chunked_prefill
    if chunked is None:
        chunked = v0_auto_chunked_prefill(release=release, length=length, model=model, rocm=rocm,
                                          speculative=bool(options.speculative_config), lora=bool(options.enable_lora),
                                          prefix_caching=bool(options.enable_prefix_caching))
    tokens = (2048 if release >= (0, 6, 5) else 512) if chunked else max(length, 2048)
    if model.is_multimodal and release >= (0, 6, 0):
        tokens = max(tokens, 5120 if release >= (0, 6, 3) else 4096)
    return tokens
