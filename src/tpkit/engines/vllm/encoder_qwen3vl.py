"""vLLM V1's encoder profile for the Qwen3-VL / Qwen3.5 tower: the dummy item and the tower's live set.

Max tokens per item (the processor's limits are not in config.json, so they are sourced constants):

Max tokens per item, per family (the processor's limits are not in config.json, so they are sourced constants):

* Qwen3-VL / Qwen3.5 tower (``qwen3_vl``, ``qwen3_vl_moe``, ``qwen3_5``, ``qwen3_5_moe``), vLLM ≥ 0.15.0:
  ``Qwen2VLProcessingInfo.get_image_size_with_most_features`` factorises max_pixels // (patch × merge)² merged
  tokens into an image of aspect ratio ≤ 200.  max_pixels is the image processor's ``size["longest_edge"]``,
  16,777,216 (4096²) in the released preprocessor_config.json of Qwen3-VL and Qwen3.5.  Public copies of that file
  were read: a Qwen3.5-2B-Base dump and Qwen3VLProcessor test fixtures.  That gives 16,384 tokens, 65,536 patches
  of 16 × 16.  ``Qwen3VLProcessingInfo.get_max_video_tokens`` (0.15.0–0.29.0) is two frames at the video
  processor's longest_edge / temporal_patch_size: 25,165,824 / 2 gives 12,288 tokens.  So the image is the dummy
  modality.
* Qwen3-VL (``qwen3_vl``, ``qwen3_vl_moe``), vLLM 0.11.0–0.14.1 (the 0.11.0, 0.11.2, 0.12.0, 0.13.0 and
  0.14.1 wheels' ``qwen3_vl.py`` ``Qwen3VLProcessingInfo`` / ``Qwen3VLDummyInputsBuilder``, ``qwen2_vl.py``
  ``_get_max_video_frames`` / ``get_num_frames_with_most_features``; transformers' ``qwen3_vl``
  ``video_processing_qwen3_vl.smart_resize``): the dummy video has as many frames as ``max_model_len`` allows
  (the search starts at 2 and adds frames while the video's tokens stay ≤ max_model_len; at most
  ``_MAX_FRAMES_PER_VIDEO`` = 24,576), each of the most-features image size, and the video processor's
  ``smart_resize`` shrinks the frames so that all of them together stay under its ``longest_edge`` pixels
  (25,165,824): 24,576 frames of 32 × 32 px, 49,152 patches, 12,288 merged tokens once max_model_len ≥ 12,288.
  The image is 16,384 tokens: up to 0.12.0 transformers' ``smart_resize`` of a 9,999,999² image, from 0.13.0 the
  factorisation above (both 128 × 128 for the released processor).
  - 0.11.0–0.12.x: ``get_max_video_tokens`` counts each video token as 12.5 (the "<t seconds>" timestamp text
    and the vision start/end tokens), so the budget's t is int(12,288 × 12.5) = 153,600 and the video is the dummy
    modality (vp_124's log prints "a budget of 153600 tokens, and profiled with 1 video items").  ``profile_run``
    (0.12.0 ``v1/worker/gpu_model_runner.py``) then widens each output with fewer rows than t into a new
    (t, o·(1 + D)) zero tensor, kept through the text dummy run; the loop variable keeps the original outputs'
    storage too.  0.11.x (the 0.11.0 and 0.11.2 wheels, the first releases with Qwen3-VL) widen to the encoder
    budget, max(max_num_batched_tokens, t), instead (``profile_run``), and their tower differs from 0.12.0's in two
    places: ``rot_pos_emb`` indexes the fp32 angle table of ``Qwen2_5_VisionRotaryEmbedding`` (N·(hd/2)·4 held,
    not cos and sin in the model dtype), and ``Qwen2_5_VisionAttention`` is the 0.11 one (the Qwen2.5-VL 0.11.0 /
    0.11.1 forms of ``encoder_qwen2vl_tower``: q‖k rotated in fp32, and 0.11.0's all-gathered qkv at tp > 1).
  - 0.13.0–0.14.1: no 12.5 factor (``get_max_video_tokens`` returns the soft tokens), so the image (16,384) beats
    the video (≤ 12,288) and the profile is the one of 0.15.0; ``profile_run`` widens nothing.
  The tower (``Qwen3_VisionTransformer.forward``, ``Qwen3_VisionBlock``, ``Qwen3_VisionMLP``,
  ``Qwen3_VisionPatchMerger``) differs from 0.15.0's only in how the multimodal config is passed, so the live set
  below holds from 0.12.0 (0.11.x as above); a video's frames are separate attention sequences (``cu_seqlens``
  per frame group), which changes only the varlen lengths.

The Qwen3-VL tower's live set on one rank is read from ``qwen3_vl.py`` ``Qwen3_VisionTransformer.forward`` /
``Qwen3_VisionBlock`` and ``qwen2_5_vl.py`` ``Qwen2_5_VisionAttention`` (0.15.0–0.29.0; N patches, d width,
i MLP width, a activation bytes, tp ranks with ``mm_encoder_tp_mode="weights"``, the default):

    attention  N·(3d + 8d/tp)·a    the block input and its norm; qkv (3d), the contiguous q/k copy (2d), the
                                   rotated q/k (2d) and the attention output (d), all sharded; the all-reduced
                                   projection (d)
                                   (+ N·d·a at tp > 1: the all-reduce's new output next to the partial sum,
                                   ``encoder_qwen2vl_tower.reduced_copy_bytes``, helper pcie15)
    MLP        N·(3d + 2i/tp)·a    the block input, held by the caller, the post-attention residual, the norm,
                                   fc1 and its activation (sharded); or fc2's moment N·(4d + i/tp)·a (+ N·d·a
                                   at tp > 1), whichever is larger (``encoder_qwen2vl_tower.qwen3_vl_mlp_bytes``)
    held       N·C·a + N·d·a + N·hd·a + D·(N/m²)·o·a
                                   the dummy pixel values (C = 3·t·p²), the interpolated position embeddings and
                                   the rotary cos/sin (hd = head dim) of the encoder metadata, and the D deepstack
                                   features (o = out_hidden_size)
    output     (N/m²)·o·(1 + D)·a  the embeddings kept in the encoder cache

    encoder peak = held + max(attention, MLP)

The vision attention itself (FlashAttention varlen, or SDPA per image) is linear in N and is not modelled past
its output.  The whole term is an estimate: it sits inside the activation line's ± band (``memory.band``).

Check of the Qwen3-VL term (MEASURED, helper mmp, 2026-12-04): a plain-torch replay of that op order and those
lifetimes, with random
bf16 weights and FlashAttention varlen, was run on one H200 (torch 2.11): ``tests/engines/test_vllm_encoder_gpu.py``.
For the 65,536-patch Qwen3-VL-30B-A3B dummy image it peaks at 2,224,030,208 B.  This estimate gives
2,224,029,696 B.  The replay checks the accounting of the live set as read, not vLLM itself.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

from tpkit.engines.vllm.encoder_budget import EncoderProfile, items_per_batch, most_features, smart_resize_side
from tpkit.engines.vllm.encoder_qwen2vl_tower import (QWEN2_VL_0_11_1, QWEN2_VL_0_12, attention_0_11,
                                                      qwen3_vl_mlp_bytes, reduced_copy_bytes)
from tpkit.engines.vllm.mmlimits import mm_limit
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

__all__ = ["QWEN3_VL_PROCESSOR", "QWEN3_VL_WRAPPERS", "QWEN3_VL_FROM", "qwen3_vl_profile"]

QWEN3_VL_PROCESSOR = {"image_longest_edge": 16_777_216, "video_longest_edge": 25_165_824}
"""the released Qwen3-VL / Qwen3.5 ``preprocessor_config.json`` (``size.longest_edge``, 4096²) and
``video_preprocessor_config.json`` (``size.longest_edge``), as public copies of those files give them"""

QWEN3_VL_WRAPPERS = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
QWEN3_VL_FROM = (0, 11, 0)
"""vLLM's first release with Qwen3-VL; its dummy batch and tower were read from there (module docstring)"""
_QWEN3_VL_TWO_FRAMES = (0, 15, 0)  # the dummy video is two frames from here
_QWEN3_VL_FACTORISED = (0, 13, 0)  # the image factorised (not smart_resize'd) and no 12.5 video factor from here
_QWEN3_VL_MAX_FRAMES = 24_576
"""``_MAX_FRAMES_PER_VIDEO`` of ``qwen3_vl.py`` (0.11.0–0.14.1)"""
_QWEN3_VL_VIDEO_TOKEN_TEXT = 12.5
"""text tokens ``get_max_video_tokens`` counts per video token, 0.11.0–0.12.x (timestamps + vision start/end)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Qwen3VLDummy:
    """The dummy item of vLLM's Qwen3-VL encoder profile (module docstring)."""

    modality: str
    tokens: int
    """t: the item's tokens as the encoder budget counts them (a 0.12 video's soft tokens × 12.5)"""
    merged: int
    """merged tokens the tower outputs for the item (its rows in the encoder cache)"""
    patches: int
    """patches of the item"""


