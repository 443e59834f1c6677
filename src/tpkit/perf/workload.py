"""A closed-loop benchmark's throughput: output tokens / wall time of a schedule of multi-turn requests (pure).

    in:  ``Workload`` (requests, each a tuple of ``Turn`` (prompt tokens, output tokens); client threads), and the
         per-step costs: the step (plain) or cycle (speculative) time at ``n`` running requests, the tokens each
         request gains per step (1, or the accept length), the time of a prefill of some new prompts
    out: ``WorkloadRun`` (wall time, output tokens, tok/s, the time spent at each number of running requests)

Why: some published speed-ups are not a decode step at ``batch``.  SpecForge's ``benchmarks/benchmarker/base.py``
``Benchmarker.run`` (every version from 72337ef0, 2025-11-23, to 34c67a01, 2026-01-23) times one sgl ``run_batch``
with ``num_threads`` = batch over a benchmark's questions and divides every output token by that wall time.  sgl's
``run_batch`` hands the questions to a thread pool of that size: each thread takes the next question, runs its
turns in order (turn 2's prompt holds turn 1's answer, so it starts only when turn 1 ends) and then takes the next
question.  The server (``--max-running-requests`` = batch, set by ``bench_eagle3.py``) decodes every request a
thread has sent, so the running batch is the number of threads with a turn in flight: ``batch`` while questions
remain, then falling as threads run out.  The wall time therefore holds prefills and a tail at falling concurrency,
and its tok/s weights the step at every concurrency by the time spent there.

The schedule here (``run_schedule``): threads take requests in order; a turn is first prefilled (new turns that
arrive together are prefilled in one pass, during which no request decodes: SGLang runs a prefill batch before the
next decode batch), then decoded with the others; every step all running requests gain ``tokens_per_step`` tokens
(fluid: a turn ends after ceil(output / tokens_per_step) steps, so a speculative turn's last cycle may overshoot,
as the engine's does); when turns end, their threads send the next turn or take the next request.  Time is the sum
of the step and prefill costs; nothing else (HTTP, the client's own time) is charged, on either side.

``workload_speedup`` prices a ``PerfRequest``'s plain step and speculative cycle at every concurrency 1 … threads
(``workload_costs``) and runs the schedule on both sides: the ratio is the workload's speed-up.
"""

from __future__ import annotations

import math
from typing import Callable

from tpkit.errors import PlanInputError
from tpkit.records import dataclass

