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


def record_and_check(name: str, peak: int, kept: int, est) -> None:
    """Write the replay's measured peak and kept bytes next to tpkit's estimate into ``$OUT/<name>.json`` (when the
    device run sets ``OUT``), then require both within 10 % of the estimate."""
    import json
    import os

    import torch

    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump({"peak_bytes": peak, "estimate_bytes": est.peak.bytes, "kept_bytes": kept,
                       "estimate_kept_bytes": est.kept.bytes, "items": est.items, "torch": torch.__version__,
                       "gpu": torch.cuda.get_device_name()}, f)
    assert abs(peak - est.peak.bytes) / est.peak.bytes < 0.10, (peak / 2**30, est.peak.bytes / 2**30)
    assert abs(kept - est.kept.bytes) / est.kept.bytes < 0.10, (kept / 2**30, est.kept.bytes / 2**30)
