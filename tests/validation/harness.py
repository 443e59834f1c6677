"""Predict a validation case (``cases/{sglang,vllm}.json``) from its model config, GPU and flags alone.

Used by ``tests/validation/test_validation_set.py`` and ``scripts/validate.py``.  The same code path for every
case: build the inputs a user would pass (config file → ``ModelSpec``, catalog GPU or the printed total,
``ParallelSpec``, the engine's options from the recorded flags), plan at the three ends of the band
(``tpkit.memory.band``: nominal, every estimated term low, every estimated term high) and read the figure the
engine printed (KV tokens, KV blocks, the estimated maximum model length of a start-up error, or the maximum
concurrency).  No case is special-cased: a case tpkit cannot represent is skipped with its recorded reason.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from tpkit.engines.registry import get_engine
from tpkit.errors import TpkitError
from tpkit.hardware.catalog import custom_gpu, lookup_gpu
from tpkit.hardware.profile_io import profile_from_dict, select_gpus
from tpkit.memory.band import at_band_end
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.startup.links import link_choice
from tpkit.startup.table import swapped_table
from tpkit.units import Bytes

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EVIDENCE = ROOT / "src" / "tpkit" / "startup" / "data" / "evidence.json"
CASES = HERE / "cases"
CONFIGS = HERE / "configs"
ENGINES = ("sglang", "vllm")
_FAMILY_CC = {"turing": (7, 5), "ampere": (8, 0), "ampere-consumer": (8, 6), "ada": (8, 9), "hopper": (9, 0),
              "blackwell": (10, 0), "blackwell-consumer": (12, 0)}
"""a compute capability of each family, for GPUs known only by their printed total (the planner's only input
from it is the start-up cost family)"""


def load_cases(engine: str) -> list[dict]:
    return json.loads((CASES / f"{engine}.json").read_text())


def gpu_of(case: dict):
    """The GPU as a user would name it: the catalog entry (with the log's total when it prints one), or a GPU
    known only by its printed total and family."""
    total = case.get("gpu_total_bytes")
    if case.get("gpu"):
        gpu = lookup_gpu(case["gpu"])
        return replace(gpu, total_bytes=Bytes(total), total_source="the total the log prints") if total else gpu
    gpu = custom_gpu(Bytes(total), name=case.get("gpu_note") or "custom", source="the total the log prints")
    return replace(gpu, compute_capability=_FAMILY_CC.get(case.get("gpu_family") or "unknown"))


def inputs(case: dict):
    """(model, gpu, parallel, options) for ``case``."""
    cfg = json.loads((CONFIGS / case["config_file"]).read_text())
    model = from_config_dict(cfg, name=case["model"], source=case["config_file"])
    parallel = ParallelSpec(tp=case["tp"], pp=case["pp"], dp=case["dp"], ep=case["ep"])
    engine = get_engine(case["engine"])
    flags = {k: v for k, v in case["flags"].items() if v is not None}
    if flags.get("kv_cache_memory_bytes") is not None:  # the case stores the flag's byte count (--kv-cache-memory-bytes)
        flags["kv_cache_memory_bytes"] = Bytes(int(flags["kv_cache_memory_bytes"]))
    draft = flags.get("speculative_draft_model_path")
    if draft and (CONFIGS / draft).exists():  # a draft config kept with the case configs
        flags["speculative_draft_model_path"] = str(CONFIGS / draft)
    spec = flags.get("speculative_config")  # vLLM: a drafter "model" named by its config file kept with the cases
    if isinstance(spec, str) and '"model"' in spec:
        data = json.loads(spec)
        if str(data.get("model", "")).endswith(".json") and (CONFIGS / data["model"]).exists():
            flags["speculative_config"] = json.dumps({**data, "model": str(CONFIGS / data["model"])})
    links = link_choice(link=flags.pop("link", None), no_p2p=bool(flags.pop("no_p2p", False)),
                        nnodes=flags.pop("nnodes", None), num_gpus=parallel.num_gpus)  # tpkit plan's --link/--no-p2p/--nnodes
    options = engine.options(engine_version=case["tpkit_engine_version"], links=links, **flags)
    return model, gpu_of(case), parallel, options


def machine_of(case: dict, model, gpu, parallel, options):
    """The machine profile ``tpkit plan --machine`` would take for a case whose GPU was not empty at start
    (``free_at_start``: the free memory the engine printed before the weights, with its line), else None.

    The printed figure is SGLang's 'Load weight begin. avail mem' (``get_available_gpu_memory``: cudaMemGetInfo free
    / 2^30, printed "x.xx GB"; or 'Load weight end' avail + its mem usage), taken after the server's own CUDA
    context and distributed init; a ``tpkit probe`` profile records the free memory before the server starts.  So
    the profile's free memory is the printed figure plus what the plan itself charges before that line (catalog
    total − the plan's prediction of the line without a profile, nominal): at the nominal the profile plan starts
    from exactly the printed figure, and the start-up terms keep their band.  The profile then goes through the same validation and GPU selection as ``--machine FILE``
    (``hardware.profile_io.profile_from_dict`` / ``select_gpus``; helper npred, 2026-12-04)."""
    held = case.get("free_at_start")
    if not held:
        return None
    printed = Bytes(round(held["gib"] * 2**30))
    plan = get_engine(case["engine"]).plan
    with at_band_end(0):
        alone = plan(model, gpu, parallel, options)
    sg = alone.extra.get("sglang") or {}
    if "pre_model_load_bytes" not in sg:
        raise ValueError(f"{case['id']}: free_at_start is read for SGLang's 'Load weight begin' figure only")
    # 'Load weight begin' is pre_model_load_memory less torch's stream pool taken after that sample (0.5.9+ at
    # world size 1, engines.sglang.streams) and DeepGEMM's workspace (0.5.15+ on compute capability 9.0+ but 12.0,
    # engines.sglang.streams.deepgemm_workspace; helper gx33): the plan's own prediction of the printed line
    pre = sg["pre_model_load_bytes"] - sg.get("stream_pool_bytes", 0) - sg.get("deepgemm_workspace_bytes", 0)
    own = gpu.total_bytes.bytes - int(pre)
    free = printed.bytes + own
    data = {"profile_version": 1, "hostname": case["id"], "gpus": [
        {"index": i, "name": gpu.name, "total_bytes": gpu.total_bytes.bytes, "free_bytes": free,
         "used_by_this_process_bytes": 0, "used_by_others_bytes": gpu.total_bytes.bytes - free}
        for i in range(parallel.num_gpus)],
        "extra": {"source": f"validation case {case['id']}: {held['line']}"}}
    machine = profile_from_dict(data, where=f"{case['id']} free_at_start")
    return machine.first(len(select_gpus(machine, num_gpus=parallel.num_gpus)))


def others_of(case: dict, gpu, parallel):
    """(machine profile, growth) for a case whose source states what other processes held on its GPUs
    (``other_processes``), else (None, None).

    ``at_start_mib``: MiB each GPU of the layout (CUDA order) held for other processes when the engine started, as
    the source prints or states it (an nvidia-smi table, a stated figure); it becomes the machine profile's
    ``used_by_others`` (``tpkit plan --machine``), which each release charges as its own arithmetic does
    (``engines.vllm.budget.compute_budget``: V1 0.8.0-0.9.0 total - free after the profile charges it; V0 and
    V1 >= 0.9.1 measure from their start-up sample, so it only enters the start-up free-memory check).
    ``after_profile_mib``: what they held when the engine's profile ended, only where the source states it for that
    moment (null otherwise); the gain over the start is charged by every release
    (``engines.vllm.baseline.others_growth_line``), the largest gain of the layout's GPUs, since vLLM sizes every
    rank by the smallest budget.  Never derived from the printed KV figure (helper co13, 2026-12-05)."""
    held = case.get("other_processes")
    if not held:
        return None, None
    cid = case["id"]
    if case["engine"] != "vllm":
        raise ValueError(f"{cid}: other_processes is read for vLLM cases; an SGLang case gives its printed free "
                         "memory as free_at_start")
    if case.get("free_at_start"):
        raise ValueError(f"{cid}: give other_processes or free_at_start, not both")
    if not isinstance(held, dict):
        raise ValueError(f"{cid}: other_processes must be a mapping with at_start_mib, after_profile_mib, line and "
                         f"evidence, got {held!r}")
    start, after = held.get("at_start_mib"), held.get("after_profile_mib")
    n = parallel.num_gpus
    for name, values in (("at_start_mib", start), ("after_profile_mib", after)):
        if values is None and name == "after_profile_mib":
            continue
        if not (isinstance(values, list) and len(values) == n
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)):
            raise ValueError(f"{cid}: other_processes.{name} must list one whole, non-negative MiB figure per GPU of "
                             f"the layout ({n}), got {values!r}")
    if not (held.get("line") and held.get("evidence")):
        raise ValueError(f"{cid}: other_processes needs the source's line and its evidence")
    total = gpu.total_bytes.bytes
    data = {"profile_version": 1, "hostname": cid, "gpus": [
        {"index": i, "name": gpu.name, "total_bytes": total, "free_bytes": total - mib * 2**20,
         "used_by_this_process_bytes": 0, "used_by_others_bytes": mib * 2**20} for i, mib in enumerate(start)],
        "extra": {"source": f"validation case {cid}: {held['line']}"}}
    machine = profile_from_dict(data, where=f"{cid} other_processes")
    machine = machine.first(len(select_gpus(machine, num_gpus=n)))
    growth = Bytes(max(0, *((a - s) * 2**20 for s, a in zip(start, after)))) if after is not None else Bytes(0)
    return machine, growth


def _metric(result, case: dict) -> float:
    metric = case["printed"]["metric"]
    if metric == "kv_tokens":
        return result.kv_tokens
    if metric == "kv_blocks":
        return result.extra["kv_blocks"]
    if metric == "estimated_max_model_len":
        return result.extra["estimated_max_model_len"]
    if metric == "max_concurrency":
        return round(result.max_concurrency, 2)
    if metric == "available_kv_gib":  # vLLM's "Available KV cache memory" / "reserved for KV Cache", 2 decimals
        return round(result.extra["available_kv_bytes"] / 2**30, 2)
    raise ValueError(f"{case['id']}: unknown printed metric {metric!r}")


@dataclass(frozen=True, kw_only=True, slots=True)
class Row:
    """One case scored."""

    case: dict
    printed: float
    predicted: float
    low: float
    high: float

    @property
    def error(self) -> float:
        return (self.predicted - self.printed) / self.printed

    @property
    def inside(self) -> bool:
        return self.low <= self.printed <= self.high

    @property
    def anomaly(self) -> bool:
        """An engine marked anomalous (patched, plugin, pre-fix build): scored apart."""
        return bool(self.case.get("engine_anomaly"))

    @property
    def capped(self) -> bool:
        """The printed value is the ``--max-total-tokens`` cap itself, not a free-memory outcome: scored apart."""
        return self.printed == self.case["flags"].get("max_total_tokens")

    @property
    def headline(self) -> bool:
        """Counts in the per-engine median / p90 / inside-band figures."""
        return not (self.anomaly or self.capped)


def predict(case: dict) -> Row:
    """Plan ``case`` at the nominal and at both ends of its band; the printed figure next to the predicted."""
    model, gpu, parallel, options = inputs(case)
    plan = get_engine(case["engine"]).plan
    machine = machine_of(case, model, gpu, parallel, options)
    others, growth = others_of(case, gpu, parallel)
    kw = {"machine": others or machine}
    if growth:
        kw["others_growth"] = growth
    values = []
    for end in (0, -1, 1):
        with at_band_end(end):
            values.append(_metric(plan(model, gpu, parallel, options, **kw), case))
    return Row(case=case, printed=case["printed"]["value"], predicted=values[0], low=min(values), high=max(values))


def _scripts():
    """(scripts/build_startup_table.py, scripts/mine_startup_evidence.py) as modules."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    import build_startup_table
    import mine_startup_evidence

    return build_startup_table, mine_startup_evidence


