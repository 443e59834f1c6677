"""``plan_perf``: decode step time and tokens/s of a TP deployment, every collective costed, and whether
speculative decoding pays (pure; the one entry point ``tpkit perf`` calls).

    in:  ``PerfRequest`` (model, GPU, TP, link, batch, context, engine, speculative settings, profile)
    out: ``PerfResult`` (baseline, speculative, all-reduce, batch sweep, crossover, best settings,
         backends, verdict, breakdown, confidence, assumptions)
"""

from __future__ import annotations

import dataclasses
import math

from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import is_amd
from tpkit.models.layout import padded_vocab
from tpkit.models.spec import ModelSpec
from tpkit.perf.accept import accept_length
from tpkit.perf.calls import collective_calls
from tpkit.perf.constants import C
from tpkit.perf.context import _Ctx, _context, default_link_kind  # noqa: F401 - re-exported (perf.workload, request)
from tpkit.perf.forward import ForwardTime, queued_behind, time_forward
from tpkit.perf.fa2_verify import split_kv_alternative
from tpkit.perf.graphs import graph_notes, graph_padding
from tpkit.perf.impl import grouped_mm_notes
from tpkit.perf.mla_splits import splits_note, verify_attention_mode
from tpkit.perf.policy import available_policies, collectives_us, default_policy
from tpkit.perf.request import PerfRequest
from tpkit.perf.result import BackendPoint, BatchPoint, ContextPoint, PerfResult, SpecPoint
from tpkit.perf.runtime import NEWEST, Runtime
from tpkit.perf.runtime_sglang import (SPEC_V2_FLAG, sglang_spec_v2, spec_v1_request_host_us,
                                      spec_v1_sync_host_us)
from tpkit.perf.spec import SpecSettings, draft_step_kernels, running_requests, sglang_extend_logit_rows
from tpkit.perf.verdict import confidence_of, resident_note, verdict_for
from tpkit.perf.kernels import Batch
from tpkit.perf.work import forward_kernels

__all__ = ["PerfRequest", "plan_perf", "SWEEP_BATCHES", "SWEEP_CONTEXTS"]

SWEEP_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""batch sizes of the ``by_batch`` sweep"""
MAX_CROSSOVER_BATCH = 1024
"""the crossover search stops here"""
SWEEP_CONTEXTS = (1024, 4096, 8192, 16384, 32768, 65536, 131072)
"""context lengths (tokens) of the ``by_context`` sweep, cut at the model's max_position_embeddings"""
CONTEXT_RESOLUTION = 256
"""the context crossover is bisected to this many tokens"""


