"""vLLM's CUDA out-of-memory errors at a step outside the KV pool's sizing: the weights' load, the CUDA graphs'
profiling or capture, and the first requests after start-up (split out of ``explain.vdiagnose``, helper cr31,
2026-12-07: the torch OOM's asked / free sizes and the fixes each step allows)."""

from __future__ import annotations

import math
import re

from tpkit.explain.diagnose import OTHERS_NEGLIGIBLE_FRACTION, Fix, bytes_text, fp8_could_halve_weights, unshown
from tpkit.explain.interval import mid_bytes
from tpkit.units import GiB

__all__ = ["first_request_failure", "graph_failure", "oom_short", "weights_failure", "unshown", "with_freed_card",
           "POOL_ALLOCATION", "pool_alloc_failure"]

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


def _lower_utilisation(u, total, short, avail, tokens_for, *, why: str, request=None) -> list[Fix]:
    """A lower ``--gpu-memory-utilization`` that leaves the OOM's own shortfall (asked − free, torch's figures)
    outside vLLM's budget, on vLLM's 0.01 grid, with the KV tokens the same anchors give at it; none when the
    shortfall is unknown or not positive (a free figure above the request does not measure it) or u would reach 0.
    A fit (class a) only where the log prints the KV cache's memory and the smaller pool still holds a token; else a
    suggestion.  Before round cr33c the rule added 1 GiB to the shortfall, a margin no source gives (round cr33b);
    the margin is gone: the printed shortfall is the one figure the log shows.  ``request`` (smaller pool bytes, fix ->
    fix: ``explain.vrequest.with_one_request``) checks the fit against vLLM's start-up check on one max_model_len
    request (round cr35c)."""
    if not total or u is None or short is None or short.bytes <= 0:
        return []
    u2 = math.floor((u - short.bytes / total) * 100 + 1e-9) / 100
    if u2 <= 0:
        return []
    tokens = tokens_for(avail - int((u - u2) * total)) if avail else None
    fix = Fix(flags=f"--gpu-memory-utilization {u2:.2f}", kv_tokens=tokens, fits=bool(tokens and tokens > 0),
              why=why + f" ({u:.2f} − {u2:.2f} = {u - u2:.2f} × total ≥ the {bytes_text(short)} short)")
    if fix.fits:
        return [request(fix, avail - int((u - u2) * total)) if request else fix]
    missing = ("the log prints no 'Available KV cache memory', so the smaller pool's tokens cannot be re-planned"
               if not avail else "the smaller pool holds no token" if tokens is not None else
               "the KV cache's bytes per token are not known (no model config, no 'GPU KV cache size' line), so the "
               "smaller pool's tokens cannot be re-planned")  # helper fx38: None is unknown, not an empty pool
    return [unshown(fix, missing)]


def oom_short(failure):
    """A CUDA OOM's asked − free when both are printed, else None."""
    req, free = failure.size("requested"), failure.size("free")
    return req.value - free.value if failure.kind == "cuda_oom" and req and free else None


def _oom_sizes(failure):
    """(asked, free, short): the OOM's printed request and free memory (None when not printed) and ``oom_short``."""
    return failure.size("requested"), failure.size("free"), oom_short(failure)


def graph_failure(failure, a, tokens_for, ctx=None):
    """Out of memory in the CUDA-graph profiling or capture: (cause, short, fixes); a lower utilization is checked
    against vLLM's start-up request check where ``ctx`` is given (``_one_request_check``, helper fx35a)."""
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
                                    why="leaves more of the device outside vLLM's budget for the graphs",
                                    request=_one_request_check(a, ctx))
    return cause, short, fixes


def weights_failure(failure, ctx, a=None):
    """Out of memory loading the weights: (cause, short, fixes) — twice the TP size, fp8 weights where the weights
    are 16-bit (``fp8_could_halve_weights``, the test the KV-pool diagnosis applies: a checkpoint the log or the model config
    shows quantized has no 16-bit weights to halve; an FP8 Qwen3-235B-A22B checkpoint was offered '--quantization
    fp8' before helper crash9, 2026-12-05, docs/accuracy.md §7.3).  The tp / fp8 fixes fit only as re-planned
    (``vreplan.layout_fix``); without the model or the GPU they are suggestions (``unshown``): the log prints one
    allocation, not the weights' size.  Planned from the catalog (the log measures no weights), a fix fits only at
    the band's pessimistic end, and only where the plan of the log's own settings reproduces the OOM
    (``vcatalogfit.not_reproduced``, helper cr34b)."""
    tp = int(ctx.get("tp", 1) or 1)
    req, free, short = _oom_sizes(failure)
    cause = "out of memory while loading the weights" + (f" (asked for {req.text}, {free.text} free)" if short else "")
    no_plan = ("the model or the GPU is not known, so the weights per GPU are not re-planned (the log prints one "
               "allocation)")
    fixes = [_vreplan().tp_fix(a, ctx, why="half the weights per GPU", fallback=unshown(Fix(
        flags=f"--tensor-parallel-size {2 * tp}", kv_tokens=None, fits=True, why="half the weights per GPU"), no_plan))]
    if fp8_could_halve_weights(ctx):
        fixes.append(_vreplan().layout_fix(a, ctx, flags="--quantization fp8", tp=tp, quantization="fp8",
                                 why="fp8 weights are half of 16-bit", fallback=unshown(Fix(
                                     flags="--quantization fp8", kv_tokens=None, fits=True,
                                     why="fp8 weights are half of 16-bit", note="assumes 16-bit weights"), no_plan)))
    from tpkit.explain.vcatalogfit import not_reproduced

    fixes, finding = not_reproduced(ctx, a, fixes) if any(f.fits for f in fixes) else (fixes, "")
    return cause + (f"; {finding}" if finding else ""), short, fixes


