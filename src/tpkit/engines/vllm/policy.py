"""``plan_vllm``: vLLM's start-up memory sizing for one serving instance, predicted before launch.

Read it next to ``specs/vllm-memory-and-allreduce.md``.  The steps follow vLLM's own order:

0. the layout vLLM's flags make (layout.py: --data-parallel-size, --enable-expert-parallel, DCP) and the
   release's rules (versions.py)
1. baseline before the init snapshot (baseline.py, allreduce.py) and ``requested = total × util`` (budget.py,
   start-up check)
2. weights as the torch-allocated delta of loading (+ vLLM's rotary cos/sin cache, the tower, LoRA, MLA and MXFP4
   extras: load_lines.py; + the drafter's weights: drafter.py)
3. the profile run's activation peak (profile.py, an estimate) and, from 0.20, the CUDA-graph estimate
   (profile_lines.py: which terms apply to the run)
4. available KV bytes (budget.py) → blocks, printed tokens, concurrency, fit check (capacity.py)
5. the per-layer pages and groups (pages.py, with the drafter's KV layers and the mamba mode) → the KV
   buffers vLLM allocates

The plan's warnings (what it assumed or could not model) are plan_notes.py.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from collections.abc import Callable

from tpkit.engines.vllm.baseline import others_growth_line, plan_baseline, profile_nontorch_growth
from tpkit.engines.vllm.fi_allreduce import fi_allreduce_fusion_workspace
from tpkit.engines.vllm.budget import Budget, build_ledger, compute_budget, v0_room
from tpkit.engines.vllm.capacity import KvCapacity, granule_floor, plan_capacity
from tpkit.engines.vllm.drafter import Drafter, plan_drafter
from tpkit.engines.vllm.inputs import Resolved, resolve_inputs
from tpkit.engines.vllm.layout import resolve_parallel
from tpkit.engines.vllm.load_lines import (mla_absorbed, mla_workspace,
                                           mxfp4_padding, offload_copy, rope_line, weights_item, allocator_rounding,
                                           cpu_offload, fp8_marlin_scales,
                                           drafter_in_load_delta, dsv4_batched_buffers, gemma4_ple_buffer,
                                           inside_load_delta,
                                           offload_copies, offload_v0_fallback, pp_v0_fallback,
                                           capability_v0_fallback, rotary_cache_bytes, rotary_cache_positions,
                                           tower_weights)
from tpkit.engines.vllm.lora_lines import LORA_ITEM, lora_in_load_delta, lora_items
from tpkit.engines.vllm.mamba import mamba_mode
from tpkit.engines.vllm.logs import engine_log
from tpkit.engines.vllm.options import VllmOptions, cudagraph_mode_of, torch_compile_off
from tpkit.engines.engine import check_plan_arguments
from tpkit.engines.vllm.pages import KvLayout, build_layout, dsa_indexer_token_bytes, pp_split
from tpkit.engines.vllm.plan_notes import plan_warnings
from tpkit.engines.vllm.profile_lines import activation_lines, graphs_line, pinned_scratch_lines, v2_state_lines
from tpkit.engines.vllm.verdict import Retry, decide, override_spare
from tpkit.engines.vllm.versions import CURRENT, VllmRules, resolve_rules
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec, is_amd
from tpkit.memory.band import aside, measured_term, replan_weights, unmeasured
from tpkit.memory.invariant import checked
from tpkit.memory.kvpool import KVBuffer, KVPoolPlan
from tpkit.memory.ledger import LineItem, use_lines
from tpkit.memory.result import PlanResult
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["plan_vllm", "rotary_cache_bytes", "rotary_cache_positions", "tower_weights", "lora_in_load_delta",
           "drafter_in_load_delta", "inside_load_delta", "cpu_offload", "offload_copies", "offload_v0_fallback",
           "pp_v0_fallback", "capability_v0_fallback"]

def _kv_pool(layout: KvLayout, cap: KvCapacity) -> KVPoolPlan | None:
    if cap.num_blocks <= 0:
        return None
    buffers = []
    if not layout.is_hybrid:
        g = layout.groups[0]
        per_tok = g.page_bytes.bytes // (g.block_size * layout.dtype_bytes)
        shape = ((cap.num_blocks, g.block_size, per_tok) if g.kind == "mla"
                 else (2, cap.num_blocks, g.block_size, per_tok // 2))
        buffers.append(KVBuffer(name="latent" if g.kind == "mla" else "kv", count=g.num_layers, shape=shape,
                                element_bytes=layout.dtype_bytes))
        if not layout.draft_in_groups and layout.draft_layers:
            per_tok = layout.draft_page_bytes.bytes // (layout.block_size * layout.dtype_bytes)
            shape = ((cap.num_blocks, layout.block_size, per_tok) if layout.draft_kind == "mla"
                     else (2, cap.num_blocks, layout.block_size, per_tok // 2))
            buffers.append(KVBuffer(name="drafter_kv", count=layout.draft_layers, shape=shape,
                                    element_bytes=layout.dtype_bytes))
    else:
        buffers.append(KVBuffer(name="shared_slot", count=layout.group_size,
                                shape=(cap.num_blocks, layout.bytes_per_block.bytes // layout.group_size),
                                element_bytes=1))
    return KVPoolPlan(num_tokens=cap.tokens, padded_tokens=cap.num_blocks * layout.block_size,
                      cell_bytes=layout.bytes_per_block / layout.block_size, buffers=tuple(buffers),
                      page_size=layout.block_size, dtype=layout.element_dtype)


def _layout(model: ModelSpec, parallel: ParallelSpec, r: Resolved, rules: VllmRules,
            drafter: Drafter | None) -> KvLayout:
    spec_tokens = drafter.num_speculative_tokens if drafter is not None else 0
    mamba = mamba_mode(model, rules, spec_tokens=spec_tokens, prefix_caching=r.enable_prefix_caching,
                       compute_capability=r.compute_capability) \
        if "linear" in model.kinds and rules.engine == "V1" else None
    if r.spec is not None and r.spec.eagle_family:
        rules = replace(rules, chunked_local_hybrid=False)  # chunked-local + EAGLE: hybrid manager off
    return build_layout(model, parallel, block_size=r.block_size, era=rules.era, dtype_bytes=r.kv_bytes,
                        dtype_name=r.kv_dtype, act_bytes=r.act_bytes, rules=rules,
                        draft=drafter.kv if drafter is not None else None, mamba=mamba, spec_tokens=spec_tokens,
                        kv_format=r.kv_format)


def _drafter(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
             rules: VllmRules) -> Drafter | None:
    if r.spec is None:
        return None
    if r.kv_format is not None and r.kv_format.layout not in ("dense", "per_token_head"):
        raise PlanInputError(f"--kv-cache-dtype {r.kv_format.name} with --speculative-config: tpkit does not model "
                             "the drafter's packed KV pages; plan without the drafter or with fp8/auto KV")
    return plan_drafter(model, r.spec, parallel, kv_bytes=r.kv_bytes, act_dtype=r.act_dtype,
                        target_quantization=options.quantization, release=rules.release, kv_format=r.kv_format)


def _draft_lines(drafter: Drafter | None, layout: KvLayout, cap: KvCapacity, r: Resolved, *, dsv4: bool,
                 inside: str | None) -> tuple[list[LineItem], LineItem | None]:
    """(the drafter's weight line, its KV line) — empty when no drafter is loaded; no KV line for DeepSeek-V4 (the
    MTP layer's SWA pages are inside its groups' pool line); ``inside``: where the log's measured load delta already
    holds the drafter's weights (``load_lines.inside_load_delta``), None where it does not."""
    if drafter is None or drafter.kv is None:
        return [], None
    w = LineItem(item=f"drafter weights ({drafter.method})", bytes=drafter.weights, source=drafter.weights_source)
    if inside is not None and w.bytes:
        w = inside_load_delta(w, inside)
    if dsv4:
        return [w], None
    pool = layout.bytes_per_block * cap.num_blocks
    if not layout.draft_in_groups:
        nbytes, how = layout.draft_bytes_per_block * cap.num_blocks, (
            f"{layout.draft_page_bytes.bytes:,} B per block per layer × {cap.num_blocks:,} blocks")
    else:
        in_flight = r.max_num_batched_tokens * r.concurrent_batches
        per_request = {i: g.blocks_per_request(r.max_model_len, in_flight, r.dcp) for i, g in enumerate(layout.groups)}
        share = layout.draft_share(per_request)
        nbytes, how = Bytes(int(pool.bytes * share)), f"{share:.2%} of the shared pool (its blocks per request)"
    kv = LineItem(item=f"drafter KV cache ({drafter.method})", bytes=nbytes,
                  source=f"{drafter.kv.num_layers} {drafter.kv.label}: {how} (inside the KV pool; "
                         f"{drafter.num_speculative_tokens} speculative tokens per step)")
    return [w], kv


