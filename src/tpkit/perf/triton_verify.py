"""vLLM TRITON_ATTN (Triton unified attention): the speculative verify reads each request's KV cache without a KV
split, and the drafter does not inherit a forced attention backend (pure engine facts; ``perf.runtime_vllm`` sets
``Runtime.verify_split_kv`` and the drafter's backend from them, ``perf.plan`` charges the verify as ``perf.work``'s
``triton_nosplit``).

    in:  the vLLM version and attention backend, the verify's query tokens per request (1 + k)
    out: whether the verify streams each request's whole cache through one program per (query block, KV head);
         the backend the EAGLE/MTP drafter runs when ``--attention-backend`` was forced for the target

Read in the vLLM wheels (helper tri18, 2026-12-05; 0.9.0, 0.9.1, 0.9.2, 0.10.1, 0.11.0, 0.13.0, 0.17.1, 0.19.0, 0.20.0,
0.23.0, 0.25.0, 0.26.0, 0.27.1, 0.28.0–0.34.0):

    kernel choice      ``unified_attention`` (``attention/ops/triton_unified_attention.py`` up to 0.13,
                       ``v1/attention/ops/`` after): 0.9.0–0.9.1 have the 2D kernel only; from 0.9.2 a split-KV ("3D",
                       ``num_par_softmax_segments`` = 16 segments, ``triton_attn.py`` ``NUM_PAR_SOFTMAX_SEGMENTS``)
                       kernel runs only when ``max_seqlen_q == 1`` (0.9.2–0.11.0: "max_seqlen_q > 1 or
                       total_num_q_blocks * num_kv_heads > 128" → 2D; 0.13.0–0.32.0 ``use_3d = not (… or
                       max_seqlen_q > 1 or num_seqs > seq_threshold_3D …)``).  From 0.33.0 a query of up to
                       ``MAX_3D_QUERY_LEN`` = 8 tokens may split too (causal, no mm-prefix, scratch sized for
                       1 + num_speculative_tokens rows per request: ``TritonAttentionMetadataBuilder.__init__``
                       ``max_query_len_3d``), while ``num_seqs · cdiv(max_seqlen_q, BLOCK_Q) ≤ seq_threshold_3D``
                       (128 // KV heads per rank, snapped to a CUDA-graph capture size)
    2D grid            ``(total_num_q_blocks, num_kv_heads)``: ``BLOCK_M`` = 16 query rows (the next power of two of
                       the GQA group above 16), ``BLOCK_Q = BLOCK_M // group`` query tokens of one request per
                       program; each program walks its request's whole paged KV for one KV head, in
                       ``TILE_SIZE_PREFILL`` (32) token tiles, computing QKᵀ and PV over the padded BLOCK_M-row tile
    drafter            V1 runner: ``_create_draft_vllm_config`` (``v1/spec_decode/llm_base_proposer.py``, 0.21.0–0.33.0;
                       the V1 runner is gone in 0.34.0) replaces the target's ``attention_config.backend`` with the
                       speculative config's own (None unless given): "Never inherit the attention backend from base …
                       we always independently autoselect".  Before 0.21 (``eagle.py`` 0.17.1, 0.19.0, 0.20.0) the
                       drafter shares the target's config; Model Runner V2's EAGLE/MTP speculators build on the
                       target's config (0.32–0.34 ``SpeculativeConfig.apply_draft_overrides``: "Only when set"),
                       so they inherit it
    default choice     TRITON_ATTN is vLLM's automatic choice only for a head dim above 256 or a GPU below SM 8.0
                       (``engines.vllm.backend_choice.auto_attention_backend``); the rule reads the backend a row
                       runs, forced or automatic

One program's work (``perf.work`` ``triton_nosplit``): its KV head's whole cache at ``attention_cta_gbps`` (the
per-block rate FA2's rule uses, scaled by the row width), and at most one SM's tensor rate for the padded tile's math,
4 · BLOCK_M · head_dim FLOPs per cached token (``triton_block_flops``; ``DeviceRates.sm_flops``, datasheet, no
efficiency).  The plain step is not changed: at the small batches of the published rows it runs the 3D kernel (16
segments), and above ``seq_threshold_3D`` the 2D grid already has ≥ 128 programs.  Not modelled: 0.33's 2D fallback
of a verify batch above the threshold (≥ 128 programs), the SM 12.0 64-segment variant, SM 10.x's tuned head-256
path.
"""

