"""Fixes of a vLLM pipeline-parallel log whose stages ran on unlike GPUs, re-planned per stage (helper cr17,
2026-12-05).

``tpkit plan --from-log`` plans such a log's stages each on its own GPU (``cli.fromlog.stage_gpus_from_log``,
``engines.vllm.stages.plan_vllm_stages``: the devices the log numbers "0: NAME", "1: NAME", at tp 1 and dp 1).
vLLM 0.14 – 0.16's one-request error prints the smallest worker's available KV memory (``get_kv_cache_configs``
``min(available_memory)``), and what the engine prints as its capacity is the fewest blocks over the workers, each
from its own stage's layers; a fix's KV tokens taken as that memory over all layers (the request check's bytes per
token) is neither.  Here a fix that changes only what the profile run does not see
(``cli.fromlog_plan.BUDGET_ONLY_FLAGS``: the utilization, the context length, the KV dtype) is planned per stage,
the stage with the least planned available memory pinned to the printed one (``engines.vllm.stages._pinned``), the
same plan as ``tpkit plan --from-log LOG <the fix's flags>`` (vl_048: an RTX 5070 Ti and an RTX 5090 D, 16 / 32
layers)."""

from __future__ import annotations

from dataclasses import replace

from tpkit.explain.diagnose import Fix
from tpkit.explain.refusals import REFUSED
from tpkit.units import Bytes, gib_text

__all__ = ["log_pin", "stage_gpus", "stage_fix"]


def log_pin(parsed, a) -> tuple[Bytes, float, int | None] | None:
    """(the available KV memory the log printed, narrowed by vLLM's printed estimate where there is one; the log's
    utilization; the longest request vLLM's error estimated, which ``engines.vllm.stages`` narrows the two-decimal
    print with), or None where it printed none, or measured its activation peak (then that term is the log's)."""
    if a is None or getattr(a, "activation", None) is not None or a.utilization is None:
        return None
    from tpkit.explain.vtokens import estimate_pins_available

    failure = parsed.primary_failure
    available = estimate_pins_available(a, failure) or getattr(a, "available", None)
    if available is not None:
        return Bytes(int(available.mid.bytes)), float(a.utilization), None
    printed = failure.size("available") if failure is not None else None  # the one-request error's memory
    est = failure.count("estimated_max_len") if failure is not None else None
    return None if printed is None else (Bytes(int(printed.value.bytes)), float(a.utilization),
                                         int(est.value) if est is not None else None)


def stage_gpus(parsed, ctx) -> tuple | None:
    """The catalog GPUs of the stages, in stage order, as ``cli.fromlog.stage_gpus_from_log`` reads them: exactly pp
    numbered devices of more than one model, every name in the catalog, tp 1 and dp 1; else None."""
    by_index = getattr(getattr(parsed, "run", None), "gpus_by_index", ()) or ()
    pp = int(ctx.get("pp", 1) or 1)
    if (ctx.engine != "vllm" or pp < 2 or len(by_index) != pp or int(ctx.get("tp", 1) or 1) != 1
            or int(ctx.get("dp", 1) or 1) != 1 or len({n for n, _ in by_index}) < 2):
        return None
    from tpkit.hardware.catalog import known_gpu, lookup_gpu

    if not all(known_gpu(n) for n, _ in by_index):
        return None
    return tuple(lookup_gpu(n) for n, _ in by_index)


def stage_fix(parsed, a, ctx, fix: Fix, changes: dict) -> Fix:
    """``fix`` (its flags = ``changes``, budget-only) planned per stage with the printed minimum pinned; ``fix`` as
    it was where the stages, the model or the printed memory are not known, or the planner refuses."""
    gpus = stage_gpus(parsed, ctx)
    pin = log_pin(parsed, a)
    if gpus is None or pin is None:
        return fix
    from tpkit.explain.replan import log_options

    inputs = log_options(ctx, **changes)
    if inputs is None:
        return fix
    options, parallel = inputs
    partition = ctx.get("pp_layer_partition")
    try:
        if partition:
            parallel = replace(parallel, layer_partition=partition)
        from tpkit.engines.vllm.stages import plan_vllm_stages

        result = plan_vllm_stages(ctx.model, gpus, parallel, options, pinned=pin)
    except REFUSED:
        return fix
    fits = bool(result.verdict.fits)
    return Fix(flags=fix.flags, kv_tokens=int(result.kv_tokens), fits=fits, why=fix.why,
               note=(f"planned per pipeline stage on the log's GPUs ({', '.join(g.name for g in gpus)}), the stage "
                     f"with the least available memory pinned to the printed {gib_text(pin[0])}; the fewest "
                     "blocks over the stages, as vLLM keeps and prints them"
                     + ("" if fits else f"; the plan: {result.verdict.message[:160]}")))
