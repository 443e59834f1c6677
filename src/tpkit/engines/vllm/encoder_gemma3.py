"""vLLM V1's encoder profile for Gemma 3 (``gemma3``: SigLIP tower + average-pool projector), helper g3v.

Read in the vllm 0.11.0 and 0.23.0 wheels (``model_executor/models/gemma3_mm.py``, ``siglip.py``,
``layers/activation.py``, ``attention/layer.py`` ``MultiHeadAttention`` (0.11.0),
``layers/attention/mm_encoder_attention.py`` and ``v1/attention/ops/vit_attn_wrappers.py`` (0.23.0),
``multimodal/registry.py`` / ``profiling.py``, ``v1/worker/gpu_model_runner.py`` ``profile_run``); the bodies of
``SiglipVisionEmbeddings`` / ``SiglipAttention`` / ``SiglipMLP`` / ``SiglipEncoderLayer`` / ``SiglipEncoder``
``.forward``, ``Gemma3MultiModalProjector.forward`` and ``Gemma3ForConditionalGeneration._process_image_input``
were compared (AST) across the 0.10.1, 0.10.2, 0.11.0, 0.11.2, 0.12.0, 0.13.0, 0.14.1, 0.15.0–0.25.0, 0.29.0
and 0.33.0 wheels: the live set below does not change in them; ``registry.py`` was read in 0.10.2, 0.11.0,
0.11.2, 0.12.0, 0.13.0, 0.14.1 and 0.15.0.

* The dummy item (``Gemma3ProcessingInfo.get_image_size_with_most_features``, ``get_num_crops``,
  ``get_num_image_tokens``): an image ``image_size`` wide and ``pan_and_scan_max_num_crops`` (4) times as tall.
  Pan-and-scan is off unless ``--mm-processor-kwargs`` turns it on (the processor's ``do_pan_and_scan``, false in
  the released processor and in ``Gemma3ProcessorKwargs``' defaults), so the image is one crop, resized by the
  HF processor to image_size² (896²): (image_size / patch_size)² = 4,096 patches of 14 × 14, and
  ``mm_tokens_per_image`` = 256 soft tokens after the projector's average pool (kernel 4).  Pan-and-scan (up to
  four more crops per image) is not modelled.
* t, the item's tokens as the encoder budget counts them: 0.10.x–0.12.x ``get_max_tokens_per_item_by_modality``
  calls ``get_mm_max_contiguous_tokens``, the whole placeholder ``full_image_sequence`` ("\\n\\n", <start_of_image>,
  256 × <image_soft_token>, <end_of_image>, "\\n\\n"; "\\n\\n" is one token of the Gemma tokenizer): 260, so
  8,192 // 260 = 31 items (a 0.11.0 pre-release log prints "profiled with 31 image items").  From 0.13.0 the
  embeddings only (``get_mm_max_tokens``, then ``get_num_embeds``): 256, 32 items (a 0.23.0 log prints 32).
* The tower (N = items × 4,096 patches, d the tower width, i its MLP width, a activation bytes, tp ranks;
  ``QKVParallelLinear`` / ``ColumnParallelLinear`` shard qkv and fc1):

    held       N·C·a (the dummy pixels, C = 3·patch²) + N·d·a: the patch embeddings stay referenced by
               ``SiglipEncoder.forward``'s ``inputs_embeds`` / ``hidden_states_pool`` and the transformer's
               local through every layer
    MLP        N·(3d + 2i/tp)·a  the layer input (the caller's loop variable), the post-attention residual,
               ``layer_norm2``'s output, fc1 and its activation (``nn.GELU(approximate="tanh")``, one output;
               fc1 is released when the activation returns)
    attention  N·(3d + 3d/tp + d/tp + d)·a: input, its norm, qkv (q, k, v are ``chunk`` views passed to the
               kernel as views), the output and the all-reduced projection; below the MLP whenever 2i > 4d
               (4,304 > 2,304 in the released tower).  The kernel itself (FlashAttention varlen, or SDPA per
               image) is not modelled past its output; an SDPA path that copies q/k/v or materialises the scores
               would add to it.

    encoder peak = held + max(MLP, attention); the projector (a contiguous N·d copy, the pool, the norm) and the
    post-layernorm stay below it.
* Kept for the text dummy run: the outputs, items × 256 × H_text × a (``_process_image_input`` returns views of
  the projector's output), and the V1 runner's dummy pixels (as for the other towers).  ``profile_run`` widens
  (0.11.x) each output with fewer rows than the encoder budget into a (budget, H_text) zero tensor, so
  + items × max(max_num_batched_tokens, t) × H_text × a (and the loop variable keeps the original outputs);
  (0.12.x) each output with fewer rows than t: 256 < 260, so + items × 260 × H_text × a; from 0.13.0 nothing.

Releases outside 0.11.0–0.29.0 keep the plan's warning (0.10.x's ``profile_run`` was not read for this model).
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, gib_text

__all__ = ["GEMMA3_WRAPPERS", "gemma3_not_modelled", "gemma3_tokens_per_item", "gemma3_profile"]

GEMMA3_WRAPPERS = frozenset({"gemma3"})
_FROM, _TO = (0, 11, 0), (0, 29, 0)
"""the releases whose Gemma 3 profile was read (module docstring)"""
_EMBEDS_ONLY = (0, 13, 0)
"""from here the budget counts the 256 soft tokens; before, the whole contiguous placeholder (260)"""
_WIDEN_TO_T = (0, 12, 0)
"""0.12.x widens each output to t rows; 0.11.x to the encoder budget; 0.13.0+ nothing"""
_PLACEHOLDER_TEXT_TOKENS = 4
"""'\\n\\n', <start_of_image>, <end_of_image>, '\\n\\n' around the soft tokens in ``full_image_sequence``"""


def gemma3_not_modelled(model: ModelSpec, *, release: tuple[int, int, int]) -> str:
    """Why Gemma 3's encoder profile is not modelled for ``release`` ("" when it is)."""
    if not isinstance(model.extra.get("vision_config"), dict):
        return "the gemma3 encoder's dummy batch is not modelled (no vision_config)"
    if not _FROM <= release <= _TO:
        return ("the gemma3 tower's dummy batch and live set are read for vLLM 0.11.0–0.29.0 only (0.10.x's "
                "profile_run was not read for it)")
    return ""


