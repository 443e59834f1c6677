"""vLLM diagnosis: the failed phase, the shortfall and fixes re-planned from the log's anchors (requested, non-KV
memory, available KV, bytes per token); the shared types and rules are ``explain.diagnose``."""

from __future__ import annotations

import math
from functools import partial

from tpkit.explain.diagnose import (MAX_FRACTION, SUGGESTION, Diagnosis, Fix, bytes_text, kv_heads_shard,
                                   fp8_could_halve_weights, capture_error_not_memory, custom_allreduce_fix, failure_texts)
from tpkit.explain.interval import mid_bytes
from tpkit.explain.refusals import REFUSED
from tpkit.explain.vtokens import log_rules
from tpkit.explain.voom import (POOL_ALLOCATION, first_request_failure, graph_failure, oom_short, unshown,
                                pool_alloc_failure, weights_failure, with_freed_card)
from tpkit.units import Bytes, GiB, MiB

__all__ = ["diagnose_vllm"]


def _release(version: str | None) -> tuple[int, int] | None:
    """(major, minor) of the oldest release the version text names (``logs.engine.releases_in``: a PEP 440 local
    label such as '+faa43dbf.nv26.01' is not a release); None when it names none."""
    from tpkit.logs.engine import releases_in

    found = releases_in(version)
    if not found:
        return None
    major, minor = found[0].split(".")[:2]
    return int(major), int(minor)


def _pp_check_rule(version: str | None) -> str:
    """How vLLM checks one max_model_len request against the KV memory under pipeline parallelism.

    ``vllm/v1/core/kv_cache_utils.get_kv_cache_configs``: up to 0.16 (read in 0.15.1 and 0.16.0) the check takes
    ``min(available_memory)`` over the workers against the KV of every layer of the model (the merged groups);
    from 0.17 (read in 0.17.0, 0.18.0, 0.22.0, 0.29.0, 0.30.0) each worker is checked against its own stage's
    layers.  Either way the tightest stage decides the KV cache of all stages."""
    rel = _release(version)
    if rel is not None and rel <= (0, 16):
        return (f"vLLM {version} (≤ 0.16) checks the smallest worker's available KV memory against the KV cache of "
                "all layers, not of that worker's stage (kv_cache_utils.get_kv_cache_configs)")
    if rel is not None:
        return (f"vLLM {version} (≥ 0.17) checks each worker against its own stage's layers; the tightest stage "
                "decides (kv_cache_utils.get_kv_cache_configs)")
    return ("the tightest pp stage decides (vLLM ≤ 0.16 checks the smallest worker's available KV memory against "
            "all layers; ≥ 0.17 each stage against its own layers)")


