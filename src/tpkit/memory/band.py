"""Error bands: every estimated ledger term carries ± bytes, and a plan's band is the same plan re-made with
every estimate at its low end and at its high end (pure; no engine-specific code).

How a term takes part:

    estimated(nominal, ±, term=…, item=…)   the bytes a planner should use for an estimated term: the nominal,
                                             or nominal ∓ ± while ``with_band`` re-plans at an end; the term is
                                             recorded for the plan's band
    measured_terms({term: bytes})            a term measured instead (a ``tpkit explain`` log anchor): it is used
                                             as given and has no band
    with_band(plan, *args, **kw)             plan three times (nominal; every estimated use at its low end; at its
                                             high end) → the nominal ``PlanResult`` with ``band`` set

The start-up terms (``tpkit.startup``: CUDA context, NCCL, cuBLAS, engine extras) go through ``estimated`` by
themselves; an engine routes its other estimates through it where it builds them (weights derived from a config,
vLLM's activation-peak and CUDA-graph estimates).  A term from a ``tpkit probe`` machine profile is a measurement:
it is not an estimate, so it has no band.

The ends move *uses* of memory: at the low end every estimated use is nominal − ±, which leaves the most memory for
the KV cache (the high token count); at the high end the fewest tokens.  The band is therefore the sum, line by
line, of the ± of every estimated term, carried through the engine's own arithmetic (a term an engine does not
charge, or charges before its snapshot, moves nothing).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from tpkit.records import dataclass
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Estimate", "Band", "band_end", "at_band_end", "estimated", "resolve", "estimated_weights",
           "estimated_share", "estimated_activation_peak", "measured_terms", "measured_term", "state_key",
           "with_band", "collecting", "aside", "unmeasured", "replan_weights", "WEIGHTS_DERIVED_SHARE",
           "WEIGHTS_DERIVED_QUANTIZED_SHARE", "ACTIVATION_PEAK_SHARE"]

WEIGHTS_DERIVED_SHARE = 0.01
"""± share of weights derived from a config (unquantised): vLLM's printed weights of 10 validation cases lie 0.1–1.4 %
above the derived bytes, 9 of 10 within 0.8 % (docs/accuracy.md, "Weights: derived vs printed")"""
WEIGHTS_DERIVED_QUANTIZED_SHARE = 0.02
"""± share of quantised weights derived from a config (scales, ignored layers, packing the config only implies); the
two FP8 cases are within 0.2 %, int4/AWQ/GPTQ have no printed evidence yet, hence twice the unquantised share"""
ACTIVATION_PEAK_SHARE = 0.25
"""± share of vLLM's profile-run activation peak estimated analytically (engines/vllm/profile.py)"""

_END: ContextVar[int] = ContextVar("tpkit_band_end", default=0)
_MEASURED: ContextVar[Mapping[str, tuple[Bytes, str]]] = ContextVar("tpkit_measured_terms", default={})
_SEEN: ContextVar[tuple[int, dict] | None] = ContextVar("tpkit_band_seen", default=None)
_COLLECTIONS = itertools.count(1)


