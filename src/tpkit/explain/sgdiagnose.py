"""SGLang diagnosis: the failed phase, the shortfall and fixes re-planned from the log's anchors (pre-load memory,
weights, free after weights, the cell); the shared types and rules are ``explain.diagnose``, the budget model
``explain.sgbudget``."""

from __future__ import annotations

import math
from dataclasses import replace

from tpkit.explain.diagnose import (MARGIN, MAX_FRACTION, Diagnosis, Fix, fp8_could_halve_weights, bytes_text,
                                   oom_sizes, kv_heads_shard, capture_error_not_memory, pool_error_not_memory,
                                   custom_allreduce_fix, failure_texts)
from tpkit.explain.sgbudget import BudgetReplan, layout_fix, unshown
from tpkit.units import Bytes, GiB

__all__ = ["diagnose_sglang"]


def diagnose_sglang(parsed, a, ctx) -> Diagnosis:
    """``a``: :class:`~tpkit.explain.sglang.SglangAnchored`."""
    failure = parsed.primary_failure
    findings = _car_findings(a, ctx)
    plan = BudgetReplan(a, ctx)
    if failure is None:
        return _ok(a, ctx, plan, findings)
    phase = failure.phase
    ev = f"line {failure.line_no}: {failure.evidence[:160]}"
    from tpkit.explain.sgdevice import unplanned_device, unplanned_device_failure
    from tpkit.explain.sgsized import sized_note, sized_oom

    if (device := unplanned_device(failure)) is not None:
        cause, short, fixes = unplanned_device_failure(failure, device, plan=plan)
    elif phase == "other" and failure.detail.startswith("torch_memory_saver"):  # the resume (explain.sgresume)
        from tpkit.explain.sgresume import resume_failure

        cause, short, fixes = resume_failure(failure) or (failure.detail, None, [])
    elif failure.kind == "imbalance" or phase == "imbalance":
        from tpkit.explain.sgbalance import imbalance
        from tpkit.explain.sghybrid import later_hybrid_finding

        cause, short, fixes = imbalance(failure, plan, ctx, parsed)
        findings += later_hybrid_finding(parsed)
    elif failure.kind == "pool_exhausted":
        cause, short, fixes = _pool_exhausted(failure), None, []
    elif failure.kind == "hybrid_state_memory":
        from tpkit.explain.sghybrid import hybrid_state

        cause, short, fixes = hybrid_state(failure, ctx, plan)
    elif phase == "kv_pool" and (root := pool_error_not_memory(parsed)) is not None:
        cause, short, fixes = _pool_error(root, plan)
    elif phase == "kv_pool" or failure.kind in ("no_kv_memory", "kv_budget_non_positive"):
        cause, short, fixes = _kv_pool_failure(failure, a, ctx, plan, findings)
    elif phase == "weights":
        from tpkit.explain.sgweights import weights_failure

        cause, short, fixes = weights_failure(failure, a, ctx, plan, parsed)
    elif phase == "cuda_graph" and (root := capture_error_not_memory(parsed)) is not None:
        cause, short, fixes = _graph_error(root, a, failure_texts(parsed))
    elif phase == "cuda_graph":
        cause, short, fixes = _graph_failure(sized := sized_oom(parsed, failure), a, ctx, plan, parsed.run)
        cause += sized_note(failure, sized)
        if any(x.group == "piecewise" for x in parsed.anchors):  # ``explain.sgpiecewise`` (round ex38)
            cause, fixes = _piecewise(parsed, failure, cause, fixes, a)
    elif (leak := _pool_check(parsed)) is not None:
        cause, short, fixes = leak
    elif phase == "first_request" and (root := pool_error_not_memory(parsed, "first_request")) is not None:
        cause, short, fixes = (f"the run failed serving its first requests on {root}, which is not a lack of memory: "
                               "a smaller --mem-fraction-static or --chunked-prefill-size would not help"), None, []
    elif phase == "first_request":
        cause, short, fixes = _first_request_failure(sized := sized_oom(parsed, failure), a, ctx, plan)
        cause += sized_note(failure, sized)
    else:
        cause, short, fixes = f"{failure.kind.replace('_', ' ')}: {failure.detail or failure.evidence[:160]}", \
            oom_sizes(failure)[3], []
    from tpkit.explain.sgoomcut import cut_note

    return Diagnosis(status="failed", phase=phase, cause=cause + cut_note(failure), short_by=short, evidence=ev,
                     fixes=_on_the_host(fixes, ctx), findings=tuple(findings))


