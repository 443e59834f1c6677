"""``SglangOptions``: the SGLang launch flags that change memory sizing (frozen value type)."""

from __future__ import annotations

import math

from tpkit.dtypes import lookup_dtype
from tpkit.engines.engine import check_fraction, check_switches, check_whole_numbers, flag, shared_flag
from tpkit.engines.sglang.versions import LATEST, at_least, parse_version
from tpkit.errors import PlanInputError
from tpkit.records import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.startup.links import LinkChoice

__all__ = ["SglangOptions", "host_gpu_specs", "KV_CACHE_DTYPES", "LAUNCH_REFUSED_KV_DTYPES",
           "UNMODELLED_KV_DTYPES", "unmodelled_kv_error", "SPEC_ALGORITHMS",
           "A2A_BACKENDS", "ATTENTION_BACKENDS", "explicit_kv_dtype"]

KV_CACHE_DTYPES = ("auto", "bf16", "bfloat16", "fp16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2")
"""accepted ``--kv-cache-dtype`` spellings (their meaning: ``tpkit.dtypes``; ``auto`` follows the model)"""


LAUNCH_REFUSED_KV_DTYPES = (
    ("fp8", "SGLang's fp8 spellings are fp8_e4m3 (0.4.2+) and fp8_e5m2: write --kv-cache-dtype fp8_e4m3 (tpkit plans "
            "'fp8' as it; 'fp8' is vLLM's spelling)"),
    ("fp16", "SGLang has no fp16 KV spelling: its KV cache follows --dtype under auto, so write --kv-cache-dtype auto "
             "(with --dtype float16 for a bf16 checkpoint)"),
    ("float16", "SGLang has no float16 KV spelling: its KV cache follows --dtype under auto, so write --kv-cache-dtype "
                "auto (with --dtype float16 for a bf16 checkpoint)"),
)
"""``KV_CACHE_DTYPES`` spellings that SGLang's own ``--kv-cache-dtype`` refuses ("invalid choice"): its argparse
``choices`` are auto + fp8_e5m2 (0.2.15, 0.3.0, 0.3.6.post3, 0.4.0, 0.4.1), + fp8_e4m3 (0.4.2 – 0.4.7), + bf16,
bfloat16 (0.5.4; not in 0.4.7), + fp4_e2m1 (0.5.6 – 0.5.13) in ``srt/server_args.py`` ``add_cli_args``, and auto,
fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16, nvfp4, fp4_mx_block16 in 0.5.23 ``srt/arg_groups/fields/model.py``
(wheels read by helper nb29): no release takes fp8, fp16 or float16.  ``SglangOptions`` still takes them
(fp8 = fp8_e4m3) for the Python API; the command line refuses them (``Flag.refused``)."""

UNMODELLED_KV_DTYPES = {
    "fp4_e2m1": "0.5.9 (server_args.py choices; absent in 0.5.4, present in 0.5.9 and 0.5.10)",
    "mxfp8": "0.5.23 (arg_groups/fields/model.py choices)",
    "nvfp4": "0.5.23 (arg_groups/fields/model.py choices)",
    "fp4_mx_block16": "0.5.23 (arg_groups/fields/model.py choices)",
}
"""SGLang ``--kv-cache-dtype`` values whose packed layout (fp4/mx data + block scales) tpkit does not model, with
the release they were read in: refused with a clear error, never sized as the model dtype"""


def unmodelled_kv_error(spelling: str) -> PlanInputError:
    """The user error for an SGLang fp4/mx KV dtype tpkit does not model."""
    return PlanInputError(f"--kv-cache-dtype {spelling}: SGLang accepts it (seen in {UNMODELLED_KV_DTYPES[spelling]}) "
                          "but tpkit does not model its packed fp4/mx KV layout, and sizing it as the model dtype "
                          "would be wrong; plan with auto, bf16, fp8_e4m3 or fp8_e5m2 instead")


def explicit_kv_dtype(spelling: str) -> str | None:
    """The canonical KV dtype ``--kv-cache-dtype`` asks for, None for ``auto``."""
    return None if spelling == "auto" else lookup_dtype(spelling).name