__all__ = ["Turn", "Workload", "WorkloadRun", "WorkloadCosts", "run_schedule", "spread_lengths", "workload_costs",
           "workload_speedup"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Turn:
    """One turn of a request."""

    prompt_tokens: int
    """new prompt tokens the turn prefills (the part not already in the prefix cache) (count)"""
    output_tokens: int
    """tokens the turn generates (count)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Workload:
    """Requests sent by ``threads`` client threads, each thread taking the next request when its last one ends."""

    requests: tuple[tuple[Turn, ...], ...]
    """the requests in the order the threads take them; each is its turns in order"""
    threads: int
    """client threads = the most requests in flight (count)"""
    context: int = 0
    """tokens in each sequence's KV cache the step costs are priced at (count); 0 = ``mean_context``"""

    @property
    def output_tokens(self) -> int:
        return sum(t.output_tokens for r in self.requests for t in r)

    def mean_context(self, cached_prefix: int = 0) -> int:
        """Token-weighted mean context of the decode steps: each generated token sees the cached prefix, the turn's
        earlier prompts and answers, its own prompt and half its own answer on average (count)."""
        weighted = 0.0
        for req in self.requests:
            before = cached_prefix
            for t in req:
                before += t.prompt_tokens
                weighted += t.output_tokens * (before + t.output_tokens / 2)
                before += t.output_tokens
        total = self.output_tokens
        return round(weighted / total) if total else cached_prefix


@dataclass(frozen=True, kw_only=True, slots=True)
class WorkloadRun:
    """One side of the schedule."""

    wall_us: float
    """wall time from the first prefill to the last token (µs)"""
    output_tokens: float
    """tokens generated (count)"""
    busy_us: tuple[tuple[int, float], ...]
    """(running requests, decode time spent at that many) for every count that occurred (µs)"""
    prefill_us: float
    """time spent in prefills (µs)"""

    @property
    def tok_s(self) -> float:
        return self.output_tokens / self.wall_us * 1e6 if self.wall_us else 0.0


def run_schedule(workload: Workload, *, step_us: Callable[[int], float], tokens_per_step: float = 1.0,
                 prefill_us: Callable[[tuple[int, ...]], float] | None = None) -> WorkloadRun:
    """Run ``workload`` (module docstring): ``step_us(n)`` is one step's time at ``n`` running requests, every
    running request gains ``tokens_per_step`` tokens a step, ``prefill_us(prompts)`` the time of one prefill pass
    over new turns with these prompt lengths (None: prefills are free)."""
    if workload.threads < 1:
        raise PlanInputError(f"a workload needs at least one client thread; got threads={workload.threads}")
    if not tokens_per_step > 0:
        raise PlanInputError(f"tokens per step must be positive (1 for plain decoding, the accept length for "
                             f"speculation); got {tokens_per_step}")
    queue = list(workload.requests)[::-1]          # pop() takes the next request
    pending: list[tuple[tuple[Turn, ...], int]] = []   # (request, turn index) waiting for their prefill
    for _ in range(min(workload.threads, len(queue))):
        pending.append((queue.pop(), 0))
    running: list[list] = []                       # [tokens left, request, turn index]
    wall = prefill_total = 0.0
    busy: dict[int, float] = {}
    eps = 1e-9
    while pending or running:
        if pending:
            cost = prefill_us(tuple(req[i].prompt_tokens for req, i in pending)) if prefill_us else 0.0
            wall += cost
            prefill_total += cost
            running.extend([float(req[i].output_tokens), req, i] for req, i in pending)
            pending = []
        done = [r for r in running if r[0] <= eps]
        if not done:
            n = len(running)
            steps = max(1, math.ceil(min(r[0] for r in running) / tokens_per_step - eps))
            dt = steps * step_us(n)
            wall += dt
            busy[n] = busy.get(n, 0.0) + dt
            for r in running:
                r[0] -= steps * tokens_per_step
            done = [r for r in running if r[0] <= eps]
        running = [r for r in running if r[0] > eps]
        for _, req, i in done:                      # each ended turn's thread sends its next turn or request
            if i + 1 < len(req):
                pending.append((req, i + 1))
            elif queue:
                pending.append((queue.pop(), 0))
    return WorkloadRun(wall_us=wall, output_tokens=float(workload.output_tokens),
                       busy_us=tuple(sorted(busy.items())), prefill_us=prefill_total)


def spread_lengths(mean: float, cap: int, count: int) -> tuple[int, ...]:
    """``count`` output lengths on [0, ``cap``] with mean ``mean``: the quantiles (i + ½) / count of the
    maximum-entropy distribution on that interval with that mean (density ∝ exp(β·x), β solved from the mean; β = 0
    is the uniform), rounded to whole tokens.  Used where a source gives only a total of output tokens and the
    engine's max_new_tokens bounds each turn."""
    if not 0 < mean < cap:
        raise PlanInputError(f"the mean output length must lie strictly between 0 and the cap {cap}; got {mean}")

    def mean_of(beta: float) -> float:
        if abs(beta) < 1e-12:
            return cap / 2
        x = beta * cap
        return cap * (1 / -math.expm1(-x) - 1 / x)

    lo, hi = -50.0 / cap, 50.0 / cap
    for _ in range(200):                           # mean_of is increasing in beta
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_of(mid) < mean else (lo, mid)
    beta = (lo + hi) / 2

    def quantile(p: float) -> float:
        if abs(beta) < 1e-12:
            return p * cap
        return math.log1p(p * math.expm1(beta * cap)) / beta

    return tuple(round(quantile((i + 0.5) / count)) for i in range(count))


@dataclass(frozen=True, kw_only=True, slots=True)
class WorkloadCosts:
    """The per-step costs a closed-loop workload (``perf.workload``) is run on, at one context."""

    step_us: tuple[float, ...]
    """plain step at 1, 2, … threads running requests (µs)"""
    cycle_us: tuple[float, ...]
    """speculative cycle at 1, 2, … threads running requests (µs)"""
    accept_length: float
    """tokens a request gains per cycle (count)"""
    ctx: object
    """the ``perf.plan`` context the prefills are priced in"""
    policy: str
    """the all-reduce policy of the steps"""

    def prefill_us(self, prompts: tuple[int, ...], cached: int, speculative: bool) -> float:
        """One prefill pass over ``prompts`` new tokens per sequence (their mean; ``cached`` tokens of prefix each)
        without a CUDA graph (sglang 0.5.6 ``server_args.py``: ``enable_piecewise_cuda_graph = False``, so an extend
        batch launches every kernel: ``eager_kernel_host_us`` each), the lm_head on the last token of each;
        speculative: the draft's extend over the same tokens follows (0.5.6 ``speculative/eagle_worker.py``
        ``forward_target_extend`` then ``forward_draft_extend``)."""
        from tpkit.perf.plan import _draft_forward, _forward
        from tpkit.perf.kernels import Batch

        if not prompts:
            return 0.0
        ctx, seqs = self.ctx, len(prompts)
        tokens = max(1, round(sum(prompts) / seqs))
        batch = Batch(sequences=seqs, tokens_per_sequence=tokens, context=cached, dp=ctx.req.dp_attention,
                      logit_rows=seqs)
        out, _ = _forward(ctx, ctx.req.model, batch, self.policy, graph="eager")
        total = out.total_us
        if speculative:
            s = ctx.req.spec
            total += _draft_forward(ctx, s, seqs, tokens, self.policy, graph="eager", target_hidden=True,
                                    attention=ctx.runtime(s).multi_token_attention, sample_rows=seqs,
                                    logit_rows=seqs).total_us
        return total


def workload_costs(req: PerfRequest, *, threads: int, context: int) -> WorkloadCosts:
    """Plain step and speculative cycle of ``req``'s deployment at every running-request count 1 … ``threads``, at
    ``context`` tokens, each priced exactly as ``plan_perf`` prices its own batch (graphs of the captured sizes, the
    running cap, the accept length given or the family default)."""
    if req.spec is None:
        raise PlanInputError("workload costs need speculative settings (--speculative-algorithm ...)")
    if threads < 1:
        raise PlanInputError(f"a workload needs at least one client thread; got threads={threads}")
    import dataclasses

    from tpkit.perf.plan import _base_step, _context, _plain_running, _spec_point
    from tpkit.perf.policy import default_policy

    ctx = _context(dataclasses.replace(req, context=context))
    policy = req.backend or default_policy(ctx.setup.link)
    steps, cycles, tau = [], [], None
    for n in range(1, threads + 1):
        base, _ = _base_step(ctx, n, policy)
        point = _spec_point(ctx, req.spec, n, policy, base.total_us)
        # a side whose running cap binds runs fewer requests: its time per request-step is scaled accordingly
        steps.append(base.total_us * n / _plain_running(ctx, n))
        cycles.append(point.cycle_us * n / point.running)
        tau = point.accept_length
    return WorkloadCosts(step_us=tuple(steps), cycle_us=tuple(cycles), accept_length=tau, ctx=ctx, policy=policy)


def workload_speedup(req, workload: Workload, *, cached_prefix: int = 0,
                     costs=None) -> tuple[float, WorkloadRun, WorkloadRun]:
    """(speculative tok/s ÷ plain tok/s, plain run, speculative run) of ``workload`` on the deployment of ``req``
    (a ``PerfRequest`` with speculative settings): the step, the cycle and the prefills priced by
    ``workload_costs`` at every concurrency from 1 to ``workload.threads``, at the workload's context
    (``Workload.context``, else its token-weighted mean with ``cached_prefix``); ``costs`` reuses a
    ``WorkloadCosts`` already built for the same deployment, threads and context."""
    if req.spec is None:
        raise PlanInputError("a workload speed-up needs speculative settings (--speculative-algorithm ...)")
    if costs is None:
        context = workload.context or workload.mean_context(cached_prefix)
        costs = workload_costs(req, threads=workload.threads, context=context)
    if len(costs.step_us) < workload.threads:
        raise PlanInputError(f"the costs were built for {len(costs.step_us)} threads; the workload has "
                             f"{workload.threads}: build them with workload_costs(req, threads={workload.threads}, ...)")
    plain = run_schedule(workload, step_us=lambda n: costs.step_us[n - 1],
                         prefill_us=lambda p: costs.prefill_us(p, cached_prefix, False))
    spec = run_schedule(workload, step_us=lambda n: costs.cycle_us[n - 1], tokens_per_step=costs.accept_length,
                        prefill_us=lambda p: costs.prefill_us(p, cached_prefix, True))
    return spec.tok_s / plain.tok_s, plain, spec
