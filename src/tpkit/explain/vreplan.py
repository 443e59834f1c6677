"""vLLM fixes re-planned by ``explain.replan.relayout``, the function ``tpkit plan --from-log LOG <the fix's flags>``
takes its numbers from (another TP size or quantization, profile flags that move the profile batch); split from
``explain.vdiagnose`` (helper rt14, 2026-12-05) and imported only where such a fix is offered."""

from __future__ import annotations

import math
from dataclasses import replace

from tpkit.explain.diagnose import MAX_FRACTION, SUGGESTION, Fix
from tpkit.explain.interval import mid_bytes
from tpkit.explain.refusals import REFUSED

__all__ = ["layout_fix", "tp_fix", "reprofiled", "log_quantization", "more_gpus", "per_stage_fixes"]


def layout_fix(a, ctx, *, flags: str, tp: int, quantization: str | None, why: str,
                fallback: Fix | None, changes: dict | None = None, profile: tuple | None = None) -> Fix | None:
    """A fix at another layout (``--tensor-parallel-size``, ``--quantization``) re-planned by
    ``explain.replan.relayout``, the function ``tpkit plan --from-log LOG <flags>`` takes its numbers from (the
    log's weights scaled by the planner's sharding, the other terms planned at the new layout): its KV tokens and
    verdict are the plan's.  ``fallback`` (the measured weights halved, the rest of the log's non-KV memory kept)
    where the model config or the GPU is unknown or the planner refuses the layout (the plan is refused then too).
    ``profile``: a profile-run OOM's (rule, plan of the log's own run), passed to ``relayout`` (helper rt23).
    Where the re-plan carries no weights the log measured (``vcatalogfit.from_catalog``), a fit is kept only at the
    band's pessimistic end (``vcatalogfit.checked``, helper cr34b: round cr33c's class (b))."""
    from tpkit.explain.replan import log_planner, relayout

    plan = log_planner(ctx, band=False, **(changes or {}))  # the nominal plan: its tokens and verdict
    if plan is None:
        return fallback
    try:
        done = relayout(ctx, a, tp=tp, pp=int(ctx.get("pp", 1) or 1), quantization=quantization, plan=plan,
                        profile=profile)
    except REFUSED:
        return fallback
    result = done.result
    fits = bool(result.verdict.fits)
    fix = Fix(flags=flags, kv_tokens=int(result.kv_tokens), fits=fits, why=why,
              note=done.note + ("" if fits else f"; the plan: {result.verdict.message[:160]}"))
    from tpkit.explain.vcatalogfit import checked, from_catalog

    if fits and from_catalog(done):  # class (b): the band's pessimistic end decides (helper cr34b)
        return checked(fix, ctx, a, tp=tp, pp=int(ctx.get("pp", 1) or 1), quantization=quantization,
                       changes=changes, profile=profile)
    return fix


_TP_STEPS = (2, 4, 8)
"""the TP sizes a tensor-parallel fix tries, as multiples of the log's: the first whose re-plan fits is offered"""


def tp_fix(a, ctx, *, why: str, fallback: Fix) -> Fix:
    """``--tensor-parallel-size`` at twice the log's tp, else the smallest of 4× and 8× whose re-plan
    (``layout_fix``) fits: the weights of a model too large for two GPUs need more (vl_106, DeepSeek-R1-Distill-
    Qwen-14B bf16 on a 16 GB card: 13.95 GiB per GPU at tp 2 against a 10.9 GiB budget; tp 4 fits).  A size the
    planner refuses (heads not divisible) is skipped; where none fits, the first whose nominal plan fits but not at
    the band's pessimistic end (``vcatalogfit.checked``: a suggestion, helper cr34b) is offered, else the 2× re-plan,
    neither a fit."""
    tp = int(ctx.get("tp", 1) or 1)
    first = maybe = None
    for k in _TP_STEPS:
        fix = layout_fix(a, ctx, flags=f"--tensor-parallel-size {k * tp}", tp=k * tp,
                          quantization=log_quantization(ctx), fallback=fallback if k == 2 else None,
                          why=why if k == 2 else f"1/{k} of the weights per GPU (at tp {2 * tp} the plan does "
                                                 "not fit)")
        if fix is None:
            continue
        if fix.fits or fix is fallback:
            return fix
        first = first or fix
        more = _with_utilization(a, ctx, fix, tp=k * tp)
        if more is not None and more.fits:
            return more
        maybe = maybe or more or (fix if fix.note.startswith(SUGGESTION) else None)
    return maybe or first or fallback


_UTILIZATION_STEPS = 5
"""re-plans ``_with_utilization`` tries above the utilization that covers the shortfall (the rest is one request's KV
and the rounding: a step or two; each try is a few plans, ``tpkit explain``'s run time)"""


