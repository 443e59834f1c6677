"""``plan_sglang``: SGLang's start-up memory sizing as a pure function (spec: sglang-memory-and-allreduce.md).

Read top to bottom next to the spec:  baseline (§2) → weights → slack and KV budget (§3.2) →
cell size (§3.3) → tokens (§3.4) → request slots and req_to_token (§3.5) → ledger, log lines, verdict.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from collections.abc import Callable

from tpkit.engines.sglang.dsv4 import dsv4_page_size
from tpkit.engines.sglang.ledger import build_ledger, graph_room
from tpkit.engines.sglang.load import cpu_offload, weights_term
from tpkit.engines.sglang.logs import GB_IS_GIB_NOTE, engine_log_lines, scheduler_line
from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.cliflags import accepts, spelling
from tpkit.engines.engine import check_plan_arguments
from tpkit.engines.sglang.budget import kv_budget
from tpkit.engines.sglang.kvdtype import resolve_kv_dtype
from tpkit.engines.sglang.sizing import SglangSizing, graph_slack_need, size_sglang
from tpkit.engines.sglang.verdict import make_verdict
from tpkit.engines.sglang.versions import LATEST, attention_dp_size, is_newer_than_latest
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.band import aside, replan_weights, unmeasured
from tpkit.memory.invariant import checked
from tpkit.memory.ledger import LineItem, use_lines
from tpkit.memory.result import PlanResult
from tpkit.models.dsv4_weights import is_dsv4
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, format_bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile
    from tpkit.models.weights_plan import WeightsPlan

__all__ = ["plan_sglang"]


def _sizing(model, gpu, parallel, options, machine, weights, extra_uses, draft_weights=None) -> SglangSizing:
    w_bytes, w_source = weights_term(model, parallel, options, weights, gpu)
    return size_sglang(model, gpu, parallel, options, machine=machine, weights_bytes=w_bytes, weights_source=w_source,
                       extra_uses=extra_uses, draft_weights=draft_weights)


def _offload_notes(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, weights) -> tuple[str, ...]:
    """What ``--cpu-offload-gb`` leaves to the user: the per-forward device copy (from the slack), a cap above the
    decoder layers (``engines.offload``)."""
    off = cpu_offload(model, parallel, options, weights)
    if off is None or isinstance(weights, Bytes):
        return ()
    out = [f"--cpu-offload-gb {options.cpu_offload_gb:g}: each forward copies an offloaded layer's parameters to the "
           f"GPU and frees them after it (up to {format_bytes(off.largest_layer)} at a time; SGLang has no zero-copy "
           "path): taken from the slack (1 − mem_fraction_static) after the pool, not from the KV budget"]
    if off.capped:
        out.append(f"--cpu-offload-gb {options.cpu_offload_gb:g} is more than the {format_bytes(off.eligible)} of "
                   f"decoder layers on each GPU: SGLang offloads all {off.layers_total} and ignores the rest (the "
                   "value is GiB per GPU, not for the whole model)")
    return tuple(out)


def _draft_note(s: SglangSizing, options: SglangOptions) -> tuple[str, ...]:
    """An EAGLE / EAGLE-3 draft that is a whole model (``models.draft.whole_model_draft_note``), else ()."""
    if s.spec is None or s.spec.draft.method not in ("eagle", "eagle3"):
        return ()
    from tpkit.models.draft import whole_model_draft_note

    note = whole_model_draft_note(s.spec.algorithm, s.spec.draft.spec,
                                  f"--speculative-draft-model-path {options.speculative_draft_model_path}")
    return (note,) if note else ()


def _int4_notes(model: ModelSpec, gpu: GpuSpec, options: SglangOptions) -> tuple[str, ...]:
    """``--sglang-int4-weight``'s notes (``engines.sglang.int4.int4_notes``), imported only when it is given."""
    if options.sglang_int4_weight is None:
        return ()
    from tpkit.engines.sglang.int4 import int4_notes

    return int4_notes(model, gpu, options)


