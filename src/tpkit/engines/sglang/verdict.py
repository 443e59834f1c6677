"""Does the SGLang plan fit, and if not, which knob fixes it and by how much."""

from __future__ import annotations

import math
from collections.abc import Callable

from tpkit.engines.sglang.sizing import SglangSizing
from tpkit.errors import PlanInputError
from tpkit.memory.result import Verdict
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, format_bytes

__all__ = ["make_verdict", "min_fraction"]


def min_fraction(s: SglangSizing) -> float:
    """Smallest ``mem_fraction_static`` (3 decimals) that leaves one page of KV after the weights (and the stream
    pool and DeepGEMM's workspace taken after the pre sample, ``engines.sglang.streams``, and the RoPE pre-expansion,
    ``engines.sglang.rope``)."""
    need = (s.weights.bytes + s.stream_pool.bytes + s.deepgemm_workspace.bytes + s.first_kernels.bytes
            + s.rope_reserve.bytes + s.lora.bytes
            + math.ceil(s.cell.bytes_per_token * s.page_size))
    return math.ceil(need / s.pre.bytes * 1000) / 1000 if s.pre.bytes > 0 else math.inf


Retry = Callable[..., "int | None"]
"""retry(tp=…, quantization=…, mem_fraction_static=…, full=True) → KV tokens of the same plan with a knob changed
(0 when it still does not fit, None: unknown); ``full=False`` checks the KV budget only"""


def _fits(retry: Retry, **change) -> bool:
    try:
        tokens = retry(**change)
    except PlanInputError:
        return False
    return tokens is not None and tokens > 0


def _fixes(s: SglangSizing, model: ModelSpec, tp: int, retry: Retry, gpu=None) -> list[tuple[str, str]]:
    """(flags, words) of every fix that re-plans to fit; the layout fix (more GPUs, or on a MIG slice a larger
    slice or the whole card) from ``engines.layoutfix.layout_fixes``, the one generator of them."""
    from tpkit.engines.layoutfix import layout_fixes

    def fits(*, tp: int = tp, gpu=None) -> bool:
        return _fits(retry, tp=tp) if gpu is None else _fits(retry, tp=tp, gpu=gpu)

    fixes = layout_fixes(gpu, tp, fits, lambda *, tp: _note(retry, tp=tp))
    unquantised = model.quant is None or model.quant.weight_bits >= 16
    if unquantised and _fits(retry, tp=tp, quantization="fp8"):
        fixes.append(("--quantization fp8", "fp8 weights (--quantization fp8)" + _note(retry, tp=tp,
                                                                                      quantization="fp8")))
    f_min = replanned_fraction(min_fraction(s), tp, retry)
    if f_min is not None:
        fixes.append((f"--mem-fraction-static {f_min:.3f}", f"--mem-fraction-static ≥ {f_min:.3f}"))
    return fixes


def _note(retry: Retry, **change) -> str:
    """What a fix's re-plan changed beyond its knob (``retry.note``: derived weights in place of the log's measured
    ones at another layout or quantisation, ``memory.band.replan_weights``); "" when nothing."""
    note = getattr(retry, "note", None)
    return note(**change) if note is not None else ""


def replanned_fraction(lowest: float, tp: int, retry: Retry) -> float | None:
    """The smallest fraction (3 decimals) in [``lowest``, 1] whose re-plan gets a KV page, else None.

    ``min_fraction`` is a lower bound that leaves out the linear-attention state pool (it grows with the
    budget and needs 3 or 5 slots per request), so when it does not fit the answer is searched by bisection
    over thousandths.
    """
    if not math.isfinite(lowest):
        return None
    lo, hi = max(math.ceil(lowest * 1000), 1), 1000
    if lo > hi:
        return None
    if not _fits(retry, tp=tp, mem_fraction_static=lo / 1000, full=False):  # a state pool: bisect
        if not _fits(retry, tp=tp, mem_fraction_static=hi / 1000, full=False):
            return None
        while lo < hi:  # the KV budget grows with the fraction
            mid = (lo + hi) // 2
            if _fits(retry, tp=tp, mem_fraction_static=mid / 1000, full=False):
                hi = mid
            else:
                lo = mid + 1
    # the slack after the pool shrinks with the fraction: if the smallest fraction with a page fails the whole
    # plan, every larger one does too
    return lo / 1000 if _fits(retry, tp=tp, mem_fraction_static=lo / 1000) else None


