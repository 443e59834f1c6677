"""vLLM V1's encoder profile for Qwen2-VL / Qwen2.5-VL: the dummy item and the towers' live set.

Qwen2-VL / Qwen2.5-VL (``qwen2_vl``, ``qwen2_5_vl``; their configs are flat, with ``vision_config`` beside the
text fields and no ``text_config``, which ``models.config`` reads as multimodal), read in the 0.10.0, 0.10.1 and
0.10.2 wheels
(``qwen2_vl.py``, ``qwen2_5_vl.py``, ``multimodal/registry.py``, ``multimodal/profiling.py``,
``v1/worker/gpu_model_runner.py``, ``model_executor/custom_op.py``, ``layers/activation.py``, ``layers/layernorm.py``):

* The image (``Qwen2VLProcessingInfo.get_image_size_with_most_features`` → ``_get_vision_info``, 0.10.0–0.12.0;
  0.13.0 below):
  transformers' ``smart_resize`` of a 9,999,999² image under the processor's ``max_pixels``.  The released
  preprocessor_config.json of Qwen2-VL and of Qwen2.5-VL both give max_pixels 12,845,056 (min_pixels 3,136; public
  copies found with the code-search tools: a Qwen2.5-VL-7B-Instruct processor dump and a test fixture trimmed from
  it, and the Qwen2-VL processor config copied into third-party code).  That is 3,584² px: 128 × 128 = 16,384
  merged tokens, 65,536 patches of 14 × 14 (vp_083's log prints the 16,384-token budget this gives).
* The video (``get_num_frames_with_most_features`` / ``_get_max_video_frames``): frames of that same size, as many
  as fit in ``seq_len`` tokens, then min(that // videos, _MAX_FRAMES_PER_VIDEO), at least 1.  Frames are padded to a
  multiple of temporal_patch_size, so two frames cost one image's tokens.  Per release:

  - which modality and t: ``get_max_tokens_per_item_by_modality`` with seq_len = max_model_len and one item of
    each modality.  0.10.0–0.10.1 first take the image's tokens off seq_len; 0.10.2 does not.  The cap is 16
    frames (14 from 0.11.0, which also starts the frame search at 1).  The larger wins; a tie is the image
    (``max`` keeps the first).  So the video is the dummy once max_model_len ≥ 2 × 16,384 (0.10.2) or 3 × 16,384
    (0.10.0–0.10.1).
  - the dummy video actually encoded: 0.10.0 ``profile_run`` builds it with seq_len = t; 0.10.1–0.10.2
    ``_get_mm_dummy_batch`` with seq_len = max_num_batched_tokens (the runner's ``max_num_tokens``) and only the
    video counted; 0.11–0.14 with max_model_len.  So in 0.10.1–0.10.2 the encoded video can be shorter than t.
  - 0.11.0 (``qwen2_vl.py`` ``_get_max_video_frames(start_num_frames=1)``, ``_MAX_FRAMES_PER_VIDEO = 14``;
    ``multimodal/registry.py`` ``get_max_tokens_per_item_by_modality`` → ``profiling.py``
    ``get_mm_max_contiguous_tokens``, no image taken off; ``gpu_model_runner.py`` ``_get_mm_dummy_batch`` with
    seq_len = max_model_len): at most 7 temporal patches (114,688 tokens), the video is the dummy from
    max_model_len ≥ 32,768, and the encoded video is the one counted (t tokens).

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

  - the image: ``get_image_size_with_most_features`` no longer runs ``smart_resize`` on a huge image; it
    factorises max_pixels // (patch × merge)² into the most-square pair with aspect ≤ 200, lowering the count
    until one fits (as the Qwen3-VL rule above).  For the released processors (16,384 = 128²) nothing changes;
    other patch sizes can differ (patch 12: 22,300 = 100 × 223 against smart_resize's 149² = 22,201).  The video
    frames, their cap (14) and the dummy built from max_model_len are unchanged; ``get_mm_max_tokens`` counts
    embeddings, which for these towers are the tokens.
  - the rotation: ``ApplyRotaryEmb(enforce_enable=True)`` is on whatever ``custom_ops`` says
    (``CustomOp._enforce_enable``); ``forward_cuda`` passes the bf16 tensor to flash-attn's ``apply_rotary_emb``
    (``enable_fp32_compute`` defaults off): as 0.12.0.  ``get_rope`` takes ``partial_rotary_factor`` 0.5 instead
    of ``rotary_dim``: the same hd/2 table, model dtype.
  - the attention: ``MMEncoderAttention.forward_cuda`` → ``vit_flash_attn_wrapper`` over views; the caller's
    ``rearrange(...).contiguous()`` copies nothing for one batch row.  Qwen2-VL's ``split_qkv`` all-gathers qkv
    again when tp > 1 and takes this rank's q, k, v as views of it (``split_tensor_along_last_dim`` without
    contiguous chunks), so + N·3d·a gathered, as before 0.11.1.
  - ``profile_run`` stores each output under its own key and widens nothing: kept as 0.12.0.

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

  - the dummy: ``get_image_size_with_most_features`` takes an optional max_pixels (the dummy passes none, so the
    processor's, as 0.13.0); frames, cap 14 and the budget's one item per modality at max_model_len unchanged.
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
  - the dummy: ``get_image_size_with_most_features`` reads max_pixels from the image processor's
    ``size["longest_edge"]`` (0.16.0; 12,845,056 for the released processors, whose min/max_pixels fill
    ``size``), and from 0.17.0 ``--mm-processor-kwargs`` may override it (not read by the plan: the released
    value is assumed).  Frames, the cap of 14 and the budget (one item of each modality at max_model_len) are
    unchanged.  A tie between the image and a one-group video (max_model_len < 2 × 16,384): 0.16.0 builds the
    budget's dict from a set of modality names (string-hash order), 0.17.0 on take the larger name, "video".
    The two dummies have the same patches and channels (a 2-frame video is one temporal group, an image is
    padded to one), so only the modality named changes; the plan names the image up to 0.16.0.
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
  Model Runner V2, though, runs no encoder profile before 0.27.0 (``_V2_ENCODER_PROFILE_FROM``), and from 0.25.0
  it is the default runner of these dense, non-hybrid towers (``_is_default_v2_model_runner_model``: any non-MoE
  model): so a default 0.25.0–0.26.0 plan charges no encoder term, without a warning; the V1 rule above applies
  where V1 runs (a feature V2 lacks, e.g. an ngram drafter).

  0.27.0–0.27.1 (helper q25; the 0.27.0 wheel's files named above, ``v1/worker/gpu/model_runner.py`` ``profile_run``,
  ``v1/worker/gpu/mm/encoder_runner.py`` ``profile_encoder_cache`` / ``execute_mm_encoder``,
  ``multimodal/encoder_budget.py`` ``get_dummy_encoder_profile_inputs``): the 0.22 rule on both runners.  V1's
  ``profile_run`` is unchanged.  Model Runner V2 now profiles the encoder: the same budget
  (``MultiModalBudget``, processor cache off), the same modality and dummy item, ``max_items_per_batch`` copies
  batched to the GPU inside ``execute_mm_encoder`` (freed with it: no dummy pixels kept), the outputs kept in
  the encoder cache until ``reset_encoder_cache`` after the text run.  ``_get_vision_info`` pads frames to the next
  multiple of temporal_patch_size (``_QWEN2_VL_CEIL_PAD``; the same for the released 2).  The towers, custom-op
  defaults, IR priorities and ``compile_mm_encoder`` (off) are as 0.26.0; the attention adds ROCm FP8 (opt-in).
  0.27.1's copies of all these files are byte-identical to 0.27.0's.

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
    kept       the V1 runner's dummy pixels are uint8: N·C·1 (was N·C·a); Model Runner V2 keeps none

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
  op, ``async_tensor_h2d`` copies of the index tensors, LoRA token helpers, a renderer-only ``seq_len`` cap of
  the dummy (the profile's ``_get_mm_dummy_batch`` and the budget pass no scheduler config) and the dummy
  video's (height, width) order (square here).  ``profile_run``, the budget, the attention, custom ops and conv
  are unchanged.

  0.31.0 (helper q2n; the wheel's files above compared with 0.30.0's, plus the new
  ``layers/fusion/mm_input_norm.py`` and ``multimodal/processing/processor.py`` ``get_dummy_mm_inputs``): the
  norm becomes ``build_mm_input_norm`` → ``FusedMMInputNorm``, a custom op.  Under V1's default Inductor mode
  (custom ops off) its ``forward_native`` multiplies the uint8 view by the fp32 weight (type promotion, no
  separate copy) and adds the bias: N·C·9 B at most; ``--enforce-eager`` runs its Triton kernel straight into
  the output, N·C·(1 + a).  Either stays below the blocks; held and kept are 0.30's.  ``get_hf_processor`` no
  longer passes ``use_fast``: transformers' default backend is torchvision where it is installed (5.5.3's
  ``_resolve_backend``; 0.31.0 requires transformers ≥ 5.10.4 and torchvision), and ``FusedMMInputNorm``
  documents its input as uint8 under ``mm_device_do_normalize``.  The budget moves into
  ``MultiModalBudget.get_dummy_encoder_profile_inputs`` (the same dummy at max_model_len, the same counts);
  V1's ``profile_run`` is unchanged; Qwen2.5-VL's dummy video gains metadata (2 fps, no frame sampling), which
  keeps its frames.  The other changes are typing, docstrings, XPU / ROCm / CPU paths, batch-invariant
  RMSNorm (``VLLM_BATCH_INVARIANT``), CUDA-graph capture of the ViT attention and data-parallel sharding.

  From 0.32 the plan keeps the warning (not read for this tower: 0.32.0 resolves the processor's size and
  pixel limits anew in ``qwen2_vl.py`` and rewrites ``processing/context.py``).

  ``tests/engines/test_vllm_encoder_qwen2vl_gpu.py`` replays both towers' 0.10.2 op order in plain torch (GPU
  only).  Under a CPU tensor-storage lifetime tracker that replay gives this estimate to the byte for Qwen2-VL-2B
  and within 0.005 % for Qwen2.5-VL-7B (helper qvl, 2026-12-04): an accounting check, not a measurement of vLLM.
  vp_083 (Qwen2-VL-2B, 0.10.2) prints a 2.65 GiB peak activation against this 2.50 GiB.

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tpkit.engines.vllm.encoder_budget import EncoderProfile, items_per_batch, most_features, smart_resize_side
from tpkit.engines.vllm.mmlimits import mm_limit
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

__all__ = ["QWEN2_VL_PROCESSOR", "QWEN2_VL_WRAPPERS", "QWEN2_VL_FROM", "QWEN2_VL_TO", "qwen2_vl_dummy",
           "qwen2_vl_profile", "attention_0_11"]

QWEN2_VL_PROCESSOR = {"max_pixels": 12_845_056, "min_pixels": 3_136}
"""the released Qwen2-VL and Qwen2.5-VL ``preprocessor_config.json`` (``max_pixels`` / ``min_pixels``), as public
copies of those files give them"""
QWEN2_VL_WRAPPERS = frozenset({"qwen2_vl", "qwen2_5_vl"})
QWEN2_VL_FROM, QWEN2_VL_TO = (0, 10, 0), (0, 31, 0)
"""the releases whose Qwen2-VL / Qwen2.5-VL tower code was read (module docstring)"""
_QWEN2_VL_0_11 = (0, 11, 0)
"""0.11.0: the frame search starts at 1 and caps at 14, the dummy video is built from max_model_len, q and k are
rotated concatenated, and the runner widens each kept output to the encoder budget (module docstring)"""
QWEN2_VL_0_11_1 = (0, 11, 1)
"""0.11.1: q/k/v are views of qkv (no contiguous copies); Qwen2.5-VL's qkv is a QKVParallelLinear (no all-gather)"""
QWEN2_VL_0_12 = (0, 12, 0)
"""0.12.0: q‖k rotated in the activation dtype with cos/sin tables of the model dtype taken once per tower from
``get_rope``'s cache; no output is widened (module docstring)"""
_QWEN2_VL_0_13 = (0, 13, 0)
"""0.13.0: the dummy image factorises max_pixels // (patch × merge)² (aspect ≤ 200); Qwen2-VL's ``split_qkv``
all-gathers again when tp > 1; ``ApplyRotaryEmb`` / ``MMEncoderAttention`` keep 0.12.0's live set"""
_QWEN25_COMPILED_SILU = (0, 15, 0)
"""0.15.0: ``SiluAndMul`` (``compile_native=True``) runs its native forward through ``torch.compile`` when the custom
op is off, so the Qwen2.5-VL tower's gate·up product is one fused output (module docstring)"""
_QWEN25_IR_NORM_UNSET, _QWEN25_IR_NORM_DEFAULT = (0, 21, 0), (0, 22, 0)
"""0.21.0: RMSNorm with a residual dispatches ``ir.ops.fused_add_rms_norm``, whose priority only
``set_forward_context`` sets (the encoder profile runs outside it: native); 0.22.0 installs the priority at worker
init (``vllm_c``, in place, under -O0 / ``--enforce-eager``)"""
_QWEN2_VL_CEIL_PAD = (0, 27, 0)
"""0.27.0: ``_get_vision_info`` pads the frames to the next multiple of temporal_patch_size (the same as before
for the released temporal_patch_size 2)"""
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
_QWEN2_VL_TIE_VIDEO = (0, 17, 0)
"""0.17.0: ``MultiModalBudget.get_modality_with_max_tokens`` breaks a tie by the modality's name, so a video of as
many tokens as the image is the dummy (``max`` with key (tokens, name))"""
_QWEN2_VL_NO_IMAGE_OFF = (0, 10, 2)  # from here the video's frames no longer leave room for one image
_QWEN2_VL_DUMMY_AT_T = (0, 10, 0)  # 0.10.0 builds the dummy with seq_len = t; 0.10.1–0.10.2 with the batch size
_QWEN25_FUSED_MLP = (0, 10, 1)  # merged gate_up and the fused add-norm block from 0.10.1


