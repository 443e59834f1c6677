"""vLLM V1's encoder profile for LLaVA-1.5 (``llava``) and LLaVA-NeXT (``llava_next``) with a CLIP tower, helper q2n.

Read in the vllm 0.10.2 and 0.11.0 wheels (``model_executor/models/llava.py``, ``llava_next.py``, ``clip.py``,
``vision.py`` ``resolve_visual_encoder_outputs``, ``attention/layer.py`` ``MultiHeadAttention``,
``layers/activation.py`` ``QuickGELU`` / ``get_act_fn``, ``inputs/registry.py`` ``call_hf_processor``,
``v1/worker/gpu_model_runner.py`` ``profile_run`` / ``_get_mm_dummy_batch``) and transformers'
``select_best_resolution`` / ``get_anyres_image_grid_shape`` (which vLLM's ``llava_next.py`` imports).  Between the
two wheels ``clip.py`` is identical and ``llava.py`` / ``llava_next.py`` differ only in typing, docstrings and the
sampler argument; ``MultiHeadAttention`` gains a FlashAttention varlen path over the same q/k/v views.
Later releases (the 0.11.2, 0.12.0, 0.13.0, 0.14.1, 0.15.0, 0.16.0, 0.17.0–0.27.0 (every x.y.0), 0.28.0 and
0.29.0 wheels; the bodies of the functions named here compared as ASTs, the changed ones read): 0.11.2 moves the
feature selection into the tower (``resolve_visual_encoder_outputs(feature_select_strategy=…)``, the same
``[:, 1:]`` view) and rewrites the CLIP modules' construction; 0.14.1 gives CLIP ``MMEncoderAttention``
(``view`` of the q/k/v chunks, no repeat for CLIP's equal head counts, ``einops.rearrange`` of (b, s) — a view
for these strides — into ``vit_flash_attn_wrapper``); ``Conv2dLayer`` replaces ``nn.Conv2d`` (its unfold +
linear path copies the pixels once before the blocks); 0.17.0 passes the dummy options (they can only shrink
the image; none assumed).  ``QuickGELU`` keeps an eager native forward (no ``compile_native``) through 0.29.0.
The projector, the merge, the pinpoint search and the token count are unchanged through 0.29.0; the pixels are
the processor's floats cast to the model dtype (``FusedInputNorm``, 0.28, is Qwen2-VL's only).

* The dummy item (``get_image_size_with_most_features``, ``get_num_image_tokens``; s = ``image_size``, p =
  ``patch_size``, g = s / p):
  - LLaVA-1.5: one s × s image, g² + 1 CLIP tokens, g² after the ``default`` feature selection (the class token
    dropped; ``full`` keeps it): 576 for the released 336 / 14 tower.
  - LLaVA-NeXT: the ``image_grid_pinpoints`` entry (height, width) with the most tokens (the first on a tie):
    g² base tokens + the unpadded grid + one newline per grid row.  The grid is transformers'
    ``select_best_resolution`` of the pinpoint over the pinpoints, divided by s (nh × nw crops); the unpadded
    count follows ``_get_num_unpadded_features`` (aspect ratio, ``round(…, 7)``, symmetric padding).  For the
    released pinpoints (336·{1,2,3} combinations) the 672 × 672 image wins: 576 + 48 × 48 + 48 = 2,928 tokens
    from 1 + 2 × 2 = 5 crops of 336² (the HF processor's base image and its patches).
  t, as the encoder budget counts it, is that count (the placeholder is t image tokens, nothing else);
  items per batch: ``encoder_budget.items_per_batch`` (a 0.10.2 log prints 5 items for t 2,928 and a 16,384-token
  budget).
* The dummy pixels: the HF processor's float32 output cast to the model dtype (``call_hf_processor``), moved to
  the GPU by ``_get_mm_dummy_batch``: items × crops × 3 × s² × a, kept by the V1 runner through the text run.
* The CLIP tower (``vision_feature_layer`` L, an int: only the layers up to it are built,
  ``_get_num_hidden_layers``; no post-norm, ``require_post_norm=False``; N = items × crops × (g² + 1) tokens,
  d the tower width, i its MLP width, tp ranks; ``QKVParallelLinear`` / ``ColumnParallelLinear`` shard qkv and
  fc1):

    held       N·d·a  ``pre_layrnorm``'s output stays referenced by ``CLIPEncoder.forward``'s
                      ``hidden_states_pool`` and the transformer's local through every layer (+ the pixels)
    MLP        N·(3d + k·i/tp)·a  the layer input (the caller's loop variable), the post-attention residual,
                      ``layer_norm2``'s output; fc1 and QuickGELU's native ``x * sigmoid(1.702x)`` (k = 3: the
                      input, the scaled copy and the sigmoid, then the sigmoid and the product) — vLLM's custom
                      ops are off under V1's default Inductor mode; ``--enforce-eager`` runs the CUDA kernel and
                      any other activation has one output (k = 2)
    attention  N·(3d + 4d/tp)·a  the input and ``layer_norm1``'s output, qkv (q, k, v are ``chunk`` views, passed
                      to the kernel as views: xFormers in 0.10.2, FlashAttention varlen in 0.11.0 — flattening
                      the batch and sequence dims of these views copies nothing), the kernel's output and the
                      projection; below the MLP whenever k·i > 4d (12,288 > 4,096 for the released tower)

    tower peak = pixels + held + max(MLP, attention)  (a one-layer tower's input is the held embeddings: 2d)
  The patch embedding (the conv output, the class-token ``cat`` and the position sum: 3 × N·d) is below it.
* The projector (``LlavaMultiModalProjector``: ``linear_1`` column-parallel d → H, the activation, ``linear_2``
  row-parallel; H the text hidden size; N' = items × crops × selected tokens): the tower's output N·d stays
  referenced while ``linear_1`` reads the ``[:, 1:]`` slice (not viewable as 2-D, so F.linear copies it,
  N'·d); peak pixels + N·d·a + N'·max(d + H/tp, 2H/tp, H/tp + H)·a.
* LLaVA-NeXT's merge (``_merge_image_patch_embeddings``, ``spatial_unpad``), per image: the permuted grid made
  contiguous (nh·nw·g²·H), ``unpad_image`` (a view) and the ``cat`` with the newline column ((t − g²)·H), then
  the ``cat`` with the base crop (t·H); the projector output (N'·H) stays referenced by
  ``_process_image_input``'s local.  At the last image: pixels + N'·H·a + items·t·H·a + (t − g²)·H·a.
* Kept for the text dummy run: the outputs, items × t × H × a (LLaVA-1.5: views of the projector output;
  LLaVA-NeXT: one merged tensor per image), and the V1 runner's dummy pixels (Model Runner V2, which profiles
  the encoder from 0.27.0 and is the default for these dense models from 0.25.0, frees its batch inside
  ``execute_mm_encoder``; ``engines/vllm/encoder.py`` charges no term for V2 before 0.27.0).  0.11.x's
  ``profile_run`` (the 0.11.0 and 0.11.2 wheels; 0.11.1 not read, its neighbours agree) widens each output with
  fewer rows than the encoder budget into a (budget, H) zero tensor: + items × budget × H × a, and its loop
  variable keeps the last original output (LLaVA-1.5: a view of the whole projector output, so all of it;
  LLaVA-NeXT: one image's t·H); the widening loop's end (all originals and all copies) joins the encoder peak.
  0.10.2 widens nothing; 0.12.x widens an output with fewer rows than t (never here: the rows are t); 0.13.0 on
  store each output as it is.

    encoder peak = max(tower, projector, merge, widening)

Check (helper q2n, 2026-12-04): ``tests/engines/test_vllm_encoder_llava_gpu.py``'s plain-torch replay of that op
order (random bf16 weights, FlashAttention varlen, two CLIP layers, the projector and the merge) for vl_031's
5-item dummy batch, run as the same ops in one script on one H200 (torch 2.11): peak 489,612,800 B and
136,865,280 B kept, both equal to this estimate.  An accounting check of the live set as read, not of vLLM.

Not modelled (the plan keeps the warning): other releases (0.10.1 and before: another budget API and attention
layer; 0.30.0 and later change ``llava.py``, ``llava_next.py`` and, in 0.31.0, ``clip.py`` and ``vision.py`` —
not read); non-CLIP towers (SigLIP, Pixtral-HF); a list of feature layers
(every selected layer's hidden states stay in the pool); ``full`` selection for LLaVA-NeXT; the
``mm_encoder_tp_mode="data"`` path.
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

__all__ = ["LLAVA_WRAPPERS", "LLAVA_FROM", "LLAVA_TO", "LlavaDummy", "llava_dummy", "llava_not_modelled",
           "llava_profile", "select_best_resolution"]

LLAVA_WRAPPERS = frozenset({"llava", "llava_next"})
LLAVA_FROM, LLAVA_TO = (0, 10, 2), (0, 29, 0)
"""the releases whose LLaVA / LLaVA-NeXT profile was read (module docstring)"""
_WIDEN_TO_BUDGET, _WIDEN_TO_T = (0, 11, 0), (0, 12, 0)
"""0.11.x's ``profile_run`` widens each output with fewer rows than the encoder budget; 0.12.x only those with
fewer rows than t, which LLaVA's are not (module docstring)"""
_CLIP_TOWERS = frozenset({"clip_vision_model"})