@lru_cache(maxsize=1)
def _own_rows() -> dict[str, frozenset[str]]:
    evidence = json.loads(EVIDENCE.read_text())
    used = {r["id"] for r in evidence["rows"] if r["use"]}
    out: dict[str, set[str]] = {}
    for row, cases in _scripts()[1].evidence_validation_hits(evidence).items():
        if row in used:
            for cid in cases:
                out.setdefault(cid, set()).add(row)
    return {cid: frozenset(rows) for cid, rows in out.items()}


def own_log_rows(case_id: str) -> frozenset[str]:
    """The used start-up evidence rows (src/tpkit/startup/data/evidence.json) that are validation case
    ``case_id``'s own log or run (``scripts/mine_startup_evidence.py`` ``evidence_validation_hits``: the row names
    the case or a corpus log it quotes, or shares its source URL or search-index file id); empty for most cases."""
    return _own_rows().get(case_id, frozenset())


@lru_cache(maxsize=None)
def table_without(rows: frozenset[str]) -> dict:
    """The start-up table ``scripts/build_startup_table.py`` ``build`` gives from the evidence less ``rows``
    (cached by the set left out: cases that share a log share the table)."""
    evidence = json.loads(EVIDENCE.read_text())
    missing = rows - {r["id"] for r in evidence["rows"]}
    if missing:
        raise ValueError(f"no evidence rows {sorted(missing)} in {EVIDENCE}")
    return _scripts()[0].build({**evidence, "rows": [r for r in evidence["rows"] if r["id"] not in rows]})


