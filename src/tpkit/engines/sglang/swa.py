"""Does SGLang give a model with sliding-window layers its two-pool (full + SWA) KV layout?  (pure)

SGLang decides by architecture, not by the config having sliding layers.  A model that is not hybrid gets
one full pool whose cell counts every attention layer (sliding ones too).

    releases         rule (file, function)
    ≤ 0.4.9          no hybrid SWA pool at all
    0.4.10, .post1   a model class with ``get_attention_sliding_window_size`` (Gemma 2/3/3n) and not Llama-4
                     (``model_executor/model_runner.py ModelRunner.__init__``, read in 0.4.10 and 0.4.10.post1)
    0.4.10.post2 –   the same hook, but Gemma 2/3/3n set ``disable_hybrid_swa_memory`` from 0.4.10.post2 and
    0.5.9            gpt-oss from 0.5.0rc1 (the only classes with the hook): nobody by default (``server_args.py``
                     "Disable hybrid SWA memory for …", read in 0.4.10.post2, 0.5.0rc0–rc2, 0.5.1, 0.5.2, 0.5.3;
                     gpt-oss in the 0.5.0rc0 pre-release alone would be hybrid: not modelled)
    0.5.10 – latest  an allow-list of architectures (``configs/model_config.py is_hybrid_swa_model``) that grows
                     per release (``_ALLOW`` below, every release 0.5.10 … 0.5.23 read); from 0.5.13 also a config
                     with ``is_hybrid_swa: true``; Laguna only with a sliding window, Beam only with a
                     ``sliding_attention`` layer.  Gemma 2/3/3n, Exaone 4 and OLMo 2 also force
                     ``disable_hybrid_swa_memory`` (model overrides) and are not on the list.
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least, release_key
from tpkit.models.spec import ModelSpec

__all__ = ["hybrid_swa"]

_GEMMA_HOOK = frozenset({"Gemma2ForCausalLM", "Gemma3ForCausalLM", "Gemma3ForConditionalGeneration",
                         "Gemma3nForCausalLM", "Gemma3nForConditionalGeneration"})
"""0.4.10: model classes defining ``get_attention_sliding_window_size`` (models/gemma2.py, gemma3*.py)"""

_ALLOW: tuple[tuple[str, frozenset[str]], ...] = (
    ("0.5.10", frozenset({"Llama4ForConditionalGeneration", "GptOssForCausalLM", "MiMoV2FlashForCausalLM",
                          "MiMoV2MTP", "Step3p5ForCausalLM", "Step3p5MTP"})),
    ("0.5.11", frozenset({"Gemma4ForCausalLM", "Gemma4ForConditionalGeneration", "MiMoV2ForCausalLM"})),
    ("0.5.12", frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "LagunaForCausalLM"})),
    ("0.5.13", frozenset({"Gemma4UnifiedForConditionalGeneration", "Step3p7ForConditionalGeneration"})),
    ("0.5.15", frozenset({"UnlimitedOCRForCausalLM"})),
    ("0.5.16", frozenset({"DeepseekV4ForCausalLMDSpark", "InklingForConditionalGeneration",
                          "InklingForConditionalGenerationMTP", "MellumForCausalLM"})),
    ("0.5.18", frozenset({"MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration"})),
    ("0.5.19", frozenset({"GraniteSWAForCausalLM", "GraniteMoeSWAForCausalLM"})),
    ("0.5.21", frozenset({"DiffusionGemmaForBlockDiffusion"})),
    ("0.5.22", frozenset({"EmbeddingGemma2Model"})),
    ("0.5.23", frozenset({"BeamForCausalLM", "IQuestQ1ForCausalLM", "IQuestQ1MTP"})),
)
"""(first release, architectures added to ``is_hybrid_swa_model``'s list in it)"""


def allow_list(version: str) -> frozenset[str]:
    """The hybrid-SWA architectures of release ``version`` (0.5.10 and later)."""
    return frozenset().union(*(names for first, names in _ALLOW if at_least(version, first)))


def hybrid_swa(model: ModelSpec, version: str) -> tuple[bool, str]:
    """(two-pool layout?, why) for a model with sliding layers under SGLang ``version``."""
    if model.num_sliding_layers == 0:
        return False, "no sliding-window layers"
    arch = model.architecture
    if not at_least(version, "0.4.10"):
        return False, f"SGLang {version} has no hybrid SWA pool: one pool over every layer"
    if not at_least(version, "0.5.0") and release_key(version)[3] < 2:
        if arch in _GEMMA_HOOK:
            return True, f"{arch} defines a sliding-window hook (SGLang 0.4.10 model_runner)"
        return False, f"{arch} has no sliding-window hook in SGLang 0.4.10: one pool over every layer"
    if not at_least(version, "0.5.10"):
        return False, ("SGLang 0.4.10.post2–0.5.9 sets disable_hybrid_swa_memory for every class with a "
                       "sliding-window hook (gpt-oss, Gemma): one pool over every layer")
    if arch in allow_list(version):
        if arch == "LagunaForCausalLM" and not model.sliding_window:
            return False, "Laguna without a sliding window (is_hybrid_swa_model)"
        return True, f"{arch} is on SGLang {version}'s hybrid-SWA list (configs/model_config.py)"
    if at_least(version, "0.5.13") and model.extra.get("is_hybrid_swa") is True:
        return True, "the config opts in with is_hybrid_swa (configs/model_config.py)"
    return False, (f"{arch} is not on SGLang {version}'s hybrid-SWA list (configs/model_config.py "
                   "is_hybrid_swa_model): one full pool whose cell counts the sliding layers too")
