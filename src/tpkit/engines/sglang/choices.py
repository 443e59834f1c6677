"""What SGLang settles before it sizes the KV budget (pure; ``budget.kv_budget`` reads this).

    layout      attention TP divides the heads, PP ≤ layers                (``validate_layout``)
    context     --context-length, else the model limit                     (``context_len``)
    NSA         KV dtype and page SGLang forces for DeepSeek sparse attn   (``nsa_kv_defaults``)
    capacity    the GPU memory SGLang reads (the host's smallest card)     (``capacity_read_mib``)
                chunked-prefill size and CUDA-graph max batch in effect    (``capacity_in_effect``)
    extras      graph-reserve inputs: prefill graphs, DP, DeepEP, spec     (``reserve_extras``)
    fraction    mem_fraction_static: the user's or the default, × multimodal factor, × ROCm aiter factor
                                                                           (``plan_fraction``)

Split from ``sizing.py`` (no rule changed); the budget and pool arithmetic stays there.
"""

from __future__ import annotations

from tpkit.engines.sglang.defaults import (CapacityDefaults, FractionChoice, ReserveExtras, capacity_defaults,
                                           default_mem_fraction, vlm_fraction_factor)
from tpkit.engines.sglang.graphs import GraphContext, prefill_graphs
from tpkit.engines.sglang.multimodal import large_hopper_qwen3_vl, multimodal_runner_factor
from tpkit.engines.sglang.options import SglangOptions, explicit_kv_dtype
from tpkit.engines.sglang.spec import SpecPlan
from tpkit.engines.sglang.versions import at_least, parse_version, release_key
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec, is_amd, is_nvidia
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec

__all__ = ["validate_layout", "context_len", "nsa_kv_defaults", "capacity_in_effect", "capacity_read_mib",
           "host_sourced", "reserve_extras",
           "plan_fraction", "rocm_aiter_factor", "era_has_vlm_factor"]


def validate_layout(model: ModelSpec, parallel: ParallelSpec) -> None:
    """Refuse layouts SGLang refuses: the attention TP size must divide the heads; PP must not exceed the layers."""
    tp, heads, kv = parallel.attn_tp, model.num_attention_heads, model.num_kv_heads
    what = f"attention TP size tp/dp = {tp}" if parallel.dp_attention else f"--tp {tp}"
    if heads % tp:
        ok = [t for t in (1, 2, 4, 8, 16, 32) if heads % t == 0]
        raise PlanInputError(f"{what} does not divide the {heads} attention heads of {model.name}; "
                             f"use a TP size that divides {heads}: {', '.join(map(str, ok))}")
    if model.mla is None and kv and (kv % tp if kv >= tp else tp % kv):
        raise PlanInputError(f"{what} and the {kv} KV heads of {model.name} do not split evenly (one must "
                             f"divide the other); use --tp dividing {kv} or a multiple of it")
    if parallel.pp > model.num_layers:
        raise PlanInputError(f"--pp {parallel.pp} exceeds the {model.num_layers} layers of {model.name}")
    if parallel.pp > 1 and model.model_type == "lfm2":  # models/lfm2.py asserts one stage (0.5.9 – 0.5.23)
        raise PlanInputError(f"SGLang serves LFM2 ({model.name}) on one pipeline stage only (Lfm2ForCausalLM asserts "
                             f"the first and last PP rank); use --pp 1, got --pp {parallel.pp}")


def context_len(model: ModelSpec, options: SglangOptions) -> int:
    """Tokens per request: ``--context-length`` (refused above the model limit), else the model limit."""
    limit = model.max_position_embeddings
    if options.context_length is None:
        return limit
    if options.context_length > limit:
        raise PlanInputError(
            f"--context-length {options.context_length} exceeds the model limit {limit} of {model.name}; SGLang "
            f"refuses it unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set; use ≤ {limit}")
    return options.context_length