def plan_perf(req: PerfRequest) -> PerfResult:
    """Predict plain and speculative decoding for ``req`` (see module docstring)."""
    ctx = _context(req)
    policy = req.backend or default_policy(ctx.setup.link)
    if policy == "symm_mem" and req.tp > 1 and ctx.setup.link.kind != "nvlink":
        # torch symm-mem needs NVLink P2P (allreduce._symm prices it infinite elsewhere): a clear refusal, not 0 tok/s
        raise PlanInputError(f"--allreduce-backend symm_mem: torch symmetric memory needs NVLink P2P, and this TP group "
                             f"of {req.tp}× {req.gpu.name} runs over {ctx.setup.link.kind}; use --allreduce-backend "
                             "nccl, custom or oneshot, or leave it out for the engine's default")
    if policy in ("custom", "oneshot") and req.tp > 1 and not ctx.setup.link.p2p:  # helper ux25
        raise PlanInputError(f"--allreduce-backend {policy}: the engines' custom all-reduce needs CUDA peer access, "
                             f"and this TP group of {req.tp}× {req.gpu.name} has none (--no-p2p or the GPU "
                             "catalog); use --allreduce-backend nccl, or pass --p2p if these GPUs do have peer access")
    base, base_ar = _base_step(ctx, req.batch, policy)
    spec = _spec_point(ctx, req.spec, req.batch, policy, base.total_us) if req.spec else None
    sweep = tuple(_batch_point(ctx, b, policy) for b in sorted(set(SWEEP_BATCHES) | {req.batch}))
    crossover = _crossover(ctx, policy) if req.spec else None
    by_context = _context_sweep(req, policy)
    crossover_context = _crossover_context(req, policy, by_context) if req.spec else None
    best = _best_settings(ctx, policy) if req.spec else None
    backends = tuple(_backend_point(ctx, p, ok, why) for p, ok, why in
                     available_policies(ctx.setup.link, req.gpu.compute_capability, req.engine,
                                                        req.engine_version))
    calls = collective_calls(num_layers=req.model.num_layers, hidden=req.model.hidden_size, tokens=req.batch,
                             vocab_per_rank=padded_vocab(req.model.vocab_size, req.tp), tp=req.tp,
                             dp_attention=req.dp_attention)
    allreduce = {"calls_per_forward": sum(c.count for c in calls if c.op == "all_reduce"),
                 "all_gathers_per_forward": sum(c.count for c in calls if c.op == "all_gather"),
                 "us_per_call": round(base_ar.us, 2) if base_ar else 0.0,
                 "backend": policy, "source": base_ar.source if base_ar else "no collectives at tp 1",
                 "us_per_forward": round(base.allreduce_us, 1)}
    baseline = BatchPoint(batch=req.batch, step_us=base.total_us, spec=spec, running=_plain_running(ctx, req.batch))
    breakdown = {"baseline": base.to_dict(), "cycle": dict(spec.parts_us) if spec else None}
    result_args = dict(inputs=_inputs(req, ctx, policy), baseline=baseline, speculative=spec, allreduce=allreduce,
                       by_batch=sweep, crossover_batch=crossover, by_context=by_context,
                       crossover_context=crossover_context, best_settings=best, backends=backends,
                       breakdown=breakdown)
    what_ifs = _what_ifs(ctx, policy) if req.spec else ()
    verdict = verdict_for(req, ctx.setup.link, policy, base, spec, crossover, best, backends,
                          runtime=ctx.runtime(req.spec), what_ifs=what_ifs,
                          by_context=(by_context, crossover_context), by_batch=sweep)
    note = resident_note(model=req.model, shard=ctx.shard, impl=ctx.impl, kv_bytes=ctx.kv_bytes, gpu=req.gpu,
                         batch=Batch(sequences=baseline.running, context=req.context, dp=req.dp_attention))
    if note:  # a batch that cannot be resident: said right after the numbers (verdict.resident_note)
        head, _, rest = verdict.message.partition("\n")
        verdict = dataclasses.replace(verdict, message="\n".join(x for x in (head, note, rest) if x))
    # (the plain step's attention time is in breakdown["baseline"]["by_kind_us"])
    return PerfResult(**result_args, verdict=verdict, confidence=confidence_of(req, ctx.setup.link, ctx.rate_source),
                      assumptions=_assumptions(ctx))


# ------------------------------------------------------------------------------------------------ forwards
def _forward(ctx: _Ctx, model: ModelSpec, batch: Batch, policy: str, *, extra=(), quant="target",
             attention="decode", graph="full"):
    key = (id(model), batch, policy, tuple(extra), quant, attention, graph)
    if key not in ctx.memo:
        ctx.memo[key] = _forward_uncached(ctx, model, batch, policy, extra=extra, quant=quant, attention=attention,
                                          graph=graph)
    return ctx.memo[key]


def _forward_uncached(ctx: _Ctx, model: ModelSpec, batch: Batch, policy: str, *, extra, quant, attention, graph):
    q = model.quant if quant == "target" else None
    splits = ctx.runtime(None).mla_kv_splits(model, batch.context + batch.tokens_per_sequence, ctx.req.gpu.sm_count)
    kernels = forward_kernels(model, ctx.shard, batch, ctx.impl, quant=q, kv_bytes=ctx.kv_bytes,
                              attention=attention, kv_splits=splits)
    if ctx.req.nvfp4_gemm_backend is not None:  # vLLM's VLLM_NVFP4_GEMM_BACKEND (perf.fp4_backend; lazy: cold imports)
        from tpkit.perf.fp4_backend import nvfp4_backend_kernels
        kernels = nvfp4_backend_kernels(kernels, ctx.req.nvfp4_gemm_backend)
    kernels = kernels + list(extra)
    calls = collective_calls(num_layers=model.num_layers, hidden=model.hidden_size, tokens=batch.tokens,
                             vocab_per_rank=padded_vocab(model.vocab_size, ctx.req.tp), tp=ctx.req.tp,
                             dp_attention=ctx.req.dp_attention, logit_tokens=batch.logit_tokens)
    ar_us, main = collectives_us(calls, policy, ctx.setup)
    out = time_forward(kernels, ctx.dev, allreduce_us=ar_us, impl=ctx.impl)
    host = _launch_host_us(model, graph, attention, out.kernels + sum(c.count for c in calls))
    return (dataclasses.replace(out, host_us=host) if host else out), main