def _is_dsv4(model: ModelSpec) -> bool:
    """vLLM's DeepSeek-V4 groups (``engines.vllm.dsv4_plan``), imported for this model only
    (tests/cli/test_cold_imports.py)."""
    return getattr(model, "model_type", None) == "deepseek_v4"


def _resolve(model, gpu, parallel, options, machine):
    """Step 0: the release's rules after the V0 fallbacks, the layout vLLM's flags make (MIG layouts refused as the
    CLI refuses them, so no re-plan of a fix can name one: helper mig18b), the resolved inputs, the drafter and the
    KV layout → ``(options, rules, fallbacks, parallel, r, drafter, layout)``."""
    from tpkit.hardware.catalog import refuse_mig_layout

    options, rules, fallbacks = _release_rules(options, parallel, gpu)
    refuse_mig_layout(gpu, tp=parallel.tp, pp=parallel.pp, dp=parallel.dp)
    parallel = resolve_parallel(parallel, options, model, machine=machine is not None)
    r = resolve_inputs(model, gpu, options, rules, parallel)
    drafter = _drafter(model, parallel, options, r, rules)
    if _is_dsv4(model):
        from tpkit.engines.vllm.dsv4_plan import dsv4_layout

        return options, rules, fallbacks, parallel, r, drafter, dsv4_layout(model, parallel, r, rules)
    return options, rules, fallbacks, parallel, r, drafter, _layout(model, parallel, r, rules, drafter)