def other_processes(failure):
    """The memory torch's OOM message lists as other processes' (``other_processes``, ``logs.oommessage.oom_message``), where
    it is more than ``diagnose.OTHERS_NEGLIGIBLE_FRACTION`` of the device (a desktop's few MiB are not in the way);
    else None.  ``with_freed_card`` offers freeing it where it covers the OOM's shortfall (asked − free), or where
    torch's figures do not measure one (then as a suggestion past the weights)."""
    held, total = failure.size("other_processes"), failure.size("total")
    if failure.kind != "cuda_oom" or held is None:
        return None
    if total is not None and held.value.bytes <= OTHERS_NEGLIGIBLE_FRACTION * total.value.bytes:
        return None
    return held


def with_freed_card(failure, a, ctx, cause: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """(cause, fixes) with the other processes named and freeing them first (``freed_card_fix``) where the OOM
    line lists other processes' memory (round cr33c: a tenant the message names was left unnamed and layout
    fixes called fits on a card it holds); unchanged otherwise."""
    held = other_processes(failure)
    short = oom_short(failure)
    if held is None or (short is not None and short.bytes > held.value.bytes):
        return cause, fixes  # freeing them would not cover the shortfall
    cause += f"; other processes hold {held.text} of the device (torch's OOM message lists them)"
    return cause, [freed_card_fix(failure, held, a, ctx), *fixes]


def freed_card_fix(failure, held, a, ctx) -> Fix:
    """"free the other processes (X)" for an OOM whose message lists other processes' memory, re-planned on the
    memory the log then shows free (torch's free + X).  Past the weights (the run sized its pool with them there)
    it fits where that memory covers the failed allocation (the OOM line's own figures, as ``_lower_utilisation``);
    in the weights' load where the plan of the log's own settings fits (``vreplan.layout_fix``: the freed card is
    the empty card the planner assumes) — without the model or the GPU it is a suggestion (``unshown``): the log
    prints one allocation, not the weights' size."""
    free, asked = failure.size("free"), failure.size("requested")
    now_free = (free.value.bytes if free else 0) + held.value.bytes
    fix = Fix(flags=f"free the other processes ({bytes_text(held.value)}: {held.text}; nvidia-smi) or "
                    "CUDA_VISIBLE_DEVICES=<idle GPU>", kv_tokens=a.tokens_printed if a is not None else None,
              fits=True, why=f"torch's OOM message lists them: {bytes_text(now_free)} free instead of "
                             f"{free.text if free else 'the printed free memory'}")
    if failure.phase != "weights":
        if asked is None or free is None:
            return unshown(fix, "the OOM line does not print both the request and the free memory")
        if asked.value.bytes <= free.value.bytes:
            return unshown(fix, f"torch's free figure ({free.text}, read after the allocation and its retry failed) "
                                f"is above the {asked.text} asked, so the shortfall is not measured")
        return Fix(flags=fix.flags, kv_tokens=fix.kv_tokens, fits=True, why=fix.why,
                   note=f"the {asked.text} asked fits the {bytes_text(now_free)} then free; the log's KV cache holds")
    planned = None if a is None or ctx is None else _vreplan().layout_fix(
        a, ctx, flags=fix.flags, tp=int(ctx.get("tp", 1) or 1), quantization=_vreplan().log_quantization(ctx),
        why=fix.why, fallback=None)
    if planned is None:
        return unshown(fix, "the model or the GPU is not known, so the weights are not re-planned on the freed card")
    from tpkit.explain.vheldcard import held_accounts  # cr36b: the listed memory must be what stopped the run

    accounts, words = held_accounts(ctx, a, held) if planned.fits and planned.kv_tokens else (None, "")
    if accounts is False:
        return unshown(Fix(flags=fix.flags, kv_tokens=planned.kv_tokens, fits=True, why=fix.why,
                           note=f"the freed card planned at the log's settings; {planned.note}"), words)
    return Fix(flags=fix.flags, kv_tokens=planned.kv_tokens, fits=bool(planned.fits and planned.kv_tokens),
               why=fix.why, note=f"the freed card planned at the log's settings; {planned.note}")


def first_request_failure(failure, a, tokens_for, *, ctx=None, texts: str = ""):
    """Out of memory after start-up: (cause, short, fixes) — a lower utilisation leaves room for activations; for
    the sampler's warm-up (``texts``: the run's error lines), fewer sequences too (``sampler_warmup_fix``)."""
    from tpkit.explain.vrequest import pool_from_tokens  # cr35c; here: explain's cold start

    req, free, short = _oom_sizes(failure)
    total = mid_bytes(a.total)
    avail = mid_bytes(a.available) or (pool_from_tokens(a) if ctx is not None else None)
    cause = "out of memory after start-up (first requests)"
    if short is not None and short.bytes <= 0:
        cause += (f": asked for {req.text} with {free.text} free (torch reads the free figure once the allocation "
                  "and its retry have failed: more free than asked, so it does not measure the shortfall)")
    elif short is not None:
        cause += f": asked for {req.text}, {free.text} free (short by {bytes_text(short)})"
    fixes = _lower_utilisation(a.utilization, total, short, avail, tokens_for,
                               why="leaves room outside vLLM's budget for the activations",
                               request=_one_request_check(a, ctx))
    seqs = sampler_warmup_fix(failure, a, ctx, texts) if ctx is not None else None
    from tpkit.explain.vnonumbers import worded_cause  # round cr36c: no size printed, nothing offered

    fixes = fixes + ([seqs] if seqs else [])
    return worded_cause(cause, short, fixes, kv_printed=avail is not None), short, fixes


_SAMPLER_WARMUP = re.compile(r"occurred when warming up sampler with (\d+) dummy requests")


def sampler_warmup_fix(failure, a, ctx, texts: str) -> Fix | None:
    """``--max-num-seqs M`` for an OOM in vLLM's sampler warm-up, which its message names with its request count N.

    ``compile_or_warm_up_model`` runs ``_dummy_sampler_run`` on ``min(max_num_seqs, max_num_batched_tokens)`` dummy
    requests after the KV cache is allocated; the sampler turns their logits, one row of ``vocab_size`` per request,
    into float32 and works on tensors of that shape; on an OOM the runner raises "CUDA out of memory occurred when
    warming up sampler with N dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization`"
    (v1/worker/gpu_worker.py, v1/worker/gpu_model_runner.py ``_dummy_sampler_run``, v1/sample/sampler.py; 0.17.1
    wheel; the message also in 0.11.0, 0.20.0 and 0.33.0). The failed allocation scales with the requests (two logs:
    256 × 128,256 × 4 B = 125.25 MiB, torch's 126.00 MiB; 1,024 × 151,936 × 4 B = 593.5 MiB, 594.00 MiB), so
    M is the smaller of N/2 and the count at which that allocation fits what torch found free. The KV cache is
    re-planned where the profile batch moves (``vreplan.reprofiled``), else the log's holds."""
    m = _SAMPLER_WARMUP.search(texts or "")
    req, free = failure.size("requested"), failure.size("free")
    if m is None or req is None or free is None or req.value.bytes <= 0 or int(m.group(1)) < 2:
        return None
    n = int(m.group(1))
    seqs = max(1, min(n // 2, n * free.value.bytes // req.value.bytes))
    why = (f"the sampler's warm-up tensors scale with its {n} dummy requests (one float32 row of the vocabulary "
           f"each): {req.text} at {n}, {bytes_text(req.value.bytes * seqs // n)} at {seqs}")
    return _vreplan().reprofiled(a, ctx, {"max_num_seqs": seqs}, why) or Fix(
        flags=f"--max-num-seqs {seqs}", kv_tokens=a.tokens_printed, fits=True, why=why,
        note="the profile batch is the same: the log's KV cache holds")


def _one_request_check(a, ctx):
    """``_lower_utilisation``'s ``request``: ``explain.vrequest.with_one_request`` on the smaller pool (vLLM refuses to
    start unless one max_model_len request fits it; a shorter ``--max-model-len`` offered where the model is known),
    or None without the context.  Round cr35c applied it to the first-request path; the pool-allocation and capture
    paths lower the same pool (helper fx35a)."""
    if ctx is None:
        return None
    from tpkit.explain.vrequest import with_one_request  # here: explain's cold start

    return lambda fix, smaller: with_one_request(fix, a, ctx, smaller)


def pool_alloc_failure(failure, a, tokens_for, ctx=None):
    """Out of memory allocating a KV cache vLLM had already sized (``POOL_ALLOCATION``): (cause, short, fixes).

    The pool's size is the profile's available memory, so at allocation that much was not free: memory another
    process took after the profile, or a term the profile did not see.  The pool is too large, not too small: a
    lower utilization shrinks it by Δu × total (``_lower_utilisation``: at least the OOM's printed shortfall), which a smaller
    profile run, more of the device or more GPUs would not do."""
    req, free, short = _oom_sizes(failure)
    total = mid_bytes(a.total)
    cause = ("out of memory allocating the KV cache vLLM had sized: the memory its profile found for the pool was "
             "not free at allocation (another process took memory after the profile, or a term the profile missed)")
    if short is not None:
        cause += f": asked for {req.text}, {free.text} free (short by {bytes_text(short)})"
    fixes = _lower_utilisation(a.utilization, total, short, mid_bytes(a.available), tokens_for,
                               why="a smaller KV cache: the pool shrinks by Δu × total, at least the shortfall",
                               request=_one_request_check(a, ctx))
    return cause, short, fixes
