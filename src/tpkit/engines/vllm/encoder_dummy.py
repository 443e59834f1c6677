"""vLLM V1's multimodal encoder profile, its dummy batch: how many items it runs and, per family, the
maximum-size item (modality, tokens, patches).  The tower's live set on that batch: ``engines.vllm.encoder``.

Read in the vllm 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.1,
0.15.0, 0.15.1, 0.16.0, 0.17.0, 0.19.0, 0.20.0, 0.25.1 and 0.29.0
wheels.

Items per batch (``multimodal/encoder_budget.py`` ``MultiModalBudget`` ≥ 0.20, ``v1/worker/utils.py`` 0.10.1–0.19,
``profile_run`` 0.10.0; ``v1/core/encoder_cache_manager.py`` ``compute_mm_encoder_budget``):

    budget = max(max_num_batched_tokens, t)      (the scheduler's encoder compute and cache budgets are both
                                                  max_num_batched_tokens; an item larger than that raises them)
    items  = max(1, min(budget // t, max_num_seqs × per_prompt))
    per_prompt = max(1, min(limit, max_model_len // t))   ≥ 0.10.1
               = limit                                    0.10.0
    limit  = --limit-mm-per-prompt, 999 when not given (V1); t = the modality's max tokens per item

Before 0.10.0 the count was ``cdiv`` (0.8.5, 0.9.2); not modelled here.  V1 with chunked prefill (its default) is
assumed: otherwise max_num_seqs is also capped at max_num_batched_tokens // t.

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
    0.11.1 forms below: q‖k rotated in fp32, and 0.11.0's all-gathered qkv at tp > 1).
  - 0.13.0–0.14.1: no 12.5 factor (``get_max_video_tokens`` returns the soft tokens), so the image (16,384) beats
    the video (≤ 12,288) and the profile is the one of 0.15.0; ``profile_run`` widens nothing.
  The tower (``Qwen3_VisionTransformer.forward``, ``Qwen3_VisionBlock``, ``Qwen3_VisionMLP``,
  ``Qwen3_VisionPatchMerger``) differs from 0.15.0's only in how the multimodal config is passed, so the live set
  (``engines.vllm.encoder``) holds from 0.12.0 (0.11.x as above); a video's frames are separate attention
  sequences (``cu_seqlens`` per frame group), which changes only the varlen lengths.

Qwen2-VL / Qwen2.5-VL (``qwen2_vl``, ``qwen2_5_vl``), read in the 0.10.0, 0.10.1 and 0.10.2 wheels (``qwen2_vl.py``,
``qwen2_5_vl.py``, ``multimodal/registry.py``, ``multimodal/profiling.py``, ``v1/worker/gpu_model_runner.py``) and
in the later ones named below:

* The image (``Qwen2VLProcessingInfo.get_image_size_with_most_features`` → ``_get_vision_info``, 0.10.0–0.12.0;
  0.13.0 below):
  transformers' ``smart_resize`` of a 9,999,999² image under the processor's ``max_pixels``.  The released
  preprocessor_config.json of Qwen2-VL and of Qwen2.5-VL both give max_pixels 12,845,056 (min_pixels 3,136; public
  copies found with the code-search tools: a Qwen2.5-VL-7B-Instruct processor dump and a test fixture trimmed from
  it, and the Qwen2-VL processor config copied into third-party code).  That is 3,584² px: 128 × 128 = 16,384
  merged tokens, 65,536 patches of 14 × 14 (vp_083's log prints the 16,384-token budget this gives).
* The video (``get_num_frames_with_most_features`` / ``_get_max_video_frames``): frames of that same size, as many
  as fit in ``seq_len`` tokens, then min(that // videos, _MAX_FRAMES_PER_VIDEO), at least 1.  Frames are padded to a
  multiple of temporal_patch_size, so two frames cost one image's tokens.  Per release:

  - which modality and t: ``get_max_tokens_per_item_by_modality`` with seq_len = max_model_len and one item of
    each modality.  0.10.0–0.10.1 first take the image's tokens off seq_len; 0.10.2 does not.  The cap is 16
    frames (14 from 0.11.0, which also starts the frame search at 1).  The larger wins; a tie is the image
    (``max`` keeps the first).  So the video is the dummy once max_model_len ≥ 2 × 16,384 (0.10.2) or 3 × 16,384
    (0.10.0–0.10.1).
  - the dummy video actually encoded: 0.10.0 ``profile_run`` builds it with seq_len = t; 0.10.1–0.10.2
    ``_get_mm_dummy_batch`` with seq_len = max_num_batched_tokens (the runner's ``max_num_tokens``) and only the
    video counted; 0.11–0.14 with max_model_len.  So in 0.10.1–0.10.2 the encoded video can be shorter than t.
  - 0.11.0 (``qwen2_vl.py`` ``_get_max_video_frames(start_num_frames=1)``, ``_MAX_FRAMES_PER_VIDEO = 14``;
    ``multimodal/registry.py`` ``get_max_tokens_per_item_by_modality`` → ``profiling.py``
    ``get_mm_max_contiguous_tokens``, no image taken off; ``gpu_model_runner.py`` ``_get_mm_dummy_batch`` with
    seq_len = max_model_len): at most 7 temporal patches (114,688 tokens), the video is the dummy from
    max_model_len ≥ 32,768, and the encoded video is the one counted (t tokens).

* The image from 0.13.0 (helper q3vl; the wheel's ``qwen2_vl.py``, ``multimodal/registry.py`` / ``profiling.py``):
  ``get_image_size_with_most_features`` no longer runs ``smart_resize`` on a huge image; it factorises max_pixels //
  (patch × merge)² into the most-square pair with aspect ≤ 200, lowering the count until one fits (as the Qwen3-VL rule
  above).  For the released processors (16,384 = 128²) nothing changes; other patch sizes can differ (patch 12: 22,300 =
  100 × 223 against smart_resize's 149² = 22,201).  The video frames, their cap (14) and the dummy built from
  max_model_len are unchanged; ``get_mm_max_tokens`` counts embeddings, which for these towers are the tokens.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

__all__ = ["DEFAULT_MM_LIMIT", "QWEN3_VL_PROCESSOR", "QWEN2_VL_PROCESSOR", "QWEN2_VL_0_11", "QWEN2_VL_0_13",
           "QWEN3_VL_FACTORISED", "items_per_batch", "Qwen3VLDummy", "qwen3_vl_dummy", "Qwen2VLDummy",
           "qwen2_vl_dummy"]

DEFAULT_MM_LIMIT = 999
"""items per prompt of a modality when ``--limit-mm-per-prompt`` does not name it (V1; ``config/multimodal.py``
``get_limit_per_prompt``)"""

QWEN3_VL_PROCESSOR = {"image_longest_edge": 16_777_216, "video_longest_edge": 25_165_824}
"""the released Qwen3-VL / Qwen3.5 ``preprocessor_config.json`` (``size.longest_edge``, 4096²) and
``video_preprocessor_config.json`` (``size.longest_edge``), as public copies of those files give them"""

QWEN2_VL_PROCESSOR = {"max_pixels": 12_845_056, "min_pixels": 3_136}
"""the released Qwen2-VL and Qwen2.5-VL ``preprocessor_config.json`` (``max_pixels`` / ``min_pixels``), as public
copies of those files give them"""

QWEN2_VL_0_11 = (0, 11, 0)
"""0.11.0: the frame search starts at 1 and caps at 14, the dummy video is built from max_model_len, q and k are
rotated concatenated, and the runner widens each kept output to the encoder budget (``engines.vllm.encoder``)"""
QWEN2_VL_0_13 = (0, 13, 0)
"""0.13.0: the dummy image factorises max_pixels // (patch × merge)² (aspect ≤ 200); Qwen2-VL's ``split_qkv``
all-gathers again when tp > 1; ``ApplyRotaryEmb`` / ``MMEncoderAttention`` keep 0.12.0's live set"""
_QWEN2_VL_NO_IMAGE_OFF = (0, 10, 2)  # from here the video's frames no longer leave room for one image
_QWEN2_VL_DUMMY_AT_T = (0, 10, 0)  # 0.10.0 builds the dummy with seq_len = t; 0.10.1–0.10.2 with the batch size
_QWEN3_VL_TWO_FRAMES = (0, 15, 0)  # the dummy video is two frames from here
QWEN3_VL_FACTORISED = (0, 13, 0)
"""the Qwen3-VL image factorised (not ``smart_resize``'d) and no 12.5 video factor from here"""
_QWEN3_VL_MAX_FRAMES = 24_576
"""``_MAX_FRAMES_PER_VIDEO`` of ``qwen3_vl.py`` (0.11.0–0.14.1)"""
_QWEN3_VL_VIDEO_TOKEN_TEXT = 12.5
"""text tokens ``get_max_video_tokens`` counts per video token, 0.11.0–0.12.x (timestamps + vision start/end)"""
_BUDGET_FROM = (0, 10, 0)
_PER_PROMPT_CAP_FROM = (0, 10, 1)


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


