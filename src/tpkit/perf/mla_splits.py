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
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec
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