def _launch_host_us(model: ModelSpec, graph: str, attention: str, launches: int) -> float:
    """CPU time to launch a pass that is not one CUDA graph: every kernel when eager; per layer the eager
    attention segment plus one graph-piece replay when piecewise (the GPU waits when this exceeds its work)."""
    per = C["eager_kernel_host_us"].value
    if graph == "eager":
        return launches * per
    if graph == "piecewise":
        seg = C["mla_prefill_path_kernels" if attention == "mla_prefill" else "piecewise_attention_kernels"].value
        return (model.num_layers * (seg + 1) + 1) * per
    return 0.0


def _plain_running(ctx: _Ctx, batch: int) -> int:
    """Requests plain decoding runs at once at ``batch`` (a smaller --max-running-requests caps it)."""
    return running_requests(ctx.req, batch, False)[0]


def _base_step(ctx: _Ctx, batch: int, policy: str) -> tuple[ForwardTime, object]:
    """The plain step at ``batch`` offered requests (``_plain_running`` of them decoded at once)."""
    rt, running = ctx.runtime(None), _plain_running(ctx, batch)
    pad, graph = graph_padding(ctx.req, rt, running, False, rt.target_graph)   # SGLang: the captured batch size
    return _forward(ctx, ctx.req.model, Batch(sequences=running, context=ctx.req.context, dp=ctx.req.dp_attention,
                                              padded=pad), policy, graph=graph)


