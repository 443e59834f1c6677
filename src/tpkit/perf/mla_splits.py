"""vLLM TRITON_MLA's split-KV decode: how many KV splits a decode row gets, and the fp32 partial outputs that pass
through memory between the kernel's two stages (pure engine facts; ``perf.work`` charges the bytes).

    in:  the pass's runtime (engine, version, attention backend), the model, the batch shape, the GPU's SM count
    out: the number of KV splits of one decode row (0: not TRITON_MLA decode, nothing charged)

Read in the vLLM wheels (``v1/attention/backends/mla/triton_mla.py`` ``TritonMLAImpl.forward_mqa``):

    < 0.20   ``num_kv_splits = 4`` whatever the context (0.11.0 "TODO: heuristic"; 0.14.0, 0.17.0, 0.18.0, 0.19.0,
             0.19.1 the same, 1 under batch invariance)
    ≥ 0.20   ``next_power_of_2(max(1, max_seq_len // 512))`` capped at ``2 × SM count`` (0.20.0 ``forward_mqa``:
             ``min_work_per_split = 512``, ``occupancy_multiplier = 2``; 0.33.0 ``_compute_num_kv_splits`` with
             ``_MIN_WORK_PER_SPLIT = 512``, ``_SPLIT_OCCUPANCY_MULTIPLIER = 2``)

The kernel (``v1/attention/ops/triton_decode_attention.py``, 0.20.0): stage 1 (``_fwd_grouped_kernel_stage1``, grid
(rows, head blocks, splits)) stores for every (row, query head, split) the split's normalised output
(``kv_lora_rank`` fp32) and its log-sum-exp (one fp32) in ``attn_logits [rows, heads, splits, kv_lora_rank + 1]``;
stage 2 (``_fwd_kernel_stage2``, grid (rows, heads)) loads every split back and merges them.  A row is one query
token: plain decoding and the draft steps have one per request; from 0.31 the verify flattens its 1 + k tokens
into decode rows (``QueryLenSupport.UNIFORM``; before, it takes the prefill path and no row is charged here).  So
with the splits following the context, each row moves ~2 × heads × (kv_lora_rank + 1) × 4 B per 512 cached tokens
(up to 2× that by the power-of-two rounding) besides the request's latents, and a verify of 1 + k rows per request
moves (1 + k) times a plain step's share.  Not modelled: the batch's longest sequence (tpkit's requests share one
context), and with 4 splits before 0.20 the long per-block KV stream (its partials are charged, a few kB per row).

The verify as decode rows (helper vs13, 2026-12-05): ``verify_attention_mode`` gives ``perf.plan`` the
``perf.work`` attention mode of a verify pass; ``verify_rows_per_token`` says when it is ``decode_rows``.
vLLM TRITON_MLA from 0.31 runs the verify's 1 + k query tokens of a request as 1 + k separate decode rows
(read in the vllm 0.31.0 and 0.33.0 wheels, ``v1/attention/backends/mla/triton_mla.py``):

    ``TritonMLAMetadataBuilder``      ``query_len_support = QueryLenSupport.UNIFORM`` ("forward_mqa flattens a
                                      uniform multi-token block to one decode row per query token")
    ``TritonMLAImpl.forward_mqa``     ``block_table.repeat_interleave(query_len, dim=0)`` and, causal, per-row
                                      ``seq_lens + arange(1 - query_len, 1)``: row t of a request attends to the
                                      cached prefix plus block tokens 0..t
    ``decode_attention_fwd``          (``v1/attention/ops/triton_decode_attention.py``
                                      ``_decode_grouped_att_m_fwd``) grid ``(rows, head blocks, NUM_KV_SPLITS)``:
                                      every program streams its own row's KV extent; nothing is shared between the
                                      rows of one request

So each verify row reads the request's whole cached latent: 1 + k times the bytes of a plain step's row.  0.30 and
earlier keep causal multi-token blocks off the decode path (0.30.0 ``triton_mla.py`` flattens only the non-causal
DSpark draft block; the causal verify takes the MLA prefill path, ``perf.runtime_vllm``).  The rtx6kpro Kimi images
(models/kimi-k26-mtp-long-ctx-wip/README.md, Phase 1: "The Triton decode kernel indexes block_table with cur_batch
= 0..num_decode_tokens-1 — treats each query as a separate 'request'") run the same flattening before 0.31.

Measured check (not a fit): on 8× RTX PRO 6000 (rtx6kpro models/kimi-k26.md DCP=1 tables, Kimi-K2.6, TRITON_MLA,
EAGLE-3 k = 3) the speculative cycle grows with context 3.3× as fast as the plain step at 4 requests (0.52 vs 0.16 ms
per 1,000 tokens of context, 0 → 83k), 3.7× at 8 requests (0 → 20.8k); kimi-k26-v4.md the same (0.53 vs 0.155 ms,
0 → 65k, 4 requests); and the image's kernel microbench (patches/triton_mla_tuning.py) grows linearly in rows.
Other MLA backends keep one read per request: FlashMLA packs the query tokens with the heads (``QueryLenSupport.
UNIFORM``, no flattening), FlashInfer MLA and FlashAttention MLA take variable-length queries (``VARLEN``), the
sparse backends attend to the indexer's top-k only (``perf.work._dsa_attention``).

A lone row is latency-bound: the same microbench (16 heads, 249,036 tokens) takes 0.28 ms for 1 row, 0.31 for 2,
0.60 for 4, 0.88 for 8, 3.48 for 32 (its 92 MB block pool sits in L2, so the linear growth is the kernel's, not
DRAM's).  ``perf.work`` gives a TRITON_MLA decode row ``Kernel.row_bytes`` (its context × latent bytes) and
``perf.forward`` charges at least row_bytes / ``triton_mla_row_gbps`` (512 GB/s, that 1-row point).
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec
from tpkit.perf.fa2_verify import multi_token_attention
from tpkit.units import Bytes, format_bytes

HEURISTIC_FROM = (0, 20, 0)
"""first vLLM release whose TRITON_MLA sizes its KV splits from the sequence length (0.19.1: 4; 0.20.0: heuristic)"""
FIXED_SPLITS = 4
"""TRITON_MLA's KV splits before ``HEURISTIC_FROM``"""
MIN_WORK_PER_SPLIT = 512
"""tokens per split the heuristic aims at (``_MIN_WORK_PER_SPLIT``)"""
SPLIT_OCCUPANCY = 2
"""splits per SM the heuristic allows at most (``_SPLIT_OCCUPANCY_MULTIPLIER``)"""
PARTIAL_BYTES = 4
"""fp32 partial outputs and log-sum-exp (``attn_logits`` is allocated as torch.float32)"""