def diagnose_vllm(parsed, a, ctx) -> Diagnosis:
    """``a``: :class:`~tpkit.explain.vllm.VllmAnchored`."""
    failure = parsed.primary_failure
    if failure is None:
        return Diagnosis(status="ok", phase=None, cause="")
    phase = failure.phase
    ev = f"line {failure.line_no}: {failure.evidence[:160]}"
    tokens_for = partial(_tokens_for, a)
    findings: list[str] = []
    if failure.kind == "kv_too_small":
        cause, short, fixes = _kv_too_small(parsed, failure, a, ctx, tokens_for, findings)
        return Diagnosis(status="failed", phase=phase, cause=cause, short_by=short, evidence=ev,
                         fixes=_on_the_host(fixes, ctx, parsed), findings=tuple(findings))
    if (npu := _unplanned_device(failure, a, ctx, tokens_for, parsed)) is not None:  # an Ascend NPU / Intel XPU OOM (cr34c)
        cause, short, fixes = npu
    elif failure.kind == "startup_free_memory":
        cause, short, fixes = _startup_free_memory(failure, ctx, a)
    elif failure.kind == "cpu_kv_space":
        cause, short, fixes = _cpu_kv_space(failure)
    elif phase == "kv_pool" and failure.kind == "cuda_oom" and any(f in failure.phase_evidence for f in POOL_ALLOCATION):
        cause, short, fixes = pool_alloc_failure(failure, a, tokens_for, ctx)  # the sized pool's allocation (ex32)
    elif phase == "kv_pool" and (done := _profile_oom(parsed, a, ctx)) is not None:  # V0 profile run (rt23)
        cause, short, fixes = done
    elif phase == "kv_pool" and (done := _swap_space(failure, parsed, a)) is not None:  # V0 swap space (cr34c)
        cause, short, fixes = done
    elif phase == "kv_pool" or failure.kind in ("no_kv_memory", "kv_budget_non_positive"):
        cause, short, fixes = _no_kv_memory(a, ctx, tokens_for)
        if a.graph_estimate is not None:  # the applied CUDA-graph estimate (round ex37; imported then: cold start)
            from tpkit.explain.vgraphbudget import graph_budget
            cause, fixes = graph_budget(a, cause, fixes)
    elif phase == "cuda_graph" and (root := capture_error_not_memory(parsed)) is not None:
        cause = (f"CUDA-graph capture failed on an error that is not a lack of memory ({root}): a kernel or call in "
                 "the captured forward is not capturable; a lower --gpu-memory-utilization would not help")
        short, fixes = None, [*custom_allreduce_fix(f"{root}\n{failure_texts(parsed)}"), Fix(
            flags="--enforce-eager", kv_tokens=a.tokens_printed, fits=True,
            why="no CUDA graphs are captured (slower decode); the KV cache is unchanged")]
    elif phase == "cuda_graph":
        cause, short, fixes = graph_failure(failure, a, tokens_for, ctx)
    elif phase == "weights":
        cause, short, fixes = weights_failure(failure, ctx, a)
    elif phase == "first_request" and failure.kind == "cuda_oom":
        cause, short, fixes = first_request_failure(failure, a, tokens_for, ctx=ctx, texts=failure_texts(parsed))
    else:
        cause, short, fixes = f"{failure.kind.replace('_', ' ')}: {failure.detail or failure.evidence[:160]}", \
            oom_short(failure), custom_allreduce_fix(failure_texts(parsed))
        if fixes:  # a CUDACHECK exit places no step (round ex32: vllm#42609)
            cause += ": the custom all-reduce kernels failed, not a lack of memory"
    cause, fixes = with_freed_card(failure, a, ctx, cause, list(fixes))
    return Diagnosis(status="failed", phase=phase, cause=cause, short_by=short, evidence=ev,
                     fixes=_on_the_host(fixes, ctx, parsed))


def _on_the_host(fixes, ctx, parsed=None) -> tuple:
    """helper cr35b: a tp / pp fix held against the GPUs the log shows its host has (``explain.vhostgpus``); a
    utilization fix that starts from an assumed default says so (``_default_said``)."""
    from tpkit.explain.vhostgpus import checked_fixes

    return tuple(checked_fixes(_default_said(fixes, parsed, ctx), ctx, getattr(ctx, "host_shown", None)))


def _default_said(fixes, parsed, ctx) -> list:
    """``fixes``, each ``--gpu-memory-utilization`` fix noting the default it starts from where the log prints no
    utilization and dates no release (``explain.vllm.default_utilization``: the current rules' default assumed;
    helper fx35a)."""
    fixes = list(fixes)
    if parsed is None or ctx is None or ctx.get("mem_fraction") is not None:
        return fixes
    from tpkit.explain.vllm import default_utilization

    u, words, assumed = default_utilization(parsed, ctx, log_rules(ctx))
    if not assumed:
        return fixes
    said = f"from the default {u:.2f}: {words}"
    return [Fix(flags=f.flags, kv_tokens=f.kv_tokens, fits=f.fits, why=f.why,
                note=f"{f.note}; {said}" if f.note else said) if "--gpu-memory-utilization" in f.flags else f
            for f in fixes]


