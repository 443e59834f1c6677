"""vLLM DeepSeek-V4 logs: the printed KV token count rebuilt by ``tpkit.engines.vllm.dsv4`` (its own groups, pages
and per-request count; the standard layout does not apply).  Where the log's release is a range, every DeepSeek-V4
era inside it that the module reads (0.20.0; 0.20.1 – 0.22.1; 0.23.0 – 0.25.1) is rebuilt and named, as
``explain.vtokens._other_end`` does for the other models; releases outside 0.20.0 – 0.25.1 are left out and said
so.  With MTP speculative decoding (the log's speculative config, else ``--speculative-config``) the drafter's
``num_nextn_predict_layers`` layers join the SWA groups as they do in the plan (``engines.vllm.dsv4_plan
.mtp_layers``; vLLM 0.20.0 / 0.21.0 ``deepseek_v4.py``: a layer_id ≥ num_hidden_layers takes compress ratio 1,
one SWA cache; helper cap14, 2026-12-05).  Used by ``explain.vtokens``."""

from __future__ import annotations

from tpkit.errors import PlanInputError
from tpkit.explain.context import Context
from tpkit.explain.interval import Iv

def is_dsv4(ctx: Context) -> bool:
    """Whether the log's model is DeepSeek-V4 (``model_type`` deepseek_v4), whose vLLM KV groups ``engines.vllm.dsv4``
    sizes."""
    return ctx.model is not None and getattr(ctx.model, "model_type", None) == "deepseek_v4"


def _fmt(rel: tuple[int, int, int]) -> str:
    return ".".join(map(str, rel))


def _releases(ctx: Context, ends: tuple[str, str] | None) -> tuple[list[tuple[int, int, int]], str]:
    """The releases to rebuild (one per era inside the log's range, or the release the log pins) and a note."""
    from tpkit.engines.vllm.dsv4 import ERAS, FIRST, LAST, parse_release

    if ends is None:
        pinned = ctx.rules_version
        return ([parse_release(pinned)] if pinned else []), ""
    lo, hi = parse_release(ends[0]), parse_release(ends[1])
    picked = [max(a, lo) for a, b in ERAS if a <= hi and lo <= b]
    note = "" if FIRST <= lo and hi <= LAST else \
        f"; releases of {ends[0]}–{ends[1]} outside {_fmt(FIRST)}–{_fmt(LAST)} not modelled, left out"
    return picked, note


def rebuilt_dsv4(ctx: Context, available: Iv | None, ends: tuple[str, str] | None, batched: int):
    """(predicted range or None, bytes per block / block, source text, alternatives one per era)."""
    from tpkit.engines.vllm.dsv4 import BLOCK, config_of, plan_dsv4
    from tpkit.engines.vllm.dsv4_plan import mtp_layers

    releases, note = _releases(ctx, ends)
    length = int(ctx.get("context_length") or 0)
    kv = str(ctx.get("kv_cache_dtype", "auto") or "auto")
    where = f"{ctx.model.name} config"
    if not releases:
        return None, None, "vLLM DeepSeek-V4: no release of the log lies in 0.20.0 – 0.25.1 (modelled)", ()
    if length <= 0:
        return None, None, "vLLM DeepSeek-V4: max_model_len not printed (pass --context-length)", ()
    parts, ranges, per_block = [], [], None
    try:  # the MTP drafter's layers join the SWA groups, as in the plan (engines.vllm.dsv4_plan.mtp_layers)
        mtp = mtp_layers(ctx.model, ctx)
    except PlanInputError as exc:
        return None, None, str(exc), ()
    for rel in releases:
        try:
            lo = plan_dsv4(config_of(ctx.model), max(available.low.bytes, 0) if available else 0,
                           version=_fmt(rel), max_model_len=length, max_num_batched_tokens=batched,
                           kv_cache_dtype=kv, where=where, mtp_layers=mtp)
            hi = plan_dsv4(config_of(ctx.model), max(available.high.bytes, 0) if available else 0,
                           version=_fmt(rel), max_model_len=length, max_num_batched_tokens=batched,
                           kv_cache_dtype=kv, where=where, mtp_layers=mtp)
        except PlanInputError as exc:
            return None, None, str(exc), ()
        per_block = lo.bytes_per_block
        ranges.append((lo.tokens, hi.tokens))
        parts.append(f"vLLM {_fmt(rel)} rules give {lo.tokens:,}–{hi.tokens:,} ({len(lo.groups)} groups, "
                     f"{lo.bytes_per_block:,} B per block, {lo.blocks_per_request:,} blocks per request)")
    source = ("vLLM DeepSeek-V4 KV groups (engines.vllm.dsv4; max_num_batched_tokens "
              f"{batched:,}" + (f"; {mtp} MTP layer(s) in the SWA groups" if mtp else "") + "): "
              + "; ".join(parts) + note)
    if available is None:
        return None, per_block / BLOCK, source, ()
    low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if len(ranges) > 1:
        source += "; --engine-version picks one"
    return (low, high), per_block / BLOCK, source, tuple(ranges) if len(ranges) > 1 else ()