def nsa_kv_defaults(gpu: GpuSpec, options: SglangOptions, kv_dtype: str, page: int, version: str) -> tuple[str, int]:
    """(KV dtype, page size) SGLang forces for DeepSeek sparse attention models (``server_args.py``
    ``_handle_model_specific_adjustments``, DSA branch, 0.5.3 – 0.5.23): the page is 64 on CUDA whatever the user
    set (``NSATokenToKVPool`` asserts it), 1 on ROCm from 0.5.8 ("Setting page size to 1 for DeepSeek DSA on
    ROCm"); ``--kv-cache-dtype auto`` becomes fp8_e4m3 on SM ≥ 10 and bfloat16 below (0.5.5+,
    ``_set_default_nsa_kv_cache_dtype`` from 0.5.9; 0.5.3/0.5.4 set fp8 on SM ≥ 10 and kept the model dtype
    otherwise).  A GPU without a catalogued compute capability keeps the model dtype."""
    if not is_nvidia(gpu.vendor) and at_least(version, "0.5.8"):
        page = 1
    else:
        page = 64
    if explicit_kv_dtype(options.kv_cache_dtype) is None and gpu.compute_capability is not None:
        if gpu.compute_capability[0] >= 10:
            kv_dtype = "fp8_e4m3"
        elif at_least(version, "0.5.5"):
            kv_dtype = "bfloat16"
    return kv_dtype, page


def capacity_in_effect(model: ModelSpec, gpu: GpuSpec, gpu_mem_mib: float, parallel: ParallelSpec, era: str,
                       options: SglangOptions) -> CapacityDefaults:
    """Chunked-prefill size and CUDA-graph max batch in effect (``defaults.capacity_defaults``), the graph max
    batch raised to --max-running-requests for Qwen3-VL on large Hopper GPUs (``multimodal.large_hopper_qwen3_vl``)."""
    cap = capacity_defaults(gpu_mem_mib, parallel.tp, options.engine_version,
                            chunked_prefill_size=options.chunked_prefill_size,
                            cuda_graph_max_bs=options.cuda_graph_max_bs,
                            max_running_requests=options.max_running_requests)
    user = options.max_running_requests
    if (options.cuda_graph_max_bs is None and user is not None and cap.cuda_graph_max_bs < user <= 512
            and large_hopper_qwen3_vl(model, gpu_mem_mib, gpu, options.engine_version)):
        return CapacityDefaults(chunked_prefill_size=cap.chunked_prefill_size, cuda_graph_max_bs=user,
                                source=cap.source + "; Qwen3-VL on large Hopper: graph max bs raised to "
                                                    "--max-running-requests (model_overrides/qwen3_vl.py)")
    return cap


def reserve_extras(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: SglangOptions,
                   spec: SpecPlan | None) -> tuple[ReserveExtras, tuple[bool, str]]:
    """The graph-reserve inputs of the default fraction (``defaults.ReserveExtras``) and (prefill CUDA graphs
    on?, why) (``graphs.prefill_graphs``)."""
    ctx = GraphContext(version=options.engine_version, pp=parallel.pp, speculative=spec is not None,
                       dp_attention=parallel.dp_attention, a2a_backend=options.moe_a2a_backend,
                       cpu_offload=bool(options.cpu_offload_gb),
                       cuda_graph_disabled=options.disable_cuda_graph)
    graphs = prefill_graphs(model, gpu, ctx)
    extras = ReserveExtras(version=options.engine_version, prefill_graphs=graphs[0], attn_dp=parallel.attn_dp,
                           deepep=options.moe_a2a_backend == "deepep", speculative=options.speculative_algorithm,
                           cuda_graphs=not options.disable_cuda_graph)
    return extras, graphs


def plan_fraction(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: SglangOptions, *, era: str,
                  gpu_mem_mib: float, cap: CapacityDefaults, extras: ReserveExtras) -> FractionChoice:
    """``mem_fraction_static`` in effect: the user's or SGLang's default with the release's multimodal factor
    (``_fraction``), then × the ROCm aiter factor where it applies (``rocm_aiter_factor``)."""
    return _times(_fraction(options, era, gpu_mem_mib, parallel, cap, model, extras),
                  rocm_aiter_factor(model, gpu, parallel, options))