def _inside_measured(measured, rope: LineItem, mla_lines: tuple, rules: VllmRules) -> tuple[LineItem, tuple]:
    """With the log's measured weights (``measured``: ``memory.band.measured_term``), its 'Model loading took'
    already holds what the load allocates beside them: the rotary cache and the extras (LoRA only where the release
    loads it inside the delta) are charged there (``load_lines.inside_load_delta``)."""
    if measured is None:
        return rope, mla_lines
    where = measured[1]
    rope = inside_load_delta(rope, where) if rope.bytes else rope
    return rope, tuple(inside_load_delta(l, where) if l.item != LORA_ITEM or lora_in_load_delta(rules) else l
                       for l in mla_lines)


def _ledger(baseline, budget, rules, r, layout, cap, dsv4, weight_lines, act_line, g_line, growth, parts, draft_kv,
            segments):
    """Step 5: the ledger (``budget.build_ledger``), checked against what the budget expects."""
    if dsv4:
        from tpkit.engines.vllm.dsv4_plan import dsv4_kv_source
    ledger, expected = build_ledger(baseline, budget, rules, utilization=r.utilization, weight_lines=weight_lines,
                                    activation_line=act_line, graph_line=g_line, growth_lines=growth,
                                    kv_bytes=layout.bytes_per_block * cap.num_blocks,
                                    kv_source=dsv4_kv_source(layout, cap) if dsv4 else _kv_source(layout, cap),
                                    info=parts, draft_kv=draft_kv, granule_segments=segments)
    problems = ledger.check(expected)
    assert not problems, problems
    return ledger


def _plan_log(budget, cap, layout, r, rules, baseline, verdict, error_line) -> tuple[str, ...]:
    """The engine log the plan prints (``logs.engine_log``) and the verdict's error line; an extensible-KV run that
    fails the KV check stops before the capacity lines."""
    stopped = budget.extensible and error_line is not None and not verdict.fits and (
        error_line.startswith(("No available memory", "To serve at least one request")))
    return engine_log(budget, cap, layout, r, rules, baseline.total_bytes, budget.graphs, stopped) + (
        (error_line,) if error_line else ())


