"""The V1 runner's dummy rejection-sampler run under a speculative config (helper rs30, after rs29;
``engines/vllm/sampler.py`` module doc "rejection sampler", ``VllmRules.dummy_rejection``).

vLLM ``v1/worker/gpu_model_runner.py _dummy_sampler_run``: after the ordinary dummy sampler run, a speculative config
adds one rejection-sampler call on ``randn(R + R, V)`` logits (0.11.1 on; ``randn(R, V)`` target logits only in
0.10.1–0.11.0).  Its peak per (row, vocab) element with a = 2: 30 B from 0.17 (≥ 8 rows, Triton top-k/top-p) against
the Triton sampler's 14 B — +16 B × R × V, the 4.00 GiB vp_952 (n-gram) prints under its twin vp_945."""

import json
from dataclasses import replace

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.engines.vllm.sampler import (REJECTION_FORMS, SAMPLER_BYTES_PER_LOGIT, TRITON_SAMPLER_BYTES_PER_LOGIT,
                                        dummy_rejection, rejection_bytes_per_logit, sampler_phase)
from tpkit.engines.vllm.speculative import parse_speculative_config
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))
NGRAM = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})
PHASE = "profile phase: logits + sampler"


@pytest.mark.parametrize("release, form", [
    ("0.10.1", "none"), ("0.11.0", "none"), ("0.11.1", "raw_clone"), ("0.11.2", "raw_clone"),
    ("0.12.0", "raw_fp32"), ("0.13.0", "raw_fp32"), ("0.14.0", "target_clone"), ("0.16.0", "target_clone"),
    ("0.17.0", "inv_q"), ("0.19.0", "inv_q"), ("0.24.0", "inv_q"), ("0.33.0", "inv_q"),
])
def test_the_form_per_release_both_sides_of_each_boundary(release, form):
    assert resolve_rules(release).dummy_rejection == form


@pytest.mark.parametrize("form, a, rows, per, triton", [
    ("inv_q", 2, 1024, 30, True), ("inv_q", 2, 8, 30, True), ("inv_q", 2, 7, 50, False),
    ("inv_q", 4, 1024, 36, True), ("target_clone", 2, 1024, 50, False), ("raw_fp32", 2, 1024, 46, False),
    ("raw_clone", 2, 1024, 44, False),
])
def test_bytes_per_logit(form, a, rows, per, triton):
    assert rejection_bytes_per_logit(form, a, rows) == (per, triton)


def test_unknown_form_is_refused():
    with pytest.raises(ValueError):
        rejection_bytes_per_logit("none", 2, 1024)
    assert REJECTION_FORMS[0] == "none"


def test_gemma4_twin_step_is_sixteen_bytes_a_logit():
    """vp_952 / vp_945 (gemma-4-31B tp 4, 0.19.0, H100): R 1,024 × V 262,144 × 16 B = 4.00 GiB exactly."""
    model = replace(llama3_8b(), vocab_size=262_144)
    plain, _ = sampler_phase(model, 8192, 1024, 2, "triton", 132)
    spec, formula = sampler_phase(model, 8192, 1024, 2, "triton", 132, rejection="inv_q")
    assert spec.bytes - plain.bytes == (30 - TRITON_SAMPLER_BYTES_PER_LOGIT) * 1024 * model.vocab_size
    assert "rejection-sampler" in formula


@pytest.mark.parametrize("sampler", ["v2_greedy", "v2_fp32", "none"])
def test_no_rejection_term_outside_the_v1_sampler_paths(sampler):
    model = llama3_8b()
    assert sampler_phase(model, 8192, 256, 2, sampler, rejection="inv_q") == sampler_phase(model, 8192, 256, 2,
                                                                                           sampler)


def test_small_ordinary_peak_wins_where_it_is_larger():
    """Below 8 rows both runs sort: the rejection run holds 3a + 4 + 4 + 4 more than the caller's logits, so it is
    still the larger; with the form "none" the ordinary phase is returned unchanged."""
    model = llama3_8b()
    plain = sampler_phase(model, 2048, 4, 2, "native")
    assert sampler_phase(model, 2048, 4, 2, "native", rejection="none") == plain
    spec, _ = sampler_phase(model, 2048, 4, 2, "native", rejection="inv_q")
    assert spec.bytes - plain[0].bytes == (50 - SAMPLER_BYTES_PER_LOGIT) * 4 * model.vocab_size


def test_runner_and_spec_gate():
    rules = resolve_rules("0.19.0")
    spec = parse_speculative_config(NGRAM)
    assert dummy_rejection(rules, spec, v2_runner=False) == "inv_q"
    assert dummy_rejection(rules, None, v2_runner=False) == "none"
    assert dummy_rejection(rules, spec, v2_runner=True) == "none"   # Model Runner V2: no rejection sampler run


def _phase(version, spec):
    options = VllmOptions(engine_version=version, speculative_config=spec, max_num_seqs=256)
    plan = plan_vllm(llama3_8b(), H200, ParallelSpec(), options, weights=W)
    return next(l for l in plan.ledger.items if l.item == PHASE).bytes.bytes, plan


@pytest.mark.parametrize("version, extra", [
    ("0.11.0", 0), ("0.11.1", 44 - 38), ("0.12.0", 46 - 38), ("0.13.0", 46 - 38), ("0.14.0", 50 - 38),
    ("0.16.0", 50 - 38), ("0.17.0", 30 - 14), ("0.20.0", 30 - 14), ("0.21.0", 30 - 14),
])
def test_plan_sampler_phase_grows_by_the_release_term(version, extra):
    plain, p0 = _phase(version, None)
    spec, p1 = _phase(version, NGRAM)
    assert spec - plain == extra * 256 * llama3_8b().vocab_size
    if extra:
        assert p1.kv_tokens < p0.kv_tokens      # the sampler phase is this plan's peak