SPEC_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE")
"""``--speculative-algorithm`` values tpkit sizes (NEXTN is SGLang's alias of EAGLE; NGRAM is not modelled)"""
A2A_BACKENDS = ("none", "deepep")
"""``--moe-a2a-backend`` values tpkit sizes"""
ATTENTION_BACKENDS = ("triton", "torch_native", "flex_attention", "nsa", "dsa", "dsv4", "compressed", "cutlass_mla",
                      "cutedsl_mla", "fa3", "fa4", "flashinfer", "flashmla", "trtllm_mla", "tokenspeed_mla",
                      "trtllm_mha", "dual_chunk_flash_attn", "aiter", "wave", "intel_amx", "ascend", "intel_xpu")
"""SGLang's ``--attention-backend`` values, lower case as SGLang's argparse ``choices`` take them (``server_args.py``
``add_cli_args`` in 0.4.7; ``ATTENTION_BACKEND_CHOICES`` in the 0.5.4, 0.5.6, 0.5.12.post1 and 0.5.13 wheels; a
name of some releases only is accepted for every release).  Only ``aiter`` changes the plan: the ROCm × 0.85
(``choices.rocm_aiter_factor``)."""

MAX_PAGE_SIZE = 65_536
"""largest ``--page-size`` tpkit plans (tokens); above it the padding page alone may exceed a GPU (fuzz seed 16)"""
_POSITIVE_INTS = ("context_length", "page_size", "max_total_tokens", "cuda_graph_max_bs", "max_running_requests",
                  "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens")


MOE_RUNNER_BACKENDS = ("auto", "deep_gemm", "triton", "triton_kernel", "flashinfer_trtllm", "experimental_sgl_trtllm",
                       "flashinfer_trtllm_routed", "flashinfer_cutlass", "flashinfer_mxfp4", "flashinfer_cutedsl",
                       "flashinfer_megamoe", "cutlass", "aiter", "marlin", "humming")
"""``--moe-runner-backend``'s values in any release: ``MOE_RUNNER_BACKEND_CHOICES`` of ``srt/server_args.py``, the
union over the 0.5.8, 0.5.15, 0.5.18 and 0.5.23 wheels (0.5.8: auto … cutlass; 0.5.15 adds experimental_sgl_trtllm,
flashinfer_trtllm_routed, aiter, marlin; 0.5.18 humming; 0.5.23 flashinfer_megamoe)"""

