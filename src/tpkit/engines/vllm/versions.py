"""vLLM releases whose memory rules tpkit models, as data: one ``VllmRules`` per release (the record, and what each
of its fields decides, in ``rules.py``).

Every rule has the first release that has it (read in every minor wheel 0.9.2 … 0.34.0; "first release"
means first *released* version, the commit inside the interval before it is not known):

    rule                                            release      source (vllm/…)
    V1 budget with the init snapshot ("increase"    0.9.1        v1/worker/gpu_worker.py determine_available_memory
      rule)
    init snapshot after the distributed init        0.11.0       v1/worker/gpu_worker.py init_device
    torch symm-mem all-reduce on by default         0.11.0       envs.py VLLM_ALLREDUCE_USE_SYMM_MEM
    DCP "Multiplying the GPU KV cache size by the   0.12.0       v1/core/kv_cache_utils.py (0.10.2–0.11: dcp_world_size)
      cp_world…"
    "Model loading took %.4f GiB memory and"        0.12.0       v1/worker/gpu_model_runner.py load_model
      (0.11: "GiB and")
    requested = ceil(total × util); sizes via       0.14.0       v1/worker/utils.py request_memory; utils/mem_utils.py
      format_gib
    chunked-local layers keep the hybrid manager    0.14.0       envs.py
                                                                 VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE "1"
    dummy rejection-sampler run under a spec        0.11.1       v1/worker/gpu_model_runner.py _dummy_sampler_run;
      config: R + R rows (0.11.1), float32 bonus    0.12.0       v1/sample/rejection_sampler.py forward,
      raw copy (0.12), target clone (0.14),         0.14.0       sample_recovered_tokens; v1/sample/sampler.py
      inv_q (0.17)                                  0.17.0       (dummy_rejection; helper rs30)
    MLA block = the backend's preferred size        0.18.0       platforms/interface.py update_block_size_for_backend
    Gemma 4 served (per-kind head dims, shared-KV   0.19.0       model_executor/models/gemma4.py (none in 0.18.0)
      layers)
    default gpu_memory_utilization 0.92;            0.20.0       config/cache.py; envs.py
      CUDA-graph estimate                                        VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS "1"
    start-up stops when max_num_seqs exceeds the    0.20.0       config/compilation.py resolve_cudagraph_mode_and_sizes
      blocks of a mamba-family hybrid with FULL                  (0.19.0 caps the capture sizes instead; helper hyb11)
      decode graphs
    … on ROCm too (0.20–0.25 skip it there)         0.26.0       v1/worker/gpu_worker.py determine_available_memory
                                                                 (is_cuda() → is_cuda_alike(), #44825; helper v620)
    printed tokens = int(concurrency ×              0.20.1       v1/core/kv_cache_utils.py _report_kv_cache_config
      max_model_len) (a patch-release backport:                  (0.20.1, 0.20.2 and 0.21.0 identical; read by helper
      0.20.0 prints num_blocks // groups × block;                mv1)
      0.20.1 and 0.20.2 print 0.21.0's figure)
    weights load under max_split_size_mb 20: a      0.21.0       v1/worker/gpu_worker.py Worker.load_model
      weight tensor of ≥ 20 MiB keeps its whole    0.21.0 CUDA, _scoped_allocator_max_split (absent in 0.20.0;
      2 MiB-rounded segment (weight_blocks)         0.31.0 ROCm  is_cuda() to 0.30.0, is_cuda_alike() in the
                                                                 0.31.0 / 0.33.0 wheels)
    mm prefix-LM (Gemma 4): default batched tokens  0.22.0       engine/arg_utils.py _get_min_mm_batched_tokens
      ≥ the largest per-item multimodal token
      count
    sliding-window layers take the backend's        0.25.0       model_executor/layers/attention/attention.py
      smallest kernel block (16 on the CUDA                      Attention.get_kv_cache_spec ("SW chooses its own
      backends), not --block-size; the pages are                 block_size, decoupled from the user's --block-size";
      then unified (a smaller page grows its                     absent from 0.18.0–0.24.0, the same in 0.25.0–0.33.0;
      block size)                                                read by helper mv7)
    SWA in-flight = max_concurrent_batches × T      0.26.0       v1/kv_cache_interface.py SlidingWindowSpec;
                                                                 config/vllm.py
    non-KV = total consumed + transient peak        0.27.0       utils/mem_utils.py memory_profiling
      ("consumed")
    … a cold compile's freed scratch block pinned   0.27.0–      v1/worker/gpu_worker.py determine_available_memory
      by a later large allocation counts again      0.30.x       (0.31.0 wraps profile_run in
      (V1 runner, Triton top-k/top-p buffer)                     _scoped_allocator_max_split(20));
                                                                 pinned_profile_scratch
    custom AR staging 16 MiB, ws 16, MNNVL Lamport  0.27.0       distributed/device_communicators/custom_all_reduce.py
      buffer
    one "GPU KV cache size …, Maximum concurrency   0.28.0       v1/core/kv_cache_utils.py
      …" line
    each worker prints its own "GPU KV cache size"  0.8.2        v1/executor/abstract.py determine_available_memory (a
      line, from its own available memory, before                list, 0.8.1: min(output)); v1/engine/core.py
      the smallest is taken for every worker (the                _initialize_kv_caches (get_kv_cache_config per worker,
      pool)                                                      then unify_kv_cache_configs / the min in
                                                                 get_kv_cache_configs)
    … one line, printed after the smallest is       0.11.1       v1/core/kv_cache_utils.py get_kv_cache_configs →
      taken                                                      _report_kv_cache_config (0.11.0: inside
                                                                 get_kv_cache_config_from_groups, per worker)
    layers whose KV pages differ (a drafter's next  0.12.0       v1/core/kv_cache_utils.py unify_kv_cache_spec_page_size
      to the target's): smaller pages grow their                 (NotImplementedError "…Cannot unify by adjusting
      block size when they divide the largest,                   block_size." otherwise; a mamba page cannot grow);
      else vLLM refuses; before, a bare                          0.10.2 get_kv_cache_config, 0.11.0–0.11.2
      NotImplementedError (one group of one spec                 get_kv_cache_groups: bare NotImplementedError
      type excepted, 0.11.0 on)
    --quantization gptq on a GPTQ checkpoint        0.22.0       model_executor/layers/quantization/auto_gptq.py
      runs AutoGPTQConfig's Marlin-family kernel,                AutoGPTQConfig.override_quantization_method;
      not exllama gptq_gemm (0.3–0.21: exllama, its              config/model.py override order (auto_gptq first);
      per-call dequantised weight charged)                       0.21.0: gptq.py GPTQConfig, gptq_marlin.py keeps an
                                                                 explicit gptq (0.22.0, 0.29.0, 0.33.0: auto_gptq)
    … pages that do not divide are padded (mamba    0.22–0.27.1  kv_cache_planning / kv_cache_utils.py
      pages; non-MLA attention)                                  unify_kv_cache_spec_page_size (0.21.0: refuses; 0.27.1,
                                                                 0.29.0, 0.33.0: pads; between not read)
    prefix caching on for hybrids ⇒ mamba "align"   0.28.0       engine/arg_utils.py
      mode                                                       _set_default_chunked_prefill_and_prefix_caching_args
    ≥ 160 GiB devices: max_num_batched_tokens       0.28.0       engine/arg_utils.py get_batch_defaults
      16384 (API)
    Model Runner V2 by default (CUDA)               0.29.0       config/vllm.py use_v2_model_runner
    … for listed / dense models before that (V2     0.22.0       config/vllm.py _is_default_v2_model_runner_model;
      subtracts no CUDA-graph estimate until 0.29:               v1/worker/gpu/model_runner.py profile_cudagraph_memory
      inputs.uses_v2_runner,
      engines/vllm/graphs.py)
    … except where V2 lacks a feature (back to      0.29.0–      config/vllm.py
      V1: ngram ≤ 0.31, draft_model ≤ 0.30,         0.31.0       _get_v2_model_runner_unsupported_features
      EAGLE-3 with pp > 1 ≤ 0.29);                               (0.22.0–0.33.0 wheels); speculative.v2_unsupported;
      VLLM_USE_V2_MODEL_RUNNER overrides both                    envs.py (0.12.0+): --vllm-use-v2-model-runner
      (inputs.uses_v2_runner)
    fit check against available − one (null) block  0.29.0       v1/core/kv_cache_utils.py check_enough_kv_cache_memory
    mamba "all" prefix-caching mode removed         0.32.0       model_executor/models/config.py
    Mamba2 layers export a prefill checkpoint       0.32.0       model_executor/layers/mamba/mamba_mixer2.py
      block                                                      get_kv_cache_spec
    GDN layers export a prefill checkpoint block    0.33.0       model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py
    Qwen3.5 (…ForConditionalGeneration): the        0.17.0       model_executor/models/config.py
      config's mamba_ssm_dtype sets the GDN                      Qwen3_5ForConditionalGenerationConfig (0.16.0: no such
      temporal-state dtype                                       class)
    … and the text-only Qwen3_5(Moe)ForCausalLM     0.27.0       model_executor/models/config.py
                                                                 Qwen3_5ForCausalLMConfig
    NemotronH: --mamba-ssm-cache-dtype auto takes   0.13.0       model_executor/models/config.py
      the config's mamba_ssm_cache_dtype, else                   NemotronHForCausalLMConfig (absent in 0.12.0)
      float16
    … else float32                                  0.20.0       … DEFAULT_MAMBA_SSM_CACHE_DTYPE (0.19.0: float16)
    cuBLAS/cuBLASLt warm-up before the init         0.33.0       v1/worker/gpu_worker.py init_device
      snapshot
    Model Runner V2's dummy sampler: logits copied  0.18.0       v1/worker/gpu/sample/sampler.py apply_sampling_params
      to fp32 on every call (no top-k/top-p in the               (0.18.0–0.25.0)
      dummy batch)
    … no copy: the greedy dummy batch samples the   0.26.0       … (0.26.0 in place; 0.27.1 skips by
      logits as they are                                         _requires_logits_processing, 0.28–0.32 by
                                                                 needs_logits_processing)
    … plus a pass with the warm-up sampling         0.33.0       v1/worker/gpu/model_runner.py _dummy_sampler_run
      parameters (fp32 copy, top-k/top-p,                        (for_sampler_warmup)
      logprobs)
    V2 profile peak holds a cold torch.compile's    0.22.0–0.32  vllm-project/vllm #54122 (compile inside the profile
      scratch (size: one vocab × hidden tensor,                  window); size: printed first starts of 0.27.1 / 0.28.0
      EVIDENCE)                                                  V2 and 0.29.0 V1 (profile.V2_VOCAB_HIDDEN_EVIDENCE);
                                                                 profile_lines._compiles; from 0.22.0: the V2
                                                                 profile_run calls the compiled model
                                                                 (v1/worker/gpu/model_runner.py, 0.22.0 / 0.23.0
                                                                 wheels; vp_533)
    … the same scratch on the V1 runner             0.11.1–0.32  torch 2.9 pin → config/compilation.py turns on
                                                                 Inductor combo kernels with benchmark_combo_kernel,
                                                                 whose benchmark get_args() allocates every kernel
                                                                 input, the embedding table too (helper v11b; was
                                                                 0.17 by the AOT reading; v1_vocab_hidden_peak;
                                                                 vl_330 / vl_331, vp_301; vp_036 0.11.0 has none)
    YaRN max_position_embeddings taken as already   0.30.0       config/model.py _get_and_verify_max_len
      scaled
    V1 batch defaults keyed on the device NAME      0.8.0        engine/arg_utils.py _set_default_args_v1 (0.7.3, 0.8.0,
      ("h100"/"h200" in torch's device name: 8192                0.8.3 wheels)
      API / 16384 LLM tokens, else 2048 / 8192);
      max_num_seqs 1024 on every device
    … max_num_seqs by name too (h100/h200 1024,     0.8.4        engine/arg_utils.py _set_default_args_v1 (0.8.4)
      else 256)
    … keyed on device memory ≥ 70 GiB (A100-80GB    0.8.5        engine/arg_utils.py _set_default_args_v1 (0.8.5)
      included)
    … ≥ 70 GiB and "a100" not in the device name    0.9.0        engine/arg_utils.py _set_default_args_v1 (0.9.0–0.11.0)
    profile runs the dummy sampler (0.7.x V1:       0.8.0        v1/worker/gpu_model_runner.py profile_run (0.7.1–0.7.3:
      logits only)                                               "TODO: Consider the memory usage of the sampler")
    … those logits on max_num_seqs rows             0.7.3 (V1)   v1/worker/gpu_model_runner.py profile_run (0.7.1,
      (0.7.1/0.7.2: on every one of the                          0.7.2, 0.7.3 wheels)
      max_num_batched_tokens rows)
    FlashInfer top-k/top-p sampler when installed   0.8.0        v1/sample/ops/topk_topp_sampler.py (0.8.2, 0.8.5:
      (0.8.x: a flashinfer-python below 0.2.3, as                FlashInfer < 0.2.3 used, ≥ 0.2.3 native; the 0.8-era
      the 0.8-era image's 0.2.1.post2; 0.9.0+:                   Dockerfile installs 0.2.1.post2; vl_873 / vp_608
      ≥ 0.2.3)                                                   print "Using FlashInfer"; helper lora12)
    … flashinfer-python ≥ 0.2.3 required            0.9.0        v1/sample/ops/topk_topp_sampler.py (0.9.0 wheel);
      (flashinfer-python not a requirement before                wheel METADATA (0.10.0: absent; 0.10.2, 0.11.0: extra
      0.12.0: a plain pip install samples                        "flashinfer" only; 0.12.0: Requires-Dist)
      natively)
    … opt-in only (VLLM_USE_FLASHINFER_SAMPLER=1)   0.11.1       v1/sample/ops/topk_topp_sampler.py (0.11.0: on when
                                                                 installed; 0.11.1, 0.11.2, 0.12.0: opt-in)
    … on by default, flashinfer-python required     0.21.0       envs.py VLLM_USE_FLASHINFER_SAMPLER True; wheel
                                                                 metadata
    … then a second dummy sampler call with a       0.21.0       v1/worker/gpu_model_runner.py _dummy_sampler_run
      seeded generator: the PyTorch-native path                  ("Also warm forward_native"; 0.20.0: one call; the
      (Triton ≥ 8 rows, sort below) whatever the                 same in 0.21.0–0.33.0; helper gpt20)
      sampler (V1 runner)
    default block size 64 (16 before)               0.34.0       config/cache.py CacheConfig.DEFAULT_BLOCK_SIZE;
                                                                 platforms/interface.py update_block_size_for_backend
    sliding-window layers start from the primary    0.34.0       model_executor/layers/attention/attention.py
      block (the largest kernel block dividing it)               _largest_kernel_block_within (divisor_of)
    hybrids align the attention block to max(16,    0.34.0       platforms/interface.py _align_hybrid_block_size
      --block-size): 64 by default                               (kernel_block_alignment_size)
    SM 10.x CUDA graphs from a prefill grid to     0.34.0       config/vllm.py _split_cudagraph_capture_sizes;
      8192 tokens and a decode grid to                           config/compilation.py prefill_/decode_cudagraph_
      max_num_seqs (54 + 64 graphs)                              capture_grid
    no V1 model runner: Model Runner V2 for every   0.34.0       v1/worker/gpu_worker.py _make_model_runner;
      run, VLLM_USE_V2_MODEL_RUNNER not read                     v1/worker/gpu_model_runner.py absent; envs.py
    extensible KV cache on by default (CUDA,        0.34.0       config/vllm.py _resolve_extensible_kv_cache;
      ROCm): utilization default 1.0, no graph                   config/cache.py resolved_gpu_memory_utilization;
      estimate, KV sized from the free memory                    v1/worker/extensible_kv_cache.py
      measured after warm-up and capture, less a                 measure_kv_cache_bytes; v1/worker/gpu/model_runner.py
      margin and the transient peak                              profile_cudagraph_memory (helper cur17)

Releases before 0.9.1 size the cache the V0 way (vllm 0.8.5 and 0.9.0 wheels; tpkit's own notes, not re-read
for issue 11), ≤ 0.7 is the V0 engine.  Inside the V0 way, what the budget charges as non-torch memory:

    V0 0.2.0–0.2.4               peak = torch.cuda.max_memory_allocated() after reset_peak_memory_stats and the
                                 profile run, total = the device's total memory: only torch's peak (weights +
                                 activations) is charged, no non-torch memory at all (worker/worker.py
                                 profile_num_available_blocks, vllm 0.2.0 and 0.2.4 wheels; ``v0_torch_peak_only``)
    V0 0.2.5–0.3.0               peak = total − free (torch.cuda.mem_get_info) after the profile: the CUDA context,
                                 NCCL and other processes are charged (worker/worker.py profile_num_available_blocks,
                                 vllm 0.2.5, 0.2.6 and 0.3.0 wheels)
    V0 0.2.5 only                … and, with tp > 1, every activation the profile forward all-reduced: 0.2.5 does not
                                 yet set TORCH_NCCL_AVOID_RECORD_STREAMS, so ProcessGroupNCCL records each
                                 torch.distributed.all_reduce input on its NCCL stream and the caching allocator keeps
                                 the freed block until that stream's event completes; the CPU runs ahead of the GPU,
                                 so the blocks pile up as reserved memory, which total − free charges.  0.2.6 sets the
                                 variable in worker/worker.py Worker.init_model, with a comment naming this growth
                                 (vllm 0.2.5 wheel: absent; 0.2.6, 0.2.7, 0.3.0–0.4.1, 0.5.4 wheels: set;
                                 ``v0_allreduce_held``; size: ``profile.held_allreduce_bytes``)
    V0 0.3.1–0.6.3               peak = init_gpu_memory − free, init_gpu_memory read in init_device after
                                 torch.cuda.set_device: context and other processes outside (vllm 0.3.1–0.3.3, 0.4.0,
                                 0.5.4, 0.5.5, 0.6.0, 0.6.2, 0.6.3, 0.6.3.post1 wheels)
    V0 0.6.4, V1 0.8.0–0.9.0     torch peak + ((total − free) − torch allocated) after the profile: the context and
                                 other processes charged again (worker/worker.py determine_num_available_blocks,
                                 vllm 0.6.4; v1/worker/gpu_worker.py determine_available_memory, vllm 0.8.5)
    V0 ≥ 0.6.5                   memory_profiling(baseline_memory_in_bytes = total − init_gpu_memory): the
                                 non-torch increase over init_device's free memory, read after torch.cuda.set_device,
                                 so the CUDA context (and other processes) stay outside (worker/worker.py, vllm 0.6.5
                                 and 0.6.6; the V0 engine keeps it in 0.7–0.10)

Custom all-reduce (``model_executor/parallel_utils/custom_all_reduce.py``, ``init_custom_ar`` called by
worker/worker.py ``Worker.init_model`` after the distributed init) first ships in 0.3.0 (world sizes 2, 4, 6, 8; 8 MiB
meta + 8 MiB buffer + 8 MiB rank_data); the 0.2.6 and 0.2.7 wheels have no such module and all-reduce through
``torch.distributed.all_reduce`` only (``parallel_utils/communication_op.py``), so releases before 0.3.0 keep
no custom all-reduce buffers.  Mixtral's MoE runs whole experts per rank on all profile tokens in 0.2.5–0.2.7 (and
for a quantized Mixtral in 0.3.0, ``mixtral_quant.py``); AWQ GEMMs hold [8, T, N] split-K partial sums before 0.3.0
(``engines/vllm/mixtral_v0.py``, helper old02).  ``era`` is only a label of the log wording family (``"v0"``,
``"0.11"`` for V1 before 0.21, ``"0.33"`` from 0.21); every rule above is its own field.

Fused MoE before 0.8.0 (V0 and 0.7.x V1 alike, one ``fused_moe.py``): ``fused_experts_impl`` allocates the two GEMM
outputs apart (intermediate_cache1 and intermediate_cache3; 0.4.1, 0.5.5, 0.6.3, 0.7.0–0.7.3 wheels), where 0.8.0 on
views both in one ``cache13`` buffer (``moe_cache3_separate``; ``profile._moe``).  Before 0.11.0 a MoE block's shared
experts run first and their output stays alive through the routed experts (``moe_shared_output_held``: 0.7.3 and
0.10.0 model files).
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines import release_tuple
from tpkit.engines.vllm.rules import VllmRules
from tpkit.errors import PlanInputError

__all__ = ["VllmRules", "RULES", "CURRENT", "CURRENT_RELEASE", "resolve_rules", "parse_version", "rules_for",
           "is_newer_than_latest", "OFFICIAL_IMAGE_MARKERS", "official_image_marker", "image_sampler"]

CURRENT = "0.34"
"""the newest vLLM release whose rules were examined (0.34.0 = the latest on PyPI, 2026-12-05; read against 0.33.0
by helper cur17)"""
CURRENT_RELEASE = (0, 34, 0)


_V0 = VllmRules(
    release=(0, 7, 0), era="v0", engine="V0", default_utilization=0.9, ceil_requested=False, memory_rule="v0_peak",
    cudagraph_estimate=False, null_block=False, one_line_log=False, capacity_per_worker=False, tokens_rule="blocks",
    fit_check_reserves_block=False, sliding_in_flight=False, custom_ar_buffer_mib=8, custom_ar_signal_bytes=2_560,
    custom_ar_world_sizes=(2, 4, 6, 8), weights_log="v0", v0_context_outside=True, v0_allreduce_out_of_place=True,
    moe_shared_output_held=True)

_V0_CONTEXT_CHARGED = (((0, 2, 0), (0, 3, 1)), ((0, 6, 4), (0, 6, 5)))
"""V0 release ranges [first, next) whose budget charges the CUDA context (module docstring: ≤ 0.3.0 total − free;
0.6.4 total − free − torch allocated); every other V0 release measures from init_device's free memory"""

