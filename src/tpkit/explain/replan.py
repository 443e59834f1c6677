"""A vLLM run re-planned at another layout (``--tensor-parallel-size``, ``--pipeline-parallel-size``,
``--quantization``) from the log's anchors: the one function (``relayout``) that ``tpkit explain``'s layout fixes
and ``tpkit plan --from-log LOG --tensor-parallel-size N`` (or ``--quantization Q``) both take their KV tokens and
verdict from, so the two answer the same question with the same numbers (helper rt14, 2026-12-05; before, explain
halved the measured weights and kept the rest of the log's non-KV memory while the plan derived every term).

Imported only where such a fix is offered or such a plan is asked for (``tpkit explain``'s cold start)."""

from __future__ import annotations

from functools import partial
from typing import Callable

from tpkit.explain.refusals import REFUSED
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

__all__ = ["Relayout", "relayout", "scaled_weights", "planned_weights", "log_planner", "log_quantization_planned",
           "same_profile"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Relayout:
    """A re-plan at another layout: the plan, the measured terms it was given, and the words of how."""
    result: object
    """the ``PlanResult`` at the new layout (its ``kv_tokens`` and ``verdict.fits`` are the fix's)"""
    terms: dict
    """term → Bytes the plan charged as measured (``weights``: the log's, scaled; empty when none carry over)"""
    note: str
    dropped: str = ""
    """why the log's measured weights were not used (a note of its own), "" otherwise"""


def scaled_weights(measured: Bytes, *, own: Bytes, new: Bytes) -> Bytes:
    """The log's measured per-rank weights at another layout: ``measured × new / own``, the planner's weights at the
    new layout over its weights at the log's (the sharding and quantization the planner knows, applied to the
    measurement; the planner's absolute figure may miss the log's own load: sg_045, GLM-4.7-Flash planned as a
    standard decoder, 55.84 GiB against 30.06 GiB measured).  The rule both engines' re-plans use: vLLM's
    'Model loading took' (:func:`relayout`), SGLang's 'Load weight end. mem usage' (``explain.sgreplan.relayout``
    and ``cli.fromlog.measured_from_log``)."""
    if own.bytes <= 0:
        raise ValueError(f"planned weights at the log's layout must be > 0, got {own.bytes} B")
    return Bytes(round(measured.bytes * new.bytes / own.bytes))


def planned_weights(result) -> Bytes | None:
    """The planner's 'model weights' line of a plan (the derived torch-allocated load delta per rank)."""
    line = next((x for x in result.ledger.items if x.item == "model weights"), None)
    return None if line is None else line.bytes


def same_profile(a, b) -> bool:
    """Whether two vLLM plans run the same profile batch: ``max_num_batched_tokens`` and ``max_num_seqs`` as the
    planner resolves them (``engines.vllm.batch_defaults.resolve_batch``).  ``--max-model-len`` moves them where the release
    derives the batch from it, as read in the wheels: V0 without chunked prefill, ``max(max_model_len, 2048)``
    (``config.py`` ``SchedulerConfig``, 0.2–0.10); V1 from 0.11.1, a default budget capped at ``max_num_seqs ×
    max_model_len`` and, with chunked prefill off, ``max(max_model_len, the device default)``
    (``engine/arg_utils.py`` ``_set_default_max_num_seqs_and_batched_tokens_args``).  The profile run's dummy
    batch is ``max_num_batched_tokens`` tokens over at most ``max_num_seqs`` sequences (V0 ``profile_run``, V1
    ``gpu_model_runner.profile_run`` / ``_dummy_sampler_run``), so with both equal the profile (and the CUDA-graph
    sizes that follow them) is the same and the log's non-KV memory holds; otherwise the activation peak is
    re-derived (:func:`relayout` at the log's layout)."""
    ea, eb = a.extra or {}, b.extra or {}
    return all(ea.get(k) == eb.get(k) for k in ("max_num_batched_tokens", "max_num_seqs"))


def log_quantization_planned(ctx, model=None) -> str | None:
    """The ``--quantization`` a plan of the log's own run takes, as ``tpkit plan --from-log`` fills it
    (``explain.fromlog.quantization_from_log`` with no flag given: the log's method in tpkit's spelling; None when it
    prints none, has no spelling, or the model config refuses it: ``explain.fromlog.refused_quantization``, vl_342's
    compressed-tensors on its base model's config); ``model``: the plan's model config (default: the context's)."""
    from tpkit.explain.fromlog import quantization_from_log, refused_quantization

    q = quantization_from_log(ctx, None)[0]
    model = model if model is not None else ctx.model
    if q is not None and model is not None and refused_quantization(model, q, ctx.engine):
        return None
    return q


Plan = Callable[..., object]
"""``plan(tp=, pp=, quantization=, measured=) -> PlanResult``: the caller's plan of the run at that layout, with
``measured`` (term → Bytes) charged as measured (``memory.band.measured_terms``) and nothing else from the log"""


def relayout(ctx, a, *, tp: int, pp: int, quantization: str | None, plan: Plan, model=None, profile=None):
    """The vLLM run of the log (context ``ctx``, anchors ``a``) re-planned at tp ``tp``, pp ``pp`` and
    ``quantization``, by ``plan`` (the same planner ``tpkit plan`` runs, with the caller's inputs; ``model``: the
    config it plans, default the context's; ``profile``: a profile-run OOM's charge, ``_charged``).

    What carries over from the log, term by term (vLLM 0.33 ``v1/worker/gpu_worker.py`` ``init_device`` and
    ``determine_available_memory``, ``utils/mem_utils.py`` ``memory_profiling``; the same structure from 0.9.1):

    - requested memory = total × gpu_memory_utilization of the device: per GPU, unchanged by the layout (the
      planner's, on the same GPU);
    - weights: 'Model loading took' is the torch-allocated delta of loading on one rank at the log's tp, pp and
      quantization.  At another layout it is scaled by the sharding the planner knows: measured × planned weights at
      the new layout / planned weights at the log's (``models.weights.plan_weights``: column/row-parallel layers
      split by tp, replicated ones not, the embedding padded, a stage's layers under pp, fp8 per-tensor scales);
      the load-time lines inside the delta (rotary cache, a backend's load-time copies) are charged 0 as they are
      for the log's own layout (``engines.vllm.policy.inside_load_delta``).  A log that prints no weights (a crash
      before 'Model loading took') leaves the planner's;
    - CUDA context and the start-up terms before vLLM's snapshot: the planner's (vLLM's log does not print them;
      V1 keeps them outside the budget); NCCL and the custom all-reduce exist only at world size > 1 and are
      created after the snapshot, so the non-torch growth during profiling is the planner's at the new world size;
    - activation peak (the profile run: ``profile_run`` with max_num_batched_tokens, hidden and MLP widths split by
      tp, the sampler's logits over the full vocabulary) and the CUDA-graph estimate: re-derived by the planner at
      the new layout.  A peak the log printed was measured at its own layout and is not carried;
    - the KV layout (KV heads split by tp when they divide, MLA replicated) and the block count: the planner's at
      the new layout, as is the verdict (vLLM's start-up free-memory check and its one-request check).

    The weights ratio needs a plan at the log's own layout with the log's quantization (``log_quantization_planned``);
    where it does not plan, or the plan's config refuses the quantization the log ran (another checkpoint than the
    one measured), the planner's derived weights are used and the note says so."""
    log_tp, log_pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    own_q = log_quantization_planned(ctx, model)
    measured = getattr(a, "weights", None) if a is not None else None
    terms: dict = {}
    changed = ", ".join(x for x in (f"tp {tp}" if tp != log_tp else "", f"pp {pp}" if pp != log_pp else "",
                                    f"quantization {quantization}" if quantization != own_q else "") if x)
    changed = changed or "the log's layout, the profile run re-derived"
    note = (f"re-planned at {changed} from the log (explain.replan.relayout, the re-plan tpkit explain's fixes and "
            "tpkit plan --from-log share)")
    from tpkit.explain.fromlog import quantization_from_log

    other = quantization_from_log(ctx, None)[0] is not None and own_q is None
    dropped = ""
    if other and measured is not None:
        # the plan's config refuses the quantization the log ran: another checkpoint than the one measured (vl_125's
        # AWQ run planned on an FP8 checkpoint), or a config without its quantization_config (vl_342): not scaled
        dropped = (f"weights not taken from the log: it ran tp {log_tp}, pp {log_pp}, quantization "
                   f"{ctx.get('quantization')}")
        note += "; the planner's derived weights"
    elif measured is not None and measured.mid.bytes > 0:
        note += _scaled_weights(plan, measured, terms, log=(log_tp, log_pp, own_q), new=(tp, pp, quantization))
    else:
        note += "; the log measured no weights: every term planned"
    result, note = _charged(profile, ctx, a, model, terms, note, partial(plan, tp=tp, pp=pp, quantization=quantization))
    return Relayout(result=result, terms=terms, note=note, dropped=dropped)


def _scaled_weights(plan: Plan, measured, terms: dict, *, log: tuple, new: tuple) -> str:
    """``relayout``'s weights term: the log's measured weights × planned weights at the ``new`` (tp, pp,
    quantization) / at the ``log``'s, set in ``terms``; the note's words (the planner's derived weights where either
    layout does not plan)."""
    (log_tp, log_pp, own_q), (tp, pp, quantization) = log, new
    try:
        own = planned_weights(plan(tp=log_tp, pp=log_pp, quantization=own_q, measured={}))
    except REFUSED:
        own = None
    try:
        target = planned_weights(plan(tp=tp, pp=pp, quantization=quantization, measured={}))
    except REFUSED:
        target = None
    if own is None or target is None or own.bytes <= 0:
        return "; the log's layout does not plan: the planner's derived weights"
    scaled = scaled_weights(measured.mid, own=own, new=target)
    terms["weights"] = scaled
    return (f"; weights {gib_text(scaled)} = the log's {measured.text()} × {gib_text(target, label='')} / "
            f"{gib_text(own)} (planned weights per rank at the new layout / at the log's); activation peak, "
            "CUDA-graph estimate and start-up terms planned at the new layout")


def _charged(profile, ctx, a, model, terms: dict, note: str, again) -> tuple[object, str]:
    """(the plan ``again(measured=terms)``, the note): where ``profile`` is (``explain.vprofile.ProfileOom``, the
    ``Plan`` of the log's own run) — the log's profile run OOMed — planned again with the activation peak
    ``explain.vprofile.charged_peak`` gives against the plan of the log's own run (its layout, quantization and
    batch, the log's measured weights charged): the demand the OOM printed (helper rt23); as it is otherwise."""
    result = again(measured=terms)
    if profile is None:
        return result, note
    from tpkit.explain.vprofile import charged_peak

    oom, own_plan = profile
    measured = getattr(a, "weights", None) if a is not None else None
    try:
        own = own_plan(tp=int(ctx.get("tp", 1) or 1), pp=int(ctx.get("pp", 1) or 1),
                       quantization=log_quantization_planned(ctx, model),
                       measured={"weights": measured.mid} if measured is not None and measured.mid.bytes > 0 else {})
    except REFUSED:
        return result, note
    charged = charged_peak(oom, own, result)
    if charged is None:
        return result, note
    return again(measured={**terms, "activation_peak": charged[0]}), f"{note}; {charged[1]}"


_PLANNERS: dict = {}
"""``log_planner``'s closures of the explanation in progress, by (id of the context, changes): a diagnosis asks for
the same plans from several fixes (each layout fix plans the log's own layout for its weights ratio)"""


def log_planner(ctx, *, band: bool = True, **changes) -> Plan | None:
    """:func:`_log_planner`, kept per context and changes while the context lives in the cache."""
    key = (id(ctx), band, tuple(sorted(changes.items())))
    held = _PLANNERS.get(key)
    if held is not None and held[0] is ctx:
        return held[1]
    if len(_PLANNERS) > 32:
        _PLANNERS.clear()
    plan = _log_planner(ctx, band=band, **changes)
    _PLANNERS[key] = (ctx, plan)
    return plan


def _log_planner(ctx, *, band: bool = True, **changes) -> Plan | None:
    """``tpkit explain``'s ``plan`` for :func:`relayout`: the run as ``tpkit plan --from-log`` fills it from the log
    (``cli.fromlog.from_log``: the release, the layout, the flags of ``explain.fromlog.LOG_FLAGS``, the log's
    ``async_scheduling``, its quantization, its links) on the context's model and GPU, with the option ``changes``
    a fix adds (``gpu_memory_utilization=0.87``: the flag given beside the layout's); None where the model or the
    GPU is unknown (the plan is refused for the same reason)."""
    inputs = log_options(ctx, **changes)
    if inputs is None:
        return None
    options, parallel = inputs
    from dataclasses import replace

    done: dict = {}

    def plan(*, tp: int, pp: int, quantization: str | None, measured: dict):
        from tpkit.engines.vllm.policy import plan_vllm
        from tpkit.memory.band import measured_terms, with_band

        key = (tp, pp, quantization, tuple(sorted((k, v.bytes) for k, v in measured.items())))
        if key not in done:
            with measured_terms(measured, source="the log, scaled to the new layout"):
                # the verdict's own fix search is not needed: its fits and tokens are the same without it
                args = (ctx.model, ctx.gpu, replace(parallel, tp=tp, pp=pp), replace(options, quantization=quantization))
                done[key] = (with_band(plan_vllm, *args, search_fixes=False) if band
                             else plan_vllm(*args, search_fixes=False))
        return done[key]
    return plan


def log_options(ctx, **changes):
    """(the vLLM options, the parallel layout) ``tpkit plan --from-log`` fills from the log, with ``changes``; None
    where the model or the GPU is unknown or the options are refused (split out of ``_log_planner``, helper cr17)."""
    if ctx.engine != "vllm" or ctx.model is None or ctx.gpu is None:
        return None
    from dataclasses import fields, replace

    from tpkit.engines.registry import get_engine
    from tpkit.explain.fromlog import log_flag_values
    from tpkit.parallel import ParallelSpec

    engine = get_engine("vllm")
    names = {f.name for f in fields(engine.options) if f.metadata.get("flag") is not None}
    values = {dest: value for dest, _, value in log_flag_values(ctx) if dest in names}
    values.update(changes)
    if ctx.get("async_scheduling") is False and "no_async_scheduling" in names:
        values["no_async_scheduling"] = True
    release = changes.get("engine_version") or ctx.rules_version  # a fix may name the rules (V0's ":v0", rt23)
    if release:
        try:
            engine.options(engine_version=release)
            values["engine_version"] = release
        except REFUSED:  # a release the engine has no rules for: its default rules, as the plan
            pass
    try:
        options = engine.options(**values)
    except REFUSED:
        return None
    if ctx.links is not None:
        options = replace(options, links=ctx.links)
    parallel = ParallelSpec(tp=int(ctx.get("tp", 1) or 1), pp=int(ctx.get("pp", 1) or 1),
                            dp=int(ctx.get("dp", 1) or 1), ep=int(ctx.get("ep", 1) or 1))
    return options, parallel
