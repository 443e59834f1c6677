"""plan_perf end to end: the Kimi-K2.5 PCIe vs NVLink scenario of issue 13 and the model's directions."""

import pytest

from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf

KIMI = load_model("moonshotai/Kimi-K2.5")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)


def kimi(gpu, **kw):
    return plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu(gpu), tp=8, context=2048, spec=EAGLE3, **kw))


def test_plain_kimi_on_8_rtx_pro_6000_is_near_the_reported_89_5_tok_s():
    """The real report: 89.5 tok/s plain decoding (SGLang, INT4, 8× RTX PRO 6000); the model is within 15 %."""
    r = kimi("RTX-PRO-6000")
    assert r.inputs["link"] == "pcie"
    assert r.baseline.batch / r.baseline.step_us * 1e6 == pytest.approx(89.5, rel=0.15)
    assert r.allreduce["calls_per_forward"] == 123 and r.allreduce["backend"] == "nccl"


def test_eagle3_slows_the_pcie_box_at_batch_1_when_acceptance_is_low_and_says_why():
    r = kimi("RTX-PRO-6000", accept_length=1.5)
    assert r.speculative.speedup < 1.0 < r.speculative.breakeven_accept_length
    assert r.crossover_batch == 1
    msg = r.verdict.message
    assert "slows decoding" in msg and "pcie link" in msg
    assert "all-reduces" in msg and "experts" in msg and "ms" in msg
    assert msg.split("\n")[1].startswith(f"Break-even accept length {r.speculative.breakeven_accept_length:.2f}")
    assert "--speculative-num-steps 3" not in r.verdict.flags  # never the settings that lose
    low = kimi("RTX-PRO-6000", accept_length=1.1)
    assert "do not speculate at batch ≥ 1 on this pcie link" in low.verdict.message
    assert not any(f.startswith("--speculative") for f in low.verdict.flags)


def test_forced_oneshot_over_pcie_is_slower_than_nccl_for_speculation():
    r = kimi("RTX-PRO-6000", accept_length=1.5)
    by = {b.policy: b for b in r.backends}
    assert by["oneshot"].spec_tok_s < by["nccl"].spec_tok_s
    assert not by["oneshot"].usable and by["nccl"].usable
    slow_fabric = kimi("RTX-PRO-6000", accept_length=1.5, fabric_gbps=51.7)
    by = {b.policy: b for b in slow_fabric.backends}
    assert by["oneshot"].spec_tok_s < 0.9 * by["nccl"].spec_tok_s


def test_same_model_on_8_h200_nvlink_says_speculation_pays():
    """Same draft acceptance (1.5) that loses on the PCIe box pays on NVLink: cheaper all-reduces and HBM."""
    r = kimi("H200", accept_length=1.5)
    assert r.inputs["link"] == "nvlink" and r.allreduce["backend"] == "custom"
    assert r.speculative.speedup > 1.0
    assert r.speculative.breakeven_accept_length < kimi("RTX-PRO-6000", accept_length=1.5).speculative.breakeven_accept_length
    default = kimi("H200")
    assert default.speculative.speedup > 1.5 and "pays" in default.verdict.message
    assert "--speculative-algorithm EAGLE3" in default.verdict.flags


def test_lower_acceptance_lowers_the_speedup_and_longer_context_slows_plain_decoding():
    a, b = kimi("H200", accept_length=2.5), kimi("H200", accept_length=1.8)
    assert a.speculative.speedup > b.speculative.speedup
    short = plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu("H200"), tp=8, context=1024))
    long = plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu("H200"), tp=8, context=65536))
    assert long.baseline.step_us > short.baseline.step_us


def test_dense_model_speculation_stops_paying_at_a_finite_batch():
    llama = load_model("meta-llama/Llama-3.1-8B-Instruct")
    r = plan_perf(PerfRequest(model=llama, gpu=lookup_gpu("H100"), tp=1, batch=1, context=1024,
                              spec=SpecSettings(algorithm="EAGLE3", num_steps=5, topk=8, num_draft_tokens=32)))
    assert r.speculative.speedup > 1.5
    assert r.crossover_batch is not None and 8 <= r.crossover_batch <= 1024
    sweep = {p.batch: p.spec.speedup for p in r.by_batch}
    assert sweep[256] < sweep[1]
    assert r.best_settings["speedup"] >= r.speculative.speedup


def test_mtp_needs_nextn_layers_and_runs_on_deepseek():
    with pytest.raises(PlanInputError, match="no MTP"):
        plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu("H200"), tp=8,
                              spec=SpecSettings(algorithm="NEXTN", num_steps=1, topk=1, num_draft_tokens=2)))
    ds = load_model("deepseek-ai/DeepSeek-V3")
    r = plan_perf(PerfRequest(model=ds, gpu=lookup_gpu("H200"), tp=8,
                              spec=SpecSettings(algorithm="NEXTN", num_steps=1, topk=1, num_draft_tokens=2)))
    assert r.speculative.speedup > 1.0 and "MTP layer" in r.inputs["draft_model"]


@pytest.mark.parametrize("kw, match", [
    (dict(tp=3), "does not divide"), (dict(batch=0), "--batch"), (dict(context=10**9), "exceeds"),
    (dict(dp_attention=3), "must divide"), (dict(accept_length=2.0, spec=None), "needs --speculative-algorithm"),
])
def test_bad_requests_are_user_errors(kw, match):
    args = dict(model=KIMI, gpu=lookup_gpu("H200"), tp=8, spec=EAGLE3) | kw
    with pytest.raises(PlanInputError, match=match):
        plan_perf(PerfRequest(**args))


def test_settings_are_validated():
    with pytest.raises(PlanInputError, match="does not fit"):
        SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=9)
    with pytest.raises(PlanInputError, match="not known"):
        SpecSettings(algorithm="MEDUSA", num_steps=3, topk=1, num_draft_tokens=4)