_V0_ALLREDUCE_OUT_OF_PLACE = (0, 6, 5)
"""first V0 release whose tensor-parallel all-reduce is always out of place (vllm 0.6.4 wheel: ``inplace_all_reduce``
for the NCCL path; 0.6.5: ``torch.ops.vllm.all_reduce`` → ``_all_reduce_out_place``)"""

_V0_TORCH_PEAK_ONLY = ((0, 2, 0), (0, 2, 5))
"""V0 release range [first, next) whose budget charges torch's peak alone (module docstring: 0.2.0–0.2.4
max_memory_allocated; 0.2.5 switches to total − free)"""

_V0_ALLREDUCE_HELD = ((0, 2, 5), (0, 2, 6))
"""V0 release range [first, next) that charges the profile's all-reduced activations (module docstring: 0.2.5
measures total − free; 0.2.6 sets TORCH_NCCL_AVOID_RECORD_STREAMS=1)"""

_MOE_CACHE13 = (0, 8, 0)
"""first release whose fused MoE shares one buffer between the two GEMM outputs (``VllmRules.moe_cache3_separate``:
0.7.3 wheel ``fused_experts_impl`` allocates intermediate_cache1/2/3 apart; 0.8.0 allocates ``cache13``)"""

_FIRST_CUSTOM_AR = (0, 3, 0)
"""first release with vLLM's custom all-reduce (module docstring; 0.2.6/0.2.7 wheels have none)"""

