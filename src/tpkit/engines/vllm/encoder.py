"""vLLM V1's multimodal encoder profile: the vision tower's peak on the dummy batch and the outputs it keeps.

Read in the vllm 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.1,
0.15.0, 0.15.1, 0.16.0, 0.17.0, 0.19.0, 0.20.0, 0.25.1 and 0.29.0
wheels.

What the profile does (``v1/worker/gpu_model_runner.py`` ``profile_run``; Model Runner V2: ``v1/worker/gpu/
model_runner.py`` ``profile_run`` → ``mm/encoder_runner.py`` ``profile_encoder_cache``): unless
``--skip-mm-profiling``, a multimodal model first runs its encoder (``embed_multimodal``) on a dummy batch of
``items`` copies of one maximum-size item of the modality with the most tokens per item, stores the outputs in the
encoder cache, and only then runs the text model's dummy forward and sampler.  vLLM's torch peak covers the whole
``profile_run`` (``determine_available_memory``), so the activation peak is

    max(encoder pass, outputs kept + text dummy run)

The outputs stay in ``encoder_cache`` until ``profile_run`` clears it after the text run.  The V1 runner also keeps
the dummy batch on the GPU: ``_get_mm_dummy_batch`` moves it there, and ``profile_run`` keeps it in a local until
it returns.  Model Runner V2 batches inside ``execute_mm_encoder``, so its GPU copy is freed with that call.

The dummy batch (how many items, and each family's maximum-size item, with their release boundaries) is
``engines.vllm.encoder_dummy``.  Release boundaries of the flags:
V1's ``profile_run`` runs the dummy encoder pass from 0.7.0 (the 0.7.0 wheel).  ``--skip-mm-profiling`` exists
from 0.10.1 (``engine/arg_utils.py``; not in 0.10.0).  ``--mm-encoder-tp-mode`` exists from 0.10.2, and its
default ``weights`` shards the tower as before; with ``data`` one rank runs a single dummy item whole, which is not
modelled.

* Other families are not modelled, and the plan keeps the warning:
  - Gemma 4 (0.25.1 ``gemma4_mm.py``): the dummy is a 32-frame video of 2,496 tokens.  It runs through
    transformers' tower in chunks sized from the GPU's free memory at that moment (``_encoder_chunk``), and its
    patch embedder's ``F.one_hot`` position tables dominate.  Both depend on the installed transformers and on
    the free memory, not on the config.
  - Qwen2-VL and Qwen2.5-VL outside 0.10.0–0.13.0 (below; 0.14 and later not read for this tower).
  - LLaVA, Mllama, Llama 4, Kimi: not read.

The Qwen3-VL tower's live set on one rank is read from ``qwen3_vl.py`` ``Qwen3_VisionTransformer.forward`` /
``Qwen3_VisionBlock`` and ``qwen2_5_vl.py`` ``Qwen2_5_VisionAttention`` (0.15.0–0.29.0; N patches, d width,
i MLP width, a activation bytes, tp ranks with ``mm_encoder_tp_mode="weights"``, the default):

    attention  N·(3d + 8d/tp)·a    the block input and its norm; qkv (3d), the contiguous q/k copy (2d), the
                                   rotated q/k (2d) and the attention output (d), all sharded; the all-reduced
                                   projection (d)
    MLP        N·(3d + 2i/tp)·a    the block input, held by the caller, the post-attention residual, the norm,
                                   fc1 and its activation (sharded)
    held       N·C·a + N·d·a + N·hd·a + D·(N/m²)·o·a
                                   the dummy pixel values (C = 3·t·p²), the interpolated position embeddings and
                                   the rotary cos/sin (hd = head dim) of the encoder metadata, and the D deepstack
                                   features (o = out_hidden_size)
    output     (N/m²)·o·(1 + D)·a  the embeddings kept in the encoder cache

    encoder peak = held + max(attention, MLP)

The vision attention itself (FlashAttention varlen, or SDPA per image) is linear in N and is not modelled past
its output.  The whole term is an estimate: it sits inside the activation line's ± band (``memory.band``).

Qwen2-VL / Qwen2.5-VL (``qwen2_vl``, ``qwen2_5_vl``; their configs are flat, with ``vision_config`` beside the text
fields and no ``text_config``, which ``models.config`` reads as multimodal), read in the 0.10.0, 0.10.1 and 0.10.2
wheels (``qwen2_vl.py``, ``qwen2_5_vl.py``, ``multimodal/registry.py``, ``multimodal/profiling.py``,
``v1/worker/gpu_model_runner.py``, ``model_executor/custom_op.py``, ``layers/activation.py``, ``layers/layernorm.py``):

* The dummy image and video: ``engines.vllm.encoder_dummy``.
* The live set (N patches, d the tower width, i its MLP width, hd = d / heads, a activation bytes, tp ranks).
  V1's default compilation (PIECEWISE with Inductor) leaves vLLM's custom ops off
  (``CustomOp.default_on``), so ``QuickGELU``, ``SiluAndMul`` and ``RMSNorm`` run ``forward_native`` in the tower;
  ``--enforce-eager`` (level 0) turns them on.

    attention  N·(2d + 7d/tp)·a + N·(d/tp)·8 + N·hd·4 (+ N·3d·a all-gathered when tp > 1)
               the block input and its norm; qkv (3d) kept by ``forward``'s local; the contiguous q, k and v
               copies (3d); during k's rotation (flash-attn's Triton ``apply_rotary``) its fp32 copy and fp32
               output (8 B each) and the cast back (d), and the fp32 cos and sin of the rotary table
    MLP        Qwen2-VL   N·(3d + 3i/tp)·a native QuickGELU (x·sigmoid(1.702x): fc1 and two temporaries),
                          N·(3d + 2i/tp)·a with the CUDA kernel; the 3d is the block input held by the caller,
                          the post-attention residual and the LayerNorm output
               Qwen2.5-VL N·(4d + 4i/tp)·a 0.10.1–0.10.2 native: the input, the attention output, RMSNorm's new
                          residual and output; gate_up (2i), silu (i) and the product (i);
                          N·(3d + 3i/tp)·a with the CUDA ops (the fused add-norm works in place; gate_up, the
                          activation and the down projection);
                          N·(4d + 3i/tp)·a 0.10.0 (separate gate and up projections, nn.SiLU)
    held       N·C·a + the rotary table N·(hd/2)·4, twice for Qwen2.5-VL (``get_rope_by_thw``'s lru_cache
               keeps one on the GPU, ``torch.cat`` copies it)
    output     (N/m²)·o·a (o = hidden_size for Qwen2-VL, out_hidden_size for Qwen2.5-VL); the cached rotary
               table of Qwen2.5-VL stays allocated too

    encoder peak = held + max(attention, MLP)

  Qwen2.5-VL's window attention (``fullatt_block_indexes`` pick the full-attention blocks) changes only the
  varlen lengths; its window reorder (``hidden_states[window_index]``) and the merger's reverse index are
  transient N·d copies before and after the blocks, below the block peak.  The attention kernel (FlashAttention,
  xFormers or SDPA per item) is linear in N and not modelled past its output.
  0.11.0 (``qwen2_vl.py`` ``Qwen2VisionAttention.forward``, ``qwen2_5_vl.py`` ``Qwen2_5_VisionAttention.forward``;
  MLP, norms, patch embed and rotary table as in 0.10.2; no ``support_torch_compile`` on the tower) rotates q and
  k together: ``torch.cat([q, k])`` (2d/tp) goes through ``apply_rotary_pos_emb_vision`` (its fp32 copy and
  fp32 output, 2 × 2d/tp × 4 B, and the cast back, 2d/tp) while the contiguous q, k and v stay referenced:

    attention  N·(2d + 10d/tp)·a + N·(2d/tp)·8 + N·hd·4 (+ N·3d·a all-gathered when tp > 1, kept as for 0.10.2)

  ``qk_concat`` stays a local of ``forward`` through the attention kernel, but that point (9d/tp + the projection's
  d) is below the rotation.  0.11.0's ``profile_run`` also widens each cached output to (encoder_budget, o) when
  the item has fewer tokens than the budget (``new_zeros`` + ``copy_``); the loop variable ``output`` keeps the
  last split (a view of all items' outputs) through the text dummy forward, so kept gains items·budget·o·a.
  0.11.1–0.11.2 (the two wheels' ``qwen2_vl.py``, ``qwen2_5_vl.py``, ``attention/ops/vit_attn_wrappers.py``,
  ``layers/rotary_embedding/common.py``, ``layers/conv.py`` are identical): Qwen2.5-VL's ``qkv`` is a
  ``QKVParallelLinear`` whose output is rearranged as a view (b s three head hd); ``qk_reshaped`` (2d/tp) is the
  one copy, and it goes through ``apply_rotary_pos_emb_vision`` (``dispatch_rotary_emb_function`` → flash-attn's
  Triton ``apply_rotary_emb`` on CUDA; fp32 copy and output, cast back).  Qwen2-VL's ``split_qkv`` no longer
  all-gathers (only ``chunk`` and ``view``; read in both wheels, helper q3vl) and the contiguous copies are gone:
  ``torch.cat([q, k])`` (2d/tp) of the views.  Both:

    attention  max(N·(2d + 7d/tp)·a + N·(2d/tp)·8 + N·hd·4, N·(3d + 8d/tp)·a)

  The attention kernel (``vit_flash_attn_wrapper``, a custom op over views) adds the output (d/tp) and the
  projection (d) while qkv, q‖k and its cast copy stay referenced: the second term, which reaches the rotation
  only at tp ≥ 8 (ties it there for d = 1280), where the MLP is larger still for both released towers.
  The block, MLP (``MergedColumnParallelLinear`` gate_up, ``SiluAndMul``;
  QuickGELU), norms, rotary tables, window reorder and merger are as in 0.10.2 (``forward`` bodies compared);
  ``CustomOp.default_on`` still turns the custom ops off under Inductor (``custom_ops`` "none", ``vllm.py``).
  ``Conv3dLayer``'s unfold + ``F.linear`` patch embed copies the pixels once (N·C·a) before the blocks, below
  their peak.  ``support_torch_compile`` on the Qwen2.5-VL block, patch embed and merger is gated by
  ``compile_mm_encoder`` (``should_torch_compile_mm_vit``), default off: the plan assumes it off (compiled,
  Inductor would decide the live set, which is not modelled).  The dummy builders' ``mm_options`` overrides can
  only shrink the dummy; none is assumed.  ``profile_run`` widens kept outputs as in 0.11.0.
  0.12.0 (helper q3vl; the wheel's ``qwen2_vl.py``, ``qwen2_5_vl.py``, ``layers/rotary_embedding/__init__.py``
  ``get_rope``, ``base.py`` ``RotaryEmbeddingBase.__init__`` / ``get_cos_sin``, ``common.py``
  ``dispatch_rotary_emb_function``, ``vllm_flash_attn/ops/triton/rotary.py`` ``apply_rotary``,
  ``v1/worker/gpu_model_runner.py`` ``profile_run``; the dummy builders, ``multimodal/profiling.py``,
  ``custom_op.py``, ``layernorm.py`` and the MLP / block bodies unchanged from 0.11.2):

  - rotary tables: ``get_rope(head_dim, rotary_dim=hd/2, max_position=8192)`` builds ``cos_sin_cache`` at load in
    ``torch.get_default_dtype()`` (the model dtype; a buffer, not an activation).  ``rot_pos_emb`` indexes it once
    per tower call: cos and sin, N·(hd/2)·a each, referenced by the tower's locals through every block, so
    N·hd·a held.  Qwen2.5-VL's ``get_rope_by_thw`` is ``lru_cache``d: the window-ordered cos/sin of one grid stay
    on the GPU after the profile (all dummy items share one grid: one item's N·hd·a, held and kept), and
    ``torch.cat`` copies them per item (N·hd·a).  Before 0.12 the same structure held the fp32 angle table,
    N·(hd/2)·4, once per item (the cached copy likewise one item's).
  - rotation: ``apply_rotary_pos_emb_vision(t, cos, sin)`` passes the bf16 q‖k straight to flash-attn's Triton
    ``apply_rotary`` (it asserts x and cos share a dtype; ``empty_like`` output); ``type_as`` is then a no-op.
    No fp32 copy, no per-block cos/sin.  q/k/v handling as 0.11.2 (Qwen2.5-VL ``qk_reshaped``, Qwen2-VL
    ``torch.cat`` of views; neither all-gathers).  So the peak of the block's attention is after the kernel:

    attention  N·(3d + 8d/tp)·a   the input and its norm, qkv (3d), q‖k (2d), rotated q‖k (2d), the output (d),
                                  sharded; the all-reduced projection (d) — the Qwen3-VL attention's form
    MLP        as 0.10.2–0.11.2 (native ops under Inductor: ``custom_ops`` "none" when the mode is
               VLLM_COMPILE; ``--enforce-eager`` forces -O0 and "all"), which now beats the attention for both
               released towers at tp = 1
    held       N·C·a + N·hd·a (+ one item's N·hd·a cached, Qwen2.5-VL)
    output     items·t·o·a: ``profile_run`` now widens an output only when it has fewer rows than the modality's
               max tokens per item, which never holds here (the dummy is built from max_model_len, as in 0.11)

  0.13.0 (helper q3vl; the wheel's ``qwen2_vl.py``, ``qwen2_5_vl.py``, ``layers/rotary_embedding/common.py``
  ``ApplyRotaryEmb``, ``attention/layers/mm_encoder_attention.py`` ``MMEncoderAttention``,
  ``attention/ops/vit_attn_wrappers.py``, ``model_executor/custom_op.py``, ``distributed/utils.py``,
  ``multimodal/registry.py`` / ``profiling.py``, ``v1/worker/gpu_model_runner.py``):

  - the image: factorised (``engines.vllm.encoder_dummy``); the video frames, their cap (14) and the dummy built
    from max_model_len are unchanged.
  - the rotation: ``ApplyRotaryEmb(enforce_enable=True)`` is on whatever ``custom_ops`` says
    (``CustomOp._enforce_enable``); ``forward_cuda`` passes the bf16 tensor to flash-attn's ``apply_rotary_emb``
    (``enable_fp32_compute`` defaults off): as 0.12.0.  ``get_rope`` takes ``partial_rotary_factor`` 0.5 instead
    of ``rotary_dim``: the same hd/2 table, model dtype.
  - the attention: ``MMEncoderAttention.forward_cuda`` → ``vit_flash_attn_wrapper`` over views; the caller's
    ``rearrange(...).contiguous()`` copies nothing for one batch row.  Qwen2-VL's ``split_qkv`` all-gathers qkv
    again when tp > 1 and takes this rank's q, k, v as views of it (``split_tensor_along_last_dim`` without
    contiguous chunks), so + N·3d·a gathered, as before 0.11.1.
  - ``profile_run`` stores each output under its own key and widens nothing: kept as 0.12.0.

  From 0.14 the plan keeps the warning (not read for this tower).

  ``tests/engines/test_vllm_encoder_qwen2vl_gpu.py`` replays both towers' 0.10.2 op order in plain torch (GPU
  only).  Under a CPU tensor-storage lifetime tracker that replay gives this estimate to the byte for Qwen2-VL-2B
  and within 0.005 % for Qwen2.5-VL-7B (helper qvl, 2026-12-04): an accounting check, not a measurement of vLLM.
  vp_083 (Qwen2-VL-2B, 0.10.2) prints a 2.65 GiB peak activation against this 2.50 GiB.

Check of the Qwen3-VL term (MEASURED, helper mmp, 2026-12-04): a plain-torch replay of that op order and those
lifetimes, with random bf16 weights and FlashAttention varlen, was run on one H200 (torch 2.11):
``tests/engines/test_vllm_encoder_gpu.py``. For the 65,536-patch Qwen3-VL-30B-A3B dummy image it peaks at
2,224,030,208 B.  This estimate gives 2,224,029,696 B.  The replay checks the accounting of the live set as read, not
vLLM itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.engines.vllm.encoder_dummy import (QWEN2_VL_0_11, QWEN2_VL_0_13, QWEN2_VL_PROCESSOR, QWEN3_VL_FACTORISED,
                                              QWEN3_VL_PROCESSOR, items_per_batch, qwen2_vl_dummy, qwen3_vl_dummy)
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

__all__ = ["EncoderProfile", "encoder_profile", "not_modelled"]

_QWEN3_VL_WRAPPERS = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
_QWEN2_VL_WRAPPERS = frozenset({"qwen2_vl", "qwen2_5_vl"})
_QWEN2_VL_FROM, _QWEN2_VL_TO = (0, 10, 0), (0, 13, 0)
"""the releases whose Qwen2-VL / Qwen2.5-VL tower code was read (module docstring)"""
_QWEN2_VL_0_11_1 = (0, 11, 1)
"""0.11.1: q/k/v are views of qkv (no contiguous copies); Qwen2.5-VL's qkv is a QKVParallelLinear (no all-gather)"""
_QWEN2_VL_0_12 = (0, 12, 0)
"""0.12.0: q‖k rotated in the activation dtype with cos/sin tables of the model dtype taken once per tower from
``get_rope``'s cache; no output is widened (module docstring)"""
_QWEN25_FUSED_MLP = (0, 10, 1)  # merged gate_up and the fused add-norm block from 0.10.1
_QWEN3_VL_FROM = (0, 11, 0)
"""vLLM's first release with Qwen3-VL; its dummy batch and tower were read from there (module docstring)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class EncoderProfile:
    """The encoder step of vLLM's profile run, bytes per rank."""

    peak: Bytes
    """torch bytes alive at the encoder pass's peak (its held inputs, the worst block, the deepstack features)"""
    kept: Bytes
    """bytes still allocated during the text dummy run (encoder outputs; the V1 runner's dummy batch too)"""
    items: int
    modality: str
    tokens_per_item: int
    formula: str



