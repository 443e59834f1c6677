"""Rules every ``tpkit plan --json`` answer must obey (used by ``scripts/fuzz_plan.py``).

    check_plan(plan, argv, replan) -> list of violations ("rule: detail")

  - no NaN or infinite number anywhere; no negative quantity (``_signed_ok`` says which numbers are signed
    by design, and when they may be negative)
  - the KV pool is never larger than the GPU
  - a FITS verdict has ≥ 1 KV token and ≥ 1 running request
  - every fix the verdict suggests is in range, and re-planned (``replan(argv) -> plan dict | str``) it fits
"""

from __future__ import annotations

import math
import re

__all__ = ["check_plan", "suggested_fixes", "numbers", "FRACTION_FLAGS"]

FRACTION_FLAGS = ("--mem-fraction-static", "--gpu-memory-utilization")

SENTINELS = {"chunked_prefill_size": -1}
"""field → the negative value that means "off" (SGLang ``--chunked-prefill-size -1`` disables chunking)"""


def _signed_ok(path: str, value, plan: dict) -> bool:
    """Negative numbers that are signed by design: a shortfall shown on a DOES-NOT-FIT plan.

    vLLM's ``available_kv_bytes``, SGLang's ``kv_budget_bytes`` and a ledger ``info`` line (e.g. "left for activations") are negative exactly
    when the memory runs short, which the verdict then reports; on a plan that fits they never are.
    """
    leaf = path.rsplit(".", 1)[-1]
    if SENTINELS.get(leaf) == value:
        return True
    if (plan.get("verdict") or {}).get("fits"):
        return False
    if leaf in ("available_kv_bytes", "kv_budget_bytes"):
        return True
    m = re.fullmatch(r"ledger\[(\d+)\]\.bytes", path)
    return bool(m) and plan["ledger"][int(m.group(1))].get("kind") == "info"

_FIX_PATTERNS = (
    (re.compile(r"--tp (\d+)"), "--tp"),
    (re.compile(r"--mem-fraction-static ≥ (-?[0-9.e+-]+)"), "--mem-fraction-static"),
    (re.compile(r"--gpu-memory-utilization (-?[0-9.e+-]+)"), "--gpu-memory-utilization"),
    (re.compile(r"--max-model-len (-?\d+)"), "--max-model-len"),
    (re.compile(r"--max-total-tokens\D*≥ (-?\d+)"), "--max-total-tokens"),
    (re.compile(r"--kv-cache-memory-bytes of at least (-?[0-9.,]+ ?[KMGTP]?i?B)"), "--kv-cache-memory-bytes"),
    (re.compile(r"\(--quantization (fp8)\)"), "--quantization"),
)


def numbers(obj, path: str = ""):
    """(path, number) for every int/float in a JSON value (bools excluded)."""
    if isinstance(obj, bool):
        return
    if isinstance(obj, (int, float)):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from numbers(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from numbers(v, f"{path}[{i}]")


def suggested_fixes(message: str) -> list[tuple[str, str]]:
    """(flag, value) for each fix named in a verdict message (each is an alternative on its own)."""
    fixes = []
    for pattern, flag in _FIX_PATTERNS:
        for m in pattern.finditer(message):
            fixes.append((flag, m.group(1).replace(",", "").replace(" ", "")))
    return fixes


def _in_range(flag: str, value: str) -> bool:
    if flag == "--quantization":
        return True
    if flag == "--kv-cache-memory-bytes":
        return not value.startswith("-") and float(re.match(r"[0-9.]+", value).group()) > 0
    try:
        x = float(value)
    except ValueError:
        return False
    if flag in FRACTION_FLAGS:
        return 0 < x <= 1
    return x >= 1 and x.is_integer()


def _with_flag(argv: list[str], flag: str, value: str) -> list[str]:
    out, skip = [], False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a == flag or (flag == "--tp" and a == "--num-gpus"):
            skip = True
            continue
        out.append(a)
    return out + [flag, value]


def _static(plan: dict) -> list[str]:
    bad = []
    fits = bool(plan.get("verdict", {}).get("fits"))
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


def check_plan(plan: dict, argv: list[str], replan) -> list[str]:
    """Violations of the rules above; ``replan(argv)`` returns the re-planned JSON dict, or an error string."""
    bad = _static(plan)
    verdict = plan.get("verdict") or {}
    if verdict.get("fits") is False:
        for flag, value in suggested_fixes(verdict.get("message", "")):
            if not _in_range(flag, value):
                bad.append(f"suggested fix out of range: {flag} {value}")
                continue
            again = replan(_with_flag(argv, flag, value))
            if isinstance(again, str):
                bad.append(f"suggested fix fails when re-planned: {flag} {value} → {again[:160]}")
            elif not (again.get("verdict") or {}).get("fits"):
                bad.append(f"suggested fix does not fit when re-planned: {flag} {value} → "
                           f"{(again.get('verdict') or {}).get('message', '')[:160]}")
    return bad
