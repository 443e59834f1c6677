"""SGLang's hybrid (mamba / linear-attention) state pool that gets no request slot: the diagnosis and its
re-planned fixes (``hybrid_state``)."""

from __future__ import annotations

import math

from tpkit.explain.diagnose import MARGIN, MAX_FRACTION, Fix, bytes_text
from tpkit.explain.sgbudget import BudgetReplan
from tpkit.units import Bytes

__all__ = ["hybrid_state", "later_hybrid_finding"]


def later_hybrid_finding(parsed) -> list[str]:
    """A hybrid state-cache failure the log shows after the balance check (a second attempt with the check off)."""
    later = [f for f in parsed.failures if f.kind == "hybrid_state_memory"]
    if not later:
        return []
    rest = later[0].size("total_rest_memory")
    return [f"line {later[0].line_no}: with the balance check relaxed the run failed next on the hybrid state cache"
            + (f" (total_rest_memory {rest.text})" if rest else "")
            + ": the smallest card's budget leaves no state-pool slot"]


def hybrid_state(failure, ctx, plan: BudgetReplan):
    """SGLang's 'Not enough GPU memory for hybrid (mamba/linear-attention) state cache' (``_handle_max_mamba_cache``,
    model_runner_kv_cache_mixin.py 0.5.13-0.5.15, mem_cache/kv_cache_configurator.py 0.5.16-0.5.23): without
    --max-mamba-cache-size (and without --disable-radix-cache + --max-running-requests), the state pool gets
    total_rest_memory × r / (1 + r) (r = --mamba-full-memory-ratio, default 0.9) and K = budget // per-request state
    − 1 slots (one padding slot); K ≤ 0 raises. An explicit --max-mamba-cache-size K (or, with the radix cache off,
    --max-running-requests) sets K directly, and the KV pool gets what is left: (cause, short, fixes)."""
    rest, per = failure.size("total_rest_memory"), failure.size("mamba_cache_per_req")
    k = failure.count("max_mamba_cache_size")
    r = float(ctx.get("mamba_full_memory_ratio", 0.9) or 0.9)
    cause = ("the hybrid (mamba / linear-attention) state pool gets no request slot: SGLang gives it "
             f"total_rest_memory × {r:g} / (1 + {r:g}) and needs two per-request states (one is padding)")
    if k is not None:
        cause += f"; computed max_mamba_cache_size {k.value}"
    if rest is not None:
        cause += f"; total_rest_memory {rest.text} after the weights and the (1 − mem_fraction_static) slack"
    if per is not None:
        cause += f"; {per.text} of state per request"
    short = None
    fixes: list[Fix] = []
    if rest is not None and per is not None:
        need = int(2 * per.value.bytes * (1 + r) / r)
        short = Bytes(max(0, need - rest.value.bytes))
        slots = int(rest.value.bytes * 0.75 // per.value.bytes) - 1  # state ≤ 3/4 of the rest
        if slots >= 1:
            left = rest.value.bytes - (slots + 1) * per.value.bytes
            fixes.append(Fix(flags=f"--max-mamba-cache-size {slots}", kv_tokens=None, fits=True,
                             why=f"{slots} state slots (+1 padding) take {bytes_text((slots + 1) * per.value.bytes)}"
                                 f"; {bytes_text(left)} is left for the KV pool",
                             note=f"at most {slots} requests run at once; a small KV pool: raise --mem-fraction-static "
                                  "too where the card allows"))
            fixes.append(Fix(flags=f"--disable-radix-cache --max-running-requests {slots}", kv_tokens=None, fits=True,
                             why="with the radix cache off SGLang sizes the state pool from --max-running-requests",
                             note="no prefix reuse"))
            r2 = math.ceil(2 * per.value.bytes / (rest.value.bytes - 2 * per.value.bytes) * 1.2 * 100) / 100 \
                if rest.value.bytes > 2 * per.value.bytes else None
            if r2 is not None and r2 > r:
                fixes.append(Fix(flags=f"--mamba-full-memory-ratio {r2:.2f}", kv_tokens=None, fits=True,
                                 why=f"the state pool's share total_rest_memory × {r2:.2f} / (1 + {r2:.2f}) holds "
                                     "two states with a fifth to spare"))
    if plan.pre is not None and plan.f is not None and short is not None:
        f2 = plan.flag(plan.f + (short.bytes + MARGIN.bytes) / plan.pre * (1 + r) / r, up=True)
        if f2 <= MAX_FRACTION:
            fixes.insert(0, Fix(flags=f"--mem-fraction-static {f2:.2f}", kv_tokens=None, fits=True,
                                why=f"total_rest_memory grows by ({f2:.2f} − {plan.f:.3f}) × pre-load memory, past "
                                    "what two state slots need"))
    if not fixes:
        fixes = [Fix(flags="--mem-fraction-static <higher>, or --max-mamba-cache-size <small>, or GPUs with more "
                           "memory", kv_tokens=None, fits=False,
                     why="the log prints no numbers to re-plan from"
                     if rest is None or per is None or rest.value.bytes > 0 else
                     "total_rest_memory is not positive: the weights leave nothing for any pool at this fraction")]
    return cause, short, fixes
