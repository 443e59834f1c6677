"""Verdicts in vLLM's own words, with the knob to turn and by how much (vLLM 0.33
``vllm/v1/worker/utils.py`` ``request_memory``, ``vllm/v1/core/kv_cache_planning.py`` ``get_kv_cache_configs``).

Every fix a verdict names is re-planned first (``Retry``: the same plan with one knob changed) and named only
when that plan fits; when none does, the verdict says so and why.  The utilisation fix is searched on vLLM's
0.01 grid between the current value and the highest one the start-up check accepts (free / total).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tpkit.engines.vllm.budget import Budget
from tpkit.engines.vllm.capacity import KvCapacity
from tpkit.engines.vllm.inputs import Resolved
from tpkit.engines.vllm.logs import mamba_blocks_message, no_memory_message, startup_message, too_long_message
from tpkit.engines.vllm.versions import VllmRules
from tpkit.memory.result import Verdict
from tpkit.units import Bytes, format_bytes

__all__ = ["decide", "Retry", "load_oom_message", "override_spare", "TP_CANDIDATES"]

TP_CANDIDATES = (2, 4, 8, 16, 32)

Retry = Callable[..., bool]
"""retry(gpu_memory_utilization=…, tp=…, max_model_len=…, quantization=…, kv_cache_memory_bytes=…) → does the
same plan with those knobs changed fit?"""


def override_spare(budget: Budget) -> Bytes:
    """With --kv-cache-memory-bytes: the free memory left after weights, activation peak and the KV cache
    (negative: the KV tensors cannot be allocated)."""
    return budget.free_at_snapshot - budget.weights - budget.activation - budget.available


def load_oom_message() -> str:
    """What vLLM stops with when the weights do not fit in the free memory: PyTorch's allocator error while
    the model loads (the bytes it tried to allocate depend on the tensor and are not predicted)."""
    return "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate … (while loading the model weights)"


def _highest_util(budget: Budget, total: Bytes, rules: VllmRules, room: Bytes | None = None) -> float:
    """The highest utilisation (0.01 grid) the start-up check accepts (``room``: V0's free memory after the CUDA
    context, which bounds its budget the same way); 1.0 where there is no bound."""
    if room is not None:  # V0: the KV allocation takes the budget less the released activation peak (decide)
        released = Bytes(0) if rules.v0_torch_peak_only else budget.activation
        return min(1.0, math.floor((room + released).bytes / total.bytes * 100) / 100)
    if rules.engine != "V1" or rules.memory_rule == "v0_peak":
        return 1.0
    return min(1.0, math.floor(budget.free_at_snapshot.bytes / total.bytes * 100) / 100)


def _util_fix(retry: Retry | None, budget: Budget, total: Bytes, r: Resolved, rules: VllmRules,
              lower: bool, room: Bytes | None = None) -> float | None:
    """The re-planned utilisation fix: the highest that passes the start-up check (``lower``), else the smallest
    above the current one that fits; None when no utilisation fits."""
    if retry is None or budget.override:
        return None
    hi = round(_highest_util(budget, total, rules, room) * 100)
    if hi < 1 or not retry(gpu_memory_utilization=hi / 100):
        return None
    if lower:
        return hi / 100
    lo = max(1, math.floor(r.utilization * 100 + 1e-9) + 1)  # first grid value above the current one
    if lo >= hi:
        return hi / 100
    while lo < hi:  # above the current value more utilisation only adds KV memory: bisection
        mid = (lo + hi) // 2
        if retry(gpu_memory_utilization=mid / 100):
            hi = mid
        else:
            lo = mid + 1
    return hi / 100


def _len_fix(retry: Retry | None, estimate: int | None) -> int | None:
    """The longest --max-model-len up to vLLM's own estimate that fits when re-planned (shorter requests only
    need fewer blocks: bisection below the estimate when the estimate itself does not fit)."""
    if retry is None or estimate is None or estimate < 1:
        return None
    if retry(max_model_len=estimate):
        return estimate
    lo, hi = 0, estimate - 1  # lo: known to fit (0 = none yet)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if retry(max_model_len=mid):
            lo = mid
        else:
            hi = mid - 1
    return lo or None


Fix = tuple[str, str]
"""(the flags a re-run takes, the words the verdict says)"""


def _fixes(retry: Retry | None, budget: Budget, total: Bytes, r: Resolved, rules: VllmRules, tp: int, *,
           lower: bool = False, quantizable: bool = False, max_model_len: int | None = None,
           room: Bytes | None = None, gpu=None) -> list[Fix]:
    """Every fix that fits when re-planned, each a whole alternative.  The layout fix (more GPUs, or on a MIG slice
    a larger slice or the whole card) comes from ``engines.layoutfix.layout_fixes``, the one generator of them."""
    from tpkit.engines.layoutfix import layout_fixes

    out: list[Fix] = []
    longest = _len_fix(retry, max_model_len)
    if longest is not None:
        out.append((f"--max-model-len {longest}", f"--max-model-len {longest} or less"))
    util = _util_fix(retry, budget, total, r, rules, lower, room)
    if util is not None:
        out.append((f"--gpu-memory-utilization {util}", f"--gpu-memory-utilization {util}"))
    if retry is not None:
        out += layout_fixes(gpu, tp, retry, getattr(retry, "note", None), engine="vllm")
    if quantizable and retry is not None and retry(quantization="fp8"):
        out.append(("--quantization fp8", "fp8 weights (--quantization fp8)" + _note(retry, quantization="fp8")))
    return out


def _override_fix(retry: Retry | None, cap: KvCapacity) -> Fix | None:
    """The smallest ``--kv-cache-memory-bytes`` that holds one request of max_model_len and fits when re-planned:
    one request's KV (``cap.needed``), then one and two blocks more (vLLM ≥ 0.29 keeps one block out of the fit check:
    ``capacity._budget_for_check``), each rounded up to a whole MiB.  Before (helper nc20, session 20) only
    ``cap.needed`` itself was tried, which the fit check refuses by that block, and the verdict then said that one
    request's KV "would not fit in the free memory either" on a GPU with tens of GiB free."""
    if retry is None or cap.blocks_per_request <= 0:
        return None
    block = cap.needed // cap.blocks_per_request
    for extra in range(3):
        size = Bytes(-(-(cap.needed + block * extra).bytes // (1 << 20)) << 20)
        if retry(kv_cache_memory_bytes=size):
            return (f"--kv-cache-memory-bytes {size.bytes}",
                    f"--kv-cache-memory-bytes {size.bytes} ({format_bytes(size)}: one request of the max_model_len"
                    + (" and the block vLLM keeps out of its fit check" if extra else "") + ") or more")
    return None


def _note(retry: Retry | None, **change) -> str:
    """What a fix's re-plan changed beyond its knob (``retry.note``: derived weights in place of the log's measured
    ones at another layout or quantisation, ``memory.band.replan_weights``); "" when nothing."""
    note = getattr(retry, "note", None)
    return note(**change) if note is not None else ""


def _nothing(budget: Budget, total: Bytes, tp: int, gpu=None) -> str:
    from tpkit.engines.layoutfix import NO_TP_ON_MIG, on_mig

    layout = (f"a larger MIG slice or the whole card ({NO_TP_ON_MIG})" if on_mig(gpu)
              else f"--tp up to {TP_CANDIDATES[-1]}")
    return (f"Nothing tried fits at this GPU's {format_bytes(total)}: the weights alone take "
            f"{format_bytes(budget.weights)} per GPU at tp {tp}, and no "
            + ("--gpu-memory-utilization up to 1.0, " if not budget.override else "")
            + f"{layout} or fp8 weights"
            + (" with this --kv-cache-memory-bytes" if budget.override else "") + " makes room for one request")


def _how(fixes: list[Fix], budget: Budget, total: Bytes, tp: int, gpu=None) -> str:
    if not fixes:
        return _nothing(budget, total, tp, gpu) + "."
    return "Fix: " + "; or ".join(text for _, text in fixes) + " (each re-planned and found to fit)."


def _flags(fixes: list[Fix]) -> tuple[str, ...]:
    return tuple(flags for flags, _ in fixes)


def _startup(budget: Budget, total: Bytes, r: Resolved, rules: VllmRules, retry: Retry | None, tp: int,
             quantizable: bool, gpu=None) -> tuple[Verdict, str]:
    msg = startup_message(free=budget.free_at_snapshot, total=total, utilization=r.utilization,
                          requested=budget.requested)
    fixes = _fixes(retry, budget, total, r, rules, tp, lower=True, quantizable=quantizable, gpu=gpu)
    return Verdict(fits=False, knob="--gpu-memory-utilization", fixes=_flags(fixes),
                   message=f"vLLM will refuse to start: {msg} {_how(fixes, budget, total, tp, gpu)}"), msg


def _load_oom(budget: Budget, total: Bytes, r: Resolved, rules: VllmRules, retry: Retry | None, tp: int,
              quantizable: bool, gpu=None) -> tuple[Verdict, str]:
    fixes = _fixes(retry, budget, total, r, rules, tp, quantizable=quantizable, gpu=gpu)
    fixes = [f for f in fixes if not f[0].startswith("--gpu-memory-utilization")]  # never the cause here
    what = (f"vLLM will fail while loading the model: the weights alone need {format_bytes(budget.weights)} per GPU, "
            f"more than the {format_bytes(budget.free_at_snapshot)} free on this GPU after the start-up costs "
            f"(short by {format_bytes(budget.weights - budget.free_at_snapshot)}); PyTorch raises CUDA out of memory "
            f"before vLLM sizes any KV cache.")
    from tpkit.engines.layoutfix import on_mig

    return Verdict(fits=False, knob="--gpu" if on_mig(gpu) else "--tp", fixes=_flags(fixes),
                   message=f"{what} {_how(fixes, budget, total, tp, gpu)}"), load_oom_message()


def _no_memory(budget: Budget, total: Bytes, cap: KvCapacity, r: Resolved, rules: VllmRules, retry: Retry | None,
               tp: int, quantizable: bool, gpu=None) -> tuple[Verdict, str]:
    """No KV block fits.  A negative available budget is vLLM's own number: ``Worker.determine_available_memory``
    (``v1/worker/gpu_worker.py``, vllm 0.33.0) logs ``format_gib(requested − non-KV − CUDA-graph estimate)`` as
    "Available KV cache memory" without clamping it, then start-up stops with the no-memory error; the verdict
    says so and gives the shortfall."""
    if budget.override:
        fix = _override_fix(retry, cap)
        how = (f"Fix: {fix[1]}." if fix else
               f"A --kv-cache-memory-bytes of {format_bytes(cap.needed)} (one request) would not fit in the free "
               f"memory either: {_nothing(budget, total, tp, gpu)}.")
        return Verdict(fits=False, knob="--kv-cache-memory-bytes", message=f"{no_memory_message()} {how}",
                       fixes=(fix[0],) if fix else ()), \
            no_memory_message()
    short = cap.needed - budget.available
    fixes = _fixes(retry, budget, total, r, rules, tp, quantizable=quantizable, gpu=gpu)
    error = _no_memory_error(budget, r)
    from tpkit.engines.vllm.budget import extensible_reservation

    reserved = extensible_reservation(budget) if budget.extensible else None
    if reserved is not None and reserved <= Bytes(0):  # ≥ 0.34: stops at the reservation's check, before warm-up
        shortfall = (f"the budget is short by {format_bytes(-reserved)} before any KV cache "
                     f"(vLLM itself prints the negative 'Available KV cache memory', the reservation before "
                     f"warm-up), " if reserved < Bytes(0) else "")
    elif reserved is not None:  # vLLM ≥ 0.34: the printed figure is the reservation, the pool is sized after warm-up
        shortfall = (f"after warm-up and CUDA-graph capture the budget is short by "
                     f"{format_bytes(-budget.available)} before any KV cache (vLLM printed the reservation before "
                     f"warm-up, 'Available KV cache memory' {format_bytes(reserved)}), "
                     if budget.available < Bytes(0) else "")
    else:
        shortfall = (f"the budget is short by {format_bytes(-budget.available)} before any KV cache "
                     f"(vLLM itself prints the negative 'Available KV cache memory'), "
                     if budget.available < Bytes(0) else "")
    return Verdict(fits=False, knob="--gpu-memory-utilization", fixes=_flags(fixes),
                   message=f"vLLM will fail: {error} The non-KV memory (weights "
                           f"{format_bytes(budget.weights)}, activation peak {format_bytes(budget.activation)}) takes "
                           f"the budget: {shortfall}one request of {r.max_model_len:,} tokens needs "
                           f"{format_bytes(short)} more. {_how(fixes, budget, total, tp, gpu)}"), error


def _no_memory_error(budget: Budget, r: Resolved) -> str:
    """vLLM's no-memory error for this run: with the extensible KV cache (≥ 0.34) the hint after warm-up
    (``shrink_kv_cache_configs``), or before it where the reservation itself holds nothing
    (``get_kv_cache_configs``'s check; the null block is not subtracted here)."""
    if not budget.extensible:
        return no_memory_message()
    from tpkit.engines.vllm.budget import extensible_reservation

    return no_memory_message(extensible=True, utilization=r.utilization,
                             after_warmup=extensible_reservation(budget) > Bytes(0))


def _too_long(budget: Budget, total: Bytes, cap: KvCapacity, r: Resolved, rules: VllmRules, retry: Retry | None,
              tp: int, gpu=None) -> tuple[Verdict, str]:
    msg = too_long_message(max_model_len=r.max_model_len, needed=cap.needed, available=budget.available,
                           estimated=cap.estimated_max_model_len, tokens=cap.tokens, rules=rules)
    fixes = _fixes(retry, budget, total, r, rules, tp, max_model_len=cap.estimated_max_model_len, gpu=gpu)
    fix = _override_fix(retry, cap) if budget.override else None
    fixes = fixes + [fix] if fix else fixes  # the user's own KV size, raised to hold one request
    return Verdict(fits=False, knob="--max-model-len", fixes=_flags(fixes),
                   message=f"vLLM will fail: {msg} {_how(fixes, budget, total, tp, gpu)}"), msg


def _mamba_blocks(budget: Budget, total: Bytes, cap: KvCapacity, r: Resolved, rules: VllmRules,
                  retry: Retry | None, tp: int, gpu=None) -> tuple[Verdict, str]:
    """More sequences than KV blocks for a model with mamba-family layers and FULL decode graphs (``VllmRules.
    mamba_blocks_check``): each decode sequence holds one mamba state block, so vLLM stops before the capture."""
    msg = mamba_blocks_message(max_num_seqs=r.max_num_seqs, num_blocks=cap.num_blocks)
    fixes = []
    if retry is not None and cap.num_blocks >= 1 and retry(max_num_seqs=cap.num_blocks):
        fixes.append((f"--max-num-seqs {cap.num_blocks}", f"--max-num-seqs {cap.num_blocks} or less"))
    util = _util_fix(retry, budget, total, r, rules, lower=False)
    if util is not None:
        fixes.append((f"--gpu-memory-utilization {util}", f"--gpu-memory-utilization {util}"))
    return Verdict(fits=False, knob="--max-num-seqs", fixes=_flags(fixes),
                   message=f"vLLM will fail: {msg} The KV pool holds {cap.num_blocks:,} blocks for "
                           f"--max-num-seqs {r.max_num_seqs}. {_how(fixes, budget, total, tp, gpu)}"), msg


def decide(budget: Budget, cap: KvCapacity, r: Resolved, rules: VllmRules, total: Bytes, *,
           retry: Retry | None = None, tp: int = 1, quantizable: bool = False,
           v0_room: Bytes | None = None, mamba_decode_graphs: bool = False, gpu=None) -> tuple[Verdict, str | None]:
    """The outcome of start-up for the limiting rank, and the error line vLLM would print (if any).

    ``retry``: the re-planner the fixes are checked with (None: name no fix; ``retry(gpu=GpuSpec)`` re-plans on
    another GPU, for the layout fixes of a MIG slice); ``gpu``: the GPU planned (``engines.layoutfix``); ``quantizable``: fp8 weights
    are a fix to try (the checkpoint is not quantised); ``mamba_decode_graphs``: the model has mamba-family layers
    and FULL decode CUDA graphs are captured (``VllmRules.mamba_blocks_check``: then more sequences than KV blocks
    stop the start)."""
    if budget.free_at_snapshot <= Bytes(0):
        return Verdict(fits=False, knob=None, message=(
            f"Nothing runs on this GPU: its {format_bytes(total)} is less than what the process takes before vLLM "
            f"loads anything (CUDA context and start-up costs: {format_bytes(total - budget.free_at_snapshot)}). "
            f"Use a GPU with more memory.")), load_oom_message().replace("while loading the model weights",
                                                                         "while creating the CUDA context")
    if rules.engine == "V1" and rules.memory_rule != "v0_peak" and not budget.extensible and \
            budget.free_at_snapshot < budget.requested:  # ≥ 0.34 extensible: request_memory skips the check
        return _startup(budget, total, r, rules, retry, tp, quantizable, gpu)
    if budget.weights > budget.free_at_snapshot:
        return _load_oom(budget, total, r, rules, retry, tp, quantizable, gpu)
    # V0 (no start-up check) releases the profile run's activation peak (gc.collect + torch.cuda.empty_cache: vllm
    # 0.2.4 profile_num_available_blocks, 0.6.3 determine_num_available_blocks, 0.8.3 utils.memory_profiling) before
    # the KV cache is allocated: what that allocation needs beside the weights and non-torch memory is the budget less
    # that peak, so only a budget above the free memory by more than the peak runs out of memory there (vl_071: 0.98
    # of 21.99 GiB allocated its KV cache on a card with ~0.6 GiB of CUDA context; helper rt16)
    released = Bytes(0) if rules.v0_torch_peak_only else budget.activation  # 0.2.0–0.2.4: not re-read here
    if v0_room is not None and budget.requested - released > v0_room:
        fixes = _fixes(retry, budget, total, r, rules, tp, lower=True, quantizable=quantizable, room=v0_room, gpu=gpu)
        return Verdict(fits=False, knob="--gpu-memory-utilization", fixes=_flags(fixes), message=(
            f"vLLM V0 sizes its budget as total × {r.utilization} = {format_bytes(budget.requested)}; less the "
            f"activation peak it releases before the KV cache is allocated ({format_bytes(released)}) that "
            f"is more than the {format_bytes(v0_room)} free after the CUDA context and other processes: the KV cache "
            f"allocation runs out of memory. {_how(fixes, budget, total, tp, gpu)}")), load_oom_message().replace(
                "while loading the model weights", "while allocating the KV cache")
    if budget.available <= Bytes(0) or cap.num_blocks == 0:
        return _no_memory(budget, total, cap, r, rules, retry, tp, quantizable, gpu)
    if not cap.fits:
        return _too_long(budget, total, cap, r, rules, retry, tp, gpu)
    if mamba_decode_graphs and rules.mamba_blocks_check and r.max_num_seqs > cap.num_blocks:
        return _mamba_blocks(budget, total, cap, r, rules, retry, tp, gpu)
    if budget.override:
        spare = override_spare(budget)
        if spare < Bytes(0):
            return Verdict(fits=False, knob="--kv-cache-memory-bytes",
                           message=f"--kv-cache-memory-bytes exceeds the free memory by {format_bytes(-spare)}: "
                                   f"expect CUDA out-of-memory; lower it by at least that much."), None
    return Verdict(fits=True, message=f"fits: {cap.tokens:,} KV tokens per rank ({cap.num_blocks:,} blocks), "
                                      f"{cap.max_concurrency:.2f}× requests of {r.max_model_len:,} tokens"), None