def predict_own_log_out(case: dict) -> Row:
    """``predict`` with the start-up table built without the evidence rows that are ``case``'s own log
    (``own_log_rows``; ``tpkit.startup.table.swapped_table``); a case without such rows is planned with the shipped
    table, as ``predict`` does."""
    rows = own_log_rows(case["id"])
    if not rows:
        return predict(case)
    with swapped_table(table_without(rows)):
        return predict(case)


def score(engine: str, *, own_log_out: bool = False,
          reuse: tuple[list[Row], list[dict]] | None = None) -> tuple[list[Row], list[dict]]:
    """(scored rows, cases not predicted) of one engine; a case tpkit refuses (``TpkitError``) is listed with the
    refusal as its reason.  ``own_log_out``: each case planned with its own log left out of the start-up fit
    (``predict_own_log_out``; the held-out figure of issue 11, helper loo15).  ``reuse``: this engine's
    ``score(engine)``, whose rows the cases without own-log rows keep (they are planned with the shipped table
    either way), so only the cases with such rows are planned again."""
    rows, skipped = [], []
    kept = {r.case["id"]: r for r in reuse[0]} if (own_log_out and reuse) else {}
    kept_skip = {c["id"]: c for c in reuse[1]} if (own_log_out and reuse) else {}
    cases = load_cases(engine)
    for case in cases:
        if case.get("duplicate_of") is not None:  # the same run as a scored case: listed, counted once (same_run.py)
            skipped.append({**case, "why_not": duplicate_reason(case, cases)})
            continue
        if not case["predict"]:
            skipped.append(case)
            continue
        if kept or kept_skip:
            if not own_log_rows(case["id"]) and case["id"] in kept:
                rows.append(kept[case["id"]])
                continue
            if not own_log_rows(case["id"]) and case["id"] in kept_skip:
                skipped.append(kept_skip[case["id"]])
                continue
        try:
            rows.append(predict_own_log_out(case) if own_log_out else predict(case))
        except TpkitError as exc:
            skipped.append({**case, "why_not": f"tpkit refuses the inputs: {exc}"})
    return rows, skipped


def duplicate_reason(case: dict, cases: list[dict]) -> str:
    """The listed reason of a case marked ``duplicate_of`` another: the mark checked (``same_run.check_duplicate_of``:
    another case of the engine, itself scored, the same printed run from a shared source) and its note (helper
    dedup15, 2026-12-05).  Raises ``ValueError`` on a wrong mark."""
    import same_run

    other = same_run.check_duplicate_of(case, cases)
    note = case.get("duplicate_note")
    if not (isinstance(note, str) and note.strip()):
        raise ValueError(f"{case['id']}: duplicate_of needs a duplicate_note saying which source the two records "
                         f"share and why {other['id']} keeps the run, got {note!r}")
    printed = case["printed"]
    return (f"duplicate of {other['id']}: the same run (printed {printed['metric'].replace('_', ' ')} "
            f"{printed['value']:,}), scored once as {other['id']}; {note}")


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolation percentile (q in [0, 1])."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary(rows: list[Row]) -> dict:
    """Median and p90 of |error|, share inside the band, over ``rows``."""
    errors = [abs(r.error) for r in rows]
    return {"n": len(rows), "median": statistics.median(errors), "p90": percentile(errors, 0.9),
            "inside": sum(r.inside for r in rows) / len(rows)}
