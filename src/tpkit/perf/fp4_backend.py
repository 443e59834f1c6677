"""The NVFP4 GEMM backend of a vLLM deployment: Marlin runs NVFP4 weights as W4A16 (helper pf38, issue 13).

    in:  the forward's kernels (``perf.kernels.Kernel``), the request's ``nvfp4_gemm_backend``
    out: the kernels as the backend runs them: under Marlin every GEMM whose inputs tpkit prices at the fp4 rate
         runs at the bf16 rate instead (same bytes: the FP4 values and their scales are read as stored)

What vLLM does (0.19.1 wheel, read for facts): a compressed-tensors checkpoint's NVFP4 linear layers
(``CompressedTensorsW4A4Fp4``) ask ``quantization/utils/nvfp4_utils.py`` ``select_nvfp4_linear_backend``, which takes
``VLLM_NVFP4_GEMM_BACKEND`` (``envs.py`` choices: flashinfer-cudnn, flashinfer-trtllm, flashinfer-cutlass, cutlass,
marlin; the comment on ``marlin``: "use marlin GEMM backend (for GPUs without native FP4 support)") and, when unset,
picks FlashInfer-CUTLASS on SM ≥ 100 with FlashInfer, else vLLM's CUTLASS FP4 GEMM where
``cutlass_scaled_mm_supports_fp4`` holds, else Marlin (``is_fp4_marlin_supported``).  The CUTLASS / FlashInfer paths
quantise the activations to FP4 and multiply at the FP4 tensor-core rate (``perf.work._compute_dtype``); the Marlin
path (``apply_fp4_marlin_linear``, ``marlin_utils_fp4.py``: "weight-only FP4", ``ops.marlin_gemm`` on the 16-bit
activations as given) dequantises the FP4 weights inside the kernel, so its multiply runs at the 16-bit tensor-core
rate — the "Marlin INT4-with-FP4-dequant" path a source names.  Where the GPU has no FP4 rate in the catalog the fp4
GEMMs already fall back to bf16 (``DeviceRates.flops_for``), which is what vLLM's auto-selection of Marlin there does;
this module is for a deployment that *forces* Marlin on a GPU with native FP4 (``VLLM_NVFP4_GEMM_BACKEND=marlin``).
"""

from __future__ import annotations

import dataclasses

from tpkit.errors import PlanInputError

__all__ = ["NVFP4_GEMM_BACKENDS", "check_nvfp4_gemm_backend", "nvfp4_backend_kernels", "nvfp4_backend_notes"]

NVFP4_GEMM_BACKENDS = ("flashinfer-cudnn", "flashinfer-trtllm", "flashinfer-cutlass", "cutlass", "marlin")
"""``VLLM_NVFP4_GEMM_BACKEND``'s choices (vLLM 0.19.1 ``envs.py``); every one but ``marlin`` multiplies in FP4"""

WEIGHT_ONLY = ("marlin",)
"""the backends that dequantise FP4 weights to 16 bit inside the GEMM (W4A16)"""


def check_nvfp4_gemm_backend(backend: str | None, engine: str) -> None:
    """Refuse a backend vLLM does not name, or one given for another engine (``PlanInputError``)."""
    if backend is None:
        return
    if backend not in NVFP4_GEMM_BACKENDS:
        raise PlanInputError(f"--nvfp4-gemm-backend must be one of {', '.join(NVFP4_GEMM_BACKENDS)} "
                             f"(vLLM's VLLM_NVFP4_GEMM_BACKEND); got {backend!r}")
    if engine != "vllm":
        raise PlanInputError(f"--nvfp4-gemm-backend {backend} is vLLM's VLLM_NVFP4_GEMM_BACKEND; "
                             f"--engine is {engine}: drop the flag or give --engine vllm")


def nvfp4_backend_kernels(kernels: list, backend: str | None) -> list:
    """``kernels`` as ``backend`` runs them: under a weight-only backend (Marlin) the fp4-rate linear GEMMs become
    bf16-rate GEMMs of the same bytes; any other backend (or None: the engine's choice) leaves them as they are.
    Expert GEMMs (kind ``grouped``) keep their rate: the variable selects the linear layers' backend only (vLLM's
    fused-MoE FP4 path has its own selection)."""
    if backend not in WEIGHT_ONLY:
        return kernels
    return [dataclasses.replace(k, dtype="bf16") if k.kind == "gemm" and k.dtype == "fp4" else k for k in kernels]


def nvfp4_backend_notes(backend: str | None, quant) -> list[str]:
    """The output's line on a given ``backend`` for a model whose weights are ``quant`` (a ``QuantSpec`` or None)."""
    if backend is None:
        return []
    if quant is None or quant.method != "fp4":
        return [f"--nvfp4-gemm-backend {backend}: the model has no NVFP4 weights, so it changes nothing"]
    if backend in WEIGHT_ONLY:
        return [f"NVFP4 linear GEMMs: {backend} (VLLM_NVFP4_GEMM_BACKEND), weight-only: the FP4 weights are dequantised "
                "in the kernel and multiplied with the 16-bit activations, priced at the bf16 rate on the bytes as "
                "stored (vLLM apply_fp4_marlin_linear)"]
    return [f"NVFP4 linear GEMMs: {backend} (VLLM_NVFP4_GEMM_BACKEND): FP4 activations, priced at the FP4 rate"]
