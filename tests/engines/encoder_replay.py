"""Shared by the GPU replays of vLLM's vision encoders (test_vllm_encoder_gpu.py, test_vllm_encoder_qwen2vl_gpu.py,
test_vllm_encoder_gemma3_gpu.py, test_vllm_encoder_llava_gpu.py): torch is imported inside, so the module loads on a
machine without it (the tests skip first)."""

from pathlib import Path

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
"""the validation cases' HF config.json files (``<stem>.json``)"""


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


def batched_varlen_attention(q, k, v, b: int, s: int, hd: int):
    """FlashAttention varlen over ``b`` sequences of ``s`` tokens on (b·s, heads, hd) views (vLLM's ViT FA path, one
    sequence per image or crop); SDPA per batch when the op is unavailable."""
    import torch

    cu = torch.arange(0, (b + 1) * s, s, dtype=torch.int32, device=q.device)
    try:
        return torch.ops.aten._flash_attention_forward(q, k, v, cu, cu, s, s, 0.0, False, False,
                                                       scale=hd ** -0.5)[0]
    except (RuntimeError, TypeError):  # pragma: no cover - torch without the varlen op
        h = q.shape[1]
        qq, kk, vv = (t.view(b, s, h, hd).transpose(1, 2) for t in (q, k, v))
        return torch.nn.functional.scaled_dot_product_attention(qq, kk, vv).transpose(1, 2).reshape(b * s, h, hd)


def bf16_linear(o: int, k: int):
    """Random bf16 ``F.linear`` parameters on the GPU: an (o, k) weight of N(0, 1) × 0.02 and a zero bias."""
    import torch

    dev, dt = torch.device("cuda"), torch.bfloat16
    return torch.randn(o, k, device=dev, dtype=dt) * 0.02, torch.zeros(o, device=dev, dtype=dt)


def bf16_layer_norm(d: int):
    """``F.layer_norm`` parameters of width ``d`` on the GPU: weight ones, bias zeros (bf16)."""
    import torch

    dev, dt = torch.device("cuda"), torch.bfloat16
    return torch.ones(d, device=dev, dtype=dt), torch.zeros(d, device=dev, dtype=dt)


def peak_baseline(wo) -> int:
    """One small ``F.linear`` through ``wo`` (so cuBLAS's workspace exists before the baseline), a synchronize and a
    reset of the allocator's peak: the allocated bytes the replay's peak is measured from."""
    import torch

    weight = wo[0]
    torch.nn.functional.linear(torch.randn(64, weight.shape[1], device=weight.device, dtype=weight.dtype), *wo)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    return base


def encoder_estimate(stem: str, *, release: tuple[int, int, int], max_num_batched_tokens: int, max_num_seqs: int,
                     max_model_len: int, name: str | None = None):
    """(config dict, tpkit's encoder estimate) for ``CONFIGS/<stem>.json`` under vLLM ``release`` (V1 engine, TP 1,
    bf16 activations, the V1 model runner); ``name``: the model's name (default ``stem``)."""
    import json

    from tpkit.engines.vllm.encoder import encoder_profile
    from tpkit.models import from_config_dict

    cfg = json.loads((CONFIGS / f"{stem}.json").read_text())
    model = from_config_dict(cfg, name=name or stem, source="test")
    est, _ = encoder_profile(model, release=release, engine="V1", tp=1, max_num_batched_tokens=max_num_batched_tokens,
                             max_num_seqs=max_num_seqs, max_model_len=max_model_len, act_bytes=2, v2_runner=False)
    return cfg, est


def record_and_check(name: str, peak: int, kept: int | None, est) -> None:
    """Write the replay's measured peak (and kept bytes, unless ``kept`` is None) next to tpkit's estimate into
    ``$OUT/<name>.json`` (when the device run sets ``OUT``), then require each within 10 % of the estimate."""
    import json
    import os

    import torch

    out = os.environ.get("OUT")
    if out:
        row = {"peak_bytes": peak, "estimate_bytes": est.peak.bytes}
        if kept is not None:
            row.update(kept_bytes=kept, estimate_kept_bytes=est.kept.bytes, items=est.items)
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump({**row, "torch": torch.__version__, "gpu": torch.cuda.get_device_name()}, f)
    assert abs(peak - est.peak.bytes) / est.peak.bytes < 0.10, (peak / 2**30, est.peak.bytes / 2**30)
    if kept is not None:
        assert abs(kept - est.kept.bytes) / est.kept.bytes < 0.10, (kept / 2**30, est.kept.bytes / 2**30)