@contextmanager
def _bound(var: ContextVar, value: Any) -> Iterator[None]:
    """``var`` holds ``value`` inside the block and its earlier value after it (the one set/reset of every context
    below)."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


@dataclass(frozen=True, kw_only=True, slots=True)
class Estimate:
    """One estimated (or measured) term a plan used."""

    term: str
    """what it is (``cuda_context``, ``nccl_init``, ``weights``, ``activation_peak`` …)"""
    item: str
    """its ledger name"""
    nominal: Bytes
    """the value planned with (bytes)"""
    uncertainty: Bytes
    """± bytes (0: measured)"""
    source: str
    """where the number and its band came from"""

    def to_dict(self) -> dict:
        return {"term": self.term, "item": self.item, "bytes": self.nominal.bytes,
                "uncertainty_bytes": self.uncertainty.bytes, "source": self.source}


@dataclass(frozen=True, kw_only=True, slots=True)
class Band:
    """The KV capacity a plan gives with every estimated term at its low and at its high end."""

    kv_tokens: tuple[int, int]
    """(lowest, highest) KV tokens per rank"""
    plus_minus_tokens: int
    """the larger distance from the nominal to an end (tokens): the "±" shown"""
    kv_blocks: tuple[int, int] | None = None
    """(lowest, highest) KV blocks, for planners that report blocks (vLLM)"""
    estimates: tuple[Estimate, ...] = ()
    """every estimated term, with its ±"""
    measured: tuple[Estimate, ...] = ()
    """terms given as measurements (no band)"""

    def to_dict(self) -> dict:
        return {"kv_tokens_range": list(self.kv_tokens), "plus_minus_tokens": self.plus_minus_tokens,
                "kv_blocks_range": list(self.kv_blocks) if self.kv_blocks else None,
                "estimated_terms": [e.to_dict() for e in self.estimates],
                "measured_terms": [e.to_dict() for e in self.measured]}


def band_end() -> int:
    """The end being planned: 0 nominal, −1 every estimated use at its low end, +1 at its high end."""
    return _END.get()


@contextmanager
def at_band_end(end: int) -> Iterator[None]:
    """Plan with every estimated use at its low (−1) or high (+1) end, or nominal (0)."""
    if end not in (-1, 0, 1):
        raise ValueError(f"band end must be -1, 0 or 1, got {end!r}")
    with _bound(_END, end):
        yield


@contextmanager
def measured_terms(values: Mapping[str, Bytes], *, source: str = "measured") -> Iterator[None]:
    """Use these terms as measured (no band): ``{"cuda_context": Bytes(…)}``; ``source`` says where from."""
    for term, value in values.items():
        if not isinstance(value, Bytes) or value.bytes < 0:
            raise TypeError(f"measured term {term!r} must be Bytes ≥ 0, got {value!r}")
    with _bound(_MEASURED, {**_MEASURED.get(), **{t: (v, source) for t, v in values.items()}}):
        yield


def measured_term(term: str) -> tuple[Bytes, str] | None:
    """(bytes, where) of ``term`` when it is measured in the current context (``measured_terms``), else None: a
    planner whose measured term already holds other lines (vLLM's 'Model loading took' holds the rotary cache and
    the backends' load-time copies) zeroes those lines with it."""
    return _MEASURED.get().get(term)


@contextmanager
def unmeasured(*terms: str) -> Iterator[None]:
    """Plan with these terms estimated again, not measured: a verdict's re-plan at another layout (tp, pp) or
    quantisation than the measuring run's, where a per-rank measurement of that run does not hold."""
    with _bound(_MEASURED, {t: v for t, v in _MEASURED.get().items() if t not in terms}):
        yield


def replan_weights(*, tp: int, pp: int, changed: str | None) -> tuple[bool, str]:
    """For a verdict's re-plan of a fix that changes ``changed`` (``"tp 4"``, ``"quantization fp8"``; None: only a
    budget knob): (drop the measured weights?, the words the fix adds).  A measured weights term (``tpkit plan
    --from-log``: vLLM's 'Model loading took', SGLang's 'Load weight end. mem usage') is per rank at the log's layout
    (tp ``tp``, pp ``pp``) and quantisation, as ``cli.plan`` already says for a layout given on the command line
    ("weights not taken from the log"): a fix at another layout or quantisation is re-planned with the derived
    weights (and the load-time lines charged again), and says so.  (False, "") without measured weights or a
    change."""
    measured = measured_term("weights")
    if measured is None or changed is None:
        return False, ""
    return True, (f" (re-planned with derived weights at {changed}: the log's measured weights, {measured[1]}, "
                  f"hold per rank at its own tp {tp}, pp {pp} and quantization only)")


@contextmanager
def collecting() -> Iterator[dict]:
    """Record the estimates made inside (``{(term, item): Estimate}``)."""
    seen: dict = {}
    with _bound(_SEEN, (next(_COLLECTIONS), seen)):
        yield seen


@contextmanager
def aside() -> Iterator[None]:
    """Plan without recording into the collection in progress: a verdict's re-plans of its fixes (another TP,
    utilisation …) must not add their terms to this plan's band."""
    with _bound(_SEEN, None):
        yield


def state_key() -> tuple:
    """What a planned term depends on besides its inputs, for caches of planned terms: the end, the measured terms,
    and the collection in progress (a cached term would not be recorded in it, so each collection misses once)."""
    collection = _SEEN.get()
    return (_END.get(), tuple(sorted((t, v.bytes) for t, (v, _) in _MEASURED.get().items())),
            collection[0] if collection else 0)


def resolve(nominal: Bytes, uncertainty: Bytes, *, term: str, item: str, source: str = "") -> tuple[Bytes, Bytes, str]:
    """(bytes to plan with, its ±, its source) for one estimated term at the current end; records it."""
    measured = _MEASURED.get().get(term)
    collection = _SEEN.get()
    seen = collection[1] if collection else None
    if measured is not None:
        value, where = measured
        if seen is not None:
            seen[(term, item)] = Estimate(term=term, item=item, nominal=value, uncertainty=Bytes(0), source=where)
        return value, Bytes(0), where
    if seen is not None and uncertainty.bytes:
        seen[(term, item)] = Estimate(term=term, item=item, nominal=nominal, uncertainty=uncertainty, source=source)
    value = nominal + uncertainty * _END.get() if uncertainty.bytes else nominal
    return (value if value.bytes > 0 else Bytes(0)), uncertainty, source


def estimated(nominal: Bytes, uncertainty: Bytes, *, term: str, item: str, source: str = "") -> Bytes:
    """The bytes to plan an estimated term with (see ``resolve``)."""
    return resolve(nominal, uncertainty, term=term, item=item, source=source)[0]


def estimated_share(nominal: Bytes, share: float, *, term: str, item: str, source: str = "") -> Bytes:
    """An estimate whose ± is ``share`` of itself."""
    return estimated(nominal, Bytes(round(nominal.bytes * share)), term=term, item=item,
                     source=source or f"± {share:.0%} of the estimate")


def estimated_activation_peak(nominal: Bytes) -> Bytes:
    """vLLM's profile-run activation peak, estimated analytically: ± ``ACTIVATION_PEAK_SHARE``."""
    return estimated_share(nominal, ACTIVATION_PEAK_SHARE, term="activation_peak",
                           item="activation peak (profile run, estimate)")


def estimated_weights(weights: Any, *, item: str = "weights") -> Bytes:
    """Weight bytes per rank of a ``WeightsPlan``: derived from the config (``method`` says so) with
    ± ``WEIGHTS_DERIVED_SHARE`` (``WEIGHTS_DERIVED_QUANTIZED_SHARE`` when quantised); exact otherwise (safetensors
    headers, or bytes the caller gave)."""
    nominal = weights.bytes_per_rank
    if "derived" not in str(getattr(weights, "method", "")):
        if measured_term("weights") is not None:  # a measured load delta replaces exact weights too
            return resolve(nominal, Bytes(0), term="weights", item=item)[0]
        return nominal  # exact (safetensors headers) or given by the caller
    share = WEIGHTS_DERIVED_QUANTIZED_SHARE if getattr(weights, "quant", None) is not None else WEIGHTS_DERIVED_SHARE
    return estimated_share(nominal, share, term="weights", item=item,
                           source=f"derived from the config: ± {share:.0%} (loader buffers, padding, scales)")


def with_band(plan: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``plan(*args, **kwargs)`` with its band: the nominal result with ``band`` (a ``Band``) set."""
    with collecting() as seen:
        nominal = plan(*args, **kwargs)
    with at_band_end(-1):
        most = plan(*args, **kwargs)
    with at_band_end(1):
        least = plan(*args, **kwargs)
    tokens = sorted((nominal.kv_tokens, most.kv_tokens, least.kv_tokens))
    blocks = None
    if "kv_blocks" in nominal.extra:
        b = sorted((nominal.extra["kv_blocks"], most.extra["kv_blocks"], least.extra["kv_blocks"]))
        blocks = (b[0], b[-1])
    estimates = tuple(e for e in seen.values() if e.uncertainty.bytes)
    measured = tuple(e for e in seen.values() if not e.uncertainty.bytes)
    band = Band(kv_tokens=(tokens[0], tokens[-1]),
                plus_minus_tokens=max(tokens[-1] - nominal.kv_tokens, nominal.kv_tokens - tokens[0]),
                kv_blocks=blocks, estimates=estimates, measured=measured)
    return replace(nominal, band=band)