def _dense_ep_note(model: ModelSpec, parallel) -> tuple[str, ...]:
    """``--ep N`` on a model without MoE layers: SGLang's expert parallelism splits only the experts of its MoE
    layers (the MoE expert-parallel group, ``distributed/parallel_state.py`` ``get_moe_expert_parallel_world_size``,
    read in the 0.5.23 wheel; a dense model's layers never take it), so a dense model is planned as at ep 1; said,
    so the unchanged plan is not read as the flag being dropped (helper ux24)."""
    if parallel.ep <= 1 or model.moe is not None:
        return ()
    return (f"--ep {parallel.ep}: this model has no MoE (expert) layers, and SGLang's expert parallelism splits only "
            "MoE experts, so it changes nothing here: the plan is the same as with --ep 1",)


def _warnings(s: SglangSizing, model: ModelSpec, options: SglangOptions) -> tuple[str, ...]:
    out = [f"model: {a}" for a in model.assumptions] + list(s.baseline.warnings)
    out += list(s.lora_notes)
    if is_dsv4(model) and dsv4_page_size(options.engine_version, options.page_size)[1]:
        out.append(dsv4_page_size(options.engine_version, options.page_size)[1])
    if not options.enable_lora:
        given = [f"--{n.replace('_', '-')}" for n in ("max_loras_per_batch", "max_lora_rank", "lora_target_modules")
                 if getattr(options, n) is not None]
        if given:
            out.append(f"{', '.join(given)} without --enable-lora (or --lora-paths): SGLang starts no LoRA manager "
                       "(server_args.py check_lora_server_args), so these flags change nothing; add --enable-lora "
                       "to plan its LoRA memory pool")
    if is_newer_than_latest(options.engine_version):
        out.append(f"SGLang {options.engine_version} is newer than the latest examined release {LATEST}; "
                   "its rules are assumed unchanged")
    if 0 < s.pool.num_tokens < s.context_len:
        out.append(f"the KV pool holds {s.pool.num_tokens:,} tokens per rank, less than one "
                   f"{s.context_len:,}-token request; lower --context-length or add memory")
    need = graph_slack_need(s)
    if s.pool.num_tokens > 0 and graph_room(s) < need:
        if s.cuda_graphs:
            max_bs = spelling("sglang", options.engine_version, "--cuda-graph-max-bs", "--cuda-graph-max-bs-decode")
            out.append(f"slack left for activations and CUDA graphs is {format_bytes(graph_room(s))}; SGLang's own "
                       f"graph reserve for {max_bs or 'the largest captured batch'} {s.capacity.cuda_graph_max_bs} "
                       f"is ≈ "
                       f"{format_bytes(need)} (512 MiB + 2 MiB × max bs + prefill-graph term, sglang memory_hook.py "
                       "reserve_for_graph_mb): lower --mem-fraction-static" + (f" or {max_bs}" if max_bs else ""))
        else:
            out.append(f"slack left for activations is {format_bytes(graph_room(s))}; with --disable-cuda-graph "
                       f"SGLang still needs ≈ {format_bytes(need)} after the pool (512 MiB + the prefill-graph term "
                       "where those graphs are still captured, sglang reserve_for_graph_mb): lower "
                       "--mem-fraction-static")
    if model.is_mla and options.page_size is None:
        out.append("MLA: the attention backend may force a larger page size (FlashMLA 64); pass --page-size to plan it")
    if s.mamba is not None:
        unset = ("" if accepts("sglang", "--max-mamba-cache-size", options.engine_version) is False else
                 " and no --max-mamba-cache-size")  # the flag is new in 0.5.2 (engines.cliflags)
        out.append("linear-attention state pool assumes the radix cache and the overlap schedule on" + unset +
                   " (sglang kv_cache_configurator.py _handle_max_mamba_cache)")
    if model.is_multimodal and not isinstance(model.extra.get("vision_config"), dict) and s.fraction.reserved_mib:
        out.append("multimodal: this config has no vision_config, so the fraction's vision-tower factor assumes "
                   "SGLang's ViT-L defaults (24 layers × 1024: × 0.95); pass the released config.json for the exact "
                   "factor")
    if model.is_multimodal and not s.mm_reserved:
        out.append("multimodal: SGLang allocates its multimodal caches (SGLANG_VLM_CACHE_SIZE_MB) after the pool, "
                   "from the slack, before 0.5.18")
    if s.attn_dp > 1:
        out.append(f"DP attention: {s.attn_dp} attention ranks, each with this KV pool and "
                   f"{s.max_running_requests:,} running requests ({s.attn_dp * s.pool.num_tokens:,} tokens and "
                   f"{s.attn_dp * s.max_running_requests:,} requests over the TP group); SGLang prints rank 0's "
                   "numbers")
    if s.spec is not None and s.spec.draft.method != "mtp" and s.spec.loaded_before_pool and s.draft_pool is not None \
            and s.draft_kv_bytes.bytes < ((s.budget_cell_bytes_per_token - s.cell.bytes_per_token)
                                          * s.pool.num_tokens):
        out.append("speculative decoding: SGLang sizes the draft pool as if the draft had the target's per-layer KV; "
                   "this draft's pool is smaller, the difference stays unused")
    return tuple(out)