def _on_the_host(fixes, ctx) -> tuple:
    """helper fx35b: a --tp / --pp-size fix held against the GPUs the log shows its host has (``explain.hostgpus``,
    the rule vLLM's fixes follow since round cr35b)."""
    from tpkit.explain.hostgpus import checked_fixes

    return tuple(checked_fixes(fixes, ctx, getattr(ctx, "host_shown", None)))


def _pool_check(parsed):
    from tpkit.explain.sgleak import pool_check_failure  # lazy: rare

    return pool_check_failure(parsed)


def _pool_exhausted(failure) -> str:
    """A run-time pool with no free slots for a scheduled batch (``logs.failures.POOL_SLOT_ERRORS``): the pools exist
    and are full, so no start-up budget is short and nothing is re-planned; the engine's own message names the knob."""
    if "alloc_req_slots" in failure.detail:
        return ("the request-slot pool (req_to_token) had no free row for a scheduled batch while serving "
                f"('{failure.detail}'): not a CUDA allocation; SGLang's message asks for a smaller "
                "--max-running-requests")
    return (f"the KV pool had no free token slots for a scheduled batch while serving ('{failure.detail}'): not a "
            "CUDA allocation; fewer running requests or smaller prefill chunks (--max-running-requests, "
            "--chunked-prefill-size) need fewer slots at once, a larger --mem-fraction-static gives more")


def _car_findings(a, ctx) -> list[str]:
    """What the custom all-reduce buffers take (tpkit's start-up model), when charged."""
    tp = int(ctx.get("tp", 1) or 1)
    findings = []
    if a.car_bytes and a.car_bytes.bytes:
        findings.append(_car_finding(a, ctx))
    if a.init_dist is not None and a.car_bytes:
        findings.append(f"distributed init took {a.init_dist.text()} (printed); SGLang's custom all-reduce buffers for "
                        f"tp {tp} are {bytes_text(a.car_bytes)} of it (tpkit's start-up model)")
    return findings


def _ok(a, ctx, plan: BudgetReplan, findings: list[str]) -> Diagnosis:
    """A run that started: a pool below one full-context request is a finding, with the fixes that grow it."""
    context = plan.context
    short_pool = a.tokens_printed is not None and context and a.tokens_printed < int(context)
    if short_pool:
        findings.append(f"the KV pool holds {a.tokens_printed:,} tokens, less than one {int(context):,}-token "
                        "request")
    return Diagnosis(status="ok", phase=None, cause="", findings=tuple(findings),
                     fixes=_on_the_host(_sg_growth_fixes(a, ctx, plan), ctx) if short_pool else ())


