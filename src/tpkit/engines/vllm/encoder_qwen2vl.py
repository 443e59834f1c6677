"""vLLM V1's encoder profile for Qwen2-VL / Qwen2.5-VL, 0.9.0–0.31.0: the dummy batch through the towers, and
what the runner keeps for the text run.

Qwen2-VL / Qwen2.5-VL (``qwen2_vl``, ``qwen2_5_vl``; their configs are flat, with ``vision_config`` beside the
text fields and no ``text_config``, which ``models.config`` reads as multimodal).  The rule has three parts:

* ``encoder_qwen2vl_dummy``: the dummy item per release (image or video, its t tokens and its patches);
* ``encoder_qwen2vl_tower``: the towers' live set on the N patches of the batch per release (held, attention,
  MLP, the pixels' normalisation), with the files and helpers of each release read;
* this module: items per batch (``encoder_budget.items_per_batch``), the outputs, and what stays allocated
  through the text dummy forward (read in the 0.10.0–0.31.0 wheels' ``v1/worker/gpu_model_runner.py``
  ``profile_run`` and, from 0.27.0, Model Runner V2's ``v1/worker/gpu/model_runner.py`` ``profile_run`` and
  ``v1/worker/gpu/mm/encoder_runner.py``):

    output     (N/m²)·o·a (o = hidden_size for Qwen2-VL, out_hidden_size for Qwen2.5-VL); the cached rotary
               table of Qwen2.5-VL stays allocated too
    encoder peak = held + max(attention, MLP), or the pixels' normalisation where larger (from 0.28)
    kept       the outputs, the cached rotary table of Qwen2.5-VL, and on V1 the dummy pixels (N·C·a)

  - 0.9.0–0.9.2 (helper q29; the three wheels' ``gpu_model_runner.py`` ``profile_run``, ``qwen2_vl.py``,
    ``qwen2_5_vl.py``, ``vision.py``, ``custom_op.py``, ``activation.py``, ``layernorm.py``,
    ``encoder_cache_manager.py``, ``multimodal/{registry,profiling,inputs}.py``, ``inputs/registry.py``): the
    towers, custom-op defaults (off under V1's Inductor) and the budget are 0.10.0's, and the runner keeps the
    same outputs and dummy pixels in the model dtype (0.9.0 casts them in ``MultiModalKwargs.as_kwargs``, 0.9.1 on
    in the processor's ``call_hf_processor``).  ``profile_run`` differs from 0.10.0 twice: items =
    ``cdiv(budget, t)`` with no floor (``encoder_budget.items_per_batch_cdiv``), and the dummy is built with
    seq_len = max_num_batched_tokens (``encoder_qwen2vl_dummy``).  0.8.5 runs the same ``profile_run`` but other
    towers (Qwen2.5-VL's rotary table built per call, not the cached ``rotary_pos_emb_thw``; the flash-attention
    rotation flag): not read further, so the plan warns before 0.9.0.
  - 0.11.0–0.11.2: ``profile_run`` also widens each cached output to (encoder_budget, o) when the item has fewer
    tokens than the budget (``new_zeros`` + ``copy_``); the loop variable ``output`` keeps the last split (a view
    of all items' outputs) through the text dummy forward, so kept gains items·budget·o·a.
  - 0.12.0: ``profile_run`` widens an output only when it has fewer rows than the modality's max tokens per item,
    which never holds here (the dummy is built from max_model_len, as in 0.11): output items·t·o·a.
  - 0.13.0 on: ``profile_run`` stores each output under its own key and widens nothing: kept as 0.12.0.
  - 0.23.0–0.26.0: Model Runner V2 runs no encoder profile before 0.27.0 (``_V2_ENCODER_PROFILE_FROM``), and from
    0.25.0 it is the default runner of these dense, non-hybrid towers (``_is_default_v2_model_runner_model``: any
    non-MoE model): so a default 0.25.0–0.26.0 plan charges no encoder term, without a warning; the V1 rule above
    applies where V1 runs (a feature V2 lacks, e.g. an ngram drafter).
  - 0.27.0 on: Model Runner V2 profiles the encoder: the same budget (``MultiModalBudget``, processor cache off),
    the same modality and dummy item, ``max_items_per_batch`` copies batched to the GPU inside
    ``execute_mm_encoder`` (freed with it: no dummy pixels kept), the outputs kept in the encoder cache until
    ``reset_encoder_cache`` after the text run.
  - 0.28.0 on: the V1 runner's dummy pixels are uint8: N·C·1 kept (was N·C·a); Model Runner V2 keeps none.

  From 0.32 the plan keeps the warning (not read for this tower: 0.32.0 resolves the processor's size and
  pixel limits anew in ``qwen2_vl.py`` and rewrites ``processing/context.py``).

  ``tests/engines/test_vllm_encoder_qwen2vl_gpu.py`` replays both towers' 0.10.2 op order in plain torch (GPU
  only).  Under a CPU tensor-storage lifetime tracker that replay gives this estimate to the byte for Qwen2-VL-2B
  and within 0.005 % for Qwen2.5-VL-7B (helper qvl, 2026-12-04): an accounting check, not a measurement of vLLM.
  vp_083 (Qwen2-VL-2B, 0.10.2) prints a 2.65 GiB peak activation against this 2.50 GiB.
"""

from __future__ import annotations

from collections.abc import Mapping

