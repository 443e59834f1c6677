"""The fuzz harness (scripts/fuzz_plan.py): its rules can fail, its cases are seeded, and a fast seeded
sample of the CLI gives no traceback, impossible answer or timeout except the findings still open.

The full run (≥ 10,000 cases) is ``python scripts/fuzz_plan.py --cases 12000 --seed 1``; its findings are
recorded in docs/accuracy.md. ``KNOWN_OPEN`` lists what the last full run found in code owned by other work
(issue 10); remove an entry when its fix lands, and never add one for ``models/``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from fuzz_cases import AREAS, make_case  # noqa: E402
from fuzz_plan import run_case, run_cases, signature, summarize  # noqa: E402
from fuzz_rules import check_plan, suggested_fixes  # noqa: E402

KNOWN_OPEN: tuple[tuple[str, str], ...] = ()
"""(signature prefix, where the fix belongs) of findings still open: none since issue 10's planner fixes (r1)"""


def _open(sig: str) -> bool:
    return any(sig.startswith(prefix) or prefix in sig for prefix, _ in KNOWN_OPEN)


def test_known_open_findings_are_not_in_models():
    assert not [p for p, _ in KNOWN_OPEN if "models/" in p]


def test_cases_depend_only_on_seed_and_index():
    assert make_case(7, 12) == make_case(7, 12)
    assert [make_case(7, i) for i in range(20)] != [make_case(8, i) for i in range(20)]
    assert {make_case(3, i)["area"] for i in range(400)} == {a for a, _ in AREAS}


def _plan(**changes):
    plan = {"gpu": {"total_bytes": 1000}, "kv_tokens": 10, "max_running_requests": 2, "max_concurrency": 1.5,
            "kv_pool": {"total_bytes": 500}, "ledger": [{"item": "KV pool", "bytes": 500, "kind": "use"}],
            "verdict": {"fits": True, "message": "fits"}}
    plan.update(changes)
    return plan


def _never(argv):
    raise AssertionError(f"no re-plan expected, got {argv}")


@pytest.mark.parametrize("changes, rule", [
    ({"max_concurrency": math.nan}, "NaN or infinite"),
    ({"max_concurrency": math.inf}, "NaN or infinite"),
    ({"kv_tokens": -1}, "negative quantity: kv_tokens"),
    ({"ledger": [{"item": "left", "bytes": -5, "kind": "info"}]}, "negative quantity: ledger[0].bytes"),
    ({"kv_pool": {"total_bytes": 1001}}, "KV pool larger than the GPU"),
    ({"max_running_requests": 0}, "FITS with 0 running requests"),
    ({"kv_tokens": 0}, "FITS with 0 KV tokens"),
])
def test_rules_catch_impossible_answers(changes, rule):
    assert any(rule in problem for problem in check_plan(_plan(**changes), ["plan"], _never))
    assert check_plan(_plan(), ["plan"], _never) == []


def test_signed_shortfalls_are_allowed_only_on_a_plan_that_does_not_fit():
    no_fit = {"fits": False, "message": "does not fit"}
    shortfall = {"ledger": [{"item": "left", "bytes": -5, "kind": "info"}], "available_kv_bytes": -7}
    assert check_plan(_plan(verdict=no_fit, **shortfall), ["plan"], _never) == []
    assert len(check_plan(_plan(**shortfall), ["plan"], _never)) == 2
    assert check_plan(_plan(sglang={"chunked_prefill_size": -1}), ["plan"], _never) == []