def not_modelled(model: ModelSpec, *, release: tuple[int, int, int], engine: str) -> str:
    """Why the encoder step of ``model``'s profile run is not modelled for this release ("" when it is)."""
    wrapper = model.extra.get("wrapper_model_type")
    if engine != "V1":
        return "the V0 engine's encoder profile is not modelled"
    if wrapper in _QWEN2_VL_WRAPPERS and isinstance(model.extra.get("vision_config"), dict):
        if _QWEN2_VL_FROM <= release <= _QWEN2_VL_TO:
            return ""
        return (f"the {wrapper} tower's dummy batch and live set are read for vLLM 0.10.0–0.13.0 only (0.14 and "
                "later were not read for this tower)")
    if wrapper not in _QWEN3_VL_WRAPPERS or not isinstance(model.extra.get("vision_config"), dict):
        return f"the {wrapper or model.model_type} encoder's dummy batch is not modelled"
    if release < _QWEN3_VL_FROM:
        return "vLLM has no Qwen3-VL before 0.11.0"
    return ""


def _attention_0_11(release: tuple[int, int, int], *, n: int, d: int, shard: int, hd: int,
                    a: int) -> tuple[int, str]:
    """Peak bytes of vLLM 0.11.x's ``Qwen2_5_VisionAttention`` (Qwen2-VL's attention too) on ``n`` patches, without
    0.11.0's tp > 1 all-gather (module docstring), and how it was counted."""
    if release >= _QWEN2_VL_0_11_1:  # q‖k copied once from the qkv views, rotated in fp32, cast back
        projection = n * (3 * d + 8 * shard) * a
        return (max(n * (2 * d + 7 * shard) * a + n * 2 * shard * 8 + n * hd * 4, projection),
                "N·(2d + 7d/tp)·a + fp32 rotation of q‖k")
    # 0.11.0: q and k rotated together: the concat, its fp32 copy/output and cast
    return n * (2 * d + 10 * shard) * a + n * 2 * shard * 8 + n * hd * 4, "N·(2d + 10d/tp)·a + fp32 rotation of q‖k"


