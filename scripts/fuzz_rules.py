"""Rules every ``tpkit plan --json`` answer must obey (used by ``scripts/fuzz_plan.py``).

    check_plan(plan, argv, replan) -> list of violations ("rule: detail")

  - the plan invariant ``tpkit.memory.invariant.problems`` (no NaN/inf, no negative quantity except the
    signed-by-design ones on a plan that does not fit, KV pool ≤ GPU, FITS ⇒ ≥ 1 token and ≥ 1 request);
    the planners check it themselves, this re-checks the printed JSON
  - every fix the verdict suggests is in range, and re-planned (``replan(argv) -> plan dict | str``) it fits
"""

from __future__ import annotations

import re

from tpkit.memory.invariant import numbers, problems

__all__ = ["check_plan", "suggested_fixes", "numbers", "FRACTION_FLAGS"]

FRACTION_FLAGS = ("--mem-fraction-static", "--gpu-memory-utilization")

_FIX_PATTERNS = (
    (re.compile(r"--tp (\d+)"), "--tp"),
    (re.compile(r"--tensor-parallel-size (\d+)"), "--tp"),  # vLLM's spelling in its verdicts (helper fix22)
    (re.compile(r"--mem-fraction-static ≥ (-?[0-9.e+-]+)"), "--mem-fraction-static"),
    (re.compile(r"--gpu-memory-utilization (-?[0-9.e+-]+)"), "--gpu-memory-utilization"),
    (re.compile(r"--max-model-len (-?\d+)"), "--max-model-len"),
    (re.compile(r"--max-total-tokens\D*≥ (-?\d+)"), "--max-total-tokens"),
    (re.compile(r"--kv-cache-memory-bytes of at least (-?[0-9.,]+ ?[KMGTP]?i?B)"), "--kv-cache-memory-bytes"),
    (re.compile(r"\(--quantization (fp8)\)"), "--quantization"),
)


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


def check_plan(plan: dict, argv: list[str], replan) -> list[str]:
    """Violations of the rules above; ``replan(argv)`` returns the re-planned JSON dict, or an error string."""
    bad = problems(plan)
    verdict = plan.get("verdict") or {}
    if verdict.get("fits") is False:
        for flag, value in suggested_fixes(verdict.get("message", "")):
            if not _in_range(flag, value):
                bad.append(f"suggested fix out of range: {flag} {value}")
                continue
            again = replan(_with_flag(argv, flag, value))
            if isinstance(again, str):
                bad.append(f"suggested fix fails when re-planned: {flag} {value} → {again[:160]}")
            elif verdict.get("starts") is False:  # WILL NOT START: the fix is for the METHOD checkpoint's memory
                again_v = again.get("verdict") or {}
                if again_v.get("starts") is not False or "(DOES NOT FIT: " in again_v.get("message", ""):
                    bad.append(f"suggested fix of a WILL NOT START plan does not fit its memory when re-planned: "
                               f"{flag} {value} → {again_v.get('message', '')[:160]}")
            elif not (again.get("verdict") or {}).get("fits"):
                bad.append(f"suggested fix does not fit when re-planned: {flag} {value} → "
                           f"{(again.get('verdict') or {}).get('message', '')[:160]}")
    return bad
