"""vLLM FLASH_ATTN on FlashAttention 2: the speculative verify reads each request's KV cache without a KV split
(pure engine facts; ``perf.runtime_vllm`` sets ``Runtime.verify_split_kv`` from them, ``perf.plan`` then charges the
verify and the drafter's first step as ``perf.work``'s ``fa2_nosplit``).

    in:  the vLLM attention backend, the GPU's compute capability
    out: whether a pass with more than one query token per request (the verify's 1 + k tokens, the drafter's first
         step on them) streams each request's whole cache through one block per (request, query head)

Read in the vLLM wheels and in vLLM's FlashAttention fork (helper aw13, 2026-12-05):

    which FA version   ``v1/attention/backends/fa_utils.py`` ``get_flash_attn_version`` (0.17.0, 0.33.0): FA3 on
                       SM 9.x, FA4 on SM 10.x where the build supports it (head size ≤ 128 in 0.17.0), FA2 on every
                       other GPU (SM 8.x, SM 12.x: "Fallback to FA2"); ``FlashAttentionBackend`` is the automatic
                       choice there for a 16-bit KV cache (``platforms/cuda.py`` ``_get_backend_priorities``; an fp8
                       cache needs FA3, so SM 12.x takes FLASHINFER: ``flash_attn_supports_fp8``)
    one varlen call    ``FlashAttentionImpl.forward`` (``v1/attention/backends/flash_attn.py``, 0.17.0) runs every
                       token of the batch through one ``flash_attn_varlen_func`` with ``max_seqlen_q`` = the longest
                       query (1 + k in a verify batch); ``num_splits`` stays 0 for FA2 (``max_num_splits`` is set
                       for FA3's AOT scheduler only) and the wrapper refuses more ("FA2 does not support
                       num_splits > 1": ``vllm_flash_attn/flash_attn_interface.py`` 0.9.2, 0.13.0, 0.17.0, 0.17.1,
                       0.20.2, 0.29.0; 0.33.0 "FA2 only supports 0 or 1")
    split only at q=1  vllm-project/flash-attention ``csrc/flash_attn/flash_api.cpp`` ``mha_varlen_fwd`` (commits
                       6f27a054 2025-03-04, 7d346be6 2026-01-29, 617264c1 2026-08-06): the GQA swap
                       ``seqlenq_ngroups_swapped`` needs ``max_seqlen_q == 1``, and "Only apply split-k for decoding":
                       ``set_params_splitkv`` runs only in that case; otherwise ``num_splits`` ≤ 1 (617264c1:
                       "num_splits > 1 is not supported for varlen paged KV"), grid (query blocks, batch, query
                       heads), each block walking its request's whole paged KV.  Plain decoding (q = 1) gets the
                       heuristic split; the verify and the drafter's first step (q = 1 + k) do not.
    graphs             FA2's builder declares ``AttentionCGSupport.UNIFORM_BATCH`` (FA3: ALWAYS): the uniform
                       1 + k verify batch replays a FULL graph, so no eager attention is involved
    drafter            ``EagleProposer.propose`` (``v1/spec_decode/eagle.py``, 0.17.0) runs its first forward over the
                       verify's tokens (``max_query_len`` = 1 + k, the same backend for the MTP/EAGLE layer's own
                       cache) and sets ``max_query_len = 1`` for the later draft steps (split again)

    one block's work  ``mha_varlen_fwd`` calls ``run_mha_fwd(params, stream, paged_KV)``: a paged cache (vLLM's)
                       forces the split-KV kernel even at one split, ``run_mha_fwd_splitkv_dispatch``
                       (``src/flash_fwd_launch_template.h``, 7d346be6): ``kBlockM = 64`` "Fixed for all head
                       dimensions", ``kBlockN`` 64 for head dim 256 (128 for ≤ 128), 4 warps, grid (query blocks,
                       batch, query heads).  A verify's 1 + k rows fill one 64-row tile, so per cached token a block
                       computes QKᵀ and PV over the padded tile: 4 × 64 × head_dim FLOPs (``FA2_BLOCK_M``), at
                       most one SM's tensor rate (``DeviceRates.sm_flops``: datasheet dense bf16 ÷ SM count, no
                       efficiency: a floor).  That is 64 FLOPs per cached bf16 byte at any head dim: 24.5 ns per token
                       of head dim 256 (41.9 GB/s) on an RTX PRO 6000 (503.8 TFLOP/s over 188 SMs), 8.7 ns on an
                       H200 (below the 11.4 ns of ``attention_cta_gbps``, which then binds).

Measured elsewhere, same mechanism: a vLLM fork's calibration on Turing FA2 (Peuqui/AIfred docs, 2026-08-30, "FA2
paged varlen @31k … q=1: 0.134 ms — q>=2: 2.6 ms"), which turned MTP into a loss at long context until the split
was enabled for q ≤ 64.  What a block costs (``forward.kernel_us``): the larger of its streamed bytes at
``attention_cta_gbps`` (the existing per-block rate) and its tile's math above (nothing fitted).  Not modelled:
SM 10.x with FLASH_ATTN asked for (FA4 or FA2 by head size and release), FLEX_ATTENTION (TRITON_ATTN:
``perf.triton_verify``, helper tri18).
"""

