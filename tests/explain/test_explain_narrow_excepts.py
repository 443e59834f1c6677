"""Explain's guards catch what a user's input can cause, nothing else (helper q14, 2026-12-05, session 14).

``explain.vdiagnose._one_request`` asks vLLM's capacity rule whether a fix's KV memory holds one request of the run's
max_model_len.  A refusal of the planner (``explain.refusals.REFUSED``: ``TpkitError``, ``ValueError``,
``ArithmeticError``) means "the check is not made" and the fix keeps its plain words; any other exception is a bug
in tpkit and must raise, not turn into a fix wrongly called a fit (it used to be ``except Exception``)."""

from __future__ import annotations

import sys

import pytest
from explain_testlib import cases, script

import tpkit.engines.vllm.capacity as capacity
from tpkit.errors import PlanInputError

ROUNDTRIP = script("explain_roundtrip_check")


def _failing_in_one_request(monkeypatch, exc: Exception) -> None:
    """``estimate_max_model_len`` raises ``exc`` when the one-request check calls it (the capacity rebuild, which
    also calls it, gets the real one)."""
    real = capacity.estimate_max_model_len

    def patched(*args, **kwargs):
        if sys._getframe(1).f_code.co_name in ("_one_request", "longest_request"):  # cr35c moved it to vrequest
            raise exc
        return real(*args, **kwargs)

    monkeypatch.setattr(capacity, "estimate_max_model_len", patched)


def _vl_788_utilization_fix():
    by_id = {c["id"]: c for c in cases()}
    e = ROUNDTRIP.explained(by_id["vl_788"], ROUNDTRIP.model_map())[0]
    return next(f for f in e.diagnosis.fixes if f.flags.startswith("--gpu-memory-utilization"))


def test_the_one_request_check_is_made_on_a_real_crash_log():
    # vl_788: 0.71 leaves less than one request of its docker line's own --max-model-len 32768 (read since fx36,
    # logs.docker; 40,960 before); the fix goes on to 0.77, which holds it
    fix = _vl_788_utilization_fix()
    assert fix.flags == "--gpu-memory-utilization 0.77" and not fix.fits  # cr33c: the start-up free memory unprinted


def test_a_planner_refusal_skips_the_check_and_keeps_the_clear_fix(monkeypatch):
    _failing_in_one_request(monkeypatch, PlanInputError("max_model_len 40960 exceeds the model's limit"))
    fix = _vl_788_utilization_fix()
    # the check is not made: the first utilization that covers the shortfall, with its usual words
    assert fix.flags.startswith("--gpu-memory-utilization") and not fix.fits
    assert "vLLM refuses to start" not in (fix.note or "") and "free memory at start-up is not printed" in fix.note


def test_a_bug_in_the_check_raises_instead_of_becoming_a_fit(monkeypatch):
    _failing_in_one_request(monkeypatch, TypeError("unsupported operand type(s) for +: 'NoneType' and 'int'"))
    with pytest.raises(TypeError, match="NoneType"):
        _vl_788_utilization_fix()


# --- the release a --from-log plan takes (helper rev20, 2026-12-06, session 20: both were ``except Exception``) ---

def _vllm_context(case_id: str):
    """The explain ``Context`` of a corpus log (captured where ``explain_parsed`` builds it)."""
    import tpkit.explain.result as result
    from explain_testlib import log_bytes

    from tpkit.explain import explain_log

    seen, real = {}, result.build_context
    mp = pytest.MonkeyPatch()
    mp.setattr(result, "build_context", lambda *a, **k: seen.setdefault("ctx", real(*a, **k)))
    try:
        explain_log(log_bytes(case_id))
    finally:
        mp.undo()
    return seen["ctx"]


