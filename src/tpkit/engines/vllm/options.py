"""``VllmOptions``: the vLLM launch flags that change memory sizing (frozen value type)."""

from __future__ import annotations

from tpkit.engines.engine import flag, shared_flag
from tpkit.engines.vllm.kvdtype import KV_DTYPES
from tpkit.records import dataclass
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.startup.links import LinkChoice

__all__ = ["VllmOptions", "ATTENTION_BACKENDS", "KV_CACHE_DTYPES", "DTYPES_ACCEPTED", "COMPILE_CACHE_STATES", "ENTRYPOINTS", "v2_runner_override",
           "extensible_kv_active",
           "cudagraph_mode_of", "torch_compile_off",
           "cudagraph_estimate_applied"]

KV_CACHE_DTYPES = tuple(KV_DTYPES)
"""accepted ``--kv-cache-dtype`` spellings (``vllm/config/cache.py`` ``CacheDType`` per release:
``engines.vllm.kvdtype``; ``auto``: the model dtype); a value tpkit does not model is refused in
``resolve_inputs``, never planned as bf16"""
DTYPES_ACCEPTED = ("auto", "bfloat16", "float16", "half", "float32", "float")
"""accepted ``--dtype`` spellings (vLLM has no ``bf16``/``fp16`` here)"""

TOPK_TOPP_SAMPLERS = ("native", "flashinfer")
"""values of ``--topk-topp-sampler``"""
COMPILE_CACHE_STATES = ("cold", "warm")
"""values of ``--compile-cache``"""
ENTRYPOINTS = ("serve", "llm")
"""values of ``--vllm-entrypoint``: ``serve`` (the OpenAI API server, ``UsageContext.OPENAI_API_SERVER``), ``llm``
(the offline ``vllm.LLM`` class, ``UsageContext.LLM_CLASS``: python scripts, notebooks, benchmark_throughput.py /
benchmark_latency.py)"""
ATTENTION_BACKENDS = ("auto", "FLASH_ATTN", "FLASH_ATTN_DIFFKV", "TRITON_ATTN", "TRITON_ATTN_DIFFKV",
                      "TRITON_FLASH_ATTN", "TORCH_SDPA", "FLASHINFER", "TRITON_FLASHINFER", "FLASHINFER_MLA",
                      "FLASHINFER_MLA_SPARSE", "TRITON_MLA", "CUTLASS_MLA", "FLASHMLA", "FLASHMLA_SPARSE",
                      "FLASH_ATTN_MLA", "FLEX_ATTENTION", "TREE_ATTN", "TURBOQUANT", "ROCM_ATTN", "ROCM_AITER_FA",
                      "ROCM_AITER_UNIFIED_ATTN", "ROCM_AITER_MLA", "ROCM_AITER_TRITON_MLA")
