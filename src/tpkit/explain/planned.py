"""Fixes planned from the catalog, for a crash log that prints no number to anchor on.

When an SGLang KV-pool failure prints nothing to re-plan from (no pre-load memory, no weights), but the model
config and the GPU are known (from the log, or ``--model`` / ``--gpu``), each fix is planned with
``tpkit.engines.sglang.policy.plan_sglang`` — the pure function ``tpkit plan`` calls — with the catalog's start-up
terms and their band (``tpkit.memory.band.with_band``).  These fixes are **not** measured: every one says it was
planned from the catalog, gives the band, and is only called a fit when the same planner, at the log's own
settings, reproduces the failure the log shows (otherwise the planner does not describe this run and no fix is
called a fit).
"""

from __future__ import annotations

from dataclasses import replace
from tpkit.explain.refusals import REFUSED

__all__ = ["catalog_fixes_sglang", "log_settings_sglang", "catalog_plan", "band_text"]

_FRACTIONS = (0.85, 0.88, 0.9, 0.92, 0.94)


def catalog_plan(model, gpu, parallel, options):
    """``plan_sglang``'s plan with the catalog's band (``memory.band.with_band``): what each catalog fix is planned
    with (here and in ``explain.migfix``)."""
    from tpkit.engines.sglang.policy import plan_sglang
    from tpkit.memory.band import with_band

    return with_band(plan_sglang, model, gpu, parallel, options)


def band_text(result) -> str:
    """A catalog plan's KV tokens as a fix's note gives them, with the band where it has one."""
    if result.band is None:
        return f"{result.kv_tokens:,} tokens"
    lo, hi = result.band.kv_tokens
    return f"{result.kv_tokens:,} tokens per rank (band {lo:,}–{hi:,})"


def log_settings_sglang(ctx):
    """(release, capped, parallel, options): the log's SGLang settings as the catalog plan takes them (split out of
    ``catalog_fixes_sglang`` for ``explain.migfix``, helper mig18b); raises what the planner refuses."""
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.explain.sgrelease import log_release, offload_gb
    from tpkit.parallel import ParallelSpec

    version, capped = log_release(ctx)
    dpa = bool(ctx.get("enable_dp_attention"))
    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    dp = int(ctx.get("dp", 1) or 1)
    frac = ctx.get("mem_fraction")
    kv = str(ctx.get("kv_cache_dtype", "auto") or "auto")
    options = SglangOptions(engine_version=version, mem_fraction_static=None if frac is None else float(frac),
                            context_length=ctx.get("context_length"), kv_cache_dtype=kv,
                            quantization=ctx.get("quantization"), enable_dp_attention=dpa,
                            cpu_offload_gb=offload_gb(ctx),
                            disable_cuda_graph=ctx.get("cuda_graph_disabled") is True,
                            links=getattr(ctx, "links", None), host_gpus=ctx.get("host_gpus"))
    return version, capped, ParallelSpec(tp=tp, pp=pp, dp=dp, dp_attention=dpa), options


def catalog_fixes_sglang(ctx, fractions: tuple[float, ...] | None = None,
                         held=None) -> tuple[list[dict], str | None]:
    """(fixes, finding): the SGLang fixes planned from the catalog at the log's settings, each as the keyword
    arguments of :class:`tpkit.explain.diagnose.Fix`; ([], None) when the model or the GPU is unknown or the planner
    refuses the settings.  ``fractions``: the ``--mem-fraction-static`` values to plan (default: the smallest of
    ``_FRACTIONS`` above the run's that fits).  The release is the one ``tpkit plan --from-log`` reads the log by
    (``explain.sgrelease.log_release``: the newest its formats allow, capped by its date), so a fix and the plan of
    its flags are the same plan (helper rt16: sg_038 was planned by 0.5.23 here, 0.5.5 by the plan).  ``held``: the
    memory the log's torch OOM lists as other processes' (``logs.failures`` size ``other_processes``), for
    ``_freed_card``.  Where neither twice the TP size nor fp8 weights fits alone, both together are planned too
    (``_both``, helper cr31)."""
    if ctx.model is None or ctx.gpu is None:
        return [], None
    try:
        version, capped, parallel, options = log_settings_sglang(ctx)
        base = catalog_plan(ctx.model, ctx.gpu, parallel, options)
    except REFUSED:  # settings the planner refuses: no planned fix, never a crash
        return [], None
    dpa, tp, dp = parallel.dp_attention, parallel.tp, parallel.dp
    frac = ctx.get("mem_fraction")
    where = (f"planned from the catalog (tpkit plan: {ctx.model_source}, {ctx.gpu.name}, SGLang {version} rules"
             + ("" if ctx.rules_version or capped else ", the release is not printed: the latest examined")
             + (f", {capped}" if capped else "") + "), not from the log's numbers")
    reproduced = not base.verdict.fits
    finding = (f"{where}: at the log's settings the planner says {base.verdict.message}"
               + ("" if reproduced else " — it does not reproduce the failure the log shows, so no planned fix is "
                                        "called a fit (pass --engine-version or --gpu if the log's are known)"))
    tries: list[tuple[str, object, object]] = []
    if dpa:
        tries.append(("drop --enable-dp-attention", replace(parallel, dp=1, dp_attention=False),
                      replace(options, enable_dp_attention=False)))
    now = (base.extra.get("sglang") or {}).get("mem_fraction_static") if isinstance(base.extra, dict) else None
    start = float(frac) if frac is not None else (float(now) if now else 0.0)
    fractions = [(f"--mem-fraction-static {f2:.2f}", parallel, replace(options, mem_fraction_static=f2))
                 for f2 in (fractions if fractions is not None else [x for x in _FRACTIONS if x > start + 1e-9])]
    if getattr(ctx.model, "quant", None) is None and not ctx.get("quantization"):
        tries.append(("--quantization fp8", parallel, replace(options, quantization="fp8")))
    tries.append((f"--tp {2 * tp}", replace(parallel, tp=2 * tp, dp=min(dp, 2 * tp)), options))

    def fix(flags, par, opt):
        return _planned_fix(ctx, where, reproduced, flags, par, opt)

    fixes = [f for f in (fix(*t) for t in tries[:1] if dpa) if f is not None]
    planned = [f for f in (fix(*t) for t in fractions) if f is not None]
    fitting = [f for f in planned if f["fits"]] or [f for f in planned if f["kv_tokens"]]
    if fitting or planned:
        fixes.append(fitting[0] if fitting else planned[-1])  # the smallest fraction that fits, else the largest tried
    fixes += [f for f in (fix(*t) for t in tries[1 if dpa else 0:]) if f is not None]
    both = _both(tries, fixes, options)
    if both is not None and (planned_both := fix(*both)) is not None:
        fixes.append(planned_both)
    if not reproduced:
        return _not_reproduced(ctx, base, (parallel, options), where, held, fixes, finding)
    return fixes, finding



