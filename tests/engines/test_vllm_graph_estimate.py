"""vLLM's CUDA-graph memory estimate: which runner a model gets per release, zero where Model Runner V2 returns 0
(0.19–0.28), the evidence-based term elsewhere (engines/vllm/graphs.py), both sides of every boundary."""

from dataclasses import replace

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.engines.vllm.graphs import GRAPH_EVIDENCE, capture_sizes, estimate_cudagraph_memory, evidence_band, \
    full_capture_sizes
from tpkit.engines.vllm.inputs import uses_v2_runner
from tpkit.engines.vllm.speculative import SpecConfig
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB, MiB

from vllm_fixtures import H200, GivenWeights, config_model, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))


def _as(model, arch, **kw):
    return replace(model, architecture=arch, **kw)


def _v2(version, model, spec=None, **kw):
    return uses_v2_runner(model, resolve_rules(version), spec, **kw)


def test_default_capture_set_is_51_piecewise_35_full():
    sizes = capture_sizes(max_num_seqs=256, max_num_batched_tokens=2048, compute_capability=(8, 9))
    assert (len(sizes), len(full_capture_sizes(sizes, 256))) == (51, 35)
    sizes = capture_sizes(max_num_seqs=128, max_num_batched_tokens=2048, compute_capability=(8, 9))
    assert (len(sizes), len(full_capture_sizes(sizes, 128))) == (35, 19)  # the printed 35 + 19 of a 0.2x log


def test_evidence_band_is_median_and_farthest_sample():
    nominal, spread = evidence_band()
    values = sorted(s.printed_gib for s in GRAPH_EVIDENCE)
    assert len(values) == 8 and nominal == GiB((values[3] + values[4]) / 2) == GiB(0.65)
    assert spread == GiB(0.57)  # the 0.08 GiB sample
    assert all(s.piecewise == 51 and s.full == 35 for s in GRAPH_EVIDENCE)


@pytest.mark.parametrize("arch, before, first", [
    ("Qwen3ForCausalLM", "0.21.0", "0.22.0"), ("LlamaForCausalLM", "0.22.0", "0.23.0"),
    ("MistralForCausalLM", "0.22.0", "0.23.0"), ("Qwen2ForCausalLM", "0.24.0", "0.25.0"),
    ("Gemma3ForCausalLM", "0.24.0", "0.25.0")])
def test_dense_models_move_to_v2_when_vllm_lists_them(arch, before, first):
    model = _as(llama3_8b(), arch)
    assert not _v2(before, model) and _v2(first, model)


def test_quantised_dense_model_stays_on_v1_until_0_24():
    model = llama3_8b()
    assert not _v2("0.23.0", model, quantized=True) and _v2("0.23.0", model, quantized=False)
    assert _v2("0.24.0", model, quantized=True)


def test_moe_model_default_runner_per_release():
    moe = config_model("Qwen--Qwen3-235B-A22B-FP8")   # Qwen3MoeForCausalLM: never listed before 0.29
    assert not any(_v2(v, moe) for v in ("0.22.0", "0.24.0", "0.25.0", "0.26.0", "0.28.0")) and _v2("0.29.0", moe)
    listed = _as(moe, "Qwen2MoeForCausalLM")
    assert not _v2("0.23.0", listed) and _v2("0.24.0", listed) and _v2("0.28.0", listed)


def test_non_eagle_speculation_falls_back_to_v1_before_0_29():
    ngram = SpecConfig(method="ngram", model=None, num_speculative_tokens=3, draft_tensor_parallel_size=None)
    eagle = SpecConfig(method="eagle3", model="x", num_speculative_tokens=3, draft_tensor_parallel_size=None)
    model = llama3_8b()
    assert not _v2("0.27.0", model, ngram) and _v2("0.27.0", model, eagle)


def _graphs(version, model=None, **kw):
    plan = plan_vllm(model or llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version=version, **kw), weights=W)
    return plan.extra["cuda_graph_bytes"]


def test_v1_runner_gets_the_evidence_term_from_0_20():
    model = _as(llama3_8b(), "Gemma3ForCausalLM")  # V1 up to 0.24
    assert _graphs("0.19.0", model) == 0            # measured and printed, not subtracted (env var "0")
    assert _graphs("0.20.0", model) == GiB(0.65).bytes
    assert _graphs("0.24.0", model) == GiB(0.65).bytes


def test_model_runner_v2_subtracts_nothing_before_0_29():
    model = _as(llama3_8b(), "Qwen3ForCausalLM")
    assert _graphs("0.21.0", model) == GiB(0.65).bytes   # V1
    assert _graphs("0.22.0", model) == 0                 # V2 returns 0
    assert _graphs("0.28.0", model) == 0
    assert _graphs("0.29.0", model) == GiB(0.65).bytes   # V2 measures


def test_no_estimate_when_eager_or_kv_memory_given():
    assert _graphs("0.21.0", enforce_eager=True) == 0
    assert _graphs("0.21.0", kv_cache_memory_bytes=GiB(10)) == 0


def test_estimate_band_is_the_farthest_sample():
    rules = resolve_rules("0.21.0")
    est = estimate_cudagraph_memory(rules, v2_runner=False, max_num_seqs=256, max_num_batched_tokens=2048,
                                    compute_capability=(8, 9))
    assert est.bytes == GiB(0.65) and est.uncertainty == GiB(0.57) and "51 PIECEWISE + 35 FULL" in est.formula
    zero = estimate_cudagraph_memory(resolve_rules("0.27.1"), v2_runner=True, max_num_seqs=256,
                                     max_num_batched_tokens=2048, compute_capability=(8, 9))
    assert zero.bytes == Bytes(0) and zero.uncertainty == Bytes(0)
    assert GiB(0.65) - GiB(0.57) > MiB(80)  # the low end stays above 84 graphs × vLLM's 1 MiB floor
