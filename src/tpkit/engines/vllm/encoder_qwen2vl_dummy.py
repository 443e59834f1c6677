"""vLLM V1's encoder profile for Qwen2-VL / Qwen2.5-VL: the dummy item (its modality, tokens and patches).

The profile itself (items per batch, the towers' live set, what the runner keeps) is ``encoder_qwen2vl``; the
towers' live set per release is ``encoder_qwen2vl_tower``.  Read in the 0.10.0, 0.10.1 and 0.10.2 wheels
(``qwen2_vl.py``, ``qwen2_5_vl.py``, ``multimodal/registry.py``, ``multimodal/profiling.py``,
``v1/worker/gpu_model_runner.py``), and in each later release listed in ``encoder_qwen2vl_tower`` (the helpers and
files named there):

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

0.9.0–0.9.2 (helper q29; the three wheels' ``qwen2_vl.py``, ``multimodal/profiling.py``, ``multimodal/registry.py``,
``v1/worker/gpu_model_runner.py``): the image, the frame search (cap 16, from 0) and t are 0.10.0's (t with one image
taken off seq_len; 0.9.0–0.9.1 count t from the dummy built with seq_len = max_model_len, ``_get_mm_num_tokens``,
which the same ``get_num_frames_with_most_features`` sizes; 0.9.2 adds ``get_max_tokens_per_item``, renamed
``get_mm_max_tokens_per_item`` in 0.10.0).  ``profile_run`` builds the encoded dummy with seq_len =
``max_num_tokens`` (max_num_batched_tokens) and only that modality counted, as 0.10.1–0.10.2 do.

Later releases (the rest of each release's reading is in ``encoder_qwen2vl_tower``):

  - 0.11.1–0.11.2: the dummy builders' ``mm_options`` overrides can only shrink the dummy; none is assumed.
  - 0.12.0: the dummy builders and ``multimodal/profiling.py`` are unchanged from 0.11.2.
  - 0.13.0, the image: ``get_image_size_with_most_features`` no longer runs ``smart_resize`` on a huge image;
    it factorises max_pixels // (patch × merge)² into the most-square pair with aspect ≤ 200, lowering the count
    until one fits (as ``encoder_qwen3vl``'s rule, ``encoder_budget.most_features``).  For the released
    processors (16,384 = 128²) nothing changes; other patch sizes can differ (patch 12: 22,300 = 100 × 223
    against smart_resize's 149² = 22,201).  The video frames, their cap (14) and the dummy built from
    max_model_len are unchanged; ``get_mm_max_tokens`` counts embeddings, which for these towers are the tokens.
  - 0.14.0–0.14.1: the budget is unchanged.
  - 0.15.0–0.15.1: ``get_image_size_with_most_features`` takes an optional max_pixels (the dummy passes none, so the
    processor's, as 0.13.0); frames, cap 14 and the budget's one item per modality at max_model_len unchanged.
  - 0.16.0–0.20.2: ``get_image_size_with_most_features`` reads max_pixels from the image processor's
    ``size["longest_edge"]`` (0.16.0; 12,845,056 for the released processors, whose min/max_pixels fill
    ``size``), and from 0.17.0 ``--mm-processor-kwargs`` may override it (not read by the plan: the released
    value is assumed).  Frames, the cap of 14 and the budget (one item of each modality at max_model_len) are
    unchanged.  A tie between the image and a one-group video (max_model_len < 2 × 16,384): 0.16.0 builds the
    budget's dict from a set of modality names (string-hash order), 0.17.0 on take the larger name, "video".
    The two dummies have the same patches and channels (a 2-frame video is one temporal group, an image is
    padded to one), so only the modality named changes; the plan names the image up to 0.16.0.
  - 0.27.0: ``_get_vision_info`` pads frames to the next multiple of temporal_patch_size (``_QWEN2_VL_CEIL_PAD``;
    the same for the released 2).
  - 0.28.0–0.29.0: the dummy is unchanged (its pixels stay uint8: ``encoder_qwen2vl_tower``).
  - 0.30.0: a renderer-only ``seq_len`` cap of the dummy (the profile's ``_get_mm_dummy_batch`` and the budget pass
    no scheduler config) and the dummy video's (height, width) order (square here); nothing changes for the plan.
  - 0.31.0: the budget moves into ``MultiModalBudget.get_dummy_encoder_profile_inputs`` (the same dummy at
    max_model_len, the same counts); Qwen2.5-VL's dummy video gains metadata (2 fps, no frame sampling), which
    keeps its frames.
  - From 0.32 not read for this tower (0.32.0 resolves the processor's size and pixel limits anew in
    ``qwen2_vl.py``): the plan warns (``encoder``).
"""

from __future__ import annotations

from collections.abc import Mapping

from tpkit.engines.vllm.encoder_budget import most_features, smart_resize_side
from tpkit.engines.vllm.mmlimits import mm_limit
from tpkit.records import dataclass

__all__ = ["QWEN2_VL_PROCESSOR", "Qwen2VLDummy", "qwen2_vl_dummy"]

