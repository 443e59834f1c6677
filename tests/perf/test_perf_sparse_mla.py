"""DeepSeek sparse attention (DSA) in tpkit perf (helper vdep, 2026-12-04): vLLM runs a DSA model on a sparse-MLA
backend only, every token (the verify's included) decode-style over the indexer's top-k latents, under full CUDA
graphs; the attention work is the indexer's scan of the context plus top-k latents per sequence.  Pure layer, no
torch."""

import dataclasses

import pytest

from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.impl import impl_profile
from tpkit.perf.runtime import runtime_for
from tpkit.perf.runtime_vllm import SPARSE_CUSTOM
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels

GLM = load_model("zai-org/GLM-5.1")          # GlmMoeDsaForCausalLM: index_topk 2048, index_head_dim 128
DENSE = dataclasses.replace(GLM, dsa=None)   # the same MLA model without the indexer
MTP = SpecSettings(algorithm="NEXTN", num_steps=3, topk=1, num_draft_tokens=4)
SM120, SM90, SM100 = (12, 0), (9, 0), (10, 0)


def rt(version, cc, *, sparse=True, **kw):
    return runtime_for("vllm", version, compute_capability=cc, mla=True, topk=1, algorithm="NEXTN", sparse=sparse,
                       **kw)


def test_the_catalog_glm51_has_dsa():
    assert GLM.dsa is not None and GLM.dsa.index_topk == 2048 and GLM.mla is not None


# ------------------------------------------------------------------------------------------------ runtime facts
@pytest.mark.parametrize("version, cc, backend", [
    ("0.10.2", SM90, SPARSE_CUSTOM), ("0.11.0", SM90, "FLASHMLA_SPARSE"), ("0.20.2", SM100, "FLASHMLA_SPARSE"),
    ("0.20.2", SM120, SPARSE_CUSTOM), ("0.23.0", SM120, SPARSE_CUSTOM),
    ("0.24.0", SM120, "FLASHINFER_MLA_SPARSE_SM120"), (None, SM120, "FLASHINFER_MLA_SPARSE_SM120"),
    ("0.33.0", (8, 9), SPARSE_CUSTOM),
])
def test_sparse_backend_per_gpu_and_release(version, cc, backend):
    """platforms/cuda.py: FLASHMLA_SPARSE supports capability 9/10 from 0.11.0; FLASHINFER_MLA_SPARSE_SM120 is
    listed for major 12 from 0.24.0; nothing else."""
    assert rt(version, cc).attention_backend == backend


@pytest.mark.parametrize("version", ["0.20.2", "0.21.0", "0.23.0", "0.24.0", "0.30.0", "0.31.0"])
def test_dsa_verify_is_decode_under_full_graphs_where_dense_triton_mla_is_not(version):
    """Sparse MLA impls only have forward_mqa and declare UNIFORM_BATCH with spec-as-decode, so the TRITON_MLA
    rules (piecewise < 0.22, prefill-path verify < 0.31) never reach a DSA model; the dense MLA model on the same
    SM120 release keeps them (both sides of 0.22 and 0.31)."""
    sparse, dense = rt(version, SM120), rt(version, SM120, sparse=False)
    assert sparse.sparse_mla and not sparse.verify_mla_prefill and sparse.verify_split_kv
    assert sparse.target_graph == "full" and sparse.verify_graph == "full"
    assert dense.attention_backend == "TRITON_MLA" and not dense.sparse_mla
    v = tuple(int(x) for x in version.split("."))
    assert dense.verify_mla_prefill is (v < (0, 31, 0))
    assert dense.target_graph == ("full" if v >= (0, 22, 0) else "piecewise")


def test_no_stock_backend_is_named_in_the_facts():
    facts = " ".join(rt("0.20.2", SM120).facts)
    assert "no sparse-MLA backend for SM120" in facts and "0.24" in facts
    assert "no sparse-MLA backend" not in " ".join(rt("0.24.0", SM120).facts)


def test_sparse_and_dense_backends_do_not_mix():
    """v1/attention/backend.py validate_configuration: use_sparse != cls.is_sparse() is invalid."""
    with pytest.raises(PlanInputError, match="sparse"):
        rt("0.33.0", SM120, attention_backend="TRITON_MLA")
    with pytest.raises(PlanInputError, match="sparse"):
        rt("0.33.0", SM90, sparse=False, attention_backend="FLASHMLA_SPARSE")
    assert rt("0.33.0", SM90, attention_backend="FLASHMLA_SPARSE").attention_backend == "FLASHMLA_SPARSE"


