"""``tpkit perf`` under SGLang's speculative running-request cap (``engines.sglang.spec.spec_running_cap``): the
speculative side runs min(batch, cap) requests when --max-running-requests is unset, its tok/s is cap-limited
above the cap, the verdict says so, and --max-running-requests lifts it (or caps both sides)."""

import json

import pytest

from tpkit.cli import main
from tpkit.engines.sglang.spec import spec_running_cap
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.spec import running_requests

QWEN = load_model("Qwen/Qwen3-8B")
H100 = lookup_gpu("H100")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
CLI = ["perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "3",
       "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4", "--accept-length", "2.2"]


def req(batch, version="0.5.9", **kw):
    return PerfRequest(model=QWEN, gpu=H100, batch=batch, context=512, spec=EAGLE3, accept_length=2.2,
                       engine_version=version, **kw)


@pytest.mark.parametrize("version, batch, running", [
    ("0.4.3", 64, 64), ("0.4.3.post3", 64, 32), ("0.4.4.post3", 40, 32), ("0.4.4.post4", 40, 40),
    ("0.4.4.post4", 64, 48), ("0.5.9", 48, 48), ("0.5.9", 64, 48), ("0.5.23", 64, 48), ("0.5.23", 8, 8),
])
def test_speculative_side_runs_min_of_batch_and_cap(version, batch, running):
    spec = plan_perf(req(batch, version)).speculative
    assert spec.running == running
    assert bool(spec.cap_source) is (running < batch)
    # the same function as the planner's
    cap = spec_running_cap(version, "EAGLE3").requests
    assert running == (batch if cap is None else min(batch, cap))


def test_tok_s_above_the_cap_is_the_capped_batch():
    at_cap, above = plan_perf(req(48)), plan_perf(req(64))
    assert above.speculative.tok_s == pytest.approx(at_cap.speculative.tok_s)
    assert above.baseline.tok_s > at_cap.baseline.tok_s               # plain decoding keeps all 64
    assert above.speculative.speedup < at_cap.speculative.speedup
    lifted = plan_perf(req(64, max_running_requests=64))
    assert lifted.speculative.running == 64 and not lifted.speculative.cap_source
    assert lifted.speculative.tok_s > above.speculative.tok_s
    assert lifted.baseline.tok_s == pytest.approx(above.baseline.tok_s)


def test_a_user_cap_below_the_batch_caps_both_sides():
    r = plan_perf(req(64, max_running_requests=16))
    assert r.speculative.running == 16 and r.baseline.running == 16
    same = plan_perf(req(16))
    assert r.speculative.speedup == pytest.approx(same.speculative.speedup)
    assert "--max-running-requests 16" in r.speculative.cap_source


def test_dp_attention_splits_the_cap():
    ds = load_model("deepseek-ai/DeepSeek-V3")
    r = plan_perf(PerfRequest(model=ds, gpu=lookup_gpu("H200"), tp=8, dp_attention=8, batch=64, context=512,
                              spec=SpecSettings(algorithm="NEXTN", num_steps=1, topk=1, num_draft_tokens=2),
                              engine_version="0.5.9"))
    assert r.speculative.running == 48  # 48 // 8 = 6 per DP rank × 8
    r = plan_perf(PerfRequest(model=ds, gpu=lookup_gpu("H200"), tp=8, dp_attention=8, batch=64, context=512,
                              spec=SpecSettings(algorithm="NEXTN", num_steps=1, topk=1, num_draft_tokens=2),
                              engine_version="0.5.9", max_running_requests=20))
    assert r.speculative.running == 16 and r.baseline.running == 16  # 20 // 8 = 2 per DP rank × 8


def test_vllm_has_no_cap_and_refuses_the_flag():
    r = plan_perf(PerfRequest(model=QWEN, gpu=H100, batch=128, context=512, spec=EAGLE3, engine="vllm"))
    assert r.speculative.running == 128 and not r.speculative.cap_source
    with pytest.raises(PlanInputError, match="SGLang setting"):
        plan_perf(PerfRequest(model=QWEN, gpu=H100, batch=128, spec=EAGLE3, engine="vllm", max_running_requests=64))
    with pytest.raises(PlanInputError, match="whole number"):
        plan_perf(req(8, max_running_requests=0))


def test_the_verdict_says_cap_limited_and_how_to_lift_it():
    r = plan_perf(req(64))
    text = r.verdict.message
    assert "Cap-limited" in text and "48 of the 64 requests" in text and "--max-running-requests 64" in text
    assert "0.4.4.post4–0.5.23" in text
    lifted = plan_perf(req(64, max_running_requests=64)).speculative.speedup
    if lifted > 1.03 * r.speculative.speedup and lifted >= 1.05:
        assert "--max-running-requests 64" in r.verdict.flags
    assert "Cap-limited" not in plan_perf(req(32)).verdict.message


def test_running_requests_is_the_one_perf_helper():
    assert running_requests(req(64), 64, True)[0] == 48
    assert running_requests(req(64), 64, False) == (64, "")


def test_cli_flag_and_output(capsys):
    assert main(CLI + ["--batch", "64", "--engine-version", "0.5.9", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["speculative"]["running_requests"] == 48 and "0.5.9" in d["speculative"]["running_cap_source"]
    assert d["max_running_requests"] is None
    assert main(CLI + ["--batch", "64", "--engine-version", "0.5.9", "--max-running-requests", "64", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["speculative"]["running_requests"] == 64 and d["max_running_requests"] == 64
    assert main(CLI + ["--batch", "64", "--engine-version", "0.5.9"]) == 0
    out = capsys.readouterr().out
    assert "running cap      speculative side decodes 48 of 64 requests" in out
    assert main(CLI + ["--batch", "64", "--max-running-requests", "0"]) == 2
    assert "whole number" in capsys.readouterr().err