_V1 = VllmRules(
    release=(0, 8, 0), era="0.11", engine="V1", default_utilization=0.9, ceil_requested=False,
    memory_rule="increase", cudagraph_estimate=False, null_block=True, one_line_log=False, capacity_per_worker=False,
    tokens_rule="groups",
    fit_check_reserves_block=False, sliding_in_flight=False, custom_ar_buffer_mib=8, custom_ar_signal_bytes=2_560,
    custom_ar_world_sizes=(2, 4, 6, 8), cublas_after_snapshot=True, weights_log="0.11",
    v1_batch_defaults="name_tokens", page_unify="none", moe_shared_output_held=True)

_QWEN35_WRAPPERS = ("Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration")
_QWEN35_TEXT = ("Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM")

_BOUNDARIES: tuple[tuple[tuple[int, int, int], dict], ...] = (
    ((0, 8, 0), dict(memory_rule="v0_peak", distributed_after_snapshot=True,
                     flashinfer_sampler="if_installed")),
    ((0, 8, 2), dict(capacity_per_worker=True)),
    ((0, 8, 4), dict(v1_batch_defaults="name")),
    ((0, 8, 5), dict(v1_batch_defaults="memory")),
    ((0, 9, 0), dict(v1_batch_defaults="memory_not_a100")),
    ((0, 9, 1), dict(memory_rule="increase")),
    ((0, 10, 2), dict(dcp=True, dcp_log="dcp")),
    ((0, 11, 0), dict(distributed_after_snapshot=False, torch_symm_mem_allreduce=True, moe_shared_output_held=False)),
    ((0, 11, 1), dict(capacity_per_worker=False, flashinfer_sampler="no", v1_vocab_hidden_peak=True,
                      dummy_rejection="raw_clone")),
    ((0, 12, 0), dict(weights_log="0.12", dcp_log="cp", page_unify="grow", dummy_rejection="raw_fp32")),
    ((0, 13, 0), dict(nemotron_h_ssm_default="float16")),
    ((0, 14, 0), dict(ceil_requested=True, weights_log="format_gib", chunked_local_hybrid=True,
                      dummy_rejection="target_clone")),
    ((0, 15, 0), dict(mamba_all_mode=True)),
    ((0, 17, 0), dict(ssm_dtype_from_config=_QWEN35_WRAPPERS, triton_topk_topp=True, dummy_rejection="inv_q")),
    ((0, 18, 0), dict(mla_preferred_block=True, moe_unchunked_workspace=True)),
    ((0, 19, 0), dict(gemma4=True)),
    ((0, 20, 0), dict(default_utilization=0.92, cudagraph_estimate=True, nemotron_h_ssm_default="float32",
                      mamba_blocks_check=True)),
    ((0, 20, 1), dict(tokens_rule="concurrency")),
    ((0, 21, 0), dict(era="0.33", tokens_rule="concurrency", dcp_log=None, flashinfer_sampler="yes",
                      v1_native_sampler_warmup=True, load_max_split_mib=20)),
    ((0, 22, 0), dict(page_unify="pad", mm_prefix_batch_floor=True, gptq_explicit_exllama=False,
                      v2_vocab_hidden_peak=True)),
    ((0, 25, 0), dict(sliding_kernel_block=True)),
    ((0, 26, 0), dict(sliding_in_flight=True, mamba_all_mode_spec=True, v2_dummy_sampler="greedy",
                      cudagraph_estimate_rocm=True)),
    ((0, 27, 0), dict(ssm_dtype_from_config=_QWEN35_WRAPPERS + _QWEN35_TEXT,
                      memory_rule="consumed", custom_ar_buffer_mib=16, custom_ar_signal_bytes=4_864,
                      custom_ar_world_sizes=(2, 4, 6, 8, 16), mnnvl_lamport=True, pinned_profile_scratch=True)),
    ((0, 28, 0), dict(one_line_log=True, hybrid_prefix_caching=True, huge_gpu_batch=True)),
    ((0, 29, 0), dict(fit_check_reserves_block=True, v2_runner_default=True)),
    ((0, 30, 0), dict(yarn_prescaled=True)),
    ((0, 31, 0), dict(pinned_profile_scratch=False, load_max_split_rocm=True)),
    ((0, 32, 0), dict(mamba_all_mode=False, mamba_all_mode_spec=False, checkpoint_kinds=("mamba2",))),
    ((0, 33, 0), dict(cublas_after_snapshot=False, checkpoint_kinds=("mamba2", "gdn"),
                      v2_dummy_sampler="warmup_params", v2_vocab_hidden_peak=False, v1_vocab_hidden_peak=False)),
    ((0, 34, 0), dict(default_block_size=64, sliding_primary_block=True, hybrid_align_to_block=True,
                      v1_runner=False, extensible_kv_cache=True, sm100_wide_graphs=True)),
)
"""(first release, the rules it changes), oldest first; each row's citation is in the module docstring"""