def make_verdict(s: SglangSizing, model: ModelSpec, tp: int, retry: Retry,
                 imbalance: tuple[str, ...] = (), gpu=None) -> Verdict:
    """Fits, or the reason it does not with the knob to turn (``gpu``: the GPU planned, for the layout fixes of
    ``engines.layoutfix``; ``retry(gpu=GpuSpec)`` re-plans on another GPU)."""
    if imbalance:
        return Verdict(fits=False, message=imbalance[0], knob="SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK")
    if s.pre <= Bytes(0):
        return Verdict(fits=False, knob=None, message=(
            f"nothing runs on this GPU: its {format_bytes(s.baseline.capacity.bytes)} is less than what the process "
            f"takes before SGLang loads the weights (CUDA context and start-up costs: "
            f"{format_bytes(s.baseline.capacity.bytes - s.pre)}); use a GPU with more memory"))
    f = s.fraction.value
    static = s.pre * f
    if s.pool.num_tokens > 0:
        return _pool_verdict(s, static)
    return _no_pool_verdict(s, model, tp, retry, gpu, f, static)


def _pool_verdict(s: SglangSizing, static: Bytes) -> Verdict:
    """A pool of at least one token was sized: fits, or the start-up step after the pool that fails (no running
    request, the req_to_token pool, the draft worker, what SGLang allocates after the pool)."""
    if s.mamba is not None and s.max_running_requests < 1:
        return Verdict(fits=False, knob="--mem-fraction-static", message=(
            f"the linear-attention state pool holds {s.mamba.slots} slot(s) of {format_bytes(s.mamba.per_slot)}, "
            f"fewer than the {s.mamba.ratio} one running request needs: raise --mem-fraction-static or --tp"))
    if s.max_running_requests < 1:
        return Verdict(fits=False, knob="--max-total-tokens", message=(
            f"SGLang stops at start-up with 'max_running_request is zero' (an assert in TpModelWorker.__init__, "
            f"managers/tp_worker.py, sglang 0.4.10): its rule {s.running_rule} gives 0 running requests for a pool "
            f"of {s.pool.num_tokens:,} token(s); raise --max-total-tokens above {s.pool.num_tokens:,} or "
            f"--max-running-requests"))
    if s.pool_end_free < Bytes(0):
        return Verdict(fits=False, knob="--context-length", message=(
            f"the req_to_token pool ({s.req_to_token_rows:,} requests × ({s.context_len:,} + 4) tokens × 4 B = "
            f"{format_bytes(s.req_to_token)}) does not fit in the {format_bytes(s.slack)} slack left after the "
            f"KV pool: lower --context-length or --max-running-requests"))
    if s.spec is not None and not s.spec.loaded_before_pool and s.pool_end_free < s.after_pool:
        return Verdict(fits=False, knob="--mem-fraction-static", message=(
            f"the draft's weights and KV pool and cuBLAS ({format_bytes(s.after_pool)}) come out of the slack after "
            f"the target's pool (SGLang {s.version} builds the draft worker then), but only "
            f"{format_bytes(s.pool_end_free)} is left: lower --mem-fraction-static or --max-total-tokens"))
    if s.pool_end_free + s.draft_freed_after_pool < s.after_pool:
        # 0.5.14+: set_embed frees the draft's own shared tensors right after the target's pool is sized
        after = ", ".join(u.item for u in s.baseline.after_pool) or "what SGLang allocates after the pool"
        return Verdict(fits=False, knob="--mem-fraction-static", message=(
            f"{after} ({format_bytes(s.after_pool)}) come(s) out of the slack after the KV pool, but only "
            f"{format_bytes(s.pool_end_free + s.draft_freed_after_pool)} is left: CUDA out of memory at the first "
            f"forward pass; lower "
            f"--mem-fraction-static or --max-total-tokens"))
    return Verdict(fits=True, message=(
        f"fits: {s.pool.num_tokens:,} KV tokens per rank ({format_bytes(s.kv_bytes)}), "
        f"{s.pool.num_tokens / s.context_len:.2f}× a {s.context_len:,}-token context; "
        f"weights {format_bytes(s.weights)} of the {format_bytes(static)} static budget"))


