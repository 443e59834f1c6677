"""Verdicts in vLLM's own words, with the knob to turn and by how much (vLLM 0.33
``vllm/v1/worker/utils.py`` ``request_memory``, ``vllm/v1/core/kv_cache_planning.py`` ``get_kv_cache_configs``)."""

from __future__ import annotations

import math

from tpkit.engines.vllm.budget import Budget
from tpkit.engines.vllm.capacity import KvCapacity
from tpkit.engines.vllm.inputs import Resolved
from tpkit.engines.vllm.logs import no_memory_message, startup_message, too_long_message
from tpkit.engines.vllm.versions import VllmRules
from tpkit.memory.result import Verdict
from tpkit.units import Bytes, format_bytes

__all__ = ["decide"]


def _util_for(extra: Bytes, total: Bytes, current: float) -> float:
    """The utilisation that adds ``extra`` bytes to the budget, rounded up to 0.01."""
    return math.ceil((current + extra.bytes / total.bytes) * 100 - 1e-9) / 100


def _startup(budget: Budget, total: Bytes, r: Resolved) -> tuple[Verdict, str]:
    fit_util = math.floor(budget.free_at_snapshot.bytes / total.bytes * 100) / 100
    msg = startup_message(free=budget.free_at_snapshot, total=total, utilization=r.utilization,
                          requested=budget.requested)
    return Verdict(fits=False, knob="--gpu-memory-utilization",
                   message=f"vLLM will refuse to start: {msg} Fix: --gpu-memory-utilization {fit_util} or less."), msg


def _no_memory(budget: Budget, total: Bytes, cap: KvCapacity, r: Resolved) -> tuple[Verdict, str]:
    if budget.override:
        return Verdict(fits=False, knob="--kv-cache-memory-bytes",
                       message=f"{no_memory_message()} Fix: pass a --kv-cache-memory-bytes of at least "
                               f"{format_bytes(cap.needed)}."), no_memory_message()
    short = cap.needed - budget.available
    util = _util_for(short, total, r.utilization)
    return Verdict(fits=False, knob="--gpu-memory-utilization",
                   message=f"vLLM will fail: {no_memory_message()} The non-KV memory (weights, activation peak) "
                           f"already takes the budget; one request of {r.max_model_len:,} tokens needs "
                           f"{format_bytes(cap.needed)} more. Fix: --gpu-memory-utilization {min(util, 1.0)} "
                           f"if it is ≤ 1, else more GPUs (--tp) or a smaller --max-num-batched-tokens."), \
        no_memory_message()


def _too_long(budget: Budget, total: Bytes, cap: KvCapacity, r: Resolved, rules: VllmRules) -> tuple[Verdict, str]:
    msg = too_long_message(max_model_len=r.max_model_len, needed=cap.needed, available=budget.available,
                           estimated=cap.estimated_max_model_len, tokens=cap.tokens, rules=rules)
    short = cap.needed - budget.available
    util = _util_for(short, total, r.utilization)
    fix = f"Fix: --max-model-len {cap.estimated_max_model_len} or less"
    if not budget.override and util <= 1.0:
        fix += f", or --gpu-memory-utilization {util} (+{format_bytes(short)} for the KV cache)"
    return Verdict(fits=False, knob="--max-model-len", message=f"vLLM will fail: {msg} {fix}."), msg


def decide(budget: Budget, cap: KvCapacity, r: Resolved, rules: VllmRules,
           total: Bytes) -> tuple[Verdict, str | None]:
    """The outcome of start-up for the limiting rank, and the error line vLLM would print (if any)."""
    if rules.engine == "V1" and rules.memory_rule != "v0_peak" and budget.free_at_snapshot < budget.requested:
        return _startup(budget, total, r)
    if budget.available <= Bytes(0) or cap.num_blocks == 0:
        return _no_memory(budget, total, cap, r)
    if not cap.fits:
        return _too_long(budget, total, cap, r, rules)
    if budget.override:
        spare = budget.free_at_snapshot - budget.weights - budget.activation - budget.available
        if spare < Bytes(0):
            return Verdict(fits=False, knob="--kv-cache-memory-bytes",
                           message=f"--kv-cache-memory-bytes exceeds the free memory by {format_bytes(-spare)}: "
                                   f"expect CUDA out-of-memory; lower it by at least that much."), None
    return Verdict(fits=True, message=f"fits: {cap.tokens:,} KV tokens per rank ({cap.num_blocks:,} blocks), "
                                      f"{cap.max_concurrency:.2f}x requests of {r.max_model_len:,} tokens"), None