"""``--attention-backend`` values tpkit accepts: ``auto`` and the CUDA and ROCm members of vLLM's
``AttentionBackendEnum`` (``v1/attention/backends/registry.py``, 0.20.0–0.33.0; a member of one release only is
accepted for every release; any case, as vLLM upper-cases it: ``config/attention.py validate_backend_before``,
0.29.0, 0.33.0)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmOptions:
    """vLLM engine arguments that size memory; ``None`` means "the engine's default for the version"."""

    engine_version: str = flag(
        "current", metavar="RELEASE",
        help="release whose rules apply, e.g. 0.19.1 (default: with a log, its release, printed or inferred from "
             "its line formats; else the newest release tpkit read, which the output names)")
    """rule set: ``"current"`` (= 0.34), ``"0.11"`` (V1 before the CUDA-graph estimate), ``"v0"``, or a release"""
    gpu_memory_utilization: float | None = flag(
        kind="fraction", unit="fraction", concept="memory fraction",
        help="fraction (0, 1] of the device total this instance may use (default 0.92; 0.9 up to 0.20; 1.0 from "
             "0.34 with its extensible KV cache)")
    """fraction (0, 1] of the device total this instance may use; None = 0.92 (0.20–0.33, and 0.34 without the
    extensible KV cache) / 0.9 (≤ 0.19) / 1.0 (≥ 0.34 with the extensible KV cache: ``extensible_kv_active``)"""
    max_model_len: int | None = flag(kind="int", unit="tokens", concept="context length", suffixes="k_or_auto",
                                     help="tokens per request (default: the model's max_position_embeddings)")
    """tokens per request; None = the model's ``max_position_embeddings``"""
    block_size: int | None = flag(kind="int", unit="tokens", concept="KV page",
                                  help="tokens per KV block (default: the attention backend's)")
    """tokens per KV block; None = the attention backend's default (16, 64 from 0.34; FlashMLA 64; CUTLASS-MLA 128)"""
    max_num_batched_tokens: int | None = flag(kind="int", unit="tokens", suffixes="k",
                                              help="tokens per scheduler step (the profile-run size; default: the "
                                                   "release's, by entrypoint and GPU: see --vllm-entrypoint)")
    """tokens per scheduler step (= the profile-run size); None = the version's default"""
    max_num_seqs: int | None = flag(kind="int", unit="requests", concept="running requests",
                                     help="requests per scheduler step (default: the release's, by GPU)")
    """requests per step (= sampler rows in the profile run); None = the version's default"""
    cpu_offload_gb: float | None = flag(
        kind="gib", unit="GiB per GPU", metavar="GIB", concept="weight offload",
        help="GiB of weights per GPU the engine keeps in CPU memory (GiB = 2^30 B, per GPU, as both engines read "
             "it): decoder layers in order, whole parameters; SGLang takes a whole number")
    """``--cpu-offload-gb``: GiB per GPU of decoder-layer parameters vLLM moves to CPU memory (UVA from 0.8.3 V1,
    a per-forward device copy in V0; ``engines.offload``); None/0 = none"""
    kv_cache_memory_bytes: Bytes | None = flag(kind="size", unit="bytes per GPU", metavar="SIZE",
                                               help="KV cache size that replaces the profiled budget, e.g. 40GiB")
    """per-GPU KV bytes that replace the profiled budget (``--kv-cache-memory-bytes``)"""
    enforce_eager: bool = flag(False, kind="bool", concept="CUDA graphs",
                               help="no CUDA graphs (no CUDA-graph memory estimate)")
    """no CUDA graphs (no CUDA-graph memory estimate)"""
    kv_cache_dtype: str = flag("auto", choices=KV_CACHE_DTYPES, help="KV cache element type (auto: the model's)")
    """``auto`` (model dtype) | ``bf16`` | ``fp16`` | ``fp8`` | ``fp8_e4m3`` | ``fp8_e5m2`` | ``nvfp4`` …
    (``engines.vllm.kvdtype``)"""
    dtype: str | None = flag(help="weight dtype: auto, bfloat16, float16, float32 (default auto: the "
                                              "checkpoint's)")
    """activation/weight dtype override (``bfloat16``, ``float16``); None = the checkpoint's"""
    quantization: str | None = flag(help="weight quantisation override, e.g. fp8 (default: the checkpoint's "
                                                     "quantization_config)")
    """weight quantisation override (e.g. ``fp8``); None = the checkpoint's"""
    checkpoint_dir: str | None = None
    """local checkpoint directory (exact weight bytes from safetensors headers)"""
    links: LinkChoice | None = None
    """what the user (``--link``, ``--no-p2p``, ``--nnodes``) or the log says about the GPUs' links, in place of the
    catalog's or the machine profile's (``tpkit.startup.links``); None: not said"""
    disable_custom_all_reduce: bool = shared_flag("disable_custom_all_reduce")
    """``--disable-custom-all-reduce``: vLLM allocates no custom all-reduce buffers (NCCL only)"""
    speculative_config: str | dict | None = flag(
        metavar="JSON", concept="speculative decoding", aliases=("-sc",),
        help="vLLM's speculative decoding config, e.g. '{\"method\": \"eagle3\", \"model\": "
             "\"lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge\", \"num_speculative_tokens\": 3}'")
    """``--speculative-config``: JSON text (or a dict) with vLLM's keys: method (eagle, eagle3, mtp,
    deepseek_mtp …, ngram, draft_model), model, num_speculative_tokens, draft_tensor_parallel_size …"""
    decode_context_parallel_size: int | None = flag(
        kind="int", unit="ranks", aliases=("-dcp",), help="decode context parallel: the KV cache is split over this many TP ranks")
    """``--decode-context-parallel-size`` (DCP, ≥ 0.10.2): TP ranks that each keep every D-th token; must
    divide --tp; None = 1"""
    data_parallel_size: int | None = flag(
        kind="int", unit="replicas", aliases=("-dp",), help="vLLM's spelling of --dp: data-parallel engine replicas")
    """``--data-parallel-size``: data-parallel replicas (each its own engine core and KV pool); the same as
    tpkit's ``--dp``; None = ``--dp``"""
    enable_expert_parallel: bool = flag(
        False, kind="bool", aliases=("-ep",), help="shard MoE experts over tp × dp ranks (vLLM's expert parallelism)")
    """``--enable-expert-parallel``: experts are split over EP = tp × dp ranks instead of tensor-sharded"""
    enable_eplb: bool = flag(
        False, kind="bool", help="vLLM's expert-parallel load balancer (needs --enable-expert-parallel): its "
                                 "state and any redundant experts join the load (vLLM ≥ 0.10.1)")
    """``--enable-eplb``: the balancer's state and ``--eplb-config``'s redundant experts (``engines.vllm.eplb``)"""
    eplb_config: str | dict | None = flag(
        metavar="JSON",
        help="vLLM's --eplb-config JSON, e.g. '{\"num_redundant_experts\": 32, \"window_size\": 1000}' (≥ 0.11.0)")
    """``--eplb-config``: JSON text or a dict of ``EPLBConfig`` keys (``engines.vllm.eplb.EPLB_KEYS``); None = the
    defaults (window 1000, no redundant experts)"""
    skip_mm_profiling: bool = flag(
        False, kind="bool", help="the profile run leaves out the multimodal encoder and its cache (vLLM's flag)")
    """``--skip-mm-profiling``: the profile run leaves the multimodal encoder and its cache out
    (``engines.vllm.encoder``).  vLLM 0.10.0 and later also skip them when ``--limit-mm-per-prompt`` sets every
    modality the model supports to 0 (``engines.vllm.mmlimits``)."""
    language_model_only: bool = shared_flag("language_model_only")
    """``--language-model-only`` (vLLM ≥ 0.17.0, ``config/multimodal.py``): ``--limit-mm-per-prompt`` 0 for every
    modality, so no encoder profile (``engines.vllm.encoder``) and no vision tower for the families
    ``engines.vllm.towers`` lists"""
    limit_mm_per_prompt: str | dict | None = flag(
        metavar="JSON", concept="multimodal items per prompt",
        help="vLLM's items per prompt by modality, e.g. '{\"image\": 2, \"video\": 0}' (or image=2,video=0 up to "
             "vLLM 0.9.2): a modality at 0 is not profiled, all at 0 = no encoder profile (default 999 each)")
    """``--limit-mm-per-prompt``: JSON text, KEY=VALUE text (≤ 0.9.2) or a dict of modality → count (or
    {"count": n}, ≥ 0.11.1); sets the encoder profile's modality and items per prompt (``engines.vllm.mmlimits``);
    None = 999 for every modality"""
    enable_prefix_caching: bool | None = flag(
        kind="bool", help="prefix caching on (vLLM's flag); for attention + mamba / linear-attention hybrids it "
                          "sets the mamba cache mode ('align': 2 state pages per request), which vLLM up to 0.27 "
                          "leaves off for hybrids unless this flag is given (on by default from 0.28)")
    """``--enable-prefix-caching``: None = the release's default for the model.  Only hybrids' KV layout depends
    on it: vLLM runs their mamba groups in ``"align"`` (or ``"all"``) mode with prefix caching on, holding 2 (+
    speculative) state pages per request instead of 1 (``v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes``
    and ``model_executor/models/config.py``, 'Mamba cache mode is set to 'align' ... when prefix caching is
    enabled', vLLM 0.15–0.33 wheels; ``engines.vllm.mamba``).  Hybrids have it off by default up to 0.27 and on
    from 0.28 (``VllmRules.hybrid_prefix_caching``); False (prefix caching off) is accepted from the API and
    ``--from-log``, the command line only turns it on."""
    enable_chunked_prefill: bool | None = flag(
        kind="bool", help="chunked prefill on (vLLM's flag; V0 releases: the profile run then takes the chunk "
                          "budget, not max(--max-model-len, 2048) tokens)")
    """``--enable-chunked-prefill`` as given to a V0 engine: None = V0's default (on above 32K tokens, with the
    exclusions of ``engines.vllm.batch_defaults._v0_batch``); True/False set it, and with it the profile run's
    ``max_num_batched_tokens`` when that is not given (vLLM 0.6.3 ``engine/arg_utils.py create_engine_config``
    applies the long-context default only while the flag is None; ``config.py SchedulerConfig``: 512 tokens when
    on, ``max(max_model_len, 2048)`` when off).  False is accepted from the API (the command line only turns it
    on).  On V1 releases (vLLM's ``--no-enable-chunked-prefill``) it changes nothing up to 0.11.0 (V1 forces
    chunked prefill on for generating models) and from 0.11.1 makes the default budget ``max(max_model_len, the
    device default)`` and refuses a given budget below ``max_model_len`` (``engines.vllm.batch_defaults.resolve_batch``; helper
    fix11, 2026-12-05: until then tpkit refused False on V1)."""
    no_async_scheduling: bool = flag(
        False, kind="bool", help="vLLM's --no-async-scheduling: one batch in flight instead of two (or pp + 1 on "
                                 "Model Runner V2), so sliding-window layers reserve the window plus one batch of "
                                 "--max-num-batched-tokens per request (vLLM ≥ 0.26)")
    """``--no-async-scheduling``: ``VllmConfig.max_concurrent_batches`` is then ``pp`` (``config/vllm.py``, vLLM
    0.26.0–0.33.0), which sets the tokens a sliding-window / chunked-local group holds per request
    (``max_in_flight_tokens``, ``engines.vllm.capacity``); False = the release's default scheduling (async where
    the release and the speculative method allow it, ``engines.vllm.inputs.concurrent_batches``).  Before 0.26 the
    sliding need counts one batch either way."""
    no_enable_extensible_kv_cache: bool = flag(
        False, kind="bool", concept="KV sizing",
        help="vLLM's --no-enable-extensible-kv-cache (vLLM ≥ 0.34): size the KV cache from the profile estimate "
             "(gpu_memory_utilization default 0.92, the CUDA-graph estimate subtracted) instead of the memory "
             "measured after warm-up and graph capture (default 1.0)")
    """``--no-enable-extensible-kv-cache``: vLLM 0.34.0 turns the extensible KV cache on by default on CUDA and ROCm
    (``config/vllm.py _resolve_extensible_kv_cache``; ``VllmRules.extensible_kv_cache``); this flag keeps the
    estimate-based sizing of 0.33.  False = the release's default (on from 0.34.0 unless ``--kv-cache-memory-bytes``
    is given)."""
    topk_topp_sampler: str | None = flag(
        choices=TOPK_TOPP_SAMPLERS,
        help="top-k/top-p sampler of vLLM's profile run, as its log's topk_topp_sampler line names it (default: "
             "the release's, PyTorch-native where FlashInfer is optional)")
    """the top-k/top-p sampler the profile's dummy sampler run uses, as the log's ``topk_topp_sampler.py`` line
    names it (``"native"``: "FlashInfer is not available" / "… not enabled" / "Falling back to the PyTorch-native
    implementation"; ``"flashinfer"``: "Using FlashInfer for top-p & top-k sampling"); None = the release's default
    (``VllmRules.flashinfer_sampler``; 0.8.0–0.11.0: native as a plain pip install gives it, with a band)"""

    attention_backend: str | None = flag(
        choices=ATTENTION_BACKENDS, metavar="BACKEND", any_case=True,
        help="vLLM's --attention-backend, any case (FLASH_ATTN, TRITON_ATTN, FLASHINFER …; an MLA model takes an "
             "*MLA* backend; default auto: the release's choice for the GPU, FlashInfer on SM 10.x, FlashAttention "
             "elsewhere, Triton below SM 8.0 or above head dim 256); FlashInfer's 394 MiB workspace is in the "
             "CUDA-graph estimate of vLLM 0.20+")
    """``--attention-backend`` (``AttentionBackendEnum`` name; vLLM 0.20+ command lines); None / ``"auto"`` = vLLM's
    choice (``engines.vllm.backend_choice.auto_attention_backend``).  Only the CUDA-graph estimate reads it
    (``graphs.mechanism_estimate``); ``inputs.resolve_attention_backend`` checks it against the model."""

    max_cudagraph_capture_size: int | None = flag(
        kind="int", unit="tokens", concept="CUDA-graph capture size",
        help="vLLM's --max-cudagraph-capture-size (vLLM 0.11.1+): the largest CUDA-graph batch size captured; the "
             "sizes 1, 2, 4, 8…248 step 8, 256… step 16 stop there (and at --max-num-batched-tokens); default "
             "min(2 x max_num_seqs, 512); it sets the graph count of the CUDA-graph estimate (vLLM 0.20+)")
    """``--max-cudagraph-capture-size`` (``CompilationConfig.max_cudagraph_capture_size``, ``engine/arg_utils.py``,
    vLLM 0.11.1–0.33.0): the top of the capture-size ladder, itself capped by ``max_num_batched_tokens``
    (``config/vllm.py _set_cudagraph_sizes``, 0.15.0, 0.20.0, 0.29.0, 0.33.0); None = vLLM's default
    ``min(2 × max_num_seqs, 512)`` (1024 on SM 10.x where the release has it).  vLLM up to 0.11.0 had
    ``--cuda-graph-sizes`` instead (``SchedulerConfig.cuda_graph_sizes``: one value = the top, more = the list;
    0.11.1 keeps it as a deprecated alias of ``--cudagraph-capture-sizes``, 0.15.0 has neither), which tpkit does
    not read: those releases subtract no CUDA-graph estimate.  Only ``graphs.capture_sizes`` reads it."""

    cudagraph_capture_sizes: str | tuple | list | None = flag(
        kind="int_list", unit="tokens", concept="CUDA-graph capture sizes", metavar="N",
        help="vLLM's --cudagraph-capture-sizes (vLLM 0.11.1+): the CUDA-graph batch sizes captured, e.g. 1 2 4 8 16 "
             "(or 1,2,4,8,16), in place of vLLM's ladder; sizes above --max-num-batched-tokens are dropped; it "
             "sets the graph count of the CUDA-graph estimate (vLLM 0.20+)")
    """``--cudagraph-capture-sizes`` (``CompilationConfig.cudagraph_capture_sizes``, ``engine/arg_utils.py``, vLLM
    0.11.1–0.33.0): the sizes themselves, de-duplicated and sorted, those above ``max_num_batched_tokens`` dropped
    (``config/vllm.py _set_cudagraph_sizes``); with ``--max-cudagraph-capture-size`` too, vLLM refuses a top that
    differs from the largest size.  Text ("1 2 4", "1,2,4", "[1, 2, 4]") or a sequence of ints
    (``option_checks.capture_size_list``); None = vLLM's ladder (``graphs.capture_sizes``)."""
    optimization_level: int | None = flag(
        kind="int", unit="level", concept="optimization level", aliases=("-O",),
        help="vLLM's --optimization-level / -O (vLLM 0.15+): 0 = no torch.compile and no CUDA graphs (as "
             "--enforce-eager for memory), 1 = PIECEWISE CUDA graphs only, 2 and 3 (default 2) = FULL and "
             "PIECEWISE graphs; it sets which graphs the CUDA-graph estimate counts")
    """``--optimization-level`` (``VllmConfig.optimization_level``, ``config/vllm.py OPTIMIZATION_LEVEL_00``…``03``,
    wheels 0.15.0–0.33.0): the default ``cudagraph_mode`` NONE / PIECEWISE / FULL_AND_PIECEWISE / FULL_AND_PIECEWISE,
    and at 0 ``CompilationMode.NONE`` (no torch.compile, every custom op on, as under ``--enforce-eager``).  A given
    ``cudagraph_mode`` wins over the level's default (``_apply_optimization_level_defaults``).  None = 2.  ``-O3``,
    ``-O 3`` and ``-O=3`` are vLLM's short spellings (0.29.0 ``utils/argparse_utils.py FlexibleArgumentParser``
    rewrites them to ``--optimization-level``)."""
    cudagraph_mode: str | None = flag(
        choices=("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"), any_case=True,
        concept="CUDA-graph mode", metavar="MODE",
        help="the cudagraph_mode key of vLLM's JSON compilation config (vLLM 0.11.1+): which CUDA graphs are "
             "captured, counted by the CUDA-graph estimate (default: the --optimization-level's, FULL_AND_PIECEWISE "
             "at level 2)")
    """``CompilationConfig.cudagraph_mode`` (``config/compilation.py CUDAGraphMode``, 0.11.1–0.33.0), as
    ``--compilation-config '{"cudagraph_mode": "PIECEWISE"}'`` sets it; None = the optimization level's
    (``cudagraph_mode_of``).  vLLM's own downgrades for backends without FULL-graph support are not modelled."""

    vllm_use_v2_model_runner: str | None = flag(
        choices=("0", "1"), group="model runner",
        help="the VLLM_USE_V2_MODEL_RUNNER environment variable the server ran with: 1 = Model Runner V2 "
             "(v1/worker/gpu/), 0 = the V1 runner (gpu_model_runner.py); default: the release's choice for the "
             "model (V1 up to 0.21, V2 for some models in 0.22-0.28 and for every model from 0.29 unless a "
             "feature it lacks sends it back to V1); vLLM 0.12+; --from-log reads it from the log")
    """``VLLM_USE_V2_MODEL_RUNNER`` (``envs.py``; vLLM 0.12.0+): ``"1"`` / ``"0"`` force Model Runner V2 / the V1
    runner, as ``config/vllm.py VllmConfig.use_v2_model_runner`` honours the variable before its own choice
    (0.22.0–0.33.0; 0.12.0–0.21.0 read it in ``v1/worker/gpu_worker.py``, default "0"); None = the release's
    choice (``engines.vllm.inputs.uses_v2_runner``).  0 / 1 / True / False are accepted from the API."""
    vllm_allow_long_max_model_len: str | None = flag(
        choices=("on", "off"), metavar="on|off",
        help="the VLLM_ALLOW_LONG_MAX_MODEL_LEN environment variable the server ran with: on = a --max-model-len above "
             "the model's derived maximum (max_position_embeddings, times a RoPE scaling factor) is served, with "
             "vLLM's warning that positions past it give NaN (RoPE) or out-of-bounds errors; off (default) = vLLM "
             "refuses it; --from-log reads it from the log's launch line")
    """``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` (``envs.py``): vLLM's ``_get_and_verify_max_len`` (config.py in 0.6.2,
    config/model.py in 0.34.0) raises "User-specified max_model_len (N) is greater than the derived max_model_len
    … To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" unless it is set, and
    then only warns (``engines.vllm.inputs._max_model_len``; helper ux26).  None / ``"off"`` = unset; ``"on"`` /
    ``"off"``, 1 / 0 and True / False from the API."""
    vllm_mxfp4_use_marlin: str | None = flag(
        choices=("on", "off"), metavar="on|off",
        help="the VLLM_MXFP4_USE_MARLIN environment variable the server ran with: on = an MXFP4 MoE model "
             "(gpt-oss) runs vLLM's Marlin MoE backend on Hopper too, whose experts are padded (intermediate/tp to "
             "128, hidden to 256) instead of the Triton backend's swizzled layout; vLLM 0.10.1 and 0.12-0.23 (gone "
             "in 0.24); --from-log reads it from the log")
    """``VLLM_MXFP4_USE_MARLIN`` (``envs.py``, 0.10.1–0.23.x): ``engines.vllm.mxfp4.marlin_forced``.  None / ``"off"``
    = unset (the release's backend choice); ``"on"`` / ``"off"``, 1 / 0 and True / False from the API."""
    vllm_memory_profiler_estimate_cudagraphs: str | None = flag(
        choices=("0", "1"), group="model runner",
        help="the VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS environment variable the server ran with: 1 = the "
             "CUDA-graph memory estimate is subtracted before KV sizing, 0 = it is not (vLLM then only warns); "
             "default: the release's (0 in 0.18-0.19, 1 from 0.20); vLLM 0.18+")
    """``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` (``envs.py``, from 0.18.0: default ``"0"`` in 0.18.0–0.19.x,
    ``"1"`` from 0.20.0; absent in 0.17.1): ``v1/worker/gpu_worker.py Worker.determine_available_memory`` subtracts
    the runner's ``profile_cudagraph_memory`` from the KV budget only when it is on (0.18.0, 0.19.0, 0.26.0,
    0.30.0 wheels; with it off the estimate is still measured and printed, with a warning); None = the release's
    default (``VllmRules.cudagraph_estimate``; ``cudagraph_estimate_applied``).  0 / 1 / True / False are
    accepted from the API."""
    compile_cache: str = flag(
        "cold", choices=COMPILE_CACHE_STATES, tpkit=True,
        help="vLLM's torch.compile cache at start-up; a tpkit option, not a vLLM flag: cold (default, a first start: "
             "empty cache, a fresh container or pod) charges the cold-compile scratch of vLLM 0.22-0.32 Model "
             "Runner V2 and 0.11.1-0.32 V1-runner runs in the profile peak, warm (a restart that loads the compiled graphs from the cache) drops it; "
             "--from-log reads it from the log")
    """the torch.compile cache the start-up finds: ``"cold"`` (a first start; the default) or ``"warm"`` (every graph
    loaded from vLLM's cache).  Only Model Runner V2 runs of 0.22–0.32 and V1-runner runs of 0.11.1–0.32
    (``VllmRules.v1_vocab_hidden_peak``) with torch.compile on depend on it
    (``engines.vllm.profile``, "cold compile scratch"; ``profile_lines._cold_compile``)"""
    vllm_entrypoint: str = flag(
        "serve", choices=ENTRYPOINTS, tpkit=True,
        help="how vLLM was started; a tpkit option, not a vLLM flag: serve (default: vllm serve / the OpenAI API "
             "server) or llm (the offline vllm.LLM class: python scripts, notebooks, benchmark_throughput.py / "
             "benchmark_latency.py), whose default --max-num-batched-tokens is larger on V1 (16384 on >= 70 GiB "
             "devices other than A100, else 8192, against 8192 / 2048); --from-log reads it from the log")
    """the entrypoint that built the engine, which picks V1's ``UsageContext`` batch defaults (``engine/arg_utils.py
    _set_default_args_v1`` 0.8.x, ``get_batch_defaults`` 0.9.x–0.33; ``engines.vllm.batch_defaults.default_batched_tokens``):
    ``"serve"`` (``OPENAI_API_SERVER``) or ``"llm"`` (``LLM_CLASS``).  Only V1 releases read it, and only when
    ``--max-num-batched-tokens`` is not given; ``max_num_seqs`` defaults are the same for both (read in the 0.8.0,
    0.8.4, 0.8.5, 0.9.0, 0.9.2, 0.10.0, 0.11.0, 0.11.1, 0.19.0, 0.23.0, 0.28.0 and 0.33.0 wheels)"""
    enable_lora: bool = shared_flag("enable_lora")
    """``--enable-lora``: the LoRA manager wraps every linear layer (and embed_tokens / lm_head) with stacked A/B
    buffers inside the load delta (``engines.vllm.lora``)"""
    max_loras: int | None = flag(kind="int", unit="adapters", group="LoRA", concept="LoRA adapter slots",
                                 help="LoRA adapters in one batch (vLLM's default 1)")
    """``--max-loras``: adapter slots on the GPU; None = 1"""
    max_lora_rank: int | None = shared_flag("max_lora_rank")
    """``--max-lora-rank``: the buffers' rank; None = 16"""
    max_cpu_loras: int | None = flag(kind="int", unit="adapters", group="LoRA",
                                     help="adapters cached in CPU memory (no GPU memory; must be ≥ --max-loras)")
    """``--max-cpu-loras``: the CPU-side adapter cache (checked, no GPU term)"""
    fully_sharded_loras: bool = flag(False, kind="bool", group="LoRA",
                                     help="shard the LoRA rank (column layers) and outputs (row layers) over TP")
    """``--fully-sharded-loras``: A of column-parallel and B of row-parallel layers split over TP"""
    lora_dtype: str | None = flag(choices=("auto", "float16", "bfloat16", "float32"), group="LoRA",
                                  help="LoRA buffer dtype (auto: the model's)")
    """``--lora-dtype``: the A/B buffers' element type; None/auto = the model dtype"""
    lora_extra_vocab_size: int | None = flag(kind="int", unit="tokens", group="LoRA",
                                             help="extra vocabulary rows of LoRA adapters (vLLM ≤ 0.11; default 256)")
    """``--lora-extra-vocab-size`` (vLLM ≤ 0.11.x): extra embedding rows; None = 256"""

    def __post_init__(self) -> None:
        """Refuse a flag value or a flag the release does not have (``engines.vllm.option_checks``: one named
        validator per rule, in the order they have always run)."""
        from tpkit.engines.vllm.option_checks import check_options  # not at import: the flag table needs no checks
        from tpkit.engines.vllm.versions import resolve_rules  # not at import: the flag table needs no rules

        check_options(self, resolve_rules(self.engine_version))