def _spec_point(ctx: _Ctx, s: SpecSettings, batch: int, policy: str, base_us: float) -> SpecPoint:
    """One cycle.  SGLang: num_steps draft forwards of batch × topk tokens (num_steps − 1 from 0.4.3,
    ``Runtime.draft_skips_last_forward``), the verify, then a draft extend on
    batch × (num_steps + 1) tokens.  vLLM: the first draft forward takes the accepted tokens (batch × (k + 1)),
    the other k − 1 take batch tokens, and there is no separate extend.  Each pass runs the way the engine
    version runs it (``runtime``: attention path, full/piecewise/eager graphs).  Overhead: tree/accept kernels,
    the GPU→CPU sync of accepted tokens, and the host work: a share of the cycle when the engine overlaps it
    (SGLang spec v2, vLLM async scheduling), the whole per-iteration host time when it does not.  ``batch``
    requests are offered; the cycle runs ``running_requests`` of them (SGLang's speculative cap when it binds), and
    the speed-up is against plain decoding of the same offered batch."""
    req, rt = ctx.req, ctx.runtime(s)
    offered = batch
    batch, cap_source = running_requests(req, offered, True)
    pad, verify_graph = graph_padding(req, rt, batch, True, rt.verify_graph)   # SGLang: the captured batch size
    verify, _ = _forward(ctx, req.model, _batch(ctx, batch, s.num_draft_tokens, pad, verify=True), policy,
                         attention=verify_attention_mode(rt), graph=verify_graph)   # perf.mla_splits
    queued_us = None
    if req.engine == "vllm":
        steps = [_draft_forward(ctx, s, batch, s.num_steps + 1, policy, graph=rt.extend_graph, target_hidden=True,
                                attention=rt.multi_token_attention)] \
            + [_draft_forward(ctx, s, batch, 1, policy, graph=rt.draft_graph, loop=True)] * (s.num_steps - 1)
        extend_us = 0.0
        if rt.drafter_queued:
            queued_us = queued_behind(verify, steps)
    else:
        forwards = s.num_steps - 1 if rt.draft_skips_last_forward else s.num_steps
        pad, draft_graph = graph_padding(req, rt, batch, True, rt.draft_graph)
        steps = [_draft_forward(ctx, s, batch, s.topk, policy, graph=draft_graph, pad=pad, sample_rows=batch * s.topk)] * forwards
        pad, extend_graph = graph_padding(req, rt, batch, True, rt.extend_graph)
        extend_us = _draft_forward(ctx, s, batch, s.num_steps + 1, policy, graph=extend_graph, pad=pad,
                                   attention=rt.multi_token_attention, target_hidden=True,
                                   sample_rows=batch, logit_rows=sglang_extend_logit_rows(batch, pad, rt.spec_overlap)).total_us
    draft_us = sum(f.total_us for f in steps) if queued_us is None else queued_us
    gpu = draft_us + verify.total_us + extend_us + C["spec_small_kernels"].value * C["small_kernel_us"].value
    host_us, per_request_us = spec_v1_sync_host_us(rt), spec_v1_request_host_us(rt, batch)  # perf.runtime_sglang
    if host_us:
        cycle = gpu + C["spec_host_sync_us"].value + host_us + per_request_us
    else:
        cycle = (gpu + C["spec_host_sync_us"].value) / (1.0 - C["spec_host_fraction"].value)
    overhead = cycle - draft_us - verify.total_us - extend_us
    tau = accept_length(ctx.rate, num_steps=s.num_steps, topk=s.topk, num_draft_tokens=s.num_draft_tokens)
    tok_s = tau * batch / cycle * 1e6
    parts = (("draft steps", draft_us), ("draft allreduce (in steps)", sum(f.allreduce_us for f in steps)),
             ("draft launch-bound (in steps)", sum(max(0.0, f.host_us - f.gpu_us) for f in steps)
              if queued_us is None else max(0.0, queued_us - sum(f.gpu_us + f.exposed_host_us for f in steps))),
             ("verify", verify.total_us), ("verify allreduce (in verify)", verify.allreduce_us),
             ("verify launch-bound (in verify)", max(0.0, verify.host_us - verify.gpu_us)),
             ("verify attention (in verify)", dict(verify.by_kind_us).get("attention", 0.0)),
             ("draft extend", extend_us), ("overhead", overhead),
             ("host not overlapped (in overhead)", host_us), ("host per running request (in overhead)", per_request_us))
    plain_tok_s = _plain_running(ctx, offered) / base_us * 1e6
    return SpecPoint(cycle_us=cycle, tok_s=tok_s, accept_length=tau, speedup=tok_s / plain_tok_s, parts_us=parts,
                     running=batch, cap_source=cap_source)


def _batch(ctx: _Ctx, batch: int, tokens: int, pad: int = 0, logit_rows: int = 0, verify: bool = False) -> Batch:
    return Batch(sequences=batch, tokens_per_sequence=tokens, context=ctx.req.context, dp=ctx.req.dp_attention,
                 padded=pad, logit_rows=logit_rows, verify=verify)


def _draft_forward(ctx: _Ctx, s: SpecSettings, batch: int, tokens: int, policy: str, *, graph: str = "full",
                   attention: str = "decode", loop: bool = False, pad: int = 0, target_hidden: bool = False,
                   sample_rows: int = 0, logit_rows: int = 0) -> ForwardTime:
    """One draft forward + the engine's own kernels (``spec.draft_step_kernels``: fc where ``target_hidden``, SGLang's
    softmax + top-k on ``sample_rows``, vLLM's remap).  The proposer's bookkeeping (``loop``) and a Python-launched
    lm_head / argmax / remap (``Runtime.draft_logits_eager``) join the host time; the step is max(GPU, host)."""
    req, rt = ctx.req, ctx.runtime(s)
    extra, remap = draft_step_kernels(req, ctx.draft, s, batch, tokens, rt.version, target_hidden=target_hidden,
                                      sample_rows=sample_rows)
    out, _ = _forward(ctx, ctx.draft, _batch(ctx, batch, tokens, pad, logit_rows), policy, extra=extra, graph=graph,
                      quant="target" if s.family == "NEXTN" else "none", attention=attention)
    launches = (rt.draft_loop_kernels if loop else 0) + (2 + remap if rt.draft_logits_eager and graph != "eager" else 0)
    if launches:        # eager: the lm_head GEMM + argmax (+ remap) are already among the forward's launches
        out = dataclasses.replace(out, host_us=out.host_us + launches * C["eager_kernel_host_us"].value)
    return out