def test_every_suggested_fix_is_replanned_and_must_fit():
    message = ("weights exceed the budget: use --tp 4, fp8 weights (--quantization fp8) or "
               "--mem-fraction-static ≥ 0.912")
    assert suggested_fixes(message) == [("--tp", "4"), ("--mem-fraction-static", "0.912"), ("--quantization", "fp8")]
    seen = []

    def replan(argv):
        seen.append(argv[-2:])
        return _plan(verdict={"fits": argv[-2] != "--tp", "message": "x"})

    argv = ["plan", "m", "--tp", "2", "--num-gpus", "2", "--json"]
    problems = check_plan(_plan(verdict={"fits": False, "message": message}), argv, replan)
    assert seen == [["--tp", "4"], ["--mem-fraction-static", "0.912"], ["--quantization", "fp8"]]
    assert problems == ["suggested fix does not fit when re-planned: --tp 4 → x"]
    bad = check_plan(_plan(verdict={"fits": False, "message": "Fix: --gpu-memory-utilization -734079.0 or less."}),
                     argv, replan)
    assert bad == ["suggested fix out of range: --gpu-memory-utilization -734079.0"]


def test_signature_names_the_innermost_tpkit_function():
    code = compile("def boom():\n    return 1 // 0\n", "/site/tpkit/models/fake.py", "exec")
    scope: dict = {}
    exec(code, scope)
    with pytest.raises(ZeroDivisionError) as err:
        scope["boom"]()
    assert signature(err.value) == "ZeroDivisionError in models/fake.py:boom"


def test_a_case_is_classified_by_what_the_cli_does():
    base = {"files": {}, "env": {}, "note": "", "expect": None, "timeout_s": 20, "seed": 0, "area": "flags"}
    ok = run_case({**base, "id": 1, "argv": ["plan", "Llama-3.1-8B-Instruct", "--gpu", "H100", "--json"]})
    assert ok["outcome"] == "ok", ok
    user = run_case({**base, "id": 2, "argv": ["plan", "Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "0"]})
    assert user["outcome"] == "user_error" and "--tp" in user["detail"]
    broken = {**base, "id": 3, "area": "config", "files": {"config.json": {"text": '{"model_type": 5}'}},
              "argv": ["plan", "{D}/config.json", "--gpu", "H100", "--json"]}
    assert run_case(broken)["outcome"] == "user_error"
    accepted = {**base, "id": 4, "expect": "error",
                "argv": ["plan", "Llama-3.1-8B-Instruct", "--gpu", "H100", "--json"]}
    assert run_case(accepted)["outcome"] == "impossible"


def test_seeded_sample_has_only_known_open_findings():
    results, cases = run_cases(seed=20261201, n=120, jobs=2, quick=True)
    summary = summarize(results)
    assert summary["cases"] == 120 and len(summary["by_area"]) >= 5
    new = [(o, s, cases[rs[0]["id"]]["argv"], cases[rs[0]["id"]]["note"]) for o, s, rs in summary["groups"]
           if not _open(s)]
    assert new == [], "new fuzz findings (fix them; reproduce with scripts/fuzz_plan.py --seed 20261201 --replay ID)"
    assert summary["by_outcome"].get("ok", 0) >= 20 and summary["by_outcome"].get("user_error", 0) >= 20


def test_a_will_not_start_plan_s_memory_fix_must_fit_the_method_checkpoint():
    """The lead, session 26 (fuzz seed 25): a WILL NOT START plan's memory fix is for the METHOD checkpoint, so its
    re-plan still does not start; it must no longer carry a DOES NOT FIT memory verdict."""
    message = "refuses --quantization awq … (DOES NOT FIT: … Fix: --tensor-parallel-size 2 (each re-planned).)"
    wont = {"fits": False, "starts": False, "message": message}
    argv = ["plan", "m", "--quantization", "awq", "--json"]
    memory_fits = _plan(verdict={"fits": False, "starts": False, "message": "refuses … (fits: 10 KV tokens)"})
    assert check_plan(_plan(verdict=wont), argv, lambda a: memory_fits) == []
    still_short = _plan(verdict={"fits": False, "starts": False, "message": "refuses … (DOES NOT FIT: short)"})
    assert len(check_plan(_plan(verdict=wont), argv, lambda a: still_short)) == 1
    starts = _plan(verdict={"fits": True, "starts": True, "message": "fits"})
    assert len(check_plan(_plan(verdict=wont), argv, lambda a: starts)) == 1
