"""The fewest GPUs a vLLM run needs when its weights exceed the card: explain's outcome "does not fit on N × GPU at
any setting: needs ≥ M GPUs" (helper cr17, 2026-12-05).

Where the run of the log, planned at its own settings on a free card (``explain.vreplan.layout_fix``, the plan
``tpkit plan --from-log`` makes), does not fit, and its weights per GPU exceed the card's whole memory even at the
lightest weights an engine flag gives (the log's quantization, or ``--quantization fp8`` on a 16-bit checkpoint),
no engine flag on the log's GPUs makes room: ``--gpu-memory-utilization`` is at most the card, and
``--max-model-len``, ``--kv-cache-dtype``, ``--enforce-eager`` and ``--max-num-seqs`` change what comes after the
weights (vLLM loads every weight of a rank before it sizes anything: ``v1/worker/gpu_worker.py`` ``load_model``
before ``determine_available_memory``, 0.9–0.33).  ``--cpu-offload-gb`` keeps weights in host memory (helper cr19,
below).

Two numbers are given, each from the planner, none set by hand:

- a lower bound: the weights of the whole model (the plan at tp 1, pp 1) over the card's total memory, rounded up.
  Sharding never shrinks the sum of the shards below the whole (replicated layers make it larger), and no GPU holds
  more than its total, so fewer GPUs of this size cannot hold the weights;
- the fewest GPUs at which the log's settings re-planned at tp × pp fit (``explain.replan.relayout``, tp a power of
  two, pp any stage count): the fix offered, one per weight kind (the checkpoint as run, and fp8 where it applies);
- on the log's own GPUs (helper cr19, 2026-12-05): the smallest whole ``--cpu-offload-gb`` at which the plan of the
  log's settings fits (``offload_fix``), with the utilization that passes the start-up check where the caller gives
  one.  vLLM has the flag in every release these rules cover from 0.17 (0.19.1 and 0.21.0 read: ``engine/arg_utils.py``
  ``--cpu-offload-gb``, ``model_executor/offloader/base.py`` ``create_offloader`` → ``offloader/uva.py``
  ``UVAOffloader``: GiB per GPU, the rank's decoder layers' parameters moved whole, in order, to host memory, pinned
  where the platform allows, read by the GPU through UVA in each forward); the planner charges it
  (``engines.offload``, helper cpo).  The fit is the GPU's: the host must hold the offloaded bytes, which the log does
  not show, and the fix says how many.
"""

from __future__ import annotations

import functools
import math
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

from tpkit.explain.diagnose import Fix, fp8_could_halve_weights
from tpkit.explain.refusals import REFUSED

__all__ = ["GpuCount", "fewest_gpus", "offload_fix"]

MAX_GPUS = 64
"""the largest tp × pp the search plans (eight nodes of eight)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class GpuCount:
    """The outcome: the log's GPU count, the lower bound from the weights, and the fixes that fit on more GPUs."""
    gpus: int
    """tp × pp of the log"""
    at_least: int
    """the fewest GPUs of this size that can hold the weights (the lightest weights an engine flag gives)"""
    text: str
    """the diagnosis sentence (the GPU sizes in GiB, named as such)"""
    fixes: tuple[Fix, ...]
    """the layouts on more GPUs that fit, each re-planned (tokens per rank)"""


def _weights_bytes(result) -> int | None:
    """The plan's 'model weights' line (bytes per GPU)."""
    for item in result.ledger.items:
        if item.item == "model weights":
            return int(item.bytes.bytes)
    return None


