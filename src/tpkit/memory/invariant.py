"""The rule every plan obeys, whichever engine made it (checked by both planners before they return).

    problems(plan_json) -> list of violations ("rule: detail"), empty when the plan is sound
    checked(result)     -> the PlanResult itself, or AssertionError naming every violation (a tpkit bug)

The rule:

  - no NaN or infinite number anywhere in the plan's JSON;
  - no negative quantity, except the numbers that are signed by design (``SIGNED``) on a plan that does not fit,
    where a negative value is the shortfall the verdict reports (vLLM's ``available_kv_bytes`` is negative
    exactly when vLLM itself prints a negative "Available KV cache memory"; SGLang's default
    ``mem_fraction_static`` is negative when its reserve exceeds the GPU: ``server_args.py``
    ``round((gpu_mem - reserved_mem) / gpu_mem, 3)``, sglang 0.4.10), and the sentinels an engine gives a
    meaning (``SENTINELS``);
  - the KV pool is never larger than the GPU;
  - a plan that fits has ≥ 1 KV token and ≥ 1 running request.

That every fix a verdict names fits when re-planned is the verdicts' own duty (they re-plan before naming a
fix); ``scripts/fuzz_rules.py`` re-checks it from the outside.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from typing import Any
    from tpkit.memory.result import PlanResult

__all__ = ["problems", "checked", "numbers", "SIGNED", "SENTINELS"]

SIGNED = ("available_kv_bytes", "kv_budget_bytes", "mem_fraction_static", "pre_model_load_bytes",
          "free_at_snapshot_bytes")
"""JSON keys whose value may be negative on a plan that does not fit (a shortfall, or the engine's own number;
``free_at_snapshot_bytes``: a vLLM ≥ 0.34 extensible plan's snapshot free memory, below 0 where the start-up terms
exceed the GPU, helper fl34)"""

SENTINELS = {"chunked_prefill_size": -1}
"""key → the negative value that means "off" (SGLang ``--chunked-prefill-size -1`` disables chunking)"""


def numbers(obj: Any, path: str = "") -> Iterator[tuple[str, int | float]]:
    """(path, number) for every int/float in a JSON value (bools excluded)."""
    if isinstance(obj, bool):
        return
    if isinstance(obj, (int, float)):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from numbers(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from numbers(v, f"{path}[{i}]")


def _signed_ok(path: str, value: float, plan: dict) -> bool:
    leaf = path.rsplit(".", 1)[-1]
    if SENTINELS.get(leaf) == value:
        return True
    if (plan.get("verdict") or {}).get("fits"):
        return False
    if leaf in SIGNED:
        return True
    m = re.fullmatch(r"ledger\[(\d+)\]\.bytes", path)
    return bool(m) and plan["ledger"][int(m.group(1))].get("kind") == "info"


def problems(plan: dict) -> list[str]:
    """Violations of the rule in a plan's JSON form (``PlanResult.to_json_dict``)."""
    bad = []
    fits = bool((plan.get("verdict") or {}).get("fits"))
    for path, x in numbers(plan):
        if isinstance(x, float) and not math.isfinite(x):
            bad.append(f"NaN or infinite number: {path} = {x}")
        elif x < 0 and not _signed_ok(path, x, plan):
            bad.append(f"negative quantity: {path} = {x}")
    pool = plan.get("kv_pool") or {}
    total = (plan.get("gpu") or {}).get("total_bytes")
    if isinstance(total, int) and isinstance(pool.get("total_bytes"), int) and pool["total_bytes"] > total:
        bad.append(f"KV pool larger than the GPU: {pool['total_bytes']:,} B > {total:,} B")
    if fits:
        if not plan.get("kv_tokens") or plan["kv_tokens"] < 1:
            bad.append(f"FITS with {plan.get('kv_tokens')} KV tokens")
        mrr = plan.get("max_running_requests")
        if mrr is not None and mrr < 1:
            bad.append(f"FITS with {mrr} running requests")
    return bad


def checked(result: PlanResult) -> PlanResult:
    """``result`` when it obeys the rule; a violation is a planner bug and raises AssertionError."""
    found = problems(result.to_json_dict())
    if found:
        raise AssertionError(f"plan breaks the invariant (tpkit bug): {'; '.join(found)}")
    return result
