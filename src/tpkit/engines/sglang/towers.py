"""SGLang ``--language-model-only``: which vision towers it does not build.

Read in the sglang 0.5.13, 0.5.16, 0.5.17, 0.5.18, 0.5.20 and 0.5.23 wheels.

* The flag exists from 0.5.18 (absent in 0.5.17: ``server_args.py``; 0.5.20+ ``arg_groups/fields/disagg.py``).
  ``configs/model_config.py`` copies it onto the HF config (``hf_config.language_model_only``).
* ``Qwen3VLForConditionalGeneration.__init__`` (``models/qwen3_vl.py``) then sets ``self.visual = None``: the tower
  (with its merger and deepstack mergers) is never built, so its weights are neither allocated nor loaded.  Its
  subclasses inherit it: Qwen3-VL-MoE (``qwen3_vl_moe.py``) and Qwen3.5 / Qwen3.5-MoE (``qwen3_5.py``).  Other
  families' model files (Qwen2.5-VL, Gemma 3, Gemma 4, LLaVA …) do not read the flag in 0.5.23: their tower stays.
* The multimodal headroom on the default ``mem_fraction_static`` (``adjust_mem_fraction_for_vlm``;
  ``defaults.vlm_fraction_factor``) is skipped under the flag for every multimodal model (0.5.18
  ``server_args.py`` ``_handle_gpu_memory_settings``; 0.5.20+ ``arg_groups/memory_hook.py``: ``is_vlm`` requires
  ``not language_model_only``).
* ``--language-only`` (0.5.7+, encoder disaggregation) is not this: its model still builds the tower (0.5.13
  ``qwen2_5_vl.py`` / ``qwen3_vl.py`` skip only checkpoint names absent from the model), so it frees nothing here.
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec

__all__ = ["LANGUAGE_MODEL_ONLY_FROM", "NO_TOWER_WRAPPERS", "tower_not_built"]

LANGUAGE_MODEL_ONLY_FROM = "0.5.18"
"""SGLang's first release with ``--language-model-only`` (absent in 0.5.17)"""

NO_TOWER_WRAPPERS = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
"""wrapper ``model_type``s whose SGLang model builds no tower under the flag (``models/qwen3_vl.py`` and subclasses)"""


def tower_not_built(model: ModelSpec, *, language_model_only: bool) -> str:
    """Why SGLang builds no vision tower for ``model`` ("" where it builds it); the flag is refused before 0.5.18
    (``SglangOptions``)."""
    wrapper = model.extra.get("wrapper_model_type")
    if not (language_model_only and model.is_multimodal and wrapper in NO_TOWER_WRAPPERS):
        return ""
    return (f"--language-model-only: SGLang ≥ {LANGUAGE_MODEL_ONLY_FROM} {wrapper} sets visual = None "
            "(models/qwen3_vl.py; engines/sglang/towers.py)")
