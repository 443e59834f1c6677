"""vLLM TRITON_MLA's split-KV decode (``perf.mla_splits``): the KV splits per decode row by release (4 up to 0.19.x,
next_power_of_2(seq_len // 512) capped at 2 × SMs from 0.20.0: triton_mla.py ``forward_mqa`` read in the 0.11.0,
0.14.0, 0.17.0, 0.18.0, 0.19.0, 0.19.1, 0.20.0 and 0.33.0 wheels), and the fp32 partial outputs its stage 1 writes
and stage 2 reads back, charged per decode row (the verify's 1 + k rows per request from 0.31)."""

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.mla_splits import decode_kv_splits, num_kv_splits, partial_bytes
from tpkit.perf.runtime import runtime_for
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels
from tpkit.perf.impl import impl_profile

KIMI = load_model("moonshotai/Kimi-K2.5")


@pytest.mark.parametrize("version, seq_len, sms, splits", [
    ((0, 19, 1), 83_000, 188, 4),           # fixed before 0.20
    ((0, 19, 0), 512, 188, 4),
    ((0, 20, 0), 83_000, 188, 256),         # 83,000 // 512 = 162 → 256
    ((0, 20, 0), 511, 188, 1),
    ((0, 20, 0), 1024, 188, 2),
    ((0, 20, 0), 1536, 188, 4),             # 3 → 4
    ((0, 33, 0), 20_800, 188, 64),          # 40 → 64
    ((0, 33, 0), 262_144, 188, 376),        # 512 capped at 2 × 188
    ((0, 33, 0), 262_144, 82, 164),
    ((0, 33, 0), 262_144, None, 512),
])
def test_splits_per_release(version, seq_len, sms, splits):
    assert num_kv_splits(version, seq_len, sms) == splits


def test_only_vllm_triton_mla_on_a_dense_mla_model_is_charged():
    llama = load_model("meta-llama/Llama-3.1-8B-Instruct")
    assert decode_kv_splits("vllm", "TRITON_MLA", (0, 33, 0), KIMI, 83_000, 188) == 256
    assert decode_kv_splits("vllm", "TRITON_MLA", (0, 19, 1), KIMI, 83_000, 188) == 4
    assert decode_kv_splits("vllm", "FLASHMLA", (0, 33, 0), KIMI, 83_000, 132) == 0
    assert decode_kv_splits("sglang", "triton", (0, 5, 23), KIMI, 83_000, 188) == 0
    assert decode_kv_splits("vllm", "FLASH_ATTN", (0, 33, 0), llama, 83_000, 132) == 0
    sparse = load_model("deepseek-ai/DeepSeek-V3.2")
    assert sparse.dsa is not None
    assert decode_kv_splits("vllm", "TRITON_MLA", (0, 33, 0), sparse, 83_000, 188) == 0


def test_runtime_picks_the_backend_and_names_the_fact():
    sm120 = dict(compute_capability=(12, 0), mla=True, topk=1, algorithm="EAGLE3")
    new = runtime_for("vllm", "0.20.0", **sm120)
    old = runtime_for("vllm", "0.19.1", **sm120)
    assert new.attention_backend == old.attention_backend == "TRITON_MLA"
    assert new.mla_kv_splits(KIMI, 83_000, 188) == 256 and old.mla_kv_splits(KIMI, 83_000, 188) == 4
    assert any("next_power_of_2(seq_len / 512)" in f for f in new.facts)
    assert any("into 4 parts" in f for f in old.facts)
    hopper = runtime_for("vllm", "0.33.0", compute_capability=(9, 0), mla=True, topk=1, algorithm="EAGLE3")
    assert hopper.mla_kv_splits(KIMI, 83_000, 132) == 0


def test_partials_are_charged_per_decode_row_in_the_attention_kernel():
    shard, impl = Shard(tp=8), impl_profile("vllm")
    m = KIMI.mla
    heads = KIMI.num_attention_heads // 8
    layers = KIMI.num_layers

    def attention_bytes(tokens, splits):
        ks = forward_kernels(KIMI, shard, Batch(sequences=4, tokens_per_sequence=tokens, context=83_000), impl,
                             quant=KIMI.quant, kv_bytes=1, kv_splits=splits)
        return sum(k.bytes * k.count for k in ks if k.kind == "attention")

    plain = attention_bytes(1, 256) - attention_bytes(1, 0)
    verify = attention_bytes(4, 256) - attention_bytes(4, 0)
    assert plain == pytest.approx(layers * partial_bytes(4, heads, 256, m.kv_lora_rank))
    assert verify == pytest.approx(4 * plain)                    # 1 + k = 4 rows per request
    assert partial_bytes(1, 8, 256, 512) == 2 * 8 * 256 * 513 * 4
    kv = attention_bytes(1, 0)
    # per row 2 × 8 heads × 256 splits × 513 × 4 B = 8.4 MB against one request's 83,000 × 576 B latents
    assert 0.15 < plain / kv < 0.2


def _kimi(version, batch, context):
    return plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu("RTX-PRO-6000"), tp=8, batch=batch, context=context,
                                 engine="vllm", engine_version=version, kv_cache_dtype="fp8", accept_length=2.28,
                                 spec=SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)))


def test_the_plan_charges_the_partials_and_the_verify_pays_four_rows(monkeypatch):
    """From 0.31 (verify as decode rows) the verify carries 1 + k = 4 rows of partials per request against the plain
    step's one: taking them away (the runtime reporting no splits) speeds the cycle up by about four times what it
    speeds the plain step up, and raises the speed-up at batch 4 and 83,000 tokens."""
    from tpkit.perf.runtime import Runtime

    with_partials = _kimi("0.33.0", 4, 83_000)
    monkeypatch.setattr(Runtime, "mla_kv_splits", lambda self, model, max_seq_len, sm_count: 0)
    without = _kimi("0.33.0", 4, 83_000)
    plain_cost = with_partials.baseline.step_us - without.baseline.step_us
    cycle_cost = with_partials.speculative.cycle_us - without.speculative.cycle_us
    assert plain_cost > 0
    assert 3.0 < cycle_cost / plain_cost < 6.0   # verify 4 rows + the draft's own (one-layer) rows, host share
    assert with_partials.speculative.speedup < without.speculative.speedup
    monkeypatch.undo()
    short_with = _kimi("0.33.0", 4, 2_000)
    monkeypatch.setattr(Runtime, "mla_kv_splits", lambda self, model, max_seq_len, sm_count: 0)
    short_without = _kimi("0.33.0", 4, 2_000)
    assert short_with.baseline.step_us - short_without.baseline.step_us < plain_cost / 20   # 4 splits at 2,000