def _kv_pool_failure(failure, a, ctx, plan: BudgetReplan, findings: list[str]):
    """The KV pool could not be sized or allocated: (cause, short, fixes); tpkit's catalog plan where the anchors
    give no budget (its finding added to ``findings``)."""
    oom, req, free, short = oom_sizes(failure)
    f, pre = plan.f, plan.pre
    fixes: list[Fix] = []
    rest, _ = plan.budget()
    if rest is not None and rest <= 0:
        short = Bytes(-rest)
        cause = (f"the KV budget is negative ({bytes_text(rest)}): the weights ({a.weights.text()}) exceed "
                 f"mem_fraction_static {f:.3f} × pre-load memory ({a.pre.text()}) = {bytes_text(int(pre * f))}")
    elif rest is not None:
        cause = (f"the KV pool did not fit: KV budget {bytes_text(rest)} after weights {a.weights.text()} "
                 f"and slack (1 − {f:.3f}) × {a.pre.text()}")
    elif oom and short is not None:
        cause = (f"out of memory allocating the KV pool: asked for {req.text}, {free.text} free (short by "
                 f"{bytes_text(short)}): memory taken after SGLang sized the pool (another process, or a pool sized "
                 "from a stale measurement)")
        fixes += _pool_oom_fraction(failure, plan, short)
    else:
        cause = "the KV pool could not be sized or allocated (the log does not print the numbers to say by how much)"
        floor = _weights_floor_fix(failure, f)
        if floor is not None:
            cause = floor[0]
            fixes.append(floor[1])
        else:
            from tpkit.explain.sgfloor import floor_error_words, not_enough_memory_words

            cause = not_enough_memory_words(failure, ctx, f) or floor_error_words(failure, f) or cause
    planned: list[Fix] = []
    if rest is None:
        from tpkit.explain.planned import catalog_fixes_sglang

        # an OOM allocating a pool the log gives no budget for (no 'Load weight' line: sg_038): its shortfall says
        # by how much the pool was too large, not what a smaller fraction or another layout holds; where the model and
        # the GPU are known, every fix is planned from the catalog as ``tpkit plan --from-log`` plans it (the same
        # terms, the same release), the shortfall's fraction included, and is a fit by the same rule (helper rt16)
        shortfall = [fx for fx in fixes if fx.flags.startswith("--mem-fraction-static")] if oom and short else []
        fractions = tuple(float(fx.flags.split()[1]) for fx in shortfall) or None
        found, finding = catalog_fixes_sglang(ctx, fractions=fractions, held=failure.size("other_processes"))
        planned = [Fix(**kw) for kw in found]
        if planned and shortfall:
            fixes = [fx for fx in fixes if fx not in shortfall]
            planned = [replace(fx, note=f"{fx.note}; the OOM's {bytes_text(short)} shortfall alone is covered at "
                                        "this fraction, but the log measured nothing the pool was sized from")
                       if fx.flags == shortfall[0].flags else fx for fx in planned]
        if finding:
            findings.append(finding)
            cause += "; " + finding
    fixes += planned or _sg_growth_fixes(a, ctx, plan)
    if rest is None and not any(fx.fits for fx in fixes) and not any(fx.kv_tokens for fx in fixes):
        from tpkit.explain.sgreplan import no_replan_words

        cause += "; " + no_replan_words(ctx)
    return cause, short, fixes


