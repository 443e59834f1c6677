"""The verdict never contradicts its own batch table (review qual9, 2026-12-05).

"do not speculate at batch ≥ N" is said only when no swept batch ≥ N pays (≥ 1.05×, the verdict's "pays"
threshold), and "it stops paying at batch ≥ N" only when none pays again further up; a speed-up that grows with the
batch (SGLang spec v1 pays its un-overlapped host work once per cycle,
whatever the batch) is answered with the batches that pay.  Before the fix, the issue-13 Kimi-K2.5 scenario on
8× RTX PRO 6000 (SGLang 0.5.10, context 16384, accept length 2.04) said "do not speculate at batch ≥ 1" while its
table showed 1.11–1.29× at batch 16–128.
"""

import re

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf

EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
CASES = [  # (model, gpu, tp, engine version, context, accept length)
    ("moonshotai/Kimi-K2.5", "RTX-PRO-6000", 8, "0.5.10", 16384, 2.04),  # slow at batch 1, pays at 16–128
    ("moonshotai/Kimi-K2.5", "RTX-PRO-6000", 8, "0.5.10", 16384, 1.1),  # slow at every batch
    ("moonshotai/Kimi-K2.5", "RTX-PRO-6000", 8, "0.5.23", 16384, 1.5),
    ("moonshotai/Kimi-K2.5", "H200", 8, "0.5.10", 16384, 2.04),
    ("meta-llama/Llama-3.1-70B-Instruct", "RTX-PRO-6000", 4, "0.5.10", 32768, 1.6),
    ("openai/gpt-oss-120b", "L40S", 2, "0.5.23", 1024, 2.5),  # pays at 1, loses at 4–8, pays at 16–64
    ("deepseek-ai/DeepSeek-V3", "L40S", 8, "0.5.10", 1024, 2.5),
]


def _plan(model, gpu, tp, version, context, accept):
    return plan_perf(PerfRequest(model=load_model(model), gpu=lookup_gpu(gpu), tp=tp, context=context, spec=EAGLE3,
                                 engine_version=version, accept_length=accept))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].split('/')[1]}-{c[1]}-{c[3]}-{c[5]}")
def test_do_not_speculate_only_when_no_swept_batch_from_there_pays(case):
    r = _plan(*case)
    msg = r.verdict.message
    m = re.search(r"do not speculate at batch ≥ (\d+)", msg)
    if m:
        at = int(m.group(1))
        assert not [p.batch for p in r.by_batch if p.batch >= at and p.spec.speedup >= 1.05], msg
    m = re.search(r"It stops paying at batch ≥ (\d+)", msg)
    if m:
        assert not [p.batch for p in r.by_batch if p.batch >= int(m.group(1)) and p.spec.speedup >= 1.05], msg
    paying = [p for p in r.by_batch if p.batch > r.baseline.batch and p.spec.speedup >= 1.05]
    if r.speculative.speedup < 1.0 and paying and "grid's best, steps" not in msg:
        assert "of the batches swept it pays only at " + ", ".join(f"{p.batch:,}" for p in paying) in msg
        assert not any(f.startswith("--speculative") for f in r.verdict.flags)


def test_the_pcie_scenario_names_the_batches_that_pay():
    r = _plan(*CASES[0])
    assert r.speculative.speedup < 1.0 and r.crossover_batch == 1
    assert "do not speculate" not in r.verdict.message
    assert "slows decoding at batch 1 on this pcie link; of the batches swept it pays only at 16" in r.verdict.message


def test_a_draft_that_never_pays_is_still_told_not_to_speculate():
    r = _plan(*CASES[1])
    assert all(p.spec.speedup < 1.05 for p in r.by_batch)
    assert "do not speculate at batch ≥ 1 on this pcie link" in r.verdict.message


def test_a_speed_up_that_dips_and_recovers_names_the_batches_it_loses_at():
    r = _plan(*CASES[5])
    assert r.speculative.speedup >= 1.05 and r.crossover_batch is not None
    losing = [p.batch for p in r.by_batch if p.spec.speedup < 1.0]
    assert losing and any(p.batch > max(b for b in losing if b < 64) and p.spec.speedup >= 1.05 for p in r.by_batch)
    assert "It stops paying" not in r.verdict.message
    assert ("Of the batches swept it loses (below 1.00×) at batch " + ", ".join(f"{b:,}" for b in losing)
            in r.verdict.message)


def test_the_context_sentence_never_contradicts_its_own_row():
    """gpt-oss-120b on 2× H200, SGLang 0.5.10, batch 1: the speed-up rises with the context (0.97× at 1k, 1.07× at
    128k); the sentence said "it loses at every context from 1,024 tokens" after the row that shows 1.02× and
    1.07× (review qual9)."""
    spec = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
    r = plan_perf(PerfRequest(model=load_model("openai/gpt-oss-120b"), gpu=lookup_gpu("H200"), tp=2, context=4096,
                              spec=spec, engine_version="0.5.10", accept_length=2.5))
    paying = [p.context for p in r.by_context if p.spec.speedup >= 1.0]
    assert paying and r.crossover_context is not None and min(paying) > r.crossover_context
    line = next(t for t in r.verdict.message.splitlines() if t.startswith("At batch 1, by context"))
    assert "loses at every context" not in line and "pays only below" not in line
    assert line.endswith("of the contexts swept it pays (≥ 1.00×) only at 64k, 128k tokens.")
