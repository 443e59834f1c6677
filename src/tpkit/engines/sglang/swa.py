"""Does SGLang give a model with sliding-window layers its two-pool (full + SWA) KV layout?  (pure)

SGLang decides by architecture, not by the config having sliding layers.  A model that is not hybrid gets
one full pool whose cell counts every attention layer (sliding ones too).

    releases         rule (file, function)
    ≤ 0.4.9          no hybrid SWA pool at all
    0.4.10, .post1   a model class with ``get_attention_sliding_window_size`` (Gemma 2/3/3n) and not Llama-4
                     (``model_executor/model_runner.py ModelRunner.__init__``, read in 0.4.10 and 0.4.10.post1)
    0.4.10.post2 –   the same hook, but Gemma 2/3/3n set ``disable_hybrid_swa_memory`` from 0.4.10.post2 and
    0.5.7            gpt-oss from 0.5.0rc1 (the only classes with the hook): nobody by default (``server_args.py``
                     "Disable hybrid SWA memory for …", read in 0.4.10.post2, 0.5.0rc0–rc2, 0.5.1, 0.5.2, 0.5.3,
                     and for gpt-oss in 0.5.4, 0.5.4.post1, 0.5.5, 0.5.5.post3, 0.5.6, 0.5.6.post2, 0.5.7, whose
                     ``_handle_model_specific_adjustments`` GptOss branch ends with it; gpt-oss in the 0.5.0rc0
                     pre-release alone would be hybrid: not modelled); 0.5.7 alone: MiMo-V2-Flash / its MTP
                     (``configs/model_config.py is_hybrid_model`` returns 1 for them; Llama-4 only with
                     ``--hybrid-kvcache-ratio``, not modelled)
    0.5.8 – latest   an allow-list of architectures (``configs/model_config.py is_hybrid_swa_model``) that grows
                     per release (``_ALLOW`` below, read in 0.5.8, 0.5.8.post1, 0.5.9 and every release 0.5.10 …
                     0.5.23); from 0.5.13 also a config with ``is_hybrid_swa: true``; Laguna only with a sliding
                     window, Beam only with a ``sliding_attention`` layer.  Gemma 2/3/3n, Exaone 4 and OLMo 2 also
                     force ``disable_hybrid_swa_memory`` (model overrides) and are not on the list.  gpt-oss in
                     0.5.8 – 0.5.9 (``gpt_oss_one_pool``): the GptOss branch sets ``disable_hybrid_swa_memory``
                     when the prefill or decode attention backend is trtllm_mha (the default on SM 10.x when no
                     backend is given) and, in 0.5.8 / 0.5.8.post1, with speculative decoding; 0.5.10 dropped both.
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least, release_key
from tpkit.hardware.gpu import is_nvidia
from tpkit.models.spec import ModelSpec

__all__ = ["hybrid_swa", "gpt_oss_one_pool", "is_sm100"]

_GEMMA_HOOK = frozenset({"Gemma2ForCausalLM", "Gemma3ForCausalLM", "Gemma3ForConditionalGeneration",
                         "Gemma3nForCausalLM", "Gemma3nForConditionalGeneration"})
"""0.4.10: model classes defining ``get_attention_sliding_window_size`` (models/gemma2.py, gemma3*.py)"""

_MIMO_0_5_7 = frozenset({"MiMoV2FlashForCausalLM", "MiMoV2MTP"})
"""0.5.7 ``configs/model_config.py is_hybrid_model``: these two return 1 (hybrid) whatever the flags"""

_ALLOW: tuple[tuple[str, frozenset[str]], ...] = (
    ("0.5.8", frozenset({"Llama4ForConditionalGeneration", "GptOssForCausalLM", "MiMoV2FlashForCausalLM",
                         "MiMoV2MTP"})),
    ("0.5.9", frozenset({"Step3p5ForCausalLM", "Step3p5MTP"})),
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
    """The hybrid-SWA architectures of release ``version`` (0.5.8 and later)."""
    return frozenset().union(*(names for first, names in _ALLOW if at_least(version, first)))


def is_sm100(gpu) -> bool:
    """An NVIDIA GPU of compute capability major 10 (SGLang's ``is_sm100_supported``: B200 / GB200 / B300)."""
    cc = getattr(gpu, "compute_capability", None)
    return gpu is not None and is_nvidia(gpu.vendor) and bool(cc) and cc[0] == 10


def gpt_oss_one_pool(model: ModelSpec, version: str, *, sm100: bool, attention_backend: str | None,
                     speculative: bool) -> str:
    """Why gpt-oss gets one pool over every layer in SGLang 0.5.8 – 0.5.9 though it is on the hybrid list; empty
    when it keeps the two pools (or the release / model is another).

    ``ServerArgs._handle_model_specific_adjustments`` (GptOssForCausalLM branch; 0.5.8, 0.5.8.post1, 0.5.9 wheels):
    with no attention backend given it picks trtllm_mha on SM 10.x (``is_sm100_supported``), fa3 on SM 9.x, else
    triton; a trtllm_mha prefill or decode backend sets ``disable_hybrid_swa_memory`` ("TODO: support swa kv indices
    translation for trtllm_mha"), and so does any ``speculative_algorithm`` in 0.5.8 / 0.5.8.post1 (gone in 0.5.9).
    0.5.10's branch sets neither.  ``sm100``: the GPU's compute capability major is 10."""
    if model.architecture != "GptOssForCausalLM" or not at_least(version, "0.5.8") or at_least(version, "0.5.10"):
        return ""
    backend = attention_backend or ("trtllm_mha" if sm100 else None)
    if backend == "trtllm_mha":
        chosen = "given" if attention_backend else "the SM 10.x default"
        return (f"SGLang {version} disables hybrid SWA memory for gpt-oss with the trtllm_mha attention backend "
                f"({chosen}; server_args.py _handle_model_specific_adjustments): one pool over every layer")
    if speculative and not at_least(version, "0.5.9"):
        return (f"SGLang {version} disables hybrid SWA memory for gpt-oss with speculative decoding "
                "(server_args.py _handle_model_specific_adjustments): one pool over every layer")
    return ""


def hybrid_swa(model: ModelSpec, version: str, *, one_pool: str = "") -> tuple[bool, str]:
    """(two-pool layout?, why) for a model with sliding layers under SGLang ``version``.  ``one_pool``: why a
    server-args override (``gpt_oss_one_pool``) sets ``disable_hybrid_swa_memory`` for this start."""
    if model.num_sliding_layers == 0:
        return False, "no sliding-window layers"
    arch = model.architecture
    if not at_least(version, "0.4.10"):
        return False, f"SGLang {version} has no hybrid SWA pool: one pool over every layer"
    if not at_least(version, "0.5.0") and release_key(version)[3] < 2:
        if arch in _GEMMA_HOOK:
            return True, f"{arch} defines a sliding-window hook (SGLang 0.4.10 model_runner)"
        return False, f"{arch} has no sliding-window hook in SGLang 0.4.10: one pool over every layer"
    if not at_least(version, "0.5.8"):
        if arch in _MIMO_0_5_7 and at_least(version, "0.5.7"):
            return True, f"{arch} is hybrid in SGLang 0.5.7 (configs/model_config.py is_hybrid_model)"
        return False, ("SGLang 0.4.10.post2–0.5.7 sets disable_hybrid_swa_memory for every class with a "
                       "sliding-window hook (gpt-oss, Gemma): one pool over every layer")
    if one_pool:
        return False, one_pool
    if arch in allow_list(version):
        if arch == "LagunaForCausalLM" and not model.sliding_window:
            return False, "Laguna without a sliding window (is_hybrid_swa_model)"
        return True, f"{arch} is on SGLang {version}'s hybrid-SWA list (configs/model_config.py)"
    if at_least(version, "0.5.13") and model.extra.get("is_hybrid_swa") is True:
        return True, "the config opts in with is_hybrid_swa (configs/model_config.py)"
    return False, (f"{arch} is not on SGLang {version}'s hybrid-SWA list (configs/model_config.py "
                   "is_hybrid_swa_model): one full pool whose cell counts the sliding layers too")
