"""SGLang hybrid models: the recurrent-state pool rebuilt from the log's 'Mamba Cache is allocated' line.

Hybrid models (Qwen3-Next / Qwen3.5 gated delta-net, Granite-4.0-H and Nemotron-H Mamba-2, LFM2 short
convolutions, Kimi-Linear …) carve a per-request state pool out of the KV budget before the KV pool is sized
(the rules, with their sources and version ranges: ``tpkit.engines.sglang.mamba``).  The pool prints its own
bytes — conv states and SSM states over ``max_mamba_cache_size + 1`` slots (``mem_cache/memory_pool.py
MambaPool``, 0.5.3 – 0.5.23) — so the bytes the KV budget lost follow from the anchors alone, no config needed:

    charged = (conv + ssm printed) × charged_slots(N) / (N + 1)
    charged_slots(N) = N up to 0.5.16, N + 1 from 0.5.17 (``engines.sglang.mamba.charged_slots``)

The split itself pins the KV budget too (0.5.4+, the ρ/(1 + ρ) rule of ``engines.sglang.mamba``, ρ =
``mamba_full_memory_ratio``, 0.9 unless the log sets it): with per = pool / (N + 1),

    N = floor(rest · ρ/(1 + ρ) / per)                    0.5.4 – 0.5.16   → rest ∈ [N·per, (N + 1)·per) · (1 + ρ)/ρ
    N = floor((rest · ρ/(1 + ρ) − per) / per)           0.5.17+          → rest ∈ [(N + 1)·per, (N + 2)·per) · (1 + ρ)/ρ

so the budget follows from the printed pool alone, whatever ``mem_fraction_static`` was.  Not used when the
slot count was set rather than solved: ``--max-mamba-cache-size``, the radix cache off with
``--max-running-requests``, speculative decoding (intermediate states in the split), a 0.5.3 line.

N is the printed ``max_mamba_cache_size`` (0.5.4+); a 0.5.3 line prints no N: the release's own count is used
(``--max-running-requests``, else the fixed 512 of ``engines.sglang.mamba.FIXED_SLOTS``).  With speculative
decoding the intermediate states are also printed; the part of them charged to the KV budget depends on the
release's capped request count, so the charge is widened by 0 … their printed bytes.
"""

from __future__ import annotations

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.sgrelease import log_release
from tpkit.logs import RankView
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["StateFromLog", "state_from_anchors", "rest_from_split", "planned_state_rest",
           "split_rest", "state_pool_for"]


@dataclass(frozen=True, kw_only=True, slots=True)
class StateFromLog:
    """The state pool of one rank as its log printed it."""

    slots: int
    """``max_mamba_cache_size`` (printed, or the release's count for a 0.5.3 line)"""
    slots_printed: bool
    pool: Iv
    """conv + SSM state bytes of the pool (slots + 1), printed"""
    intermediate: Iv | None
    """speculative-decoding intermediate states, printed (None without)"""
    charged: Iv
    """bytes the KV budget lost to the pool"""
    source: str
    line_no: int
    printed: str


def _last(view, name: str):
    found = [a for a in view.all(name) if a.group != "draft"]
    return found[-1] if found else None