@dataclass(frozen=True, kw_only=True, slots=True)
class SglangOptions:
    """SGLang server arguments that size memory; ``None`` means "the engine's default"."""

    engine_version: str = flag(
        LATEST, metavar="RELEASE",
        help="release whose rules apply, e.g. 0.5.8 (default: with a log, its release, printed or inferred from "
             "its line formats; else the newest release tpkit read, which the output names)")
    """SGLang release whose rules apply (e.g. ``"0.5.23"``, ``"0.4.10"``)"""
    mem_fraction_static: float | None = flag(
        kind="fraction", unit="fraction", concept="memory fraction",
        help="fraction (0, 1] of the free memory before weight load kept for weights + KV cache "
             "(default: SGLang's rule for the GPU and version)")
    """fraction (0, 1] of the free memory before weight load kept for weights + KV; None = engine default rule"""
    context_length: int | None = flag(kind="int", unit="tokens", concept="context length",
                                      help="tokens per request (default: the model's max_position_embeddings)")
    """tokens per request; None = the model's ``max_position_embeddings``"""
    page_size: int | None = flag(kind="int", unit="tokens", concept="KV page", help="tokens per KV page (default 1)")
    """tokens per KV page; None = 1 (the default of most attention backends)"""
    kv_cache_dtype: str = flag("auto", choices=KV_CACHE_DTYPES + tuple(UNMODELLED_KV_DTYPES),
                               refused=LAUNCH_REFUSED_KV_DTYPES, help="KV cache element type (auto: the model's)")
    """``auto`` | ``bf16`` | ``fp16`` | ``fp8_e4m3`` | ``fp8_e5m2`` (``fp8`` = ``fp8_e4m3``)"""
    dtype: str | None = flag(help="weight dtype: auto, bfloat16, float16, float32 (default auto: the "
                                              "checkpoint's)")
    """weight/activation dtype override (``bfloat16``, ``float16``); None = the checkpoint's"""
    quantization: str | None = flag(help="weight quantisation override, e.g. fp8 (default: the checkpoint's "
                                                     "quantization_config)")
    """weight quantisation override (e.g. ``fp8``); None = the checkpoint's"""
    cpu_offload_gb: float | None = flag(
        kind="gib", unit="GiB per GPU", metavar="GIB", concept="weight offload",
        help="GiB of weights per GPU the engine keeps in CPU memory (GiB = 2^30 B, per GPU, as both engines read "
             "it): decoder layers in order, whole parameters; SGLang takes a whole number")
    """``--cpu-offload-gb``: GiB per GPU of decoder-layer parameters SGLang moves to pinned CPU memory
    (``engines.offload``; ``type=int`` in SGLang); None/0 = none"""
    max_total_tokens: int | None = flag(kind="int", unit="tokens per rank",
                                        help="cap on the KV token pool, per rank (default: no cap)")
    """cap on the KV token pool (tokens per rank)"""
    chunked_prefill_size: int | None = flag(kind="int", unit="tokens",
                                            help="tokens per prefill chunk; -1 disables chunked prefill")
    """tokens per prefill chunk; None = capacity default; ≤ 0 disables chunking"""
    cuda_graph_max_bs: int | None = flag(kind="int", unit="requests",
                                         help="largest decode batch captured in a CUDA graph (default: SGLang's rule "
                                              "for the GPU memory and tp)")
    """largest decode batch captured in a CUDA graph; None = capacity default"""
    max_running_requests: int | None = flag(kind="int", unit="requests", concept="running requests",
                                             help="cap on concurrently running requests (default: SGLang's, from the "
                                                  "KV pool size)")
    """cap on concurrently running requests"""
    checkpoint_dir: str | None = None
    """local checkpoint directory (exact weight bytes from safetensors headers)"""
    links: LinkChoice | None = None
    """what the user (``--link``, ``--no-p2p``, ``--nnodes``) or the log says about the GPUs' links, in place of the
    catalog's or the machine profile's (``tpkit.startup.links``); None: not said"""
    disable_custom_all_reduce: bool = shared_flag("disable_custom_all_reduce")
    """``--disable-custom-all-reduce``: SGLang allocates no custom all-reduce buffers (NCCL only)"""
    speculative_algorithm: str | None = flag(
        choices=SPEC_ALGORITHMS, concept="speculative decoding",
        help="speculative decoding: draft weights, draft KV pool and req_to_token columns are planned")
    """``EAGLE`` | ``EAGLE3`` | ``NEXTN`` (= EAGLE with the target's MTP layers) | ``STANDALONE``; None = off"""
    speculative_draft_model_path: str | None = flag(
        metavar="MODEL", help="draft model: config.json, checkpoint dir, HF id or catalog name (default for NEXTN/EAGLE on "
             "DeepSeek-style targets: the model's own MTP layers)")
    """draft config location (as ``load_model``); None = the target's MTP layers where SGLang defaults to them"""
    speculative_num_steps: int | None = flag(kind="int", unit="steps",
                                             help="draft steps per verify (default: SGLang's choice for the model, "
                                                  "3, or 5 for Llama)")
    """draft steps per verify; None = SGLang's choice for the architecture (3, or 5 for Llama)"""
    speculative_eagle_topk: int | None = flag(kind="int", unit="branches",
                                              help="draft branches per step (default: SGLang's choice, 1, or 4 for "
                                                   "Llama)")
    """draft branching per step; None = SGLang's choice (1, or 4 for Llama)"""
    speculative_num_draft_tokens: int | None = flag(kind="int", unit="tokens",
                                                    help="tokens verified per step (req_to_token columns; default: "
                                                         "SGLang's choice, 4, or 8 for Llama; steps + 1 at topk 1)")
    """tokens verified per step; None = SGLang's choice (4, or 8 for Llama); steps + 1 when topk is 1"""
    enable_dp_attention: bool = flag(
        False, kind="bool",
        help="attention data parallel inside the TP group: --dp attention ranks of tp/dp GPUs each, one KV pool "
             "per attention-DP rank (GPUs = tp × pp)")
    """``--enable-dp-attention``: ``--dp`` is the attention-DP size inside the TP group"""
    language_model_only: bool = shared_flag("language_model_only")
    """``--language-model-only`` (SGLang ≥ 0.5.18; ``engines.sglang.towers``)"""
    disable_radix_cache: bool = flag(
        False, kind="bool", group="radix cache",
        help="as in SGLang: no prefix (radix) cache; with --max-running-requests a hybrid sliding-window model's "
             "SWA pool is sized from the request cap (SGLang 0.5.14+)")
    """``--disable-radix-cache``: with ``--max-running-requests``, the request-capped SWA pool
    (``swa_cap.swa_pool_choice``)"""
    disable_overlap_schedule: bool = flag(
        False, kind="bool", group="overlap schedule",
        help="as in SGLang: no overlap scheduler (one prefill chunk in flight in the request-capped SWA pool)")
    """``--disable-overlap-schedule`` (SGLang also turns it off with pp > 1)"""
    swa_full_tokens_ratio: float | None = flag(
        kind="fraction", unit="fraction", concept="SWA pool ratio",
        help="SWA-layer KV tokens / full-layer KV tokens of a hybrid sliding-window model, in (0, 1] (default 0.8)")
    """``--swa-full-tokens-ratio``; None = SGLang's default 0.8"""
    mamba_full_memory_ratio: float | None = flag(
        kind="number", unit="ratio", concept="state pool ratio", metavar="RATIO",
        help="hybrid linear-attention (mamba) models, SGLang ≥ 0.5.4: state-pool memory / KV-pool memory, > 0 "
             "(default 0.9)")
    """``--mamba-full-memory-ratio`` ρ: the state pool takes ρ/(1 + ρ) of the KV budget
    (``engines.sglang.mamba.plan_mamba_pool``); None = SGLang's default 0.9.  The flag arrived in 0.5.4 with the
    ratio split (``server_args.py``: absent from the 0.5.3 wheel; ``mamba_full_memory_ratio: float = 0.9`` in 0.5.4,
    0.5.6, 0.5.8, 0.5.15, 0.5.16; 0.5.23 ``arg_groups/fields/schedule.py``: None resolved to 0.9).  SGLang checks no
    range; tpkit refuses ρ ≤ 0 (no state pool: a hybrid cannot run) and a value that is not a finite number.  Not
    modelled: 0.5.23's Inkling override of the default to 0.1 (``arg_groups/model_overrides/inkling.py``; tpkit
    plans no Inkling state pool)."""
    mamba_ssm_dtype: str | None = flag(
        choices=("float32", "bfloat16", "float16"), metavar="DTYPE", concept="SSM state dtype",
        help="hybrid linear-attention (mamba / Gated DeltaNet) models: dtype of the per-request SSM state in "
             "SGLang's state pool (default: the config's mamba_ssm_dtype from SGLang 0.5.9, else float32; "
             "float16 from 0.5.9)")
    """``--mamba-ssm-dtype``: element size of the temporal (SSM) state in the mamba pool and of the speculative
    intermediate states (``engines.sglang.mamba.ssm_state_choice``); None = SGLang's default (0.5.3 – 0.5.8
    float32; 0.5.9 – 0.5.19 the config's ``mamba_ssm_dtype``, else float32).  Choices float32 / bfloat16 in
    0.5.3 – 0.5.8 ``server_args.py``, + float16 from 0.5.9 (0.5.16 – 0.5.19 the same three)."""
    mm_feature_transport: str | None = flag(
        choices=("cpu", "cuda_ipc", "cuda_vmm"), metavar="TRANSPORT", concept="multimodal feature transport",
        help="multimodal models, SGLang ≥ 0.5.16: cpu, or a GPU pool of SGLANG_MM_FEATURE_CACHE_MB (1024 MiB) that "
             "comes out of the KV budget (default: cuda_ipc on one node in 0.5.17, else cpu; cuda_vmm from 0.5.18)")
    """``--mm-feature-transport`` (``engines.sglang.multimodal.resolved_transport`` / ``mm_reservation``); None =
    SGLang's default.  The flag arrives in 0.5.16 (absent from 0.5.15); cuda_vmm from 0.5.18."""
    disable_cuda_graph: bool = flag(
        False, kind="bool", concept="CUDA graphs",
        help="as in SGLang: no CUDA graphs; from 0.5.14/0.5.15 SGLang's default --mem-fraction-static reserve "
             "drops its prefill/decode graph terms (a larger default fraction; earlier releases: unchanged)")
    """``--disable-cuda-graph`` (SGLang 0.5.23: the deprecated spelling of ``--cuda-graph-backend-{decode,prefill}
    =disabled``): the default reserve per release (``defaults._decode_graph_term``, ``graphs.prefill_graphs``) and
    no graph-capture room in the slack check (``sizing.graph_slack_need``)"""
    sglang_int4_weight: str | None = flag(
        choices=("on", "off"), metavar="on|off",
        help="the SGLANG_INT4_WEIGHT environment variable the server ran with (AMD / HIP only; SGLang 0.4.4+, "
             "USE_INT4_WEIGHT before 0.4.7): on = the routed experts of an fp8 MoE model are int4 packed eight to a "
             "32-bit word with fp32 per-channel scales, about half the fp8 bytes; off (default) = fp8 experts; "
             "changes nothing on NVIDIA")
    """``SGLANG_INT4_WEIGHT`` (``layers/quantization/fp8.py`` ``Fp8MoEMethod.create_weights``, 0.4.7 – 0.5.23;
    ``USE_INT4_WEIGHT`` in 0.4.4 – 0.4.6): ``engines.sglang.int4``; None / ``"off"`` = unset (SGLang's default).
    ``"on"`` / ``"off"``, and True / False from the API."""
    host_gpus: str | None = flag(
        metavar="GPU,GPU", concept="host GPUs",
        help="every GPU model on the host, comma-separated (e.g. RTX-3090,RTX-5090), when it holds cards other than "
             "--gpu: SGLang 0.3.6+ sizes its default --mem-fraction-static, chunked prefill and graph batch by the "
             "smallest card nvidia-smi lists, which CUDA_VISIBLE_DEVICES does not filter (default: --gpu alone)")
    """``--host-gpus``: the host's cards as nvidia-smi (rocminfo) lists them, catalog names, comma-separated; the
    smallest sets SGLang's capacity defaults (``defaults.host_capacity_mib``, ``host_gpu_specs``); None = only the
    serving card"""
    attention_backend: str | None = flag(
        choices=ATTENTION_BACKENDS, metavar="BACKEND", any_case=True,
        help="the engine's attention backend. SGLang: its lower-case names (triton, aiter, fa3, flashinfer …; "
             "default: the release's choice for the GPU and model); on AMD only aiter, the ROCm default for most "
             "models, scales --mem-fraction-static by 0.85 above 8192 tokens of context. vLLM: any case (FLASH_ATTN, "
             "TRITON_ATTN, FLASHINFER …; an MLA model takes an *MLA* backend; default auto); FlashInfer's 394 MiB "
             "workspace is in the CUDA-graph estimate of vLLM 0.20+")
    """``--attention-backend``; None = the release's default (``choices.rocm_aiter_factor`` reads the HIP default).
    Only the ROCm aiter factor reads it."""
    moe_a2a_backend: str = flag("none", choices=A2A_BACKENDS,
                                help="MoE all-to-all backend (default none; deepep adds its reserve)")
    """``none`` | ``deepep``"""
    moe_runner_backend: str = flag("auto", metavar="BACKEND", choices=MOE_RUNNER_BACKENDS,
                                   help="MoE runner backend (default auto: SGLang 0.5.8+ picks flashinfer_trtllm "
                                        "for bf16 Qwen3-MoE on SM 10.x and pads the expert width to 128)")
    """``--moe-runner-backend``; only ``flashinfer_trtllm`` (or ``auto`` where SGLang picks it) is read, by the
    expert-width padding of ``engines.sglang.trtllm_moe``; any other value a release accepts is taken and changes
    nothing (``MOE_RUNNER_BACKENDS``)"""

    enable_lora: bool = shared_flag("enable_lora")
    """``--enable-lora``: SGLang's ``LoRAMemoryPool`` is allocated after the weights, before the KV pool is sized
    (``engines.sglang.lora``)"""
    max_loras_per_batch: int | None = flag(kind="int", unit="adapters", group="LoRA", concept="LoRA adapter slots",
                                           help="SGLang: adapter slots in the LoRA memory pool (default 8)")
    """``--max-loras-per-batch``: the pool's adapter slots; None = 8"""
    max_lora_rank: int | None = shared_flag("max_lora_rank")
    """``--max-lora-rank``: the pool's rank (required with --enable-lora: SGLang infers it from the adapters)"""
    lora_target_modules: str | None = flag(group="LoRA", metavar="MODULES",
                                           help="SGLang: modules with LoRA buffers, e.g. 'q_proj v_proj' or 'all' "
                                                "(default: the linear projections)")
    """``--lora-target-modules`` (space- or comma-separated, or ``all``); None = q/k/v/o/gate/up/down"""

    def __post_init__(self) -> None:
        """Refuse a bad flag (exit 2 at the CLI): the steps below, in this order (the first bad flag's error)."""
        _check_release_and_sizes(self)
        _check_speculative(self)
        _check_hybrid_pools(self)
        _check_multimodal(self)
        _check_scheduling_and_kv(self)
        if self.host_gpus is not None:
            host_gpu_specs(self.host_gpus)