def _planned_fix(ctx, where: str, reproduced: bool, flags: str, par, opt) -> dict | None:
    """One fix of ``catalog_fixes_sglang``: ``flags`` planned from the catalog at ``par`` / ``opt``, as the keyword
    arguments of :class:`tpkit.explain.diagnose.Fix`; None where the planner refuses the knob.  A fit needs the plan
    of the log's settings to reproduce the failure and the band's low end to hold a token."""
    try:
        result = catalog_plan(ctx.model, ctx.gpu, par, opt)
    except REFUSED:  # a knob the planner refuses is not a fix
        return None
    low = result.band.kv_tokens[0] if result.band is not None else result.kv_tokens
    edge = "" if not result.verdict.fits or low > 0 else "; the band's low end holds no token: not called a fit"
    return dict(flags=flags, kv_tokens=result.kv_tokens if result.verdict.fits else 0,
                fits=bool(result.verdict.fits) and reproduced and low > 0, why=result.verdict.message[:200],
                note=f"{where}; {band_text(result)}{edge}")

def _not_reproduced(ctx, base, settings, where: str, held, fixes: list[dict], finding: str) -> tuple[list[dict], str]:
    """(fixes, finding) of ``catalog_fixes_sglang`` when the plan of the log's settings fits an empty card: with the
    memory the OOM lists as other processes' (``held``), the plan on the card freed of it (``_freed_card``); else the
    reading of another tenant (``_other_tenant``), when it applies."""
    parallel, options = settings
    if held is not None:
        freed = _freed_card(ctx, base, parallel, options, where, held)
        if freed is not None:
            return fixes + [freed[1]], f"{where}: {freed[0]}"
    tenant = _other_tenant(ctx, base, parallel, options, where)
    if tenant is not None:
        return fixes + [tenant[1]], finding + "; " + tenant[0]
    return fixes, finding


