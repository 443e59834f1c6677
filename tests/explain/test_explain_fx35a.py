"""Round fx35a (helper fx35a, 2026-12-07, session 35; docs/accuracy.md §7.3): three vLLM diagnosis leads of rounds
cr35c / ex35 — a hybrid's utilization-fix tokens in the planner's (vLLM's printed) unit (``explain.vtokens.
pool_tokens``), vLLM's one-request start-up check on the pool-allocation and capture fixes (``explain.voom``), and the
default utilization of a log that dates no release (``explain.vllm.default_utilization``).  Each rule both ways."""

from __future__ import annotations

from types import SimpleNamespace

from explain_testlib import log_bytes
from test_explain_corpus import FLAGS_FOR

from tpkit.explain import explain_log, voom, vrequest
from tpkit.explain import vllm as vllm_mod
from tpkit.explain import vtokens
from tpkit.explain.diagnose import SUGGESTION, Fix
from tpkit.explain.interval import Iv
from tpkit.explain.vdiagnose import _default_said, _tokens_for
from tpkit.units import Bytes, GiB, MiB


def _captured(monkeypatch, case: str):
    """(ctx, anchors) of ``case`` explained with its corpus flags, caught at ``explain.vllm.anchor_vllm``."""
    seen = {}
    real = vllm_mod.anchor_vllm

    def spy(parsed, view, ctx):
        seen["ctx"], seen["a"] = ctx, real(parsed, view, ctx)
        return seen["a"]

    monkeypatch.setattr(vllm_mod, "anchor_vllm", spy)
    explain_log(log_bytes(case), flags=FLAGS_FOR[case])
    return seen["ctx"], seen["a"]


# -- 1. a hybrid's tokens in the planner's unit ------------------------------------------------------------------

def test_hybrid_pool_counts_both_groups_as_vllm_prints(monkeypatch):
    ctx, a = _captured(monkeypatch, "vl_007")  # gpt-oss-120b: 18 sliding + 18 full layers, two KV groups
    assert a.token_bytes == 36_864  # one group's slots per token (589,824 B per block of 16)
    pool = GiB(4).bytes
    # vLLM 0.10's 'GPU KV cache size': num_blocks // 2 groups × 16 = pool ÷ 73,728 B (both groups), in whole blocks
    assert vtokens.pool_tokens(ctx, a, pool) == pool // 589_824 // 2 * 16
    assert _tokens_for(a, pool) == pool // 589_824 * 16  # the old unit: twice the figure


def test_vl_007_utilization_fix_round_trips_in_the_plans_unit():
    fix = explain_log(log_bytes("vl_007"), flags=FLAGS_FOR["vl_007"]).diagnosis.fixes[0]
    assert fix.flags == "--gpu-memory-utilization 0.95"
    assert fix.kv_tokens == 57_664  # tpkit plan --from-log's figure (115,328 before: one group's unit)
    assert not fix.fits and fix.note.startswith(SUGGESTION)


def test_plain_model_pool_is_the_bytes_per_token_count(monkeypatch):
    ctx, a = _captured(monkeypatch, "vl_990")  # Qwen2.5-VL-72B: full attention only, one group
    for pool in (MiB(709).bytes, GiB(3).bytes + 12_345):
        assert vtokens.pool_tokens(ctx, a, pool) == _tokens_for(a, pool)


def test_no_model_keeps_the_anchors_count():
    assert vtokens.pool_tokens(SimpleNamespace(model=None), SimpleNamespace(block_size=16), GiB(1).bytes) is None


# -- 2. the one-request check on the pool-allocation and capture fixes ------------------------------------------

def _size(n: int, text: str):
    return SimpleNamespace(value=Bytes(n), text=text)


def _oom(phase_evidence: str):
    sizes = {"requested": _size(MiB(600).bytes, "600.00 MiB"), "free": _size(MiB(100).bytes, "100.00 MiB")}
    return SimpleNamespace(kind="cuda_oom", phase_evidence=phase_evidence, size=sizes.get)


def _anchors():
    total = GiB(80).bytes
    return SimpleNamespace(utilization=0.9, total=Iv(low=Bytes(total), high=Bytes(total)),
                           available=Iv(low=GiB(4), high=GiB(4)), tokens_printed=20_000, block_size=16,
                           token_bytes=131_072.0)


class _Ctx(dict):
    model = object()


def _tokens(available, token_bytes=None):
    return max(0, int(available)) // 131_072 // 16 * 16