def host_gpu_specs(value) -> tuple:
    """The catalog GPUs ``--host-gpus`` names (a comma-separated text, or a list of names from the API); an empty
    list or an unknown name is the user's error (exit 2)."""
    from tpkit.errors import UnknownGpuError
    from tpkit.hardware.catalog import lookup_gpu

    names = [n.strip() for n in (value.split(",") if isinstance(value, str) else value or ()) if str(n).strip()]
    if not names:
        raise PlanInputError(f"--host-gpus got {value!r}: name the host's GPU models, comma-separated, e.g. "
                             "--host-gpus RTX-3090,RTX-5090 (or leave the flag out when every card is the --gpu one)")
    try:
        return tuple(lookup_gpu(n) for n in names)
    except UnknownGpuError as exc:
        raise PlanInputError(f"--host-gpus {value!r}: {str(exc).split('. For a GPU not in the catalog')[0]}; name "
                             "each card of the host as the catalog spells it") from None


def _check_release_and_sizes(o: SglangOptions) -> None:
    """The release, then the sizes and switches: ``--language-model-only`` from 0.5.18, ``--mem-fraction-static``,
    the whole numbers, ``--page-size``, ``--cpu-offload-gb`` (from 0.4.0) and ``--chunked-prefill-size``."""
    parse_version(o.engine_version)
    if o.language_model_only is True and not at_least(o.engine_version, "0.5.18"):
        raise PlanInputError(f"--language-model-only exists from SGLang 0.5.18 (server_args.py), not in "
                             f"{o.engine_version}; leave it out or plan a later --engine-version")
    check_fraction("mem-fraction-static", o.mem_fraction_static,
                   "SGLang keeps this fraction of the free memory before weight load for weights + KV cache "
                   "(e.g. 0.88)")
    check_whole_numbers(o, _POSITIVE_INTS)
    if o.page_size is not None and o.page_size > MAX_PAGE_SIZE:
        raise PlanInputError(f"--page-size {o.page_size:,} tokens is larger than tpkit plans ({MAX_PAGE_SIZE:,}): "
                             f"SGLang allocates one padding page beside the pool, so such a page alone can exceed "
                             f"the GPU; attention backends use pages of 1-128 tokens (e.g. 64 for FlashMLA); pass "
                             f"one of those")
    from tpkit.engines.offload import check_cpu_offload_gb

    check_cpu_offload_gb(o.cpu_offload_gb, whole=True, engine="SGLang")
    if o.cpu_offload_gb and not at_least(o.engine_version, "0.4.0"):
        raise PlanInputError(f"--cpu-offload-gb exists from SGLang 0.4.0 (server_args.py; absent in 0.3.6), not "
                             f"in {o.engine_version}; leave it out or plan --engine-version 0.4.0 or later")
    cpp = o.chunked_prefill_size
    if cpp is not None and (isinstance(cpp, bool) or not isinstance(cpp, int) or (cpp < 1 and cpp != -1)):
        raise PlanInputError(f"--chunked-prefill-size must be a whole number ≥ 1, or -1 to disable chunked "
                             f"prefill (as in SGLang), got {cpp!r}")
    check_switches(o, ("disable_custom_all_reduce", "disable_cuda_graph", "language_model_only"))
    if o.sglang_int4_weight is not None:  # engines.sglang.int4 is imported only when the flag is given (cold start)
        from tpkit.engines.sglang.int4 import check_int4_flag

        check_int4_flag(o)


