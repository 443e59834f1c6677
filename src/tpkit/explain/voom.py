"""vLLM's CUDA out-of-memory errors at a step outside the KV pool's sizing: the weights' load, the CUDA graphs'
profiling or capture, and the first requests after start-up (split out of ``explain.vdiagnose``, helper cr31,
2026-12-07: the torch OOM's asked / free sizes and the fixes each step allows)."""

from __future__ import annotations

import math

from tpkit.explain.diagnose import Fix, bytes_text, fp8_could_halve_weights
from tpkit.explain.interval import mid_bytes
from tpkit.units import GiB

__all__ = ["first_request_failure", "graph_failure", "oom_short", "weights_failure", "POOL_ALLOCATION",
           "pool_alloc_failure"]

POOL_ALLOCATION = ("_allocate_kv_cache", "initialize_kv_cache_tensors")
"""the frames that allocate a KV cache vLLM has already sized: V1 ``GPUModelRunner.initialize_kv_cache_tensors`` ->
``_allocate_kv_cache_tensors`` (``torch.zeros`` of each tensor of the ``KVCacheConfig`` that ``get_kv_cache_configs``
sized from the profiled available memory; v1/worker/gpu_model_runner.py, 0.20.0, 0.22.0 and 0.29.0 wheels), V0
``CacheEngine._allocate_kv_cache`` (``num_gpu_blocks`` from ``determine_num_available_blocks``; worker/
cache_engine.py, 0.10.1 wheel) (round ex32: vllm#42147)"""


def _vreplan():
    """``explain.vreplan``, imported where a re-planned fix is offered (``tpkit explain``'s cold start)."""
    from tpkit.explain import vreplan

    return vreplan


def _lower_utilisation(u, total, short, avail, tokens_for, *, why: str) -> list[Fix]:
    """A lower ``--gpu-memory-utilization`` that leaves the shortfall plus 1 GiB outside vLLM's budget (vLLM's 0.01
    grid), with the KV tokens the same anchors give at it; none when it is unknown or would reach 0."""
    if not total or u is None or short is None:
        return []
    u2 = math.floor((u - (short.bytes + GiB(1).bytes) / total) * 100) / 100
    if u2 <= 0:
        return []
    return [Fix(flags=f"--gpu-memory-utilization {u2:.2f}",
                kv_tokens=tokens_for((avail or 0) - int((u - u2) * total)) if avail else None,
                fits=avail is None or avail - (u - u2) * total > 0, why=why)]


def oom_short(failure):
    """A CUDA OOM's asked − free when both are printed, else None."""
    req, free = failure.size("requested"), failure.size("free")
    return req.value - free.value if failure.kind == "cuda_oom" and req and free else None


def _oom_sizes(failure):
    """(asked, free, short): the OOM's printed request and free memory (None when not printed) and ``oom_short``."""
    return failure.size("requested"), failure.size("free"), oom_short(failure)


def graph_failure(failure, a, tokens_for):
    """Out of memory in the CUDA-graph profiling or capture: (cause, short, fixes)."""
    req, free, short = _oom_sizes(failure)
    total = mid_bytes(a.total)
    avail = mid_bytes(a.available)
    # vLLM ≥ 0.2x profiles the graphs inside determine_available_memory (gpu_model_runner.profile_cudagraph_memory,
    # read in 0.29.0 and 0.30.0), before the KV cache is sized; the capture itself runs after it
    estimate = "profile_cudagraph" in failure.phase_evidence
    if estimate:
        cause = ("out of memory in vLLM's CUDA-graph memory profiling (profile_cudagraph_memory inside "
                 "determine_available_memory, before the KV cache is sized: neither --max-model-len nor "
                 "--gpu-memory-utilization changes what it allocates)")
    else:
        cause = "out of memory while capturing CUDA graphs"
    if short is not None:
        cause += f" (asked for {req.text}, {free.text} free)"
    fixes = [Fix(flags="--enforce-eager", kv_tokens=a.tokens_printed, fits=True,
                 why="no CUDA graphs are captured (slower decode)"
                 + ("; the CUDA-graph profiling is skipped too" if estimate else ""))]
    if not estimate:
        fixes += _lower_utilisation(a.utilization, total, short, avail, tokens_for,
                                    why="leaves more of the device outside vLLM's budget for the graphs")
    return cause, short, fixes


def weights_failure(failure, ctx, a=None):
    """Out of memory loading the weights: (cause, short, fixes) — twice the TP size, fp8 weights where the weights
    are 16-bit (``fp8_could_halve_weights``, the test the KV-pool diagnosis applies: a checkpoint the log or the
    model config shows quantized has no 16-bit weights to halve; an FP8 Qwen3-235B-A22B checkpoint was offered
    '--quantization fp8' before helper crash9, 2026-12-05, docs/accuracy.md §7.3)."""
    tp = int(ctx.get("tp", 1) or 1)
    req, free, short = _oom_sizes(failure)
    cause = "out of memory while loading the weights" + (f" (asked for {req.text}, {free.text} free)" if short else "")
    fixes = [_vreplan().tp_fix(a, ctx, why="half the weights per GPU", fallback=Fix(
        flags=f"--tensor-parallel-size {2 * tp}", kv_tokens=None, fits=True, why="half the weights per GPU"))]
    if fp8_could_halve_weights(ctx):
        fixes.append(_vreplan().layout_fix(a, ctx, flags="--quantization fp8", tp=tp, quantization="fp8",
                                 why="fp8 weights are half of 16-bit", fallback=Fix(
                                     flags="--quantization fp8", kv_tokens=None, fits=True,
                                     why="fp8 weights are half of 16-bit", note="assumes 16-bit weights")))
    return cause, short, fixes


def first_request_failure(failure, a, tokens_for):
    """Out of memory after start-up: (cause, short, fixes) — a lower utilisation leaves room for activations."""
    req, free, short = _oom_sizes(failure)
    total = mid_bytes(a.total)
    avail = mid_bytes(a.available)
    cause = "out of memory after start-up (first requests)"
    if short is not None:
        cause += f": asked for {req.text}, {free.text} free (short by {bytes_text(short)})"
    fixes = _lower_utilisation(a.utilization, total, short, avail, tokens_for,
                               why="leaves room outside vLLM's budget for the activations")
    return cause, short, fixes


def pool_alloc_failure(failure, a, tokens_for):
    """Out of memory allocating a KV cache vLLM had already sized (``POOL_ALLOCATION``): (cause, short, fixes).

    The pool's size is the profile's available memory, so at allocation that much was not free: memory another
    process took after the profile, or a term the profile did not see.  The pool is too large, not too small: a
    lower utilization shrinks it by Δu × total (``_lower_utilisation``: the shortfall plus 1 GiB), which a smaller
    profile run, more of the device or more GPUs would not do."""
    req, free, short = _oom_sizes(failure)
    total = mid_bytes(a.total)
    cause = ("out of memory allocating the KV cache vLLM had sized: the memory its profile found for the pool was "
             "not free at allocation (another process took memory after the profile, or a term the profile missed)")
    if short is not None:
        cause += f": asked for {req.text}, {free.text} free (short by {bytes_text(short)})"
    fixes = _lower_utilisation(a.utilization, total, short, mid_bytes(a.available), tokens_for,
                               why="a smaller KV cache: the pool shrinks by Δu × total, more than the shortfall")
    return cause, short, fixes