def state_from_anchors(view, version: str, max_running: int | None = None) -> StateFromLog | None:
    """The state pool from the target's last 'Mamba Cache is allocated' line on this rank; None without one
    (or when the line is cut before its sizes)."""
    conv, ssm = _last(view, "mamba_conv_size"), _last(view, "mamba_ssm_size")
    if conv is None or ssm is None:
        return None
    from tpkit.engines.sglang.mamba import FIXED_SLOTS, POOL_EXTRA_SLOTS, charged_slots  # a log with a state pool

    n_a = _last(view, "mamba_cache_size")
    if n_a is not None and isinstance(n_a.count.value, int):
        slots, printed_n = int(n_a.count.value), True
        why_n = f"max_mamba_cache_size {slots:,} (printed)"
    else:
        slots, printed_n = (max_running if max_running is not None else FIXED_SLOTS), False
        why_n = (f"max_mamba_cache_size not printed (≤ 0.5.3 line): {slots:,} = "
                 + ("--max-running-requests" if max_running is not None else "the fixed 512"))
    pool = iv_of(conv.size) + iv_of(ssm.size)
    allocated = slots + POOL_EXTRA_SLOTS
    charged_n = charged_slots(slots, version)
    charged = pool.scale(charged_n / allocated)
    inter_a = _last(view, "mamba_intermediate_size")
    inter = iv_of(inter_a.size) if inter_a is not None else None
    extra = ""
    if inter is not None:
        # the same line prints the intermediate conv windows next to the SSM states (0.5.3 - 0.5.23,
        # mem_cache/memory_pool.py MambaPool.__init__: both allocated with the pool; helper gs32a, 2026-12-07)
        window_a = _last(view, "mamba_intermediate_conv_size")
        window = f" + {window_a.size.text}" if window_a is not None else ""
        if window_a is not None:
            inter = inter + iv_of(window_a.size)
        charged = Iv(low=charged.low, high=charged.high + inter.high)
        extra = (f"; + 0 … {inter_a.size.text}{window} of speculative intermediate states (their charged part depends "
                 "on the release's capped request count)")
    source = (f"'Mamba Cache is allocated' conv {conv.size.text} + ssm {ssm.size.text} over {allocated:,} slots; "
              f"{why_n}; the KV budget loses {charged_n:,} of them (SGLang {version}: "
              f"{'slots + padding slot, 0.5.17+' if charged_n > slots else 'the padding slot not charged, ≤ 0.5.16'})"
              + extra)
    return StateFromLog(slots=slots, slots_printed=printed_n, pool=pool, intermediate=inter, charged=charged,
                        source=source, line_no=conv.line_no, printed=f"{conv.size.text} + {ssm.size.text}")



def rest_from_split(state: StateFromLog, version: str, *, ratio: float | None = None,
                    slots_set: bool = False) -> tuple[Iv, str] | None:
    """The KV budget before the state pool (``rest``) pinned by the printed split, and why; None when the release
    or the settings did not solve the slot count from the ratio (``slots_set``: ``--max-mamba-cache-size``, or the
    radix cache off with ``--max-running-requests``)."""
    from tpkit.engines.sglang.mamba import MAMBA_FULL_MEMORY_RATIO, PADDING_CHARGED_FROM, RATIO_SPLIT_FROM
    from tpkit.engines.sglang.versions import at_least

    if (not at_least(version, RATIO_SPLIT_FROM) or not state.slots_printed or state.intermediate is not None
            or slots_set or state.slots <= 0):
        return None
    rho = MAMBA_FULL_MEMORY_RATIO if ratio is None else float(ratio)
    allocated = state.slots + 1
    first = state.slots + (1 if at_least(version, PADDING_CHARGED_FROM) else 0)
    k = (1 + rho) / rho
    lo = state.pool.low.bytes / allocated * first * k
    hi = state.pool.high.bytes / allocated * (first + 1) * k
    rule = ("(N + 1)·per ≤ budget < (N + 2)·per, 0.5.17+" if first > state.slots
            else "N·per ≤ budget < (N + 1)·per, 0.5.4 – 0.5.16")
    return Iv(low=Bytes(int(lo)), high=Bytes(int(hi))), (
        f"rest = budget × (1 + ρ)/ρ, ρ = mamba_full_memory_ratio {rho:g}; {rule}; per = printed pool / "
        f"{allocated:,} slots (SGLang {version}; engines.sglang.mamba)")


def state_pool_for(view: RankView, ctx: Context):
    """The hybrid state pool from the log's anchors (``state_from_anchors``), for the newest release consistent
    with the log's formats and its date; None without a 'Mamba Cache is allocated' line."""
    version, _ = log_release(ctx)
    mr = ctx.get("max_running_requests")
    return state_from_anchors(view, version, int(mr) if mr else None)


