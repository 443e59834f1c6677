"""vLLM V1's encoder profile for Qwen2-VL / Qwen2.5-VL: the towers' live set on the dummy batch, per release.

The dummy item is ``encoder_qwen2vl_dummy``; the profile that puts the two together (items per batch, outputs, what
the runner keeps) is ``encoder_qwen2vl``.  Read in the 0.10.0, 0.10.1 and 0.10.2 wheels (``qwen2_vl.py``,
``qwen2_5_vl.py``, ``model_executor/custom_op.py``, ``layers/activation.py``, ``layers/layernorm.py``), then per
release below (each release's paragraph names all the files read for it, the dummy's and the runner's too):

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
               keeps one on the GPU, ``torch.cat`` copies it); + N·C·a more in 0.9.0–0.10.2, the models' copy
               of the runner's batched pixels (``encoder_qwen2vl_pixels``, helper vl14)

    encoder peak = held + max(attention, MLP)   (the outputs and what is kept: ``encoder_qwen2vl``)

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
  d) is below the rotation.  (0.11.0's ``profile_run`` widens the kept outputs: ``encoder_qwen2vl``.)
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
  Inductor would decide the live set, which is not modelled).  The dummy and ``profile_run``: as
  0.11.0 (``encoder_qwen2vl_dummy``, ``encoder_qwen2vl``).
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
                                  (+ N·d·a at tp > 1 in every form with this projection term, 0.11.1 on:
                                  ``reduced_copy_bytes``, helper pcie15)
    MLP        as 0.10.2–0.11.2 (native ops under Inductor: ``custom_ops`` "none" when the mode is
               VLLM_COMPILE; ``--enforce-eager`` forces -O0 and "all"), which now beats the attention for both
               released towers at tp = 1
    held       N·C·a + N·hd·a (+ one item's N·hd·a cached, Qwen2.5-VL)

  0.13.0 (helper q3vl; the wheel's ``qwen2_vl.py``, ``qwen2_5_vl.py``, ``layers/rotary_embedding/common.py``
  ``ApplyRotaryEmb``, ``attention/layers/mm_encoder_attention.py`` ``MMEncoderAttention``,
  ``attention/ops/vit_attn_wrappers.py``, ``model_executor/custom_op.py``, ``distributed/utils.py``,
  ``multimodal/registry.py`` / ``profiling.py``, ``v1/worker/gpu_model_runner.py``):
  - the image: ``encoder_qwen2vl_dummy``.
  - the rotation: ``ApplyRotaryEmb(enforce_enable=True)`` is on whatever ``custom_ops`` says
    (``CustomOp._enforce_enable``); ``forward_cuda`` passes the bf16 tensor to flash-attn's ``apply_rotary_emb``
    (``enable_fp32_compute`` defaults off): as 0.12.0.  ``get_rope`` takes ``partial_rotary_factor`` 0.5 instead
    of ``rotary_dim``: the same hd/2 table, model dtype.
  - the attention: ``MMEncoderAttention.forward_cuda`` → ``vit_flash_attn_wrapper`` over views; the caller's
    ``rearrange(...).contiguous()`` copies nothing for one batch row.  Qwen2-VL's ``split_qkv`` all-gathers qkv
    again when tp > 1 and takes this rank's q, k, v as views of it (``split_tensor_along_last_dim`` without
    contiguous chunks), so + N·3d·a gathered, as before 0.11.1.

  0.14.0–0.14.1 (helper q25; the 0.14.1 wheel's ``qwen2_vl.py``, ``qwen2_5_vl.py``, ``layers/attention/
  mm_encoder_attention.py``, ``v1/attention/ops/vit_attn_wrappers.py``, ``rotary_embedding/common.py``,
  ``custom_op.py``, ``activation.py``, ``layernorm.py``, ``multimodal/registry.py``, ``v1/worker/utils.py``,
  ``gpu_model_runner.py`` ``profile_run`` / ``_get_mm_dummy_batch``; the 0.14.0 wheel's model files and those
  helpers are byte-identical to 0.14.1's): as 0.13.0.  The towers only pass the softmax scale explicitly and gain
  LoRA token-count helpers (``get_num_mm_encoder_tokens``, used for LoRA mappings only); the attention wrappers
  moved package and take an optional ``cu_seqlens``; ``profile_run`` and the budget are unchanged.
  0.15.0–0.15.1 (helper q25; both wheels' ``qwen2_vl.py``, ``qwen2_5_vl.py``, ``custom_op.py``,
  ``rotary_embedding/common.py``, ``mm_encoder_attention.py``, ``distributed/utils.py``, ``layernorm.py`` are
  byte-identical; ``activation.py`` differs only by a new SwigluStep op; ``profile_run`` unchanged):
  - Qwen2.5-VL's attention copies q‖k explicitly (``qk_reshaped.contiguous()``), the copy counted above since
    0.11.1.  (Before 0.15 the ``einops.rearrange`` of the qkv view is itself a view for one batch row, so the
    0.12–0.14 attention term of this tower counts N·2d/tp·a that vLLM did not allocate; it does not set the peak
    for the released towers, whose MLP is larger.)
  - ``CustomOp`` gains ``compile_native``: a disabled op's ``forward_native`` is wrapped in ``torch.compile``
    (``maybe_compile``; not under -O0 / the eager backend).  ``SiluAndMul`` defaults it on, so under V1's default
    Inductor mode (``custom_ops`` "none") the Qwen2.5-VL MLP's silu(gate)·up is one fused output, no silu
    temporary: N·(4d + 3i/tp)·a (was 4d + 4i/tp).  ``--enforce-eager`` keeps the CUDA ops (3d + 3i/tp).
    QuickGELU and RMSNorm keep their eager native forward (no ``compile_native``), so Qwen2-VL is unchanged.

  0.16.0–0.20.2 (helper q25; the 0.16.0, 0.17.0, 0.18.0, 0.19.0 and 0.20.0 wheels' files named above, plus
  ``multimodal/encoder_budget.py`` ``MultiModalBudget``, ``compilation/decorators.py``, ``ir/ops/layernorm.py``;
  the 0.17.1, 0.18.1, 0.19.1, 0.20.1 and 0.20.2 wheels differ from their x.y.0 in none of those files'
  Qwen2-VL paths): the 0.15 rule.
  - the dummy and the tie between modalities: ``encoder_qwen2vl_dummy``.
  - the towers: only a ``prefix`` for the attention layer, a FlashInfer / Triton ViT attention backend
    (opt-in; FLASH_ATTN stays the CUDA default) and, for Qwen2.5-VL, ``support_torch_compile`` gated by
    ``should_torch_compile_mm_encoder`` (``compile_mm_encoder``, still default off).
  - ``SiluAndMul``'s ``compile_native`` stays on (0.17.0 adds optional dynamic-dim marking); RMSNorm with a
    residual keeps 0.15's native body; without one it runs the new ``ir.ops.rms_norm`` (0.20.0; the blocks'
    first norm and the merger's, not at the peak).  ``Conv3dLayer`` uses the unfold + linear patch embed for
    every torch ≥ 2.9 (0.19.0), before the blocks as before.  ``profile_run`` and ``_get_mm_dummy_batch``
    change only in logging and helper names.

  0.21.0–0.22.1 (helper q25; the 0.21.0 and 0.22.0 wheels' files named above plus ``ir/op.py``,
  ``ir/ops/layernorm.py``, ``kernels/vllm_c.py``, ``config/kernel.py``, ``forward_context.py``,
  ``platforms/cuda.py`` ``get_default_ir_op_priority``, ``v1/worker/worker_base.py``; 0.22.1 differs from 0.22.0
  in none of them): the 0.15 rule, except Qwen2.5-VL under ``--enforce-eager`` in 0.21.x.
  - the towers: ``prepare_encoder_metadata`` gathers the rotary cos/sin, window index and cu_seqlens that
    ``forward`` computed inline (same tensors, still referenced through the blocks), for the encoder CUDA graphs
    (``cudagraph_mm_encoder``, default off; ``profile_run`` runs the eager forward).  0.22.0 moves the position
    and window indices to the GPU before indexing (int64 transients of N·2·8 and N/m² B before the blocks).
    FP8 ViT attention (``mm_encoder_attn_dtype``) is opt-in.
  - RMSNorm: 0.21.0 sends the residual path through ``ir.ops.fused_add_rms_norm`` too.  Its priority is set by
    ``set_forward_context`` only, and ``profile_run`` calls ``embed_multimodal`` outside it, so the native,
    out-of-place implementation runs whatever the mode: under Inductor as before (4d), under ``--enforce-eager``
    no longer in place: Qwen2.5-VL's eager MLP is N·(4d + 3i/tp)·a in 0.21.x (was 3d + 3i/tp).  0.22.0
    installs the platform's priority at worker init (``set_default``): ``vllm_c`` (in place) first without
    Inductor, ``native`` with it, so 3d again under ``--enforce-eager``.

  0.23.0–0.26.0 (helper q25; the 0.23.0, 0.24.0, 0.25.0, 0.25.1 and 0.26.0 wheels' files named above): the 0.22
  rule.  The towers change only in weight loading (a stacked-parameter mapper), encoder-CUDA-graph helpers,
  pinned-memory flags and, for Qwen2.5-VL, ``compile_native`` passed off on ROCm only; ``get_rope`` /
  ``ApplyRotaryEmb`` (a ROCm grid-size fallback), ``SiluAndMul``, RMSNorm (weight passing), the IR priority
  defaults, ``compile_mm_encoder`` (off), the budget, the dummy and V1's ``profile_run`` are as 0.22.
  Model Runner V2 runs no encoder profile before 0.27.0 (``encoder_qwen2vl``).

  0.27.0–0.27.1 (helper q25; the 0.27.0 wheel's files named above, ``v1/worker/gpu/model_runner.py`` ``profile_run``,
  ``v1/worker/gpu/mm/encoder_runner.py`` ``profile_encoder_cache`` / ``execute_mm_encoder``,
  ``multimodal/encoder_budget.py`` ``get_dummy_encoder_profile_inputs``): the 0.22 rule on both runners.  V1's
  ``profile_run`` is unchanged; Model Runner V2 now profiles the encoder (``encoder_qwen2vl``); the dummy's frames
  are padded up (``encoder_qwen2vl_dummy``).  The towers, custom-op defaults, IR priorities and
  ``compile_mm_encoder`` (off) are as 0.26.0; the attention adds ROCm FP8 (opt-in).  0.27.1's copies
  of all these files are byte-identical to 0.27.0's.

  0.28.0–0.29.0 (helper q2n; the 0.28.0 and 0.29.0 wheels' ``qwen2_vl.py``, ``qwen2_5_vl.py``,
  ``models/vision.py`` ``FusedInputNorm``, ``config/model.py`` ``_resolve_mm_device_do_normalize``,
  ``config/multimodal.py`` ``merge_mm_processor_kwargs``, ``multimodal/processing/context.py``
  ``call_hf_processor`` / ``_postprocess_output``, ``multimodal/registry.py`` ``get_dummy_mm_inputs``,
  ``v1/worker/gpu_model_runner.py`` ``profile_run`` / ``_get_mm_dummy_batch`` (unchanged from 0.27.0),
  ``v1/worker/gpu/mm/encoder_runner.py``; transformers 5.5.3, the oldest 0.28.0 accepts,
  ``image_processing_backends.py`` ``TorchvisionBackend.rescale_and_normalize`` / ``process_image``):
  the pixels are normalised on the GPU.  ``mm_device_do_normalize`` (``--mm-device-do-normalize``, default on;
  both towers set ``supports_mm_device_do_normalize``) passes ``do_rescale=False, do_normalize=False`` to the
  HF processor, whose torchvision backend (vLLM asks for ``use_fast``) then returns the resized PIL pixels as
  they are: uint8, which ``_postprocess_output`` does not cast (only floating tensors go to the model dtype).
  ``_process_image_input`` / ``_process_video_input`` run ``FusedInputNorm`` (the processor config's mean,
  std and rescale factor, fp32 buffers) before the tower: an fp32 copy, the product and the sum (4 B each
  while the uint8 batch stays referenced: N·C·13 B at most) and the cast to the tower's dtype.  So

    held       N·C·(1 + a) (the uint8 batch, still referenced by the image-input dict and, on V1, the runner,
               and the normalised pixels the tower takes) + the rotary terms of 0.22–0.27
    encoder peak = max(held + max(attention, MLP), N·C·13)
    kept       (the V1 runner's dummy pixels, now uint8: ``encoder_qwen2vl``)

  Nothing else on the Qwen2-VL path changes: the dummy, the budget, the towers' blocks (``activation.py`` loses
  only ``ScaledActivation``; the attention wrappers gain sync guards), V1's ``profile_run``; V2's encoder runner
  gains encoder CUDA graphs, off unless ``cudagraph_mm_encoder``.  0.29.0 builds the rotary position ids on the
  GPU (int64 transients before the blocks) and keeps Qwen2.5-VL's per-grid rotary table in an ``LRUCache`` of
  1,024 entries instead of ``lru_cache`` (the same one table kept).  ``--no-mm-device-do-normalize`` (or
  ``VLLM_USE_RUST_FRONTEND``) restores the 0.27 pixels; the plan does not read that flag and assumes the default.

  0.30.0 (helper q2n; the wheel's ``qwen2_vl.py``, ``qwen2_5_vl.py``, ``vision.py``, ``activation.py``,
  ``layernorm.py``, ``rotary_embedding/common.py``, ``multimodal/registry.py`` / ``encoder_budget.py`` /
  ``processing/dummy_inputs.py`` / ``context.py``, ``custom_op.py``, the attention wrappers, ``conv.py``, V1's
  ``profile_run`` / ``_get_mm_dummy_batch`` and V2's ``encoder_runner.py`` compared with 0.29.0's):
  ``FusedInputNorm`` moves into the towers' ``forward`` (``Qwen2VisionTransformer`` / ``Qwen2_5_VisionTransformer``
  take it as ``input_norm``): the normalised pixels are a local that the patch embed's output replaces, so they
  are freed before the blocks and only the uint8 batch stays held: N·C·1 (the normalisation's N·C·13 B transient
  is unchanged).  The other changes are XPU paths (a fused input-norm kernel, Gemma RMSNorm), a new activation
  op, ``async_tensor_h2d`` copies of the index tensors, LoRA token helpers and dummy details
  (``encoder_qwen2vl_dummy``).  ``profile_run``, the budget, the attention, custom ops and conv are unchanged.

  0.31.0 (helper q2n; the wheel's files above compared with 0.30.0's, plus the new
  ``layers/fusion/mm_input_norm.py`` and ``multimodal/processing/processor.py`` ``get_dummy_mm_inputs``): the
  norm becomes ``build_mm_input_norm`` → ``FusedMMInputNorm``, a custom op.  Under V1's default Inductor mode
  (custom ops off) its ``forward_native`` multiplies the uint8 view by the fp32 weight (type promotion, no
  separate copy) and adds the bias: N·C·9 B at most; ``--enforce-eager`` runs its Triton kernel straight into
  the output, N·C·(1 + a).  Either stays below the blocks; held and kept are 0.30's.  ``get_hf_processor`` no
  longer passes ``use_fast``: transformers' default backend is torchvision where it is installed (5.5.3's
  ``_resolve_backend``; 0.31.0 requires transformers ≥ 5.10.4 and torchvision), and ``FusedMMInputNorm``
  documents its input as uint8 under ``mm_device_do_normalize``.  The budget and the dummy:
  ``encoder_qwen2vl_dummy``; V1's ``profile_run`` is unchanged.  The other changes are typing, docstrings, XPU /
  ROCm / CPU paths, batch-invariant RMSNorm (``VLLM_BATCH_INVARIANT``), CUDA-graph capture of the ViT attention
  and data-parallel sharding.

  From 0.32 not read for this tower: the plan warns (``encoder``).
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass

__all__ = ["QWEN2_VL_0_11_1", "QWEN2_VL_0_12", "Qwen2VLTower", "Qwen2VLLiveSet", "qwen2_vl_tower",
           "qwen2_vl_live_set", "attention_0_11", "reduced_copy_bytes", "qwen3_vl_mlp_bytes"]

_QWEN2_VL_0_11 = (0, 11, 0)
"""0.11.0: q and k are rotated concatenated (module docstring)"""
QWEN2_VL_0_11_1 = (0, 11, 1)
"""0.11.1: q/k/v are views of qkv (no contiguous copies); Qwen2.5-VL's qkv is a QKVParallelLinear (no all-gather)"""
QWEN2_VL_0_12 = (0, 12, 0)
"""0.12.0: q‖k rotated in the activation dtype with cos/sin tables of the model dtype taken once per tower from
``get_rope``'s cache (module docstring)"""
_QWEN2_VL_0_13 = (0, 13, 0)
"""0.13.0: Qwen2-VL's ``split_qkv`` all-gathers again when tp > 1 (module docstring)"""
_QWEN25_COMPILED_SILU = (0, 15, 0)
"""0.15.0: ``SiluAndMul`` (``compile_native=True``) runs its native forward through ``torch.compile`` when the custom
op is off, so the Qwen2.5-VL tower's gate·up product is one fused output (module docstring)"""
_QWEN25_IR_NORM_UNSET, _QWEN25_IR_NORM_DEFAULT = (0, 21, 0), (0, 22, 0)
"""0.21.0: RMSNorm with a residual dispatches ``ir.ops.fused_add_rms_norm``, whose priority only
``set_forward_context`` sets (the encoder profile runs outside it: native); 0.22.0 installs the priority at worker
init (``vllm_c``, in place, under -O0 / ``--enforce-eager``)"""
_QWEN2_VL_DEVICE_NORM = (0, 28, 0)
"""0.28.0: ``mm_device_do_normalize`` (default on): uint8 dummy pixels, normalised by ``FusedInputNorm`` on the GPU
before the tower (module docstring)"""
_QWEN2_VL_NORM_IN_TOWER = (0, 30, 0)
"""0.30.0: ``FusedInputNorm`` runs inside the tower's ``forward``, so the normalised pixels are freed after the
patch embed (module docstring)"""
_DEVICE_NORM_BYTES = 13
"""bytes per pixel element at ``FusedInputNorm``'s peak: the uint8 batch (1), its fp32 copy, the product and the
sum (4 each)"""
_QWEN2_VL_NORM_OP = (0, 31, 0)
"""0.31.0: ``FusedMMInputNorm`` (a custom op): native, the uint8 batch, the promoted product and the sum (9 B per
element); its Triton kernel under ``--enforce-eager``: the uint8 batch and the output (1 + a)"""
_QWEN25_FUSED_MLP = (0, 10, 1)  # merged gate_up and the fused add-norm block from 0.10.1


