"""ROCm FP8 on gfx94x (MI300X, MI325X): the e4m3fn → e4m3fnuz mask that vLLM's 'Model loading took' counts (pure).

Two facts from the vllm wheels (helper pl37):

* ``platforms/rocm.py RocmPlatform.get_current_memory_usage`` — what ``DeviceMemoryProfiler`` reads around
  ``load_model`` — is the device-wide ``total − free`` of ``torch.cuda.mem_get_info`` with no ``empty_cache``
  (read in 0.9.0, 0.11.0, 0.16.0, 0.17.0, 0.18.0, 0.19.1, 0.20.1); 0.21.0 (and 0.26.0, 0.30.0) read
  ``max_memory_allocated`` after ``empty_cache``, as CUDA does.  So before 0.21 a ROCm load print holds the blocks
  torch's caching allocator keeps after freeing what ``process_weights_after_loading`` made on the way.
* on an fnuz GPU (``is_fp8_fnuz``: ``"gfx94" in gcnArchName``) an FP8 checkpoint's weights go through
  ``quantization/utils/w8a8_utils.py normalize_e4m3fn_to_e4m3fnuz`` (``Fp8LinearMethod`` and
  ``Fp8MoEMethod.process_weights_after_loading``, 0.9.0–0.20): ``weight_as_int8[weight_as_int8 == -128] = 0``
  builds a bool tensor of the weight's shape — one byte per element, as large as the FP8 weight — and frees it.
  The next (smaller or equal) mask reuses that cached block, so what stays cached is the largest one: for an MoE
  model one layer's fused ``w13_weight`` (local experts × 2·I/tp × H bytes), rounded to its 2 MiB segment.

Covered: ``quant_method`` ``fp8`` checkpoints (the ``Fp8Config`` path read) on MI300-/MI325-class GPUs, vLLM
0.9.0–0.20.x, weights derived from the config.  Not covered: compressed-tensors / online FP8 (other load paths, not
read), MI355X (gfx950, OCP e4m3fn: no normalisation).  This is the smallest such cache; allocator fragmentation
may keep more (the MiniMax-M2.5 / Qwen3-Coder-Next FP8 MI300X prints sit about twice as far above the weights).
"""

from __future__ import annotations

from tpkit.memory.ledger import LineItem
from tpkit.units import Bytes

__all__ = ["FNUZ_ITEM", "FNUZ_RELEASES", "fnuz_gpu", "fnuz_mask_bytes", "fnuz_mask_lines"]

FNUZ_ITEM = "FP8 e4m3fnuz mask cached by the allocator (ROCm)"
FNUZ_RELEASES = ((0, 9, 0), (0, 21, 0))
"""[first, end): ROCm load print = total − free (no empty_cache) and the fnuz normalisation, both read"""

_FNUZ_NAMES = ("MI300", "MI325", "MI308")
"""catalog names of gfx94x parts (CDNA3); MI355X / MI350X are gfx950 (OCP FP8)"""

_NOT_FP8 = ("embed", "lm_head", "norm")


def fnuz_gpu(name: str | None) -> bool:
    """Whether a catalog GPU name is a gfx94x part (vLLM's ``is_fp8_fnuz``)."""
    return bool(name) and str(name).upper().replace("AMD ", "").replace("INSTINCT ", "").startswith(_FNUZ_NAMES)


def fnuz_mask_bytes(model, parallel, *, stage: int = 0, pp_split: str = "vllm") -> Bytes:
    """The largest FP8 weight tensor of the rank at one byte per element, as the allocator rounds it."""
    from tpkit.engines.vllm.weight_blocks import torch_block_bytes, weight_tensors

    sizes = [b for name, b, _ in weight_tensors(model, parallel, 1, stage=stage, pp_split=pp_split)
             if not any(word in name for word in _NOT_FP8)]
    return Bytes(torch_block_bytes(max(sizes))) if sizes else Bytes(0)


def fnuz_mask_lines(model, parallel, gpu_name: str | None, release: tuple[int, int, int] | None, quant,
                    w_plan, *, rocm: bool) -> tuple[LineItem, ...]:
    """The load-delta line where it applies (module docstring), else none."""
    if not (rocm and fnuz_gpu(gpu_name) and release is not None
            and FNUZ_RELEASES[0] <= release < FNUZ_RELEASES[1]):
        return ()
    if quant is None or quant.method != "fp8" or quant.raw_method != "fp8" \
            or getattr(w_plan, "method", "") != "derived from config":
        return ()
    mask = fnuz_mask_bytes(model, parallel, stage=getattr(w_plan, "stage", 0) or 0,
                           pp_split=getattr(w_plan, "pp_split", "vllm") or "vllm")
    if not mask:
        return ()
    return (LineItem(item=FNUZ_ITEM, bytes=mask,
                     source="the largest FP8 weight's bool mask (w8a8_utils.py normalize_e4m3fn_to_e4m3fnuz: "
                            "weight_as_int8 == -128, one byte per element), freed into torch's cache, which ROCm "
                            "vLLM 0.9–0.20 counts in 'Model loading took' (rocm.py get_current_memory_usage: "
                            "total − free, no empty_cache); in the load delta"),)
