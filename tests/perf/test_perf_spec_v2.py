"""SGLang spec v1 / spec v2 (SGLANG_ENABLE_SPEC_V2; ``--sglang-spec-v2``): the choice per release, what each
release refuses, the runtime facts, the verdict's flags and the CLI (tpkit.perf.runtime.sglang_spec_v2)."""

import json

import pytest

from tpkit.cli import main
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.runtime import runtime_for, sglang_spec_v2

KIMI = load_model("moonshotai/Kimi-K2.5")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
CLI = ["perf", "moonshotai/Kimi-K2.5", "--gpu", "H200", "--tp", "8", "--speculative-algorithm", "EAGLE3",
       "--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]


def v(text):
    return tuple(int(x) for x in text.split("."))


# ------------------------------------------------------------------------------------------------ per release
@pytest.mark.parametrize("version, topk, algorithm, asked, v2", [
    # default: v1 up to 0.5.10, v2 for topk 1 in 0.5.11–0.5.12 (v1 for topk > 1), v2 for all from 0.5.13
    ("0.5.10", 1, "EAGLE3", None, False), ("0.5.11", 1, "EAGLE3", None, True),
    ("0.5.12", 2, "EAGLE3", None, False), ("0.5.13", 2, "EAGLE3", None, True),
    # asked for: the variable (0.5.5+) / --enable-beta-spec (0.5.4) from 0.5.4
    ("0.5.4", 1, "EAGLE", True, True), ("0.5.5", 1, "NEXTN", True, True), ("0.5.10", 1, "EAGLE3", True, True),
    # topk > 1 under v2: no check up to 0.5.6
    ("0.5.6", 4, "EAGLE3", True, True),
    # STANDALONE's v2 worker from 0.5.8
    ("0.5.8", 1, "STANDALONE", True, True),
    # SGLANG_ENABLE_SPEC_V2=0 honoured in 0.5.11–0.5.12; off where v1 is the default anyway
    ("0.5.12", 1, "EAGLE3", False, False), ("0.5.11", 1, "EAGLE", False, False), ("0.5.10", 1, "EAGLE3", False, False),
    ("0.5.13", 1, "EAGLE3", True, True),
])
def test_the_mode_each_release_runs(version, topk, algorithm, asked, v2):
    on, why = sglang_spec_v2(v(version), topk, algorithm, asked)
    assert on is v2 and why


@pytest.mark.parametrize("version, topk, algorithm, asked, match", [
    ("0.5.3", 1, "EAGLE3", True, "first in 0.5.4"),                 # no v2 worker before 0.5.4
    ("0.5.7", 2, "EAGLE3", True, "topk = 1"),                       # the ValueError from 0.5.7 (0.5.6 passes)
    ("0.5.10", 4, "EAGLE", True, "topk = 1"),
    ("0.5.12", 2, "EAGLE3", True, "topk 1 only"),                   # 0.5.11–0.5.12 would silently run v1
    ("0.5.7", 1, "STANDALONE", True, "standalone_worker_v2.py"),    # 0.5.8 passes
    ("0.5.13", 1, "EAGLE3", False, "no spec v1 worker"),            # 0.5.12 passes
])
def test_settings_a_release_cannot_run_are_refused(version, topk, algorithm, asked, match):
    with pytest.raises(PlanInputError, match=match):
        sglang_spec_v2(v(version), topk, algorithm, asked)


def test_runtime_says_which_mode_ran_and_why():
    def rt(version, **kw):
        return runtime_for("sglang", version, compute_capability=(9, 0), mla=True, topk=1, algorithm="EAGLE3", **kw)
    default, flag = rt("0.5.9"), rt("0.5.9", spec_v2=True)
    assert (default.spec_v2, default.spec_v2_source, default.spec_overlap) == (False, "default", False)
    assert (flag.spec_v2, flag.spec_v2_source, flag.spec_overlap) == (True, "flag", True)
    assert any("as asked (SGLANG_ENABLE_SPEC_V2=1" in f for f in flag.facts)
    plain = runtime_for("sglang", "0.5.9", compute_capability=(9, 0), mla=True, topk=None, algorithm=None)
    assert plain.spec_v2 is None and plain.spec_v2_source == ""
    with pytest.raises(PlanInputError, match="SGLang setting"):
        runtime_for("vllm", "0.20.0", compute_capability=(9, 0), mla=True, topk=1, algorithm="EAGLE3", spec_v2=True)


# ------------------------------------------------------------------------------------------------ plan + verdict
def kimi(**kw):
    args = dict(model=KIMI, gpu=lookup_gpu("H200"), tp=8, context=1024, spec=EAGLE3) | kw
    return plan_perf(PerfRequest(**args))


def test_spec_v2_on_a_v1_release_costs_like_the_v2_default():
    v1, on, v2 = kimi(engine_version="0.5.9", accept_length=2.2), \
        kimi(engine_version="0.5.9", accept_length=2.2, sglang_spec_v2=True), kimi(engine_version="0.5.11",
                                                                                    accept_length=2.2)
    assert on.speculative.cycle_us == pytest.approx(v2.speculative.cycle_us)
    assert v1.speculative.cycle_us > on.speculative.cycle_us
    assert on.inputs["runtime"]["spec_v2"] is True and on.inputs["runtime"]["spec_v2_source"] == "flag"
    off = kimi(engine_version="0.5.11", accept_length=2.2, sglang_spec_v2=False)
    assert off.speculative.cycle_us == pytest.approx(v1.speculative.cycle_us)


def test_the_verdict_names_the_variable_only_when_v2_makes_it_pay():
    low = kimi(engine_version="0.5.9", accept_length=1.6)            # v1 loses, v2 pays
    assert low.speculative.speedup < 1.0 and low.verdict.flags[0] == "SGLANG_ENABLE_SPEC_V2=1"
    assert "only with spec v2" in low.verdict.message
    asked = kimi(engine_version="0.5.9", accept_length=2.2, sglang_spec_v2=True)
    assert asked.verdict.flags[0] == "SGLANG_ENABLE_SPEC_V2=1" and "Keep spec v2" in asked.verdict.message
    # the default is v2 already, or speculation loses either way: no variable in the flags
    for r in (kimi(engine_version="0.5.11", accept_length=1.6), kimi(engine_version="0.5.9", accept_length=1.05)):
        assert not any("SPEC_V2" in f for f in r.verdict.flags)


def test_the_grid_keeps_only_settings_the_asked_mode_runs():
    r = kimi(engine_version="0.5.9", accept_length=2.2, sglang_spec_v2=True)
    assert r.best_settings["topk"] == 1
    assert kimi(engine_version="0.5.9", accept_length=2.2).best_settings["topk"] > 1


# ------------------------------------------------------------------------------------------------ CLI
def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_flag(capsys):
    code, out, _ = run(CLI + ["--engine-version", "0.5.9", "--sglang-spec-v2", "on", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["runtime"]["spec_v2"] is True and d["runtime"]["spec_overlap"] is True
    code, out, _ = run(CLI + ["--engine-version", "0.5.12", "--sglang-spec-v2", "off"], capsys)
    assert code == 0 and "spec v1 (--sglang-spec-v2)" in out
    code, out, _ = run(CLI + ["--engine-version", "0.5.12"], capsys)
    assert code == 0 and "spec v2 (release default)" in out


@pytest.mark.parametrize("flags, match", [
    (["--engine-version", "0.5.13", "--sglang-spec-v2", "off"], "no spec v1 worker"),
    (["--engine-version", "0.5.10", "--speculative-eagle-topk", "2", "--sglang-spec-v2", "on"], "topk = 1"),
    (["--engine-version", "0.5.3", "--sglang-spec-v2", "on"], "no spec v2 worker"),
    (["--engine", "vllm", "--sglang-spec-v2", "on"], "SGLang setting"),
])
def test_cli_bad_input_exits_2(capsys, flags, match):
    code, _, err = run(CLI + flags, capsys)
    assert code == 2 and match in err and "Traceback" not in err


def test_cli_flag_takes_on_or_off(capsys):
    with pytest.raises(SystemExit) as exc:
        main(CLI + ["--sglang-spec-v2", "yes"])
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_cli_flag_needs_speculation(capsys):
    code, _, err = run(CLI[:6] + ["--sglang-spec-v2", "on"], capsys)
    assert code == 2 and "needs --speculative-algorithm" in err