def _scheduler(s: SglangSizing) -> str:
    """The scheduler line; with DP attention the chunked-prefill size is per attention-DP rank."""
    cpp = s.capacity.chunked_prefill_size
    cpp = cpp // s.attn_dp if cpp > 0 else cpp
    return scheduler_line(tokens=s.pool.num_tokens, chunked_prefill_size=cpp,
                          max_running_requests=s.max_running_requests, context_len=s.context_len)


def _spec_json(s: SglangSizing) -> dict | None:
    if s.spec is None:
        return None
    p = s.spec
    return {"algorithm": p.algorithm, "draft_method": p.draft.method, "draft_source": p.draft.source,
            "num_steps": p.num_steps, "eagle_topk": p.eagle_topk, "num_draft_tokens": p.num_draft_tokens,
            "draft_layers": p.draft_layers, "draft_weights_bytes": p.weights.bytes,
            "draft_weights_at_load_bytes": p.weights_at_load.bytes,
            "draft_kv_bytes": s.draft_kv_bytes.bytes, "loaded_before_pool": p.loaded_before_pool}


def _extra(s: SglangSizing, kv_source: str) -> dict:
    new = {"prefill_cuda_graphs": s.prefill_graphs[0],
           "budget_cell_bytes_per_token": s.budget_cell_bytes_per_token, "mm_reserved_bytes": s.mm_reserved.bytes,
           "stream_pool_bytes": s.stream_pool.bytes, "deepgemm_workspace_bytes": s.deepgemm_workspace.bytes,
           "rope_reserve_bytes": s.rope_reserve.bytes, "speculative": _spec_json(s), "attn_dp_size": s.attn_dp,
           "after_pool_bytes": s.after_pool.bytes, "scheduler_log_line": _scheduler(s) if s.pool.num_tokens else None}
    return {"sglang": {**_extra_base(s, kv_source), **new}}


def _extra_base(s: SglangSizing, kv_source: str) -> dict:
    return {
        "rule_era": s.era, "mem_fraction_static": s.fraction.value, "mem_fraction_source": s.fraction.source,
        "reserved_mib": s.fraction.reserved_mib, "gpu_mem_mib": s.gpu_mem_mib,
        "chunked_prefill_size": s.capacity.chunked_prefill_size, "cuda_graph_max_bs": s.capacity.cuda_graph_max_bs,
        "kv_cache_dtype": s.cell.kv_dtype, "kv_cache_dtype_source": kv_source, "cell_layout": s.cell.layout,
        "cell_bytes_per_token": s.cell.bytes_per_token, "swa_tokens": s.swa_tokens,
        "pre_model_load_bytes": s.pre.bytes, "kv_budget_bytes": s.rest.bytes,
        "req_to_token_bytes": s.req_to_token.bytes, "log_units_note": GB_IS_GIB_NOTE,
        "mamba_slots": s.mamba.slots if s.mamba else None, "mamba_pool_bytes": s.mamba_bytes.bytes,
        "swa_pool_configurator": s.swa_pool.configurator if s.swa_pool else None,
        "swa_pool_why": s.swa_pool.why if s.swa_pool else None,
        "swa_cap_tokens": s.swa_pool.swa_cap if s.swa_pool else None,
    }