def _with_utilization(a, ctx, fix: Fix, *, tp: int) -> Fix | None:
    """The layout ``fix`` that does not fit with the smallest higher ``--gpu-memory-utilization`` (vLLM's 0.01
    grid, at most ``MAX_FRACTION``) whose re-plan fits: where the weights at tp ``tp`` leave the budget short
    (vl_224, Qwen2.5-7B fp16 on a 6 GiB card at 0.8: tp 4 is short by 0.37 GiB before any KV cache; 0.87 fits,
    as the plan's own verdict says).  Starts at the utilization that covers the re-plan's shortfall and tries
    ``_UTILIZATION_STEPS``; where none fits, the first whose nominal plan fits but not at the band's pessimistic end
    (a suggestion, helper cr34b), else None (also when the shortfall is not known)."""
    u = a.utilization if a is not None else None
    total = mid_bytes(a.total) if a is not None else None
    if u is None or not total:
        return None
    from tpkit.explain.replan import log_planner, relayout

    plan = log_planner(ctx, band=False)
    try:
        base = relayout(ctx, a, tp=tp, pp=int(ctx.get("pp", 1) or 1), quantization=log_quantization(ctx),
                        plan=plan).result if plan is not None else None
    except REFUSED:  # the layout was planned a moment ago; a refusal here offers nothing more
        return None
    available = (base.extra or {}).get("available_kv_bytes") if base is not None else None
    if available is None:
        return None
    u2 = math.ceil((u + max(0, -int(available)) / total) * 100) / 100
    maybe = None
    for _ in range(_UTILIZATION_STEPS):
        if u2 > MAX_FRACTION + 1e-9:
            return maybe
        more = layout_fix(a, ctx, flags=f"--tensor-parallel-size {tp} --gpu-memory-utilization {u2:.2f}", tp=tp,
                           quantization=log_quantization(ctx), fallback=None,
                           why=f"the weights split over {tp} GPUs, and more of each device for vLLM",
                           changes={"gpu_memory_utilization": u2})
        if more is None:
            return maybe
        if more.fits:
            return replace(more, note=more.note + "; assumes the devices have it free")
        if maybe is None and more.note.startswith(SUGGESTION):
            maybe = replace(more, note=more.note + "; assumes the devices have it free")
        u2 = round(u2 + 0.01, 2)
    return maybe


def reprofiled(a, ctx, changes: dict, why: str, *, rel: dict | None = None, base=None,
               profile: tuple | None = None) -> Fix | None:
    """A fix of profile flags (``--max-model-len N``, ``--max-num-seqs`` / ``--max-num-batched-tokens``) re-planned
    where they move the profile batch (``explain.replan.same_profile``: for the length, V0 without chunked prefill
    and V1 ≥ 0.11.1 with a small max_num_seqs): the log's non-KV memory does not hold then, and the fix is the
    re-plan ``tpkit plan --from-log LOG <its flags>`` makes (``cli.fromlog_replan.reprofiles``: the weights measured, the
    profile re-derived, ``explain.replan.relayout``); None where the batch is the same (the log's available memory
    holds) or the planner cannot plan the run.  A V0 profile-run OOM (``explain.vprofilefix``) passes the settings
    its fixes keep (``rel``), the log's own plan already made (``base``) and its charge (``profile``: (oom, own))."""
    from tpkit.explain.replan import log_planner, same_profile

    rel = rel or {}
    own = None if base is not None else log_planner(ctx, band=False)
    given = log_planner(ctx, band=False, **rel, **changes)
    if given is None or (base is None and own is None):
        return None
    tp, pp, q = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1), log_quantization(ctx)
    try:
        if same_profile(base if base is not None else own(tp=tp, pp=pp, quantization=q, measured={}),
                        given(tp=tp, pp=pp, quantization=q, measured={})):
            return None
    except REFUSED:
        return None
    flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in changes.items())
    return layout_fix(a, ctx, flags=flags, tp=tp, quantization=q, why=why, fallback=None,
                      changes={**rel, **changes}, profile=profile)


def log_quantization(ctx) -> str | None:
    """The quantization a plan of the log's run takes (``explain.replan.log_quantization_planned``)."""
    from tpkit.explain.replan import log_quantization_planned

    return log_quantization_planned(ctx)


def more_gpus(a, ctx, cause: str, fixes: list, planned: bool, utilization: float | None = None) -> str:
    """Where the start-up check's advice to free the card was planned (``planned``) and does not fit: the outcome
    "does not fit on N × GPU at any setting" with the fewest GPUs that fit (``explain.vgpus``, helper cr17), its
    fixes appended to ``fixes``; the cause, with the outcome where it applies.  ``utilization``: the one that passes
    the start-up check, for the ``--cpu-offload-gb`` fix on the log's GPUs (helper cr19)."""
    if not planned or fixes[-1].fits:
        return cause
    from tpkit.explain.vgpus import fewest_gpus

    count = fewest_gpus(a, ctx, utilization=utilization)
    if count is None:
        return cause
    fixes.extend(count.fixes)
    return f"{cause}; {count.text}"


_BUDGET_FLAGS = {"--max-model-len": ("max_model_len", int), "--kv-cache-dtype": ("kv_cache_dtype", str),
                 "--gpu-memory-utilization": ("gpu_memory_utilization", float)}
"""a fix's flags that change only what the profile run does not see (``cli.fromlog_plan.BUDGET_ONLY_FLAGS``)"""


def per_stage_fixes(parsed, a, ctx, fixes: list) -> list:
    """A pipeline-parallel log's budget-only fixes planned per stage on the log's unlike GPUs (``explain.vstages``,
    helper cr17); any other fix, or any fix of a log without pp, as it is."""
    if int(ctx.get("pp", 1) or 1) < 2:
        return fixes
    from tpkit.explain.vstages import stage_fix

    out = []
    for fix in fixes:
        words = fix.flags.split()
        dest, kind = _BUDGET_FLAGS.get(words[0], (None, None)) if len(words) == 2 else (None, None)
        try:
            out.append(stage_fix(parsed, a, ctx, fix, {dest: kind(words[1])}) if dest else fix)
        except ValueError:
            out.append(fix)
    return out