def _weights_floor_fix(failure, f: float | None) -> tuple[str, Fix] | None:
    """(cause, fix) from SGLang's own numbers when the log has no anchors to re-plan from: 'Loaded weights leave no
    GPU memory for the KV cache under --mem-fraction-static=F. Raise --mem-fraction-static above S (minimum viable =
    1 - available/pre = M)' (sglang 0.5.16 ``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes``).
    The KV budget there is available − pre × (1 − F), i.e. pre × (F − M), so any fraction above M makes it positive;
    S = ceil(M × 1000) / 1000 is the engine's suggestion. A paste may wrap or cut the message: S is taken when
    printed, else rebuilt from M the engine's way, and the fix is kept above the fraction that failed (a printed M is
    rounded: M ≥ F always holds, as the error is raised only when F ≤ M). The pool at S is near-empty (pre × (S − M));
    the note says so. None when neither S nor M is printed, or when S ≥ 1 (the weights alone fill the card).
    Helper cr33a (2026-12-07): S is offered, not called a fit.  S clears only this check; the pool is then sized from
    the budget pre × (S − M) and SGLang raises 'Not enough memory' when it comes to ≤ 0 tokens (``explain.sgfloor``:
    ``MemoryPoolConfig.__post_init__``, 0.5.13–0.5.23) — under a page of cells, or a configurator's own state pools
    taken first.  The message prints neither the pre-load memory nor the cell, so the pool at S is not shown to hold a
    token (docs/accuracy.md §7.3, round cr33a: one public run cleared its printed floor by 0.018 and still failed)."""
    suggested = failure.count("suggested_mem_fraction_static")
    minimum = failure.count("minimum_mem_fraction_static")
    run = failure.count("run_mem_fraction_static")
    if suggested is None and minimum is None:
        return None
    m = float(minimum.value) if minimum is not None else None
    s = float(suggested.value) if suggested is not None else math.ceil(m * 1000 - 1e-9) / 1000
    now = float(run.value) if run is not None else f
    if now is not None and s <= now:
        s = round(now + 0.001, 3)
    if s >= 1.0:
        return None
    floor = f"minimum viable {m:.4g}" if m is not None else f"the engine's floor {s:.3f}"
    cause = ("the loaded weights leave no KV budget: SGLang's budget is free memory after the load − pre-load memory "
             f"× (1 − mem_fraction_static), ≤ 0 at {now if now is not None else 'the run’s fraction'}; {floor} "
             "(1 − free after the load / pre-load memory)")
    return cause, Fix(flags=f"--mem-fraction-static {s:.3f}", kv_tokens=None, fits=False,
                      why=f"above {floor}, SGLang's own arithmetic: the KV budget pre-load memory × (fraction − "
                          "minimum) turns positive",
                      note="the engine's floor, not called a fit: the pool sized from pre-load memory × (fraction − "
                           "minimum) can still hold no token ('Not enough memory'), and the message prints neither "
                           "the pre-load memory nor the KV cell to show it holds one; raise it further for the tokens "
                           "you serve, leaving (1 − fraction) × pre-load memory for activations and CUDA graphs")


def _pool_error(root: str, plan: BudgetReplan):
    """Creating the KV pool raised an exception that is not a lack of memory (``diagnose.pool_error_not_memory``):
    (cause, short, fixes) — no memory knob is offered; the budget the anchors give is reported when they give one."""
    rest, _ = plan.budget()
    cause = (f"creating the KV pool raised {root}, which is not a lack of memory"
             + (f" (the KV budget the anchors give is {bytes_text(rest)})" if rest is not None and rest > 0 else "")
             + ": an option or build the pool code does not support (the raising check names it); a smaller "
               "--mem-fraction-static, more GPUs or fp8 weights would not help")
    return cause, None, []