def rules_for(release: tuple[int, int, int]) -> VllmRules:
    """The rules of one release (≥ 0.2): V0 up to 0.7, then every boundary up to ``release`` applied."""
    if release < (0, 8, 0):
        charged = any(lo <= release < hi for lo, hi in _V0_CONTEXT_CHARGED)
        custom_ar = _V0.custom_ar_world_sizes if release >= _FIRST_CUSTOM_AR else ()
        torch_only = _V0_TORCH_PEAK_ONLY[0] <= release < _V0_TORCH_PEAK_ONLY[1]
        held = _V0_ALLREDUCE_HELD[0] <= release < _V0_ALLREDUCE_HELD[1]
        return replace(_V0, release=release, v0_context_outside=not charged, custom_ar_world_sizes=custom_ar,
                       v0_torch_peak_only=torch_only, v0_allreduce_held=held,
                       v0_allreduce_out_of_place=release >= _V0_ALLREDUCE_OUT_OF_PLACE,
                       moe_cache3_separate=release < _MOE_CACHE13)
    rules = _V1
    for first, changes in _BOUNDARIES:
        if release >= first:
            rules = replace(rules, **changes)
    return replace(rules, release=release)


GROUPS_BEFORE_PROFILE = (0, 33, 0)
"""first release read whose engine core groups the KV cache layers (``get_global_kv_cache_groups``, where the "Add N
padding layers" warning is printed) before ``determine_available_memory`` ("Available KV cache memory"):
``v1/engine/core.py`` ``_initialize_kv_caches`` in the 0.33.0 and 0.34.0 wheels; 0.29.0 groups inside
``get_kv_cache_configs``, after the profile.  0.30–0.32 not read: the earlier order is kept for them (helper mig18b)"""


