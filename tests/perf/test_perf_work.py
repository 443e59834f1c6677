"""Per-rank work of a forward: weight bytes agree with tpkit.models' plan, experts, KV, batching."""

import random

import pytest

from tpkit.models import load_model
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec
from tpkit.perf.experts import expected_distinct_experts
from tpkit.perf.impl import impl_profile
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels, weight_bytes_read


@pytest.mark.parametrize("model, tp", [("moonshotai/Kimi-K2.5", 8), ("meta-llama/Llama-3.1-70B-Instruct", 4),
                                       ("Qwen/Qwen3-30B-A3B", 2), ("deepseek-ai/DeepSeek-V3", 8),
                                       ("openai/gpt-oss-120b", 4), ("meta-llama/Llama-3.1-8B-Instruct", 1)])
def test_weight_bytes_equal_the_memory_plan(model, tp):
    """perf/work.py copies the shard rules of tpkit.models; this pins them to the memory planner's bytes."""
    spec = load_model(model)
    plan = plan_weights(spec, ParallelSpec(tp=tp))
    tower = sum(l.bytes.bytes for l in plan.lines if l.item == "vision tower")  # held, not read per decode step
    assert weight_bytes_read(spec, Shard(tp=tp), spec.quant) == plan.bytes_per_rank.bytes - tower


def test_expected_distinct_experts_limits_and_monte_carlo():
    assert expected_distinct_experts(128, 8, 0) == 0
    assert expected_distinct_experts(128, 8, 1) == pytest.approx(8)
    assert expected_distinct_experts(128, 8, 10_000) == pytest.approx(128)
    assert expected_distinct_experts(384, 8, 4, experts_on_rank=48) == pytest.approx(
        expected_distinct_experts(384, 8, 4) / 8)
    rng = random.Random(0)
    for tokens in (2, 8, 32):
        hits = [len({e for _ in range(tokens) for e in rng.sample(range(128), 8)}) for _ in range(2000)]
        assert expected_distinct_experts(128, 8, tokens) == pytest.approx(sum(hits) / len(hits), rel=0.02)


def _bytes(spec, batch, tp=1, kind=None):
    ks = forward_kernels(spec, Shard(tp=tp), batch, impl_profile("sglang"), quant=spec.quant)
    return sum(k.count * k.bytes for k in ks if kind is None or k.kind == kind)


def test_moe_expert_bytes_grow_with_tokens_until_every_expert_is_read():
    spec = load_model("Qwen/Qwen3-30B-A3B")
    one, four, many = (_bytes(spec, Batch(sequences=b), kind="grouped") for b in (1, 4, 512))
    assert one < four < many
    assert many == pytest.approx(_bytes(spec, Batch(sequences=1024), kind="grouped"), rel=0.05)


def test_mla_kv_is_not_split_by_tp_but_gqa_kv_is():
    kimi, llama = load_model("moonshotai/Kimi-K2.5"), load_model("meta-llama/Llama-3.1-70B-Instruct")
    b = Batch(sequences=4, context=4096)
    assert _bytes(kimi, b, tp=8, kind="attention") == pytest.approx(_bytes(kimi, b, tp=2, kind="attention"))
    assert _bytes(llama, b, tp=8, kind="attention") == pytest.approx(_bytes(llama, b, tp=2, kind="attention") / 4)
    # 576 latent elements × 2 B × 61 layers per cached token
    assert _bytes(kimi, b, tp=8, kind="attention") == pytest.approx(4 * 4097 * 70272, rel=1e-6)


def test_verify_tokens_multiply_flops_not_dense_weight_bytes():
    spec = load_model("meta-llama/Llama-3.1-8B-Instruct")
    ks1 = forward_kernels(spec, Shard(), Batch(sequences=1, tokens_per_sequence=1), impl_profile("sglang"))
    ks4 = forward_kernels(spec, Shard(), Batch(sequences=1, tokens_per_sequence=4), impl_profile("sglang"))
    f1 = sum(k.count * k.flops for k in ks1 if k.kind == "gemm")
    f4 = sum(k.count * k.flops for k in ks4 if k.kind == "gemm")
    assert f4 == pytest.approx(4 * f1)
    w1 = sum(k.count * k.bytes for k in ks1 if k.kind == "gemm")
    w4 = sum(k.count * k.bytes for k in ks4 if k.kind == "gemm")
    assert 1.0 < w4 / w1 < 1.01  # only activations grow