def _batch_point(ctx: _Ctx, batch: int, policy: str) -> BatchPoint:
    base, _ = _base_step(ctx, batch, policy)
    spec = _spec_point(ctx, ctx.req.spec, batch, policy, base.total_us) if ctx.req.spec else None
    return BatchPoint(batch=batch, step_us=base.total_us, spec=spec, running=_plain_running(ctx, batch))


def _speedup(ctx: _Ctx, batch: int, policy: str, settings: SpecSettings | None = None) -> float:
    base, _ = _base_step(ctx, batch, policy)
    return _spec_point(ctx, settings or ctx.req.spec, batch, policy, base.total_us).speedup


def _crossover(ctx: _Ctx, policy: str) -> int | None:
    """Smallest batch ≤ MAX_CROSSOVER_BATCH with speed-up < 1 (doubling, then bisection)."""
    if _speedup(ctx, 1, policy) < 1.0:
        return 1
    lo, hi = 1, 2
    while hi <= MAX_CROSSOVER_BATCH and _speedup(ctx, hi, policy) >= 1.0:
        lo, hi = hi, hi * 2
    if hi > MAX_CROSSOVER_BATCH:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _speedup(ctx, mid, policy) >= 1.0 else (lo, mid)
    return hi


def _at_context(req: PerfRequest, context: int, policy: str) -> ContextPoint:
    """Plain and speculative decoding of ``req`` at another context length (same batch)."""
    ctx = _context(dataclasses.replace(req, context=context))
    base, _ = _base_step(ctx, req.batch, policy)
    spec = _spec_point(ctx, req.spec, req.batch, policy, base.total_us) if req.spec else None
    return ContextPoint(context=context, batch=req.batch, step_us=base.total_us, spec=spec,
                        running=_plain_running(ctx, req.batch))


def _context_sweep(req: PerfRequest, policy: str) -> tuple[ContextPoint, ...]:
    """``SWEEP_CONTEXTS`` up to the model's limit, plus the requested context."""
    limit = req.model.max_position_embeddings
    contexts = sorted({c for c in SWEEP_CONTEXTS if c <= limit} | {req.context})
    return tuple(_at_context(req, c, policy) for c in contexts)


def _crossover_context(req: PerfRequest, policy: str, sweep: tuple[ContextPoint, ...]) -> int | None:
    """The shortest context of the sweep from which speculation loses at the requested batch, bisected to
    ``CONTEXT_RESOLUTION`` tokens between the last context that pays and the first that loses (None: it pays at
    every context swept; the first swept context when it loses from the start)."""
    losing = [i for i, p in enumerate(sweep) if p.spec.speedup < 1.0]
    if not losing:
        return None
    first = losing[0]
    if first == 0:
        return sweep[0].context
    lo, hi = sweep[first - 1].context, sweep[first].context
    while hi - lo > CONTEXT_RESOLUTION:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _at_context(req, mid, policy).spec.speedup >= 1.0 else (lo, mid)
    return hi


def _grid(req: PerfRequest) -> list[SpecSettings]:
    algo = req.spec.algorithm
    if req.engine == "vllm" or req.spec.family == "NEXTN" and req.engine == "vllm":
        return [SpecSettings(algorithm=algo, num_steps=s, topk=1, num_draft_tokens=s + 1) for s in range(1, 8)]
    out = []
    for steps in range(1, 7):
        out.append(SpecSettings(algorithm=algo, num_steps=steps, topk=1, num_draft_tokens=steps + 1))
        for topk in (2, 4, 8):
            most = 1 + sum(topk ** d for d in range(1, steps + 1))
            for draft in (4, 8, 16, 32, 64):
                if steps + 1 < draft <= most:
                    out.append(SpecSettings(algorithm=algo, num_steps=steps, topk=topk, num_draft_tokens=draft))
    return out