def _qwen2_vl_profile(model: ModelSpec, *, release: tuple[int, int, int], tp: int, max_num_batched_tokens: int,
                      max_num_seqs: int, max_model_len: int, act_bytes: int, v2_runner: bool,
                      enforce_eager: bool) -> tuple[EncoderProfile | None, str]:
    """The Qwen2-VL / Qwen2.5-VL encoder step, vLLM 0.10.0–0.13.0 (module docstring)."""
    vc, wrapper = model.extra["vision_config"], model.extra.get("wrapper_model_type")
    dummy = qwen2_vl_dummy(vc, release=release, max_model_len=max_model_len,
                           max_num_batched_tokens=max_num_batched_tokens)
    items = items_per_batch(release, dummy.tokens, max_num_batched_tokens=max_num_batched_tokens,
                            max_num_seqs=max_num_seqs, max_model_len=max_model_len)
    if items is None:
        return None, "the encoder budget is read only from vLLM 0.10.0"
    heads = int(vc.get("num_heads") or vc.get("num_attention_heads") or 16)
    p = int(vc.get("patch_size") or vc.get("spatial_patch_size") or 14)
    temporal = int(vc.get("temporal_patch_size", 2))
    channels = int(vc.get("in_chans") or vc.get("in_channels") or 3) * temporal * p * p
    if wrapper == "qwen2_vl":
        d = int(vc.get("embed_dim") or vc["hidden_size"])
        i = int(d * float(vc.get("mlp_ratio", 4)))
        out = int(vc.get("hidden_size") or model.hidden_size)
        mlp_width = (3 * d, (2 if enforce_eager else 3) * i)
        cached = 0
        mlp_how = "QuickGELU " + ("CUDA kernel" if enforce_eager else "native")
    else:
        d, i = int(vc["hidden_size"]), int(vc["intermediate_size"])
        out = int(vc.get("out_hidden_size") or model.hidden_size)
        if release < _QWEN25_FUSED_MLP:
            mlp_width, mlp_how = (4 * d, 3 * i), "gate, up, nn.SiLU"
        elif enforce_eager:
            mlp_width, mlp_how = (3 * d, 3 * i), "SiluAndMul / fused add-norm CUDA ops"
        else:
            mlp_width, mlp_how = (4 * d, 4 * i), "SiluAndMul / RMSNorm native"
        cached = 1
    hd = d // heads
    n, a = items * dummy.patches, act_bytes
    shard = -(-d // tp)
    # split_qkv's all-gather: both towers before 0.11.1; none in 0.11.1–0.12.0; Qwen2-VL again from 0.13.0
    gathered = tp > 1 and (release < _QWEN2_VL_0_11_1 or (release >= QWEN2_VL_0_13 and wrapper == "qwen2_vl"))
    # after the kernel: the input and its norm, qkv, the q‖k copy and its rotated (cast) copy, the attention
    # output (sharded) and the all-reduced projection (d) — 0.11.1 and later
    projection = n * (3 * d + 8 * shard) * a
    if release >= _QWEN2_VL_0_12:  # q‖k copied once, rotated in the activation dtype (no fp32 copy, no cast)
        attention = max(n * (2 * d + 7 * shard) * a, projection)
        rot_how = "N·(3d + 8d/tp)·a, q‖k rotated in the activation dtype"
    elif release >= QWEN2_VL_0_11:
        attention, rot_how = _attention_0_11(release, n=n, d=d, shard=shard, hd=hd, a=a)
    else:
        attention = n * (2 * d + 7 * shard) * a + n * shard * 8 + n * hd * 4
        rot_how = "N·(2d + 7d/tp)·a + fp32 rotation of k"
    attention += n * 3 * d * a if gathered else 0
    mlp = n * (mlp_width[0] + -(-mlp_width[1] // tp)) * a
    pixels = n * channels * a
    if release >= _QWEN2_VL_0_12:  # cos and sin, hd/2 wide each, in the model dtype (``get_rope`` cache)
        rotary, table = n * hd * a, dummy.patches * hd * a
    else:  # the fp32 angle table, hd/2 wide
        rotary, table = n * (hd // 2) * 4, dummy.patches * (hd // 2) * 4
    # Qwen2.5-VL: ``get_rope_by_thw``'s lru_cache keeps one item's table (all dummy items share the grid) and
    # ``torch.cat`` copies it per item
    held = pixels + rotary + cached * table
    output = items * dummy.encoded_tokens * out * a
    budget = max(max_num_batched_tokens, dummy.tokens)
    widened = QWEN2_VL_0_11 <= release < _QWEN2_VL_0_12 and dummy.encoded_tokens < budget
    if widened:  # each output copied into a (budget, o) buffer; the loop variable keeps the split's storage
        output += items * budget * out * a
    kept = output + cached * table + (0 if v2_runner else pixels)
    phase = "attention" if attention >= mlp else "MLP"
    video = (f", {dummy.encoded_tokens:,} tokens encoded (the dummy video's frames follow "
             f"{'max_num_batched_tokens' if dummy.encoded_tokens != dummy.tokens else 'max_model_len'})"
             if dummy.modality == "video" else "")
    formula = (f"{items} {dummy.modality} item(s) × {dummy.tokens:,} tokens{video} ({dummy.patches:,} patches of "
               f"{p}×{p}; max_pixels {QWEN2_VL_PROCESSOR['max_pixels']:,}): held {held / 2**30:.2f} GiB (pixels, "
               f"rotary) + block {phase} {max(attention, mlp) / 2**30:.2f} GiB (attention {rot_how} vs MLP "
               f"{mlp_how}, d {d}, i {i}); kept for the text run {kept / 2**30:.2f} GiB (outputs"
               f"{f' widened to the {budget:,}-token budget' if widened else ''}"
               f"{'' if v2_runner else ' + dummy pixels'})")
    return EncoderProfile(peak=Bytes(held + max(attention, mlp)), kept=Bytes(kept), items=items,
                          modality=dummy.modality, tokens_per_item=dummy.tokens, formula=formula), ""


def encoder_profile(model: ModelSpec, *, release: tuple[int, int, int], engine: str, tp: int,
                    max_num_batched_tokens: int, max_num_seqs: int, max_model_len: int, act_bytes: int,
                    v2_runner: bool, enforce_eager: bool = False) -> tuple[EncoderProfile | None, str]:
    """The encoder step of the profile run, or (None, why it is not modelled).  ``enforce_eager`` turns vLLM's
    custom ops on (Qwen2-VL / Qwen2.5-VL towers; module docstring)."""
    why = not_modelled(model, release=release, engine=engine)
    if why:
        return None, why
    if model.extra.get("wrapper_model_type") in _QWEN2_VL_WRAPPERS:
        return _qwen2_vl_profile(model, release=release, tp=tp, max_num_batched_tokens=max_num_batched_tokens,
                                 max_num_seqs=max_num_seqs, max_model_len=max_model_len, act_bytes=act_bytes,
                                 v2_runner=v2_runner, enforce_eager=enforce_eager)
    vc = model.extra["vision_config"]
    dummy = qwen3_vl_dummy(vc, release=release, max_model_len=max_model_len)
    modality, tokens, patches = dummy.modality, dummy.tokens, dummy.patches
    items = items_per_batch(release, tokens, max_num_batched_tokens=max_num_batched_tokens,
                            max_num_seqs=max_num_seqs, max_model_len=max_model_len)
    if items is None:
        return None, "the encoder budget is read only from vLLM 0.10.0"
    d, i = int(vc["hidden_size"]), int(vc["intermediate_size"])
    heads = int(vc.get("num_heads") or vc.get("num_attention_heads") or 16)
    out = int(vc.get("out_hidden_size") or model.hidden_size)
    p, m, t = vc.get("patch_size", 16), vc.get("spatial_merge_size", 2), vc.get("temporal_patch_size", 2)
    channels = int(vc.get("in_channels") or vc.get("in_chans") or 3) * t * p * p
    deep = len(vc.get("deepstack_visual_indexes") or [])
    n, a = items * patches, act_bytes
    merged = n // (m * m)
    hd = d // heads
    if release >= _QWEN2_VL_0_12:  # cos and sin of ``get_rope``'s cache, hd/2 wide each, in the model dtype
        attention, rot_how = n * (3 * d + -(-8 * d // tp)) * a, "N·(3d + 8d/tp)·a"
        rotary = n * hd * a
    else:  # 0.11.x: Qwen2_5_VisionAttention's 0.11 forms (+ 0.11.0's all-gather); the fp32 angle table
        attention, rot_how = _attention_0_11(release, n=n, d=d, shard=-(-d // tp), hd=hd, a=a)
        attention += n * 3 * d * a if tp > 1 and release < _QWEN2_VL_0_11_1 else 0
        rotary = n * (hd // 2) * 4
    mlp = n * (3 * d + -(-2 * i // tp)) * a
    pixels = n * channels * a
    held = pixels + n * d * a + rotary + deep * merged * out * a
    output = merged * out * (1 + deep) * a
    # each output with fewer rows than the budget (0.11.x) / than t (0.12.x) copied into a zero tensor that wide
    rows = max(max_num_batched_tokens, tokens) if release < _QWEN2_VL_0_12 else tokens
    widened = items * rows * out * (1 + deep) * a if release < QWEN3_VL_FACTORISED and dummy.merged < rows else 0
    kept = output + widened + (0 if v2_runner else pixels)
    phase = "attention" if attention >= mlp else "MLP"
    shape = (f"{dummy.merged:,} merged tokens counted as {tokens:,} (12.5 text tokens each)"
             if dummy.merged != tokens else f"{tokens:,} tokens")
    formula = (f"{items} {modality} item(s) × {shape} ({patches:,} patches of {p}×{p}; "
               f"max_pixels {QWEN3_VL_PROCESSOR[modality + '_longest_edge']:,}): held {held / 2**30:.2f} GiB "
               f"(pixels, position embeddings, rotary, {deep} deepstack) + block {phase} "
               f"{max(attention, mlp) / 2**30:.2f} GiB (attention {rot_how} vs MLP N·(3d + 2i/tp)·a, d {d}, i {i}); "
               f"kept for the text run {kept / 2**30:.2f} GiB (outputs"
               f"{f' + {widened / 2**30:.2f} GiB widened to {rows:,} rows' if widened else ''}"
               f"{'' if v2_runner else ' + dummy pixels'})")
    return EncoderProfile(peak=Bytes(held + max(attention, mlp)), kept=Bytes(kept), items=items, modality=modality,
                          tokens_per_item=tokens, formula=formula), ""