def _kv_source(layout: KvLayout, cap: KvCapacity) -> str:
    kinds = ", ".join(f"{g.kind} {g.num_layers} layers × {g.page_bytes.bytes:,} B/page" for g in layout.groups)
    return (f"num_blocks {cap.num_blocks:,} = available // bytes_per_block {layout.bytes_per_block.bytes:,} "
            f"(block {layout.block_size} tokens; groups: {kinds})")


def _extra(budget: Budget, cap: KvCapacity, layout: KvLayout, r: Resolved, rules: VllmRules) -> dict:
    """``kv_blocks`` and ``block_size`` (every vLLM plan) and the ``vllm`` block of vLLM's own numbers, like the
    ``sglang`` block of an SGLang plan.  Schema 1 also keeps the block's keys at the top level (older scripts)."""
    own = _own_numbers(budget, cap, layout, r, rules)
    return {"kv_blocks": cap.num_blocks, "block_size": layout.block_size, **own, "vllm": dict(own)}


def _own_numbers(budget: Budget, cap: KvCapacity, layout: KvLayout, r: Resolved, rules: VllmRules) -> dict:
    return {
        "kv_blocks": cap.num_blocks, "block_size": layout.block_size,
        "bytes_per_block": layout.bytes_per_block.bytes, "null_block": rules.null_block,
        "usable_blocks": cap.num_blocks - (1 if rules.null_block and cap.num_blocks else 0),
        "available_kv_bytes": budget.available.bytes, "requested_bytes": budget.requested.bytes,
        "gpu_memory_utilization": r.utilization, "max_num_batched_tokens": r.max_num_batched_tokens,
        "max_num_seqs": r.max_num_seqs, "estimated_max_model_len": cap.estimated_max_model_len,
        "kv_groups": [{"kind": g.kind, "layers": g.num_layers, "page_bytes": g.page_bytes.bytes,
                       "block_size": g.block_size} for g in layout.groups],
        "padding_layers": layout.padding_layers, "cuda_graph_bytes": budget.graphs.bytes,
        "attention_backend": r.attention_backend, "vllm_entrypoint": r.entrypoint,
        "rule_era": rules.era, "engine_generation": rules.engine,
        **({"decode_context_parallel_size": r.dcp} if r.dcp > 1 else {}),
        **({"extensible_kv": True, "free_at_snapshot_bytes": budget.free_at_snapshot.bytes,
            "extensible_margin_bytes": budget.margin.bytes} if budget.extensible else {}),
    }


def _retry(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: VllmOptions,
           machine: MachineProfile | None, weights, extra_uses) -> Retry:
    """The verdict's re-planner: the same plan with knobs changed; does it fit?  A re-plan at another TP size or
    quantisation drops the log's measured weights (``memory.band.replan_weights``: they are per rank at the log's
    layout); ``retry.note(**changes)`` gives the words the fix then adds."""

    def changed(tp: int | None, changes: dict) -> str | None:
        if tp is not None and tp != parallel.tp:
            return f"tp {tp}"
        if "quantization" in changes and changes["quantization"] != options.quantization:
            return f"quantization {changes['quantization']}"
        return None

    def retry(*, tp: int | None = None, gpu: GpuSpec = gpu, **changes) -> bool:
        if weights is not None and (tp is not None or "quantization" in changes):
            return False  # weights were given for this layout and quantisation only
        derived, _ = replan_weights(tp=parallel.tp, pp=parallel.pp, changed=changed(tp, changes))
        try:
            with aside(), (unmeasured("weights") if derived else nullcontext()):
                again = plan_vllm(model, gpu, replace(parallel, tp=tp) if tp else parallel,
                                  replace(options, **changes), machine=machine, weights=weights,
                                  extra_uses=extra_uses, search_fixes=False)
        except PlanInputError:
            return False
        return again.verdict.fits

    def note(*, tp: int | None = None, gpu: GpuSpec | None = None, **changes) -> str:
        return replan_weights(tp=parallel.tp, pp=parallel.pp, changed=changed(tp, changes))[1]

    retry.note = note
    return retry