from __future__ import annotations

__all__ = ["FA2_BLOCK_M", "FA2_MAJORS_EXCLUDED", "fa2_block_flops", "fa2_verify_without_split",
           "multi_token_attention", "split_kv_alternative"]

FA2_BLOCK_M = 64
"""query rows of one FA2 split-KV-kernel block (``run_mha_fwd_splitkv_dispatch``: fixed for all head dims)"""

FA2_MAJORS_EXCLUDED = (9, 10)
"""compute-capability majors where vLLM's FLASH_ATTN runs FA3 (9) or FA4 (10, where supported) instead of FA2"""


def fa2_verify_without_split(backend: str, compute_capability: tuple[int, int] | None) -> bool:
    """vLLM ``FLASH_ATTN`` on a GPU where it runs FlashAttention 2 (compute capability major 8, 12 …; module
    docstring): a pass whose requests carry more than one query token reads each request's KV cache without a KV
    split.  None (GPU unknown) is taken as SM 9.0, tpkit's default, i.e. FA3."""
    major = (compute_capability or (9, 0))[0]
    return backend == "FLASH_ATTN" and major not in FA2_MAJORS_EXCLUDED


def fa2_block_flops(context: int, head_dim: int) -> float:
    """FLOPs one FA2 block computes over ``context`` cached tokens: QKᵀ and PV on its padded ``FA2_BLOCK_M``-row
    tile, 4 × 64 × head_dim per token, however few of the rows are real query tokens."""
    return 4.0 * FA2_BLOCK_M * head_dim * context


def multi_token_attention(runtime, *, draft: bool = False) -> str:
    """``perf.work`` attention mode of a pass with 1 + k query tokens per request (the verify, vLLM's first draft
    step, SGLang's draft extend) under ``runtime`` (a ``perf.runtime.Runtime``): ``decode`` where the backend splits
    the KV for it, ``fa2_nosplit`` for vLLM FLASH_ATTN on FA2 (above), ``triton_nosplit`` for vLLM TRITON_ATTN's 2D
    kernel (``perf.triton_verify``), else ``extend_nosplit`` (SGLang triton).  ``draft``: a drafter pass, on the
    drafter's own backend where vLLM gives it one (``Runtime.draft_backend``)."""
    own = draft and bool(runtime.draft_backend)
    backend = runtime.draft_backend if own else runtime.attention_backend
    if (runtime.draft_split_kv if own else runtime.verify_split_kv):
        return "decode"
    if runtime.engine == "vllm" and backend in ("FLASH_ATTN", "TRITON_ATTN"):
        return "fa2_nosplit" if backend == "FLASH_ATTN" else "triton_nosplit"
    return "extend_nosplit"


def split_kv_alternative(engine: str) -> tuple[str, dict, tuple[str, ...]]:
    """The ``tpkit perf`` what-if for a verify without KV split (change label, request change, flags): FlashInfer,
    whose verify splits the KV (SGLang ``flashinfer``; vLLM ``FLASHINFER``, also what an fp8 KV cache picks on
    SM 12.x)."""
    backend = "flashinfer" if engine == "sglang" else "FLASHINFER"
    return (f"a verify kernel that splits the KV cache (--attention-backend {backend}, if this build runs it on this "
            "GPU)", {"attention_backend": backend}, (f"--attention-backend {backend}",))
