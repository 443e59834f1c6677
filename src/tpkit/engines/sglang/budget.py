"""SGLang's KV budget and token count for one configuration: the first half of a plan (pure; no buffers, no text).

What SGLang settles first (layout check, context, NSA KV defaults, capacity defaults, the fraction in effect) lives
in ``choices.py``; this module turns those into the budget and the token count (``kv_budget`` → ``KvBudget``), and
``sizing.py`` adds the buffers and request slots:

    pre        = capacity − context − NCCL − custom AR − extra − process    (pre_model_load_memory)
    available  = pre − weights − draft weights (0.5.14+)                    (after weight load)
    slack      = pre × (1 − f)                                              (activations, graphs, cuBLAS, req_to_token)
    rest       = available − slack − multimodal caches (0.5.18+)            (KV budget, _profile_available_bytes)
    tokens     = floor_page(min((rest − state pool) // cell, --max-total-tokens))   (config_from_budget)
    cell       = target cell + int(cell × draft layers / target layers)     (speculative decoding, 0.5.14+)

Per attention-DP rank with --enable-dp-attention (each has its own pool, sized alike).
Engine functions (sglang 0.5.23, ``python/sglang/srt/``): ``distributed/bootstrap.py measure_pre_model_load_memory``,
``mem_cache/kv_cache_configurator.py KVCacheConfigurator._profile_available_bytes`` / ``config_from_budget``;
≤ 0.5.10 ``model_executor/model_runner.py ModelRunner.profile_max_num_token``.  Split from ``sizing.py`` (helper
tidy29).
"""

from __future__ import annotations


from dataclasses import replace

from tpkit.engines.sglang.baseline import Baseline, plan_baseline
from tpkit.engines.sglang.choices import (capacity_in_effect, capacity_read_mib, context_len, host_sourced,
                                          nsa_kv_defaults, plan_fraction, reserve_extras, validate_layout)
from tpkit.engines.sglang.dsv4 import dsv4_budget_tokens, dsv4_page_size
from tpkit.models.dsv4_weights import is_dsv4
from tpkit.engines.sglang.defaults import CapacityDefaults, FractionChoice
from tpkit.engines.sglang.mamba import MambaPool, plan_mamba_pool, ssm_state_choice
from tpkit.engines.sglang.kvdtype import resolve_kv_dtype
from tpkit.engines.sglang.multimodal import mm_reservation
from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.pool import (CellSize, compute_cell, nsa_model, sglang_pp_split, size_tokens,
                                       stage_layer_kinds)
from tpkit.engines.sglang.spec import (SpecPlan, budget_cell_growth, draft_cell_counted, plan_speculative,
                                       spec_running_cap,
                                       spec_running_requests)
from tpkit.engines.sglang.rope import rope_reserve, rope_reserve_term
from tpkit.engines.sglang.streams import deepgemm_workspace, forward_stream_pool, metadata_kernels
from tpkit.engines.sglang.swa import gpt_oss_one_pool, is_sm100
from tpkit.engines.sglang.swa_cap import SwaPoolChoice, swa_pool_choice
from tpkit.engines.sglang.versions import parse_version, rule_era
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.band import measured_term
from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["KvBudget", "kv_budget", "draft_weights_at_sizing", "plan_swa_pool"]