def _layers(model: ModelSpec) -> int | None:
    """CLIP layers vLLM builds (``_get_num_hidden_layers``), None for a list of feature layers."""
    vc = model.extra["vision_config"]
    total = int(vc.get("num_hidden_layers", 24))
    layer = model.extra.get("vision_feature_layer", -2)
    if isinstance(layer, bool) or not isinstance(layer, int):
        return None
    return total + layer + 1 if layer < 0 else layer


def _strategy(model: ModelSpec) -> str:
    return str(model.extra.get("vision_feature_select_strategy") or "default")


def llava_not_modelled(model: ModelSpec, *, release: tuple[int, int, int]) -> str:
    """Why the LLaVA / LLaVA-NeXT encoder profile is not modelled for ``release`` ("" when it is)."""
    wrapper = model.extra.get("wrapper_model_type")
    vc = model.extra.get("vision_config")
    if not isinstance(vc, dict):
        return f"the {wrapper} encoder's dummy batch is not modelled (no vision_config)"
    tower = vc.get("model_type") or "clip_vision_model"  # LlavaConfig's default tower
    if tower not in _CLIP_TOWERS:
        return f"the {wrapper} encoder's dummy batch is modelled for a CLIP tower only (this one is {tower})"
    if not LLAVA_FROM <= release <= LLAVA_TO:
        return (f"the {wrapper} tower's dummy batch and live set are read for vLLM 0.10.2–0.29.0 only (0.10.1 and "
                "before, and 0.30 and later, were not read for this tower)")
    layers = _layers(model)
    if layers is None or layers < 1:
        return f"the {wrapper} encoder with several vision feature layers is not modelled"
    strategy = _strategy(model)
    if strategy not in ("default", "full") or (wrapper == "llava_next" and strategy != "default"):
        return f"the {wrapper} encoder with vision_feature_select_strategy {strategy!r} is not modelled"
    if wrapper == "llava_next" and not model.extra.get("image_grid_pinpoints"):
        return "the llava_next encoder's dummy batch is not modelled (no image_grid_pinpoints)"
    return ""