@dataclass(frozen=True, kw_only=True, slots=True)
class Qwen2VLTower:
    """One Qwen2-VL / Qwen2.5-VL vision tower's widths and the MLP form a release runs; ``d``, ``i``, ``hd`` and
    ``channels`` (C) as the module docstring names them, ``patch`` the patch side in pixels."""

    wrapper: str | None
    """``qwen2_vl`` or ``qwen2_5_vl`` (the config's model_type)"""
    d: int
    i: int
    out: int
    """o: the merger's output width (hidden_size for Qwen2-VL, out_hidden_size for Qwen2.5-VL)"""
    hd: int
    patch: int
    channels: int
    cached: int
    """1 where ``get_rope_by_thw``'s cache keeps one item's rotary table (Qwen2.5-VL), else 0"""
    mlp_width: tuple[int, int]
    """the MLP's live widths: (unsharded, sharded by tp), in elements per patch"""
    mlp_how: str
    """which MLP form, in words"""


def qwen2_vl_tower(model: ModelSpec, *, release: tuple[int, int, int], enforce_eager: bool) -> Qwen2VLTower:
    """The tower of ``model`` and the MLP form ``release`` runs, eager or not (module docstring: the MLP rows)."""
    vc, wrapper = model.extra["vision_config"], model.extra.get("wrapper_model_type")
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
        elif enforce_eager and _QWEN25_IR_NORM_UNSET <= release < _QWEN25_IR_NORM_DEFAULT:
            # the IR op's priority is set only inside set_forward_context: the encoder pass gets the native
            # (out-of-place) fused add-norm, while SiluAndMul runs its CUDA op
            mlp_width, mlp_how = (4 * d, 3 * i), "SiluAndMul CUDA op / fused add-norm native (IR op, no priority)"
        elif enforce_eager:
            mlp_width, mlp_how = (3 * d, 3 * i), "SiluAndMul / fused add-norm CUDA ops"
        elif release >= _QWEN25_COMPILED_SILU:  # silu(gate)·up fused by torch.compile: gate_up (2i) + output (i)
            mlp_width, mlp_how = (4 * d, 3 * i), "SiluAndMul native under torch.compile / RMSNorm native"
        else:
            mlp_width, mlp_how = (4 * d, 4 * i), "SiluAndMul / RMSNorm native"
        cached = 1
    return Qwen2VLTower(wrapper=wrapper, d=d, i=i, out=out, hd=d // heads, patch=p, channels=channels, cached=cached,
                        mlp_width=mlp_width, mlp_how=mlp_how)


