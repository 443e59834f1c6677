"""The context sweep of `tpkit perf`: speed-up by context at the requested batch and the context crossover.

The verify pass reads the whole KV cache once per draft token position where the engine's verify kernel has no
KV split (SGLang's triton backend on SM120), so on such a box speculation loses past some context even when it
pays at 1k; with a split-KV kernel (fa3 on H200) the speed-up does not fall with context."""

import json
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.plan import CONTEXT_RESOLUTION, SWEEP_CONTEXTS

KIMI = load_model("moonshotai/Kimi-K2.5")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)


def kimi(gpu, **kw):
    return plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu(gpu), tp=8, spec=EAGLE3, **kw))


def test_sweep_covers_the_standard_contexts_and_the_requested_one():
    r = kimi("RTX-PRO-6000", context=3000)
    got = [p.context for p in r.by_context]
    assert got == sorted(set(SWEEP_CONTEXTS) | {3000})
    row = next(p for p in r.by_context if p.context == 3000)
    assert row.step_us == pytest.approx(r.baseline.step_us)
    assert row.spec.speedup == pytest.approx(r.speculative.speedup)


def test_pcie_box_stops_paying_past_a_context_and_the_crossover_is_bisected():
    r = kimi("RTX-PRO-6000")
    speedups = [p.spec.speedup for p in r.by_context]
    assert speedups == sorted(speedups, reverse=True)  # no KV split: the verify's attention grows with context
    cc = r.crossover_context
    assert cc is not None and 4096 < cc <= 65536
    just_below = kimi("RTX-PRO-6000", context=cc - CONTEXT_RESOLUTION)
    at = kimi("RTX-PRO-6000", context=cc)
    assert just_below.speculative.speedup >= 1.0 > at.speculative.speedup
    assert f"it stops paying from about {cc:,} tokens of context" in r.verdict.message


def test_losing_at_the_requested_context_says_below_which_it_pays():
    r = kimi("RTX-PRO-6000", context=65536)
    assert r.speculative.speedup < 1.0
    assert r.crossover_context < 65536
    assert f"it pays only below about {r.crossover_context:,} tokens" in r.verdict.message


def test_split_kv_verify_on_h200_pays_at_every_context():
    r = kimi("H200")
    assert r.crossover_context is None
    assert all(p.spec.speedup > 1.0 for p in r.by_context)
    assert "it pays at every context up to 131,072 tokens" in r.verdict.message


def test_sweep_stops_at_the_models_limit():
    config = Path(__file__).resolve().parents[1] / "validation" / "configs" / "meta-llama--Llama-2-7b-hf.json"
    llama2 = load_model(str(config))
    assert llama2.max_position_embeddings == 4096
    r = plan_perf(PerfRequest(model=llama2, gpu=lookup_gpu("H200"), tp=1, spec=EAGLE3))
    assert max(p.context for p in r.by_context) <= llama2.max_position_embeddings


def test_json_and_text_carry_the_sweep(capsys):
    argv = ["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3"]
    assert main(argv + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [row["context"] for row in d["by_context"]] == list(SWEEP_CONTEXTS)
    assert isinstance(d["crossover_context"], int)
    assert {"context", "step_s", "tok_s", "speculative"} == set(d["by_context"][0])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"crossover context {d['crossover_context']:,} tokens (at batch 1)" in out
    assert "context (batch 1)   plain tok/s   spec tok/s   speed-up" in out


def test_plain_decoding_has_a_sweep_and_no_crossover(capsys):
    assert main(["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["crossover_context"] is None and d["by_context"][0]["speculative"] is None