def _release_rules(options: VllmOptions, parallel: ParallelSpec, gpu: GpuSpec):
    """Step 0: the release's rules after the V0 fallbacks (``load_lines``: CPU offload, PP, compute capability).

    Returns ``(options, rules, (offload, pp, cc))``: what is planned with, and each fallback's options or None."""
    rules = resolve_rules(options.engine_version)
    fallback = offload_v0_fallback(options, rules)
    if fallback is not None:
        options, rules = fallback, resolve_rules(fallback.engine_version)
    pp_fallback = pp_v0_fallback(options, rules, parallel.pp)
    if pp_fallback is not None:
        options, rules = pp_fallback, resolve_rules(pp_fallback.engine_version)
    cc_fallback = capability_v0_fallback(options, rules, gpu.compute_capability)
    if cc_fallback is not None:
        options, rules = cc_fallback, resolve_rules(cc_fallback.engine_version)
    return options, rules, (fallback, pp_fallback, cc_fallback)


def _load_lines(model, gpu, parallel, options, r, rules, drafter, weights):
    """Step 2 (sizes only): ``(w_plan, w_line, rope, mla_lines, ws_lines)``: the weights, the rotary cache, the
    extras inside the load delta (MLA, MXFP4, LoRA, PLE, FP8-Marlin scales, the allocator's rounding: not when
    ``weights`` is given) and the torch memory at the profile outside it (workspaces, runner buffers, offload copy)."""
    rocm = is_amd(gpu.vendor)
    if weights is None:
        from tpkit.models.weights import plan_weights

        w_plan = tower_weights(model, options, plan_weights(
            model, parallel, dtype=r.act_dtype, quantization=options.quantization,
            checkpoint_dir=options.checkpoint_dir, engine="vllm", pp_split=pp_split(rules.release, parallel)))
    else:
        w_plan = weights
    w_line = weights_item(model, parallel, options, r, w_plan)
    rope = rope_line(model, options, r, cuda_gpu=not rocm)
    mla_lines = mla_absorbed(model, parallel, options, r, rules, w_plan) + mxfp4_padding(model, parallel, options, r)
    mla_lines += lora_items(model, parallel, options, r, rules) + gemma4_ple_buffer(model, r, rules)
    mla_lines += dsv4_batched_buffers(model, r, rules)
    mla_lines += fp8_marlin_scales(model, parallel, options, r, w_plan, rocm=rocm)
    if rocm and weights is None:  # lazy: ROCm FP8 on gfx94x only (engines.vllm.rocm_fnuz_load)
        from tpkit.engines.vllm.rocm_fnuz_load import fnuz_mask_lines

        mla_lines += fnuz_mask_lines(model, parallel, gpu.name, rules.release, getattr(w_plan, "quant", None),
                                     w_plan, rocm=rocm)
    if options.enable_eplb:  # lazy: EPLB launches only (tests/cli/test_cold_imports.py)
        from tpkit.engines.vllm.eplb import eplb_lines

        mla_lines += eplb_lines(model, parallel, options, r, rules, w_plan)
    if (getattr(w_plan, "quant", None) and w_plan.quant.raw_method.startswith("bitsandbytes")) or \
            (options.quantization or "").startswith("bitsandbytes"):  # lazy: bnb runs only
        from tpkit.engines.vllm.bnb_absmax import bnb_absmax_lines, check_bnb_release  # fp32 absmax from 0.9.2

        check_bnb_release(rules.release)
        if weights is None:
            mla_lines += bnb_absmax_lines(w_plan, rules.release)
    if weights is None:  # the allocator's rounding of the derived tensors (engines.vllm.weight_blocks)
        mla_lines += allocator_rounding(model, parallel, options, r, w_plan, rules, rocm=rocm)
    # torch memory at the profile, outside the load delta
    ws_lines = mla_workspace(model, options, r, rules) + v2_state_lines(model, options, r, rules)
    ws_lines += pinned_scratch_lines(model, parallel, options, r, rules)
    if rules.engine == "V1" and not r.v2_runner and rules.memory_rule == "consumed":  # helper enc14
        from tpkit.engines.vllm.runner_buffers import v1_inputs_embeds_lines, v1_proposer_buffer_lines  # lazy

        ws_lines += v1_inputs_embeds_lines(model, options, r, rules)
        ws_lines += v1_proposer_buffer_lines(drafter, r, rules)  # helper q38
    ws_lines += offload_copy(model, parallel, options, w_plan, rules)
    return w_plan, w_line, rope, mla_lines, ws_lines