RULES: dict[str, VllmRules] = {CURRENT: rules_for(CURRENT_RELEASE), "0.33": rules_for((0, 33, 0)),
                               "0.11": rules_for((0, 11, 0)), "v0": _V0}
"""named rule sets: the current release, 0.11.0, and the V0 engine (``"v0"``: the V0 engine of 0.6.5 and later,
which is also what VLLM_USE_V1=0 runs in 0.8–0.10; name the release for the older accountings)"""

_ALIASES = {"current": CURRENT, "latest": CURRENT, "v1": "0.11", "v0": "v0", "V0": "v0", "V1": "0.11"}


def parse_version(text: str) -> tuple[int, int, int]:
    """``"0.10.1.dev101+gbda9d0535"`` → ``(0, 10, 1)``; raises ``PlanInputError`` when unreadable."""
    release = release_tuple(text)
    if release is None:
        raise PlanInputError(
            f"--engine-version: cannot read {text!r} as a vLLM version; write it like '0.11', "
            f"'0.10.1', '{CURRENT}', 'current' or 'v0'")
    return release


def is_newer_than_latest(version: str) -> bool:
    """True for a release after the newest one read (``CURRENT_RELEASE``): planned with the newest rules."""
    text = str(version).strip()
    if text in _ALIASES:
        return False
    try:
        return parse_version(text.partition(":")[0]) > CURRENT_RELEASE
    except PlanInputError:
        return False


