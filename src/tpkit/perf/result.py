"""The frozen result of ``plan_perf`` and its JSON form (``tpkit perf --json``).

JSON keys (``schema`` "tpkit.perf/1", ``schema_version`` 1): ``baseline {step_s, tok_s}``, ``speculative {cycle_s, tok_s, accept_length,
speedup}`` (null without --speculative-algorithm), ``allreduce {calls_per_forward, us_per_call, backend,
source}``, ``crossover_batch`` (the smallest batch at which speculation loses; null if it never does up to
1024), ``best_settings`` (the best (num_steps, topk, num_draft_tokens) on the grid), ``verdict {message,
flags}``, ``crossover_context`` (at the requested batch, the shortest context from which speculation loses;
null if it pays at every context of the sweep), plus ``by_batch``, ``by_context``, ``backends``, ``breakdown``,
``confidence``, ``assumptions`` and the inputs.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import field

from tpkit.records import dataclass

__all__ = ["SpecPoint", "BatchPoint", "ContextPoint", "BackendPoint", "Verdict", "PerfResult", "SCHEMA_VERSION",
           "SCHEMA"]

SCHEMA_VERSION = 1
SCHEMA = f"tpkit.perf/{SCHEMA_VERSION}"
"""the document's ``schema`` key (beside ``schema_version``, which stays for the scripts that read it)"""


_ROUNDED: ContextVar[bool] = ContextVar("tpkit_perf_rounded", default=True)
"""whether ``to_dict`` rounds its numbers (the JSON) or keeps them exact (the text, which rounds them once itself)"""


def _r(x: float | None, digits: int = 4) -> float | None:
    if x is None or not _ROUNDED.get():
        return x
    return round(x, digits)


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecPoint:
    """Speculative decoding at one batch size."""

    cycle_us: float
    """one draft + verify + extend cycle (µs)"""
    tok_s: float
    """tokens per second over the batch"""
    accept_length: float
    """accepted tokens per cycle per sequence (the verified one included)"""
    speedup: float
    """tok_s / plain decoding tok_s"""
    parts_us: tuple[tuple[str, float], ...] = ()
    """(part of the cycle, µs): draft steps, verify, extend, overhead"""
    running: int = 0
    """requests the speculative side decodes at once (count): the batch, or SGLang's running-request cap when it
    is smaller (``engines.sglang.spec.spec_running_cap``); 0 = not recorded"""
    cap_source: str = ""
    """where the cap came from when it binds (``running`` < batch), else empty"""

    @property
    def breakeven_accept_length(self) -> float:
        """Accepted tokens per cycle at which speculation just matches plain decoding (cycle / plain step)."""
        return self.accept_length / self.speedup

    def to_dict(self) -> dict:
        return {"cycle_s": _r(self.cycle_us / 1e6, 7), "tok_s": _r(self.tok_s, 2),
                "accept_length": _r(self.accept_length, 3), "speedup": _r(self.speedup, 3),
                "breakeven_accept_length": _r(self.breakeven_accept_length, 3),
                "running_requests": self.running or None, "running_cap_source": self.cap_source or None,
                "parts_us": {k: _r(v, 1) for k, v in self.parts_us}}


@dataclass(frozen=True, kw_only=True, slots=True)
class BatchPoint:
    """Plain and speculative decoding at one batch size."""

    batch: int
    """sequences decoded together (count)"""
    step_us: float
    """plain decode step (µs)"""
    spec: SpecPoint | None = None
    """speculative decoding at this batch (None without a speculative algorithm)"""
    running: int = 0
    """requests plain decoding runs at once (count): the batch, or a smaller --max-running-requests; 0 = the batch"""

    @property
    def tok_s(self) -> float:
        """plain decoding tokens per second"""
        return (self.running or self.batch) / self.step_us * 1e6

    def to_dict(self) -> dict:
        return {"batch": self.batch, "step_s": _r(self.step_us / 1e6, 7),
                "tok_s": _r(self.tok_s, 2),
                "speculative": self.spec.to_dict() if self.spec else None}


@dataclass(frozen=True, kw_only=True, slots=True)
class ContextPoint:
    """Plain and speculative decoding at one context length, at the requested batch."""

    context: int
    """tokens already in each sequence's KV cache (count)"""
    batch: int
    """sequences decoded together (count)"""
    step_us: float
    """plain decode step (µs)"""
    spec: SpecPoint | None = None
    """speculative decoding at this context (None without a speculative algorithm)"""
    running: int = 0
    """requests plain decoding runs at once (count): the batch, or a smaller --max-running-requests; 0 = the batch"""

    tok_s = BatchPoint.tok_s
    """plain decoding tokens per second (the batch point's formula)"""

    def to_dict(self) -> dict:
        return {"context": self.context, "step_s": _r(self.step_us / 1e6, 7), "tok_s": _r(self.tok_s, 2),
                "speculative": self.spec.to_dict() if self.spec else None}


