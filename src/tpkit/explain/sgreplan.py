"""The load usage an SGLang fix at another layout (``--tp``, ``--quantization fp8``) re-plans with (``relayout``);
split from ``explain.sgdiagnose`` and imported only where such a fix is offered (``tpkit explain``'s cold start)."""

from __future__ import annotations

from dataclasses import replace

from tpkit.explain.diagnose import bytes_text as _g
from tpkit.explain.refusals import REFUSED

__all__ = ["relayout", "load_at", "no_replan_words"]


def load_at(ctx, *, tp: int, pp: int | None = None, quantization: str | None = None, model=None,
            gpu=None) -> tuple[object, object]:
    """(load usage at tp ``tp`` and ``quantization``, load usage at the log's own layout) per rank, as ``tpkit
    plan`` charges it (``engines.sglang.load.load_usage``: the derived weights, the rotary cache, the load
    allocations beyond them) under the release ``tpkit plan --from-log`` reads the log by (``sgrelease.log_release``),
    on ``model`` and ``gpu`` (default: the context's).  Raises what the rules raise (``explain.refusals.REFUSED``)."""
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.engines.sglang.load import load_usage
    from tpkit.explain.sgrelease import log_release, offload_gb
    from tpkit.parallel import ParallelSpec

    model = model if model is not None else ctx.model
    gpu = gpu if gpu is not None else ctx.gpu
    context = ctx.get("context_length")
    options = SglangOptions(engine_version=log_release(ctx)[0], quantization=quantization or ctx.get("quantization"),
                            context_length=None if context is None else int(context), cpu_offload_gb=offload_gb(ctx))
    pp = int(ctx.get("pp", 1) or 1) if pp is None else pp
    nominal = load_usage(model, ParallelSpec(tp=tp, pp=pp), options, None, gpu)[0]
    own = load_usage(model, ParallelSpec(tp=int(ctx.get("tp", 1) or 1), pp=int(ctx.get("pp", 1) or 1)),
                     replace(options, quantization=ctx.get("quantization")), None, gpu)[0]
    return nominal, own


def relayout(ctx, a, *, tp: int, quantization: str | None = None) -> dict:
    """The weights a fix at another layout (``--tp``, ``--quantization fp8``) re-plans with, as keywords of
    ``_Replan.fix``: the log's 'Load weight end. mem usage' holds per rank at its own tp, pp and quantization only,
    so where the model config and the GPU are known it is scaled by the planner's load usage at the new layout over
    its load usage at the log's (``explain.replan.scaled_weights``, ``load_at``), the rule ``tpkit plan --from-log
    LOG <its flags>`` applies (``cli.fromlog.measured_from_log``): the fix and the plan re-plan the same weights,
    also where the planner's absolute figure misses the log's own load (sg_045, GLM-4.7-Flash planned as a standard
    decoder: 55.84 GiB against 30.06 GiB measured; until helper rt14 the fix scaled by 1/2 and the plan derived
    55.84 / 2).  Else the measured weights scaled by 1/2 (replicated layers not split; 16-bit weights assumed for
    fp8)."""
    default = _default_at(ctx, a, tp)
    scaled = dict(weights_scale=0.5, note="weights scaled by 1/2 " + ("(assumes 16-bit weights)" if quantization
                                                                     else "(replicated layers not split)"))
    from tpkit.explain.sgbudget import load_of

    measured = load_of(a)
    if ctx.model is None or ctx.gpu is None or measured is None:
        return _with_default(scaled, default)
    from tpkit.explain.replan import scaled_weights

    try:
        nominal, own = load_at(ctx, tp=tp, quantization=quantization)
        weights = scaled_weights(measured.mid, own=own, new=nominal)
    except REFUSED:  # a layout or quantization the rules refuse: the measured weights, scaled
        return scaled
    changed = f"tp {tp}" if quantization is None else f"quantization {quantization}"
    from tpkit.explain.sgrelease import stream_pool_for

    pool = stream_pool_for(ctx, tp, int(ctx.get("pp", 1) or 1))[0]  # at world > 1 inside init_torch_distributed
    return _with_default(dict(weights=weights.bytes, stream=pool.mid.bytes if pool is not None else 0,
                              note=f"re-planned at {changed}: the log's {measured.text()} × {_g(nominal)} / "
                                   f"{_g(own)} (tpkit plan's load usage per rank at the new layout / at the log's) = "
                                   f"{_g(weights)}, as tpkit plan --from-log charges it"), default)


def _default_at(ctx, a, tp: int) -> tuple[float, str] | None:
    """(SGLang's default mem_fraction_static at tp ``tp``, its source) where the run's fraction was SGLang's default
    (the log prints none and no flag gives one) and the default at ``tp`` differs from it; else None.  A user who
    re-runs with ``--tp N`` and no ``--mem-fraction-static`` gets the release's default for that layout: the
    by-tp tables up to 0.4.5 and the ROCm aiter × 0.85, whose default backend follows the KV heads per rank (sglang
    0.4.7–0.5.4 ``ModelRunner.model_specific_adjustment``, ``engines.sglang.choices.rocm_aiter_factor``), both
    as ``explain.sgrelease.default_fraction`` computes them and ``tpkit plan`` applies them (sg_061, 0.4.8 on
    MI300X: 0.690 at tp 8 with aiter, 0.812 at tp 16 where the default backend is triton)."""
    if ctx.get("mem_fraction") is not None or a.fraction is None or ctx.model is None:
        return None
    from tpkit.explain.sgrelease import default_fraction

    rng, source = default_fraction(ctx, tp, int(ctx.get("pp", 1) or 1))
    if rng is None:
        return None
    value = (rng[0] + rng[1]) / 2
    if abs(value - a.fraction) < 5e-5:
        return None
    return value, (f"mem_fraction_static {value:.3f}, SGLang's default at tp {tp} (the run's {a.fraction:.3f} was "
                   f"its default at tp {int(ctx.get('tp', 1) or 1)}, not a flag to keep): "
                   f"{source.removeprefix('not printed: ')}")


def _with_default(kw: dict, default: tuple[float, str] | None) -> dict:
    if default is None:
        return kw
    return dict(kw, default_fraction=default[0], note=f"{kw['note']}; {default[1]}")


def no_replan_words(ctx) -> str:
    """Why no fix of a KV-pool failure is called a fit, in plain words, and what would give one: the log prints none
    of the numbers a fix is re-planned from ('Load weight begin/end', the KV budget, an OOM's sizes) and, without
    the model config and the GPU, tpkit cannot plan the run either (sg_481: SGLang's bare 'Not enough memory. Please
    try to increase --mem-fraction-static.'; sg_482: the weights-floor error with its numbers elided)."""
    missing = [what for what, known in (("the model config (--model: its config.json)", ctx.model is not None),
                                        ("the GPU (--gpu)", ctx.gpu is not None)) if not known]
    need = (f"; give {' and '.join(missing)} to plan one" if missing else
            "; tpkit's plan of the run at these settings does not reproduce the failure")
    return ("no fix can be shown to fit: the log prints none of the numbers a fix is re-planned from (the "
            "'Load weight begin/end' free memory, the weights, the KV budget or the OOM's sizes)" + need
            + "; what would fit is more memory per GPU for the same weights: more GPUs (a larger --tp with the GPUs to "
            "hold it), a GPU with more memory, fewer other processes on the GPU, or a smaller or quantized checkpoint")
