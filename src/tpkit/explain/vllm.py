"""vLLM: the ledger of the tightest worker anchored on the numbers vLLM printed (``tpkit/logs/LEDGER.md``).

vLLM divides by ``2**30`` and says GiB (V0 says "GB" for the same GiB).  The KV budget is
``requested − non-KV memory`` (weights + non-torch + activation peak; − the CUDA-graph estimate from 0.21),
``requested = total × gpu_memory_utilization`` (``ceil`` from 0.33); the engine sizes every worker with the
smallest ``Available KV cache memory`` and cuts it into ``floor(available / bytes per block)`` blocks
(``vllm/v1/core/kv_cache_utils``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.explain.vtokens import _Rebuilt, _rebuilt, _rules
from tpkit.explain.vworkers import _may_print_per_worker, _min_over_workers, _per_worker, _worker_spread
from tpkit.logs import ParsedLog, RankView
from tpkit.units import Bytes

__all__ = ["VllmAnchored", "anchor_vllm"]

_G = "GiB (vLLM divides by 2^30; V0 prints 'GB' for the same GiB)"


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmAnchored:
    rows: tuple[Row, ...]
    utilization: float | None
    total: Iv | None
    requested: Iv | None
    weights: Iv | None
    non_kv: Iv | None
    available: Iv | None
    graph_estimate: Iv | None
    tokens_printed: int | None
    tokens_predicted: tuple[int, int] | None
    token_bytes: float | None
    """KV bytes per token (all layers): from the model, else measured available / printed tokens"""
    token_bytes_source: str
    block_size: int
    tokens_alternatives: tuple[tuple[int, int], ...] = ()
    """where the release is open and its ends count the tokens by different rules: the range under each rule
    (``tokens_predicted`` is their hull; ``explain.vtokens._other_end``); empty otherwise"""
    per_worker: str | None = None
    """vLLM 0.8.2–0.11.0 (``VllmRules.capacity_per_worker``) with more than one worker: how the printed capacity
    line(s) pair with the workers whose available memory the log prints, in words (None otherwise)"""


def _min_available(parsed: ParsedLog):
    last = {}
    for a in parsed.anchors:
        if a.name == "available_kv" and a.size is not None and a.group is None:
            last[a.rank.label] = a
    return min(last.values(), key=lambda a: a.size.value.bytes) if last else None


def anchor_vllm(parsed: ParsedLog, view: RankView, ctx: Context) -> VllmAnchored:
    """The ledger of the tightest worker, step by step: the device total, the requested memory, the profile's
    non-KV terms, the available KV memory, the KV tokens (printed and rebuilt), the maximum concurrency."""
    rows: list[Row] = []
    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    rules = _rules(ctx)
    total = _total_row(parsed, view, ctx, rows)
    u, requested = _requested_rows(view, ctx, rows, rules, total)
    weights, parts, graph_estimate = _profile_rows(view, rows)
    avail_a, available, non_kv = _available_rows(parsed, view, rows, requested, weights, parts, graph_estimate)
    block = int(ctx.get("page_size", 16) or 16)
    release_known = not _may_print_per_worker(ctx)
    last_line = view.last("kv_tokens")
    tok_a, per_worker = _per_worker(parsed, rules, tp, pp, last_line, avail_a,
                                    release_known=release_known, range_text=ctx.version)
    line_available, spread_words = _worker_spread(parsed, rules, tp, pp, last_line, available, release_known)
    if line_available is not None:
        rows.append(derived_row("available KV memory of the printed line's worker", line_available,
                                spread_words))
        per_worker = f"{per_worker}; {spread_words}" if per_worker else spread_words
    else:
        line_available, min_words = _min_over_workers(parsed, rules, tp, pp, available, release_known)
        if line_available is not None:
            rows.append(derived_row("available KV memory of the smallest worker", line_available, min_words))
            per_worker = f"{per_worker}; {min_words}" if per_worker else min_words
    blocks_a = view.last("gpu_blocks")
    tokens_printed = _printed_tokens(tok_a, blocks_a, block)
    rebuilt = _rebuilt(ctx, rules, tp, pp, block, line_available or available, tokens_printed)
    if tok_a or blocks_a or rebuilt.predicted:
        rows.append(_tokens_row(tok_a or blocks_a, tokens_printed, rebuilt, per_worker))
    mc = view.last("max_concurrency")
    if mc:
        rows.append(Row(item="maximum concurrency", value=None, count=mc.count.value, kind="printed",
                        meaning=mc.meaning, printed=mc.count.text, line_no=mc.line_no))
    return VllmAnchored(rows=tuple(rows), utilization=u, total=total, requested=requested, weights=weights,
                        non_kv=non_kv, available=available, graph_estimate=graph_estimate,
                        tokens_printed=tokens_printed, tokens_predicted=rebuilt.predicted,
                        token_bytes=rebuilt.token_bytes, token_bytes_source=rebuilt.source, block_size=rebuilt.block,
                        tokens_alternatives=rebuilt.alternatives, per_worker=per_worker)


def _total_row(parsed: ParsedLog, view: RankView, ctx: Context, rows: list[Row]) -> Iv | None:
    """The device total: printed by vLLM, else printed elsewhere in the log, else the catalog GPU's."""
    total_a = view.last("total_gpu_memory") or view.last("startup_total")
    total = None
    if total_a:
        total = iv_of(total_a.size)
        rows.append(printed_row("device total", total_a, f"cudaMemGetInfo total, {_G}"))
    elif parsed.run.gpu_total is not None:
        total = iv_of(parsed.run.gpu_total)
        rows.append(derived_row("device total", total, f"printed {parsed.run.gpu_total.text}", kind="printed"))
    elif ctx.gpu is not None:
        total = Iv(ctx.gpu.total_bytes, ctx.gpu.total_bytes)
        rows.append(derived_row(f"device total ({ctx.gpu.name})", total, f"catalog, {ctx.gpu_source}", kind="catalog"))
    return total


