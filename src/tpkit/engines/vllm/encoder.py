"""vLLM V1's multimodal encoder profile: the vision tower's peak on the dummy batch and the outputs it keeps.

Read in the vllm 0.10.0, 0.10.1, 0.10.2, 0.14.1, 0.15.0, 0.15.1, 0.16.0, 0.17.0, 0.19.0, 0.20.0, 0.25.1 and 0.29.0
wheels.

What the profile does (``v1/worker/gpu_model_runner.py`` ``profile_run``; Model Runner V2: ``v1/worker/gpu/
model_runner.py`` ``profile_run`` → ``mm/encoder_runner.py`` ``profile_encoder_cache``): unless
``--skip-mm-profiling``, a multimodal model first runs its encoder (``embed_multimodal``) on a dummy batch of
``items`` copies of one maximum-size item of the modality with the most tokens per item, stores the outputs in the
encoder cache, and only then runs the text model's dummy forward and sampler.  vLLM's torch peak covers the whole
``profile_run`` (``determine_available_memory``), so the activation peak is

    max(encoder pass, outputs kept + text dummy run)

The outputs stay in ``encoder_cache`` until ``profile_run`` clears it after the text run.  The V1 runner also keeps
the dummy batch on the GPU: ``_get_mm_dummy_batch`` moves it there, and ``profile_run`` keeps it in a local until
it returns.  Model Runner V2 batches inside ``execute_mm_encoder``, so its GPU copy is freed with that call.

Items per batch (``multimodal/encoder_budget.py`` ``MultiModalBudget`` ≥ 0.20, ``v1/worker/utils.py`` 0.10.1–0.19,
``profile_run`` 0.10.0; ``v1/core/encoder_cache_manager.py`` ``compute_mm_encoder_budget``):

    budget = max(max_num_batched_tokens, t)      (the scheduler's encoder compute and cache budgets are both
                                                  max_num_batched_tokens; an item larger than that raises them)
    items  = max(1, min(budget // t, max_num_seqs × per_prompt))
    per_prompt = max(1, min(limit, max_model_len // t))   ≥ 0.10.1
               = limit                                    0.10.0
    limit  = --limit-mm-per-prompt, 999 when not given (V1); t = the modality's max tokens per item

Before 0.10.0 the count was ``cdiv`` (0.8.5, 0.9.2); not modelled here.  Release boundaries of the flags:
V1's ``profile_run`` runs the dummy encoder pass from 0.7.0 (the 0.7.0 wheel).  ``--skip-mm-profiling`` exists
from 0.10.1 (``engine/arg_utils.py``; not in 0.10.0).  ``--mm-encoder-tp-mode`` exists from 0.10.2, and its
default ``weights`` shards the tower as before; with ``data`` one rank runs a single dummy item whole, which is not
modelled.  V1 with chunked prefill (its default) is
assumed: otherwise max_num_seqs is also capped at max_num_batched_tokens // t.

Max tokens per item, per family (the processor's limits are not in config.json, so they are sourced constants):

* Qwen3-VL / Qwen3.5 tower (``qwen3_vl``, ``qwen3_vl_moe``, ``qwen3_5``, ``qwen3_5_moe``), vLLM ≥ 0.15.0:
  ``Qwen2VLProcessingInfo.get_image_size_with_most_features`` factorises max_pixels // (patch × merge)² merged
  tokens into an image of aspect ratio ≤ 200.  max_pixels is the image processor's ``size["longest_edge"]``,
  16,777,216 (4096²) in the released preprocessor_config.json of Qwen3-VL and Qwen3.5.  Public copies of that file
  were read: a Qwen3.5-2B-Base dump and Qwen3VLProcessor test fixtures.  That gives 16,384 tokens, 65,536 patches
  of 16 × 16.  ``Qwen3VLProcessingInfo.get_max_video_tokens`` (0.15.0–0.29.0) is two frames at the video
  processor's longest_edge / temporal_patch_size: 25,165,824 / 2 gives 12,288 tokens.  So the image is the dummy
  modality.  Up to 0.14.1 the video item had as many frames as ``max_model_len`` allows, so it could be larger than
  the image; that is not modelled.  Only the warning remains below 0.15.0.
* Other families are not modelled, and the plan keeps the warning:
  - Gemma 4 (0.25.1 ``gemma4_mm.py``): the dummy is a 32-frame video of 2,496 tokens.  It runs through
    transformers' tower in chunks sized from the GPU's free memory at that moment (``_encoder_chunk``), and its
    patch embedder's ``F.one_hot`` position tables dominate.  Both depend on the installed transformers and on
    the free memory, not on the config.
  - Qwen2-VL and Qwen2.5-VL: the dummy video's frames follow ``max_model_len``.
  - LLaVA, Mllama, Llama 4, Kimi: not read.

The Qwen3-VL tower's live set on one rank is read from ``qwen3_vl.py`` ``Qwen3_VisionTransformer.forward`` /
``Qwen3_VisionBlock`` and ``qwen2_5_vl.py`` ``Qwen2_5_VisionAttention`` (0.15.0–0.29.0; N patches, d width,
i MLP width, a activation bytes, tp ranks with ``mm_encoder_tp_mode="weights"``, the default):

    attention  N·(3d + 8d/tp)·a    the block input and its norm; qkv (3d), the contiguous q/k copy (2d), the
                                   rotated q/k (2d) and the attention output (d), all sharded; the all-reduced
                                   projection (d)
    MLP        N·(3d + 2i/tp)·a    the block input, held by the caller, the post-attention residual, the norm,
                                   fc1 and its activation (sharded)
    held       N·C·a + N·d·a + N·hd·a + D·(N/m²)·o·a
                                   the dummy pixel values (C = 3·t·p²), the interpolated position embeddings and
                                   the rotary cos/sin (hd = head dim) of the encoder metadata, and the D deepstack
                                   features (o = out_hidden_size)
    output     (N/m²)·o·(1 + D)·a  the embeddings kept in the encoder cache

    encoder peak = held + max(attention, MLP)

The vision attention itself (FlashAttention varlen, or SDPA per image) is linear in N and is not modelled past
its output.  The whole term is an estimate: it sits inside the activation line's ± band (``memory.band``).

Check (MEASURED, helper mmp, 2026-12-04): a plain-torch replay of that op order and those lifetimes, with random
bf16 weights and FlashAttention varlen, was run on one H200 (torch 2.11): ``tests/engines/test_vllm_encoder_gpu.py``.
For the 65,536-patch Qwen3-VL-30B-A3B dummy image it peaks at 2,224,030,208 B.  This estimate gives
2,224,029,696 B.  The replay checks the accounting of the live set as read, not vLLM itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

__all__ = ["EncoderProfile", "encoder_profile", "not_modelled", "items_per_batch", "QWEN3_VL_PROCESSOR",
           "DEFAULT_MM_LIMIT"]

DEFAULT_MM_LIMIT = 999
"""items per prompt of a modality when ``--limit-mm-per-prompt`` does not name it (V1; ``config/multimodal.py``
``get_limit_per_prompt``)"""

QWEN3_VL_PROCESSOR = {"image_longest_edge": 16_777_216, "video_longest_edge": 25_165_824}
"""the released Qwen3-VL / Qwen3.5 ``preprocessor_config.json`` (``size.longest_edge``, 4096²) and
``video_preprocessor_config.json`` (``size.longest_edge``), as public copies of those files give them"""

_QWEN3_VL_WRAPPERS = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
_QWEN3_VL_FROM = (0, 15, 0)
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


def _most_features(max_pixels: int, unit: int) -> tuple[int, int]:
    """(height, width) in merged tokens of the image with the most features under ``max_pixels``: the largest
    token count whose most-square factor pair has an aspect ratio ≤ 200 (``get_image_size_with_most_features``)."""
    for count in range(max_pixels // (unit * unit), 0, -1):
        low = next(f for f in range(math.isqrt(count), 0, -1) if count % f == 0)
        if (count // low) / low <= 200:
            return low, count // low
    return 1, 1


def _qwen3_vl_tokens(vc: dict) -> tuple[str, int, int]:
    """(modality, merged tokens per item, patches per item) of the Qwen3-VL dummy item (module docstring)."""
    p, m, t = vc.get("patch_size", 16), vc.get("spatial_merge_size", 2), vc.get("temporal_patch_size", 2)
    h, w = _most_features(QWEN3_VL_PROCESSOR["image_longest_edge"], p * m)
    image = h * w
    vh, vw = _most_features(QWEN3_VL_PROCESSOR["video_longest_edge"] // t, p * m)
    video = vh * vw  # two frames, one temporal patch
    if video > image:
        return "video", video, video * m * m
    return "image", image, image * m * m


def not_modelled(model: ModelSpec, *, release: tuple[int, int, int], engine: str) -> str:
    """Why the encoder step of ``model``'s profile run is not modelled for this release ("" when it is)."""
    wrapper = model.extra.get("wrapper_model_type")
    if engine != "V1":
        return "the V0 engine's encoder profile is not modelled"
    if wrapper not in _QWEN3_VL_WRAPPERS or not isinstance(model.extra.get("vision_config"), dict):
        return f"the {wrapper or model.model_type} encoder's dummy batch is not modelled"
    if release < _QWEN3_VL_FROM:
        return "before vLLM 0.15.0 the Qwen3-VL dummy video's frames follow max_model_len, which is not modelled"
    return ""


