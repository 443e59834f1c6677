"""vLLM V1's multimodal encoder profile: the vision tower's peak on the dummy batch and the outputs it keeps.

Read in the vllm 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.0, 0.14.1, 0.15.0, 0.15.1,
0.16.0, 0.17.0, 0.17.1, 0.18.0, 0.18.1, 0.19.0, 0.19.1, 0.20.0, 0.20.1, 0.20.2, 0.21.0, 0.22.0, 0.22.1, 0.23.0,
0.24.0, 0.25.0, 0.25.1, 0.26.0, 0.27.0, 0.27.1, 0.28.0, 0.29.0, 0.30.0 and 0.31.0 wheels.

What the profile does (``v1/worker/gpu_model_runner.py`` ``profile_run``; Model Runner V2: ``v1/worker/gpu/
model_runner.py`` ``profile_run`` → ``mm/encoder_runner.py`` ``profile_encoder_cache``, from 0.27.0; before it V2's
profile encodes nothing and no term is charged): unless
``--skip-mm-profiling``, a multimodal model first runs its encoder (``embed_multimodal``) on a dummy batch of
``items`` copies of one maximum-size item of the modality with the most tokens per item, stores the outputs in the
encoder cache, and only then runs the text model's dummy forward and sampler.  vLLM's torch peak covers the whole
``profile_run`` (``determine_available_memory``), so the activation peak is

    max(encoder pass, outputs kept + text dummy run)

The outputs stay in ``encoder_cache`` until ``profile_run`` clears it after the text run.  The V1 runner also keeps
the dummy batch on the GPU: ``_get_mm_dummy_batch`` moves it there, and ``profile_run`` keeps it in a local until
it returns.  Model Runner V2 batches inside ``execute_mm_encoder``, so its GPU copy is freed with that call.

The modules: ``encoder_budget`` (how many dummy items run at once; the result type), one per modelled family —
``encoder_qwen3vl`` (Qwen3-VL / Qwen3.5, from 0.11.0), ``encoder_qwen2vl`` (Qwen2-VL / Qwen2.5-VL, 0.9.0–0.31.0;
its dummy item in ``encoder_qwen2vl_dummy``, its towers' live set in ``encoder_qwen2vl_tower``), ``encoder_gemma3``
(Gemma 3, 0.11.0–0.29.0), ``encoder_llava`` (LLaVA-1.5 / LLaVA-NeXT with a CLIP tower, 0.10.2–0.29.0) — and this
dispatcher.

* Other families are not modelled, and the plan keeps the warning:
  - Gemma 4 (0.25.1 ``gemma4_mm.py``; read in 0.26.0–0.30.0, helper g4enc): the dummy is one 32-frame video of
    2,496 tokens (630 patches a frame).  It runs through transformers' tower in chunks of
    min(free // 2, total // 10) // (630 × 4 × ``position_embedding_size`` × 8 B) frames (``_encoder_chunk``; 7 on a
    T4).  The ``F.one_hot`` position tables that rule is sized for exist only in transformers 5.5.3–5.9.0
    (``Gemma4VisionPatchEmbedder._position_embeddings``; 5.10.1 and later use ``F.embedding``), and the vllm
    0.26.0–0.28.x wheels accept either, so the peak depends on the installed transformers, which neither the config
    nor the log gives.  From 0.29.0 (``transformers>=5.10.4``) the pass is the tower's own live set, about 0.2 GiB on
    a T4, which is well short of the T4 cases' 0.34–0.44 GiB gap (docs/accuracy.md §2, helper g4enc).
  - Qwen2-VL and Qwen2.5-VL outside 0.9.0–0.31.0 (``encoder_qwen2vl``; 0.32 and later not read for this tower).
  - LLaVA / LLaVA-NeXT outside 0.10.2–0.29.0 or with a non-CLIP tower (``encoder_llava``); Mllama, Llama 4,
    Mistral 3 (Pixtral), InternVL, Kimi: not read.
"""

from __future__ import annotations

from collections.abc import Mapping

