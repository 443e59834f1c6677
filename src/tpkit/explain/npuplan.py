"""What ``tpkit explain`` plans for an out-of-memory on an Ascend NPU (torch_npu's 'NPU out of memory'), from the
engines' NPU memory paths (helper np37, 2026-12-07, issue 12; docs/accuracy.md §7.3 round np37).  Memory only: no
CUDA-graph, NCCL or custom all-reduce term is used, and a fix is planned only where the engine's NPU path applies
its memory flag as on CUDA and the log prints what the fix is re-planned from; else the refusal says in one line
what is missing.

Facts read (engine sources, not copied):

- vLLM-Ascend's NPU worker (``vllm_ascend/worker/worker_v1.py`` ``NPUWorker.determine_available_memory``, tags
  v0.11.0rc0 and v0.11.0): the KV cache is total × ``gpu_memory_utilization`` − the profile run's peak
  (``torch_npu.npu.memory_stats`` 'allocated_bytes.all.peak' of ``profile_run``, a ``_dummy_run`` of max_num_tokens
  with prefill, plus the non-torch memory ``mem_get_info`` shows then, e.g. HCCL buffers); the ACL graphs are
  captured afterwards (``compile_or_warm_up_model`` → ``capture_model``), outside that budget.  So, as on CUDA
  (``explain.voom._lower_utilisation``), a utilization lower by Δu allocates a KV cache smaller by Δu × total and
  leaves that much more free while serving; the fit needs the cache's own size (vLLM-Ascend prints 'Available
  memory: N, total memory: M' at INFO, read by ``logs.ascendmem`` since round fx38) and its bytes per token, which
  the round trip re-plans the smaller cache's tokens from.
- SGLang's NPU back end (0.5.10.post1 wheel): the pool is sized by the shared ``profile_max_num_token``
  (``model_runner_kv_cache_mixin.py``): rest = free after the weights − pre-load free × (1 − mem_fraction_static),
  free memory read by ``torch.npu.mem_get_info`` (``utils.common.get_available_gpu_memory``, device 'npu'), tokens
  = rest / the cell of the layers the pool holds; the NPU pool then allocates K and V of all its layers as one tensor
  (``hardware_backend/npu/memory_pool_npu.py`` ``NPUMHATokenToKVPool._create_buffers``).  So the fraction means on an
  NPU what it means on CUDA, and a fix needs the run's fraction and pre-load free memory ('Load weight begin. avail
  mem=…'); and since rest ≤ the free memory after the weights for any fraction ≤ 1 (the mamba pool of a hybrid
  model is carved from rest and allocated first), a pool allocation larger than the free memory the OOM prints
  cannot come from that sizing where the pool allocates the cell it profiled (0.5.9, whose line numbers
  gpustack#4761's traceback shows, and 0.5.10.post1 size the hybrid NPU pool with the full-attention layers both
  ways): something the rule does not read sized it, and a lower fraction is not shown to help.
"""

from __future__ import annotations

__all__ = ["npu_catalog_words", "npu_vllm_diagnosis", "npu_vllm_missing", "npu_sglang_missing", "npu_refusal",
           "npu_sglang_fraction"]

REFUSAL = "tpkit does not plan this hardware's fix from this log"
"""The refusal's words (tests/explain/test_explain_corpus.py UNPLANNED_HARDWARE reads 'tpkit does not plan this
hardware')."""

_VLLM_RULE = ("vLLM-Ascend's NPU worker sizes the KV cache as vLLM's V1 does: total × --gpu-memory-utilization − the "
              "profile run's peak (non-torch memory such as HCCL buffers included), the ACL graphs captured after it "
              "(vllm_ascend/worker/worker_v1.py determine_available_memory, v0.11.0rc0 and v0.11.0), so a lower "
              "utilization leaves Δu × total more free while serving")


def npu_catalog_words(failure) -> str:
    """'; the printed 60.96 GiB total is the catalog's Ascend-910B-64GB (…)' where one NPU's band holds the OOM's
    printed total, else ''."""
    from tpkit.hardware.npu import npu_by_total

    total = failure.size("total")
    npu = npu_by_total(total.value if total is not None else None)
    return f"; the printed {total.text} total is the catalog's {npu.words()}" if npu else ""