from __future__ import annotations

from tpkit.perf.fa2_verify import fa2_block_flops

__all__ = ["TRITON_2D_FIRST", "TRITON_3D_VERIFY_FIRST", "TRITON_MAX_3D_QUERY_LEN", "DRAFT_OWN_BACKEND",
           "triton_block_m", "triton_block_flops", "triton_verify_without_split", "draft_backend_independent",
           "nosplit_block_flops"]

TRITON_2D_FIRST = (0, 9, 0)
"""first vLLM release whose TRITON_ATTN runs Triton unified attention (``triton_unified_attention.py``)"""
TRITON_3D_VERIFY_FIRST = (0, 33, 0)
"""first vLLM release whose split-KV (3D) Triton kernel takes more than one query token per request"""
TRITON_MAX_3D_QUERY_LEN = 8
"""``MAX_3D_QUERY_LEN`` (0.33.0, 0.34.0): the longest query the 3D kernel takes"""
DRAFT_OWN_BACKEND = ((0, 21, 0), (0, 34, 0))
"""[first, end) vLLM releases whose V1 drafter picks its own attention backend (``_create_draft_vllm_config``)"""


def triton_verify_without_split(backend: str, version: tuple[int, int, int], query_tokens: int) -> bool:
    """vLLM ``TRITON_ATTN``: a pass with ``query_tokens`` > 1 per request (the verify's 1 + k, the drafter's first
    step) runs the 2D kernel, no KV split: 0.9.0–0.32.x always, from 0.33.0 above ``MAX_3D_QUERY_LEN`` tokens."""
    if backend != "TRITON_ATTN" or query_tokens <= 1 or tuple(version) < TRITON_2D_FIRST:
        return False
    return tuple(version) < TRITON_3D_VERIFY_FIRST or query_tokens > TRITON_MAX_3D_QUERY_LEN


def draft_backend_independent(version: tuple[int, int, int], runner_v2: bool) -> bool:
    """Whether vLLM's EAGLE/MTP drafter picks its attention backend itself rather than taking the target's forced
    one: the V1 runner 0.21.0–0.33.x (module docstring, 'drafter')."""
    first, end = DRAFT_OWN_BACKEND
    return not runner_v2 and first <= tuple(version) < end


def triton_block_m(num_attention_heads: int, num_kv_heads: int) -> int:
    """``BLOCK_M`` of ``unified_attention``: 16 query rows, or the next power of two of a GQA group above 16."""
    group = max(1, num_attention_heads // max(1, num_kv_heads))
    return 16 if group <= 16 else 1 << (group - 1).bit_length()


def triton_block_flops(context: int, head_dim: int, block_m: int) -> float:
    """FLOPs one 2D program computes over ``context`` cached tokens: QKᵀ and PV on its padded ``block_m``-row tile."""
    return 4.0 * block_m * head_dim * context


def nosplit_block_flops(mode: str, context: int, head_dim: int, num_attention_heads: int, num_kv_heads: int) -> float:
    """FLOPs one block of a ``perf.work`` no-split attention mode computes by itself: FA2's 64-row tile
    (``fa2_nosplit``), Triton's ``BLOCK_M``-row tile (``triton_nosplit``), none charged for SGLang's triton extend."""
    if mode == "fa2_nosplit":
        return fa2_block_flops(context, head_dim)
    if mode == "triton_nosplit":
        return triton_block_flops(context, head_dim, triton_block_m(num_attention_heads, num_kv_heads))
    return 0.0
