"""``tpkit explain`` on a MIG slice: no fix that needs more than one GPU (helper mig18b, 2026-12-05).

A MIG slice refuses tp / pp / dp > 1 (``hardware.catalog.refuse_mig_layout``: no peer access and no NVLink between
MIG instances; vLLM's tp across two partitions fails at start-up, vllm-project/vllm#7211), and ``tpkit plan
--from-log`` refuses such flags on a slice, so a diagnosis on a slice drops every fix that asks for more GPUs and
offers instead, as ``tpkit plan``'s verdicts do (``engines.layoutfix``), the smallest larger slice of the same card
that fits and the whole card, each re-planned by the planner the engine's other fixes use (vLLM:
``explain.vreplan.layout_fix``, the re-plan ``tpkit plan --from-log LOG --gpu …`` shares; SGLang: the catalog plan
of the log's settings, ``explain.planned``)."""

from __future__ import annotations

import re
from dataclasses import replace

from tpkit.explain.refusals import REFUSED

__all__ = ["mig_fixes", "needs_more_gpus", "drop_wide_fixes"]


def drop_wide_fixes(diagnosis, printed: str):
    """A log that names a MIG slice but whose GPU is unknown (no total printed, no --gpu-memory): the fixes that ask
    for more GPUs dropped, and the finding says what to pass."""
    if not any(needs_more_gpus(f.flags) for f in diagnosis.fixes):
        return diagnosis
    kept = tuple(f for f in diagnosis.fixes if not needs_more_gpus(f.flags))
    return replace(diagnosis, fixes=kept, findings=diagnosis.findings + (
        f"{printed} is a MIG slice: no fix with more GPUs is offered ({_no_tp()}; vllm-project/vllm#7211); pass "
        "its CUDA total with --gpu-memory to have the single-GPU fixes re-planned",))


def _no_tp() -> str:
    from tpkit.engines.layoutfix import NO_TP_ON_MIG

    return NO_TP_ON_MIG

_WIDE = re.compile(r"--(?:tp|tensor-parallel-size|pp|pipeline-parallel-size|dp|data-parallel-size|num-gpus)"
                   r"(?:\s+|=)(\d+)")


def needs_more_gpus(flags: str) -> bool:
    """Whether a fix's flags ask for tp / pp / dp / --num-gpus above 1."""
    return any(int(v) > 1 for v in _WIDE.findall(flags or ""))


def mig_fixes(diagnosis, ctx, a):
    """``diagnosis`` with its multi-GPU fixes replaced by the larger slices / whole card (unchanged off a slice or
    where no fix asks for more GPUs)."""
    from tpkit.engines.layoutfix import NO_TP_ON_MIG, on_mig, slice_then_whole

    gpu = getattr(ctx, "gpu", None)
    if not on_mig(gpu) or not any(needs_more_gpus(f.flags) for f in diagnosis.fixes):
        return diagnosis
    kept = [f for f in diagnosis.fixes if not needs_more_gpus(f.flags)]

    def plan(alt):
        what = "the whole card, MIG off" if not on_mig(alt) else "a larger MIG slice of the same card"
        fix = _on(ctx, a, alt, f"{what} ({NO_TP_ON_MIG})")
        return None if fix is None else (fix, fix.fits)

    added = [fix for _, fix, _ in slice_then_whole(gpu, plan)]
    findings = diagnosis.findings + (f"{gpu.name} is a MIG slice: no fix with more GPUs is offered ({NO_TP_ON_MIG}; "
                                     "vllm-project/vllm#7211)",)
    return replace(diagnosis, fixes=tuple(kept + added), findings=findings)


def _on(ctx, a, alt, why: str):
    """The log's run re-planned on ``alt`` as a Fix (None where it cannot be planned)."""
    from tpkit.explain.diagnose import Fix

    moved = replace(ctx, gpu=alt, gpu_source=f"--gpu {alt.name} (a fix)")
    flags = f"--gpu {alt.name}"
    if ctx.engine == "vllm":
        from tpkit.explain.vreplan import layout_fix, log_quantization

        return layout_fix(a, moved, flags=flags, tp=int(ctx.get("tp", 1) or 1), quantization=log_quantization(moved),
                          why=why, fallback=None)
    if ctx.engine == "sglang" and ctx.model is not None:
        from tpkit.explain.planned import band_text, catalog_plan, log_settings_sglang

        try:
            version, _, parallel, options = log_settings_sglang(moved)
            result = catalog_plan(ctx.model, alt, parallel, options)
        except REFUSED:
            return None
        low = result.band.kv_tokens[0] if result.band is not None else result.kv_tokens
        fits = bool(result.verdict.fits) and low > 0
        return Fix(flags=flags, kv_tokens=result.kv_tokens if result.verdict.fits else 0, fits=fits, why=why,
                   note=f"planned from the catalog (tpkit plan: {ctx.model_source}, {alt.name}, SGLang {version} "
                        f"rules), not from the log's numbers; {band_text(result)}")
    return None
