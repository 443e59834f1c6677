"""FlashAttention 3's split-KV accumulators in vLLM's first FULL CUDA-graph capture (helper vx25, 2026-12-06).

Where they come from (vllm 0.16.0, 0.19.1, 0.20.0, 0.22.0, 0.25.0, 0.26.0, 0.28.0 and 0.34.0 wheels):

* ``v1/attention/backends/fa_utils.py get_flash_attn_version``: the FLASH_ATTN backend runs FlashAttention 3 on
  compute capability 9.x (Hopper), 2 on 8.x / 12.x; FA4 (10.x) takes no ``aot_schedule`` path.
* ``v1/attention/backends/flash_attn.py FlashAttentionMetadataBuilder.__init__``: with FULL CUDA graphs and FA3,
  ``max_num_splits`` is ``attention_config.flash_attn_max_num_splits_for_cuda_graph`` (``config/attention.py``:
  32); ``build`` passes it for every batch of at most ``max_cudagraph_capture_size`` tokens, "so that large enough
  intermediate buffers are pre-allocated during capture" ("buffers of size [num_splits, num_heads, num_tokens,
  head_size]").
* FA3's ``mha_fwd`` (vllm-project/flash-attention ``hopper/flash_api.cpp``): a given ``num_splits`` is used as is;
  with more than one split it allocates ``out_accum`` [splits, heads, total_q, head_size_v] and
  ``softmax_lse_accum`` [splits, heads, total_q], both fp32, and it turns splitting off for varlen batches of more
  than 992 sequences (``PREPARE_VARLEN_MAX_BATCHES_1CTA``).

So the first FULL capture (``profile_cudagraph_memory``'s first sample: the largest FULL batch, one query token a
sequence, or 1 + speculative tokens) allocates 32 × heads per rank × tokens × (head_size_v + 1) × 4 B in the graph
pool.  The llm-d-planner H100 logs that print the per-mode samples at DEBUG (vLLM 0.19.0, 512-token FULL graphs) read
260 / 256 / 228 / 262 / 266 / 136 / 262 MiB for 258 / 258 / 226 / 258 / 258 / 129 / 257 MiB here (Llama-3.1-8B,
its pipeline stage, Qwen2.5-7B, Qwen3-8B, Qwen3-30B-A3B, Qwen1.5-MoE, gemma-2-9b), 70 at tp 4 (64.5), and 8 MiB for
gpt-oss-20b's 1,024-sequence FULL graph (above 992: no split); TRITON_ATTN (gemma-3-27b) 8 MiB.
"""

from __future__ import annotations

from tpkit.units import Bytes

FA3_GRAPH_SPLITS = 32
"""``flash_attn_max_num_splits_for_cuda_graph`` (``config/attention.py``, 32 in vLLM 0.16.0–0.34.0)"""
FA3_MAX_SPLIT_BATCH = 992
"""``PREPARE_VARLEN_MAX_BATCHES_1CTA`` (FA3 ``hopper/flash_api.cpp``): no split above this many sequences"""


def runs_fa3(attention_backend: str, compute_capability: tuple[int, int] | None, rocm: bool = False) -> bool:
    """vLLM's FLASH_ATTN backend runs FlashAttention 3 (``fa_utils.get_flash_attn_version``: SM 9.x)."""
    return attention_backend == "FLASH_ATTN" and not rocm and (compute_capability or (0, 0))[0] == 9


def fa3_split_accumulators(*, heads: int, head_dim_v: int, tokens: int, sequences: int) -> Bytes:
    """``out_accum`` + ``softmax_lse_accum`` of one FA3 call at ``tokens`` query tokens in ``sequences`` sequences
    with ``heads`` query heads (per rank) of V size ``head_dim_v``: zero above ``FA3_MAX_SPLIT_BATCH`` sequences."""
    if tokens <= 0 or heads <= 0 or sequences > FA3_MAX_SPLIT_BATCH:
        return Bytes(0)
    return Bytes(FA3_GRAPH_SPLITS * heads * tokens * (head_dim_v + 1) * 4)


def first_full_buffers(sizes: tuple[int, ...], full: tuple[int, ...], *, mode: str, max_num_seqs: int, heads: int,
                       head_dim_v: int, decode_query_len: int = 1, rocm: bool = False,
                       compute_capability: tuple[int, int] | None = (9, 0)) -> Bytes:
    """The accumulators of the first FULL capture (``engines.vllm.graphs.estimate_cudagraph_memory``): the largest
    FULL graph, the decode sizes ``full`` (one query token a sequence, ``decode_query_len`` with speculative tokens)
    or, under ``FULL`` (mixed batches), the largest of ``sizes`` spread over at most ``max_num_seqs`` sequences;
    zero where FlashAttention 3 does not run (``runs_fa3``) or no FULL graph is captured."""
    if not runs_fa3("FLASH_ATTN", compute_capability, rocm) or not (full if mode != "FULL" else sizes):
        return Bytes(0)
    top = max(sizes) if mode == "FULL" else max(full)
    seqs = min(top, max_num_seqs) if mode == "FULL" else top // decode_query_len
    return fa3_split_accumulators(heads=heads, head_dim_v=head_dim_v, tokens=top, sequences=seqs)