def _check_speculative(o: SglangOptions) -> None:
    """``--speculative-algorithm`` is one tpkit sizes, and the other speculative flags come with it."""
    if o.speculative_algorithm is not None and o.speculative_algorithm not in SPEC_ALGORITHMS:
        raise PlanInputError(f"--speculative-algorithm {o.speculative_algorithm!r} is not sized by tpkit; use "
                             f"one of {', '.join(SPEC_ALGORITHMS)}")
    spec_flags = [n for n in ("speculative_draft_model_path", "speculative_num_steps", "speculative_eagle_topk",
                              "speculative_num_draft_tokens") if getattr(o, n) is not None]
    if spec_flags and o.speculative_algorithm is None:
        raise PlanInputError(f"--{spec_flags[0].replace('_', '-')} needs --speculative-algorithm (e.g. EAGLE3)")


def _check_hybrid_pools(o: SglangOptions) -> None:
    """The SWA and mamba pools' flags: their ratios' ranges, ``--mamba-full-memory-ratio`` from 0.5.4 and
    ``--mamba-ssm-dtype`` (float16 from ``mamba.SSM_FLOAT16_FROM``)."""
    r = o.swa_full_tokens_ratio
    if r is not None and (isinstance(r, bool) or not isinstance(r, (int, float)) or not 0 < r <= 1):
        raise PlanInputError(f"--swa-full-tokens-ratio must be in the range (0, 1] (as in SGLang), got {r!r}; it "
                             "is the SWA pool's tokens over the full pool's (e.g. 0.8)")
    rho = o.mamba_full_memory_ratio
    if rho is not None:
        if isinstance(rho, bool) or not isinstance(rho, (int, float)) or not math.isfinite(rho) or rho <= 0:
            raise PlanInputError(f"--mamba-full-memory-ratio must be a number > 0 (as SGLang divides the KV budget "
                                 f"by it: state pool = ρ/(1 + ρ) of it), got {rho!r}; e.g. 0.9 (the default)")
        if not at_least(o.engine_version, "0.5.4"):
            raise PlanInputError(f"--mamba-full-memory-ratio exists from SGLang 0.5.4 (server_args.py; absent "
                                 f"from 0.5.3), not in {o.engine_version}; leave it out or plan "
                                 "--engine-version 0.5.4 or later")
    ssm = o.mamba_ssm_dtype
    if ssm is not None:
        from tpkit.engines.sglang.mamba import SSM_DTYPE_BYTES, SSM_FLOAT16_FROM

        if ssm not in SSM_DTYPE_BYTES:
            raise PlanInputError(f"--mamba-ssm-dtype must be one of {', '.join(SSM_DTYPE_BYTES)} (as in SGLang), "
                                 f"got {ssm!r}")
        if ssm == "float16" and not at_least(o.engine_version, SSM_FLOAT16_FROM):
            raise PlanInputError(f"--mamba-ssm-dtype float16 is accepted from SGLang {SSM_FLOAT16_FROM} "
                                 f"(server_args.py MAMBA_SSM_DTYPE_CHOICES; 0.5.8 offers float32 and bfloat16), "
                                 f"not in {o.engine_version}; use bfloat16 or plan a later --engine-version")