def reduced_copy_bytes(*, n: int, d: int, act_bytes: int, tp: int) -> int:
    """The second (N, d) tensor alive at a row-parallel projection of the tower: the all-reduce's new output next to
    the partial sum, 0 at tp = 1 (helper pcie15, 2026-12-05).

    The encoder step of ``profile_run`` runs the tower eagerly (``compile_mm_encoder`` and ``cudagraph_mm_encoder`` are
    off by default), sharded over the TP group (``mm_encoder_tp_mode="weights"``, the default of
    ``config/multimodal.py``).  Its attention output projection (``proj``) and its MLP's second linear (``linear_fc2``)
    are ``RowParallelLinear``.  Read in the vllm 0.27.1 wheel, the same in 0.19.0, 0.31.0 and 0.33.0 (the lines named
    below also in the 0.13.0, 0.17.1 and 0.25.0 wheels; the all-reduce path in 0.10.0 and 0.29.0):

    * ``layers/linear.py`` ``RowParallelLinear.forward``: ``output_parallel`` is the GEMM's full-width (N, d) partial
      sum; with tp > 1 ``output = tensor_model_parallel_all_reduce(output_parallel)`` and the local keeps the partial
      until ``forward`` returns.
    * ``distributed/parallel_state.py`` ``GroupCoordinator.all_reduce`` (the ``vllm.all_reduce`` custom op, or the
      direct call): ``_all_reduce_out_place`` → ``CudaCommunicator.all_reduce``.  Every path returns a new tensor:
      ``PyNcclCommunicator.all_reduce`` allocates ``out_tensor = torch.empty_like(in_tensor)`` (the path of a
      (N, d) activation of tens of MiB, above the custom all-reduce's 8 MiB and symmetric memory's size limits, and
      the only path with ``--disable-custom-all-reduce`` or without peer access).  The docstring of
      ``GroupCoordinator.all_reduce`` says so: "we always make the all-reduce operation out-of-place".
    * ``qwen2_5_vl.py`` ``Qwen2_5_VisionAttention.forward`` (the Qwen3-VL / Qwen3.5 tower's attention too): qkv, the
      q‖k copy, its rotated copy and the attention output are locals of ``forward`` while ``self.proj`` runs.
    * ``qwen3_vl.py`` ``Qwen3_VisionMLP.forward``: ``self.linear_fc2(self.act_fn(self.linear_fc1(x)))``; the fc1
      output is freed once the activation returns, the activation (i/tp) lives through fc2.

    So at the projection the live set is the one tpkit already counts (the block input, its norm, the sharded
    attention tensors and the projection's output) plus one more N·d·a: the partial sum and the all-reduced output
    are both alive.  At tp = 1 there is no all-reduce (``RowParallelLinear`` returns the GEMM output).  The MLP's
    fc2 moment is N·(4d + i/tp)·a (the block input held by the caller, the post-attention residual, the norm, the
    activation, fc2's output) plus the same N·d·a at tp > 1; below fc1 + activation (3d + 2i/tp) at tp = 1, above it
    at tp > 1 when 2d > i/tp.

    Not modelled: the towers' merger (also row-parallel, on N/m² rows, below the blocks), the Qwen2-VL / Qwen2.5-VL MLP
    forms (``qwen2_vl_tower``'s widths: their down projection's moment was not re-read) and the releases whose attention
    term is the rotation moment (before 0.11.1), where the projection moment is not counted at all.
    """
    return n * d * act_bytes if tp > 1 else 0