def _retry(model, gpu, parallel, options, machine, weights, s_weights, extra_uses, draft_weights):
    """The verdict's re-planner for this plan (``verdict.Retry``): the whole plan again with a knob changed, so a
    fix is named only when every check of the verdict passes.  A re-plan at another TP size or quantisation drops
    the log's measured weights (``memory.band.replan_weights``: 'Load weight end. mem usage' is per rank at the
    log's layout); ``retry.note(tp=…, quantization=…)`` gives the words the fix then adds."""

    def changed(tp: int, quantization: str | None) -> str | None:
        if tp != parallel.tp:
            return f"tp {tp}"
        if quantization and quantization != options.quantization:
            return f"quantization {quantization}"
        return None

    def retry(*, tp: int, quantization: str | None = None, mem_fraction_static: float | None = None,
              full: bool = True, gpu=gpu) -> int | None:
        derived, _ = replan_weights(tp=parallel.tp, pp=parallel.pp, changed=changed(tp, quantization))
        with unmeasured("weights") if derived else nullcontext():
            return _replan(tp=tp, quantization=quantization, mem_fraction_static=mem_fraction_static, full=full,
                           gpu=gpu)

    def note(*, tp: int, quantization: str | None = None) -> str:
        return replan_weights(tp=parallel.tp, pp=parallel.pp, changed=changed(tp, quantization))[1]

    def _replan(*, tp: int, quantization: str | None, mem_fraction_static: float | None, full: bool,
                gpu=gpu) -> int | None:
        """KV tokens of the same plan with another TP, quantisation and/or fraction when it fits, else 0
        (None: unknown).  ``full=False``: only the KV budget (a page and the state slots), which grows with the
        fraction — the monotone half the fraction search bisects on; the whole plan also needs slack after the
        pool, which shrinks with it."""
        opts = replace(options, quantization=quantization) if quantization else options
        if mem_fraction_static is not None:
            opts = replace(opts, mem_fraction_static=mem_fraction_static)
        if weights is None:
            w = None
        elif quantization:
            return None  # weights were given for one quantisation only
        else:
            w = s_weights * (parallel.tp / tp)  # given weights: assume they shard with TP
        if not full:
            with aside():
                uses = extra_uses(tp) if callable(extra_uses) else extra_uses
                w_bytes = w if w is not None else weights_term(model, replace(parallel, tp=tp), opts, None, gpu)[0]
                b = kv_budget(model, gpu, replace(parallel, tp=tp), opts, machine=machine, weights_bytes=w_bytes,
                              extra_uses=use_lines(uses) if uses else ())
            return 0 if b.mamba is not None and b.mamba.slots < b.mamba.ratio else b.tokens
        try:
            with aside():
                again = plan_sglang(model, gpu, replace(parallel, tp=tp), opts, machine=machine, weights=w,
                                extra_uses=extra_uses, search_fixes=False,
                                draft_weights=draft_weights if tp == parallel.tp else None)
        except PlanInputError:
            return 0
        return again.kv_tokens if again.verdict.fits else 0

    retry.note = note
    return retry


def _check_sm75(gpu: GpuSpec, machine: MachineProfile | None = None) -> None:
    """No plan for a GPU SGLang refuses (``tpkit.engines.MIN_COMPUTE_CAPABILITY``: below SM75, e.g. a V100), be it
    the planned GPU or a probed GPU of ``machine`` the catalog does not name (helper cc21)."""
    from tpkit.engines import refuse_unsupported_gpu

    refuse_unsupported_gpu("sglang", gpu, machine)