def _requested_rows(view: RankView, ctx: Context, rows: list[Row], rules,
                    total: Iv | None) -> tuple[float, Iv | None]:
    """(gpu_memory_utilization, requested memory): the printed requested memory checked against total × u (ceil
    from 0.33), else total × u."""
    u = ctx.get("mem_fraction")
    u_source = ctx.sources.get("mem_fraction", "")
    if u is None:
        u, u_source = rules.default_utilization, f"not printed: vLLM {rules.label if hasattr(rules, 'label') else ''} default"
    u = float(u)
    req_a = view.last("requested_memory")
    derived_req = None
    if total is not None:
        derived_req = total.scale(u)
        if rules.ceil_requested:
            derived_req = Iv(derived_req.low, derived_req.high + Bytes(1))
    if req_a:
        rows.append(printed_row("requested memory", req_a, f"total × gpu_memory_utilization {u} ({u_source}), {_G}",
                                derived=derived_req, derived_from="device total × utilization"))
        return u, iv_of(req_a.size)
    if derived_req is not None:
        rows.append(derived_row("requested memory", derived_req,
                                f"total × gpu_memory_utilization {u} ({u_source})"
                                + (", ceil (≥ 0.33)" if rules.ceil_requested else "")))
    return u, derived_req


_PROFILE_TERMS = (("non_torch_memory", "non-torch memory (CUDA context, NCCL, cuBLAS)"),
                  ("non_torch_increase", "non-torch increase during profiling"),
                  ("activation_peak", "activation peak (profile run)"),
                  ("torch_peak_increase", "torch peak increase (profile run)"))
"""the profile's printed non-KV terms beside the weights (anchor name, ledger item)"""