def qwen3_vl_mlp_bytes(*, n: int, d: int, i: int, act_bytes: int, tp: int) -> int:
    """The Qwen3-VL / Qwen3.5 tower's MLP peak over the block's held set: fc1 and its activation
    (N·(3d + 2i/tp)·a) or fc2's moment (N·(4d + i/tp)·a plus the reduced copy at tp > 1, ``reduced_copy_bytes``),
    whichever is larger."""
    act = n * (3 * d + -(-2 * i // tp)) * act_bytes
    fc2 = n * (4 * d + -(-i // tp)) * act_bytes + reduced_copy_bytes(n=n, d=d, act_bytes=act_bytes, tp=tp)
    return max(act, fc2)


def attention_0_11(release: tuple[int, int, int], *, n: int, d: int, shard: int, hd: int,
                    a: int, reduced: int = 0) -> tuple[int, str]:
    """Peak bytes of vLLM 0.11.x's ``Qwen2_5_VisionAttention`` (Qwen2-VL's attention too) on ``n`` patches, without
    0.11.0's tp > 1 all-gather (module docstring), and how it was counted.  ``reduced``: the projection's
    out-of-place all-reduce output at tp > 1 (``reduced_copy_bytes``), added to the projection moment (0.11.1 on;
    0.11.0's term is the rotation moment)."""
    if release >= QWEN2_VL_0_11_1:  # q‖k copied once from the qkv views, rotated in fp32, cast back
        projection = n * (3 * d + 8 * shard) * a + reduced
        return (max(n * (2 * d + 7 * shard) * a + n * 2 * shard * 8 + n * hd * 4, projection),
                "N·(2d + 7d/tp)·a + fp32 rotation of q‖k")
    # 0.11.0: q and k rotated together: the concat, its fp32 copy/output and cast
    return n * (2 * d + 10 * shard) * a + n * 2 * shard * 8 + n * hd * 4, "N·(2d + 10d/tp)·a + fp32 rotation of q‖k"


@dataclass(frozen=True, kw_only=True, slots=True)
class Qwen2VLLiveSet:
    """The towers' live set on the dummy batch (module docstring); every ``*_bytes`` field is in bytes."""

    held_bytes: int
    """through every block: the pixels (uint8 and normalised where they stay), the rotary tables"""
    attention_bytes: int
    mlp_bytes: int
    """the attention's and the MLP's peaks above ``held_bytes``"""
    norm_peak_bytes: int
    """the on-GPU pixel normalisation's peak, before the blocks (0 before 0.28)"""
    pixels_bytes: int
    """the pixel batch the runner moved to the GPU (uint8 from 0.28)"""
    normalised_bytes: int
    """the normalised pixels held through the blocks (0.28–0.29; else 0)"""
    table_bytes: int
    """one item's rotary table (what ``get_rope_by_thw``'s cache keeps for Qwen2.5-VL)"""
    device_norm: bool
    """the pixels are normalised on the GPU (0.28 on)"""
    copied_bytes: int = 0
    """the model's copy of the batched pixels, held through the blocks (0.9.0–0.10.2; ``encoder_qwen2vl_pixels``)"""
    rot_how: str
    """how the attention was counted, in words"""

    @property
    def peak_bytes(self) -> int:
        """held + the larger block phase, or the normalisation's transient where larger"""
        return max(self.held_bytes + max(self.attention_bytes, self.mlp_bytes), self.norm_peak_bytes)


def qwen2_vl_live_set(tower: Qwen2VLTower, *, release: tuple[int, int, int], tp: int, n: int, patches: int,
                      act_bytes: int, enforce_eager: bool) -> Qwen2VLLiveSet:
    """The live set of ``tower`` on ``n`` patches (``patches`` per item) at ``tp`` ranks (module docstring)."""
    d, hd, channels, a = tower.d, tower.hd, tower.channels, act_bytes
    shard = -(-d // tp)
    # split_qkv's all-gather: both towers before 0.11.1; none in 0.11.1–0.12.0; Qwen2-VL again from 0.13.0
    gathered = tp > 1 and (release < QWEN2_VL_0_11_1 or (release >= _QWEN2_VL_0_13 and tower.wrapper == "qwen2_vl"))
    # after the kernel: the input and its norm, qkv, the q‖k copy and its rotated (cast) copy, the attention
    # output (sharded) and the all-reduced projection (d) — 0.11.1 and later
    # tp > 1: the projection's all-reduce returns a new (N, d) tensor next to the partial sum (reduced_copy_bytes)
    reduced = reduced_copy_bytes(n=n, d=d, act_bytes=a, tp=tp)
    projection = n * (3 * d + 8 * shard) * a + reduced
    if release >= QWEN2_VL_0_12:  # q‖k copied once, rotated in the activation dtype (no fp32 copy, no cast)
        attention = max(n * (2 * d + 7 * shard) * a, projection)
        rot_how = "N·(3d + 8d/tp)·a, q‖k rotated in the activation dtype"
    elif release >= _QWEN2_VL_0_11:
        attention, rot_how = attention_0_11(release, n=n, d=d, shard=shard, hd=hd, a=a, reduced=reduced)
    else:
        attention = n * (2 * d + 7 * shard) * a + n * shard * 8 + n * hd * 4
        rot_how = "N·(2d + 7d/tp)·a + fp32 rotation of k"
    attention += n * 3 * d * a if gathered else 0
    mlp = n * (tower.mlp_width[0] + -(-tower.mlp_width[1] // tp)) * a
    device_norm = release >= _QWEN2_VL_DEVICE_NORM
    pixels = n * channels * (1 if device_norm else a)  # the batch the runner moved to the GPU (uint8 from 0.28)
    # FusedInputNorm's output, held by the caller through the blocks in 0.28–0.29; a tower local freed after the
    # patch embed from 0.30
    normalised = n * channels * a if device_norm and release < _QWEN2_VL_NORM_IN_TOWER else 0
    if not device_norm:
        norm_peak = 0
    elif release >= _QWEN2_VL_NORM_OP:
        norm_peak = n * channels * ((1 + a) if enforce_eager else 9)
    else:
        norm_peak = n * channels * _DEVICE_NORM_BYTES
    if release >= QWEN2_VL_0_12:  # cos and sin, hd/2 wide each, in the model dtype (``get_rope`` cache)
        rotary, table = n * hd * a, patches * hd * a
    else:  # the fp32 angle table, hd/2 wide
        rotary, table = n * (hd // 2) * 4, patches * (hd // 2) * 4
    # Qwen2.5-VL: ``get_rope_by_thw``'s lru_cache keeps one item's table (all dummy items share the grid) and
    # ``torch.cat`` copies it per item
    # 0.9.0–0.10.2: the model's torch.concat copy of the runner's batched (3-D) pixels (encoder_qwen2vl_pixels)
    from tpkit.engines.vllm.encoder_qwen2vl_pixels import copied_pixels  # only for a Qwen2-VL tower (cold imports)

    copy = copied_pixels(release=release, n=n, channels=channels, act_bytes=a)
    held = pixels + copy + normalised + rotary + tower.cached * table
    return Qwen2VLLiveSet(held_bytes=held, attention_bytes=attention, mlp_bytes=mlp, norm_peak_bytes=norm_peak,
                          pixels_bytes=pixels, normalised_bytes=normalised, table_bytes=table,
                          device_norm=device_norm, rot_how=rot_how, copied_bytes=copy)