def plan_sglang(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: SglangOptions, *,
                machine: MachineProfile | None = None, weights: "WeightsPlan | Bytes | None" = None,
                extra_uses: "tuple[LineItem, ...] | Callable[[int], tuple[LineItem, ...]]" = (),
                draft_weights: Bytes | None = None, search_fixes: bool = True) -> PlanResult:
    """Predict what SGLang allocates on the tightest rank: ledger, KV pool buffers, log lines, verdict.

    ``weights`` (a ``WeightsPlan``, or the bytes per rank) overrides ``tpkit.models.weights.plan_weights``;
    ``draft_weights`` (bytes per rank) the derived weights of a speculative-decoding draft.
    ``extra_uses`` ("use" lines, e.g. ``tpkit.comm.plan.planned_allreduce_lines``) is memory the process
    allocates before SGLang measures ``pre_model_load_memory``; it is charged like the CUDA context, so it
    lowers the free memory before weights and with it the slack and the KV budget.  Re-plans the verdict
    makes with another ``--tp`` keep the same lines (they were sized for this TP), unless ``extra_uses`` is a
    function of the TP size that gives them (``tp -> lines``; ``tpkit plan --tpkit-allreduce`` passes one).
    ``search_fixes``: re-plan every fix the verdict could name and name only those that fit (False: name none).
    """
    check_plan_arguments("plan_sglang", model, gpu, parallel, options, SglangOptions)
    _check_sm75(gpu, machine)
    from tpkit.hardware.catalog import refuse_mig_layout

    # the planner refuses what the CLI refuses (helper mig18b): no re-plan of a fix names a layout a re-run refuses
    refuse_mig_layout(gpu, tp=parallel.tp, pp=parallel.pp, dp=1 if parallel.dp_attention else parallel.dp)
    uses_for = extra_uses if callable(extra_uses) else None
    extra_uses = uses_for(parallel.tp) if uses_for is not None else extra_uses
    extra_uses = use_lines(extra_uses) if extra_uses else ()
    if options.enable_dp_attention or parallel.dp_attention:  # one flag, two homes: the CLI sets both
        parallel, options = replace(parallel, dp_attention=True), replace(options, enable_dp_attention=True)
        dp = attention_dp_size(options.engine_version, tp=parallel.tp, dp=parallel.dp, dp_attention=True)
        if dp != parallel.dp:  # ≤ 0.4.4: --enable-dp-attention alone means dp = tp
            parallel = replace(parallel, dp=dp)
    s = _sizing(model, gpu, parallel, options, machine, weights, extra_uses, draft_weights)
    retry = _retry(model, gpu, parallel, options, machine, weights, s.weights, uses_for or extra_uses,
                   draft_weights) if search_fixes else (lambda **change: None)
    ledger = build_ledger(s)
    in_budget = (s.draft_kv_bytes if s.spec is not None and s.spec.loaded_before_pool and s.draft_in_budget
                 else Bytes(0))
    problems = ledger.check(s.rest - s.mamba_bytes - s.kv_bytes - in_budget)
    assert not problems, problems
    _, kv_source = resolve_kv_dtype(model, options)
    return checked(PlanResult(
        engine="sglang", engine_version=options.engine_version, model=model.summary(), gpu=gpu.summary(),
        parallel=parallel, ledger=ledger, kv_tokens=s.pool.num_tokens,
        kv_pool=s.pool if s.pool.num_tokens > 0 else None,  # SGLang allocates no pool it refuses to start with
        max_running_requests=s.max_running_requests, max_concurrency=s.pool.num_tokens / s.context_len,
        context_length=s.context_len,
        verdict=make_verdict(s, model, parallel.tp, retry, s.baseline.warnings, gpu=gpu),
        warnings=(_warnings(s, model, options) + _offload_notes(model, parallel, options, weights)
                  + _draft_note(s, options) + _dense_ep_note(model, parallel)
                  + _int4_notes(model, gpu, options)),
        engine_log=engine_log_lines(pool=s.pool, swa_tokens=s.swa_tokens, free_before_weights=s.pre,
                                    weights=s.weights, pool_end_free=s.pool_end_free, model_class=model.architecture,
                                    quant_method=model.quant.raw_method if model.quant else None,
                                    swa_pool=(s.swa_pool.configurator, s.swa_pool.why) if s.swa_pool else None,
                                    version=s.version)
        if s.pool.num_tokens else (),
        extra=_extra(s, kv_source)))
