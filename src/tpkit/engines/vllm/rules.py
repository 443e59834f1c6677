"""What a vLLM release's memory and logging rules are made of: ``VllmRules``, one field per rule, each with what it
decides and the release range of each value.  The values per release, the first release of every rule and the
sources they were read from are in ``versions.py`` (``rules_for`` / ``resolve_rules``); the "versions table" below
is that module's docstring.
"""

from __future__ import annotations

from tpkit.records import dataclass

__all__ = ["VllmRules"]


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmRules:
    """The memory and logging rules of one vLLM release."""

    release: tuple[int, int, int]
    """the release these rules are for (major, minor, patch)"""
    era: str
    """log-wording family: ``"v0"``, ``"0.11"`` (V1 before 0.21) or ``"0.33"`` (0.21 on)"""
    engine: str
    """``"V0"`` or ``"V1"``"""
    default_utilization: float
    """``--gpu-memory-utilization`` default (fraction of the device total)"""
    ceil_requested: bool
    """requested = ceil(total × util) (True) or the float product (False)"""
    memory_rule: str
    """``"v0_peak"`` (V0, and V1 < 0.9.1) | ``"increase"`` | ``"consumed"`` (``vllm/utils/mem_utils.py
    memory_profiling``)"""
    cudagraph_estimate: bool
    """the CUDA-graph memory estimate is subtracted before KV sizing (``gpu_worker.py determine_available_memory``)"""
    cudagraph_estimate_rocm: bool = False
    """… on ROCm too (``gpu_worker.py determine_available_memory``: ``not current_platform.is_rocm()`` in 0.20.0,
    ``current_platform.is_cuda()`` in 0.23.0, 0.24.0 and 0.25.0 ("Skip on ROCm/HIP/XPU"); ``is_cuda_alike()`` from
    0.26.0 ("ROCm is included: #44825"), read in the 0.26.0, 0.27.1, 0.29.0, 0.30.0, 0.31.0 and 0.33.0 wheels; helper
    v620)"""
    null_block: bool
    """one block is reserved as the null block (``vllm/v1/core/block_pool.py BlockPool``)"""
    one_line_log: bool
    """"GPU KV cache size … , Maximum concurrency …" printed as one line"""
    capacity_per_worker: bool
    """every worker prints its own "GPU KV cache size" / "Maximum concurrency" line, computed from its own
    available memory, before the engine gives every worker the smallest block count (0.8.2–0.11.0); the pool is
    the smallest of those lines, and an excerpt's one line may be any worker's"""
    tokens_rule: str
    """``"blocks"`` (V0: blocks × block) | ``"groups"`` (V1 < 0.21) | ``"concurrency"`` (≥ 0.21),
``kv_cache_utils.py get_max_concurrency_for_kv_cache_config``"""
    fit_check_reserves_block: bool
    """the max_model_len fit check uses available − one block (``kv_cache_planning.py get_kv_cache_configs``)"""
    sliding_in_flight: bool
    """sliding/chunked-local need counts max_concurrent_batches × max_num_batched_tokens (≥ 0.26) or one batch"""
    sliding_kernel_block: bool = False
    """sliding-window attention layers start from the attention backend's smallest kernel block (16 on the CUDA
    backends: TRITON_ATTN / FLASH_ATTN ``MultipleOf(16)``, FlashInfer ``[16, 32, 64]``) instead of ``--block-size``
    (≥ 0.25, ``Attention.get_kv_cache_spec`` → ``_largest_kernel_block_within`` with no padded page); the full
    layers keep ``--block-size`` and ``unify_kv_cache_spec_page_size`` then grows the smaller page's block size.
    Before 0.25 every attention layer starts from ``--block-size``"""
    default_block_size: int = 16
    """``CacheConfig.DEFAULT_BLOCK_SIZE`` (``config/cache.py``): 16 tokens up to 0.33.0, 64 from 0.34.0.  From 0.18
    ``platforms/interface.py update_block_size_for_backend`` keeps it when the backend takes it
    (``v1/attention/backend.py get_preferred_block_size``), else the backend's smallest size; FLASH_ATTN /
    TRITON_ATTN / FLASH_ATTN_MLA / TRITON_MLA take multiples of 16, FLASHMLA 64 only, FLASHINFER_MLA 32 or 64,
    CUTLASS_MLA 128 only (vllm 0.34.0 wheel, ``v1/attention/backends``; ``engines.vllm.blocksize``)"""
    sliding_primary_block: bool = False
    """sliding-window layers start from the primary ``--block-size`` (the largest kernel block that divides it:
    ``model_executor/layers/attention/attention.py Attention.get_kv_cache_spec`` → ``_largest_kernel_block_within``
    with ``divisor_of``, vllm 0.34.0 wheel) instead of ``SLIDING_KERNEL_BLOCK`` (16).  The 0.33.0 wheel already
    starts from the primary block without ``divisor_of``; with its default block of 16 the two agree, so tpkit keys
    the rule on 0.34.0, where the default became 64 (a ``--block-size`` other than 16 on 0.30–0.33 is not
    re-modelled; 0.29.0 takes the smallest kernel block)"""
    hybrid_align_to_block: bool = False
    """attention+mamba hybrids grow the attention block in steps of max(the backend's smallest kernel block,
    ``--block-size``) (``platforms/interface.py _align_hybrid_block_size``: ``kernel_block_alignment_size``; MLA
    at least 128), so from 0.34.0, whose default block is 64, in steps of 64.  The 0.33.0 wheel has the same max;
    with its default of 16 it is tpkit's fixed 16 (``pages.HYBRID_ALIGN``), a ``--block-size`` above 16 on ≤ 0.33 is
    not re-modelled"""
    sm100_wide_graphs: bool = False
    """on SM 10.x with no capture sizes given, CUDA graphs come from two grids: prefill token counts up to
    min(8192, max_num_batched_tokens) (PIECEWISE) and decode request counts up to max_num_seqs (FULL), 54 + 64
    graphs at 8192 / 1024, where 0.33 captures the one ladder up to 1024 tokens (83 + 83) (vLLM 0.34.0
    ``config/vllm.py _split_cudagraph_capture_sizes``, ``config/compilation.py`` the grids;
    ``graph_grids.wide_capture_sizes``).  Elsewhere both kinds default to the shared ladder, as in 0.33"""
    v1_runner: bool = True
    """the V1 model runner exists (``v1/worker/gpu_model_runner.py``): up to 0.33.0.  The 0.34.0 wheel has no such
    file; ``v1/worker/gpu_worker.py Worker._make_model_runner`` always builds Model Runner V2
    (``v1/worker/gpu/model_runner.py``), ``envs.py`` no longer reads ``VLLM_USE_V2_MODEL_RUNNER`` and
    ``config/vllm.py`` has no fall-back to V1 (``_get_model_runner_unsupported_features`` refuses instead)"""
    extensible_kv_cache: bool = False
    """the extensible KV cache is on by default on CUDA and ROCm (vLLM 0.34.0: ``config/vllm.py
    _resolve_extensible_kv_cache``; off with ``--no-enable-extensible-kv-cache``, ``--kv-cache-memory-bytes`` or
    ``--num-gpu-blocks-override``).  Then ``gpu_memory_utilization`` defaults to 1.0 (``config/cache.py
    resolved_gpu_memory_utilization``), the start-up check "Free memory on device … less than desired" is skipped
    (``v1/worker/utils.py request_memory``), the profile subtracts no CUDA-graph estimate (``v1/worker/gpu/
    model_runner.py profile_cudagraph_memory`` returns 0) and the KV cache is sized after warm-up and graph capture
    from the measured free memory (``v1/worker/extensible_kv_cache.py measure_kv_cache_bytes``: min(requested −
    memory used since the init snapshot, free + committed − margin) − the transient peak, margin = max(1 GiB
    (3 GiB on ROCm), 0.75 × the transient peak); ``engines.vllm.budget``)"""
    custom_ar_buffer_mib: int
    """eager staging buffer of vLLM's custom all-reduce when max_size is 8 MiB, MiB (``custom_all_reduce.py
    CustomAllreduce.__init__``); ≥ 0.27 it is max(max_size, 2 MiB, 16 MiB), before it is max_size"""
    custom_ar_signal_bytes: int
    """sizeof(Signal) of the custom all-reduce meta buffer (``csrc/custom_all_reduce.cuh`` ``struct Signal``)"""
    custom_ar_world_sizes: tuple[int, ...]
    """world sizes where custom all-reduce initialises (``custom_all_reduce.py CustomAllreduce.__init__``)"""
    v0_context_outside: bool = False
    """V0 way (``memory_rule == "v0_peak"``): the CUDA context and other processes' memory sit outside the
    memory charged to the budget (V0 0.3.1–0.6.3 and ≥ 0.6.5); False: charged (V0 ≤ 0.3.0 and 0.6.4, V1
    0.8.0–0.9.0)"""
    v0_torch_peak_only: bool = False
    """V0 0.2.0–0.2.4: the budget is total × util − torch's peak allocation; the CUDA context, NCCL and other
    processes are charged nothing (they take memory from the (1 − util) margin); False elsewhere"""
    v0_allreduce_held: bool = False
    """V0 0.2.5: with tp > 1 the profile's all-reduced activations stay reserved (recorded on the NCCL stream,
    TORCH_NCCL_AVOID_RECORD_STREAMS not yet set) and total − free charges them (``versions`` module docstring)"""
    v0_allreduce_out_of_place: bool = False
    """V0 ≥ 0.6.5: every tensor-parallel all-reduce returns a new tensor (parallel_state.py
    ``_all_reduce_out_place``, pynccl.py ``all_reduce``: ``torch.empty_like``; 0.6.4 reduces the NCCL path in place),
    so with tp > 1 the profile's attention peak and the MLP's ``down_proj`` moment hold one more T × H tensor
    (``profile`` module docstring, ``engines/vllm/v0_forward.py``)"""
    distributed_after_snapshot: bool = False
    """V1: NCCL communicators and custom all-reduce buffers are created after the init snapshot (< 0.11.0)"""
    cublas_after_snapshot: bool = False
    """V1: cuBLAS/cuBLASLt handles are first created by the profile run, after the init snapshot (< 0.33)"""
    torch_symm_mem_allreduce: bool = False
    """``VLLM_ALLREDUCE_USE_SYMM_MEM`` defaults to on: a torch symmetric-memory buffer on the TP group and, with
    multicast, custom all-reduce's max_size capped by ``CUSTOM_ALL_REDUCE_MAX_SIZES`` (≥ 0.11)"""
    mnnvl_lamport: bool = False
    """custom all-reduce keeps a 6 × 16 MiB Lamport buffer when symm-mem rendezvous gives multicast (≥ 0.27)"""
    mla_preferred_block: bool = False
    """MLA block = the backend's preferred size, user sizes the kernel accepts kept (≥ 0.18); else forced"""
    chunked_local_hybrid: bool = False
    """chunked-local (Llama-4) layers keep their own KV group (≥ 0.14); before, the hybrid manager is off and
    every layer is full attention"""
    mamba_blocks_check: bool = False
    """start-up stops when ``max_num_seqs`` exceeds the KV pool's blocks of a model with mamba-family (GDN, Mamba,
    short-conv) layers and FULL decode CUDA graphs (≥ 0.20): ``config/compilation.py CompilationConfig.
    resolve_cudagraph_mode_and_sizes`` raises once the real KV config is known, each decode sequence holding one
    mamba state block (vLLM issue #34094; in the 0.20.0–0.33.0 wheels, not in 0.19.0, which capped the capture
    sizes instead: ``adjust_cudagraph_sizes_for_mamba_cache``).  Helper hyb11 (2026-12-05)"""
    hybrid_prefix_caching: bool = False
    """prefix caching is on by default for attention+mamba hybrids, so mamba groups run "align" (or "all")
    mode (≥ 0.28)"""
    mamba_all_mode: bool = False
    """the "all" mamba prefix-caching mode exists (0.15–0.31) for the mamba-family architectures"""
    mamba_all_mode_spec: bool = False
    """the "all" mode need counts speculative blocks (0.26–0.31)"""
    checkpoint_kinds: tuple[str, ...] = ()
    """mamba layer families that add one prefill-checkpoint block in align mode (``mamba2`` ≥ 0.32, ``gdn`` 0.33)"""
    v2_runner_default: bool = False
    """Model Runner V2 is the default on CUDA for every model (≥ 0.29); 0.26–0.28 only for non-hybrid dense
    models (``_is_default_v2_model_runner_model``)"""
    load_max_split_mib: int | None = None
    """``max_split_size_mb`` of torch's caching allocator while the weights load on CUDA, None: torch's default
    (no limit).  From 0.21.0 ``v1/worker/gpu_worker.py Worker.load_model`` wraps ``model_runner.load_model`` in
    ``_scoped_allocator_max_split(max_split_size_mb=20)`` ("20 MiB is the minimum PyTorch allows"; read in the
    0.21.0 … 0.31.0 and 0.33.0 wheels; absent from 0.20.0, where the limit stays torch's SIZE_MAX).  c10's
    ``should_split`` then never splits a block for a request of ≥ 20 MiB, so every such weight tensor is counted
    with its whole 2 MiB-rounded segment, not only those leaving ≤ 1 MiB (``engines.vllm.weight_blocks``).  The
    0.21.0–0.30.0 wheels skip it off CUDA (``is_cuda()``); 0.31.0 and 0.33.0 apply it on ROCm too
    (``is_cuda_alike()``)"""
    load_max_split_rocm: bool = False
    """``load_max_split_mib`` also holds on ROCm (≥ 0.31.0: ``is_cuda_alike()``, 0.31.0 and 0.33.0 wheels)"""
    weights_log: str = "format_gib"
    """"Model loading took" wording: ``"0.11"`` (%.4f GiB and), ``"0.12"`` (%.4f GiB memory and),
    ``"format_gib"`` (≥ 0.14), ``"v0"``"""
    dcp: bool = False
    """``--decode-context-parallel-size`` exists (≥ 0.10.2)"""
    huge_gpu_batch: bool = False
    """devices of ≥ 160 GiB (B200, MI300X; not GB10) default to 16384 batched tokens on the API server (≥ 0.28);
    before, 8192 like every ≥ 70 GiB device other than A100"""
    flashinfer_sampler: str = "no"
    """top-k/top-p sampler of the profile's dummy sampler run on CUDA (v1/sample/ops/topk_topp_sampler.py
    TopKTopPSampler.__init__): ``"no"`` PyTorch-native (0.7.x; 0.11.1–0.20:
    opt-in only, "Users must opt in explicitly via VLLM_USE_FLASHINFER_SAMPLER=1", read in the 0.11.1, 0.11.2 and
    0.12.0 wheels); ``"if_installed"`` FlashInfer when flashinfer-python is installed (0.8.0–0.11.0; 0.9.0–0.11.0:
    not a requirement of the wheel — absent from 0.10.0's METADATA, only the "flashinfer" extra in 0.10.2 / 0.11.0 — so
    a plain ``pip install vllm`` samples natively, while the official image installs FlashInfer in its vllm-base
    stage, docker/Dockerfile ``FLASHINFER_WHEEL``, x86_64 only); 0.8.0–0.8.x too (0.8.2 and 0.8.5
    wheels; helper lora12): FlashInfer when a flashinfer-python below 0.2.3 is installed, as the 0.8-era image's
    0.2.1.post2 (0.2.3+ falls back to native with a log line), 14 B per logit like 0.9.0's (helper near11);
    ``"yes"`` FlashInfer by default (≥ 0.21:
    VLLM_USE_FLASHINFER_SAMPLER defaults to True and flashinfer-python is a requirement) on the compute
    capabilities FlashInferBackend supports.  A log's topk_topp_sampler line overrides it
    (``VllmOptions.topk_topp_sampler``)"""
    v1_native_sampler_warmup: bool = False
    """the V1 runner's ``_dummy_sampler_run`` calls the sampler a second time with a seeded ``torch.Generator``
    ("Also warm forward_native", v1/worker/gpu_model_runner.py, 0.21.0–0.33.0 wheels; one call in 0.20.0), which
    ``TopKTopPSampler.forward_cuda`` sends to ``forward_native`` whatever the sampler (FlashInfer takes no per-request
    generators): the profile peak is then the PyTorch-native path's (Triton kernel from 8 rows, the sort below),
    which holds at least what the FlashInfer pass does.  Skipped only with ``--logprobs-mode processed_*``, where
    FlashInfer is not used either"""
    dummy_rejection: str = "none"
    """the form of the dummy rejection-sampler run the V1 runner's ``_dummy_sampler_run`` adds under a speculative
    config (``sampler.REJECTION_FORMS``; its bytes in ``sampler.rejection_bytes_per_logit``): ``"none"`` (none
    charged: 0.10.1–0.11.0 sample ``randn(R, V)`` target logits in the activation dtype through ``compute_probs``,
    whose sort on those 2-byte logits stays under the native sampler's own float32 peak), ``"raw_clone"``
    (0.11.1–0.11.x: ``randn(R + R, V)``, a bonus sampler call whose raw-logits copy is a ``.clone()`` in the logits'
    dtype, float32 target rows, the full sort), ``"raw_fp32"`` (0.12.0–0.13.x: that copy in float32),
    ``"target_clone"`` (0.14.0–0.16.x: + the target rows' ``.clone()``), ``"inv_q"`` (≥ 0.17.0: +
    ``sample_recovered_tokens``'s ``inv_q = q.reciprocal()``; top-k/top-p in place by the Triton kernel from 8
    rows).  Read in the 0.10.1, 0.11.0, 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.0, 0.16.0, 0.17.0, 0.18.0, 0.19.0,
    0.20.0, 0.21.0, 0.24.0, 0.29.0 and 0.33.0 wheels (``v1/worker/gpu_model_runner.py _dummy_sampler_run``,
    ``v1/sample/rejection_sampler.py``, ``v1/sample/sampler.py Sampler.forward``; helper rs30)"""
    triton_topk_topp: bool = False
    """the PyTorch-native top-k/top-p path runs vLLM's Triton kernel on ≥ 8 rows (``apply_top_k_top_p`` →
    ``apply_top_k_top_p_triton``, in place on the float32 logits with a cached per-program buffer; new in 0.17.0,
    read in 0.17.0, 0.18.0, 0.19.0, 0.20.0, 0.21.0, 0.24.0, 0.29.0) instead of the full sort (0.16.0 and before)"""
    v1_batch_defaults: str = "memory_not_a100"
    """which devices get V1's large batch defaults (engine/arg_utils.py ``_set_default_args_v1``; versions table):
    ``"name_tokens"`` (0.7.x V1, 0.8.0–0.8.3: batched tokens 8192 API / 16384 LLM class when "h100" or "h200" is in
    the device name, else 2048 / 8192; max_num_seqs 1024 on every device), ``"name"`` (0.8.4: both by name, 1024 /
    256 seqs), ``"memory"`` (0.8.5: device memory ≥ 70 GiB), ``"memory_not_a100"`` (≥ 0.9.0: ≥ 70 GiB and not an
    A100)"""
    v2_dummy_sampler: str = "fp32_copy"
    """what Model Runner V2's profile sampler run holds (``v1/worker/gpu/model_runner.py _dummy_sampler_run`` →
    ``sample/sampler.py Sampler``; versions table): its dummy batch has the default states (temperature 0, top-k =
    vocab, top-p 1, no penalties or logprobs), so no top-k/top-p runs.  ``"fp32_copy"`` (0.18–0.25:
    ``apply_sampling_params`` always copies the logits to a new float32 tensor), ``"greedy"`` (0.26: in place;
    0.27.1: ``_requires_logits_processing``, 0.28–0.32: ``needs_logits_processing`` is False, the logits are
    sampled as computed), ``"warmup_params"``
    (≥ 0.33: a second pass with ``SamplingParams.for_sampler_warmup()`` — float32 copy, top-k 50 / top-p 0.9
    through FlashInfer where supported, logprobs — which costs what V1's top-k/top-p estimate charges)"""
    v2_vocab_hidden_peak: bool = False
    """Model Runner V2's profile peak holds a cold torch.compile's scratch of one vocabulary × hidden tensor
    (0.22–0.32; ``profile`` module docstring "cold compile scratch"): the mechanism from vLLM issue #54122 (compile
    inside the profile window; no peak reset in the 0.26.0–0.33.0 wheels), the size EVIDENCE from printed first-start
    peaks of 0.27.1 / 0.28.0 V2 runs and 0.29.0 V1 runs (``profile.V2_VOCAB_HIDDEN_EVIDENCE``: the V1 probes
    vl_290 / vl_291 added by helper gpt20); 0.33 prints no split that shows it.  From 0.22, not 0.26 (helper mv26,
    2026-12-05): the 0.22.0 and 0.23.0 wheels' V2 ``profile_run`` calls the compiled model as 0.26+ does
    (``v1/worker/gpu/model_runner.py`` ``_dummy_run`` → ``execute_model`` → ``self.model(**model_inputs)``; torch
    2.11 pinned, so the AOT compile of ``v1_vocab_hidden_peak`` runs in the same window); vp_533 (0.23.0 V2, a first
    start) is the run that shows it"""
    v1_vocab_hidden_peak: bool = False
    """the V1 model runner's profile peak holds the same cold torch.compile scratch (0.11.1–0.32; below): from 0.17.0 vLLM pins
    torch 2.10 (wheel METADATA ``Requires-Dist: torch==2.10.0``; 0.19.0 2.10.0, 0.20.0–0.25.1 2.11.0, 0.27.0–0.28.0
    2.13.0), so ``envs.use_aot_compile`` defaults to 1 and a first start compiles and saves the AOT artifact inside
    the profile window ("saved AOT compiled function", ``compilation/decorators.py``); ``gpu_worker.py
    determine_available_memory`` profiles ``profile_run`` inside ``memory_profiling`` with no peak reset after the
    compile (0.23.0 wheel).  Evidence: vl_330 / vl_331 (0.23.0, V1, Qwen2.5-Coder-7B on an RTX 4090, the same
    command cold then warm): 0.78 GiB less KV memory cold, the scratch 1.015 GiB over a 0.26 GiB warm peak gives
    0.76.  Off from 0.33 with the V2 rule (``v2_vocab_hidden_peak``).
    Helper v11b (2026-12-05): from 0.11.1, not 0.17, and the mechanism.  0.11.1 is the first release pinning torch
    2.9 (METADATA: 0.11.0 ``torch==2.8.0``, 0.11.1 / 0.12.0 ``2.9.0``, 0.14.0 / 0.16.0 ``2.9.1``), and from it
    ``CompilationConfig.__post_init__`` (``config/compilation.py``, 0.11.1–0.33.0 wheels; absent in 0.11.0) sets
    Inductor's ``combo_kernels`` and ``benchmark_combo_kernel`` for torch ≥ 2.9.  A cold compile then benchmarks each
    combo-kernel candidate (torch ``_inductor/scheduler.py`` ``speedup_by_combo_kernel`` → ``benchmark_fused_nodes`` /
    ``benchmark_combo_kernel``), and the generated benchmark module's ``get_args()`` allocates a random tensor for
    every buffer the kernels read (``codegen/triton.py`` ``benchmark_combo_kernel``: ``args = mod.get_args()``),
    the embedding table (V/tp × H, the compiled graph's largest Triton-kernel input: the linear layers' weights go to
    the extern GEMMs) included: the V × H × a scratch.  Hence also no scratch where the compiled model takes
    ``inputs_embeds`` (``profile_lines.embeds_input``).  Evidence: vp_036 (0.11.0, Llama-3.1-8B on an L4, a cold
    compile: "Compiling a graph for dynamic shape takes 24.19 s") is −1.6 % without it and −9.6 % with it; vp_301
    (0.11.1, Qwen3-8B-NVFP4, a cold compile whose printed inductor config shows ``combo_kernels: True,
    benchmark_combo_kernel: True``) goes +13.2 → −1.5 %, vp_620 (0.15.1) +12.5 → +7.2 %"""
    pinned_profile_scratch: bool = False
    """a cold compile's freed scratch block can stay pinned past the profile (0.27.0–0.30.x): from 0.27.0
    ``utils/mem_utils.py memory_profiling`` charges ``total_consumed`` (the free-memory drop since the init snapshot,
    so a reserved but unused segment counts) plus ``torch_peak − torch_allocated``, and ``gpu_worker.py
    determine_available_memory`` runs ``profile_run`` with no allocator split limit (0.27.1–0.30.0 wheels: only
    ``load_model`` is wrapped in ``_scoped_allocator_max_split(20)``).  A later large allocation that outlives the
    profile is carved out of the freed block and keeps its whole segment reserved, so the scratch is charged twice:
    in the transient peak and in "consumed".  0.31.0 wraps ``profile_run`` in the same 20 MiB split limit, with a
    comment naming exactly this (a small allocation carved out of a freed multi-GiB block pins the segment past
    ``empty_cache()``, "counted as consumed and taken from the KV cache").  Which block a later allocation lands in
    depends on allocation order, so tpkit charges it only where it found one: ``profile_lines.pinned_scratch_lines``"""
    dummy_sampler: bool = True
    """V1's profile run ends with ``_dummy_sampler_run`` (≥ 0.8.0); the 0.7.x V1 runner computes logits and no
    sampler (v1/worker/gpu_model_runner.py profile_run, vllm 0.7.1–0.7.3 wheels)"""
    profile_logits_all_tokens: bool = False
    """0.7.0–0.7.2 V1: the profile's logits are computed on all max_num_batched_tokens rows (``compute_logits
    (hidden_states)``, vllm 0.7.1 and 0.7.2 wheels); from 0.7.3 on the last token of each of the max_num_seqs
    dummy requests (``hidden_states[logit_indices]``)"""
    gemma4: bool = False
    """Gemma 4 (``Gemma4ForConditionalGeneration`` / ``Gemma4ForCausalLM``) is served (≥ 0.19.0,
    ``model_executor/models/gemma4.py``; absent from the 0.18.0 wheel)"""
    mm_prefix_batch_floor: bool = False
    """a multimodal prefix-LM model (Gemma 4 with ``use_bidirectional_attention: "vision"``) gets a default
    max_num_batched_tokens of at least its largest per-item multimodal token count (≥ 0.22.0,
    ``engine/arg_utils.py`` ``_get_min_mm_batched_tokens``, "Raising max_num_batched_tokens from …"; absent from
    the 0.21.0 wheel)"""
    moe_unchunked_workspace: bool = False
    """the fused-MoE call runs through the modular kernel on all M tokens at once and takes its workspaces from the
    ``WorkspaceManager`` (``FusedMoEModularKernel._allocate_buffers(…, M_full, M_full, …)`` →
    ``current_workspace_manager().get_simultaneous``; ``TritonExperts.workspace_shapes``: (M, k, max(N_act, H)) and
    (M, k, max(2N, H)) of the activation dtype): 0.18.0–0.33.0 wheels; 0.15.0–0.17.0 pass ``CHUNK_SIZE`` as
    M_chunk (``profile._moe``)"""
    moe_cache3_separate: bool = False
    """``fused_experts_impl`` allocates the second GEMM's output ``intermediate_cache3`` (M, k, H) as a buffer of its
    own beside ``intermediate_cache1`` (M, k, 2N) and ``intermediate_cache2`` (M·k, N), so the three are alive
    together: releases before 0.8.0 (``model_executor/layers/fused_moe/fused_moe.py``, read in the 0.4.1, 0.5.5,
    0.6.3 and 0.7.0–0.7.3 wheels; the V0 and V1 engines share the file).  From 0.8.0 (0.8.0, 0.8.3, 0.8.4,
    0.9.0–0.10.0 wheels) cache1 and cache3 are views of one ``cache13`` buffer of M·k·max(2N, H) elements
    (``profile._moe``)"""
    moe_shared_output_held: bool = False
    """a MoE block with shared experts runs them before the routed experts and keeps their (T, H) output until the
    sum, so it is alive through the whole fused-MoE call: releases before 0.11.0 (``DeepseekV2MoE.forward``,
    ``Qwen2MoeSparseMoeBlock.forward`` in the 0.7.3 wheel; those two, ``Llama4MoE.forward`` and
    ``Glm4MoE.forward`` in 0.10.0).  0.11 moves shared experts into ``SharedFusedMoE`` (optionally overlapped
    inside the fused call), not re-read here, so later releases keep the routed buffers alone (``profile._moe``)"""
    yarn_prescaled: bool = False
    """YaRN configs' max_position_embeddings is taken as already scaled (≥ 0.30: "yarn", "deepseek_yarn" join
    the types whose factor is not applied); before, the derived length is original_max_position_embeddings ×
    factor (config.py / config/model.py _get_and_verify_max_len)"""
    dcp_log: str | None = None
    """the extra DCP line before 0.21: ``"dcp"`` (0.10.2–0.11) or ``"cp"`` (0.12–0.20)"""
    page_unify: str = "pad"
    """layers whose KV pages differ (``unify_kv_cache_spec_page_size``; versions table): ``"none"`` (V1 < 0.12:
    vLLM raises a bare NotImplementedError unless the pages are equal or every layer is one attention type,
    ``get_kv_cache_config`` 0.10.2 / ``get_kv_cache_groups`` 0.11.x), ``"grow"`` (0.12–0.21: a smaller page
    grows its block size when it divides the largest, else NotImplementedError), ``"pad"`` (from a release in
    0.22–0.27.1: mamba pages and non-dividing non-MLA attention pages are padded to the largest)"""
    gptq_explicit_exllama: bool = True
    """``--quantization gptq`` on a GPTQ checkpoint runs the exllama ``gptq_gemm`` kernel (``GPTQConfig``, its
    per-call dequantised weight charged by ``profile_lines.uses_gptq_kernel``): up to 0.21 (0.21.0 wheel:
    ``GPTQMarlinConfig.override_quantization_method`` returns None for an explicit ``gptq``, "forcing gptq");
    from 0.22.0 ``gptq`` / ``gptq_marlin`` / ``auto_gptq`` all map to ``AutoGPTQConfig``, whose
    ``override_quantization_method`` (first in config/model.py's override list) takes any quant_method "gptq"
    checkpoint asked for as ``gptq``, and whose linear method is the mixed-precision kernel chosen by
    ``choose_mp_linear_kernel`` after ``verify_marlin_supported`` (Machete/Marlin on CUDA; no per-call dequantised
    copy) — read in the 0.22.0, 0.29.0 and 0.33.0 wheels (model_executor/layers/quantization/auto_gptq.py,
    __init__.py get_quantization_config)"""
    ssm_dtype_from_config: tuple[str, ...] = ()
    """architectures whose HF ``mamba_ssm_dtype`` becomes ``cache_config.mamba_ssm_cache_dtype`` when that is
    "auto" (``model_executor/models/config.py Qwen3_5ForConditionalGenerationConfig.verify_and_update_config``:
    the Qwen3.5 multimodal wrappers from 0.17.0, the text-only ``Qwen3_5(Moe)ForCausalLM`` from 0.27.0); every
    other model keeps the temporal state in the conv dtype (``mamba_utils.py _mamba_state_dtype``)"""
    nemotron_h_ssm_default: str | None = None
    """NemotronH's temporal (SSM) state dtype when ``--mamba-ssm-cache-dtype`` is "auto" and the config writes no
    ``mamba_ssm_cache_dtype``: ``model_executor/models/config.py NemotronHForCausalLMConfig`` (0.13.0–0.19.0
    wheels: ``getattr(hf_config, "mamba_ssm_cache_dtype", "float16")``; 0.20.0–0.33.0:
    ``DEFAULT_MAMBA_SSM_CACHE_DTYPE = "float32"``); None before 0.13.0 (no such class: the conv dtype)"""

    @property
    def label(self) -> str:
        """``"0.33.0"``-style release text."""
        return ".".join(str(p) for p in self.release)