def test_sglang_runtime_is_unchanged_by_the_flag():
    a = runtime_for("sglang", "0.5.23", compute_capability=SM90, mla=True, topk=1, algorithm="NEXTN", sparse=True)
    b = runtime_for("sglang", "0.5.23", compute_capability=SM90, mla=True, topk=1, algorithm="NEXTN")
    assert a == b


# ------------------------------------------------------------------------------------------------ work
def _attn(spec, context, tokens=1, seqs=1):
    ks = forward_kernels(spec, Shard(tp=8), Batch(sequences=seqs, tokens_per_sequence=tokens, context=context),
                         impl_profile("vllm"), kv_bytes=1, layers=range(5, 6), with_globals=False)
    return {k.name: k for k in ks if k.kind == "attention"}


def test_sparse_attention_reads_top_k_latents_and_the_indexer_scans_the_context():
    short, long = _attn(GLM, 1_000), _attn(GLM, 64_000)
    sa = lambda d: next(v for n, v in d.items() if n.startswith("sparse MLA"))   # noqa: E731
    ix = lambda d: d["DSA indexer (logits over the context + top-k)"]             # noqa: E731
    row = GLM.mla.kv_lora_rank + GLM.mla.qk_rope_head_dim                          # fp8 latent + rope, 576 B
    assert sa(short).bytes == pytest.approx(1_001 * row)                           # below top-k: every token
    assert sa(long).bytes == pytest.approx(2_048 * row)                            # above: top-k only
    assert sa(_attn(GLM, 200_000)).bytes == sa(long).bytes
    assert ix(long).bytes / ix(short).bytes == pytest.approx(64_001 / 1_001, rel=1e-3)   # keys + logits, linear
    assert ix(long).dtype == "fp8"
    dense = _attn(DENSE, 64_000)["attention"]
    assert dense.bytes == pytest.approx(64_001 * row) and dense.bytes > 3 * (sa(long).bytes + ix(long).bytes)


def test_verify_tokens_share_the_cache_reads_but_not_the_flops():
    plain, verify = _attn(GLM, 32_000, tokens=1), _attn(GLM, 32_000, tokens=4)
    for name in plain:
        if name.startswith("sparse MLA"):
            assert verify[name].bytes == plain[name].bytes
            assert verify[name].flops == pytest.approx(4 * plain[name].flops)
    ix = "DSA indexer (logits over the context + top-k)"
    assert verify[ix].flops == pytest.approx(4 * plain[ix].flops, rel=1e-3)   # the context counts the new tokens
    assert plain[ix].bytes < verify[ix].bytes < 4 * plain[ix].bytes   # keys once, logits per token


# ------------------------------------------------------------------------------------------------ plan_perf
def _speedup(model, context, version="0.20.2"):
    r = plan_perf(PerfRequest(model=model, gpu=lookup_gpu("RTX-PRO-6000"), tp=8, batch=1, context=context,
                              engine="vllm", spec=MTP, accept_length=2.7, kv_cache_dtype="fp8",
                              engine_version=version))
    return r.speculative.speedup


def test_dsa_speculation_holds_with_context_where_the_dense_prefill_path_collapses():
    """glm51v2_rtx6k (GLM-5.1 MTP on 8× RTX PRO 6000, vLLM 0.20.2 image) measured 1.50–1.62× from 1K to 66K tokens;
    with the TRITON_MLA prefill-path verify of a dense MLA model the model fell to 0.24–0.53× (§4.3)."""
    near, far = _speedup(GLM, 1_024), _speedup(GLM, 65_536)
    assert far > 1.3 and abs(far / near - 1) < 0.1
    assert _speedup(DENSE, 65_536) < 0.7 < _speedup(DENSE, 65_536, version="0.31.0")


# ------------------------------------------------------------------------------------------------ CUTLASS_MLA
@pytest.mark.parametrize("version", ["0.11.0", "0.20.2", "0.33.0"])
def test_cutlass_mla_verify_takes_the_prefill_path_where_flashinfer_mla_does_not(version):
    """cutlass_mla.py (0.10.2–0.33): reorder_batch_threshold 1 / SINGLE_ONLY, graphs UNIFORM_SINGLE_TOKEN_DECODE;
    FLASHINFER_MLA (the SM10x default) takes a uniform verify as a decode."""
    cut = rt(version, SM100, sparse=False, attention_backend="CUTLASS_MLA")
    fi = rt(version, SM100, sparse=False)
    assert fi.attention_backend == "FLASHINFER_MLA" and not fi.verify_mla_prefill and fi.verify_graph == "full"
    assert cut.verify_mla_prefill and cut.verify_graph == "piecewise" and cut.target_graph == "full"
    plain = runtime_for("vllm", version, compute_capability=SM100, mla=True, topk=None, algorithm=None,
                        attention_backend="CUTLASS_MLA")
    assert not plain.verify_mla_prefill
