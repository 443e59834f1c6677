"""vLLM TRITON_ATTN (``perf.triton_verify``): Triton unified attention splits the KV only for one query token per
request before 0.33 (``unified_attention``: ``max_seqlen_q > 1`` takes the 2D kernel, grid (query blocks, KV heads)),
so the verify streams each request's whole cache through one program per (query block, KV head), each computing its
padded 16-row tile; vLLM's V1 drafter (0.21–0.33) does not inherit a forced backend ("Never inherit the attention
backend from base", ``llm_base_proposer.py``).  The case that found it: Qwen3.8-27B on 4x RTX 3090, vLLM 0.26.0,
``--attention-backend TRITON_ATTN`` with a bf16 cache, MTP 2 (alesha-pro/qwen38-27b-bench-4x3090, helper sp18's blind
rows 287–301, 331–335): the speed-up falls to 0.25–0.69x from 32K.  Helper tri18 (2026-12-05)."""

import sys
from pathlib import Path

import pytest

from tpkit.models import load_model
from tpkit.perf.fa2_verify import multi_token_attention
from tpkit.perf.mla_splits import verify_attention_mode
from tpkit.perf.runtime import runtime_for
from tpkit.perf.triton_verify import (draft_backend_independent, triton_block_flops, triton_block_m,
                                      triton_verify_without_split)
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels
from tpkit.perf.impl import impl_profile

ROOT = Path(__file__).resolve().parents[2]
QWEN38 = ROOT / "tests/validation/configs/RedHatAI--Qwen3.8-27B-INT4.json"
SM86 = (8, 6)


@pytest.mark.parametrize("backend, version, q, nosplit", [
    ("TRITON_ATTN", (0, 26, 0), 3, True),
    ("TRITON_ATTN", (0, 32, 0), 3, True),
    ("TRITON_ATTN", (0, 33, 0), 3, False),    # 0.33: the 3D kernel takes up to MAX_3D_QUERY_LEN = 8 tokens
    ("TRITON_ATTN", (0, 33, 0), 8, False),
    ("TRITON_ATTN", (0, 34, 0), 9, True),
    ("TRITON_ATTN", (0, 26, 0), 1, False),    # plain decode: 3D
    ("TRITON_ATTN", (0, 8, 5), 3, False),     # before Triton unified attention: not modelled
    ("FLASH_ATTN", (0, 26, 0), 3, False),     # perf.fa2_verify's rule, not this one
    ("FLASHINFER", (0, 26, 0), 3, False),
])
def test_the_split_rule_at_the_version_boundary(backend, version, q, nosplit):
    assert triton_verify_without_split(backend, version, q) is nosplit


@pytest.mark.parametrize("version, split", [("0.26.0", False), ("0.32.0", False), ("0.33.0", True)])
def test_runtime_of_a_forced_triton_backend_at_the_boundary(version, split):
    rt = runtime_for("vllm", version, compute_capability=SM86, mla=False, topk=1, algorithm="NEXTN",
                     attention_backend="TRITON_ATTN", head_dim=256, verify_tokens=3)
    assert rt.attention_backend == "TRITON_ATTN" and rt.verify_split_kv is split
    assert verify_attention_mode(rt) == ("decode" if split else "triton_nosplit")
    nine = runtime_for("vllm", version, compute_capability=SM86, mla=False, topk=1, algorithm="NEXTN",
                       attention_backend="TRITON_ATTN", head_dim=256, verify_tokens=9)
    assert nine.verify_split_kv is False


def test_triton_by_default_is_covered_and_keeps_its_drafter():
    """A head dim above 256 makes TRITON_ATTN vLLM's own choice (no flag): the rule applies, and the drafter runs the
    same backend (nothing was forced)."""
    rt = runtime_for("vllm", "0.26.0", compute_capability=(9, 0), mla=False, topk=1, algorithm="EAGLE3",
                     head_dim=512, verify_tokens=4)
    assert rt.attention_backend == "TRITON_ATTN" and not rt.verify_split_kv
    assert rt.draft_backend == "" and multi_token_attention(rt, draft=True) == "triton_nosplit"