def encoder_profile(model: ModelSpec, *, release: tuple[int, int, int], engine: str, tp: int,
                    max_num_batched_tokens: int, max_num_seqs: int, max_model_len: int, act_bytes: int,
                    v2_runner: bool) -> tuple[EncoderProfile | None, str]:
    """The encoder step of the profile run, or (None, why it is not modelled)."""
    why = not_modelled(model, release=release, engine=engine)
    if why:
        return None, why
    vc = model.extra["vision_config"]
    modality, tokens, patches = _qwen3_vl_tokens(vc)
    items = items_per_batch(release, tokens, max_num_batched_tokens=max_num_batched_tokens,
                            max_num_seqs=max_num_seqs, max_model_len=max_model_len)
    if items is None:
        return None, "the encoder budget is read only from vLLM 0.10.0"
    d, i = int(vc["hidden_size"]), int(vc["intermediate_size"])
    heads = int(vc.get("num_heads") or vc.get("num_attention_heads") or 16)
    out = int(vc.get("out_hidden_size") or model.hidden_size)
    p, m, t = vc.get("patch_size", 16), vc.get("spatial_merge_size", 2), vc.get("temporal_patch_size", 2)
    channels = int(vc.get("in_channels") or vc.get("in_chans") or 3) * t * p * p
    deep = len(vc.get("deepstack_visual_indexes") or [])
    n, a = items * patches, act_bytes
    merged = n // (m * m)
    attention = n * (3 * d + -(-8 * d // tp)) * a
    mlp = n * (3 * d + -(-2 * i // tp)) * a
    pixels = n * channels * a
    held = pixels + n * d * a + n * (d // heads) * a + deep * merged * out * a
    output = merged * out * (1 + deep) * a
    kept = output + (0 if v2_runner else pixels)
    phase = "attention" if attention >= mlp else "MLP"
    formula = (f"{items} {modality} item(s) × {tokens:,} tokens ({patches:,} patches of {p}×{p}; "
               f"max_pixels {QWEN3_VL_PROCESSOR['image_longest_edge']:,}): held {held / 2**30:.2f} GiB (pixels, "
               f"position embeddings, rotary, {deep} deepstack) + block {phase} "
               f"{max(attention, mlp) / 2**30:.2f} GiB (N·(3d + 8d/tp)·a vs N·(3d + 2i/tp)·a, d {d}, i {i}); kept "
               f"for the text run {kept / 2**30:.2f} GiB (outputs{'' if v2_runner else ' + dummy pixels'})")
    return EncoderProfile(peak=Bytes(held + max(attention, mlp)), kept=Bytes(kept), items=items, modality=modality,
                          tokens_per_item=tokens, formula=formula), ""