def _one_request(a, ctx, available: int | None, tp: int | None = None) -> tuple[bool, str]:
    """(whether ``available`` KV bytes hold one request of the run's max_model_len, the words when they do not):
    vLLM refuses to start otherwise (``explain.vrequest.longest_request``, vLLM's own estimate); (True, "") where
    the model, the length or the layout is unknown."""
    from tpkit.explain.vrequest import longest_request  # cr35c; here: explain's cold start

    longest, mml = longest_request(a, ctx, available, tp)
    if longest is None or longest >= mml:
        return True, ""
    return False, (f"vLLM refuses to start: one request of max_model_len {int(mml):,} does not fit (the longest that "
                   f"does is {longest:,}); lower --max-model-len too")


def _pool_tokens(a, ctx, available: int) -> int | None:
    """The tokens vLLM prints for ``available`` KV bytes (``explain.vtokens.pool_tokens``: the planner's unit, one
    hybrid's groups counted as vLLM counts them, helper fx35a), else the anchors' bytes per token."""
    from tpkit.explain.vtokens import pool_tokens  # here: explain's cold start

    tokens = pool_tokens(ctx, a, available)
    return tokens if tokens is not None else _tokens_for(a, available)


def _tokens_for(a, available: int | None, token_bytes=None) -> int | None:
    """The KV tokens ``available`` bytes hold at ``token_bytes`` per token (the anchors' by default), in whole
    blocks; None when either is unknown."""
    tb = token_bytes or a.token_bytes
    if available is None or not tb:
        return None
    return max(0, int(available // tb)) // a.block_size * a.block_size


class _KvNeed:
    """What vLLM's fit check printed: KV ``needed`` by one max_model_len request, KV memory ``have_b``, bytes per token
    ``tb``, the shortfall, vLLM's estimate ``est`` and (V0) ``kv_tokens``; a plain class (cold start, issue 12)."""

    __slots__ = ("needed", "have_b", "tb", "short", "est", "kv_tokens", "block_tokens", "low_end")

    def __init__(self, needed, have_b: int | None, tb: float | None, short: Bytes | None, est, kv_tokens,
                 block_tokens: int | None = None, low_end: int | None = None) -> None:
        self.needed, self.have_b, self.tb = needed, have_b, tb
        self.short, self.est, self.kv_tokens, self.block_tokens = short, est, kv_tokens, block_tokens
        self.low_end = low_end  # vLLM's estimate at the prints' pessimistic end (explain.vlowend, round fx37)


def _kv_too_small(parsed, failure, a, ctx, tokens_for, findings: list[str]):
    """One max_model_len request does not fit the KV cache: (cause, short, fixes); the pipeline-parallel check
    rule added to ``findings``."""
    needed, have = failure.size("needed"), failure.size("available")
    mml = failure.count("max_model_len")
    kv_tokens = failure.count("kv_tokens")
    avail = mid_bytes(a.available)
    short = tb = None
    if needed and mml:
        tb = needed.value.bytes / int(mml.value)
    have_b = have.value.bytes if have else avail
    if needed and have_b is not None:
        short = Bytes(needed.value.bytes - have_b)
        cause = (f"one request of max_model_len {mml.text if mml else '?'} needs {needed.text} of KV cache, "
                 f"{have.text if have else bytes_text(have_b)} is available: short by {bytes_text(short)}")
    elif mml and kv_tokens:
        cause = f"max_model_len {mml.text} is larger than the KV capacity of {kv_tokens.text} tokens (V0)"
        tb = a.token_bytes
        have_b = avail
    else:
        cause = "one request of max_model_len does not fit the KV cache"
    if needed and have_b is not None:
        cause += _pp_cause(parsed, ctx, findings)
    from tpkit.explain.vtokens import estimate_pins_available

    pinned = estimate_pins_available(a, failure)
    if pinned is not None:  # vLLM's estimate pins the available memory (and confirms the bytes per token)
        have_b, tb = pinned.mid.bytes, a.token_bytes
    from tpkit.explain.vblockfit import estimate_block_tokens
    from tpkit.explain.vlowend import low_end_length

    need = _KvNeed(needed, have_b, tb, short, failure.count("estimated_max_len"), kv_tokens,
                   None if pinned is not None else estimate_block_tokens(failure, a.block_size),
                   low_end_length(failure, int(a.block_size or 16)) if pinned is None else None)
    return cause, short, _vr().per_stage_fixes(parsed, a, ctx, _kv_too_small_fixes(a, ctx, need, tokens_for))


def _pp_cause(parsed, ctx, findings: list[str]) -> str:
    """Under pipeline parallelism, how vLLM checks the request against the stages (``_pp_check_rule``) and the
    stages' different GPUs, as words for the cause (added to ``findings`` too); '' without pp."""
    pp = int(ctx.get("pp", 1) or 1)
    if pp <= 1:
        return ""
    stage = _pp_check_rule(ctx.version)
    cause = f"; {stage}"
    findings.append(f"pipeline parallel (pp {pp}): {stage}")
    gpus = list(getattr(parsed.run, "gpus_named", ()) or ())  # the GPU models the log names (nvidia-smi, an issue)
    if len(gpus) > 1:
        cause += f"; the stages run on different GPUs ({', '.join(gpus)}): imbalance across the pp stages"
        findings.append(f"different GPUs under pp ({', '.join(gpus)}): the smallest stage's free "
                        "memory limits the KV cache of every stage")
    return cause


def _kv_too_small_fixes(a, ctx, need: _KvNeed, tokens_for) -> list[Fix]:
    """A shorter --max-model-len (vLLM's estimate when printed), more of the device, an fp8 KV cache, twice the TP
    size."""
    tp = int(ctx.get("tp", 1) or 1)
    total = mid_bytes(a.total)
    u = a.utilization
    needed, have_b, tb, short = need.needed, need.have_b, need.tb, need.short
    fixes: list[Fix] = []
    # vLLM's estimate at a larger block size where the assumed block cannot give it (explain.vblockfit, ex36)
    tok_now = need.block_tokens or (tokens_for(have_b, tb) if have_b is not None else None)
    limit = int(need.est.value) if need.est else (int(need.kv_tokens.value) if need.kv_tokens
                                                  else need.low_end or tok_now)
    if limit:
        why = "the longest request the KV cache holds (vLLM's own estimate when printed)"
        fixes.append(_vr().reprofiled(a, ctx, {"max_model_len": limit}, why) or Fix(
            flags=f"--max-model-len {limit}", kv_tokens=tok_now if tok_now is not None else limit, fits=True, why=why))
    if short is not None and total and u is not None:
        u2 = math.ceil((u + (short.bytes + MiB(256).bytes) / total) * 100) / 100
        if u2 <= MAX_FRACTION:
            fixes.append(unshown(Fix(flags=f"--gpu-memory-utilization {u2:.2f}",
                                     kv_tokens=tokens_for(have_b + int((u2 - u) * total), tb), fits=True,
                                     why="more of the device for the KV cache (requested grows by Δu × total)"),
                                 _NOT_FREE))
    if not (needed and have_b is not None):
        return fixes
    kv = str(ctx.get("kv_cache_dtype", "auto")).lower()
    if "fp8" not in kv:
        fixes.append(Fix(flags="--kv-cache-dtype fp8", kv_tokens=tokens_for(have_b, tb / 2 if tb else None),
                         fits=needed.value.bytes / 2 <= have_b, why="an fp8 KV cache halves the bytes per token"))
    w = mid_bytes(a.weights)
    if w is not None:
        gain = w // 2
        ktb = (tb / 2 if kv_heads_shard(ctx.model, tp) else tb) if tb else None
        need2 = needed.value.bytes / (2 if kv_heads_shard(ctx.model, tp) else 1)
        why = "half the weights per GPU free room for the KV cache"
        fixes.append(_vr().tp_fix(a, ctx, why=why, fallback=unshown(Fix(
            flags=f"--tensor-parallel-size {2 * tp}", kv_tokens=tokens_for(have_b + gain, ktb),
            fits=need2 <= have_b + gain, why=why, note="weights scaled by 1/2"), _HALVED)))
    return fixes


_NOT_FREE = ("the device's free memory at start-up is not printed, and vLLM requires u × total free before it starts "
             "(a card another process shares fails that check)")
"""what a higher ``--gpu-memory-utilization`` needs to be shown to fit (round cr33c: it was called a fit on the
assumption that the device has the memory free)"""
_HALVED = ("the model or the GPU is not known, so the layout is not re-planned: halving the measured weights is a "
           "rule of thumb (replicated layers and the other terms do not halve)")


def _profile_oom(parsed, a, ctx):
    """``explain.vprofilefix.profile_oom_diagnosis`` (imported where a kv_pool failure is diagnosed)."""
    from tpkit.explain.vprofilefix import profile_oom_diagnosis
    return profile_oom_diagnosis(parsed, a, ctx)


def _unplanned_device(failure, a=None, ctx=None, tokens_for=None, parsed=None):
    """``explain.vdevice.unplanned_device_diagnosis``, imported only for a CUDA-style OOM or CANN's failed NPU capture
    begin (``explain.npugraph``, round ex36) (cold start)."""
    if failure.kind != "cuda_oom":
        from tpkit.logs.npucapture import PREFIX

        if not failure.detail.startswith(PREFIX):
            return None
    from tpkit.explain.vdevice import unplanned_device_diagnosis
    return unplanned_device_diagnosis(failure, a, ctx, tokens_for, failure_texts(parsed) if parsed else "")


def _swap_space(failure, parsed, a):
    """``explain.vswap.swap_space_failure`` (imported where a kv_pool failure is diagnosed)."""
    from tpkit.explain.vswap import swap_space_failure
    return swap_space_failure(failure, parsed, a)


def _vr():
    """``explain.vreplan``, imported where a re-planned fix is offered (``tpkit explain``'s cold start)."""
    from tpkit.explain import vreplan

    return vreplan


def _host_memory_read(ctx) -> bool | None:
    """On a unified-memory GPU (the catalog's ``unified_memory``): whether the run's vLLM took the host's
    MemAvailable as the free memory (``engines.unified.vllm_reads_host_available``: 0.11.1+); None on a discrete GPU
    or when the release is not known."""
    gpu = getattr(ctx, "gpu", None)
    if not getattr(gpu, "unified_memory", False):
        return None
    from tpkit.engines.unified import vllm_reads_host_available
    from tpkit.engines.vllm.versions import resolve_rules

    try:
        release = resolve_rules(ctx.version).release if ctx.version else None
    except REFUSED:  # an unreadable printed version: say nothing about the release
        release = None
    return None if release is None else vllm_reads_host_available(release, gpu)


def _after_the_check(a, ctx, fix: Fix, u2: float) -> Fix:
    """A utilization fix that passes vLLM's start-up free-memory check, with what follows the check: the run at
    ``--gpu-memory-utilization u2`` planned by the function ``tpkit plan --from-log LOG --gpu-memory-utilization
    u2`` takes its numbers from (``explain.vreplan.layout_fix`` at the log's layout: the log measured nothing
    before the check, so the weights, the profile and the start-up terms are the planner's): its KV tokens, and a
    fit only where the check passes and that pool holds a token (vl_115: 0.16 × 93 GiB passes the check, and
    Qwen3-14B's weights alone exceed it).  The fix as it was where the model or the GPU is not known."""
    planned = _vr().layout_fix(a, ctx, flags=fix.flags, tp=int(ctx.get("tp", 1) or 1),
                               quantization=_vr().log_quantization(ctx), why=fix.why, fallback=None,
                               changes={"gpu_memory_utilization": u2})
    if planned is None:
        return fix
    if planned.note.startswith(SUGGESTION):  # the plan fits only short of the band's pessimistic end (vcatalogfit)
        return Fix(flags=fix.flags, kv_tokens=planned.kv_tokens, fits=False, why=fix.why,
                   note=f"{planned.note}; the utilization passes the start-up check")
    fits = fix.fits and planned.fits and bool(planned.kv_tokens)
    after = (f"passes the start-up check; after it, planned from the catalog (the log measured nothing before the "
             f"check): {planned.kv_tokens:,} KV tokens, " + ("fits" if fits else "does not fit"))
    return Fix(flags=fix.flags, kv_tokens=planned.kv_tokens, fits=fits, why=fix.why, note=f"{after}; {planned.note}")


def _startup_free_memory(failure, ctx=None, a=None):
    """Free memory at start-up below u × total: (cause, short, fixes) — a utilisation that fits the free memory,
    or free the GPU.  On a unified-memory GPU (GB10, Jetson Thor / Orin) the free memory is the host's: from vLLM
    0.11.1 its MemAvailable (``utils/mem_utils.py`` ``MemorySnapshot.measure``, ``engines.unified``), so the
    memory to free is host memory (other programs, containers, another engine), and the page cache is already
    counted as free; before 0.11.1 cudaMemGetInfo's free, which the page cache lowers."""
    short = u_passes = None  # u_passes: the utilization that passes the check (helper cr19: the offload fix)
    fixes: list[Fix] = []
    free, tot, req = failure.size("free"), failure.size("total"), failure.size("requested")
    host = _host_memory_read(ctx) if ctx is not None else None
    if host:
        cause = ("the host's available memory (MemAvailable, which vLLM 0.11.1+ reads as the free memory of a "
                 f"unified-memory {ctx.gpu.name}) is below gpu_memory_utilization × total at start-up: other programs, "
                 "containers or another engine hold host memory")
    elif host is False:
        cause = (f"free device memory at start-up is below gpu_memory_utilization × total: on a unified-memory "
                 f"{ctx.gpu.name} this vLLM reads cudaMemGetInfo's free, which leaves out the page cache")
    else:
        cause = "free device memory at start-up is below gpu_memory_utilization × total (another process holds memory)"
    if free and req:
        short = req.value - free.value
        cause += f": {free.text} free, {req.text} requested"
    if free and tot:
        u2 = math.floor((free.value.bytes - MiB(512).bytes) / tot.value.bytes * 100) / 100
        if u2 > 0:
            u_passes = u2
            fix = Fix(flags=f"--gpu-memory-utilization {u2:.2f}", kv_tokens=None, fits=u2 > 0.05,
                      why=f"requested {u2:.2f} × {tot.text} ≤ the {free.text} free",
                      note="KV tokens depend on the non-KV memory, not measured before this check")
            fixes.append(_after_the_check(a, ctx, fix, u2) if a is not None and ctx is not None else fix)
    if host:
        need = f"the check passes once free -b shows {req.text} available: " if req else ""
        fixes.append(Fix(flags="stop other programs or containers on the host (free -b: 'available')", kv_tokens=None,
                         fits=True, why=f"{need}the host's MemAvailable is the free memory here; nvidia-smi does not "
                         "list host memory, and dropping the page cache does not raise MemAvailable"))
    elif host is False:
        fixes.append(Fix(flags="sync; echo 3 | sudo tee /proc/sys/vm/drop_caches (or stop other programs)",
                         kv_tokens=None, fits=True, why="the page cache counts as used in cudaMemGetInfo's free "
                         "on unified memory before vLLM 0.11.1"))
    else:
        fix = Fix(flags="free the other process's memory (nvidia-smi) or CUDA_VISIBLE_DEVICES=<idle GPU>",
                  kv_tokens=None, fits=True, why="the whole requested memory becomes free")
        fixes.append(free_card := _on_a_free_card(a, ctx, fix) if a is not None and ctx is not None else fix)
        cause = _vr().more_gpus(a, ctx, cause, fixes, free_card is not fix, utilization=u_passes)  # cr17: vgpus
    return cause, short, fixes


def _on_a_free_card(a, ctx, fix: Fix) -> Fix:
    """The advice to free the GPU, with what follows the check once it passes: the run at the log's own settings
    planned as ``tpkit plan --from-log LOG`` plans it (``explain.vreplan.layout_fix`` at the log's layout and
    utilization; the log measured nothing before the check).  A fit only where that plan fits: freeing the card does
    not help a model whose weights alone exceed it (vl_225: Qwen3.6-35B-A3B bf16, 65.5 GiB of weights, on an
    11.49 GiB card).  The advice as it was where the model or the GPU is not known."""
    planned = _vr().layout_fix(a, ctx, flags=fix.flags, tp=int(ctx.get("tp", 1) or 1),
                               quantization=_vr().log_quantization(ctx), why=fix.why, fallback=None)
    if planned is None:
        return fix
    if planned.note.startswith(SUGGESTION):  # the plan fits only short of the band's pessimistic end (vcatalogfit)
        return Fix(flags=fix.flags, kv_tokens=planned.kv_tokens, fits=False, why=fix.why,
                   note=f"{planned.note}; with the card free")
    if planned.fits and planned.kv_tokens:
        return Fix(flags=fix.flags, kv_tokens=planned.kv_tokens, fits=True, why=fix.why,
                   note=f"with the card free, the plan of the log's settings holds {planned.kv_tokens:,} KV tokens")
    return Fix(flags=fix.flags, kv_tokens=planned.kv_tokens, fits=False, why=fix.why,
               note="with the card free the run still does not fit (planned from the catalog, the log measured "
                    f"nothing before the check): {planned.note.rsplit('; the plan: ', 1)[-1]}; a GPU with more "
                    "memory, more GPUs or a smaller or quantized checkpoint would")


def _cpu_kv_space(failure):
    """vLLM's CPU backend refused the KV space set explicitly (``logs.failures._CPU_KV``: cpu_worker.py
    ``determine_available_memory`` raises when --kv-cache-memory-bytes / VLLM_CPU_KVCACHE_SPACE exceeds the NUMA node's
    available host memory): (cause, short, fixes) — a KV space the node holds. VLLM_CPU_KVCACHE_SPACE is read in whole
    GiB (``platforms/cpu.py``), so the fix is the largest whole GiB below the available memory less a 0.5 GiB margin
    for the host allocations that follow; none when that is < 1 GiB (free host memory instead). GPU flags (tensor
    parallelism, fp8 weights, the profile run) do not touch this check."""
    free, total, req = failure.size("free"), failure.size("total"), failure.size("requested")
    cause = "the CPU backend's KV space (--kv-cache-memory-bytes / VLLM_CPU_KVCACHE_SPACE) exceeds the node's available host memory"
    if free is None or req is None:
        return cause, None, []
    cause += f": {req.text} asked, {free.text} available" + (f" of {total.text}" if total else "")
    short = req.value - free.value
    fixes: list[Fix] = []
    space = math.floor((free.value.bytes - MiB(512).bytes) / 2**30)
    if space >= 1:
        fixes.append(Fix(flags=f"VLLM_CPU_KVCACHE_SPACE={space} (or --kv-cache-memory-bytes {space}G)", kv_tokens=None,
                         fits=True, why=f"{space} GiB ≤ the {free.text} available less 0.5 GiB for the host "
                                        "allocations after the KV cache",
                         note="KV tokens depend on the model's bytes per token; a max_model_len that needs more "
                              "than this space fails vLLM's next check (its estimate names the longest that fits)"))
    fixes.append(Fix(flags="free host memory (other processes, a larger container / VM memory limit)", kv_tokens=None,
                     fits=True, why=f"the requested {req.text} becomes available"))
    return cause, short, fixes


def _no_kv_memory(a, ctx, tokens_for):
    """No memory left for the KV cache: (cause, short, fixes) — more of the device, half the weights (tp, fp8), a
    smaller profile run."""
    tp = int(ctx.get("tp", 1) or 1)
    total = mid_bytes(a.total)
    u = a.utilization
    avail = mid_bytes(a.available)
    short = None
    fixes: list[Fix] = []
    cause = "no memory left for the KV cache after the weights, activations and non-torch memory"
    bound = ""
    if avail is None and a.requested is not None and a.weights is not None:
        # 'Available KV cache memory' not printed (the run stopped first): it is at most requested − the weights
        # (the profile's activation peak and non-torch memory come on top), not 0 (vl_107: the weights alone,
        # 14.19 GiB, exceed the requested 10.83 GiB, and a utilization fix from 0 available was called a fit)
        avail = mid_bytes(a.requested) - mid_bytes(a.weights)
        bound = ("'Available KV cache memory' is not printed: taken as requested − the weights, an upper bound "
                 "(the activation peak and non-torch memory come on top)")
        if avail <= 0:
            cause += f" (the weights {a.weights.text()} exceed the requested {a.requested.text()})"
    if avail is not None and avail <= 0:
        short = Bytes(-avail)
        if not bound:
            cause += f" (available KV cache memory {a.available.text()})"
    if total and u is not None:
        need = (short.bytes if short else 0) + GiB(2).bytes
        u2 = math.ceil((u + need / total) * 100) / 100
        room = (avail or 0) + int((u2 - u) * total)
        one, words = _one_request(a, ctx, room)
        while not one and u2 + 0.01 <= MAX_FRACTION + 1e-9:  # up to the utilization that holds one request
            u2 = round(u2 + 0.01, 2)
            room = (avail or 0) + int((u2 - u) * total)
            one, words = _one_request(a, ctx, room)
        if u2 <= MAX_FRACTION:
            fixes.append(unshown(Fix(flags=f"--gpu-memory-utilization {u2:.2f}", kv_tokens=_pool_tokens(a, ctx, room),
                                     fits=one, why="more of the device for vLLM",
                                     note="; ".join(x for x in (bound, words) if x)), _NOT_FREE))
    w = mid_bytes(a.weights)
    if w is not None:
        room = (avail or 0) + w // 2
        one, words = _one_request(a, ctx, room, 2 * tp)
        fixes.append(_vr().tp_fix(a, ctx, why="half the weights per GPU", fallback=unshown(Fix(
            flags=f"--tensor-parallel-size {2 * tp}", kv_tokens=tokens_for(room), fits=room > 0 and one,
            why="half the weights per GPU", note="; ".join(x for x in ("weights scaled by 1/2", bound, words) if x)),
            _HALVED)))
        if fp8_could_halve_weights(ctx):
            one, words = _one_request(a, ctx, room)
            why = "fp8 weights are half of 16-bit weights"
            fixes.append(_vr().layout_fix(a, ctx, flags="--quantization fp8", tp=tp, quantization="fp8", why=why,
                                     fallback=unshown(Fix(flags="--quantization fp8", kv_tokens=tokens_for(room),
                                                          fits=room > 0 and one, why=why, note="; ".join(
                                                      x for x in ("assumes 16-bit weights", bound, words) if x)),
                                                      _HALVED)))
    from tpkit.explain.vnoblocks import profile_fixes  # helper cr35c; here: explain's cold start

    return cause, short, fixes + profile_fixes(a, ctx)