def _video_groups(frames: int, temporal: int, ceil_pad: bool = False) -> int:
    """Temporal patches of ``frames`` frames padded as ``_get_vision_info`` pads them: ``frames + frames %
    temporal`` up to 0.26.0, to the next multiple of temporal from 0.27.0 (``ceil_pad``; the same for 2)."""
    padded = frames + (-frames % temporal if ceil_pad else frames % temporal)
    return max(padded // temporal, 1)


def _max_frames(seq_len: int, per_group: int, temporal: int, cap: int, start: int = 0, ceil_pad: bool = False) -> int:
    """``get_num_frames_with_most_features`` with one video: the most frames whose tokens fit in ``seq_len`` (the
    search starts at ``start``: 0 in 0.10.x, 1 from 0.11.0), capped, at least 1."""
    frames = start
    while _video_groups(frames + 1, temporal, ceil_pad) * per_group <= seq_len:
        frames += 1
        if frames >= cap:
            break
    return max(min(frames, cap), 1)


@dataclass(frozen=True, kw_only=True, slots=True)
class Qwen2VLDummy:
    """The dummy item of vLLM 0.10.0–0.31.0's Qwen2-VL / Qwen2.5-VL encoder profile (module docstring)."""

    modality: str
    tokens: int
    """t: the item's merged tokens as the budget counts them"""
    encoded_tokens: int
    """merged tokens of the item actually encoded (a shorter video in 0.10.1–0.10.2)"""
    patches: int
    """patches of the encoded item"""


def qwen2_vl_dummy(vc: dict, *, release: tuple[int, int, int], max_model_len: int,
                   max_num_batched_tokens: int, limits: Mapping[str, int] | None = None) -> Qwen2VLDummy:
    """The dummy item of the Qwen2-VL / Qwen2.5-VL encoder profile, vLLM 0.10.0–0.31.0 (module docstring).
    ``limits`` (``--limit-mm-per-prompt``, ``engines/vllm/mmlimits.py``): a modality at 0 is not a candidate, and
    in 0.10.0–0.10.1 an image limit of 0 leaves the video's frames all of max_model_len (``mm_counts`` has no
    image: ``get_num_frames_with_most_features``); the caller has dropped the case where both are 0."""
    p = int(vc.get("patch_size") or vc.get("spatial_patch_size") or 14)
    m, temporal = int(vc.get("spatial_merge_size", 2)), int(vc.get("temporal_patch_size", 2))
    if release >= _QWEN2_VL_0_13:  # the largest token count factorised into an aspect ratio ≤ 200
        h, w = most_features(QWEN2_VL_PROCESSOR["max_pixels"], p * m)
        image = h * w
    else:  # smart_resize of a 9,999,999² image
        side = smart_resize_side(QWEN2_VL_PROCESSOR["max_pixels"], p * m)
        image = side * side
    cap = 14 if release >= _QWEN2_VL_0_11 else 16
    start = 1 if release >= _QWEN2_VL_0_11 else 0
    image_on, video_on = mm_limit(limits, "image") > 0, mm_limit(limits, "video") > 0
    room = max_model_len - (0 if release >= _QWEN2_VL_NO_IMAGE_OFF or not image_on else image)
    pad = release >= _QWEN2_VL_CEIL_PAD
    video = _video_groups(_max_frames(room, image, temporal, cap, start, pad), temporal, pad) * image
    if image_on and (not video_on or video < image or (video == image and release < _QWEN2_VL_TIE_VIDEO)):
        return Qwen2VLDummy(modality="image", tokens=image, encoded_tokens=image, patches=image * m * m)
    if release >= _QWEN2_VL_0_11:  # built from max_model_len with one video, like t
        return Qwen2VLDummy(modality="video", tokens=video, encoded_tokens=video, patches=video * m * m)
    dummy_len = video if release <= _QWEN2_VL_DUMMY_AT_T else max_num_batched_tokens
    encoded = _video_groups(_max_frames(dummy_len, image, temporal, cap), temporal) * image
    return Qwen2VLDummy(modality="video", tokens=video, encoded_tokens=encoded, patches=encoded * m * m)

def attention_0_11(release: tuple[int, int, int], *, n: int, d: int, shard: int, hd: int,
                    a: int) -> tuple[int, str]:
    """Peak bytes of vLLM 0.11.x's ``Qwen2_5_VisionAttention`` (Qwen2-VL's attention too) on ``n`` patches, without
    0.11.0's tp > 1 all-gather (module docstring), and how it was counted."""
    if release >= QWEN2_VL_0_11_1:  # q‖k copied once from the qkv views, rotated in fp32, cast back
        projection = n * (3 * d + 8 * shard) * a
        return (max(n * (2 * d + 7 * shard) * a + n * 2 * shard * 8 + n * hd * 4, projection),
                "N·(2d + 7d/tp)·a + fp32 rotation of q‖k")
    # 0.11.0: q and k rotated together: the concat, its fp32 copy/output and cast
    return n * (2 * d + 10 * shard) * a + n * 2 * shard * 8 + n * hd * 4, "N·(2d + 10d/tp)·a + fp32 rotation of q‖k"


def qwen2_vl_profile(model: ModelSpec, *, release: tuple[int, int, int], tp: int, max_num_batched_tokens: int,
                      max_num_seqs: int, max_model_len: int, act_bytes: int, v2_runner: bool,
                      enforce_eager: bool, limits: Mapping[str, int] | None = None) -> tuple[EncoderProfile | None, str]:
    """The Qwen2-VL / Qwen2.5-VL encoder step, vLLM 0.10.0–0.31.0 (module docstring); ``limits``:
    ``--limit-mm-per-prompt`` (``engines/vllm/mmlimits.py``)."""
    vc, wrapper = model.extra["vision_config"], model.extra.get("wrapper_model_type")
    dummy = qwen2_vl_dummy(vc, release=release, max_model_len=max_model_len,
                           max_num_batched_tokens=max_num_batched_tokens, limits=limits)
    items = items_per_batch(release, dummy.tokens, max_num_batched_tokens=max_num_batched_tokens,
                            max_num_seqs=max_num_seqs, max_model_len=max_model_len,
                            limit=mm_limit(limits, dummy.modality))
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
    hd = d // heads
    n, a = items * dummy.patches, act_bytes
    shard = -(-d // tp)
    # split_qkv's all-gather: both towers before 0.11.1; none in 0.11.1–0.12.0; Qwen2-VL again from 0.13.0
    gathered = tp > 1 and (release < QWEN2_VL_0_11_1 or (release >= _QWEN2_VL_0_13 and wrapper == "qwen2_vl"))
    # after the kernel: the input and its norm, qkv, the q‖k copy and its rotated (cast) copy, the attention
    # output (sharded) and the all-reduced projection (d) — 0.11.1 and later
    projection = n * (3 * d + 8 * shard) * a
    if release >= QWEN2_VL_0_12:  # q‖k copied once, rotated in the activation dtype (no fp32 copy, no cast)
        attention = max(n * (2 * d + 7 * shard) * a, projection)
        rot_how = "N·(3d + 8d/tp)·a, q‖k rotated in the activation dtype"
    elif release >= _QWEN2_VL_0_11:
        attention, rot_how = attention_0_11(release, n=n, d=d, shard=shard, hd=hd, a=a)
    else:
        attention = n * (2 * d + 7 * shard) * a + n * shard * 8 + n * hd * 4
        rot_how = "N·(2d + 7d/tp)·a + fp32 rotation of k"
    attention += n * 3 * d * a if gathered else 0
    mlp = n * (mlp_width[0] + -(-mlp_width[1] // tp)) * a
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
        rotary, table = n * hd * a, dummy.patches * hd * a
    else:  # the fp32 angle table, hd/2 wide
        rotary, table = n * (hd // 2) * 4, dummy.patches * (hd // 2) * 4
    # Qwen2.5-VL: ``get_rope_by_thw``'s lru_cache keeps one item's table (all dummy items share the grid) and
    # ``torch.cat`` copies it per item
    held = pixels + normalised + rotary + cached * table
    output = items * dummy.encoded_tokens * out * a
    budget = max(max_num_batched_tokens, dummy.tokens)
    widened = _QWEN2_VL_0_11 <= release < QWEN2_VL_0_12 and dummy.encoded_tokens < budget
    if widened:  # each output copied into a (budget, o) buffer; the loop variable keeps the split's storage
        output += items * budget * out * a
    kept = output + cached * table + (0 if v2_runner else pixels)
    phase = "attention" if attention >= mlp else "MLP"
    video = (f", {dummy.encoded_tokens:,} tokens encoded (the dummy video's frames follow "
             f"{'max_num_batched_tokens' if dummy.encoded_tokens != dummy.tokens else 'max_model_len'})"
             if dummy.modality == "video" else "")
    formula = (f"{items} {dummy.modality} item(s) × {dummy.tokens:,} tokens{video} ({dummy.patches:,} patches of "
               f"{p}×{p}; max_pixels {QWEN2_VL_PROCESSOR['max_pixels']:,}): held {held / 2**30:.2f} GiB (pixels"
               f"{(' uint8 + normalised on the GPU' if normalised else ' uint8, normalised in the tower') if device_norm else ''}, rotary) + block {phase} {max(attention, mlp) / 2**30:.2f} GiB (attention {rot_how} vs MLP "
               f"{mlp_how}, d {d}, i {i}); kept for the text run {kept / 2**30:.2f} GiB (outputs"
               f"{f' widened to the {budget:,}-token budget' if widened else ''}"
               f"{'' if v2_runner else ' + dummy pixels'})")
    return EncoderProfile(peak=Bytes(max(held + max(attention, mlp), norm_peak)), kept=Bytes(kept), items=items,
                          modality=dummy.modality, tokens_per_item=dummy.tokens, formula=formula), ""