def _soft_tokens(model: ModelSpec) -> int:
    return int(model.extra.get("mm_tokens_per_image") or 256)


def gemma3_tokens_per_item(model: ModelSpec, *, release: tuple[int, int, int]) -> int:
    """t: one dummy image's tokens as the encoder budget counts them (module docstring)."""
    soft = _soft_tokens(model)
    return soft if release >= _EMBEDS_ONLY else soft + _PLACEHOLDER_TEXT_TOKENS


def gemma3_profile(model: ModelSpec, *, release: tuple[int, int, int], tp: int, items: int,
                   max_num_batched_tokens: int, act_bytes: int, v2_runner: bool) -> tuple[Bytes, Bytes, str]:
    """(encoder peak, kept for the text run, formula) for ``items`` dummy images (module docstring)."""
    vc = model.extra["vision_config"]
    d, i = int(vc.get("hidden_size", 1152)), int(vc.get("intermediate_size", 4304))
    size, patch = int(vc.get("image_size", 896)), int(vc.get("patch_size", 14))
    channels = int(vc.get("num_channels", 3)) * patch * patch
    patches = (size // patch) ** 2
    n, a = items * patches, act_bytes
    pixels = n * channels * a
    held = pixels + n * d * a
    mlp = n * (3 * d + -(-2 * i // tp)) * a
    attention = n * (4 * d + -(-4 * d // tp)) * a
    soft, t = _soft_tokens(model), gemma3_tokens_per_item(model, release=release)
    out = model.hidden_size
    output = items * soft * out * a
    if release < _WIDEN_TO_T:
        rows = max(max_num_batched_tokens, t)
    elif release < _EMBEDS_ONLY:
        rows = t
    else:
        rows = 0
    widened = items * rows * out * a if rows > soft else 0
    kept = output + widened + (0 if v2_runner else pixels)
    phase = "MLP" if mlp >= attention else "attention"
    formula = (f"{items} image item(s) × {t} tokens ({patches:,} patches of {patch}×{patch}, {soft} soft tokens; "
               f"pan-and-scan off): held {gib_text(Bytes(held))} (pixels, patch embeddings) + block {phase} "
               f"{gib_text(Bytes(max(mlp, attention)))} (MLP N·(3d + 2i/tp)·a, d {d}, i {i}); kept for the text run "
               f"{gib_text(Bytes(kept))} (outputs"
               f"{f' + {gib_text(Bytes(widened))} widened to {rows:,} rows' if widened else ''}"
               f"{'' if v2_runner else ' + dummy pixels'})")
    return Bytes(held + max(mlp, attention)), Bytes(kept), formula
