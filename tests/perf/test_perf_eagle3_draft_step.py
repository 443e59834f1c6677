"""The EAGLE-3 draft step as the engines run it (helper draft11, 2026-12-05, issue 13; docs/accuracy.md §4.2).

1. the fc (3·hidden → hidden) runs only on a pass fed the target's hidden states: SGLang's extend after verify,
   vLLM's first proposer forward (sglang 0.5.6 ``models/llama_eagle3.py`` ``LlamaModel.forward``; vllm 0.11.0
   ``v1/spec_decode/eagle.py`` ``EagleProposer.propose``);
2. the midlayer's qkv GEMM reads [embedding, hidden] = 2·hidden (both engines' ``models/llama_eagle3.py``
   ``LlamaDecoderLayer``: ``QKVParallelLinear(2 * hidden_size, …)``);
3. SGLang runs softmax + ``fast_topk`` over the draft vocab after every draft forward (sglang 0.5.6
   ``speculative/eagle_worker.py`` ``draft_forward`` / ``capture_for_decode``); vLLM takes an argmax.
And a head given by its own config keeps its widths and its ``draft_vocab_size`` lm_head."""

from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan
from tpkit.perf.spec import draft_spec, draft_topk_kernels, extra_draft_kernels
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels
from tpkit.perf.impl import impl_profile

ROOT = Path(__file__).resolve().parents[2]
LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")
HEAD_CONFIG = ROOT / "tests" / "engines" / "data_vllm_issue11" / "SpecForge--llama3-8B-eagle3.json"
E3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=4, num_draft_tokens=8)
CHAIN = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)


def _ctx(engine, spec=E3, draft=None):
    req = PerfRequest(model=LLAMA, gpu=lookup_gpu("H200"), tp=1, batch=4, context=2048, engine=engine, spec=spec,
                      draft=draft, engine_version="0.5.6" if engine == "sglang" else None)
    ctx = plan._context(req)
    return ctx, plan.default_policy(ctx.setup.link)


def test_eagle3_fc_only_on_the_pass_fed_the_target_hidden_states():
    h = LLAMA.hidden_size
    assert extra_draft_kernels(LLAMA, E3, 16, 1, target_hidden=False) == []
    (fc,) = extra_draft_kernels(LLAMA, E3, 16, 1, target_hidden=True)
    assert fc.flops == 2.0 * 16 * 3 * h * h
    # EAGLE(-1/2)'s fc is over [embedding, hidden] on every step: unchanged
    e1 = SpecSettings(algorithm="EAGLE", num_steps=3, topk=1, num_draft_tokens=4)
    assert len(extra_draft_kernels(LLAMA, e1, 16, 1, target_hidden=False)) == 1
    # in the plan: a later draft step is cheaper than the same pass with the fc by about the fc's 96 MiB of weights
    ctx, policy = _ctx("sglang")
    step = plan._draft_forward(ctx, E3, 4, 4, policy, sample_rows=16).total_us
    with_fc = plan._draft_forward(ctx, E3, 4, 4, policy, target_hidden=True, sample_rows=16).total_us
    assert with_fc - step > 3 * h * h * 2 / ctx.dev.hbm_bytes_per_s * 1e6 * 0.9


def test_eagle3_midlayer_qkv_reads_twice_the_hidden_size():
    head = draft_spec(LLAMA, E3, None)
    h = head.hidden_size
    ks = forward_kernels(head, Shard(tp=1), Batch(sequences=1, context=2048), impl_profile("sglang"))
    (qkv,) = [k for k in ks if k.name == "qkv"]
    q_out = head.num_attention_heads * head.head_dim + 2 * head.num_kv_heads * head.head_dim
    assert qkv.flops == pytest.approx(2.0 * (2 * h) * q_out)
    assert qkv.latency_k == 2 * h
    # the EAGLE(-1/2) head's layer reads hidden
    e1 = draft_spec(LLAMA, SpecSettings(algorithm="EAGLE", num_steps=3, topk=1, num_draft_tokens=4), None)
    (qkv1,) = [k for k in forward_kernels(e1, Shard(tp=1), Batch(sequences=1, context=2048), impl_profile("sglang"))
               if k.name == "qkv"]
    assert qkv1.flops == pytest.approx(2.0 * h * q_out)


def test_sglang_draft_softmax_and_topk_over_the_draft_vocab():
    head = draft_spec(LLAMA, E3, None)
    ks = draft_topk_kernels(head, E3, 16)
    assert sum(k.count for k in ks) == 14                       # softmax + 4 × (counts, cumsum, within-k) + gather
    cells = 4.0 * 16 * 32000
    assert sum(k.bytes * k.count for k in ks) == pytest.approx(2 * cells + 5 * cells)
    chain = draft_topk_kernels(head, CHAIN, 4)                  # fast_topk(…, 1) is torch.max
    assert [k.name for k in chain] == ["draft softmax", "draft top-1 (torch.max)"]
    # from sglang 0.5.13 a chain on CUDA takes one argmax over the logits (eagle_worker_v2.py draft_forward)
    assert [k.name for k in draft_topk_kernels(head, CHAIN, 4, version=(0, 5, 13))] == ["draft argmax"]
    assert [k.name for k in draft_topk_kernels(head, CHAIN, 4, version=(0, 5, 12))][0] == "draft softmax"
    assert len(draft_topk_kernels(head, CHAIN, 4, version=(0, 5, 13), cuda=False)) == 2     # ROCm: softmax + max
    assert sum(k.count for k in draft_topk_kernels(head, E3, 16, version=(0, 5, 23))) == 14
    assert draft_topk_kernels(head, E3, 0) == []
    mtp = SpecSettings(algorithm="NEXTN", num_steps=3, topk=1, num_draft_tokens=4)
    assert draft_topk_kernels(head, mtp, 4) == []
    # charged on SGLang's draft steps, not on vLLM's (argmax, already in the forward's sampling)
    ctx, policy = _ctx("sglang")
    with_rows = plan._draft_forward(ctx, E3, 4, 4, policy, sample_rows=16).total_us
    without = plan._draft_forward(ctx, E3, 4, 4, policy).total_us
    assert with_rows - without > 14 * 2.0
    vctx, vpolicy = _ctx("vllm", CHAIN)
    assert (plan._draft_forward(vctx, CHAIN, 4, 1, vpolicy, sample_rows=4).total_us
            == plan._draft_forward(vctx, CHAIN, 4, 1, vpolicy).total_us)


def test_sglang_cycle_charges_topk_on_steps_and_extend_and_fc_on_extend_only():
    ctx, policy = _ctx("sglang")
    parts = dict(plan._spec_point(ctx, E3, 4, policy, 1000.0).parts_us)
    steps = 2 * plan._draft_forward(ctx, E3, 4, 4, policy, sample_rows=16).total_us   # 0.5.6 skips the last forward
    assert parts["draft steps"] == pytest.approx(steps)


def test_a_given_eagle3_head_keeps_its_own_widths_and_draft_vocab():
    given = load_model(str(HEAD_CONFIG))
    head = draft_spec(LLAMA, E3, given)
    assert head.vocab_size == 32000 and head.intermediate_size == given.intermediate_size
    assert head.extra.get("eagle3_qkv_input_2h") is True
    # a STANDALONE draft is used as it is
    st = SpecSettings(algorithm="STANDALONE", num_steps=3, topk=1, num_draft_tokens=4)
    assert draft_spec(LLAMA, st, given) is given