def extensible_kv_active(options: "VllmOptions", rules) -> bool:
    """vLLM sizes the KV cache the extensible way (``VllmRules.extensible_kv_cache``, vLLM ≥ 0.34.0): on by default
    on CUDA and ROCm, off with ``--no-enable-extensible-kv-cache`` or ``--kv-cache-memory-bytes`` (``config/vllm.py
    _resolve_extensible_kv_cache``: "kv_cache_memory_bytes overrides" it; the KV connectors, elastic EP and the
    drivers without virtual-memory management that keep it off are not modelled)."""
    return (getattr(rules, "extensible_kv_cache", False) and rules.engine == "V1"
            and not options.no_enable_extensible_kv_cache and options.kv_cache_memory_bytes is None)


def v2_runner_override(options: "VllmOptions") -> bool | None:
    """``--vllm-use-v2-model-runner`` as a switch: True (1), False (0) or None (not given: the release's choice)."""
    v2 = options.vllm_use_v2_model_runner
    return None if v2 is None else str(v2) in ("1", "True")


def cudagraph_estimate_applied(options: "VllmOptions", rules) -> bool:
    """vLLM subtracts its CUDA-graph estimate before KV sizing (``v1/worker/gpu_worker.py
    determine_available_memory``: ``cudagraph_memory_estimate_applied`` is the estimate when
    ``envs.VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` is on, else 0; 0.18.0–0.33.0): the user's
    ``--vllm-memory-profiler-estimate-cudagraphs`` where given, else the release's default
    (``VllmRules.cudagraph_estimate``: envs.py "0" in 0.18–0.19, "1" from 0.20.0)."""
    given = options.vllm_memory_profiler_estimate_cudagraphs
    return rules.cudagraph_estimate if given is None else str(given) in ("1", "True")


