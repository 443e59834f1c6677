"""vLLM's automatic attention-backend choice (pure): the one home of it, read by the planner
(``engines.vllm.inputs.resolve_attention_backend``, ``engines.vllm.graphs``) and by ``tpkit perf``
(``perf.runtime.runtime_for``).  Imports nothing from the vLLM policy, so ``tpkit perf`` may import it alone
(helper be11, 2026-12-05: perf had its own copy that ignored head dims above 256 and GPUs before SM 8.0)."""

from __future__ import annotations

from tpkit.models.spec import ModelSpec

__all__ = ["auto_attention_backend", "attention_head_dim"]

_ROCM_ATTN_HEAD_SIZES = (32, 64, 80, 96, 128, 160, 192, 224, 256)
"""head sizes of vLLM's ROCM_ATTN (``v1/attention/backends/rocm_attn.py get_supported_head_sizes``, 0.29.0)"""


def auto_attention_backend(*, compute_capability: tuple[int, int] | None, head_dim: int, kv_quantized: bool,
                           mla: bool, rocm: bool = False) -> str:
    """The backend vLLM picks under ``--attention-backend auto`` (``platforms/cuda.py _get_backend_priorities`` and
    the backends' ``supports_*`` checks, 0.20.0–0.33.0): on SM 10.x FlashInfer first, elsewhere FlashAttention
    first; FlashAttention below SM 8.0 is refused, an fp8 KV cache only with FlashAttention 3 (SM 9.x), and neither
    FlashAttention nor FlashInfer takes a head dim above 256 (Triton attention then).  MLA models (dense MLA; the
    DeepSeek-sparse backends are ``perf.runtime_vllm._vllm_sparse_backend``'s) take the first MLA backend whose
    ``supports_compute_capability`` passes: FLASH_ATTN_MLA on SM 9.x (FLASHMLA, next, also needs SM 9.x/10.x),
    FLASHINFER_MLA on SM 10.x (listed first there), TRITON_MLA elsewhere (SM 8.x, SM 12.x: 0.33 lists TRITON_MLA
    first for major 12).  On an AMD GPU (``rocm``) vLLM's ROCm platform puts ROCM_ATTN first and
    TRITON_ATTN after it, and TRITON_MLA alone for MLA (``platforms/rocm.py _get_backend_priorities``, 0.20.0,
    0.27.1, 0.29.0, 0.33.0; the AITER backends only with ``VLLM_ROCM_USE_AITER``): ROCM_ATTN for its head sizes,
    else Triton attention (helper rev10).  The one home of this choice: ``inputs.resolve_attention_backend`` (plan)
    and ``perf.runtime.runtime_for`` (perf) both call it (helper be11)."""
    major = (compute_capability or (9, 0))[0]
    if mla:
        return "TRITON_MLA" if rocm else {9: "FLASH_ATTN_MLA", 10: "FLASHINFER_MLA"}.get(major, "TRITON_MLA")
    if rocm:
        return "ROCM_ATTN" if head_dim in _ROCM_ATTN_HEAD_SIZES else "TRITON_ATTN"
    if head_dim > 256 or major < 8:
        return "TRITON_ATTN"
    if major == 10 or (kv_quantized and major != 9):
        return "FLASHINFER"
    return "FLASH_ATTN"


def attention_head_dim(model: ModelSpec) -> int:
    """The head dim vLLM's backend checks see: the larger of the sliding and full layers' (Gemma-style models give
    full-attention layers their own ``global_head_dim``)."""
    return max(model.head_dim, model.full_head_dim or 0)