def split_rest(state, ctx: Context):
    """The KV budget pinned by the printed state split (``rest_from_split``), None when the slot count was set
    rather than solved."""
    from tpkit.engines.sglang.mamba import radix_off_slots

    version, _ = log_release(ctx)
    running = int(ctx.get("max_running_requests")) if ctx.get("max_running_requests") else None
    slots_set = bool(ctx.get("max_mamba_cache_size")) or bool(
        ctx.get("disable_radix_cache") and radix_off_slots(version, max_running=running) is not None)
    if ctx.get("spec_algorithm") not in (None, "", "None", "NONE"):
        return None
    return rest_from_split(state, version, ratio=ctx.get("mamba_full_memory_ratio"), slots_set=slots_set)


def planned_state_rest(ctx: Context, rest: Iv | None, tp: int, pp: int) -> tuple[Iv, str] | None:
    """(KV budget after the state pool, why) from the model's config when the log prints no 'Mamba Cache is
    allocated' line: the planner's own split (``engines.sglang.mamba.plan_mamba_pool``: ρ/(1 + ρ) of the budget
    in whole per-request slots, the padding slot charged from 0.5.17) taken at both ends of the budget, or the
    slot count the radix cache off sets (``engines.sglang.mamba.radix_off_slots``: ``--max-running-requests``,
    read in the 0.5.4 – 0.5.23 wheels).  None for a model without linear-attention layers, and where the slot
    count is set or the split has terms the plan does not take from a log (``--max-mamba-cache-size``,
    speculative decoding, DP attention).  A log's own ``mamba_full_memory_ratio`` is passed to the split (helper
    fix11, 2026-12-05; before, a ratio other than 0.9 returned None)."""
    if ctx.model is None or rest is None:
        return None
    if ctx.get("max_mamba_cache_size") or ctx.get("enable_dp_attention"):
        return None
    if ctx.get("spec_algorithm") not in (None, "", "None", "NONE"):
        return None
    ratio = ctx.get("mamba_full_memory_ratio")
    from tpkit.engines.sglang.mamba import SSM_DTYPE_BYTES, plan_mamba_pool, ssm_state_choice
    from tpkit.engines.sglang.pool import stage_layer_kinds
    from tpkit.explain.refusals import REFUSED

    try:
        ratio = None if ratio is None else float(ratio)
    except (TypeError, ValueError):
        return None
    if ratio is not None and not ratio > 0:
        return None
    version, _ = log_release(ctx)
    try:
        linear = stage_layer_kinds(ctx.model, pp).count("linear")
        if not linear:
            return None
        radix_off = bool(ctx.get("disable_radix_cache"))
        running = int(ctx.get("max_running_requests")) if ctx.get("max_running_requests") else None
        ssm_flag = str(ctx.get("mamba_ssm_dtype") or "").lower() or None  # the log's --mamba-ssm-dtype (sgf14)
        ssm = ssm_state_choice(ctx.model, version, ssm_flag if ssm_flag in SSM_DTYPE_BYTES else None)[0]
        low = plan_mamba_pool(ctx.model, tp, linear, rest.low, version, disable_radix_cache=radix_off,
                              user_running=running, full_memory_ratio=ratio, ssm_bytes=ssm)
        high = plan_mamba_pool(ctx.model, tp, linear, rest.high, version, disable_radix_cache=radix_off,
                               user_running=running, full_memory_ratio=ratio, ssm_bytes=ssm)
    except REFUSED:
        return None
    if low is None or high is None:
        return None
    # whole per-request slots make the split a step function of the budget: a slot more at the high end can leave
    # less for the KV pool than the low end does, so the range is the two ends' hull, not their order
    ends = (rest.low - low.total_bytes, rest.high - high.total_bytes)
    return (Iv(low=min(ends), high=max(ends)),
            f"not printed: the config's state pool, SGLang {version}: {high.source}")