def draft_weights_at_sizing(spec: SpecPlan | None) -> Bytes:
    """Draft weight bytes resident on a rank when SGLang sizes the target's KV pool (0 when the draft loads after
    the pool, or without one).

    Read in the release wheels (``pip download --no-deps sglang==X``; 0.5.14, 0.5.15, 0.5.20, 0.5.23):
    ``Scheduler.init_model_worker`` (``managers/scheduler.py``) loads the target, then the draft worker
    (``speculative/eagle_worker_v2.py EagleDraftWorker.__init__``: the draft ``TpModelWorker``, whose
    'Load weight end' prints the draft's weights with its own embedding / lm_head), then ``init_memory_pools``:
    ``init_target_memory_pool`` sizes the target pool (``_profile_available_bytes``: the free memory now) and
    only then ``EagleDraftWorker.alloc_memory_pool`` calls ``init_lm_head``, whose ``set_embed`` /
    ``set_embed_and_head`` (``models/llama.py``) deletes the draft's own tensors for the target's.  So from
    0.5.14 (``SpecPlan.loaded_before_pool``) the budget sees the draft at load, ``SpecPlan.weights_at_load``
    (EAGLE / EAGLE3 / MTP drafts — an MTP module builds its own embedding and lm_head too, sgl-project/sglang
    PR #32468 measured it on 0.5.19; STANDALONE drafts and caller-given weights keep ``weights``); the shared
    tensors return to the slack after the pool (``KvBudget.draft_freed_after_pool``).  0.5.13 and earlier
    size the target pool inside the target's ``ModelRunner.initialize``, before the draft loads: 0."""
    if spec is None or not spec.loaded_before_pool:
        return Bytes(0)
    return max(spec.weights, spec.weights_at_load)


@dataclass(frozen=True, kw_only=True, slots=True)
class KvBudget:
    """The first half of a plan: free memory, fraction, KV budget and token count (no buffers, no text)."""

    era: str
    """rule era (first release of the era)"""
    version: str
    """SGLang release whose rules apply"""
    context_len: int
    """tokens per request"""
    page_size: int
    """tokens per KV page"""
    gpu_mem_mib: float
    """capacity SGLang's defaults read (nvidia-smi MiB)"""
    capacity: CapacityDefaults
    """chunked-prefill size and graph max batch in effect"""
    prefill_graphs: tuple[bool, str]
    """(prefill CUDA graphs on?, why)"""
    cuda_graphs: bool = True
    """decode CUDA graphs captured (False: --disable-cuda-graph)"""
    fraction: FractionChoice
    """``mem_fraction_static`` in effect and why"""
    baseline: Baseline
    """capacity and pre-weight uses of the tightest rank"""
    cell: CellSize
    """KV bytes per token per rank of the target's pool"""
    budget_cell_bytes_per_token: float
    """bytes per token the budget is divided by (the target cell + the draft's share, 0.5.14+)"""
    pre: Bytes
    """predicted pre_model_load_memory (bytes)"""
    slack: Bytes
    """pre × (1 − f) (bytes)"""
    spec: SpecPlan | None
    """speculative decoding (None: off)"""
    draft_weights_before: Bytes
    """draft weights loaded before the pool is sized (0.5.14+; bytes, else 0)"""
    mm_reserved: Bytes
    """multimodal caches reserved out of the KV budget (0.5.18+; bytes)"""
    mm_source: str
    """why"""
    rest: Bytes
    """KV budget: pre − stream pool − DeepGEMM workspace − weights − draft weights − slack − multimodal caches
    (bytes, before the state pool)"""
    mamba: MambaPool | None
    """linear-attention state pool (None for pure attention models)"""
    mamba_bytes: Bytes
    """bytes of that pool"""
    tokens: int
    """full-pool tokens per rank"""
    swa_tokens: int
    """sliding-window pool tokens per rank"""
    attn_dp: int
    """attention-DP ranks (1 without DP attention): max_running_requests is per rank"""
    stream_pool: Bytes = Bytes(0)
    """torch's CUDA stream pool SGLang's forward stream takes after the pre sample (``engines.sglang.streams``;
    0.5.9+ at world size 1, else 0)"""
    deepgemm_workspace: Bytes = Bytes(0)
    """DeepGEMM's 32 MiB cuBLASLt workspace, taken after the pre sample and before 'Load weight begin' (0.5.15+ on
    CUDA compute capability ≥ 9.0 but 12.0, every world size; ``engines.sglang.streams.deepgemm_workspace``, the rule
    ``tpkit explain`` charges: ``explain.sgrelease.deepgemm_workspace_for``)"""
    first_kernels: Bytes = Bytes(0)
    """the expert-location metadata's first kernels, after the pre sample (0.4.6.post5–0.4.9.x at world size 1,
    ``engines.sglang.streams.metadata_kernels``; the load usage's extra is less by as much, ``policy.load_usage``)"""
    rope_reserve: Bytes = Bytes(0)
    """SGLang 0.5.6+'s RoPE cache pre-expansion after 'Load weight end', before the budget sample: a band term over
    0 … one allocator segment (``engines.sglang.rope.rope_reserve_term``, the rule ``tpkit explain`` charges)"""
    rope_source: str = ""
    """why"""
    draft_freed_after_pool: Bytes = Bytes(0)
    """the draft's own shared tensors (embedding, lm_head) charged in ``draft_weights_before`` that ``set_embed``
    frees after the target's pool is sized (``draft_weights_at_sizing``): they return to the slack (bytes)"""
    draft_in_budget: bool = True
    """whether the target's cell carries the draft layers (``spec.draft_cell_counted``): False for an EAGLE MTP draft
    without ``--speculative-draft-model-path`` on an architecture SGLang does not fill it for; its draft KV pool then
    comes from the slack after the target's pool"""
    swa_pool: SwaPoolChoice | None = None
    """the hybrid-SWA configurator SGLang picks and why (``swa_cap.swa_pool_choice``); None for other layouts"""
    lora: Bytes = Bytes(0)
    """``--enable-lora``: SGLang's LoRA memory pool, allocated after the weights and before the budget sample
    (``engines.sglang.lora``; bytes, else 0)"""
    lora_source: str = ""
    """why"""
    lora_notes: tuple[str, ...] = ()
    """what the LoRA plan assumes or leaves out"""