def resolve_rules(version: str) -> VllmRules:
    """The rule set for a version string (``"current"``, ``"0.11"``, ``"0.26.1"``, ``"0.6.4"``, ``"v0"`` …; a
    ``:v0`` / ``:v1`` suffix names the engine where a release has both, ``"0.8.2:v0"``, ``"0.7.3:v1"``).

    A release newer than the newest one read gets the newest rules."""
    text = str(version).strip()
    if text in _ALIASES:
        return RULES[_ALIASES[text]]
    base, _, engine = text.partition(":")
    if engine:
        return _engine_rules(text, parse_version(base), engine.strip().lower())
    parsed = parse_version(text)
    if parsed < (0, 2, 0):
        raise PlanInputError(f"--engine-version {text}: vLLM releases before 0.2 are not modelled; use 0.2 or later")
    return rules_for(parsed)


def _engine_rules(text: str, release: tuple[int, int, int], engine: str) -> VllmRules:
    """``"0.8.2:v0"`` (the V0 engine a 0.8–0.10 release runs with VLLM_USE_V1=0 or as its fallback) and
    ``"0.7.3:v1"`` (the V1 engine a 0.7 release runs with VLLM_USE_V1=1; its worker sizes memory like 0.8.0's, its
    profile run computes the logits without the dummy sampler run)."""
    if engine == "v0" and (0, 2, 0) <= release < (0, 11, 0):
        return rules_for(release) if release < (0, 8, 0) else replace(_V0, release=release)
    if engine == "v1" and (0, 7, 0) <= release:
        return rules_for(release) if release >= (0, 8, 0) else replace(
            rules_for((0, 8, 0)), release=release, dummy_sampler=False, profile_logits_all_tokens=release < (0, 7, 3),
            moe_cache3_separate=release < _MOE_CACHE13)
    raise PlanInputError(
        f"--engine-version {text}: the engine suffix must be ':v0' (releases 0.2–0.10) or ':v1' (0.7 on); "
        f"write e.g. '0.8.2:v0' or '0.7.3:v1'")