def _fraction(options: SglangOptions, era: str, gpu_mem_mib: float, parallel: ParallelSpec,
              cap: CapacityDefaults, model: ModelSpec, extras: ReserveExtras) -> FractionChoice:
    """The user's fraction, else SGLang's default, with the multimodal factor of the release
    (``multimodal_runner_factor`` before 0.4.9; × 0.90 on the default in 0.4.9; ``vlm_fraction_factor`` from
    0.4.10)."""
    runner = multimodal_runner_factor(options.engine_version) if model.is_multimodal else None
    if options.mem_fraction_static is not None:
        user = FractionChoice(value=float(options.mem_fraction_static), reserved_mib=None,
                              source="--mem-fraction-static")
        return _times(user, runner)
    choice = default_mem_fraction(era, gpu_mem_mib=gpu_mem_mib, tp=parallel.tp, pp=parallel.pp,
                                  cpp=cap.chunked_prefill_size, max_bs=cap.cuda_graph_max_bs, is_mla=model.is_mla,
                                  extras=extras)
    if runner is not None:
        return _times(choice, runner)
    if model.is_multimodal and not era_has_vlm_factor(era):  # 0.4.9: × 0.90 on the default only
        return _times(choice, (0.90, "multimodal × 0.90 on the default (0.4.9 server_args.py __post_init__)"))
    if model.is_multimodal and era_has_vlm_factor(era) and options.language_model_only:
        return FractionChoice(value=choice.value, reserved_mib=choice.reserved_mib,  # engines/sglang/towers.py
                              source=f"{choice.source}; --language-model-only: no multimodal factor")
    if model.is_multimodal and era_has_vlm_factor(era):
        # a multimodal config without vision_config is incomplete (the released one has it): SGLang's defaults
        factor, why = vlm_fraction_factor(model.extra.get("vision_config") or {})
        return FractionChoice(value=choice.value * factor, reserved_mib=choice.reserved_mib,
                              source=f"{choice.source}, {why} = {choice.value * factor:.6f}")
    return choice


_TRITON_ON_HIP_ARCHS = frozenset({"GptOssForCausalLM"})
"""architectures SGLang gives the triton backend on HIP before 0.5.10 (``rocm_aiter_factor``)"""


def rocm_aiter_factor(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec,
                      options: SglangOptions) -> tuple[float, str] | None:
    """× 0.85 on ANY fraction on an AMD GPU in SGLang from 0.4.7 when the attention backend is aiter and the
    context is longer than 8192 tokens: ``ModelRunner.model_specific_adjustment`` in 0.4.7–0.5.4, then
    ``ServerArgs._handle_attention_backend_compatibility`` ('AMD platforms backends', read in the 0.5.5, 0.5.6,
    0.5.9, 0.5.12, 0.5.16 and 0.5.17 wheels) and ``arg_groups/attention_hook.py`` (0.5.18–0.5.23 wheels, where
    ``SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION``, default False, can keep a user's fraction as given).  aiter is the
    HIP default for every non-MLA model, and for MLA models with 16 or 128 KV heads per rank (else triton).  The step
    tests the backend in effect, ``attention_backend == "aiter"``, and nothing else (0.4.7 and 0.5.4
    ``ModelRunner.model_specific_adjustment``; 0.5.6, 0.5.9, 0.5.12.post1 and 0.5.13 ``ServerArgs.
    _handle_attention_backend_compatibility``, read by helper ab28, session 28): ``options.attention_backend``
    ``aiter`` gets the factor whatever the model (no MLA head or gpt-oss test), any other backend (``triton`` …)
    none, None the default above.  None otherwise.

    gpt-oss is the exception before 0.5.10: SGLang's model-specific adjustment, which runs before the HIP default is
    chosen, gives ``GptOssForCausalLM`` the triton backend on every non-CUDA platform when none is set
    (``ServerArgs.model_specific_adjustments`` in the 0.5.2 wheel, ``_handle_model_specific_adjustments`` in the
    0.5.4 and 0.5.6–0.5.9 wheels: trtllm_mha on SM100, fa3 on SM90, else triton), so no × 0.85; from 0.5.10
    (0.5.10, 0.5.11, 0.5.12 ``server_args.py``; 0.5.18 ``arg_groups/overrides.py _gpt_oss_overrides``; 0.5.23
    ``arg_groups/model_overrides/gpt_oss.py``) the same branch picks aiter on HIP and the factor applies.

    0.5.4.post1 is the one release with × 0.90: its ``ServerArgs._handle_attention_backend_compatibility`` ('AMD
    platforms backends') multiplies by 0.90, where 0.5.4 (``ModelRunner``) and 0.5.4.post2 / 0.5.4.post3 / 0.5.5
    (``ServerArgs``, where the step stays from 0.5.4.post1 on) multiply by 0.85 (the four wheels read, session 25); a version given without its post label
    folds into 0.5.4 and gets 0.85."""
    version = options.engine_version
    if not is_amd(gpu.vendor) or not at_least(version, "0.4.7") or options.attention_backend not in (None, "aiter"):
        return None
    if options.attention_backend is None and not _hip_default_is_aiter(model, parallel, version):
        return None
    context = context_len(model, options)
    if context <= 8192:
        return None
    release = release_key(version)
    where = "ServerArgs" if release >= (0, 5, 4, 1) else "ModelRunner"
    factor = 0.90 if release == (0, 5, 4, 1) else 0.85
    chosen = "ROCm default" if options.attention_backend is None else "--attention-backend aiter"
    return factor, (f"aiter attention ({chosen}) with context {context} > 8192: × {factor:.2f} "
                    f"(SGLang {version} {where})")