def _check_multimodal(o: SglangOptions) -> None:
    """``--mm-feature-transport``: a known transport, in a release that has it (``multimodal.MM_TRANSPORT_FROM``;
    cuda_vmm from ``CUDA_VMM_FROM``)."""
    mmt = o.mm_feature_transport
    if mmt is not None:
        from tpkit.engines.sglang.multimodal import CUDA_VMM_FROM, MM_TRANSPORT_FROM, MM_TRANSPORTS

        if mmt not in MM_TRANSPORTS:
            raise PlanInputError(f"--mm-feature-transport must be one of {', '.join(MM_TRANSPORTS)} (as in "
                                 f"SGLang), got {mmt!r}")
        if not at_least(o.engine_version, MM_TRANSPORT_FROM):
            raise PlanInputError(f"--mm-feature-transport exists from SGLang {MM_TRANSPORT_FROM} (server_args.py; "
                                 f"absent from 0.5.15), not in {o.engine_version}; leave it out or plan "
                                 f"--engine-version {MM_TRANSPORT_FROM} or later")
        if mmt == "cuda_vmm" and not at_least(o.engine_version, CUDA_VMM_FROM):
            raise PlanInputError(f"--mm-feature-transport cuda_vmm exists from SGLang {CUDA_VMM_FROM} (0.5.17 "
                                 f"offers cpu and cuda_ipc), not in {o.engine_version}; use cuda_ipc or cpu")