@pytest.mark.parametrize("version, v2, draft, mode", [
    ("0.26.0", False, "FLASH_ATTN", "fa2_nosplit"),   # V1 drafter picks its own: FA2 on SM 8.6 (the logs say so)
    ("0.25.0", False, "FLASH_ATTN", "fa2_nosplit"),   # (hybrid: V1 up to 0.26; every model V2 from 0.29)
    ("0.20.0", False, "", "triton_nosplit"),          # before 0.21 the drafter shares the target's config
    ("0.26.0", True, "", "triton_nosplit"),           # Model Runner V2 builds on the target's config
])
def test_the_drafter_backend_when_the_target_forces_triton(version, v2, draft, mode):
    assert draft_backend_independent(tuple(int(x) for x in version.split(".")), v2) is (draft != "")
    arch = dict(architecture="Qwen3ForCausalLM", hybrid=False) if v2 else dict(hybrid=True)
    rt = runtime_for("vllm", version, compute_capability=SM86, mla=False, topk=1, algorithm="NEXTN",
                     attention_backend="TRITON_ATTN", head_dim=256, verify_tokens=3, **arch)
    assert rt.draft_backend == draft
    assert rt.multi_token_attention == mode
    assert rt.to_dict()["draft_attention_backend"] == (draft or "TRITON_ATTN")


def test_fp8_kv_flashinfer_forced_draft_is_flashinfer_too():
    rt = runtime_for("vllm", "0.26.0", compute_capability=SM86, mla=False, topk=1, algorithm="NEXTN",
                     attention_backend="FLASHINFER", head_dim=256, kv_quantized=True, verify_tokens=3, hybrid=True)
    assert rt.verify_split_kv and rt.draft_backend == "" and rt.multi_token_attention == "decode"


def test_a_program_streams_its_kv_head_and_computes_a_16_row_tile():
    model = load_model(str(QWEN38))
    assert triton_block_m(24, 4) == 16 and triton_block_m(64, 2) == 32
    ctx = 65536
    kernels = forward_kernels(model, Shard(tp=2), Batch(sequences=1, tokens_per_sequence=3, context=ctx),
                              impl_profile("vllm"), quant=model.quant, kv_bytes=2, attention="triton_nosplit")
    (att,) = {k for k in kernels if k.kind == "attention"}
    assert att.cta_bytes == (ctx + 3) * 2 * 256 * 2
    assert att.cta_flops == triton_block_flops(ctx + 3, 256, 16) == 4.0 * 16 * 256 * (ctx + 3)


def _row(context, kv="auto", backend="TRITON_ATTN", tp=2):
    sys.path.insert(0, str(ROOT / "bench"))
    import json

    from decode_published import predict
    rows = json.loads((ROOT / "bench/data/published_spec.json").read_text())["rows"]
    (row,) = [r for r in rows if r["source"] == "p18_q38_4x3090" and r["engine"] == "vllm" and r["tp"] == tp
              and r["context"] == context and r["attention_backend"] == backend
              and "INT4" in r["model"]]
    return row, predict(row).speculative.speedup


def test_the_rtx3090_bf16_cache_rows_lose_at_long_context_and_fp8_rows_do_not():
    """Rows 289–291 (TP2, bf16 cache, TRITON_ATTN forced): measured 0.46 / 0.39 / 0.31x, predicted 1.81–1.89x before
    this rule, 0.48–0.87x with it; the fp8 rows of the same matrix (FLASHINFER) keep their speed-up."""
    for ctx in (65600, 131136, 254016):
        row, speedup = _row(ctx)
        assert row["spec_tok_s"] < row["base_tok_s"]
        assert speedup < 1.0
    _, long = _row(254016)
    assert long < 0.6
    _, fp8 = _row(254016, backend="FLASHINFER")
    assert fp8 > 1.5