# -- the official image (helper img16, 2026-12-05): which top-k/top-p sampler a 0.8.0–0.11.0 V1 run had ----------
def rule_change_releases() -> tuple[tuple[int, int, int], ...]:
    """The first release of every rule change from 0.8 on (``_BOUNDARIES``), oldest first: where a rule set read at
    one release may stop holding (``explain.vtokens`` rebuilds the releases inside a log's version range)."""
    return tuple(first for first, _ in _BOUNDARIES)


OFFICIAL_IMAGE_MARKERS = ("/vllm-workspace", "vllm/vllm-openai")
"""text that shows a run inside vLLM's official image: its ``vllm-base`` stage's ``WORKDIR /vllm-workspace`` (a shell
prompt, a traceback path, a mounted file) and the image name ``vllm/vllm-openai`` (docker/Dockerfile, vLLM 0.8.0,
0.8.5, 0.9.2, 0.10.2 and 0.11.0 sdists: the ``vllm-openai`` target builds ``FROM vllm-openai-base`` ``FROM
vllm-base``)"""
IMAGE_FLASHINFER_ARM64_FROM = (0, 10, 0)
"""the first release whose image installs FlashInfer on linux/arm64 too: docker/Dockerfile of 0.8.0–0.9.2 installs it
only ``if [ "$TARGETPLATFORM" != "linux/arm64" ]`` (0.8.x: the flashinfer_python 0.2.1.post2 wheel; 0.9.0/0.9.1:
0.2.5 for CUDA 12.8, else a git build; 0.9.2: 0.2.6.post1), 0.10.0–0.11.0 build it from source for every platform
(FLASHINFER_GIT_REF v0.2.8rc1, v0.2.11, v0.3.0, v0.3.1; sdists read by helper img16)"""
ARM64_GPUS = ("GH200", "GB200", "GB10")
"""GPUs that only come on arm64 (Grace) hosts, so an official image there is the linux/arm64 build"""


