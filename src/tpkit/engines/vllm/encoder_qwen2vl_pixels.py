"""vLLM 0.9.0–0.10.2: the Qwen2-VL / Qwen2.5-VL towers take a copy of the dummy pixels (helper vl14, 2026-12-05).

Read in the 0.9.0, 0.9.1, 0.9.2, 0.10.0, 0.10.1, 0.10.2, 0.11.0 and 0.13.0 wheels:

* the V1 runner batches the dummy items with ``MultiModalKwargs.batch`` (0.9.0–0.10.0: ``profile_run``;
  0.10.1–0.10.2: ``_get_mm_dummy_batch`` → ``multimodal/utils.py`` ``group_mm_kwargs_by_modality``, which still
  calls ``MultiModalKwargs.batch`` on one-item groups).  ``_try_stack`` gives every field an item dimension
  (one item: ``unsqueeze(0).contiguous()``; several of one shape: ``torch.stack``), so the flat
  ``pixel_values`` (or ``pixel_values_videos``) reach the model as a 3-D tensor, moved to the GPU by
  ``as_kwargs``.  The runner's dict keeps that tensor through the encoder call (``encoder_qwen2vl``'s "kept
  dummy pixels").
* ``qwen2_vl.py`` / ``qwen2_5_vl.py`` ``_validate_and_reshape_mm_tensor`` turns a 3-D tensor into
  ``torch.concat(list(mm_input))``: a new N·C·a tensor, held by the image-input dict and the tower's argument
  through every block.  So the towers' held set has the pixels twice.
* 0.11.0 reshapes instead (``mm_input.reshape(-1, mm_input.shape[-1])``, a view) and its
  ``group_mm_kwargs_by_modality`` can merge by field (``merge_by_field_config``); 0.11.1 on drops the helper
  from both models.  From 0.11.0 the pixels are held once.

Cases: vp_083 (Qwen2-VL-2B, 0.10.2) prints a 2.65 GiB peak activation where the plan had 2.50 before this rule;
the copy is 0.14 GiB for its 65,536 dummy patches (1,176 values each, bf16).
"""

from __future__ import annotations

__all__ = ["PIXELS_COPIED_TO", "copied_pixels"]

PIXELS_COPIED_TO = (0, 11, 0)
"""the first release whose towers no longer copy the batched pixels (``_validate_and_reshape_mm_tensor`` reshapes)"""


def copied_pixels(*, release: tuple[int, int, int], n: int, channels: int, act_bytes: int) -> int:
    """Bytes of the model's ``torch.concat`` copy of the batched dummy pixels (``n`` patches of ``channels``
    values in the activation dtype) held through the tower, 0 from 0.11.0 (module docstring)."""
    return n * channels * act_bytes if release < PIXELS_COPIED_TO else 0
