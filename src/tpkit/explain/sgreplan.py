"""The load usage an SGLang fix at another layout (``--tp``, ``--quantization fp8``) re-plans with (``relayout``);
split from ``explain.sgdiagnose`` and imported only where such a fix is offered (``tpkit explain``'s cold start)."""

from __future__ import annotations

from dataclasses import replace

from tpkit.explain.diagnose import _g
from tpkit.explain.refusals import REFUSED

__all__ = ["relayout"]


def relayout(ctx, a, *, tp: int, quantization: str | None = None) -> dict:
    """The weights a fix at another layout (``--tp``, ``--quantization fp8``) re-plans with, as keywords of
    ``_Replan.fix``: the log's 'Load weight end. mem usage' holds per rank at its own tp, pp and quantization only,
    so where the model config and the GPU are known the load usage at the new layout is the one ``tpkit plan``
    charges (``engines.sglang.policy.load_usage``: the derived weights, the rotary cache, the load allocations
    beyond them), under the release ``tpkit plan --from-log`` reads the log by (``sgrelease.log_release``): the fix
    and ``tpkit plan --from-log LOG <its flags>`` re-plan the same weights.  Else the measured weights scaled by
    1/2 (replicated layers not split; 16-bit weights assumed for fp8)."""
    scaled = dict(weights_scale=0.5, note="weights scaled by 1/2 " + ("(assumes 16-bit weights)" if quantization
                                                                     else "(replicated layers not split)"))
    if ctx.model is None or ctx.gpu is None or a.weights is None:
        return scaled
    try:
        from tpkit.engines.sglang.options import SglangOptions
        from tpkit.engines.sglang.policy import load_usage
        from tpkit.explain.sgrelease import log_release, offload_gb
        from tpkit.parallel import ParallelSpec

        context = ctx.get("context_length")
        options = SglangOptions(engine_version=log_release(ctx)[0],
                                quantization=quantization or ctx.get("quantization"),
                                context_length=None if context is None else int(context),
                                cpu_offload_gb=offload_gb(ctx))
        pp = int(ctx.get("pp", 1) or 1)
        nominal, _, _ = load_usage(ctx.model, ParallelSpec(tp=tp, pp=pp), options, None, ctx.gpu)
        own, unc, _ = load_usage(ctx.model, ParallelSpec(tp=int(ctx.get("tp", 1) or 1), pp=pp),
                                 replace(options, quantization=ctx.get("quantization")), None, ctx.gpu)
    except REFUSED:  # a layout or quantization the rules refuse: the measured weights, scaled
        return scaled
    measured = a.weights.mid.bytes
    if abs(own.bytes - measured) > max(unc.bytes, 0.03 * measured) + (a.weights.high - a.weights.low).bytes:
        # tpkit's rules do not reproduce this run's own load (an architecture they plan as a standard decoder,
        # a checkpoint the config does not describe: sg_045, GLM-4.7-Flash, 55.84 GiB planned against 30.06 GiB
        # measured): their weights at another layout are not taken either
        scaled["note"] += (f"; tpkit's load usage at the log's own layout, {_g(own)}, does not reproduce the "
                           f"measured {a.weights.text()}, so `tpkit plan --from-log`'s derived weights differ")
        return scaled
    changed = f"tp {tp}" if quantization is None else f"quantization {quantization}"
    from tpkit.explain.sgrelease import _stream_pool

    pool = _stream_pool(ctx, tp, int(ctx.get("pp", 1) or 1))[0]  # at world > 1 inside init_torch_distributed
    return dict(weights=nominal.bytes, stream=pool.mid.bytes if pool is not None else 0,
                note=f"re-planned with derived weights at {changed}: {_g(nominal)} per rank (tpkit plan's load "
                     f"usage; the log's measured {a.weights.text()} hold at its own layout only)")