def test_log_options_keep_the_default_rules_for_a_release_the_engine_refuses():
    from dataclasses import replace

    from tpkit.explain.replan import log_options

    ctx = _vllm_context("vl_225")  # vLLM 0.20.1
    assert log_options(ctx)[0].engine_version == "0.20.1"
    old = replace(ctx, version="0.1.0")  # before the oldest release modelled: VllmOptions refuses it
    assert old.rules_version == "0.1.0"
    assert log_options(old)[0].engine_version == log_options(replace(ctx, version=None))[0].engine_version


def test_log_options_let_a_bug_in_the_options_raise(monkeypatch):
    import tpkit.engines.vllm.options as vopts

    from tpkit.explain.replan import log_options

    ctx = _vllm_context("vl_225")
    real, calls = vopts.VllmOptions.__post_init__, []

    def broken_once(self):  # the release probe meets a bug; a later build would work
        calls.append(1)
        if len(calls) == 1:
            raise TypeError("a bug, not a refusal")
        real(self)

    monkeypatch.setattr(vopts.VllmOptions, "__post_init__", broken_once)
    with pytest.raises(TypeError, match="a bug"):
        log_options(ctx)


def test_sglang_release_gates_leave_an_unreadable_release_to_the_options_and_raise_on_a_bug(monkeypatch):
    from types import SimpleNamespace

    import tpkit.engines.sglang.versions as sv
    from tpkit.explain.fromlog import _sglang_release_flags

    out = [("mm_feature_transport", "--mm-feature-transport", "cuda_vmm"), ("mamba_ssm_dtype", "x", "float16")]
    assert _sglang_release_flags(SimpleNamespace(rules_version="0.5.9"), out) == [out[1]]
    assert _sglang_release_flags(SimpleNamespace(rules_version="not a release"), out) == out

    def broken(version, first):
        raise TypeError("a bug, not a refusal")

    monkeypatch.setattr(sv, "at_least", broken)
    with pytest.raises(TypeError, match="a bug"):
        _sglang_release_flags(SimpleNamespace(rules_version="0.5.9"), out)


# --- the release probe of ``plan --from-log`` (cli.fromlog.from_log; helper lf20, 2026-12-06, session 20: it caught
# ``except Exception`` as the two probes above did) ---

def _from_log_args(monkeypatch, exc: Exception | None):
    """``plan --from-log`` of vl_225 (vLLM 0.20.1) through ``cli.fromlog.from_log``; with ``exc``, the release probe
    (and only it: armed after the log is explained) meets an engine whose options raise ``exc``."""
    from types import SimpleNamespace

    import tpkit.cli.fromlog as fromlog
    import tpkit.engines.registry as registry
    from explain_testlib import DATA, cases

    from tpkit.cli import build_parser

    if exc is not None:
        real_release, real_engine, armed = fromlog.v0_engine_release, registry.get_engine, []

        def refusing(**kwargs):
            raise exc

        def once(name):  # the first engine asked for after explain: the probe's
            if armed:
                return real_engine(name)
            armed.append(name)
            return SimpleNamespace(options=refusing)

        def arm(e, release):
            monkeypatch.setattr(registry, "get_engine", once)
            return real_release(e, release)

        monkeypatch.setattr(fromlog, "v0_engine_release", arm)
    path = DATA / next(c for c in cases() if c["id"] == "vl_225")["file"]
    argv = ["plan", "--from-log", str(path)]
    args = build_parser(argv).parse_args(argv)
    fromlog.from_log(args)
    return args


def test_from_log_takes_the_logs_release_and_keeps_the_default_rules_where_the_engine_refuses_it(monkeypatch):
    from tpkit.errors import PlanInputError

    assert _from_log_args(monkeypatch, None).engine_version == "0.20.1"
    args = _from_log_args(monkeypatch, PlanInputError("vLLM 0.20.1: no rules for this release"))
    assert args.engine_version is None and args.engine == "vllm" and args.log_release_note == ""


def test_from_log_lets_a_bug_in_the_release_probe_raise(monkeypatch):
    with pytest.raises(TypeError, match="a bug"):
        _from_log_args(monkeypatch, TypeError("a bug, not a refusal"))