def test_pool_allocation_and_capture_fixes_take_the_one_request_check(monkeypatch):
    monkeypatch.setattr(vrequest, "longest_request", lambda a, c, b, tp=None: (20_000, 32_768))
    ctx = _Ctx(context_length=32_768)
    for failure, run in ((_oom("initialize_kv_cache"), voom.pool_alloc_failure), (_oom("capture_model"),
                                                                                   voom.graph_failure)):
        with_ctx = [f for f in run(failure, _anchors(), _tokens, ctx)[2] if "utilization" in f.flags]
        without = [f for f in run(failure, _anchors(), _tokens)[2] if "utilization" in f.flags]
        # without the context: the lower utilization as before (no start-up check made)
        assert without[0].fits and without[0].flags == "--gpu-memory-utilization 0.89"
        # with it: vLLM would refuse 32,768 on the smaller pool, so the length it holds goes with the fix
        assert with_ctx[0].fits and with_ctx[0].flags.startswith("--gpu-memory-utilization 0.89 --max-model-len ")
        assert int(with_ctx[0].flags.rsplit(" ", 1)[1]) < 32_768


def test_a_pool_that_holds_the_request_keeps_the_fix(monkeypatch):
    monkeypatch.setattr(vrequest, "longest_request", lambda a, c, b, tp=None: (40_000, 16_384))
    fixes = voom.pool_alloc_failure(_oom("initialize_kv_cache"), _anchors(), _tokens, _Ctx(context_length=16_384))[2]
    assert fixes[0].flags == "--gpu-memory-utilization 0.89" and fixes[0].fits


# -- 3. the default utilization of a log that dates no release -----------------------------------------------------

def _parsed(*evidence: str):
    return SimpleNamespace(failures=tuple(SimpleNamespace(phase_evidence=e, evidence="") for e in evidence))


def test_default_utilization_dated_said_or_the_releases():
    from tpkit.engines.vllm.versions import resolve_rules

    rules33, rules9 = resolve_rules("0.33.0"), resolve_rules("0.9.2")
    # V0's AsyncLLMEngine loop (in async_llm_engine.py 0.5.5–0.10.2, gone in 0.11.0) dates the log ≤ 0.10.2 (a format
    # marker, logs.engine.V0_LOOP_FRAMES, since round fx36): its 0.90, not assumed
    e = explain_log(log_bytes("vl_1432"))
    frames = _parsed("vLLM V0's AsyncLLMEngine background loop (_log_task_completion)")
    u, words, assumed = vllm_mod.default_utilization(frames, e.context, vtokens.log_rules(e.context))
    assert (u, assumed) == (0.9, False) and "0.10.2" in words
    # nothing dates it: the current rules' 0.92, said to be assumed
    u, words, assumed = vllm_mod.default_utilization(_parsed("run_busy_loop (core.py)"),
                                                     SimpleNamespace(rules_version=None), rules33)
    assert (u, assumed) == (0.92, True) and "assumed" in words
    # a dated release: its own default
    assert vllm_mod.default_utilization(_parsed(), SimpleNamespace(rules_version="0.9.2"), rules9)[:2] == (
        0.9, "not printed: vLLM 0.9.2 default")


def test_vl_1432_lower_utilization_starts_from_v0s_default():
    fix = explain_log(log_bytes("vl_1432")).diagnosis.fixes[0]
    assert fix.flags == "--gpu-memory-utilization 0.89" and "0.90 − 0.89" in fix.why
    assert "from the default" not in fix.note  # dated by its frames, so nothing is assumed


def test_an_assumed_default_is_said_on_utilization_fixes_only():
    ctx = SimpleNamespace(rules_version=None, get=lambda k, d=None: d, version=None)
    fixes = [Fix(flags="--gpu-memory-utilization 0.89", kv_tokens=None, fits=False, why="w", note="n"),
             Fix(flags="--enforce-eager", kv_tokens=None, fits=True, why="w")]
    said = _default_said(fixes, _parsed("run_busy_loop (core.py)"), ctx)
    assert said[0].note.startswith("n; from the default 0.92: ") and said[1] == fixes[1]
    # V0's loop frames date the log ≤ 0.10.2 where it is parsed (logs.engine.V0_LOOP_FRAMES): nothing assumed
    dated = SimpleNamespace(rules_version="0.10.2", get=lambda k, d=None: d, version="≤ 0.10.2")
    assert _default_said(fixes, _parsed("_log_task_completion"), dated) == fixes
    printed = SimpleNamespace(rules_version=None, get=lambda k, d=None: 0.8 if k == "mem_fraction" else d)
    assert _default_said(fixes, _parsed("run_busy_loop (core.py)"), printed) == fixes  # the log prints u
