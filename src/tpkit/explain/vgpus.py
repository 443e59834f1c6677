"""The fewest GPUs a vLLM run needs when its weights exceed the card: explain's outcome "does not fit on N × GPU at
any setting: needs ≥ M GPUs" (helper cr17, 2026-12-05).

Where the run of the log, planned at its own settings on a free card (``explain.vreplan.layout_fix``, the plan
``tpkit plan --from-log`` makes), does not fit, and its weights per GPU exceed the card's whole memory even at the
lightest weights an engine flag gives (the log's quantization, or ``--quantization fp8`` on a 16-bit checkpoint),
no engine flag on the log's GPUs makes room: ``--gpu-memory-utilization`` is at most the card, and
``--max-model-len``, ``--kv-cache-dtype``, ``--enforce-eager`` and ``--max-num-seqs`` change what comes after the
weights (vLLM loads every weight of a rank before it sizes anything: ``v1/worker/gpu_worker.py`` ``load_model``
before ``determine_available_memory``, 0.9–0.33).  ``--cpu-offload-gb`` keeps weights in host memory, which the log
does not show, so it is named, not planned.

Two numbers are given, each from the planner, none set by hand:

- a lower bound: the weights of the whole model (the plan at tp 1, pp 1) over the card's total memory, rounded up.
  Sharding never shrinks the sum of the shards below the whole (replicated layers make it larger), and no GPU holds
  more than its total, so fewer GPUs of this size cannot hold the weights;
- the fewest GPUs at which the log's settings re-planned at tp × pp fit (``explain.replan.relayout``, tp a power of
  two, pp any stage count): the fix offered, one per weight kind (the checkpoint as run, and fp8 where it applies).
"""

from __future__ import annotations

import math
from tpkit.records import dataclass

from tpkit.explain.diagnose import Fix, fp8_could_halve_weights
from tpkit.explain.refusals import REFUSED

__all__ = ["GpuCount", "fewest_gpus"]

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


def _gib(b: int) -> str:
    return f"{b / 2**30:.2f} GiB"


def fewest_gpus(a, ctx) -> GpuCount | None:
    """The outcome for the log's run (anchors ``a``, context ``ctx``), or None where the model or the GPU is not
    known, the plan of the log's own layout fits, or the lightest weights fit one card (some setting may then)."""
    from tpkit.explain.replan import log_planner, log_quantization_planned, relayout

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

    def planned(tp, pp, q):
        try:
            return relayout(ctx, a, tp=tp, pp=pp, quantization=q, plan=plan).result
        except REFUSED:
            return None

    own = planned(tp0, pp0, q0)
    if own is None or own.verdict.fits:
        return None
    bounds, fixes = [], []
    for q, flag in kinds:
        at_log = planned(tp0, pp0, q)
        whole = planned(1, 1, q)
        w_log = _weights_bytes(at_log) if at_log is not None else None
        w_all = _weights_bytes(whole) if whole is not None else None
        if w_log is None or w_all is None:
            return None
        if w_log <= total:
            return None  # these weights fit one card: a setting on the log's GPUs may fit
        m = max(n0 + 1, math.ceil(w_all / total))
        bounds.append((m, q, w_all))
        for n in range(m, MAX_GPUS + 1):
            hit = next(((tp, pp, r) for tp, pp in _layouts(n)
                        if (r := planned(tp, pp, q)) is not None and r.verdict.fits and r.kv_tokens), None)
            if hit is None:
                continue
            tp, pp, r = hit
            layout = f"--tensor-parallel-size {tp}" + (f" --pipeline-parallel-size {pp}" if pp > 1 else "")
            fixes.append(Fix(flags=layout + flag, kv_tokens=int(r.kv_tokens), fits=True,
                             why=f"{n} GPUs of {_gib(total)} (the log ran on {n0}): the log's settings re-planned at "
                                 f"tp {tp} × pp {pp}" + (", fp8 weights" if flag else ""),
                             note=f"the fewest GPUs of this size at which tpkit's plan fits (tp a power of two, any "
                                  f"stage count, up to {MAX_GPUS}; planned from the catalog): {r.verdict.message[:120]}"))
            break
    m, q, w_all = bounds[0]
    text = (f"does not fit on {n0} × {_gib(total)} GPU at any setting that keeps the weights on the GPU: the weights "
            f"alone need {_gib(w_all)}" + (f" ({_gib(bounds[1][2])} with --quantization fp8)" if len(bounds) > 1 else "")
            + f", so it needs ≥ {m} GPUs of this size" + (f" (≥ {bounds[1][0]} with fp8 weights)" if len(bounds) > 1
                                                          else ""))
    if fixes:
        text += "; the fewest at which tpkit's plan fits: " + ", ".join(
            f"{f.why.split(' GPUs')[0]} ({f.flags})" for f in fixes)
    text += "; --cpu-offload-gb (weights in host memory) is not planned: the log does not show the host"
    return GpuCount(gpus=n0, at_least=min(b[0] for b in bounds), text=text, fixes=tuple(fixes))
