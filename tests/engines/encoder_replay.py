"""Shared by the GPU replays of vLLM's vision encoders (test_vllm_encoder_gpu.py, test_vllm_encoder_qwen2vl_gpu.py,
test_vllm_encoder_gemma3_gpu.py): torch is imported inside, so the module loads on a machine without it (the tests
skip first)."""


def cuda_torch():
    """torch, or skip the calling test module (at import) where torch or a CUDA GPU is missing (CPU CI)."""
    import pytest

    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():  # pragma: no cover - CPU CI
        pytest.skip("needs a CUDA GPU", allow_module_level=True)
    return torch


def varlen_attention(q, k, v, n: int, hd: int):
    """FlashAttention varlen over one sequence of ``n`` tokens (vLLM's ViT FA path); SDPA when unavailable (both
    linear in n)."""
    import torch

    cu = torch.tensor([0, n], dtype=torch.int32, device=q.device)
    try:
        return torch.ops.aten._flash_attention_forward(q, k, v, cu, cu, n, n, 0.0, False, False,
                                                       scale=hd ** -0.5)[0]
    except (RuntimeError, TypeError):  # pragma: no cover - torch without the varlen op
        out = torch.nn.functional.scaled_dot_product_attention(q.transpose(0, 1)[None], k.transpose(0, 1)[None],
                                                               v.transpose(0, 1)[None])
        return out[0].transpose(0, 1)