def _pool_oom_fraction(failure, plan: BudgetReplan, short: Bytes) -> list[Fix]:
    """The fraction that shrinks the pool by the missing bytes (+ half the margin) after an OOM allocating it;
    pre-load memory taken as 90 % of the printed total when not printed."""
    f, pre = plan.f, plan.pre
    total = failure.size("total")
    if f is None or total is None:
        return []
    base = pre if pre is not None else int(total.value.bytes * 0.9)
    f2 = plan.flag(f - (short.bytes + MARGIN.bytes // 2) / base, up=False)
    if f2 <= 0:
        return []
    return [Fix(flags=f"--mem-fraction-static {f2:.2f}", kv_tokens=plan.budget(fraction=f2)[1],
                fits=(f - f2 * plan.factor) * base >= short.bytes,
                why=f"the pool shrinks by ({f:.3f} − {f2 * plan.factor:.3f}) × pre-load memory ≥ the {bytes_text(short)} "
                    "missing", note="" if pre is not None else
                "pre-load memory not printed: taken as 90 % of the printed total")]


def _piecewise(parsed, failure, cause: str, fixes: list, a) -> tuple[str, list]:
    """An OOM inside SGLang's piecewise capture (``explain.sgpiecewise``): its cause words and fixes; else as given."""
    from tpkit.explain.sgpiecewise import piecewise_fixes, piecewise_tokens

    if (tokens := piecewise_tokens(parsed, failure)) is None:
        return cause, fixes
    words, fixes = piecewise_fixes(parsed, fixes, tokens, a.tokens_printed)
    return cause + words, fixes


def _graph_error(root: str, a, texts: str = ""):
    """The capture failed on a CUDA error that is not a lack of memory (``diagnose.capture_error_not_memory``):
    (cause, short, fixes) — skipping the capture avoids it, and so does turning off the custom all-reduce where its
    kernels failed (``diagnose.custom_allreduce_fix`` on the failures' ``texts``); a smaller fraction or batch would
    not."""
    cause = (f"CUDA-graph capture failed on an error that is not a lack of memory ({root}); SGLang's "
             "'Capture cuda graph failed' advice (smaller --mem-fraction-static / --cuda-graph-max-bs) does not apply: "
             "a kernel or call in the captured forward is not capturable")
    return cause, None, [*custom_allreduce_fix(f"{root}\n{texts}"), Fix(
        flags="--disable-cuda-graph", kv_tokens=a.tokens_printed, fits=True,
        why="no CUDA graph is captured (slower decode); the KV pool is unchanged")]


def _graph_failure(failure, a, ctx, plan: BudgetReplan, run=None):
    """Out of memory capturing the CUDA graphs: (cause, short, fixes) — more slack, a smaller captured batch, the
    custom all-reduce buffers off."""
    oom, req, free, short = oom_sizes(failure)
    f, pre = plan.f, plan.pre
    fixes: list[Fix] = []
    cause = "out of memory while capturing CUDA graphs: the slack left after the KV pool was too small"
    if oom and req and free:
        cause += f" (asked for {req.text}, {free.text} free: short by {bytes_text(short)})"
    need = (short.bytes if short else 0) + MARGIN.bytes // 2
    if pre and f is not None:
        f2 = plan.flag(f - need / pre, up=False)
        if f2 > 0:
            fixes.append(plan.fix(f"--mem-fraction-static {f2:.2f}", f"keeps {bytes_text(need)} more slack for the graphs",
                                  fraction=f2))
    elif not pre:
        fixes += _catalog_slack(ctx, failure, short, "the CUDA graphs")
    fixes += _graph_batch_fixes(failure, a, ctx, oom, req, short)
    from tpkit.explain.sggraphs import graphs_off_fix

    fixes.append(graphs_off_fix(a, ctx, plan, _graph_pool_bytes(failure, oom), run))
    if a.car_bytes:
        fixes.append(Fix(flags="--disable-custom-all-reduce", kv_tokens=a.tokens_printed,
                         fits=short is not None and a.car_bytes >= short,
                         why=f"frees SGLang's custom all-reduce buffers ({bytes_text(a.car_bytes)})"))
    return cause, short, fixes


_SMALLER_BATCH = (4, 8, 16)
"""the divisors of the largest captured batch tried when halving it is not enough (same assumption as 1/2)"""


def _graph_pool_bytes(failure, oom: bool) -> tuple[int, str] | None:
    """What the CUDA graphs held when the capture ran out of memory: (bytes, as printed), or None when unknown.

    torch's OOM message (c10/cuda/CUDACachingAllocator.cpp, the ``malloc`` OOM path; read in the PyTorch sources
    the code index returns) adds "with X allocated in private pools (e.g., CUDA Graphs), " between "… is allocated
    by PyTorch," and "and … is reserved by PyTorch but unallocated" only when X > 0, X being the size of the blocks
    the graph pools hold cached (their ``BlockPool.blocks``: what a captured graph has freed back into its pool).
    So a whole message (both of those figures printed) without the clause says no graph had yet released memory
    into a private pool: the failure came in the eager warm-up runs of the first batch size captured, or early in
    its ``torch.cuda.graph``, before any captured graph was complete.  SGLang captures the largest batch first
    (``reversed(self.capture_bs)``) after two warm-up runs per size (``cuda_graph_runner.py`` ``capture`` /
    ``capture_one_batch_size``, 0.5.11 and 0.5.13.post1; ``runner/decode_cuda_graph_runner.py`` and
    ``runner_backend/full_cuda_graph_backend.py`` ``capture_one``, 0.5.23): the allocation that failed is the
    largest batch's, and it is taken as the graph memory (a lower bound; sg_450, helper crash9)."""
    pools = failure.size("graph_pools") if oom else None
    if pools is not None:
        return pools.value.bytes, pools.text
    whole = oom and failure.size("torch_allocated") is not None and \
        failure.size("torch_reserved_unallocated") is not None
    return (0, "0 B (torch prints no private-pool figure: nothing cached in the graph pools yet)") if whole else None


def _graph_batch_fixes(failure, a, ctx, oom: bool, req, short) -> list[Fix]:
    """Half the largest captured batch, and when half is not enough the largest fraction 1/k that is: the graph
    memory scaled by 1/k, from the graph pools torch's OOM message prints (``_graph_pool_bytes``)."""
    bs = ctx.get("cuda_graph_max_bs")
    pools = _graph_pool_bytes(failure, oom)
    fixes = [_graph_batch_fix(a, bs, pools, req, short, 2)]
    if pools is not None and req is not None and short is not None and not fixes[0].fits:
        need = pools[0] + req.value.bytes
        k = next((k for k in _SMALLER_BATCH if need - need / k >= short.bytes), None)
        if k is not None:
            fixes.append(_graph_batch_fix(a, bs, pools, req, short, k))
    return fixes


def _graph_batch_fix(a, bs, pools, req, short, k: int) -> Fix:
    """The largest captured batch divided by ``k``: the graph memory scaled by 1/k."""
    what = "half the captured max" if k == 2 else f"1/{k} of the captured max"
    value = max(1, int(bs) // k) if bs else f"N/{k} ({what})"
    if pools is not None and req is not None and short is not None:
        # torch's OOM message prints what the graphs captured so far hold ("allocated in private pools"):
        # the graph memory at the failure is that plus the allocation that failed
        need = pools[0] + req.value.bytes
        graph_fits = need - need / k >= short.bytes
        graph_note = (f"graph memory scaled by 1/{k} (assumed ∝ the largest captured batch, not measured per batch "
                      f"size): the graph pools held {pools[1]} when the capture asked for {req.text}; 1/{k} of "
                      f"{bytes_text(need)} is {bytes_text(need // k)}, freeing {bytes_text(need - need // k)} against {bytes_text(short)} missing")
    else:
        graph_fits = (short is None or short.bytes <= 0 or (a.graph is not None and a.graph.mid.bytes / 2 >=
                                                             short.bytes) or short.bytes < GiB(1).bytes)
        graph_note = "graph memory scaled by 1/2 (not measured per batch size)"
    fix = Fix(flags=f"--cuda-graph-max-bs {value}", kv_tokens=a.tokens_printed, fits=bool(graph_fits),
              why="graph memory grows with the largest captured batch; the KV pool is unchanged", note=graph_note)
    return unshown(fix, "the graph memory at the smaller batch is not printed: the log shows the pools at the "
                        "failure, not how they scale with the batch (scaling them is a rule of thumb)")


def _first_request_failure(failure, a, ctx, plan: BudgetReplan):
    """Out of memory after start-up: (cause, short, fixes) — more slack, smaller prefill chunks."""
    short = oom_sizes(failure)[3]
    f, pre = plan.f, plan.pre
    fixes: list[Fix] = []
    cause = "out of memory after start-up (first requests): activations exceeded the slack"
    if short is not None and pre and f is not None:
        f2 = plan.flag(f - (short.bytes + MARGIN.bytes // 2) / pre, up=False)
        if f2 > 0:
            fixes.append(plan.fix(f"--mem-fraction-static {f2:.2f}", "more slack for activations", fraction=f2))
    elif not pre:
        fixes += _catalog_slack(ctx, failure, short, "activations")
    cpp = ctx.get("chunked_prefill_size")
    fixes.append(unshown(Fix(flags=f"--chunked-prefill-size {max(512, int(cpp) // 2) if cpp else 4096}",
                             kv_tokens=a.tokens_printed, fits=True,
                             why="smaller prefill chunks need fewer activation bytes; the KV pool is unchanged"),
                         "the activation peak at the smaller chunk is neither printed nor planned (before round "
                         "cr33c a fit by rule of thumb)"))
    return cause, short, fixes


def _catalog_slack(ctx, failure, short, what: str) -> list[Fix]:
    """The fraction fix planned from the catalog where the log prints no pre-load memory (``explain.sgslack``)."""
    from tpkit.explain.sgslack import catalog_slack_fix

    fix = catalog_slack_fix(ctx, failure, short, what)
    return [] if fix is None else [fix]


def _sg_growth_fixes(a, ctx, plan: BudgetReplan) -> list[Fix]:
    """Fixes that give the KV pool more room (fraction, tp, fp8 weights, fp8 KV, context)."""
    tp = int(ctx.get("tp", 1) or 1)
    out = []
    fix, pre, stream, w, context, factor = plan.fix, plan.pre, plan.stream, plan.w, plan.context, plan.factor
    if pre and w is not None:
        need = MARGIN.bytes + (int(a.cell_bytes * int(context)) if a.cell_bytes and context else 0)
        # the budget is (pre + stream pool) × f − weights − stream pool − the multimodal reservation − the RoPE
        # pre-expansion (engines.sglang.streams; explain.sgrelease.mm_reservation_for, rope_reserve_for)
        f2 = plan.flag((w + need + stream + plan.mm + plan.rope) / (pre + stream), up=True)
        if f2 <= MAX_FRACTION:
            out.append(fix(f"--mem-fraction-static {f2:.2f}", f"f × pre-load memory must exceed the weights "
                           f"({a.weights.text()}) plus room for the pool", fraction=f2,
                           note=f"slack left {bytes_text(int(pre * (1 - f2 * factor)))} for activations and CUDA graphs"
                           + ("" if factor == 1.0 else f"; SGLang runs --mem-fraction-static {f2:.2f} at "
                                                      f"{f2 * factor:.3f} (× {factor:g})")))
    from tpkit.explain.sgreplan import relayout

    out.append(layout_fix(plan, f"--tp {2 * tp}", "weights shard over twice the GPUs",
                          cell_scale=0.5 if kv_heads_shard(ctx.model, tp) else 1.0, **relayout(ctx, a, tp=2 * tp)))
    if fp8_could_halve_weights(ctx):
        out.append(layout_fix(plan, "--quantization fp8", "fp8 weights take half of 16-bit weights",
                              **relayout(ctx, a, tp=tp, quantization="fp8")))
    kv = str(ctx.get("kv_cache_dtype", "auto")).lower()
    if "fp8" not in kv:
        out.append(fix("--kv-cache-dtype fp8_e4m3", "an fp8 cell is half a 16-bit cell", cell_scale=0.5,
                       note="more tokens from the same budget; no help when the budget is negative"))
    if context and a.tokens_printed is not None and a.tokens_printed < int(context):
        out.append(Fix(flags=f"--context-length {a.tokens_printed}", kv_tokens=a.tokens_printed, fits=True,
                       why="one full-context request fits the pool"))
    return out


def _car_finding(a, ctx) -> str:
    car = a.car_bytes
    slack_free = a.slack_after_pool or a.free_after_graphs
    after = a.free_after_weights
    parts = [f"custom all-reduce buffers: {bytes_text(car)} per GPU ({a.car_source}), allocated during distributed init, "
             "before the weights"]
    if after is not None:
        share = car.bytes / max(after.mid.bytes, 1)
        parts.append(f"{share:.2%} of the {after.text()} free after the weights")
    if slack_free is not None:
        ok = slack_free.low > car
        parts.append(f"{'cannot' if ok else 'could'} by themselves cause an OOM: {slack_free.text()} was still free "
                     "after the KV pool" + (" (at most they move the KV pool by their own size)" if ok else ""))
    return "; ".join(parts)


