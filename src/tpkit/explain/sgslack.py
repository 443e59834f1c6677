"""More slack after an SGLang OOM past the KV pool (a CUDA-graph capture, the first requests), planned from the
catalog where the log prints no pre-load memory to re-plan the fraction from (helper cr34a, 2026-12-07).

SGLang sizes the static memory (weights + KV pool) as ``mem_fraction_static`` × the pre-load free memory: the pool
is ``rest = free after the weights − pre × (1 − f)`` (``ModelRunner.profile_max_num_token``, sglang 0.4.x–0.5.9
``model_executor/model_runner.py``; ``KVCacheConfigurator._profile_available_bytes``, 0.5.16+
``mem_cache/kv_cache_configurator.py``), so a smaller flag f2 leaves (f − f2) × pre more free memory after the pool
for everything allocated later (graphs, activations).  The torch OOM message prints the allocation that failed and
the free memory (``c10/cuda/CUDACachingAllocator.cpp``): the shortfall.  Where the log prints no pre-load memory
(``explain.sgdiagnose`` re-plans from it where it does), the catalog plan of the log's settings
(``explain.planned.catalog_plan``: ``plan_sglang`` with its band) gives pre and the pool:

- the plan of the log's own settings must start (the log got past the pool), else the planner does not describe
  this run and nothing is called a fit;
- f2 is the largest 0.01 flag whose (f − f2) × pre covers the shortfall plus half of ``diagnose.MARGIN`` (as the
  anchored fix in ``sgdiagnose``), with pre at the band's pessimistic end (the least pre of the band's ends) and, on
  a card whose OOM lists other processes, less their memory;
- it is a fit only where the plan at f2, on that card at the band's pessimistic end, holds a token (and says so
  where it holds less than one context-length request); its tokens are the nominal plan on the log's card, what
  ``tpkit plan --from-log LOG --mem-fraction-static f2`` gives (the round trip).
"""

from __future__ import annotations

import math
from dataclasses import replace

from tpkit.explain.diagnose import MARGIN, Fix, bytes_text
from tpkit.explain.refusals import REFUSED

__all__ = ["catalog_slack_fix"]


def catalog_slack_fix(ctx, failure, short, what: str) -> Fix | None:
    """The ``--mem-fraction-static`` fix planned from the catalog that frees ``short`` (a ``Bytes``: the OOM's
    asked − free) for ``what`` (the allocations after the pool: 'the CUDA graphs', 'activations'); None where the
    model or the GPU is unknown, the planner refuses the settings, its plan of the log's settings does not start,
    or no fraction on the 0.01 grid is left."""
    if ctx.model is None or ctx.gpu is None or short is None or short.bytes <= 0:
        return None
    from tpkit.explain.planned import band_text, catalog_plan, log_settings_sglang

    try:
        version, _capped, parallel, options = log_settings_sglang(ctx)
        base = catalog_plan(ctx.model, ctx.gpu, parallel, options)
        held = failure.size("other_processes")
        card = ctx.gpu if held is None else replace(ctx.gpu, total_bytes=ctx.gpu.total_bytes - held.value)
        low_base = _pessimistic(ctx.model, card, parallel, options)
    except (*REFUSED, TypeError, ValueError):  # settings the planner refuses: no planned fix, never a crash
        return None
    if not base.verdict.fits or low_base is None:
        return None
    sg = (base.extra or {}).get("sglang") or {}
    f, flag = sg.get("mem_fraction_static"), options.mem_fraction_static
    pre_low_bytes = low_base[1]
    if not f or not pre_low_bytes:
        return None
    factor = float(f) / float(flag) if flag else 1.0  # a runner factor SGLang applies to the flag (× 0.9 multimodal)
    need_bytes = short.bytes + MARGIN.bytes // 2
    f2 = math.floor((float(f) - need_bytes / pre_low_bytes) / factor * 100 + 1e-9) / 100
    if f2 <= 0:
        return None
    try:
        nominal = catalog_plan(ctx.model, ctx.gpu, parallel, replace(options, mem_fraction_static=f2))
        low = _pessimistic(ctx.model, card, parallel, replace(options, mem_fraction_static=f2))
    except (*REFUSED, TypeError, ValueError):
        return None
    tokens = low[0] if low is not None else 0
    context = ctx.get("context_length")
    gained_bytes = (float(f) - f2 * factor) * pre_low_bytes
    where = (f"planned from the catalog (tpkit plan: {ctx.model_source}, {ctx.gpu.name}, SGLang {version} rules), "
             "not from the log's numbers" + (f"; on the card less the {held.text} the OOM lists as other processes'"
                                             if held is not None else ""))
    note = (f"{where}; pre-load memory {bytes_text(pre_low_bytes)} at the band's pessimistic end: ({float(f):.3f} − "
            f"{f2 * factor:.3f}) × it = {bytes_text(int(gained_bytes))} more free after the pool, against the OOM's "
            f"{bytes_text(short)} short + {bytes_text(MARGIN.bytes // 2)}; the pool then holds {tokens:,} tokens at "
            f"the band's pessimistic end ({band_text(nominal)} on the log's card)")
    if context and 0 < tokens < int(context):
        note += f"; less than one {int(context):,}-token request"
    fits = bool(nominal.verdict.fits) and tokens > 0 and gained_bytes >= need_bytes
    return Fix(flags=f"--mem-fraction-static {f2:.2f}", kv_tokens=nominal.kv_tokens if nominal.verdict.fits else 0,
               fits=fits, why=f"more free memory after the KV pool for {what}: SGLang's static memory is "
                              "mem_fraction_static × the pre-load free memory", note=note)


def _pessimistic(model, gpu, parallel, options) -> tuple[int, int] | None:
    """(KV tokens, pre-load bytes) of ``plan_sglang`` at the band's end with the fewest tokens (every estimated use at
    its high end: ``memory.band.at_band_end(1)``), the least pre-load memory of the two ends; None where that plan
    does not start."""
    from tpkit.engines.sglang.policy import plan_sglang
    from tpkit.memory.band import at_band_end

    ends = []
    for end in (-1, 1):
        with at_band_end(end):
            ends.append(plan_sglang(model, gpu, parallel, options))
    least = min(ends, key=lambda r: r.kv_tokens)
    pres = [int(((r.extra or {}).get("sglang") or {}).get("pre_model_load_bytes") or 0) for r in ends]
    if not least.verdict.fits or not min(pres):
        return None
    return int(least.kv_tokens), min(pres)