def _no_pool_verdict(s: SglangSizing, model: ModelSpec, tp: int, retry: Retry, gpu, f: float,
                     static: Bytes) -> Verdict:
    """No KV token was sized: the padding page that does not fit, a --max-total-tokens below one page, or the budget
    itself, with the fixes that re-plan to a fit."""
    if s.kv_pool_refused:  # the padding page is what does not fit: the tokens came out of the budget
        page = Bytes(round(s.cell.bytes_per_token * s.page_size))
        return Verdict(fits=False, knob="--page-size", message=(
            f"SGLang sizes {s.tokens:,} KV tokens from the budget, then allocates them plus one padding page of "
            f"{s.page_size:,} token(s) ({format_bytes(page)}): a KV pool of {format_bytes(s.kv_pool_refused)}, more "
            f"than the {format_bytes(Bytes(max(s.kv_pool_refused_free.bytes, 0)))} left after the weights: CUDA out "
            f"of memory allocating the KV pool; lower --page-size, or plan a GPU with more memory"))
    capped = (s.rest - s.mamba_bytes).bytes >= s.cell.bytes_per_token * s.page_size  # a page fit: the cap cut it
    if capped:
        return Verdict(fits=False, knob="--max-total-tokens", message=(
            f"--max-total-tokens leaves no whole page of {s.page_size} token(s); raise it to ≥ {s.page_size}"))
    from tpkit.engines.layoutfix import NO_TP_ON_MIG, TP_CANDIDATES, on_mig

    fixes = _fixes(s, model, tp, retry, gpu)
    texts = [text for _, text in fixes]
    layout = (f"a larger MIG slice or the whole card ({NO_TP_ON_MIG})" if on_mig(gpu)
              else f"--tp up to {TP_CANDIDATES[-1]}")
    how = ("use " + ", ".join(texts[:-1]) + (" or " if len(texts) > 1 else "") + texts[-1]) if texts else (
        f"nothing tried fits ({layout}, fp8 weights, --mem-fraction-static up to 1): the "
        f"weights alone need {format_bytes(s.weights)} per GPU of the {format_bytes(s.pre)} free before them")
    knob = ("--tp" if fixes and fixes[0][0].startswith("--tp") else
            "--gpu" if fixes and fixes[0][0].startswith("--gpu") else "--mem-fraction-static")
    if f <= 0:
        what = (f"SGLang's default --mem-fraction-static for this GPU comes out at {f:.3f} (its reserve of "
                f"{s.fraction.reserved_mib or 0:,.0f} MiB for activations and CUDA graphs is more than the GPU's "
                f"{s.gpu_mem_mib:,.0f} MiB; server_args.py rounds (gpu_mem − reserved) / gpu_mem and keeps it), so no "
                f"static budget is left for the weights ({format_bytes(s.weights)})")
    elif s.rest <= Bytes(0):
        what = (f"weights {format_bytes(s.weights)} exceed the {format_bytes(static)} static budget "
                f"({f:.3f} × {format_bytes(s.pre)} free before weights)")
    else:
        what = (f"after weights {format_bytes(s.weights)} the KV budget {format_bytes(s.rest)} holds less than one "
                f"page ({s.page_size} token(s) × {s.cell.bytes_per_token:,.0f} B)")
    return Verdict(fits=False, message=f"{what}: {how}", knob=knob, fixes=tuple(flags for flags, _ in fixes))
