"""The budget of vLLM V1's multimodal encoder profile: how many maximum-size dummy items run at once, the shared
image-size helpers of the Qwen processors, and the profile's result type (``engines/vllm/encoder.py`` dispatches).

Items per batch (``multimodal/encoder_budget.py`` ``MultiModalBudget`` ≥ 0.20, ``v1/worker/utils.py`` 0.10.1–0.19,
``profile_run`` 0.10.0; ``v1/core/encoder_cache_manager.py`` ``compute_mm_encoder_budget``):

    budget = max(max_num_batched_tokens, t)      (the scheduler's encoder compute and cache budgets are both
                                                  max_num_batched_tokens; an item larger than that raises them)
    items  = max(1, min(budget // t, max_num_seqs × per_prompt))
    per_prompt = max(1, min(limit, max_model_len // t))   ≥ 0.10.1
               = limit                                    0.10.0
    limit  = --limit-mm-per-prompt, 999 when not given (V1); t = the modality's max tokens per item

0.9.0–0.9.2 (``profile_run``; read in the three wheels, and in 0.8.5, whose count is the same) round up and take
no floor of 1 (``items_per_batch_cdiv``; used by ``encoder_qwen2vl`` only, the one family read for 0.9):

    items  = min(ceil(budget / t), max_num_seqs × limit)

Release boundaries of the flags:
V1's ``profile_run`` runs the dummy encoder pass from 0.7.0 (the 0.7.0 wheel).  ``--skip-mm-profiling`` exists
from 0.10.1 (``engine/arg_utils.py``; not in 0.10.0).  ``--mm-encoder-tp-mode`` exists from 0.10.2, and its
default ``weights`` shards the tower as before; with ``data`` one rank runs a single dummy item whole, which is not
modelled.  V1 with chunked prefill (its default) is
assumed: otherwise max_num_seqs is also capped at max_num_batched_tokens // t.
"""

from __future__ import annotations

import math

from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["EncoderProfile", "DEFAULT_MM_LIMIT", "items_per_batch", "items_per_batch_cdiv", "most_features",
           "smart_resize_side"]

DEFAULT_MM_LIMIT = 999
"""items per prompt of a modality when ``--limit-mm-per-prompt`` does not name it (V1; ``config/multimodal.py``
``get_limit_per_prompt``)"""
_BUDGET_FROM = (0, 10, 0)
_PER_PROMPT_CAP_FROM = (0, 10, 1)


@dataclass(frozen=True, kw_only=True, slots=True)
class EncoderProfile:
    """The encoder step of vLLM's profile run, bytes per rank."""

    peak: Bytes
    """torch bytes alive at the encoder pass's peak (its held inputs, the worst block, the deepstack features)"""
    kept: Bytes
    """bytes still allocated during the text dummy run (encoder outputs; the V1 runner's dummy batch too)"""
    items: int
    modality: str
    tokens_per_item: int
    formula: str

def items_per_batch(release: tuple[int, int, int], tokens_per_item: int, *, max_num_batched_tokens: int,
                    max_num_seqs: int, max_model_len: int, limit: int = DEFAULT_MM_LIMIT) -> int | None:
    """How many maximum-size items vLLM's encoder profile runs at once (module docstring), None before 0.10.0."""
    if release < _BUDGET_FROM or tokens_per_item <= 0:
        return None
    budget = max(max_num_batched_tokens, tokens_per_item)
    if release >= _PER_PROMPT_CAP_FROM:
        per_prompt = max(1, min(limit, max_model_len // tokens_per_item))
    else:
        per_prompt = limit
    return max(1, min(budget // tokens_per_item, max_num_seqs * per_prompt))

def items_per_batch_cdiv(tokens_per_item: int, *, max_num_batched_tokens: int, max_num_seqs: int,
                         limit: int = DEFAULT_MM_LIMIT) -> int:
    """Items of vLLM 0.9.0–0.9.2's encoder profile: ``cdiv(encoder_budget, t)`` against max_num_seqs × limit, with
    no floor of 1 (``v1/worker/gpu_model_runner.py`` ``profile_run``; the budget from
    ``v1/core/encoder_cache_manager.py`` ``compute_encoder_budget``, the same code as 0.10.0's)."""
    budget = max(max_num_batched_tokens, tokens_per_item)
    return min(-(-budget // tokens_per_item), max_num_seqs * limit)

def most_features(max_pixels: int, unit: int) -> tuple[int, int]:
    """(height, width) in merged tokens of the image with the most features under ``max_pixels``: the largest
    token count whose most-square factor pair has an aspect ratio ≤ 200 (``get_image_size_with_most_features``)."""
    for count in range(max_pixels // (unit * unit), 0, -1):
        low = next(f for f in range(math.isqrt(count), 0, -1) if count % f == 0)
        if (count // low) / low <= 200:
            return low, count // low
    return 1, 1

def smart_resize_side(max_pixels: int, unit: int, side: int = 9_999_999) -> int:
    """Merged tokens along one edge of transformers' ``smart_resize`` of a ``side``² image under ``max_pixels``
    (``Qwen2VLProcessingInfo.get_image_size_with_most_features`` up to 0.12.0)."""
    edge = round(side / unit) * unit
    if edge * edge > max_pixels:
        beta = math.sqrt(side * side / max_pixels)
        edge = max(unit, math.floor(side / beta / unit) * unit)
    return edge // unit