def num_kv_splits(version: tuple[int, int, int], max_seq_len: int, sm_count: int | None) -> int:
    """TRITON_MLA's KV splits of a decode row in vLLM ``version`` for a longest sequence of ``max_seq_len`` tokens
    on a GPU of ``sm_count`` SMs (None: the cap is not applied)."""
    if version < HEURISTIC_FROM:
        return FIXED_SPLITS
    ideal = 1 << (max(1, max_seq_len // MIN_WORK_PER_SPLIT) - 1).bit_length()   # triton.next_power_of_2
    return min(ideal, sm_count * SPLIT_OCCUPANCY) if sm_count else ideal


def decode_kv_splits(engine: str, backend: str, version: tuple[int, int, int], model: ModelSpec, context: int,
                     sm_count: int | None) -> int:
    """KV splits whose fp32 partials ``perf.work`` charges per decode row of ``model`` (0: none): vLLM's
    TRITON_MLA on a dense-MLA model; DeepSeek-sparse models run sparse backends and other backends are not read."""
    if engine != "vllm" or backend != "TRITON_MLA" or model.mla is None or model.dsa is not None:
        return 0
    return num_kv_splits(version, context, sm_count)


def partial_bytes(rows: int, heads: int, splits: int, kv_lora_rank: int) -> float:
    """Bytes stage 1 writes and stage 2 reads back in one layer: ``rows`` decode rows × ``heads`` query heads on the
    rank × ``splits`` × (kv_lora_rank + 1) fp32 values, twice."""
    return 2.0 * rows * heads * splits * (kv_lora_rank + 1) * PARTIAL_BYTES


def splits_note(runtime, model: ModelSpec, max_seq_len: int, sm_count: int | None, attention_tp: int) -> str | None:
    """In words, for ``tpkit perf``'s assumptions: the KV splits ``num_kv_splits`` gives a decode row of ``model`` at
    ``max_seq_len`` tokens under ``runtime`` (``perf.runtime.Runtime``: engine, attention backend, version) and the
    fp32 partial bytes per row and layer that ``perf.work`` charges; None when nothing is charged."""
    version = tuple(runtime.version)
    splits = decode_kv_splits(runtime.engine, runtime.attention_backend, version, model, max_seq_len, sm_count)
    if not splits:
        return None
    heads = max(1, model.num_attention_heads // attention_tp)
    rank = model.mla.kv_lora_rank
    per_row = partial_bytes(1, heads, splits, rank)
    if version < HEURISTIC_FROM:
        rule = f"vLLM < {'.'.join(map(str, HEURISTIC_FROM[:2]))}: always {FIXED_SPLITS}"
    else:
        rule = (f"vLLM ≥ {'.'.join(map(str, HEURISTIC_FROM[:2]))}: next_power_of_2({max_seq_len:,} // "
                f"{MIN_WORK_PER_SPLIT}), at most {SPLIT_OCCUPANCY} × {sm_count} SMs" if sm_count else
                f"vLLM ≥ {'.'.join(map(str, HEURISTIC_FROM[:2]))}: next_power_of_2({max_seq_len:,} // "
                f"{MIN_WORK_PER_SPLIT}); SM count unknown, not capped")
    return (f"TRITON_MLA decode: {splits} KV splits per decode row at {max_seq_len:,} tokens ({rule}); their fp32 "
            f"partials, {format_bytes(Bytes(int(per_row)))} per row and layer (2 × {heads} heads × {splits} splits "
            f"× (kv_lora_rank {rank} + 1) × {PARTIAL_BYTES} B: written, then read back), are charged as attention "
            "traffic (triton_mla.py forward_mqa; perf.mla_splits)")


VLLM_VERIFY_ROWS_FIRST = (0, 31, 0)
"""first vLLM release whose TRITON_MLA verify runs one decode row per query token (``QueryLenSupport.UNIFORM``)"""


def verify_rows_per_token(engine: str, backend: str, version: tuple, *, mla: bool, speculative: bool,
                          prefill: bool) -> bool:
    """vLLM TRITON_MLA on an MLA model whose verify takes the decode path (``prefill`` False: from
    ``VLLM_VERIFY_ROWS_FIRST``, or an image carrying the fix when the newest facts are used): each of the verify's
    query tokens streams the request's whole cached latent."""
    return (engine == "vllm" and backend == "TRITON_MLA" and mla and speculative and not prefill
            and tuple(version) >= VLLM_VERIFY_ROWS_FIRST)


def verify_attention_mode(runtime) -> str:
    """The ``perf.work`` attention mode of the verify pass under ``runtime`` (a ``perf.runtime.Runtime``):
    ``mla_prefill`` (MLA prefill path), ``decode_rows`` (one decode row per query token, each reading the whole
    cached latent), else ``perf.fa2_verify.multi_token_attention``'s (``decode``: split-KV decode kernel, one read
    per request; ``extend_nosplit`` / ``fa2_nosplit``: no KV split)."""
    if runtime.verify_mla_prefill:
        return "mla_prefill"
    if runtime.verify_rows_per_token:
        return "decode_rows"
    return multi_token_attention(runtime)