def _hip_default_is_aiter(model: ModelSpec, parallel: ParallelSpec, version: str) -> bool:
    """SGLang's HIP default backend is aiter (``rocm_aiter_factor``): not gpt-oss before 0.5.10, not an MLA model
    whose KV heads per rank (``get_num_kv_heads(tp)``) are other than 16 or 128."""
    if model.architecture in _TRITON_ON_HIP_ARCHS and not at_least(version, "0.5.10"):
        return False
    return model.mla is None or max(1, model.num_kv_heads // parallel.tp) in (16, 128)


def _times(choice: FractionChoice, factor: tuple[float, str] | None) -> FractionChoice:
    if factor is None:
        return choice
    value = choice.value * factor[0]
    return FractionChoice(value=value, reserved_mib=choice.reserved_mib,
                          source=f"{choice.source}, {factor[1]} = {value:.6f}")


def era_has_vlm_factor(era: str) -> bool:
    """``adjust_mem_fraction_for_vlm`` exists from 0.4.10 (none in 0.4.6 and earlier ``server_args.py``)."""
    return parse_version(era) >= (0, 4, 10)


def capacity_read_mib(gpu: GpuSpec, options: SglangOptions) -> tuple[float, str | None]:
    """(the GPU memory in MiB SGLang sizes its defaults by, why when it is not ``gpu``'s): the serving card's
    nvidia-smi total (else its CUDA total), or the host's smallest card with ``--host-gpus``
    (``defaults.host_capacity_mib``; a card of another vendor is refused: nvidia-smi and rocminfo list their own)."""
    own = gpu.nvidia_smi_total_mib or gpu.total_bytes.bytes / 2**20
    if options.host_gpus is None:
        return own, None
    from tpkit.engines.sglang.defaults import host_capacity_mib
    from tpkit.engines.sglang.options import host_gpu_specs

    hosts = host_gpu_specs(options.host_gpus)
    other = [h.name for h in hosts if h.vendor != gpu.vendor]
    if other:
        raise PlanInputError(f"--host-gpus names {', '.join(other)}, not {gpu.vendor} like the serving GPU "
                             f"{gpu.name}: SGLang's capacity query (nvidia-smi, or rocminfo on AMD) lists its own "
                             "vendor's cards only; name the host's cards of that vendor")
    return host_capacity_mib(own, tuple(h.nvidia_smi_total_mib or h.total_bytes.bytes / 2**20 for h in hosts),
                             options.engine_version)


def host_sourced(cap: CapacityDefaults, fraction: FractionChoice, host_source: str | None,
                 options: SglangOptions) -> tuple[CapacityDefaults, FractionChoice]:
    """The capacity defaults and the default fraction with the words that say which card set their class and why
    (``capacity_read_mib``'s; a user's --mem-fraction-static keeps its own source); unchanged without one."""
    if host_source is None:
        return cap, fraction
    from dataclasses import replace

    cap = replace(cap, source=f"{cap.source} ({host_source})")
    if options.mem_fraction_static is None:
        fraction = replace(fraction, source=f"{fraction.source}; {host_source}")
    return cap, fraction