def _target_kv_layers(cell: CellSize) -> int:
    return cell.full_layers + cell.swa_layers


def _kv_dtype_and_page(model: ModelSpec, gpu: GpuSpec, options: SglangOptions) -> tuple[str, int]:
    """The KV dtype and page size SGLang runs with: the flags', else NSA's defaults (``nsa_kv_defaults``) or the
    DeepSeek-V4 backend's own page (``dsv4.dsv4_page_size``; the note: policy._warnings)."""
    page, version = options.page_size or 1, options.engine_version
    kv_dtype = resolve_kv_dtype(model, options)[0]
    if nsa_model(model):
        kv_dtype, page = nsa_kv_defaults(gpu, options, kv_dtype, page, version)
    elif is_dsv4(model):
        page = dsv4_page_size(version, options.page_size)[0]
    return kv_dtype, page


def _draft_cell_growth(model: ModelSpec, options: SglangOptions, cell: CellSize, spec) -> tuple[float, bool]:
    """``(bytes per token the draft's KV layers add to the budget's cell, whether the draft cell is counted)``:
    0 without a drafter, one loaded after the pool, or one the release does not count (``draft_cell_counted``)."""
    counted = spec is None or draft_cell_counted(options, model.architecture, spec.algorithm)[0]
    if spec is None or not spec.loaded_before_pool or not counted:
        return 0.0, counted
    if cell.layout == "swa":  # hybrid SWA: the draft layers join the full-attention term (F × d)
        return cell.n_kv_heads * (cell.k_dim + cell.v_dim) * cell.element_bytes * spec.draft_layers, counted
    return budget_cell_growth(cell.bytes_per_token, _target_kv_layers(cell), spec), counted


def _mamba_pool(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, spec, rest: Bytes):
    """The mamba state pool carved from ``rest`` (``plan_mamba_pool``; None without linear-attention layers), with
    the running-request caps SGLang has set (the user's, else the speculative default) and the SSM dtype."""
    version = options.engine_version
    linear = stage_layer_kinds(model, parallel.pp, sglang_pp_split(version, parallel)).count("linear")
    running_cap = _spec_running(options, parallel, spec, model.architecture)
    set_running = options.max_running_requests  # as SGLang has set it: the user's, else the speculative default
    if set_running is None and spec is not None:
        set_running = spec_running_cap(version, spec.algorithm, architecture=model.architecture).requests
    mamba = plan_mamba_pool(model, parallel.attn_tp, linear, rest, version,
                            draft_tokens=spec.num_draft_tokens if spec else None, max_running=running_cap,
                            disable_radix_cache=bool(options.disable_radix_cache), user_running=set_running,
                            attn_dp=parallel.attn_dp, full_memory_ratio=options.mamba_full_memory_ratio,
                            ssm_bytes=ssm_state_choice(model, version, options.mamba_ssm_dtype)[0])
    if mamba is not None:  # the SSM dtype behind the slot size (helper sgf14; configs/mamba_utils.py mamba2_state_dtype)
        mamba = replace(mamba, source=f"{mamba.source}; SSM state: "
                                      f"{ssm_state_choice(model, version, options.mamba_ssm_dtype)[1]}")
    return mamba


