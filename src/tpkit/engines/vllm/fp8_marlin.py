"""vLLM's weight-only FP8 (Marlin) path for block-quantised FP8 checkpoints below compute capability 8.9: the
group-wise scales it builds at load (pure).

A GPU without FP8 tensor cores (CUDA compute capability below 8.9: Turing, Ampere) runs an FP8 checkpoint weight-only
through the Marlin kernel.  For a block-quantised checkpoint (``weight_block_size`` [b0, b1], fp32
``weight_scale_inv`` of ceil(N/b0) × ceil(K/b1) per matrix), ``prepare_fp8_layer_for_marlin`` turns the block scales
into group-wise scales: the block scale is repeated ``b0`` times along N (``repeat_interleave(block_n, 1)``, cut to N)
and cast to the layer's original dtype (``layer.weight_scale.to(layer.orig_dtype)``: bf16 / fp16, 2 B), then
permuted, and replaces the fp32 block scale (``replace_parameter``).  Per matrix of N × K on the rank the scales go
from ceil(N/b0)·ceil(K/b1)·4 B to ceil(K/b1)·N·2 B: about 1/64 B per weight element for b = 128.  This happens in
``process_weights_after_loading``, inside the ``DeviceMemoryProfiler`` window of 'Model loading took' (whose figure is
torch's allocated bytes at its end: ``utils/mem_utils.py DeviceMemoryProfiler``, ``current_memory_usage``).

Releases (read in the wheels):

* 0.8.5 and earlier (0.8.1, 0.8.2, 0.8.5 ``layers/quantization/fp8.py Fp8LinearMethod.__init__``): "Marlin doesn't
  support block-wise fp8" — ``use_marlin = False`` for a block checkpoint: no such scales.
* 0.9.0 – 0.11.0 (``Fp8LinearMethod.__init__``: ``use_marlin = not has_device_capability(89) or
  VLLM_TEST_FORCE_FP8_MARLIN``, no block exclusion; ``utils/marlin_utils_fp8.py prepare_fp8_layer_for_marlin``,
  "block-wise quantization -> group-wise quantization").
* 0.17.0 – 0.33.0 (read 0.17.0, 0.19.1, 0.20.x, 0.21.0, 0.23.0, 0.25.0, 0.26.0, 0.27.1, 0.28.0, 0.29.0, 0.30.0,
  0.33.0): the kernel is chosen from ``_POSSIBLE_FP8_BLOCK_KERNELS`` (``model_executor/kernels/linear/__init__.py``);
  the FlashInfer / DeepGEMM / CUTLASS block kernels need compute capability 9.0+, so below 8.9 the first supported one
  is ``MarlinFP8ScaledMMLinearKernel`` (``is_supported``: CUDA, capability ≥ 7.5 and < 8.9 unless
  VLLM_TEST_FORCE_FP8_MARLIN), whose ``process_weights_after_loading`` calls the same ``prepare_fp8_layer_for_marlin``.

ROCm never takes it (0.9.0: "Disable marlin for rocm"; later, no Marlin in the ROCm kernel list).  Not modelled: the
Marlin thread-tile padding of shapes with N % 64 or K % 128 (0.27.1 ``marlin_padded_nk``; the dense layers of the
cases here are multiples of 128) and the MoE experts (``prepare_fp8_moe_layer_for_marlin`` does the same expansion,
but the MoE backend choice below 8.9 was not read), which keep the checkpoint's scale bytes.
"""

from __future__ import annotations

import math

from tpkit.models.layout import stage_layers
from tpkit.models.params import global_parts, layer_groups, layer_parts
from tpkit.models.quant import is_quantised
from tpkit.models.spec import ModelSpec, QuantSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["FIRST_RELEASE", "MARLIN_BELOW", "uses_fp8_block_marlin", "marlin_fp8_block_scale_bytes"]

FIRST_RELEASE = (0, 9, 0)
"""first vLLM release whose Marlin FP8 path takes block-quantised checkpoints (0.8.5: ``use_marlin = False`` for
them; 0.9.0: ``prepare_fp8_layer_for_marlin`` converts block scales to group scales)"""

MARLIN_BELOW = (8, 9)
"""compute capability from which vLLM runs FP8 natively (``has_device_capability(89)``; 0.27.1
``MarlinFP8ScaledMMLinearKernel.is_supported``: ``compute_capability >= 89`` refused)"""

_MARLIN_FROM = (7, 5)
"""``is_fp8_marlin_supported``: compute capability 7.5 or higher"""

_EXPERTS = frozenset({"routed_experts"})
"""left out (module docstring)"""


def uses_fp8_block_marlin(quant: QuantSpec | None, release: tuple[int, int, int] | None,
                          compute_capability: tuple[int, int] | None, *, rocm: bool = False) -> bool:
    """True when vLLM runs ``quant``'s block-FP8 linear layers through Marlin (module docstring)."""
    if quant is None or quant.method != "fp8" or not quant.block_size or quant.raw_method == "deepseek_v4_fp8":
        return False
    if rocm or release is None or compute_capability is None or release < FIRST_RELEASE:
        return False
    return _MARLIN_FROM <= tuple(compute_capability) < MARLIN_BELOW


def marlin_fp8_block_scale_bytes(model: ModelSpec, parallel: ParallelSpec, quant: QuantSpec | None, *,
                                 act_bytes: int, release: tuple[int, int, int] | None,
                                 compute_capability: tuple[int, int] | None, rocm: bool = False, stage: int = 0,
                                 pp_split: str = "vllm") -> Bytes:
    """Bytes per rank the Marlin group-wise scales add over the checkpoint's fp32 block scales (dense linear layers
    of PP stage ``stage``; 0 where vLLM does not take the Marlin path)."""
    if not uses_fp8_block_marlin(quant, release, compute_capability, rocm=rocm):
        return Bytes(0)
    from tpkit.models.weights import local_shape, names_matter

    b0, b1 = quant.block_size
    last = stage == parallel.pp - 1
    extra = 0

    def add(parts, times: int) -> None:
        nonlocal extra
        for part in parts:
            if part.category in _EXPERTS or not is_quantised(part, quant):
                continue
            n, k, count = local_shape(model, part, tp=parallel.tp, attn_tp=parallel.attn_tp, ep=parallel.ep,
                                      expert_tp=parallel.expert_tp)
            groups = math.ceil(k / b1)
            extra += times * count * (groups * n * act_bytes - math.ceil(n / b0) * groups * 4)

    layers = stage_layers(model.num_layers, parallel.pp, stage, pp_split)
    # one group per run of alike layers unless an ignore pattern can tell two layers apart (as plan_weights does):
    # per-layer for every model made a 30,000-layer config take 33 s (fuzz_plan seed 9, case 6203)
    for layer, times, moe_layer in layer_groups(model, layers, by_name=names_matter(quant)):
        add(layer_parts(model, layer, moe_layer=moe_layer), times)
    if last:
        add([p for p in global_parts(model) if p.category != "embedding"], 1)
    return Bytes(max(0, extra))
