"""vLLM TRITON_MLA's verify as one decode row per query token (``perf.mla_splits``): from 0.31 ``forward_mqa``
flattens the verify's 1 + k tokens of a request into 1 + k decode rows (``block_table.repeat_interleave``, read in
the 0.31.0 and 0.33.0 wheels; 0.30.0 keeps the causal verify on the prefill path), each streaming the request's whole
cached latent, and a lone row streams at most ``triton_mla_row_gbps`` (the rtx6kpro sm120 kernel microbench)."""

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.constants import C
from tpkit.perf.device import device_rates
from tpkit.perf.forward import kernel_us
from tpkit.perf.impl import impl_profile
from tpkit.perf.runtime import runtime_for
from tpkit.perf.mla_splits import verify_attention_mode, verify_rows_per_token
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels

KIMI = load_model("moonshotai/Kimi-K2.5")
SM120 = dict(compute_capability=(12, 0), mla=True, topk=1, algorithm="EAGLE3")


@pytest.mark.parametrize("version, rows, mode", [
    ("0.30.0", False, "mla_prefill"),    # causal verify still takes the prefill path
    ("0.31.0", True, "decode_rows"),
    ("0.33.0", True, "decode_rows"),
])
def test_triton_mla_verify_rows_by_release(version, rows, mode):
    rt = runtime_for("vllm", version, **SM120)
    assert rt.attention_backend == "TRITON_MLA"
    assert rt.verify_rows_per_token is rows
    assert verify_attention_mode(rt) == mode
    assert any("1 + k decode rows" in f for f in rt.facts) is rows
    assert rt.to_dict()["verify_attention"] == ("decode_rows" if rows else "mla_prefill")


def test_other_backends_and_plain_decoding_read_the_context_once_per_request():
    assert not runtime_for("vllm", "0.33.0", compute_capability=(9, 0), mla=True, topk=1,
                           algorithm="EAGLE3").verify_rows_per_token          # FLASHMLA on Hopper
    assert not runtime_for("vllm", "0.33.0", compute_capability=(12, 0), mla=True, topk=1,
                           algorithm=None).verify_rows_per_token               # no speculation
    assert not runtime_for("vllm", "0.33.0", compute_capability=(12, 0), mla=False, topk=1,
                           algorithm="EAGLE3").verify_rows_per_token           # GQA model
    assert not runtime_for("sglang", None, compute_capability=(12, 0), mla=True, topk=1,
                           algorithm="EAGLE3").verify_rows_per_token
    assert not runtime_for("vllm", "0.33.0", compute_capability=(12, 0), mla=True, topk=1, algorithm="EAGLE3",
                           sparse=True).verify_rows_per_token                  # sparse-MLA backend
    assert not verify_rows_per_token("vllm", "TRITON_MLA", (0, 33, 0), mla=True, speculative=True, prefill=True)


def _attention(mode, tokens, model=KIMI, splits=256, context=83_000):
    kernels = forward_kernels(model, Shard(tp=8), Batch(sequences=4, tokens_per_sequence=tokens, context=context),
                              impl_profile("vllm"), kv_bytes=1, attention=mode, kv_splits=splits)
    return [k for k in kernels if k.kind == "attention"][0]


def test_each_verify_row_reads_the_whole_cached_latent():
    once, rows = _attention("decode", 4), _attention("decode_rows", 4)
    latent = 61 * 4 * (83_000 + 4) * 576                  # layers × requests × tokens × bytes (partials alike)
    assert rows.bytes * rows.count - once.bytes * once.count == pytest.approx(3 * latent, rel=1e-9)
    llama = load_model("meta-llama/Llama-3.1-8B-Instruct")    # not MLA: the mode changes nothing
    assert _attention("decode_rows", 4, llama, 0).bytes == _attention("decode", 4, llama, 0).bytes


def test_a_lone_triton_mla_row_is_latency_bound():
    dev = device_rates(lookup_gpu("RTX-PRO-6000"))
    one = forward_kernels(KIMI, Shard(tp=8), Batch(sequences=1, context=83_000), impl_profile("vllm"), kv_bytes=1,
                          kv_splits=256)
    attn = [k for k in one if k.kind == "attention"][0]
    floor_us = (83_001 * 576) / (C["triton_mla_row_gbps"].value * 1e9) * 1e6
    assert attn.row_bytes == 83_001 * 576
    assert kernel_us(attn, dev) >= floor_us > attn.bytes / dev.hbm_bytes_per_s * 1e6
    other = forward_kernels(KIMI, Shard(tp=8), Batch(sequences=1, context=83_000), impl_profile("vllm"), kv_bytes=1)
    assert [k for k in other if k.kind == "attention"][0].row_bytes == 0     # no TRITON_MLA splits: no floor


def test_kimi_verify_attention_grows_with_its_rows_on_rtx_pro_6000():
    """rtx6kpro kimi-k26.md: at 4 requests the speculative cycle grows 3.3× as fast with context as the plain step;
    the verify's attention must be several plain steps' worth, not the ~1.5× of one read per request."""
    r = plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu("RTX-PRO-6000"), tp=8, batch=4, context=83_000,
                              engine="vllm", kv_cache_dtype="fp8", accept_length=2.278,
                              spec=SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)))
    verify_attn = dict(r.speculative.parts_us)["verify attention (in verify)"]
    plain_attn = r.breakdown["baseline"]["by_kind_us"]["attention"]
    assert verify_attn > 3.0 * plain_attn
    assert r.speculative.speedup < 1.0                      # measured 0.87× (117.3 / 135.1 tok/s)
    assert "one decode row per query token" in str(r.verdict.to_dict())