def _runnable(ctx: _Ctx, s: SpecSettings) -> bool:
    """Whether the engine runs grid setting ``s`` under the request's fixed choices (e.g. SGLang spec v2 asked
    for on a release that refuses it for topk > 1: those settings leave the grid)."""
    try:
        ctx.runtime(s)
    except PlanInputError:
        return False
    return True


def _best_settings(ctx: _Ctx, policy: str) -> dict:
    base, _ = _base_step(ctx, ctx.req.batch, policy)
    scored = [(_spec_point(ctx, s, ctx.req.batch, policy, base.total_us), s) for s in _grid(ctx.req)
              if _runnable(ctx, s)]
    point, s = max(scored, key=lambda ps: ps[0].speedup)
    return {**s.to_dict(), "batch": ctx.req.batch, "speedup": round(point.speedup, 3),
            "accept_length": round(point.accept_length, 3), "tok_s": round(point.tok_s, 2),
            "grid": f"{len(scored)} settings: steps 1–6, topk 1/2/4/8, draft tokens steps+1 or 4–64"
            if ctx.req.engine == "sglang" else f"{len(scored)} chain settings (vLLM num_speculative_tokens 1–7)"}


def _backend_point(ctx: _Ctx, policy: str, usable: bool, why: str) -> BackendPoint:
    base, main = _base_step(ctx, ctx.req.batch, policy)
    if not math.isfinite(base.total_us):
        return BackendPoint(policy=policy, usable=False, why=why, us_per_call=None, base_tok_s=None, spec_tok_s=None,
                            source="cannot run on this link")
    spec = _spec_point(ctx, ctx.req.spec, ctx.req.batch, policy, base.total_us) if ctx.req.spec else None
    return BackendPoint(policy=policy, usable=usable, why=why, us_per_call=main.us if main else 0.0,
                        base_tok_s=_plain_running(ctx, ctx.req.batch) / base.total_us * 1e6,
                        spec_tok_s=spec.tok_s if spec else None,
                        source=main.source if main else "no collectives at tp 1")


def _spec_v2_alts(req: PerfRequest, rt: Runtime) -> list:
    """SGLang's other speculative mode where this release can run it: spec v2 by SGLANG_ENABLE_SPEC_V2=1
    (``--enable-beta-spec`` in 0.5.4) on a release whose default is v1, or the release's default back."""
    if req.engine != "sglang" or rt.spec_v2 is None:
        return []
    s, asked = req.spec, req.sglang_spec_v2
    if asked is not None:
        default, _ = sglang_spec_v2(rt.version, s.topk, s.family, None)
        if default == rt.spec_v2:
            return []
        return [(f"spec {'v2' if default else 'v1'} (the release's default, without --sglang-spec-v2)",
                 {"sglang_spec_v2": None}, ())]
    if rt.spec_v2:
        return []
    try:
        sglang_spec_v2(rt.version, s.topk, s.family, True)
    except PlanInputError:
        return []
    flag = SPEC_V2_FLAG if rt.version >= (0, 5, 5) else "--enable-beta-spec"
    return [(f"spec v2 ({flag}: the overlap scheduler kept under speculation)", {"sglang_spec_v2": True}, (flag,))]


def _what_ifs(ctx: _Ctx, policy: str) -> tuple[tuple[str, float, float, tuple[str, ...]], ...]:
    """The same request under other engine settings: the newest engine version, a split-KV verify backend,
    CUDA graphs on.  (change, speed-up, break-even accept length, flags)."""
    req, rt = ctx.req, ctx.runtime(ctx.req.spec)
    alts = []
    if rt.version_given and rt.version < NEWEST[req.engine]:
        newest = ".".join(map(str, NEWEST[req.engine]))
        alts.append((f"{req.engine} {newest}", {"engine_version": None, "sglang_spec_v2": None}, ()))
    alts += _spec_v2_alts(req, rt)
    if not rt.verify_split_kv and not is_amd(req.gpu.vendor):  # SGLang triton; vLLM FLASH_ATTN on FA2
        alts.append(split_kv_alternative(req.engine))  # (perf.fa2_verify); its FlashInfer has no ROCm build
    if req.eager:
        alts.append(("with CUDA graphs", {"eager": False}, ()))
    running, why = running_requests(req, req.batch, True)
    if running < req.batch and req.max_running_requests is None:
        alts.append((f"--max-running-requests {req.batch} (SGLang's speculative running-request cap lifted; its "
                     "KV pool must hold them)", {"max_running_requests": req.batch},
                     (f"--max-running-requests {req.batch}",)))
    out = []
    for label, change, flags in alts:
        alt = _context(dataclasses.replace(req, **change))
        base, _ = _base_step(alt, req.batch, policy)
        point = _spec_point(alt, req.spec, req.batch, policy, base.total_us)
        out.append((label, point.speedup, point.breakeven_accept_length, flags))
    return tuple(out)