def kv_budget(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: SglangOptions, *,
              machine: MachineProfile | None, weights_bytes: Bytes,
              extra_uses: tuple[LineItem, ...] = (), draft_weights: Bytes | None = None) -> KvBudget:
    """Validate the layout and size the KV budget and token count (sglang 0.5.23 ``bootstrap.py``
    ``measure_pre_model_load_memory`` → ``kv_cache_configurator.py`` ``_profile_available_bytes`` →
    ``config_from_budget``).

    ``extra_uses`` are charged before ``pre_model_load_memory`` like the CUDA context (see ``plan_baseline``).
    """
    validate_layout(model, parallel)
    version, era = options.engine_version, rule_era(options.engine_version)
    gpu_mem_mib, host_source = capacity_read_mib(gpu, options)
    cap = capacity_in_effect(model, gpu, gpu_mem_mib, parallel, era, options)
    kv_dtype, page = _kv_dtype_and_page(model, gpu, options)
    spec = plan_speculative(model, parallel, options, kv_dtype=kv_dtype, weights=draft_weights)
    extras, graphs = reserve_extras(model, gpu, parallel, options, spec)
    fraction = plan_fraction(model, gpu, parallel, options, era=era, gpu_mem_mib=gpu_mem_mib, cap=cap, extras=extras)
    cap, fraction = host_sourced(cap, fraction, host_source, options)  # --host-gpus: which card set the class
    baseline = plan_baseline(gpu, parallel, era, machine, extra_uses=extra_uses, version=version,
                             disable_custom_all_reduce=options.disable_custom_all_reduce, links=options.links)
    cell = _target_cell(model, parallel, options, kv_dtype, spec, gpu)
    swa_pool = plan_swa_pool(cell, model, parallel, options, cap, page)
    growth, counted = _draft_cell_growth(model, options, cell, spec)
    pre = baseline.free_before_weights
    # SGLang measures the free memory, which is never below 0: a GPU smaller than the start-up costs leaves
    # no slack to reserve (and a negative default fraction must not turn a negative free into a budget)
    slack = max(pre, Bytes(0)) * (1.0 - fraction.value)
    draft_before = draft_weights_at_sizing(spec)
    mm, mm_source = _mm_reserved(model, gpu, gpu_mem_mib, options)
    stream = forward_stream_pool(version, world=parallel.tp * parallel.pp, vendor=gpu.vendor)
    workspace = deepgemm_workspace(version, compute_capability=gpu.compute_capability, vendor=gpu.vendor)
    kernels = metadata_kernels(version, world=parallel.tp * parallel.pp, vendor=gpu.vendor)
    kernels = measured_term("first_kernels")[0] if kernels and measured_term("first_kernels") else kernels  # --from-log
    found = _planned_rope(model, gpu, options, spec)
    rope = rope_reserve_term(found)
    lora = _lora(model, parallel, options)
    rest = pre - stream - workspace - kernels - weights_bytes - rope - draft_before - lora.bytes - slack - mm
    mamba = _mamba_pool(model, parallel, options, spec, rest)
    mamba_bytes = mamba.total_bytes if mamba else Bytes(0)
    budget_cell = replace(cell, bytes_per_token=cell.bytes_per_token + growth)
    if cell.layout == "dsv4":  # the formula tpkit explain uses (dsv4.dsv4_budget_tokens; 0.5.15+: c128 states first)
        cell, budget_cell, tokens, swa_tokens = _dsv4_tokens(cell, rest - mamba_bytes, options, parallel, page)
    else:
        tokens, swa_tokens = size_tokens(rest - mamba_bytes, budget_cell, page_size=page,
                                         max_total_tokens=options.max_total_tokens,
                                         swa_cap=swa_pool.swa_cap if swa_pool is not None else None)
    return KvBudget(era=era, version=version, context_len=context_len(model, options), page_size=page,
                    gpu_mem_mib=gpu_mem_mib, capacity=cap, prefill_graphs=graphs,
                    cuda_graphs=not options.disable_cuda_graph, fraction=fraction,
                    baseline=baseline, cell=cell, budget_cell_bytes_per_token=budget_cell.bytes_per_token, pre=pre,
                    slack=slack,
                    spec=spec, draft_weights_before=draft_before,
                    draft_freed_after_pool=draft_before - spec.weights if draft_before else Bytes(0), mm_reserved=mm,
                    draft_in_budget=counted,
                    mm_source=mm_source, rest=rest,
                    mamba=mamba, mamba_bytes=mamba_bytes, tokens=tokens, swa_tokens=swa_tokens,
                    attn_dp=parallel.attn_dp, stream_pool=stream, deepgemm_workspace=workspace,
                    first_kernels=kernels, rope_reserve=rope,
                    rope_source=found.source if found is not None else "", swa_pool=swa_pool,
                    lora=lora.bytes, lora_source=lora.source, lora_notes=lora.notes)