def _growth_lines(model, gpu, parallel, options, r, rules, baseline, machine, others_growth):
    """Step 1's second half, non-torch growth after the init snapshot: the baseline's after-snapshot lines, the
    profile's, other processes' and FlashInfer's all-reduce fusion workspace (helper c715; links: helper v17)."""
    return (*baseline.after_snapshot, *profile_nontorch_growth(gpu, parallel, rules, moe=model.moe is not None,
                                                               links=options.links, machine=machine),
            *others_growth_line(others_growth, rules),
            *fi_allreduce_fusion_workspace(model, gpu, parallel, rules, compile_on=not torch_compile_off(options),
                                           optimization_level=options.optimization_level,
                                           max_num_batched_tokens=r.max_num_batched_tokens,
                                           act_bytes=r.act_bytes, links=options.links, machine=machine))


def _capacity(model, parallel, r, rules, layout, budget, dsv4: bool) -> tuple[KvCapacity, int]:
    """Step 4: the KV bytes the budget leaves (an extensible pool floored to whole granules) → ``(capacity,
    granule segments)``: blocks, printed tokens, concurrency; DeepSeek-V4's groups by ``dsv4_plan.dsv4_capacity``."""
    if dsv4:  # imported for this model only (tests/cli/test_cold_imports.py)
        from tpkit.engines.vllm.dsv4_plan import dsv4_capacity

        return dsv4_capacity(model, budget.available, r, rules), 0
    kv_room, segments = (granule_floor(budget.available, layout, indexer_page=dsa_indexer_token_bytes(
        model, rules.release) * layout.block_size) if budget.extensible else (budget.available, 0))
    return plan_capacity(layout, kv_room, max_model_len=r.max_model_len,
                         max_num_batched_tokens=r.max_num_batched_tokens, pp=parallel.pp, rules=rules,
                         concurrent_batches=r.concurrent_batches, dcp=r.dcp), segments


def _decide(model, gpu, parallel, options, r, rules, baseline, budget, cap, retry):
    """Step 4's fit check (``verdict.decide``) → ``(verdict, error line or None)``; with it whether a quantisation
    fix applies, the V0 peak rule's room and whether a hybrid model captures full decode graphs."""
    quantizable = (model.quant is None or model.quant.weight_bits >= 16) and not options.quantization
    room = v0_room(baseline) if rules.memory_rule == "v0_peak" and rules.v0_context_outside else (
        baseline.free_at_snapshot if rules.memory_rule == "v0_peak" and rules.v0_torch_peak_only else None)
    mamba_graphs = "linear" in model.kinds and cudagraph_mode_of(options) in ("FULL", "FULL_DECODE_ONLY",
                                                                           "FULL_AND_PIECEWISE")
    return decide(budget, cap, r, rules, baseline.total_bytes, retry=retry, tp=parallel.tp,
                  quantizable=quantizable, v0_room=room, mamba_decode_graphs=mamba_graphs, gpu=gpu)