def qwen3_vl_dummy(vc: dict, *, release: tuple[int, int, int], max_model_len: int) -> Qwen3VLDummy:
    """The Qwen3-VL dummy item: the modality with the most tokens as the budget counts them (module docstring)."""
    p, m, t = vc.get("patch_size", 16), vc.get("spatial_merge_size", 2), vc.get("temporal_patch_size", 2)
    unit = p * m
    if release >= QWEN3_VL_FACTORISED:
        h, w = _most_features(QWEN3_VL_PROCESSOR["image_longest_edge"], unit)
    else:
        h = w = _smart_resize_side(QWEN3_VL_PROCESSOR["image_longest_edge"], unit)
    image = Qwen3VLDummy(modality="image", tokens=h * w, merged=h * w, patches=h * w * m * m)
    if release >= _QWEN3_VL_TWO_FRAMES:
        vh, vw = _most_features(QWEN3_VL_PROCESSOR["video_longest_edge"] // t, unit)
        video = Qwen3VLDummy(modality="video", tokens=vh * vw, merged=vh * vw, patches=vh * vw * m * m)
    else:
        n = _qwen3_vl_longest_video(max_model_len, (h * unit, w * unit), patch=p, merge=m, temporal=t)
        merged = n // (m * m)
        counted = merged if release >= QWEN3_VL_FACTORISED else int(merged * _QWEN3_VL_VIDEO_TOKEN_TEXT)
        video = Qwen3VLDummy(modality="video", tokens=counted, merged=merged, patches=n)
    return video if video.tokens > image.tokens else image


def _smart_resize_side(max_pixels: int, unit: int, side: int = 9_999_999) -> int:
    """Merged tokens along one edge of transformers' ``smart_resize`` of a ``side``² image under ``max_pixels``
    (``Qwen2VLProcessingInfo.get_image_size_with_most_features`` up to 0.12.0)."""
    edge = round(side / unit) * unit
    if edge * edge > max_pixels:
        beta = math.sqrt(side * side / max_pixels)
        edge = max(unit, math.floor(side / beta / unit) * unit)
    return edge // unit


def _video_groups(frames: int, temporal: int) -> int:
    """Temporal patches of ``frames`` frames padded as ``_get_vision_info`` pads them (0.10.x)."""
    return max((frames + frames % temporal) // temporal, 1)


def _max_frames(seq_len: int, per_group: int, temporal: int, cap: int, start: int = 0) -> int:
    """``get_num_frames_with_most_features`` with one video: the most frames whose tokens fit in ``seq_len`` (the
    search starts at ``start``: 0 in 0.10.x, 1 from 0.11.0), capped, at least 1."""
    frames = start
    while _video_groups(frames + 1, temporal) * per_group <= seq_len:
        frames += 1
        if frames >= cap:
            break
    return max(min(frames, cap), 1)


@dataclass(frozen=True, kw_only=True, slots=True)
class Qwen2VLDummy:
    """The dummy item of vLLM 0.10.0–0.13.0's Qwen2-VL / Qwen2.5-VL encoder profile (module docstring)."""

    modality: str
    tokens: int
    """t: the item's merged tokens as the budget counts them"""
    encoded_tokens: int
    """merged tokens of the item actually encoded (a shorter video in 0.10.1–0.10.2)"""
    patches: int
    """patches of the encoded item"""


def qwen2_vl_dummy(vc: dict, *, release: tuple[int, int, int], max_model_len: int,
                   max_num_batched_tokens: int) -> Qwen2VLDummy:
    """The dummy item of the Qwen2-VL / Qwen2.5-VL encoder profile, vLLM 0.10.0–0.13.0 (module docstring)."""
    p = int(vc.get("patch_size") or vc.get("spatial_patch_size") or 14)
    m, temporal = int(vc.get("spatial_merge_size", 2)), int(vc.get("temporal_patch_size", 2))
    if release >= QWEN2_VL_0_13:  # the largest token count factorised into an aspect ratio ≤ 200
        h, w = _most_features(QWEN2_VL_PROCESSOR["max_pixels"], p * m)
        image = h * w
    else:  # smart_resize of a 9,999,999² image
        side = _smart_resize_side(QWEN2_VL_PROCESSOR["max_pixels"], p * m)
        image = side * side
    cap = 14 if release >= QWEN2_VL_0_11 else 16
    start = 1 if release >= QWEN2_VL_0_11 else 0
    room = max_model_len - (0 if release >= _QWEN2_VL_NO_IMAGE_OFF else image)
    video = _video_groups(_max_frames(room, image, temporal, cap, start), temporal) * image
    if video <= image:
        return Qwen2VLDummy(modality="image", tokens=image, encoded_tokens=image, patches=image * m * m)
    if release >= QWEN2_VL_0_11:  # built from max_model_len with one video, like t
        return Qwen2VLDummy(modality="video", tokens=video, encoded_tokens=video, patches=video * m * m)
    dummy_len = video if release <= _QWEN2_VL_DUMMY_AT_T else max_num_batched_tokens
    encoded = _video_groups(_max_frames(dummy_len, image, temporal, cap), temporal) * image
    return Qwen2VLDummy(modality="video", tokens=video, encoded_tokens=encoded, patches=encoded * m * m)