def official_image_marker(text: str) -> str | None:
    """The first :data:`OFFICIAL_IMAGE_MARKERS` string ``text`` shows, None when it shows none."""
    hits = [(text.find(m), m) for m in OFFICIAL_IMAGE_MARKERS if m in text]
    return min(hits)[1] if hits else None


def image_sampler(version: str, gpu: str | None = None) -> str | None:
    """The top-k/top-p sampler a run in vLLM's official image uses where the release leaves it to the install
    (``VllmRules.flashinfer_sampler == "if_installed"``, 0.8.0–0.11.0 V1): ``"flashinfer"``, as every such release's
    image installs flashinfer-python in its ``vllm-base`` stage (docker/Dockerfile, read in the 0.8.0–0.11.0 sdists)
    and ``TopKTopPSampler.__init__`` then takes FlashInfer (0.8.x: the image's 0.2.1.post2 is below 0.2.3, the
    version the 0.8 code falls back from; 0.9.0+: the image's 0.2.5 … 0.3.1 meets its ≥ 0.2.3 floor).  None (keep the
    release's default) outside that window, on the V0 engine, or on an arm64-only GPU (:data:`ARM64_GPUS`) before
    :data:`IMAGE_FLASHINFER_ARM64_FROM`, whose image skips FlashInfer."""
    rules = resolve_rules(version)
    if rules.engine != "V1" or rules.flashinfer_sampler != "if_installed":
        return None
    name = (gpu or "").upper()
    if any(name.startswith(g) for g in ARM64_GPUS) and \
            parse_version(str(version).partition(":")[0]) < IMAGE_FLASHINFER_ARM64_FROM:
        return None
    return "flashinfer"
