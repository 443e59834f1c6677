"""The draft extend after verify computes the draft lm_head on the rows SGLang keeps: spec v1 (DRAFT_EXTEND, an
extend mode) the last token of each sequence (captured bs rows), spec v2 (DRAFT_EXTEND_V2) every token
(tpkit.perf.spec.sglang_extend_logit_rows; helper tail11, issue 13)."""

import pytest

import tpkit.perf.plan as plan_mod
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.spec import sglang_extend_logit_rows
from tpkit.perf.impl import impl_profile
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels

KIMI = load_model("moonshotai/Kimi-K2.5")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)


def test_v1_keeps_one_row_per_captured_sequence_v2_keeps_every_row():
    assert sglang_extend_logit_rows(8, 0, False) == 8
    assert sglang_extend_logit_rows(5, 3, False) == 8              # the graph's padded rows run the lm_head too
    assert sglang_extend_logit_rows(8, 0, True) == 0               # 0 = every token of the batch


def _extends(monkeypatch, version):
    """(batch, pad, logit_rows, spec v2) of every SGLang draft extend the plan costs (the verdict costs the other
    mode too)."""
    seen = []
    real = plan_mod._draft_forward

    def spy(ctx, s, batch, tokens, policy, **kw):
        if kw.get("target_hidden"):
            seen.append((batch, kw.get("pad", 0), kw.get("logit_rows", 0), ctx.runtime(s).spec_overlap))
        return real(ctx, s, batch, tokens, policy, **kw)
    monkeypatch.setattr(plan_mod, "_draft_forward", spy)
    plan_perf(PerfRequest(model=KIMI, gpu=lookup_gpu("H200"), tp=8, context=1024, spec=EAGLE3, engine="sglang",
                          engine_version=version, accept_length=2.2))
    assert seen
    return seen


def test_v1_extend_charges_the_lm_head_on_batch_rows(monkeypatch):
    v1 = [(batch, pad, rows) for batch, pad, rows, v2 in _extends(monkeypatch, "0.5.10") if not v2]
    assert v1 and all(rows == batch + pad for batch, pad, rows in v1)   # spec v1: the default up to 0.5.10


def test_v2_extend_charges_the_lm_head_on_every_row(monkeypatch):
    seen = _extends(monkeypatch, "0.5.13")
    assert all(v2 and rows == 0 for _, _, rows, v2 in seen)


def test_the_lm_head_gemm_follows_the_logit_rows():
    spec = load_model("meta-llama/Llama-3.1-8B-Instruct")

    def head(batch):
        ks = forward_kernels(spec, Shard(), batch, impl_profile("sglang"))
        return next(k for k in ks if k.name == "lm_head")
    every, pruned = head(Batch(sequences=8, tokens_per_sequence=4)), head(Batch(sequences=8, tokens_per_sequence=4,
                                                                                logit_rows=8))
    assert pruned.flops == pytest.approx(every.flops / 4)