def _target_cell(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, kv_dtype: str,
                 spec: SpecPlan | None, gpu: GpuSpec) -> CellSize:
    """The target model's KV cell SGLang profiles with (bytes per token per rank, ``compute_cell``), v_head_dim
    split from 0.5.7 (``model_runner_kv_cache_mixin.py``; 0.5.6: head_dim × 2); refuses DeepSeek-V4 with
    speculative decoding (0.5.12's dsv4 rings 16 / 256 and × (L+1)/L are not wired here).  gpt-oss's one-pool
    overrides of 0.5.8 – 0.5.9 (``swa.gpt_oss_one_pool``) read the GPU, ``--attention-backend`` and speculation."""
    version = options.engine_version
    one_pool = gpt_oss_one_pool(model, version, sm100=is_sm100(gpu), attention_backend=options.attention_backend,
                                speculative=options.speculative_algorithm is not None)
    cell = compute_cell(model, parallel.attn_tp, parallel.pp, kv_dtype,
                        split_v_dim=parse_version(version) >= (0, 5, 7), version=version,
                        swa_full_tokens_ratio=options.swa_full_tokens_ratio, split=sglang_pp_split(version, parallel),
                        one_pool=one_pool)
    if spec is not None and cell.layout == "dsv4":
        raise PlanInputError(f"{model.name}: DeepSeek-V4 with speculative decoding is not modelled; plan without it")
    return cell


def _mm_reserved(model: ModelSpec, gpu: GpuSpec, gpu_mem_mib: float, options: SglangOptions) -> tuple[Bytes, str]:
    """The multimodal caches reserved off the KV budget (Bytes per rank, ``mm_reservation``) and their source."""
    return mm_reservation(model, gpu, gpu_mem_mib, options.engine_version, options.max_running_requests,
                          language_model_only=bool(options.language_model_only),
                          transport=options.mm_feature_transport,
                          nnodes=options.links.nnodes if options.links is not None else 1)


def _dsv4_tokens(cell: CellSize, budget: Bytes, options: SglangOptions, parallel: ParallelSpec, page: int):
    """DeepSeek-V4's full pool (``engines.sglang.dsv4.dsv4_budget_tokens``, shared with ``tpkit explain``): the
    per-request c128 states (0.5.15 – 0.5.19) come off the budget first and join the cell as the c128 state pool's
    rows, so the pool buffers count them.  (cell, budget cell, tokens, SWA tokens 0: the split is ``dsv4_pools``'.)"""
    layout, dcell = cell.dsv4
    sized = dsv4_budget_tokens(layout, dcell, options.engine_version, budget.bytes, page,
                               max_running_requests=options.max_running_requests, attn_dp=parallel.attn_dp,
                               max_total_tokens=options.max_total_tokens)
    if sized.c128_fixed_bytes:
        cell = replace(cell, dsv4=(layout, sized.cell), source=f"{cell.source}; c128 states per request "
                       f"{gib_text(Bytes(sized.c128_fixed_bytes), 3)} off the budget first (max_running_requests "
                       f"{sized.running}{'' if options.max_running_requests else ', the deepseek_v4_hook default'}; "
                       "DSV4PoolConfigurator._get_c128_state_fixed_bytes, 0.5.15 – 0.5.19)")
    return cell, cell, sized.full_tokens, 0


