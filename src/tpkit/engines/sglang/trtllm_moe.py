"""SGLang's FlashInfer TRTLLM MoE expert-width padding (helper pad30, 2026-12-07, session 30).

Read in the release wheels (facts only):

- ``srt/layers/moe/fused_moe_triton/layer.py`` ``FusedMoE.__init__``: when the MoE runner backend is
  ``flashinfer_trtllm`` (or, from the releases that have it, ``flashinfer_trtllm_routed``) and
  ``intermediate_size_per_partition`` (the expert width over the MoE-TP group, ``moe_intermediate_size / moe_tp``) is
  not a multiple of 128, it is rounded up to the next multiple of 128 before ``quant_method.create_weights``, so the
  unquantised method (``layers/quantization/unquant.py`` ``UnquantizedFusedMoEMethod.create_weights``) allocates
  ``w13_weight`` (experts × 2·I_pad × hidden) and ``w2_weight`` (experts × hidden × I_pad) at the padded width and
  the loader narrows the checkpoint into it (``use_padded_loading``).  Present in 0.5.8 (read), 0.5.8.post1, 0.5.9,
  0.5.10, 0.5.11, 0.5.12, 0.5.13, 0.5.15, 0.5.16, 0.5.18 and 0.5.23 (0.5.23 exempts NVFP4, which aligns in its own
  ``create_weights``); absent in 0.5.7 and every earlier wheel read (0.5.4 – 0.5.6.post2): ``TRTLLM_PAD_RELEASE``.
- The backend's default choice, ``--moe-runner-backend auto``: ``ServerArgs`` (``server_args.py`` model-specific
  adjustments up to 0.5.13; ``arg_groups/overrides.py`` ``_qwen3_moe_family_overrides`` in 0.5.15 – 0.5.18;
  ``arg_groups/model_overrides/qwen3_moe.py`` in 0.5.23) picks ``flashinfer_trtllm`` for ``Qwen3MoeForCausalLM`` and
  ``Qwen3VLMoeForConditionalGeneration`` (later releases add more Qwen3 architectures, not modelled) when
  ``is_sm100_supported()`` (compute capability major 10, CUDA ≥ 12.8: B200 / GB200 / B300), the quantisation is
  fp8 / modelopt_fp4 *or none*, and ``--moe-a2a-backend`` is none.  Unquantised (bf16) experts join that choice in
  0.5.8 (0.5.6 / 0.5.7: fp8 and modelopt_fp4 only), the same release as the padding.

Modelled here: unquantised experts only (the fp8 / NVFP4 paths pad their scales too and check block divisibility;
not read far enough to size).  Evidence (docs/accuracy.md §6.4 round pad30): Qwen3-30B-A3B at tp 4 on B200
under 0.5.15 prints 18.80 GiB at load where the unpadded plan is 14.24 GiB; 192 → 256 per rank adds 48 layers ×
128 experts × 3 × 64 × 2048 × 2 B = 4.50 GiB.
"""

from __future__ import annotations

import math

from tpkit.engines.sglang.swa import is_sm100
from tpkit.units import Bytes, format_bytes

__all__ = ["TRTLLM_PAD_RELEASE", "AUTO_TRTLLM_ARCHITECTURES", "trtllm_moe_backend", "trtllm_moe_padding"]

TRTLLM_PAD_RELEASE = "0.5.8"
"""first release whose ``FusedMoE.__init__`` rounds the expert width up to 128 for flashinfer_trtllm and whose
``--moe-runner-backend auto`` picks flashinfer_trtllm for bf16 Qwen3-MoE on SM 10.x (0.5.7: neither)"""
AUTO_TRTLLM_ARCHITECTURES = frozenset({"Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration"})
"""architectures whose SGLang 0.5.8 – 0.5.23 ``auto`` MoE runner is flashinfer_trtllm on SM 10.x"""
PAD_MULTIPLE = 128
"""``FusedMoE.__init__``: 'flashinfer_trtllm kernel requires intermediate_size to be a multiple of 128'"""


def _unquantized(model, options) -> bool:
    return model.quant is None and not options.quantization


def trtllm_moe_backend(model, options, gpu) -> str:
    """Why SGLang's MoE runner is flashinfer_trtllm with unquantised experts (empty when it is not, or tpkit does
    not know: see the module docstring)."""
    version = options.engine_version
    if model.moe is None or not _unquantized(model, options) or (version and not _at_least(version)):
        return ""
    backend = getattr(options, "moe_runner_backend", "auto") or "auto"
    if backend in ("flashinfer_trtllm", "flashinfer_trtllm_routed"):
        return f"--moe-runner-backend {backend}"
    if (backend == "auto" and model.architecture in AUTO_TRTLLM_ARCHITECTURES and is_sm100(gpu)
            and options.moe_a2a_backend == "none"):
        return f"--moe-runner-backend auto picks flashinfer_trtllm for {model.architecture} on SM 10.x"
    return ""


def _at_least(version: str) -> bool:
    from tpkit.engines.sglang.versions import at_least

    return at_least(version, TRTLLM_PAD_RELEASE)


def _moe_layers_on_stage(model, parallel, options) -> int:
    from tpkit.engines.sglang.versions import LATEST, sglang_pp_split
    from tpkit.models.layout import stage_layers

    ids = set(model.moe.moe_layer_ids) or set(range(model.moe.num_dense_layers, model.num_layers,
                                                     max(1, model.moe.moe_layer_freq)))
    split = sglang_pp_split(options.engine_version or LATEST, parallel)
    return max(len(ids.intersection(stage_layers(model.num_layers, parallel.pp, s, split)))
               for s in range(parallel.pp))


def trtllm_moe_padding(model, parallel, options, gpu, elem_bytes: int) -> tuple[Bytes, str]:
    """(bytes, source) the padded expert width adds per rank over the unpadded plan (0, "" where it does not
    apply): experts on the rank × (2·ΔI + ΔI) × hidden × ``elem_bytes`` × MoE layers on the largest stage."""
    why = trtllm_moe_backend(model, options, gpu)
    if not why:
        return Bytes(0), ""
    moe_tp = max(1, parallel.tp // max(1, parallel.ep))
    width = model.moe.moe_intermediate_size // moe_tp
    padded = math.ceil(width / PAD_MULTIPLE) * PAD_MULTIPLE
    if padded == width:
        return Bytes(0), ""
    experts = math.ceil(model.moe.num_experts / max(1, parallel.ep))
    layers = _moe_layers_on_stage(model, parallel, options)
    extra = Bytes(layers * experts * 3 * (padded - width) * model.hidden_size * elem_bytes)
    return extra, (f"+ {format_bytes(extra)} FlashInfer TRTLLM MoE padding ({why}; FusedMoE.__init__ rounds the "
                   f"expert width {width} per rank up to {padded}: w13 and w2 of {experts} experts × {layers} layers; "
                   f"SGLang {TRTLLM_PAD_RELEASE}+, engines/sglang/trtllm_moe.py)")
