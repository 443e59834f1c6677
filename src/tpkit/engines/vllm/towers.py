"""Whether vLLM builds a multimodal model's vision tower (and projector) at all: ``--language-model-only`` and an
all-zero ``--limit-mm-per-prompt``.

Read in the vllm 0.9.2, 0.10.0, 0.10.1, 0.10.1.1, 0.11.0, 0.14.1, 0.15.0, 0.16.0, 0.17.0, 0.18.0, 0.19.0, 0.20.0,
0.21.0, 0.22.0, 0.23.0, 0.25.1, 0.27.0, 0.27.1 and 0.29.0 wheels.

* ``--language-model-only`` (``config/multimodal.py`` ``MultiModalConfig.language_model_only``, ``engine/
  arg_utils.py``) exists from 0.17.0 (absent in 0.16.0).  ``get_limit_per_prompt`` then answers 0 for every
  modality, so everything below that keys on an all-zero limit applies to it as well.
* With every modality of a tower at 0 the model's ``__init__`` does not build the tower, so its weights are neither
  allocated nor loaded:
  - from 0.15.0 (absent in 0.14.1) through ``SupportsMultiModal._mark_tower_model``
    (``model_executor/models/interfaces.py``): the modules built inside it become ``StageMissingLayer`` when
    ``get_limit_per_prompt`` is 0 for all the tower's modalities.  Gemma 3 (``gemma3_mm.py``: SigLIP tower + the
    projector, "image"), LLaVA-NeXT (``llava_next.py``) and, from their first releases, Qwen3.5 (0.17.0,
    ``qwen3_5.py``) and Gemma 4 (0.19.0, ``gemma4_mm.py``: vision tower + ``embed_vision``, "image"+"video";
    its audio tower is a separate, "audio" one) use it;
  - before that in each model's ``__init__`` (``self.visual = None`` / ``self.vision_tower = None``): Qwen2-VL,
    Qwen2.5-VL (``qwen2_vl.py``, ``qwen2_5_vl.py``: image and video both 0; the merger is part of ``visual``) and
    LLaVA (``llava.py``: tower + ``multi_modal_projector``) from 0.10.1 (absent in 0.10.0), Qwen3-VL /
    Qwen3-VL-MoE (``qwen3_vl.py``) from their first release, 0.11.0.
* Other families (Mllama, Llama 4, Kimi, InternVL, Pixtral …) were not read: their tower stays counted.

* Gemma 4's audio tower (``audio_config``: E2B / E4B; sized by ``tpkit.models.audio``) is built in its own
  ``_mark_tower_model(vllm_config, "audio")`` block (``gemma4_mm.py`` ``Gemma4ForConditionalGeneration.__init__``,
  read in the 0.19.0, 0.20.0, 0.21.0, 0.25.0, 0.28.0, 0.29.0 and 0.33.0 wheels): an audio limit of 0 (or
  ``--language-model-only``) leaves it out whatever the image / video limits are (``audio_not_built``).

The encoder profile follows the same limits (``engines/vllm/encoder.py`` ``all_limits_zero``): no tower, no
encoder pass.
"""

from __future__ import annotations

from collections.abc import Mapping

from tpkit.engines.vllm.mmlimits import mm_limit
from tpkit.models.spec import ModelSpec

__all__ = ["LANGUAGE_MODEL_ONLY_FROM", "TOWER_SKIP_FROM", "AUDIO_SKIP_FROM", "tower_not_built", "audio_not_built"]

LANGUAGE_MODEL_ONLY_FROM = (0, 17, 0)
"""vLLM's first release with ``--language-model-only`` (absent in 0.16.0)"""

TOWER_SKIP_FROM: dict[str, tuple[tuple[int, int, int], tuple[str, ...]]] = {
    "qwen2_vl": ((0, 10, 1), ("image", "video")),
    "qwen2_5_vl": ((0, 10, 1), ("image", "video")),
    "llava": ((0, 10, 1), ("image",)),
    "qwen3_vl": ((0, 11, 0), ("image", "video")),
    "qwen3_vl_moe": ((0, 11, 0), ("image", "video")),
    "gemma3": ((0, 15, 0), ("image",)),
    "llava_next": ((0, 15, 0), ("image",)),
    "qwen3_5": ((0, 17, 0), ("image", "video")),
    "qwen3_5_moe": ((0, 17, 0), ("image", "video")),
    "gemma4": ((0, 19, 0), ("image", "video")),
}
"""wrapper ``model_type`` → (first release that leaves the vision tower out at an all-zero limit, the modalities
that must all be 0) (module docstring)"""


AUDIO_SKIP_FROM: dict[str, tuple[tuple[int, int, int], tuple[str, ...]]] = {
    "gemma4": ((0, 19, 0), ("audio",)),
}
"""wrapper ``model_type`` → (first release that leaves the audio tower out at a zero audio limit, its modalities)"""


def audio_not_built(model: ModelSpec, *, release: tuple[int, int, int], language_model_only: bool = False,
                    limits: Mapping[str, int] | None = None) -> str:
    """Why vLLM ``release`` builds no audio tower for ``model`` ("" where it builds it, has none, or not read)."""
    if not model.extra.get("audio_config"):
        return ""
    return _not_built(model, AUDIO_SKIP_FROM, release=release, language_model_only=language_model_only,
                      limits=limits)


def tower_not_built(model: ModelSpec, *, release: tuple[int, int, int], language_model_only: bool = False,
                    limits: Mapping[str, int] | None = None) -> str:
    """Why vLLM ``release`` builds no vision tower for ``model`` ("" where it builds it, or where not read)."""
    return _not_built(model, TOWER_SKIP_FROM, release=release, language_model_only=language_model_only,
                      limits=limits)


def _not_built(model: ModelSpec, table: dict, *, release: tuple[int, int, int], language_model_only: bool,
               limits: Mapping[str, int] | None) -> str:
    wrapper = model.extra.get("wrapper_model_type")
    rule = table.get(wrapper or "")
    if not model.is_multimodal or rule is None or release < rule[0]:
        return ""
    since, modalities = rule
    where = f"vLLM ≥ {'.'.join(map(str, since))} {wrapper} (engines/vllm/towers.py)"
    if language_model_only and release >= LANGUAGE_MODEL_ONLY_FROM:
        return f"--language-model-only sets every modality's limit to 0, so {where} does not build it"
    if all(mm_limit(limits, m) == 0 for m in modalities):
        return f"--limit-mm-per-prompt sets {' and '.join(modalities)} to 0, so {where} does not build it"
    return ""