from tpkit.engines.vllm.encoder_budget import EncoderProfile, items_per_batch, items_per_batch_cdiv
from tpkit.engines.vllm.encoder_qwen2vl_dummy import QWEN2_VL_PROCESSOR, qwen2_vl_dummy
from tpkit.engines.vllm.encoder_qwen2vl_tower import (QWEN2_VL_0_11_1, QWEN2_VL_0_12, attention_0_11,
                                                      qwen2_vl_live_set, qwen2_vl_tower)
from tpkit.engines.vllm.mmlimits import mm_limit
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, gib_text

__all__ = ["QWEN2_VL_PROCESSOR", "QWEN2_VL_WRAPPERS", "QWEN2_VL_FROM", "QWEN2_VL_TO", "qwen2_vl_dummy",
           "qwen2_vl_profile", "attention_0_11", "QWEN2_VL_0_11_1", "QWEN2_VL_0_12"]

QWEN2_VL_WRAPPERS = frozenset({"qwen2_vl", "qwen2_5_vl"})
QWEN2_VL_FROM, QWEN2_VL_TO = (0, 9, 0), (0, 31, 0)
"""the releases whose Qwen2-VL / Qwen2.5-VL tower code was read (module docstring)"""
_FLOOR_BUDGET_FROM = (0, 10, 0)
"""0.10.0: ``profile_run`` counts the items as budget // t, at least 1 (0.9.0–0.9.2: ``cdiv``)"""
_WIDENED_FROM = (0, 11, 0)
"""0.11.0–0.11.2 (up to ``QWEN2_VL_0_12``): ``profile_run`` widens each kept output to the encoder budget (module
docstring)"""


def qwen2_vl_profile(model: ModelSpec, *, release: tuple[int, int, int], tp: int, max_num_batched_tokens: int,
                      max_num_seqs: int, max_model_len: int, act_bytes: int, v2_runner: bool,
                      enforce_eager: bool, limits: Mapping[str, int] | None = None) -> tuple[EncoderProfile | None, str]:
    """The Qwen2-VL / Qwen2.5-VL encoder step, vLLM 0.9.0–0.31.0 (module docstring); ``limits``:
    ``--limit-mm-per-prompt`` (``engines/vllm/mmlimits.py``)."""
    dummy = qwen2_vl_dummy(model.extra["vision_config"], release=release, max_model_len=max_model_len,
                           max_num_batched_tokens=max_num_batched_tokens, limits=limits)
    if release < _FLOOR_BUDGET_FROM:  # 0.9.0–0.9.2: cdiv, no floor of 1
        items = items_per_batch_cdiv(dummy.tokens, max_num_batched_tokens=max_num_batched_tokens,
                                     max_num_seqs=max_num_seqs, limit=mm_limit(limits, dummy.modality))
    else:
        items = items_per_batch(release, dummy.tokens, max_num_batched_tokens=max_num_batched_tokens,
                                max_num_seqs=max_num_seqs, max_model_len=max_model_len,
                                limit=mm_limit(limits, dummy.modality))
    if items is None:
        return None, "the encoder budget is read only from vLLM 0.10.0"
    tower = qwen2_vl_tower(model, release=release, enforce_eager=enforce_eager)
    live = qwen2_vl_live_set(tower, release=release, tp=tp, n=items * dummy.patches, patches=dummy.patches,
                             act_bytes=act_bytes, enforce_eager=enforce_eager)
    p, a = tower.patch, act_bytes
    output = items * dummy.encoded_tokens * tower.out * a
    budget = max(max_num_batched_tokens, dummy.tokens)
    widened = _WIDENED_FROM <= release < QWEN2_VL_0_12 and dummy.encoded_tokens < budget
    if widened:  # each output copied into a (budget, o) buffer; the loop variable keeps the split's storage
        output += items * budget * tower.out * a
    kept = output + tower.cached * live.table_bytes + (0 if v2_runner else live.pixels_bytes)
    phase = "attention" if live.attention_bytes >= live.mlp_bytes else "MLP"
    video = (f", {dummy.encoded_tokens:,} tokens encoded (the dummy video's frames follow "
             f"{'max_num_batched_tokens' if dummy.encoded_tokens != dummy.tokens else 'max_model_len'})"
             if dummy.modality == "video" else "")
    pixels = ((" uint8 + normalised on the GPU" if live.normalised_bytes else " uint8, normalised in the tower")
              if live.device_norm else " and the model's copy of them" if live.copied_bytes else "")
    block = max(live.attention_bytes, live.mlp_bytes)
    formula = (f"{items} {dummy.modality} item(s) × {dummy.tokens:,} tokens{video} ({dummy.patches:,} patches of "
               f"{p}×{p}; max_pixels {QWEN2_VL_PROCESSOR['max_pixels']:,}): held {gib_text(Bytes(live.held_bytes))} "
               f"(pixels{pixels}, rotary) + block {phase} {gib_text(Bytes(block))} (attention "
               f"{live.rot_how} vs MLP {tower.mlp_how}, d {tower.d}, i {tower.i}); kept for the text run "
               f"{gib_text(Bytes(kept))} (outputs{f' widened to the {budget:,}-token budget' if widened else ''}"
               f"{'' if v2_runner else ' + dummy pixels'})")
    return EncoderProfile(peak=Bytes(live.peak_bytes), kept=Bytes(kept), items=items, modality=dummy.modality,
                          tokens_per_item=dummy.tokens, formula=formula), ""
