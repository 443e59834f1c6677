"""Diagnosis: which phase failed, by how much and why, and fixes re-planned from the same measured numbers.

A fix changes one knob and re-does the engine's arithmetic on the log's own anchors (SGLang: pre-load
memory, weights, free after weights, the cell; vLLM: requested, non-KV memory, available KV, bytes per
token).  Terms a knob changes that the log cannot measure are scaled and the fix says so (``note``):
``--tp 2N`` halves the sharded weights and, for GQA models with enough KV heads, the cell; fp8 weights halve
16-bit weights; an fp8 KV cache halves a 16-bit cell.

The engines' diagnoses live in ``sgdiagnose`` (SGLang) and ``vdiagnose`` (vLLM); ``explain.result`` imports the one
its log needs (a log of one engine does not compile the other's rules).  This module keeps what both share.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tpkit.units import Bytes, GiB, format_bytes

__all__ = ["Fix", "Diagnosis", "MARGIN"]

MARGIN = GiB(1)
"""headroom a re-planned fraction leaves above the bare need (activations of the first batch)"""
_MAX_FRACTION = 0.95


@dataclass(frozen=True, kw_only=True, slots=True)
class Fix:
    flags: str
    kv_tokens: int | None
    fits: bool
    why: str
    note: str = ""

    def to_dict(self) -> dict:
        return {"flags": self.flags, "kv_tokens": self.kv_tokens, "fits": self.fits, "why": self.why,
                "note": self.note}


@dataclass(frozen=True, kw_only=True, slots=True)
class Diagnosis:
    status: str
    phase: str | None
    cause: str
    short_by: Bytes | None = None
    evidence: str = ""
    fixes: tuple[Fix, ...] = ()
    findings: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        return {"status": self.status, "phase": self.phase, "cause": self.cause,
                "short_by_bytes": None if self.short_by is None else self.short_by.bytes,
                "evidence": self.evidence, "fixes": [f.to_dict() for f in self.fixes],
                "findings": list(self.findings)}


def _g(b: Bytes | int | float) -> str:
    return format_bytes(b if isinstance(b, Bytes) else Bytes(int(b)))


def _kv_heads_shard(model, tp: int) -> bool:
    """True when doubling TP halves the per-rank KV cell (GQA/MHA with ≥ 2·tp KV heads, not MLA)."""
    if model is None:
        return False
    if getattr(model, "is_mla", False):
        return False
    heads = getattr(model, "num_key_value_heads", None) or getattr(model, "num_kv_heads", None)
    return bool(heads) and heads >= 2 * tp


def _weights_16bit(model) -> bool:
    return model is not None and getattr(model, "quant", None) is None