def _layouts(n: int):
    """(tp, pp) with tp × pp = n, tp a power of two, the fewest stages first."""
    tp = 1
    out = []
    while tp <= n:
        if n % tp == 0:
            out.append((tp, n // tp))
        tp *= 2
    return sorted(out, key=lambda x: x[1])


def offload_fix(a, ctx, *, weights_bytes: int, total_bytes: int = 0,
                utilization: float | None = None) -> tuple[int, Fix] | None:
    """(GiB, fix): the smallest whole ``--cpu-offload-gb`` (1 … the rank's weights in GiB, rounded up) at which the
    log's settings re-planned at its own layout and quantization fit with KV tokens (``explain.replan.relayout``,
    the re-plan ``tpkit plan --from-log LOG <the flags>`` makes), with ``--gpu-memory-utilization utilization``
    beside it where given; None where even the largest does not fit (the embedding and lm_head stay on the GPU) or
    the planner refuses the flag.  More offload only lowers the GPU's weights, so the search halves the interval; it
    starts above the offload that leaves more weights than the card's ``total_bytes`` where that one is planned not to
    fit.

    Where the plan at an offload stops only at vLLM's mamba-blocks check (a hybrid model with FULL decode graphs and
    fewer KV blocks than ``--max-num-seqs``: ``engines.vllm.verdict._mamba_blocks``, vLLM ≥ 0.20
    ``CompilationConfig.resolve_cudagraph_mode_and_sizes``), ``--max-num-seqs`` at that plan's block count is added
    and the run re-planned with it: a fit only where that re-plan fits (a hybrid MoE checkpoint larger than its
    card: 190 blocks at 66 GiB offloaded against the default 256 sequences; tests/explain/test_explain_cr19.py)."""
    from tpkit.explain.replan import log_quantization_planned

    base = {"gpu_memory_utilization": utilization} if utilization is not None else {}
    at = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1), log_quantization_planned(ctx)
    tried = functools.partial(_offload_tried, a, ctx, base, at)
    found = _offload_search(tried, weights_bytes, total_bytes)
    if found is None:
        return None
    hi, (changes, done) = found
    return hi, _offload_as_fix(hi, base, changes, done)


def _offload_run(a, ctx, base: dict, at: tuple, changes: dict):
    """The re-plan of the log at its own layout and quantization ``at`` (tp, pp, quantization) with ``base`` and
    ``changes``; None where the planner refuses it."""
    from tpkit.explain.replan import log_planner, relayout

    plan = log_planner(ctx, band=False, **base, **changes)
    if plan is None:
        return None
    tp, pp, q = at
    try:
        return relayout(ctx, a, tp=tp, pp=pp, quantization=q, plan=plan)
    except REFUSED:
        return None


def _offload_tried(a, ctx, base: dict, at: tuple, gib: int):
    """(changes, relayout) of the fit at ``gib`` GiB offloaded (with ``--max-num-seqs`` at the plan's KV blocks where
    only the mamba-blocks check stops it), or None."""
    changes = {"cpu_offload_gb": float(gib)}
    done = _offload_run(a, ctx, base, at, changes)
    if done is None:
        return None
    r = done.result
    if r.verdict.fits and r.kv_tokens:
        return changes, done
    blocks = int((r.extra or {}).get("kv_blocks") or 0)
    if r.verdict.knob == "--max-num-seqs" and blocks >= 1:
        changes = {**changes, "max_num_seqs": blocks}
        done = _offload_run(a, ctx, base, at, changes)
        if done is not None and done.result.verdict.fits and done.result.kv_tokens:
            return changes, done
    return None


def _offload_search(tried, weights_bytes: int, total_bytes: int):
    """(smallest fitting GiB, its ``tried`` result) by halving between no offload and the rank's weights; None where
    even the whole weights offloaded do not fit."""
    hi = max(1, math.ceil(weights_bytes / 2**30))
    best = tried(hi)
    if best is None:
        return None
    # lo does not fit (no offload: the caller's plan failed), hi does; an offload that leaves more weights than the
    # card is a likely lower end, taken only once planned not to fit (the last parameter moved may overshoot the cap)
    lo = 0
    under = int((weights_bytes - total_bytes) // 2**30) if total_bytes else 0
    if 0 < under < hi and tried(under) is None:
        lo = under
    while hi - lo > 1:
        mid = (lo + hi) // 2
        got = tried(mid)
        if got is None:
            lo = mid
        else:
            hi, best = mid, got
    return hi, best


def _offload_as_fix(hi: int, base: dict, changes: dict, done) -> Fix:
    """The fix of ``hi`` GiB offloaded: its flags, why and the host-memory note."""
    flags = " ".join(f"--{k.replace('_', '-')} {v:.2f}" if k == "gpu_memory_utilization" else
                     f"--{k.replace('_', '-')} {int(v)}" for k, v in {**base, **changes}.items())
    seqs = (f"; --max-num-seqs {changes['max_num_seqs']}: vLLM's FULL decode graphs need a KV block per sequence "
            "(the mamba-blocks check)") if "max_num_seqs" in changes else ""
    why = (f"{hi} GiB of each GPU's weights kept in host memory (vLLM reads them from host memory in "
           f"every forward: slower decoding); {hi - 1} GiB does not fit when planned the same way{seqs}")
    note = (f"fits the GPU when re-planned; needs {hi} GiB of free host memory (pinned where the platform allows), "
            f"which the log does not show; {done.note}")
    return Fix(flags=flags, kv_tokens=int(done.result.kv_tokens), fits=True, why=why, note=note)


def fewest_gpus(a, ctx, utilization: float | None = None) -> GpuCount | None:
    """The outcome for the log's run (anchors ``a``, context ``ctx``), or None where the model or the GPU is not
    known, the plan of the log's own layout fits, or the lightest weights fit one card (some setting may then).
    ``utilization``: the ``--gpu-memory-utilization`` that passes the log's start-up check, given to the offload fix
    (the other process stays on the card)."""
    from tpkit.explain.replan import log_planner, log_quantization_planned

    if ctx.model is None or ctx.gpu is None or ctx.engine != "vllm":
        return None
    plan = log_planner(ctx, band=False)
    if plan is None:
        return None
    tp0, pp0 = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    n0 = tp0 * pp0
    total = int(ctx.gpu.total_bytes.bytes)
    q0 = log_quantization_planned(ctx)
    kinds = [(q0, "")] + ([("fp8", " --quantization fp8")] if fp8_could_halve_weights(ctx) and q0 is None else [])
    planned = functools.partial(_planned, a, ctx, plan)
    own = planned(tp0, pp0, q0)
    if own is None or own.verdict.fits:
        return None
    bounds, fixes = [], []
    for q, flag in kinds:
        bound = _weights_bound(planned, tp0, pp0, q, total)
        if bound is None:
            return None
        bounds.append(bound)
        fix = _fewest_layout_fix(planned, bound[0], q, flag, n0, total)
        if fix is not None:
            fixes.append(fix)
    found = offload_fix(a, ctx, weights_bytes=_weights_bytes(own) or 0, total_bytes=total, utilization=utilization)
    text = _fewest_text(n0, total, bounds, fixes, found)
    if found is not None:
        fixes.append(found[1])
    return GpuCount(gpus=n0, at_least=min(b[0] for b in bounds), text=text, fixes=tuple(fixes))


def _planned(a, ctx, plan, tp: int, pp: int, q):
    """The log re-planned at ``tp`` × ``pp`` with quantization ``q`` (its result), or None where refused."""
    from tpkit.explain.replan import relayout

    try:
        return relayout(ctx, a, tp=tp, pp=pp, quantization=q, plan=plan).result
    except REFUSED:
        return None


def _weights_bound(planned, tp0: int, pp0: int, q, total: int) -> tuple[int, object, int] | None:
    """(fewest GPUs the whole weights need, ``q``, the whole weights' bytes) for one weight kind; None where a plan
    is refused or the rank's weights at the log's layout fit one card (a setting on the log's GPUs may fit)."""
    at_log = planned(tp0, pp0, q)
    whole = planned(1, 1, q)
    w_log = _weights_bytes(at_log) if at_log is not None else None
    w_all = _weights_bytes(whole) if whole is not None else None
    if w_log is None or w_all is None or w_log <= total:
        return None
    return max(tp0 * pp0 + 1, math.ceil(w_all / total)), q, w_all


def _fewest_layout_fix(planned, m: int, q, flag: str, n0: int, total: int) -> Fix | None:
    """The fix at the fewest GPUs from ``m`` up to ``MAX_GPUS`` at which some layout (``_layouts``) fits with KV
    tokens; None where none does."""
    for n in range(m, MAX_GPUS + 1):
        hit = next(((tp, pp, r) for tp, pp in _layouts(n)
                    if (r := planned(tp, pp, q)) is not None and r.verdict.fits and r.kv_tokens), None)
        if hit is None:
            continue
        tp, pp, r = hit
        layout = f"--tensor-parallel-size {tp}" + (f" --pipeline-parallel-size {pp}" if pp > 1 else "")
        return Fix(flags=layout + flag, kv_tokens=int(r.kv_tokens), fits=True,
                   why=f"{n} GPUs of {gib_text(Bytes(total))} (the log ran on {n0}): the log's settings re-planned at "
                       f"tp {tp} × pp {pp}" + (", fp8 weights" if flag else ""),
                   note=f"the fewest GPUs of this size at which tpkit's plan fits (tp a power of two, any "
                        f"stage count, up to {MAX_GPUS}; planned from the catalog): {r.verdict.message[:120]}")
    return None


def _fewest_text(n0: int, total: int, bounds: list, fixes: list[Fix], found) -> str:
    """The outcome's sentence: the weights' bound, the layouts that fit (``fixes``) and the offload fix ``found``
    (or that none fits)."""
    m, q, w_all = bounds[0]
    fp8 = f" ({gib_text(Bytes(bounds[1][2]))} with --quantization fp8)" if len(bounds) > 1 else ""
    text = (f"does not fit on {n0} × {gib_text(Bytes(total))} GPU at any setting that keeps the weights on the GPU: "
            f"the weights alone need {gib_text(Bytes(w_all))}" + fp8
            + f", so it needs ≥ {m} GPUs of this size" + (f" (≥ {bounds[1][0]} with fp8 weights)" if len(bounds) > 1
                                                          else ""))
    if fixes:
        text += "; the fewest at which tpkit's plan fits: " + ", ".join(
            f"{f.why.split(' GPUs')[0]} ({f.flags})" for f in fixes)
    if found is not None:
        gib, offload = found
        text += (f"; on the log's GPU{'s' if n0 > 1 else ''}, {offload.flags} fits ({offload.kv_tokens:,} KV "
                 f"tokens) if the host has {gib} GiB free for the weights: the log does not show the host")
    else:
        text += "; no --cpu-offload-gb up to the rank's weights fits when planned"
    return text