from tpkit.engines.vllm.encoder_budget import EncoderProfile, items_per_batch
from tpkit.engines.vllm.encoder_gemma3 import (GEMMA3_WRAPPERS, gemma3_not_modelled, gemma3_profile,
                                              gemma3_tokens_per_item)
from tpkit.engines.vllm.encoder_llava import LLAVA_WRAPPERS, llava_dummy, llava_not_modelled, llava_profile
from tpkit.engines.vllm.encoder_qwen2vl import QWEN2_VL_FROM, QWEN2_VL_TO, QWEN2_VL_WRAPPERS, qwen2_vl_profile
from tpkit.engines.vllm.encoder_qwen3vl import QWEN3_VL_FROM, QWEN3_VL_WRAPPERS, qwen3_vl_profile
from tpkit.engines.vllm.mmlimits import mm_limit
from tpkit.models.spec import ModelSpec

__all__ = ["EncoderProfile", "all_limits_zero", "encoder_profile", "not_modelled", "supported_modalities"]

_V2_ENCODER_PROFILE_FROM = (0, 27, 0)
"""Model Runner V2's ``profile_run`` (``v1/worker/gpu/model_runner.py``) is the text dummy run and the sampler only
in 0.22.0–0.26.0 (its ``encoder_runner`` encodes only in ``execute_mm_encoder``); 0.27.0 adds
``profile_encoder_cache`` (read in the 0.20.0, 0.22.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0 and 0.27.0 wheels)"""


def not_modelled(model: ModelSpec, *, release: tuple[int, int, int], engine: str) -> str:
    """Why the encoder step of ``model``'s profile run is not modelled for this release ("" when it is)."""
    wrapper = model.extra.get("wrapper_model_type")
    if engine != "V1":
        return "the V0 engine's encoder profile is not modelled"
    if wrapper in QWEN2_VL_WRAPPERS and isinstance(model.extra.get("vision_config"), dict):
        if QWEN2_VL_FROM <= release <= QWEN2_VL_TO:
            return ""
        return (f"the {wrapper} tower's dummy batch and live set are read for vLLM 0.9.0–0.31.0 only (0.32 and "
                "later were not read for this tower)")
    if wrapper in GEMMA3_WRAPPERS:  # engines/vllm/encoder_gemma3.py (helper g3v)
        return gemma3_not_modelled(model, release=release)
    if wrapper in LLAVA_WRAPPERS:  # engines/vllm/encoder_llava.py (helper q2n)
        return llava_not_modelled(model, release=release)
    if wrapper not in QWEN3_VL_WRAPPERS or not isinstance(model.extra.get("vision_config"), dict):
        return f"the {wrapper or model.model_type} encoder's dummy batch is not modelled"
    if release < QWEN3_VL_FROM:
        return "vLLM has no Qwen3-VL before 0.11.0"
    return ""

def supported_modalities(model: ModelSpec) -> tuple[str, ...]:
    """The modalities the modelled families' processors take (``supported_mm_limits``: Qwen2-VL / Qwen2.5-VL /
    Qwen3-VL image and video, Gemma 3 and LLaVA / LLaVA-NeXT image); () for a family not modelled."""
    wrapper = model.extra.get("wrapper_model_type")
    if wrapper in QWEN2_VL_WRAPPERS or wrapper in QWEN3_VL_WRAPPERS:
        return ("image", "video")
    if wrapper in GEMMA3_WRAPPERS or wrapper in LLAVA_WRAPPERS:
        return ("image",)
    return ()


def all_limits_zero(model: ModelSpec, limits: Mapping[str, int] | None, release: tuple[int, int, int]) -> bool:
    """True where ``--limit-mm-per-prompt`` sets every modality the (modelled) family supports to 0: vLLM 0.10.0 and
    later then run no encoder profile at all (``engines/vllm/mmlimits.py``); so do 0.9.0–0.9.2 for Qwen2-VL /
    Qwen2.5-VL, the one family read there (``compute_encoder_budget`` gives 0, the same code as 0.10.0's)."""
    names = supported_modalities(model)
    first = QWEN2_VL_FROM if model.extra.get("wrapper_model_type") in QWEN2_VL_WRAPPERS else (0, 10, 0)
    return bool(names) and release >= first and all(mm_limit(limits, m) == 0 for m in names)