@dataclass(frozen=True, kw_only=True, slots=True)
class BackendPoint:
    """One all-reduce policy at the requested batch."""

    policy: str
    """``nccl``, ``custom``, ``oneshot``, ``symm_mem``"""
    usable: bool
    """the engine runs it as shipped (False: needs a patched engine or other hardware)"""
    why: str
    """availability reason"""
    us_per_call: float | None
    """the per-layer all-reduce of plain decoding (µs; None: cannot run on this link)"""
    base_tok_s: float | None
    """plain decoding with this policy"""
    spec_tok_s: float | None
    """speculative decoding with this policy"""
    source: str
    """where the per-call cost came from"""

    def to_dict(self) -> dict:
        return {"backend": self.policy, "usable": self.usable, "why": self.why, "us_per_call": _r(self.us_per_call, 2),
                "baseline_tok_s": _r(self.base_tok_s, 2), "speculative_tok_s": _r(self.spec_tok_s, 2),
                "source": self.source}


@dataclass(frozen=True, kw_only=True, slots=True)
class Verdict:
    """What to run, in the engine's own flags, and why."""

    message: str
    """the answer with its numbers"""
    flags: tuple[str, ...]
    """engine flags to use (empty: none needed)"""

    def to_dict(self) -> dict:
        return {"message": self.message, "flags": list(self.flags)}


@dataclass(frozen=True, kw_only=True, slots=True)
class PerfResult:
    """Everything ``tpkit perf`` reports."""

    inputs: dict
    """model, gpu, tp, link, batch, context, engine, speculative settings (JSON-able)"""
    baseline: BatchPoint
    """plain decoding at the requested batch"""
    speculative: SpecPoint | None
    """speculative decoding at the requested batch"""
    allreduce: dict
    """calls_per_forward, us_per_call, backend, source (+ all_gathers_per_forward)"""
    by_batch: tuple[BatchPoint, ...]
    """the batch sweep"""
    crossover_batch: int | None
    """smallest batch where speculation is slower than plain decoding (None: never up to 1024, or no spec)"""
    by_context: tuple[ContextPoint, ...]
    """the context sweep at the requested batch"""
    crossover_context: int | None
    """at the requested batch, the shortest context (tokens) from which speculation is slower than plain decoding
    (None: it pays at every context of the sweep, or no spec)"""
    best_settings: dict | None
    """best (num_steps, topk, num_draft_tokens) on the grid, with its speed-up"""
    backends: tuple[BackendPoint, ...]
    """every all-reduce policy at the requested batch"""
    verdict: Verdict
    """the answer"""
    breakdown: dict
    """where the plain step and the cycle spend their time"""
    confidence: dict
    """how sure each number is and why"""
    assumptions: tuple[str, ...] = field(default_factory=tuple)
    """everything taken as given (acceptance rate, draft shape, transfer of H200 efficiencies …)"""

    def to_dict(self, *, rounded: bool = True) -> dict:
        """The JSON form; ``rounded=False`` keeps the numbers exact for the text form, which formats them once
        more: rounding twice (170.0499 tok/s → 170.05 → "170.1") made the header disagree with the verdict, which
        is formatted from the exact numbers ("170.0"; helper rev11, 2026-12-05)."""
        token = _ROUNDED.set(rounded)
        try:
            return self._to_dict()
        finally:
            _ROUNDED.reset(token)

    def _to_dict(self) -> dict:
        base = self.baseline
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, **self.inputs,
                "baseline": {"step_s": _r(base.step_us / 1e6, 7), "tok_s": _r(base.tok_s, 2)},
                "speculative": self.speculative.to_dict() if self.speculative else None,
                "allreduce": self.allreduce, "crossover_batch": self.crossover_batch,
                "crossover_context": self.crossover_context,
                "best_settings": self.best_settings, "verdict": self.verdict.to_dict(),
                "by_batch": [p.to_dict() for p in self.by_batch],
                "by_context": [p.to_dict() for p in self.by_context], "backends": [b.to_dict() for b in self.backends],
                "breakdown": self.breakdown, "confidence": self.confidence, "assumptions": list(self.assumptions)}