QWEN2_VL_PROCESSOR = {"max_pixels": 12_845_056, "min_pixels": 3_136}
"""the released Qwen2-VL and Qwen2.5-VL ``preprocessor_config.json`` (``max_pixels`` / ``min_pixels``), as public
copies of those files give them"""
_QWEN2_VL_0_11 = (0, 11, 0)
"""0.11.0: the frame search starts at 1 and caps at 14, and the dummy video is built from max_model_len (module
docstring)"""
_QWEN2_VL_0_13 = (0, 13, 0)
"""0.13.0: the dummy image factorises max_pixels // (patch × merge)² (aspect ≤ 200)"""
_QWEN2_VL_CEIL_PAD = (0, 27, 0)
"""0.27.0: ``_get_vision_info`` pads the frames to the next multiple of temporal_patch_size (the same as before
for the released temporal_patch_size 2)"""
_QWEN2_VL_TIE_VIDEO = (0, 17, 0)
"""0.17.0: ``MultiModalBudget.get_modality_with_max_tokens`` breaks a tie by the modality's name, so a video of as
many tokens as the image is the dummy (``max`` with key (tokens, name))"""
_QWEN2_VL_NO_IMAGE_OFF = (0, 10, 2)  # from here the video's frames no longer leave room for one image
_QWEN2_VL_DUMMY_AT_T = (0, 10, 0)  # 0.10.0 alone builds the dummy with seq_len = t; 0.9.x and 0.10.1–0.10.2 with
# the batch size (``max_num_tokens``)


def _video_groups(frames: int, temporal: int, ceil_pad: bool = False) -> int:
    """Temporal patches of ``frames`` frames padded as ``_get_vision_info`` pads them: ``frames + frames %
    temporal`` up to 0.26.0, to the next multiple of temporal from 0.27.0 (``ceil_pad``; the same for 2)."""
    padded = frames + (-frames % temporal if ceil_pad else frames % temporal)
    return max(padded // temporal, 1)


def _max_frames(seq_len: int, per_group: int, temporal: int, cap: int, start: int = 0, ceil_pad: bool = False) -> int:
    """``get_num_frames_with_most_features`` with one video: the most frames whose tokens fit in ``seq_len`` (the
    search starts at ``start``: 0 in 0.10.x, 1 from 0.11.0), capped, at least 1."""
    frames = start
    while _video_groups(frames + 1, temporal, ceil_pad) * per_group <= seq_len:
        frames += 1
        if frames >= cap:
            break
    return max(min(frames, cap), 1)


@dataclass(frozen=True, kw_only=True, slots=True)
class Qwen2VLDummy:
    """The dummy item of vLLM 0.9.0–0.31.0's Qwen2-VL / Qwen2.5-VL encoder profile (module docstring)."""

    modality: str
    tokens: int
    """t: the item's merged tokens as the budget counts them"""
    encoded_tokens: int
    """merged tokens of the item actually encoded (a shorter video in 0.10.1–0.10.2)"""
    patches: int
    """patches of the encoded item"""


def qwen2_vl_dummy(vc: dict, *, release: tuple[int, int, int], max_model_len: int,
                   max_num_batched_tokens: int, limits: Mapping[str, int] | None = None) -> Qwen2VLDummy:
    """The dummy item of the Qwen2-VL / Qwen2.5-VL encoder profile, vLLM 0.9.0–0.31.0 (module docstring).
    ``limits`` (``--limit-mm-per-prompt``, ``engines/vllm/mmlimits.py``): a modality at 0 is not a candidate, and
    in 0.9.0–0.10.1 an image limit of 0 leaves the video's frames all of max_model_len (``mm_counts`` has no
    image: ``get_num_frames_with_most_features``); the caller has dropped the case where both are 0."""
    p = int(vc.get("patch_size") or vc.get("spatial_patch_size") or 14)
    m, temporal = int(vc.get("spatial_merge_size", 2)), int(vc.get("temporal_patch_size", 2))
    if release >= _QWEN2_VL_0_13:  # the largest token count factorised into an aspect ratio ≤ 200
        h, w = most_features(QWEN2_VL_PROCESSOR["max_pixels"], p * m)
        image = h * w
    else:  # smart_resize of a 9,999,999² image
        side = smart_resize_side(QWEN2_VL_PROCESSOR["max_pixels"], p * m)
        image = side * side
    cap = 14 if release >= _QWEN2_VL_0_11 else 16
    start = 1 if release >= _QWEN2_VL_0_11 else 0
    image_on, video_on = mm_limit(limits, "image") > 0, mm_limit(limits, "video") > 0
    room = max_model_len - (0 if release >= _QWEN2_VL_NO_IMAGE_OFF or not image_on else image)
    pad = release >= _QWEN2_VL_CEIL_PAD
    video = _video_groups(_max_frames(room, image, temporal, cap, start, pad), temporal, pad) * image
    if image_on and (not video_on or video < image or (video == image and release < _QWEN2_VL_TIE_VIDEO)):
        return Qwen2VLDummy(modality="image", tokens=image, encoded_tokens=image, patches=image * m * m)
    if release >= _QWEN2_VL_0_11:  # built from max_model_len with one video, like t
        return Qwen2VLDummy(modality="video", tokens=video, encoded_tokens=video, patches=video * m * m)
    dummy_len = video if release == _QWEN2_VL_DUMMY_AT_T else max_num_batched_tokens
    encoded = _video_groups(_max_frames(dummy_len, image, temporal, cap), temporal) * image
    return Qwen2VLDummy(modality="video", tokens=video, encoded_tokens=encoded, patches=encoded * m * m)
