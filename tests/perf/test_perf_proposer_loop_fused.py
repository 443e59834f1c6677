"""Helper sp34b (session 34, issue 13): vLLM's V1 proposer loop from 0.18.0 still launches 4 ops a draft step and
the draft's lm_head / argmax / EAGLE-3 remap from Python (``perf.runtime_vllm.PROPOSER_LOOP_FUSED``); before this
round tpkit took the loop as free from 0.18.  Model Runner V2 (the default for Llama / Qwen3 from 0.22–0.24, for every
model from 0.29) runs no such loop.  Both sides of each boundary: 0.17.1 / 0.18.0 (the fused kernel), V1 / V2 in one
release (the architecture picks the runner)."""

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.constants import C
from tpkit.perf.runtime import runtime_for
from tpkit.perf.runtime_vllm import PROPOSER_LOOP_FUSED

SM90 = (9, 0)


def _rt(version: str, architecture: str | None = None):
    return runtime_for("vllm", version, compute_capability=SM90, mla=False, topk=1, algorithm="EAGLE3",
                       architecture=architecture)


@pytest.mark.parametrize("version, loop", [("0.17.1", 15), ("0.18.0", PROPOSER_LOOP_FUSED),
                                           ("0.21.0", PROPOSER_LOOP_FUSED), ("0.33.0", 0)])
def test_the_v1_loop_by_release(version, loop):
    """0.33.0 runs Model Runner V2 for every model (``_vllm_runner_v2_default``): no V1 loop."""
    r = _rt(version)
    assert r.draft_loop_kernels == loop
    assert r.draft_logits_eager is bool(loop)


def test_the_runner_decides_in_one_release():
    """vLLM 0.23.0: Llama (listed, unquantised, dense) runs Model Runner V2, an unlisted architecture the V1 proposer."""
    v2, v1 = _rt("0.23.0", "LlamaForCausalLM"), _rt("0.23.0", "GemmaForCausalLM")
    assert (v2.draft_loop_kernels, v2.draft_logits_eager, v2.draft_graph) == (0, False, "full")
    assert (v1.draft_loop_kernels, v1.draft_logits_eager, v1.draft_graph) == (PROPOSER_LOOP_FUSED, True, "piecewise")
    assert any("4 bookkeeping ops per draft step" in f and "llm_base_proposer.py" in f for f in v1.facts)
    assert not any("bookkeeping ops" in f for f in v2.facts)


def _cycle(version: str, batch: int):
    model = load_model("meta-llama/Llama-3.1-8B-Instruct")
    spec = SpecSettings(algorithm="EAGLE3", num_steps=4, topk=1, num_draft_tokens=5)
    return plan_perf(PerfRequest(model=model, gpu=lookup_gpu("H100"), engine="vllm", engine_version=version,
                                 batch=batch, context=512, accept_length=2.0, spec=spec)).speculative


def test_the_launches_run_behind_the_verify():
    """From 0.11.1 the drafter is queued behind the verify (``DRAFTER_QUEUED``): on an 8B target the 3 later steps'
    launches ((4 + lm_head + argmax + 4 remap) × 3 ≈ 0.6 ms of Python) hide behind a ~6 ms verify, so the cycle
    of 0.18.0 is not longer than the GPU's own draft work (no launch-bound part), and 0.17.1's 15-op loop is not
    cheaper than 0.18.0's 4."""
    per = C["eager_kernel_host_us"].value
    for batch in (1, 32):
        new, old = _cycle("0.18.0", batch), _cycle("0.17.1", batch)
        parts = dict(new.parts_us)
        assert parts["draft launch-bound (in steps)"] == pytest.approx(0.0, abs=1e-6)
        assert parts["verify"] > 3 * (PROPOSER_LOOP_FUSED + 2 + 4) * per
        assert new.cycle_us <= old.cycle_us + 1e-6