def _other_tenant(ctx, base, parallel, options, where: str) -> tuple[str, dict] | None:
    """(words, fix) for a pool failure the plan of the log's settings does not reproduce (it fits an empty card):
    the least memory another process must have held for the failure to happen, and the fraction that leaves the
    plan's KV budget with that much held, with the most it tolerates (helper cr17, 2026-12-05).

    SGLang sizes the pool from rest = free after the load − pre × (1 − f), pre being the free memory it measured
    before the load (``ModelRunner.profile_max_num_token``, sglang 0.4–0.5.16; 0.5.16
    ``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes``), and fails when no token fits ('Not enough
    memory', or the weights-floor error).  Memory X held by another process from before the start lowers both free
    readings by X, so rest falls by f × X: the planned budget K fails once X ≥ K / f (memory taken during the load
    lowers only the second reading: X ≥ K).  At a fraction f2, with X held, the plan's static budget is
    f2 × (pre − X) and holds the same non-KV memory N = f × pre − K; the pool is empty once X ≥ pre − N / f2.  The
    fix is the smallest f2 (0.01 grid) that gives back the plan's KV budget with X = K / f, re-planned by the same
    planner on the card less X.  It is not called a fit: the log does not say how much the other process held, only
    the least."""
    from dataclasses import replace as dc_replace

    from tpkit.units import Bytes, gib_text

    sg = (base.extra or {}).get("sglang") if isinstance(base.extra, dict) else None
    if not sg or not sg.get("pre_model_load_bytes") or not sg.get("kv_budget_bytes"):
        return None
    f = float(sg.get("mem_fraction_static") or 0)
    pre, k = int(sg["pre_model_load_bytes"]), int(sg["kv_budget_bytes"])
    if not 0 < f < 1 or k <= 0:
        return None
    held = k / f
    non_kv = f * pre - k
    import math

    f2 = math.ceil(f * pre / (pre - held) * 100 - 1e-9) / 100
    if not f < f2 < 1:
        return None
    tolerates = pre - non_kv / f2
    budget = Bytes(k)
    held_gib, tolerates_gib = held / 2**30, tolerates / 2**30  # floats: k / f is not a whole count of bytes
    try:
        less = dc_replace(ctx.gpu, total_bytes=Bytes(int(ctx.gpu.total_bytes.bytes - held)))
        result = catalog_plan(ctx.model, less, parallel, replace(options, mem_fraction_static=f2))
    except (*REFUSED, TypeError):
        return None
    words = (f"for the pool to fail, another process (a colocated trainer, another engine) must have held at least "
             f"{gib_text(budget)} / {f:.2f} = {held_gib:.2f} GiB per GPU from before the start-up ({gib_text(budget)} "
             f"if it allocated during the load); freeing it, or --mem-fraction-static {f2:.2f}, which tolerates up to "
             f"{tolerates_gib:.2f} GiB held, would start the run")
    return words, dict(flags=f"--mem-fraction-static {f2:.2f}", kv_tokens=result.kv_tokens if result.verdict.fits else 0,
                       fits=False, why=f"with {held_gib:.2f} GiB held by another process (the least that makes the "
                                       f"log's fraction fail) the plan holds {result.kv_tokens:,} tokens; the pool is "
                                       f"empty once more than {tolerates_gib:.2f} GiB is held",
                       note=f"{where}, on the card less {held_gib:.2f} GiB; {band_text(result)}; not called a fit: the "
                            "log does not say how much the other process held, only the least")


def _both(tries, fixes: list[dict], options):
    """(flags, parallel, options) of twice the TP size with fp8 weights, where both were planned alone and the
    planner fits neither (weights above twice what one card's budget holds: a 16-bit Mixtral-8x7B, 87 GiB, on two 44
    GiB cards needs both halvings; each alone leaves the weights above the static budget); else None."""
    quant = next((t for t in tries if t[0] == "--quantization fp8"), None)
    tp = next((t for t in tries if t[0].startswith("--tp ")), None)
    alone = {f["flags"]: f["kv_tokens"] for f in fixes}  # 0 where the planner's verdict is no fit
    if quant is None or tp is None or alone.get(quant[0]) != 0 or alone.get(tp[0]) != 0:
        return None
    return f"{tp[0]} --quantization fp8", tp[1], replace(options, quantization="fp8")


def _freed_card(ctx, base, parallel, options, where: str, held) -> tuple[str, dict] | None:
    """(words, fix) for a failure the plan of an empty card does not reproduce, where the log's torch OOM lists
    another process's memory on the card (``held``, a ``PrintedSize``; torch names every process NVML lists on the
    device, ``c10/cuda/CUDACachingAllocator.cpp``'s OOM message 'Process N has X memory in use'): the same plan on the
    card less that memory.  Where it fails, the other process's memory accounts for the failure, and freeing it
    (or another GPU) gives back the empty card's plan: a fit where that plan holds a token at its band's low end.
    Where the plan still fits with that memory held, the printed process does not explain the failure: None (the
    fix is then not offered, and no fit is claimed)."""
    from dataclasses import replace as dc_replace

    from tpkit.units import Bytes

    left = int(ctx.gpu.total_bytes.bytes - held.value.bytes)
    if left <= 0:  # the printed process holds the whole card (a garbled figure): no card less it to plan on
        return None
    try:
        less = dc_replace(ctx.gpu, total_bytes=Bytes(left))
        shared = catalog_plan(ctx.model, less, parallel, options)
    except (*REFUSED, TypeError):  # a tuple of classes: REFUSED nested in it made every catch a TypeError (ex37)
        return None
    if shared.verdict.fits:
        return None
    low = base.band.kv_tokens[0] if base.band is not None else base.kv_tokens
    words = (f"on the empty card the planner says {base.verdict.message}; with the {held.text} the torch OOM lists "
             f"as another process's on the card it says {shared.verdict.message[:160]}: that process's memory "
             "accounts for the failure")
    return words, dict(flags="free the other process's memory (nvidia-smi) or CUDA_VISIBLE_DEVICES=<idle GPU>",
                       kv_tokens=base.kv_tokens, fits=low > 0,
                       why=f"the {held.text} another process holds on the card becomes free",
                       note=f"{where}; with the card free: {band_text(base)}")