def select_best_resolution(size: tuple[int, int], pinpoints: list[tuple[int, int]]) -> tuple[int, int]:
    """transformers' ``select_best_resolution``: the (height, width) pinpoint that keeps the most of a (height,
    width) image after an aspect-preserving resize, then wastes the least padding (the first on a tie)."""
    height, width = size
    best, most, least = pinpoints[0], 0, float("inf")
    for h, w in pinpoints:
        scale = min(w / width, h / height)
        effective = min(int(width * scale) * int(height * scale), width * height)
        wasted = w * h - effective
        if effective > most or (effective == most and wasted < least):
            best, most, least = (h, w), effective, wasted
    return best


def _unpadded(height: int, width: int, grid: int, rows: int, cols: int) -> tuple[int, int]:
    """``LlavaNextProcessingInfo._get_num_unpadded_features``: (unpadded features, newline features)."""
    current_h, current_w = grid * rows, grid * cols
    if width / height > current_w / current_h:
        new_h = int(round(height * (current_w / width), 7))
        current_h -= 2 * ((current_h - new_h) // 2)
    else:
        new_w = int(round(width * (current_h / height), 7))
        current_w -= 2 * ((current_w - new_w) // 2)
    return current_h * current_w, current_h


@dataclass(frozen=True, kw_only=True, slots=True)
class LlavaDummy:
    """The dummy image of vLLM's LLaVA / LLaVA-NeXT encoder profile (module docstring)."""

    tokens: int
    """t: the image's placeholder tokens, which are also the rows of its encoder output"""
    crops: int
    """s × s crops the HF processor makes of it (LLaVA-1.5: 1)"""
    base: int
    """selected tokens per crop (g², or g² + 1 with ``full``)"""


def llava_dummy(model: ModelSpec) -> LlavaDummy:
    """The dummy image of the LLaVA / LLaVA-NeXT encoder profile (module docstring)."""
    vc = model.extra["vision_config"]
    size, patch = int(vc.get("image_size", 336)), int(vc.get("patch_size", 14))
    grid = size // patch
    base = grid * grid + (1 if _strategy(model) == "full" else 0)
    if model.extra.get("wrapper_model_type") != "llava_next":
        return LlavaDummy(tokens=base, crops=1, base=base)
    pinpoints = [(int(h), int(w)) for h, w in model.extra["image_grid_pinpoints"]]
    best: LlavaDummy | None = None
    for h, w in pinpoints:
        bh, bw = select_best_resolution((h, w), pinpoints)
        rows, cols = bh // size, bw // size
        unpadded, newline = _unpadded(h, w, grid, rows, cols)
        tokens = base + unpadded + newline
        if best is None or tokens > best.tokens:
            best = LlavaDummy(tokens=tokens, crops=1 + rows * cols, base=base)
    assert best is not None
    return best


def llava_profile(model: ModelSpec, *, release: tuple[int, int, int], tp: int, items: int,
                  max_num_batched_tokens: int, act_bytes: int, v2_runner: bool,
                  enforce_eager: bool) -> tuple[Bytes, Bytes, str]:
    """(encoder peak, kept for the text run, formula) for ``items`` dummy images (module docstring)."""
    vc, wrapper = model.extra["vision_config"], model.extra.get("wrapper_model_type")
    dummy = llava_dummy(model)
    d, i = int(vc.get("hidden_size", 1024)), int(vc.get("intermediate_size", 4096))
    size, patch = int(vc.get("image_size", 336)), int(vc.get("patch_size", 14))
    grid = size // patch
    layers = _layers(model) or 1
    a, big_h = act_bytes, model.hidden_size
    crops = items * dummy.crops
    n = crops * (grid * grid + 1)  # CLIP tokens (the class token included)
    selected = crops * dummy.base
    pixels = crops * int(vc.get("num_channels", 3)) * size * size * a
    quick_gelu = str(vc.get("hidden_act", "quick_gelu")).lower() == "quick_gelu"
    k = 3 if quick_gelu and not enforce_eager else 2
    layer_input = d if layers > 1 else 0  # a one-layer tower's input is the held embeddings
    mlp = n * (layer_input + 2 * d + -(-k * i // tp)) * a
    attention = n * (layer_input + d + d + -(-4 * d // tp)) * a
    tower = pixels + n * d * a + max(mlp, attention)
    h_shard = -(-big_h // tp)
    projector = pixels + n * d * a + selected * max(d + h_shard, 2 * h_shard, h_shard + big_h) * a
    outputs = items * dummy.tokens * big_h * a
    merge = (pixels + selected * big_h * a + outputs + (dummy.tokens - dummy.base) * big_h * a
             if wrapper == "llava_next" else 0)
    budget = max(max_num_batched_tokens, dummy.tokens)
    widened = items * budget * big_h * a if _WIDEN_TO_BUDGET <= release < _WIDEN_TO_T and dummy.tokens < budget else 0
    if widened:
        # the loop variable keeps the last original output: LLaVA-1.5's views share the projector output
        originals = outputs if wrapper != "llava_next" else dummy.tokens * big_h * a
        widening = pixels + (selected * big_h * a if wrapper != "llava_next" else outputs) + widened
        kept = widened + originals + (0 if v2_runner else pixels)
    else:
        widening, kept = 0, outputs + (0 if v2_runner else pixels)
    peak = max(tower, projector, merge, widening)
    phase = ("tower MLP" if mlp >= attention else "tower attention") if peak == tower else (
        "projector" if peak == projector else "merge" if peak == merge else "widening")
    formula = (f"{items} image item(s) × {dummy.tokens:,} tokens ({dummy.crops} crop(s) of {size}² px, "
               f"{grid * grid + 1} CLIP tokens each, {layers} layers): peak at the {phase} "
               f"{gib_text(Bytes(peak))} (tower: pixels + embeddings + MLP N·(3d + {k}i/tp)·a, d {d}, i {i}); kept "
               f"for the text run {gib_text(Bytes(kept))} (outputs"
               f"{f' + widened to the {budget:,}-token budget' if widened else ''}"
               f"{'' if v2_runner else ' + dummy pixels'})")
    return Bytes(peak), Bytes(kept), formula