def _qwen3_vl_video_patches(frames: int, side_px: tuple[int, int], *, patch: int, merge: int,
                            temporal: int) -> int:
    """Patches of a ``frames``-frame dummy video of ``side_px`` frames after transformers' Qwen3-VL video
    ``smart_resize`` under the video processor's ``longest_edge`` (module docstring; Python's ``round``)."""
    unit, cap = patch * merge, QWEN3_VL_PROCESSOR["video_longest_edge"]
    height, width = side_px
    h_bar, w_bar = round(height / unit) * unit, round(width / unit) * unit
    if round(frames / temporal) * temporal * h_bar * w_bar > cap:
        beta = math.sqrt(frames * height * width / cap)
        h_bar = max(unit, math.floor(height / beta / unit) * unit)
        w_bar = max(unit, math.floor(width / beta / unit) * unit)
    return max((frames + frames % temporal) // temporal, 1) * (h_bar // patch) * (w_bar // patch)


@functools.lru_cache(maxsize=64)
def _qwen3_vl_longest_video(max_model_len: int, side_px: tuple[int, int], *, patch: int, merge: int,
                            temporal: int) -> int:
    """Patches of the dummy video before 0.15.0: frames from 2 up while the next count's merged tokens stay
    ≤ ``max_model_len``, at most ``_MAX_FRAMES_PER_VIDEO`` (``_get_max_video_frames``,
    ``get_num_frames_with_most_features``; up to 24,576 steps, so the result is cached)."""
    frames = 2
    while (frames < _QWEN3_VL_MAX_FRAMES and _qwen3_vl_video_patches(
            frames + 1, side_px, patch=patch, merge=merge, temporal=temporal) // (merge * merge) <= max_model_len):
        frames += 1
    return _qwen3_vl_video_patches(frames, side_px, patch=patch, merge=merge, temporal=temporal)


def _qwen3_vl_dummy(vc: dict, *, release: tuple[int, int, int], max_model_len: int,
                    limits: Mapping[str, int] | None = None) -> Qwen3VLDummy:
    """The Qwen3-VL dummy item: the modality with the most tokens as the budget counts them (module docstring),
    among those whose ``--limit-mm-per-prompt`` is > 0 (``engines/vllm/mmlimits.py``; the caller has dropped the
    case where both are 0)."""
    p, m, t = vc.get("patch_size", 16), vc.get("spatial_merge_size", 2), vc.get("temporal_patch_size", 2)
    unit = p * m
    if release >= _QWEN3_VL_FACTORISED:
        h, w = most_features(QWEN3_VL_PROCESSOR["image_longest_edge"], unit)
    else:
        h = w = smart_resize_side(QWEN3_VL_PROCESSOR["image_longest_edge"], unit)
    image = Qwen3VLDummy(modality="image", tokens=h * w, merged=h * w, patches=h * w * m * m)
    if release >= _QWEN3_VL_TWO_FRAMES:
        vh, vw = most_features(QWEN3_VL_PROCESSOR["video_longest_edge"] // t, unit)
        video = Qwen3VLDummy(modality="video", tokens=vh * vw, merged=vh * vw, patches=vh * vw * m * m)
    else:
        n = _qwen3_vl_longest_video(max_model_len, (h * unit, w * unit), patch=p, merge=m, temporal=t)
        merged = n // (m * m)
        counted = merged if release >= _QWEN3_VL_FACTORISED else int(merged * _QWEN3_VL_VIDEO_TOKEN_TEXT)
        video = Qwen3VLDummy(modality="video", tokens=counted, merged=merged, patches=n)
    if mm_limit(limits, "image") == 0:
        return video
    if mm_limit(limits, "video") == 0:
        return image
    return video if video.tokens > image.tokens else image

def qwen3_vl_profile(model: ModelSpec, *, release: tuple[int, int, int], tp: int, max_num_batched_tokens: int,
                     max_num_seqs: int, max_model_len: int, act_bytes: int,
                     v2_runner: bool, limits: Mapping[str, int] | None = None) -> tuple[EncoderProfile | None, str]:
    """The Qwen3-VL / Qwen3.5 encoder step, vLLM 0.11.0 and later (module docstring); ``limits``:
    ``--limit-mm-per-prompt`` (``engines/vllm/mmlimits.py``)."""
    vc = model.extra["vision_config"]
    dummy = _qwen3_vl_dummy(vc, release=release, max_model_len=max_model_len, limits=limits)
    modality, tokens, patches = dummy.modality, dummy.tokens, dummy.patches
    items = items_per_batch(release, tokens, max_num_batched_tokens=max_num_batched_tokens,
                            max_num_seqs=max_num_seqs, max_model_len=max_model_len,
                            limit=mm_limit(limits, modality))
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
    hd = d // heads
    reduced = reduced_copy_bytes(n=n, d=d, act_bytes=a, tp=tp)  # proj's out-of-place all-reduce at tp > 1
    if release >= QWEN2_VL_0_12:  # cos and sin of ``get_rope``'s cache, hd/2 wide each, in the model dtype
        attention = n * (3 * d + -(-8 * d // tp)) * a + reduced
        rot_how = "N·(3d + 8d/tp)·a" + (" + N·d·a all-reduced out of place" if reduced else "")
        rotary = n * hd * a
    else:  # 0.11.x: Qwen2_5_VisionAttention's 0.11 forms (+ 0.11.0's all-gather); the fp32 angle table
        attention, rot_how = attention_0_11(release, n=n, d=d, shard=-(-d // tp), hd=hd, a=a, reduced=reduced)
        attention += n * 3 * d * a if tp > 1 and release < QWEN2_VL_0_11_1 else 0
        rotary = n * (hd // 2) * 4
    mlp = qwen3_vl_mlp_bytes(n=n, d=d, i=i, act_bytes=a, tp=tp)
    pixels = n * channels * a
    held = pixels + n * d * a + rotary + deep * merged * out * a
    output = merged * out * (1 + deep) * a
    # each output with fewer rows than the budget (0.11.x) / than t (0.12.x) copied into a zero tensor that wide
    rows = max(max_num_batched_tokens, tokens) if release < QWEN2_VL_0_12 else tokens
    widened = items * rows * out * (1 + deep) * a if release < _QWEN3_VL_FACTORISED and dummy.merged < rows else 0
    kept = output + widened + (0 if v2_runner else pixels)
    phase = "attention" if attention >= mlp else "MLP"
    shape = (f"{dummy.merged:,} merged tokens counted as {tokens:,} (12.5 text tokens each)"
             if dummy.merged != tokens else f"{tokens:,} tokens")
    formula = (f"{items} {modality} item(s) × {shape} ({patches:,} patches of {p}×{p}; "
               f"max_pixels {QWEN3_VL_PROCESSOR[modality + '_longest_edge']:,}): held {gib_text(Bytes(held))} "
               f"(pixels, position embeddings, rotary, {deep} deepstack) + block {phase} "
               f"{gib_text(Bytes(max(attention, mlp)))} (attention {rot_how} vs MLP max(N·(3d + 2i/tp)·a, fc2's "
               f"N·(4d + i/tp)·a{' + N·d·a' if reduced else ''}), d {d}, i {i}); "
               f"kept for the text run {gib_text(Bytes(kept))} (outputs"
               f"{f' + {gib_text(Bytes(widened))} widened to {rows:,} rows' if widened else ''}"
               f"{'' if v2_runner else ' + dummy pixels'})")
    return EncoderProfile(peak=Bytes(held + max(attention, mlp)), kept=Bytes(kept), items=items, modality=modality,
                          tokens_per_item=tokens, formula=formula), ""
