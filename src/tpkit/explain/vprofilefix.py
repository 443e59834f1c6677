"""``tpkit explain``'s diagnosis of a vLLM V0 profile-run OOM (``explain.vprofile``, helper rt23, 2026-12-06): the
profile-shrinking fixes (``--max-num-seqs N``, ``--max-num-batched-tokens N``, ``--max-model-len N`` where the
release parses the flag: ``engines.cliflags.accepts``, and the value moves the profile batch:
``explain.replan.same_profile``), each re-planned by ``explain.replan.relayout`` with the rule's charge, the numbers
``tpkit plan --from-log LOG <the fix's flags>`` gives; the weights fixes (tp, fp8) re-planned the same way; no
``--gpu-memory-utilization`` fix (the utilization enters after the profile run: ``explain.vprofile``)."""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, fp8_could_halve_weights
from tpkit.explain.refusals import PROFILE_UNPLANNED, REFUSED

__all__ = ["diagnose_profile_oom", "profile_oom_diagnosis"]

_STEPS = 6
"""halvings a flag's fix tries below the log's value: the first (largest) value whose re-plan fits is offered, else
the last tried, not a fit (each try is a few plans: ``tpkit explain``'s run time)"""

_FLAGS = (("max_num_seqs", "--max-num-seqs", "fewer dummy sequences in the profile run"),
          ("max_num_batched_tokens", "--max-num-batched-tokens", "fewer dummy tokens in the profile run"),
          ("max_model_len", "--max-model-len", "a shorter max_model_len lowers the default max_num_batched_tokens"))


def profile_oom_diagnosis(parsed, a, ctx) -> tuple[str, object, list[Fix]] | None:
    """``diagnose_profile_oom`` where the log's failure is a V0 profile-run OOM (``explain.vprofile.profile_oom``),
    else None (``explain.vdiagnose`` diagnoses it)."""
    from tpkit.explain.vprofile import profile_oom

    oom = profile_oom(parsed, ctx)
    return None if oom is None else diagnose_profile_oom(parsed, a, ctx, oom)


def diagnose_profile_oom(parsed, a, ctx, oom) -> tuple[str, object, list[Fix]]:
    """(cause, short, fixes) of a V0 profile-run OOM ``oom`` (``explain.vprofile.profile_oom``)."""
    failure = parsed.primary_failure
    asked, free = failure.size("requested"), failure.size("free")
    short = asked.value - free.value if asked is not None and free is not None else None
    cause = ("out of memory inside vLLM V0's profile run (worker.determine_num_available_blocks → profile_run, "
             "before the KV cache is sized)" + (f": asked for {asked.text}, {free.text} free" if short else "")
             + "; the run needed at least " + oom.words + ". --gpu-memory-utilization enters only after the "
             "profile run, so it cannot cure this; a smaller profile batch or smaller weights per GPU can")
    rel = {"engine_version": oom.release} if oom.release else {}
    from tpkit.explain.replan import log_planner

    own = log_planner(ctx, band=False, **rel)
    if own is None:  # no model or GPU: the profile fix unplanned, as before (explain.vdiagnose._no_kv_memory)
        from tpkit.explain.voom import unshown

        return cause, short, [unshown(Fix(flags="--max-num-seqs 64 --max-num-batched-tokens 4096", kv_tokens=None,
                                          fits=True, why="a smaller profile run lowers the activation peak"),
                                      PROFILE_UNPLANNED)]
    tp, q = int(ctx.get("tp", 1) or 1), _vr().log_quantization(ctx)
    try:
        base = own(tp=tp, pp=int(ctx.get("pp", 1) or 1), quantization=q, measured={})
    except REFUSED:
        return cause, short, []
    fixes = [fix for fix in (_flag_fix(a, ctx, oom, own, base, rel, dest, flag, why) for dest, flag, why in _FLAGS)
             if fix is not None]
    fixes.append(_tp_fix(a, ctx, oom, own, rel, tp, q))
    if fp8_could_halve_weights(ctx):
        fixes.append(_vr().layout_fix(a, ctx, flags="--quantization fp8", tp=tp, quantization="fp8",
                                      why="fp8 weights are half of 16-bit weights", fallback=None, changes=rel,
                                      profile=(oom, own)))
    return cause, short, [f for f in fixes if f is not None]


def _vr():
    from tpkit.explain import vreplan

    return vreplan


def _values(ctx, base, dest: str) -> list[int]:
    """The values a flag's fix tries: the log's (as planned, or for the length the context's) halved ``_STEPS``
    times, whole and ≥ 1."""
    extra = base.extra or {}
    length = int(ctx.get("context_length") or getattr(ctx.model, "max_position_embeddings", 0) or 0)
    start = int((length if dest == "max_model_len" else extra.get(dest)) or 0)
    floor = 1
    if dest == "max_num_batched_tokens":  # V0 SchedulerConfig._verify_args (0.6.2): ≥ max_num_seqs, and without
        seqs = int(extra.get("max_num_seqs") or 1)  # chunked prefill (a budget ≥ the length) ≥ max_model_len
        floor = max(seqs, length) if start >= length else seqs
    return [v for v in (start >> i for i in range(1, _STEPS + 1)) if v >= floor]


def _flag_fix(a, ctx, oom, own, base, rel: dict, dest: str, flag: str, why: str) -> Fix | None:
    """The first value of ``_values`` whose re-plan fits, else the last that moved the profile; None where the
    release does not parse the flag or no value moves the profile batch."""
    from tpkit.engines.cliflags import accepts

    if accepts("vllm", flag, ctx.rules_version) is False:
        return None
    last = None
    for value in _values(ctx, base, dest):
        fix = _vr().reprofiled(a, ctx, {dest: value}, why, rel=rel, base=base, profile=(oom, own))
        if fix is None:
            continue
        if fix.fits:
            return fix
        last = fix
    return last


def _tp_fix(a, ctx, oom, own, rel: dict, tp: int, q) -> Fix | None:
    """``--tensor-parallel-size`` at 2×, 4×, 8× the log's: the first whose re-plan fits, else the 2× one."""
    first = None
    for k in (2, 4, 8):
        fix = _vr().layout_fix(a, ctx, flags=f"--tensor-parallel-size {k * tp}", tp=k * tp, quantization=q,
                               why=f"1/{k} of the weights per GPU", fallback=None, changes=rel, profile=(oom, own))
        if fix is not None and fix.fits:
            return fix
        first = first or fix
    return first
