"""``tpkit plan --from-log``'s re-plans of a vLLM log (split from ``cli.fromlog``, helper rt23, 2026-12-06): which
plans leave the log's measured non-KV memory (another layout or quantization: ``layout_changed``; profile flags
that move the profile batch: ``reprofiles``; a V0 profile-run OOM: ``explain.vprofile``) and re-plan through
``explain.replan.relayout``, the function ``tpkit explain``'s fixes take their numbers from (``relayout_plan``)."""

from __future__ import annotations

__all__ = ["PROFILE_FLAGS", "layout_changed", "reprofiles", "relayout_plan", "profile_oom_of"]


def layout_changed(args, log, parallel, model) -> bool:
    """A vLLM plan at another tp, pp or quantization than the log ran (``explain.replan.relayout`` re-plans it)."""
    if args.engine != "vllm" or log.context.engine != "vllm":
        return False
    from tpkit.explain.replan import log_quantization_planned
    from tpkit.logs.settings import same_quantization

    ctx = log.context
    own_q = log_quantization_planned(ctx, model)
    given_q = getattr(args, "quantization", None)
    return (int(ctx.get("tp", 1) or 1) != parallel.tp or int(ctx.get("pp", 1) or 1) != parallel.pp
            or not (given_q == own_q or (own_q is not None and same_quantization(own_q, given_q))))


PROFILE_FLAGS = ("max_model_len", "max_num_seqs", "max_num_batched_tokens")
"""the vLLM flags that can move the profile run's batch (``explain.replan.same_profile``)"""


def reprofiles(args, log, engine, model, gpu, parallel, options, machine) -> bool:
    """A vLLM plan whose flags (``PROFILE_FLAGS`` given, not the log's) move the profile batch the planner resolves
    (``explain.replan.same_profile``; ``--max-model-len`` does so in V0 without chunked prefill and in V1 ≥ 0.11.1
    with a small max_num_seqs or chunked prefill off): the log's measured activation peak and non-KV memory do not
    hold, and it is re-planned as at another layout (the weights measured, the profile re-derived).  The same test
    picks the re-plan of ``tpkit explain``'s profile fixes (``explain.vreplan.reprofiled``)."""
    given = [d for d in PROFILE_FLAGS if d in args.user_given]
    if args.engine != "vllm" or log.context.engine != "vllm" or not given:
        return False
    from dataclasses import replace

    from tpkit.explain.fromlog import log_flag_values
    from tpkit.explain.refusals import REFUSED
    from tpkit.explain.replan import same_profile

    logged = {d: v for d, _, v in log_flag_values(log.context) if d in given}
    try:
        own = engine.plan(model, gpu, parallel, replace(options, **{d: logged.get(d) for d in given}),
                          machine=machine)
        planned = engine.plan(model, gpu, parallel, options, machine=machine)
    except REFUSED:
        return False
    return not same_profile(own, planned)


def relayout_plan(args, log, engine, model, gpu, parallel, options, machine, extra_uses) -> tuple[object, tuple]:
    """The plan at another layout than the log's: ``explain.replan.relayout`` with this plan's inputs (the function
    ``tpkit explain``'s layout fixes take their numbers from), the log's measured start-up terms not carried."""
    from dataclasses import replace

    from tpkit.explain.replan import relayout
    from tpkit.memory.band import measured_terms, with_band

    def plan(*, tp: int, pp: int, quantization, measured: dict):
        with measured_terms(measured, source=f"the log's weights scaled to the new layout ({args.from_log})"):
            return with_band(engine.plan, model, gpu, replace(parallel, tp=tp, pp=pp),
                             replace(options, quantization=quantization), machine=machine, extra_uses=extra_uses)

    done = relayout(log.context, log.anchored, tp=parallel.tp, pp=parallel.pp, quantization=options.quantization,
                    plan=plan, model=model, profile=_profile(args, log, engine, model, gpu, parallel, options, machine,
                                                             extra_uses))
    return done.result, tuple(getattr(args, "log_notes", ())) + (done.note,) + ((done.dropped,) if done.dropped else ())


def profile_oom_of(log):
    """The log's V0 profile-run OOM (``explain.vprofile.profile_oom``), None where it is not one."""
    if log.context.engine != "vllm":
        return None
    from tpkit.explain.vprofile import profile_oom

    return profile_oom(log.parsed, log.context)


def _profile(args, log, engine, model, gpu, parallel, options, machine, extra_uses) -> tuple | None:
    """(the log's V0 profile-run OOM, the plan of the log's own run: this plan's inputs with the log's profile
    flags, ``PROFILE_FLAGS``) for ``explain.replan.relayout``'s charge; None where the log is not such a failure."""
    if profile_oom_of(log) is None:
        return None
    from dataclasses import replace

    from tpkit.explain.fromlog import log_flag_values
    from tpkit.explain.vprofile import profile_oom
    from tpkit.memory.band import measured_terms, with_band

    logged = {d: v for d, _, v in log_flag_values(log.context) if d in PROFILE_FLAGS}
    own_options = replace(options, **{d: logged.get(d) for d in PROFILE_FLAGS})
    oom = profile_oom(log.parsed, log.context, model)

    def own(*, tp: int, pp: int, quantization, measured: dict):
        with measured_terms(measured, source=f"measured in {args.from_log}"):
            return with_band(engine.plan, model, gpu, replace(parallel, tp=tp, pp=pp),
                             replace(own_options, quantization=quantization), machine=machine, extra_uses=extra_uses)
    return oom, own