def _check_scheduling_and_kv(o: SglangOptions) -> None:
    """The scheduling switches, ``--moe-runner-backend``, ``--moe-a2a-backend``, the LoRA flags (``lora.check_lora_flags``) and
    ``--kv-cache-dtype`` last (an unmodelled spelling gets its own error)."""
    for name in ("disable_radix_cache", "disable_overlap_schedule"):
        if not isinstance(getattr(o, name), bool):
            raise PlanInputError(f"{name} must be True or False, got {getattr(o, name)!r}")
    if not isinstance(o.enable_dp_attention, bool):
        raise PlanInputError(f"enable_dp_attention must be True or False, got {o.enable_dp_attention!r}")
    if o.attention_backend is not None and o.attention_backend not in ATTENTION_BACKENDS:
        folded = {b.lower(): b for b in ATTENTION_BACKENDS}.get(str(o.attention_backend).lower())
        hint = f" (SGLang reads it in lower case: {folded})" if folded else ""
        raise PlanInputError(f"--attention-backend {o.attention_backend!r} is not an SGLang attention backend{hint}; "
                             f"use one of {', '.join(ATTENTION_BACKENDS)}, or leave it out for the release's default")
    if o.moe_runner_backend not in MOE_RUNNER_BACKENDS:
        raise PlanInputError(f"--moe-runner-backend {o.moe_runner_backend!r} is not an SGLang MoE runner backend; use "
                             f"one of {', '.join(MOE_RUNNER_BACKENDS)}, or leave it out for auto")
    if o.moe_a2a_backend not in A2A_BACKENDS:
        raise PlanInputError(f"--moe-a2a-backend {o.moe_a2a_backend!r} is not sized by tpkit; use one of "
                             f"{', '.join(A2A_BACKENDS)}")
    from tpkit.engines.sglang.lora import check_lora_flags

    check_lora_flags(o, parse_version(o.engine_version))
    if o.kv_cache_dtype in UNMODELLED_KV_DTYPES:
        raise unmodelled_kv_error(o.kv_cache_dtype)
    if o.kv_cache_dtype not in KV_CACHE_DTYPES:
        raise PlanInputError(f"--kv-cache-dtype {o.kv_cache_dtype!r} is not supported; "
                             f"use one of {', '.join(KV_CACHE_DTYPES)}")