def npu_vllm_diagnosis(failure, device: str, a, ctx, tokens_for, texts: str):
    """(cause, short, fixes) for a vLLM-Ascend OOM while serving (phase first_request) on an Ascend NPU: the lower
    utilization re-planned as on CUDA (``explain.voom.first_request_failure``: a fit only where the log prints the
    KV cache's memory, else a suggestion that says what is missing); None for any other phase or device (the
    refusal stands)."""
    if "NPU" not in device or failure.phase != "first_request" or a is None:
        return None
    from tpkit.explain.voom import first_request_failure

    cause, short, fixes = first_request_failure(failure, a, tokens_for, ctx=ctx, texts=texts)
    cause = cause.replace("out of memory after start-up (first requests)",
                          f"out of memory after start-up (first requests) on {device}{npu_catalog_words(failure)}", 1)
    cause = f"{cause}; {_VLLM_RULE}"
    if not any(f.fits for f in fixes):
        from tpkit.explain.npuascend import missing_for_fit  # helper fx38: the reader takes the line now

        cause += missing_for_fit(a)
    return cause, short, list(fixes)


def npu_sglang_missing(failure, plan=None) -> str:
    """The one line that says what an SGLang NPU OOM's fix would need and the log lacks (the refusal stands)."""
    req, free = failure.size("requested"), failure.size("free")
    if "_create_buffers" in (failure.phase_evidence or "") and req is not None and free is not None \
            and req.value.bytes > free.value.bytes:  # the pool's own allocation (memory_pool_npu._create_buffers)
        return (f"{REFUSAL}: the pool's {req.text} exceeds the {free.text} free after the weights, which SGLang's "
                "sizing (rest = free after the weights − pre-load free × (1 − mem_fraction_static), shared with the "
                "NPU back end) cannot give for a fraction ≤ 1 where the pool allocates the cell it profiled: the pool "
                "was not sized as the fraction rule reads (an allocated cell or layer count the profile did not "
                "count, or a fraction above 1), so a lower fraction is not shown to help (sgl-project/sglang#19781 "
                "fixes an NPU OOM deploying Qwen3.5 on an A2); missing: the pool's token count and cell (not "
                "printed) to size a --max-total-tokens that fits")
    if failure.phase != "first_request":
        return (f"{REFUSAL}: SGLang's fraction fix on an NPU is planned for an OOM while serving; this one is in "
                f"{failure.phase or 'an unplaced step'}, whose NPU-side terms (NPU graph capture, HCCL buffers) "
                "tpkit has not read")
    lacks = [w for w, have in (("the run's fraction", plan is not None and plan.f is not None),
                               ("its pre-load free memory ('Load weight begin. avail mem=…')",
                                plan is not None and bool(plan.pre))) if not have]
    return (f"{REFUSAL}: SGLang's NPU back end applies --mem-fraction-static as on CUDA (the shared "
            "profile_max_num_token, free memory from torch.npu.mem_get_info), but the log prints "
            + (f"neither {lacks[0]} nor {lacks[1]}" if len(lacks) == 2 else f"no {lacks[0]}" if lacks else
               "no shortfall a lower fraction covers")
            + " to re-plan a lower fraction from, and a catalog plan has no NPU rules")


def npu_vllm_missing(failure) -> str:
    """The one line for a vLLM-Ascend OOM outside serving (the refusal stands)."""
    where = failure.phase or "an unplaced step"
    return (f"{REFUSAL}: vLLM-Ascend's utilization rule is read for an OOM while serving (first requests); this one "
            f"is in {where}, whose NPU path (the plug-in's own model runner, ACL graphs, HCCL buffers) tpkit has not "
            "read")


def npu_refusal(failure, engine: str, plan=None) -> str:
    """'; <catalog words>; <the refusal and what is missing>' for an NPU OOM that is not planned."""
    line = npu_sglang_missing(failure, plan) if engine == "sglang" else npu_vllm_missing(failure)
    return f"{npu_catalog_words(failure)}; {line}"


def npu_sglang_fraction(failure, plan) -> list:
    """The lower ``--mem-fraction-static`` for an SGLang OOM while serving on an NPU, re-planned from the log's own
    pre-load free memory and fraction as on CUDA (``explain.sgdiagnose``'s first-request rule: (f − f2) × pre covers
    the OOM's asked − free plus half of ``diagnose.MARGIN``; ``BudgetReplan.fix`` re-plans the pool at f2 from the
    log's anchors); [] where the phase is another, the shortfall or either anchor is not printed, or f2 ≤ 0."""
    from tpkit.explain.diagnose import MARGIN, oom_sizes

    short = oom_sizes(failure)[3]
    if plan is None or failure.phase != "first_request" or short is None or short.bytes <= 0 or not plan.pre \
            or plan.f is None:
        return []
    f2 = plan.flag(plan.f - (short.bytes + MARGIN.bytes // 2) / plan.pre, up=False)
    if f2 <= 0:
        return []
    return [plan.fix(f"--mem-fraction-static {f2:.2f}", "more slack for activations: SGLang's NPU back end sizes "
                     "the pool from the fraction as on CUDA, so the pool shrinks by (f − f2) × the pre-load memory",
                     fraction=f2)]
