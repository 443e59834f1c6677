"""The answer of a planner: one frozen value both engines return, with a stable JSON form.

JSON schema (``PlanResult.to_json_dict``), version ``SCHEMA_VERSION``:

===================== ============================================================
key                   meaning
===================== ============================================================
schema                ``"tpkit.plan/1"``: the document's name, as every ``--json`` document carries one
schema_version        int, bumped on incompatible change
engine                ``"sglang"`` or ``"vllm"``
engine_version        the rule set used (e.g. ``"0.5.23"``)
model                 {name, source, architecture, ...}
gpu                   {name, total_bytes, ...}
parallel              {tp, pp, dp, ep}
ledger                list of {item, bytes, source, kind[, uncertainty_bytes]} for the limiting GPU;
                      ``uncertainty_bytes`` (± bytes) only on estimated lines
kv_tokens             int, KV token capacity per rank as the engine prints it
kv_pool               the KVPoolPlan (buffers, shapes) or null when it does not fit
max_running_requests  int or null
max_concurrency       float: requests of ``context_length`` tokens that fit at once
context_length        int, tokens per request used for max_concurrency
verdict               {fits: bool, message: str, knob: str|null}
warnings              list of str
engine_log            list of str: the lines the engine itself would print
kv_tokens_range       [lo, hi] KV tokens per rank with every estimated term at its high / low end
                      (only when the plan was made with a band: ``tpkit.memory.band.with_band``, as
                      ``tpkit plan`` does); equal ends when every term is exact or measured
kv_blocks_range       [lo, hi] KV blocks, next to ``kv_blocks`` (vLLM), with the band
band                  {kv_tokens_range, plus_minus_tokens, kv_blocks_range, estimated_terms: [{term, item,
                      bytes, uncertainty_bytes, source}], measured_terms: [...]}, with the band
ledger_rank           which GPU the ledger is for (e.g. "per GPU (catalog total)", "per GPU (--gpu-memory total)")
(engine extras)       ``sglang`` {…}: SGLang's own numbers; vLLM: ``kv_blocks``, ``block_size`` and ``vllm`` {…}:
                      vLLM's own numbers (rule_era, gpu_memory_utilization, requested_bytes, available_kv_bytes,
                      bytes_per_block, kv_groups, cuda_graph_bytes, …), also at the top level (schema 1)
===================== ============================================================

Additions since schema 1 (no key changed meaning, so ``schema_version`` stays 1): ``uncertainty_bytes`` on
ledger lines, ``kv_tokens_range``, ``kv_blocks_range``, ``band``, the ``vllm`` block, ``verdict.fixes`` (the flags of
each fix the verdict names), ``schema`` (session 23: the name beside ``schema_version``), ``verdict.starts`` (session
26: False when the engine refuses the command at start-up, ``cli.startcheck``).
"""

from __future__ import annotations

from dataclasses import field

from tpkit.memory.band import Band
from tpkit.memory.kvpool import KVPoolPlan
from tpkit.memory.ledger import Ledger
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Verdict", "PlanResult", "SCHEMA_VERSION", "SCHEMA"]

SCHEMA_VERSION = 1
SCHEMA = f"tpkit.plan/{SCHEMA_VERSION}"
"""the document's ``schema`` key, named as ``tpkit explain --json`` names its own (added beside ``schema_version``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Verdict:
    """Does it fit, and if not, what to change and by how much."""

    fits: bool
    message: str
    knob: str | None = None
    """the flag to turn (e.g. ``"--mem-fraction-static"``), when it does not fit"""
    fixes: tuple[str, ...] = ()
    """the flags of each fix the message names, as a re-run of the same command takes them (``"--tp 2"``,
    ``"--gpu A100-SXM-40GB-MIG-2g.10gb"``): each re-planned and found to fit (helper mig18b)"""
    starts: bool = True
    """False: the engine refuses the command at start-up whatever the memory (``fits`` is then False too, and the
    verdict reads WILL NOT START: ``cli.startcheck``, helper ux26)"""

    def to_dict(self) -> dict:
        return {"fits": self.fits, "message": self.message, "knob": self.knob, "fixes": list(self.fixes),
                "starts": self.starts}


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanResult:
    """A plan of one engine for one layout: the ledger, the KV pool, capacity with its band, verdict, warnings and the
    lines the engine would log (``to_dict``: the JSON schema in the module docstring)."""
    engine: str
    engine_version: str
    model: dict[str, Any]
    gpu: dict[str, Any]
    parallel: ParallelSpec
    ledger: Ledger
    kv_tokens: int
    """KV token capacity per rank, as the engine prints it"""
    kv_pool: KVPoolPlan | None
    max_running_requests: int | None
    max_concurrency: float
    """requests of ``context_length`` tokens that fit in the pool at once"""
    context_length: int
    """tokens per request (context length / max_model_len)"""
    verdict: Verdict
    warnings: tuple[str, ...] = ()
    engine_log: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    band: Band | None = None
    """the KV capacity with every estimated term at its ends (``tpkit.memory.band.with_band``); None: not made"""

    def _band_keys(self) -> dict[str, Any]:
        if self.band is None:
            return {}
        out: dict[str, Any] = {"kv_tokens_range": list(self.band.kv_tokens)}
        if self.band.kv_blocks is not None:
            out["kv_blocks_range"] = list(self.band.kv_blocks)
        out["band"] = self.band.to_dict()
        return out

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "engine": self.engine,
            "engine_version": self.engine_version,
            "model": self.model,
            "gpu": self.gpu,
            "parallel": self.parallel.to_dict(),
            "ledger": self.ledger.to_list(),
            "ledger_rank": self.ledger.rank_label,
            "kv_tokens": self.kv_tokens,
            "kv_pool": self.kv_pool.to_dict() if self.kv_pool else None,
            "max_running_requests": self.max_running_requests,
            "max_concurrency": self.max_concurrency,
            "context_length": self.context_length,
            "verdict": self.verdict.to_dict(),
            "warnings": list(self.warnings),
            "engine_log": list(self.engine_log),
            **self._band_keys(),
            **self.extra,
        }