def encoder_profile(model: ModelSpec, *, release: tuple[int, int, int], engine: str, tp: int,
                    max_num_batched_tokens: int, max_num_seqs: int, max_model_len: int, act_bytes: int,
                    v2_runner: bool, enforce_eager: bool = False,
                    limits: Mapping[str, int] | None = None) -> tuple[EncoderProfile | None, str]:
    """The encoder step of the profile run, or (None, why it is not modelled); (None, "") where the profile runs no
    encoder (Model Runner V2 before 0.27.0; every modality's ``--limit-mm-per-prompt`` 0).  ``enforce_eager``
    turns vLLM's custom ops on (Qwen2-VL / Qwen2.5-VL towers; module docstring); ``limits``: items per prompt by
    modality (``engines/vllm/mmlimits.py``)."""
    why = not_modelled(model, release=release, engine=engine)
    if why:
        return None, why
    if all_limits_zero(model, limits, release):
        return None, ""  # supports_multimodal_inputs is False / the encoder budget is 0: no encoder pass
    if v2_runner and release < _V2_ENCODER_PROFILE_FROM:
        return None, ""  # Model Runner V2's profile_run encodes nothing before 0.27.0: no term, nothing missing
    if model.extra.get("wrapper_model_type") in QWEN2_VL_WRAPPERS:
        return qwen2_vl_profile(model, release=release, tp=tp, max_num_batched_tokens=max_num_batched_tokens,
                                 max_num_seqs=max_num_seqs, max_model_len=max_model_len, act_bytes=act_bytes,
                                 v2_runner=v2_runner, enforce_eager=enforce_eager, limits=limits)
    budget = dict(release=release, max_num_batched_tokens=max_num_batched_tokens, max_num_seqs=max_num_seqs,
                  max_model_len=max_model_len, limits=limits)
    if model.extra.get("wrapper_model_type") in GEMMA3_WRAPPERS:  # engines/vllm/encoder_gemma3.py (helper g3v)
        return _image_profile(gemma3_tokens_per_item(model, release=release), lambda items: gemma3_profile(
            model, release=release, tp=tp, items=items, max_num_batched_tokens=max_num_batched_tokens,
            act_bytes=act_bytes, v2_runner=v2_runner), **budget)
    if model.extra.get("wrapper_model_type") in LLAVA_WRAPPERS:  # engines/vllm/encoder_llava.py (helper q2n)
        return _image_profile(llava_dummy(model).tokens, lambda items: llava_profile(
            model, release=release, tp=tp, items=items, max_num_batched_tokens=max_num_batched_tokens,
            act_bytes=act_bytes, v2_runner=v2_runner, enforce_eager=enforce_eager), **budget)
    return qwen3_vl_profile(model, release=release, tp=tp, max_num_batched_tokens=max_num_batched_tokens,
                            max_num_seqs=max_num_seqs, max_model_len=max_model_len, act_bytes=act_bytes,
                            v2_runner=v2_runner, limits=limits)


def _image_profile(tokens: int, profile, *, release: tuple[int, int, int], max_num_batched_tokens: int,
                   max_num_seqs: int, max_model_len: int, limits) -> tuple[EncoderProfile | None, str]:
    """A family whose dummy is ``tokens``-token images: the items of one encoder batch (``items_per_batch``), then
    ``profile(items)`` → (peak, kept, formula) of the family's module."""
    items = items_per_batch(release, tokens, max_num_batched_tokens=max_num_batched_tokens, max_num_seqs=max_num_seqs,
                            max_model_len=max_model_len, limit=mm_limit(limits, "image"))
    if items is None:
        return None, "the encoder budget is read only from vLLM 0.10.0"
    peak, kept, formula = profile(items)
    return EncoderProfile(peak=peak, kept=kept, items=items, modality="image", tokens_per_item=tokens,
                          formula=formula), ""