def _lora(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions):
    """``--enable-lora``: the LoRA memory pool per GPU (``engines.sglang.lora.lora_pool``), else nothing."""
    from tpkit.engines.sglang.lora import SglangLora, lora_pool, normalise_targets

    if not options.enable_lora:
        return SglangLora(bytes=Bytes(0), source="")
    release = parse_version(options.engine_version)
    from tpkit.dtypes import lookup_dtype

    flag = lookup_dtype(options.dtype) if options.dtype else None
    fp32 = flag is not None and flag.name == "float32"  # the pool is in the model dtype (bf16/fp16 unless fp32)
    return lora_pool(model, parallel, release, max_loras_per_batch=options.max_loras_per_batch or 8,
                     max_lora_rank=options.max_lora_rank, elem_bytes=4 if fp32 else 2,
                     targets=normalise_targets(options.lora_target_modules, release),
                     targets_given=options.lora_target_modules is not None)


def plan_swa_pool(cell: CellSize, model: ModelSpec, parallel: ParallelSpec, options: SglangOptions,
                  cap: CapacityDefaults, page: int) -> SwaPoolChoice | None:
    """``swa_cap.swa_pool_choice`` with this plan's flags: the chunked-prefill size per attention-DP rank (SGLang
    divides it by the DP size with DP attention) and the overlap schedule off with ``--disable-overlap-schedule``
    or pp > 1 (``_pipeline_parallel_overlap_disable``; server_args ``__post_init__`` before the arg groups)."""
    cpp = cap.chunked_prefill_size
    if cpp is not None and cpp > 0 and parallel.attn_dp > 1:
        cpp = cpp // parallel.attn_dp
    running = options.max_running_requests
    if running is None:  # SGLang's speculative cap when unset (spec.spec_running_cap)
        running = spec_running_cap(options.engine_version, options.speculative_algorithm,
                                   architecture=model.architecture).requests
    return swa_pool_choice(cell, options.engine_version, disable_radix_cache=options.disable_radix_cache,
                           max_running_requests=running, chunked_prefill_size=cpp,
                           page_size=page, sliding_window=model.sliding_window, attn_dp=parallel.attn_dp,
                           overlap_schedule=not (options.disable_overlap_schedule or parallel.pp > 1),
                           speculative=options.speculative_algorithm is not None)


def _planned_rope(model: ModelSpec, gpu: GpuSpec, options: SglangOptions, spec: SpecPlan | None):
    """``engines.sglang.rope.rope_reserve`` for this plan: the context SGLang serves (``choices.context_len``) and the
    speculative steps × draft tokens as SGLang resolves them (``SpecPlan``)."""
    dtype_bytes = 4 if options.dtype in ("float32", "float") else 2
    return rope_reserve(model, options.engine_version, context_len=context_len(model, options),
                        spec_steps=spec.num_steps if spec is not None else 0,
                        spec_draft_tokens=spec.num_draft_tokens if spec is not None else 0,
                        vendor=gpu.vendor, dtype_bytes=dtype_bytes, language_model_only=bool(options.language_model_only))


def _spec_running(options: SglangOptions, parallel: ParallelSpec, spec: SpecPlan | None,
                  architecture: str | None = None) -> int | None:
    """max_running_requests per attention-DP rank as SGLang has set it (the user's, else the release's speculative
    cap: ``spec.spec_running_requests``), else None."""
    return spec_running_requests(options.engine_version, spec.algorithm if spec is not None else None,
                                 options.max_running_requests, attn_dp=parallel.attn_dp, architecture=architecture)