def _profile_rows(view: RankView, rows: list[Row]) -> tuple[Iv | None, list[Iv], Iv | None]:
    """(weights, the non-KV terms that add up to the non-KV memory, the CUDA-graph estimate) as printed: the
    non-torch memory (else its increase) and the activation peak (else the torch peak increase)."""
    w = view.last("weights")
    weights = iv_of(w.size) if w else None
    if w:
        rows.append(printed_row("weights", w, f"'Model loading took' = torch-allocated bytes after − before the load, {_G}"))
    parts = []
    for name, item in _PROFILE_TERMS:
        a = view.last(name)
        if a:
            rows.append(printed_row(item, a, f"{a.meaning}"))
            if name in ("non_torch_memory", "activation_peak") or (
                    name == "non_torch_increase" and not view.last("non_torch_memory")) or (
                    name == "torch_peak_increase" and not view.last("activation_peak")):
                parts.append(iv_of(a.size))
    ge = view.last("graph_estimate")
    graph_estimate = iv_of(ge.size) if ge else None
    if ge:
        rows.append(printed_row("CUDA-graph estimate", ge, f"CUDA-graph memory estimated before KV sizing (≥ 0.21), {_G}"))
    return weights, parts, graph_estimate


def _available_rows(parsed: ParsedLog, view: RankView, rows: list[Row], requested: Iv | None, weights: Iv | None,
                    parts: list[Iv], graph_estimate: Iv | None):
    """(the smallest worker's 'Available KV cache memory' anchor, its interval, the non-KV residual) and their
    rows: available checked against requested − the printed terms; the residual against the DEBUG print."""
    avail_a = _min_available(parsed) or view.last("available_kv")
    available = iv_of(avail_a.size) if avail_a else None
    zero = Iv(Bytes(0), Bytes(0))
    non_kv = None
    if requested is not None and available is not None:
        non_kv = requested - available - (graph_estimate or zero)
    if avail_a:
        d = None
        if requested is not None and weights is not None and len(parts) >= 2:
            d = requested - weights - sum(parts, zero) - (graph_estimate or zero)
        rows.append(printed_row("available KV cache memory", avail_a,
                                f"requested − weights − non-torch − activation peak (− CUDA-graph estimate), the "
                                f"smallest over workers; {_G}", derived=d,
                                derived_from="requested − the printed non-KV terms", slack=Bytes(2**24)))
    if non_kv is not None:
        rows.append(derived_row("non-KV memory (residual)", non_kv,
                                "requested − available KV − CUDA-graph estimate = weights + non-torch + activation peak"
                                + (f"; weights {weights.text()} of it" if weights is not None else "")))
    nkv = view.last("non_kv_cache_memory")
    if nkv and non_kv is not None:
        rows.append(printed_row("non-KV memory (printed, DEBUG)", nkv, nkv.meaning, derived=non_kv,
                                derived_from="requested − available − graph estimate"))
    return avail_a, available, non_kv


def _printed_tokens(tok_a, blocks_a, block: int) -> int | None:
    """The printed KV tokens: the capacity line's, else the printed blocks × the block size."""
    if tok_a and isinstance(tok_a.count.value, int):
        return tok_a.count.value
    if blocks_a and isinstance(blocks_a.count.value, int):
        return blocks_a.count.value * block
    return None


def _tokens_row(anchor, tokens_printed: int | None, rebuilt: _Rebuilt, per_worker: str | None) -> Row:
    """The KV tokens: printed (checked against the range rebuilt from the anchors) or rebuilt."""
    predicted = rebuilt.predicted
    check = None
    if predicted is not None and tokens_printed is not None:
        ranges = rebuilt.alternatives or (predicted,)
        check = "reproduced" if any(lo <= tokens_printed <= hi for lo, hi in ranges) else "differs"
    return Row(item="KV tokens", value=None,
               count=tokens_printed if tokens_printed is not None else
               (predicted[0] + predicted[1]) // 2 if predicted is not None else anchor.count.value,
               kind="printed" if anchor else "derived",
               meaning=f"floor(available / bytes per block) × block size; {rebuilt.source}"
               + (f"; {per_worker}" if per_worker else ""),
               printed=anchor.count.text if anchor else None, line_no=anchor.line_no if anchor else None,
               check=check,
               note="" if predicted is None else f"rebuilt from the anchors: {predicted[0]:,}–{predicted[1]:,}")
