"""perf.linear_state (helper gdn23, issue 13): a speculative verify of T tokens keeps a Gated-DeltaNet state per token
(vLLM: ``fused_sigmoid_gating_delta_rule_update`` with ``INPLACE_FINAL_STATE`` stores the state after every token;
SGLang: the same kernel caches each step in ``intermediate_ssm``, then copies the accepted one into the state); a plain
step, a prefill and any model without linear-attention layers are priced as before."""

import pytest

from tpkit.models import load_model
from tpkit.perf.impl import impl_profile
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels

GDN = "tests/validation/configs/RedHatAI--Qwen3.8-27B-INT4.json"


def _state_bytes(spec, tp, batch, engine) -> float:
    ks = [k for k in forward_kernels(spec, Shard(tp=tp), batch, impl_profile(engine))
          if k.name == "linear-attention state"]
    assert len(ks) == 1
    return ks[0].bytes * ks[0].count


@pytest.fixture(scope="module")
def gdn():
    return load_model(GDN)


def test_the_plain_step_reads_and_writes_each_state_once(gdn):
    layers = list(gdn.kinds).count("linear")
    state = gdn.linear_attn.state_bytes_per_layer.bytes
    for engine in ("vllm", "sglang"):
        assert _state_bytes(gdn, 4, Batch(sequences=3, context=8192), engine) == pytest.approx(
            layers * 3 * 2 * state / 4)


@pytest.mark.parametrize("tokens", [2, 3, 4])
def test_a_verify_keeps_a_temporal_state_per_token(gdn, tokens):
    layers = list(gdn.kinds).count("linear")
    state, temporal = gdn.linear_attn.state_bytes_per_layer.bytes, gdn.linear_attn.temporal_bytes_per_layer.bytes
    batch = Batch(sequences=2, tokens_per_sequence=tokens, context=8192, verify=True)
    vllm = _state_bytes(gdn, 4, batch, "vllm")
    assert vllm == pytest.approx(layers * 2 * (2 * state + (tokens - 1) * temporal) / 4)   # 1 read + T writes
    sglang = _state_bytes(gdn, 4, batch, "sglang")
    assert sglang - vllm == pytest.approx(layers * 2 * 2 * temporal / 4)                  # + the accepted copy
    prefill = Batch(sequences=2, tokens_per_sequence=tokens, context=8192)              # not a verify: as before
    assert _state_bytes(gdn, 4, prefill, "vllm") == pytest.approx(layers * 2 * 2 * state / 4)


def test_the_verify_of_a_gdn_model_costs_more_with_more_draft_tokens_and_batch():
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.perf import PerfRequest, SpecSettings, plan_perf

    def verify_us(batch, k):
        req = PerfRequest(model=load_model(GDN), gpu=lookup_gpu("L40S"), tp=1, batch=batch, context=1024,
                          engine="vllm", engine_version="0.24.0",
                          spec=SpecSettings(algorithm="NEXTN", num_steps=k, topk=1, num_draft_tokens=k + 1))
        return dict(plan_perf(req).speculative.parts_us)["verify"]

    # one state of Qwen3.8-27B's 48 GDN layers is ~3 MiB: 10 requests × 3 more tokens ≈ 4.4 GB more than k = 1's …
    extra = (verify_us(10, 3) - verify_us(10, 1)) - (verify_us(1, 3) - verify_us(1, 1))
    assert extra > 3000                                           # … ≥ 3 ms on an L40S's 864 GB/s


def test_models_without_linear_attention_are_unchanged():
    spec = load_model("meta-llama/Llama-3.1-8B-Instruct")
    plain = forward_kernels(spec, Shard(tp=1), Batch(sequences=4, tokens_per_sequence=3, context=2048),
                            impl_profile("vllm"))
    verify = forward_kernels(spec, Shard(tp=1), Batch(sequences=4, tokens_per_sequence=3, context=2048, verify=True),
                             impl_profile("vllm"))
    assert plain == verify