# ------------------------------------------------------------------------------------------------ output
def _inputs(req: PerfRequest, ctx: _Ctx, policy: str) -> dict:
    return {"model": req.model.name, "gpu": req.gpu.name, "tp": req.tp, "ep": req.ep, "dp_attention": req.dp_attention,
            "max_running_requests": req.max_running_requests,
            "link": ctx.setup.link.kind, "batch": req.batch, "context": req.context, "engine": req.engine,
            "impl": ctx.impl.name, "speculative_settings": req.spec.to_dict() if req.spec else None,
            "draft_model": ctx.draft.name if ctx.draft is not None else None,
            "runtime": ctx.runtime(req.spec).to_dict()}


def _assumptions(ctx: _Ctx) -> tuple[str, ...]:
    out = list(ctx.dev.notes) + list(ctx.setup.link.notes)
    out.append(f"kernel layout: {ctx.impl.name} ({ctx.impl.source})")
    if ctx.req.nvfp4_gemm_backend is not None:
        from tpkit.perf.fp4_backend import nvfp4_backend_notes
        out += nvfp4_backend_notes(ctx.req.nvfp4_gemm_backend, ctx.req.model.quant)
    splits = splits_note(ctx.runtime(None), ctx.req.model, ctx.req.context + 1, ctx.req.gpu.sm_count,
                         ctx.shard.attention_tp)
    out += [splits] if splits else []
    out += graph_notes(ctx.req, ctx.runtime(None), ctx.runtime(ctx.req.spec) if ctx.req.spec else None,
                       _plain_running(ctx, ctx.req.batch), running_requests(ctx.req, ctx.req.batch, True)[0])
    if ctx.req.model.moe is not None:
        out.append("routed experts: uniform top-k routing, expected distinct experts E·(1−(1−k/E)^T) (an upper bound "
                   "for skewed routers)")
        out += grouped_mm_notes(ctx.impl, ctx.dev)
    if ctx.req.spec is not None:
        out.append(ctx.rate_source)
        out.append("tree acceptance: the r-th candidate is right with probability a·(1−a)^(r−1); the best "
                   "num_draft_tokens−1 nodes are kept")
        if ctx.req.spec.family in ("EAGLE", "EAGLE3") and ctx.req.draft is None:
            out.append(f"draft: {ctx.draft.name}: 1 Llama-style layer, hidden {ctx.draft.hidden_size}, MLP "
                       f"{ctx.draft.intermediate_size}, {ctx.draft.num_kv_heads} KV heads, vocab {ctx.draft.vocab_size}, "
                       "bf16, at the target's TP" + (f" (--speculative-draft-model-path {ctx.req.draft_path!r} has no "
                                                     "config on this machine: HF cache, catalog; its shape assumed)"
                                                     if ctx.req.draft_path else ""))
        host = (f"{C['spec_host_fraction'].value:.1%} exposed host time ({C['spec_host_fraction'].source})"
                if ctx.runtime(ctx.req.spec).spec_overlap else
                f"{C['sglang_spec_v1_host_us'].value / 1e3:g} ms of host work per cycle without overlap "
                f"({C['sglang_spec_v1_host_us'].confidence}: {C['sglang_spec_v1_host_us'].source})")
        out.append(f"per cycle: {C['spec_small_kernels'].value:g} small kernels + {C['spec_host_sync_us'].value:g} µs "
                   f"GPU→CPU sync ({C['spec_host_sync_us'].source}) + {host}")
    return tuple(out)