def cudagraph_mode_of(options: "VllmOptions") -> str:
    """The ``CUDAGraphMode`` the run captures with: ``--cudagraph-mode`` if given, else the optimization level's
    (``config/vllm.py OPTIMIZATION_LEVEL_00``…``03``, 0.15.0–0.33.0: NONE, PIECEWISE, FULL_AND_PIECEWISE ×2), and
    NONE under ``--enforce-eager``.  At -O0 torch.compile is off, so a mode with PIECEWISE graphs falls back to
    NONE ('is not compatible with compilation mode', ``VllmConfig.__post_init__``, 0.29.0)."""
    if options.enforce_eager:
        return "NONE"
    level = 2 if options.optimization_level is None else options.optimization_level
    mode = str(options.cudagraph_mode).upper() if options.cudagraph_mode is not None else \
        ("NONE", "PIECEWISE", "FULL_AND_PIECEWISE", "FULL_AND_PIECEWISE")[level]
    if level == 0 and mode in ("PIECEWISE", "FULL_AND_PIECEWISE"):
        return "NONE"
    return mode


def torch_compile_off(options: "VllmOptions") -> bool:
    """torch.compile off: ``--enforce-eager`` or ``--optimization-level 0`` (``CompilationMode.NONE`` either way,
    with every custom op on: ``config/vllm.py VllmConfig.__post_init__``, 0.15.0–0.33.0)."""
    return bool(options.enforce_eager) or options.optimization_level == 0