def plan_vllm(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: VllmOptions, *,
              machine: MachineProfile | None = None, weights=None,
              extra_uses: "tuple[LineItem, ...] | Callable[[int], tuple[LineItem, ...]]" = (),
              search_fixes: bool = True, others_growth: Bytes = Bytes(0)) -> PlanResult:
    """Predict vLLM's per-GPU memory ledger, KV blocks/tokens and start-up verdict (pure; no torch).

    ``weights`` is a ``tpkit.models.weights.WeightsPlan`` (anything with ``bytes_per_rank: Bytes``);
    when None it is planned from the model.  With ``machine`` the GPU with the least free memory decides.
    ``extra_uses`` ("use" lines, e.g. ``comm.plan.planned_allreduce_lines``): memory allocated before the init
    snapshot, charged like the CUDA context (V1: outside the budget, it only tightens the start-up check; V0:
    non-torch memory, it shrinks the KV cache); a function ``tp -> lines`` gives them for each TP size the
    verdict re-plans (``tpkit plan --tpkit-allreduce`` passes one).
    ``search_fixes``: re-plan every fix the verdict could name and name only those that fit (False: name none;
    the re-plans themselves run with False).
    ``others_growth``: memory other processes on the limiting GPU gained between vLLM's start-up free-memory
    sample and its after-profile sample (a stated fact, e.g. two nvidia-smi readings of the other process);
    ``others_growth_line`` says how each release charges it.  Memory they already held at the start is the
    ``machine`` profile's ``used_by_others``.
    """
    check_plan_arguments("plan_vllm", model, gpu, parallel, options, VllmOptions)
    __import__("tpkit.engines").engines.refuse_unsupported_gpu("vllm", gpu, machine)  # below SM70 (helper cc21)
    uses_for = extra_uses if callable(extra_uses) else None  # tp -> lines: re-plans at another TP get their own
    extra_uses = uses_for(parallel.tp) if uses_for is not None else extra_uses
    given, dsv4 = parallel, _is_dsv4(model)
    options, rules, fallbacks, parallel, r, drafter, layout = _resolve(model, gpu, parallel, options, machine)
    baseline = plan_baseline(gpu, parallel, rules, machine, extra_uses=use_lines(extra_uses),
                             disable_custom_all_reduce=options.disable_custom_all_reduce, links=options.links)
    w_plan, w_line, rope, mla_lines, ws_lines = _load_lines(model, gpu, parallel, options, r, rules, drafter, weights)
    act_line, *parts = activation_lines(model, parallel, options, r, rules)
    g_line = graphs_line(model, parallel, options, r, rules, rocm=is_amd(gpu.vendor))
    growth = _growth_lines(model, gpu, parallel, options, r, rules, baseline, machine, others_growth)
    measured = measured_term("weights")
    rope, mla_lines = _inside_measured(measured, rope, mla_lines, rules)
    draft_inside = measured is not None and drafter_in_load_delta(rules)
    draft_w = drafter.weights if drafter is not None and not draft_inside else Bytes(0)
    # allocate last: the budget, the KV pool it leaves, the drafter's share, the ledger
    budget = compute_budget(baseline, rules, utilization=r.utilization, weights=w_line.bytes + rope.bytes + draft_w
                            + sum((l.bytes for l in mla_lines), Bytes(0)),
                            activation=act_line.bytes + sum((l.bytes for l in ws_lines), Bytes(0)),
                            graphs=g_line.bytes if g_line else Bytes(0),
                            override=options.kv_cache_memory_bytes, growth=sum((g.bytes for g in growth), Bytes(0)),
                            extensible=r.extensible_kv, rocm=is_amd(gpu.vendor),
                            transient=act_line.bytes)
    cap, segments = _capacity(model, parallel, r, rules, layout, budget, dsv4)
    draft_w_lines, draft_kv = _draft_lines(drafter, layout, cap, r, dsv4=dsv4,
                                           inside=measured[1] if draft_inside else None)
    ledger = _ledger(baseline, budget, rules, r, layout, cap, dsv4, [w_line, rope, *mla_lines, *ws_lines,
                                                                      *draft_w_lines],
                     act_line, g_line, growth, parts, draft_kv, segments)
    retry = _retry(model, gpu, given, options, machine, weights, uses_for or extra_uses) if search_fixes else None
    verdict, error_line = _decide(model, gpu, parallel, options, r, rules, baseline, budget, cap, retry)
    log = _plan_log(budget, cap, layout, r, rules, baseline, verdict, error_line)
    current = options.engine_version in ("current", "latest")
    return checked(PlanResult(
        engine="vllm", engine_version=CURRENT if current else options.engine_version, model=model.summary(),
        gpu=gpu.summary(), parallel=parallel, ledger=ledger, kv_tokens=cap.tokens,
        kv_pool=None if budget.override and override_spare(budget) < Bytes(0) else _kv_pool(layout, cap),  # OOM
        max_running_requests=r.max_num_seqs, max_concurrency=cap.max_concurrency, context_length=r.max_model_len,
        verdict=verdict, engine_log=log, extra=_extra(budget, cap, layout, r, rules),
        warnings=plan_warnings(model, gpu, parallel, options, r, rules, layout, w_plan, fallbacks)))
