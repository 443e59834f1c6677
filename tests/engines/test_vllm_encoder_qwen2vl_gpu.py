"""GPU check of the Qwen2-VL / Qwen2.5-VL encoder term of vLLM 0.10.x (``engines/vllm/encoder.py``; skipped without CUDA).

Replays, with plain torch ops and random bf16 weights, the tensors that the vllm 0.10.2 wheel's vision forward
creates on the profile's dummy image (65,536 patches, one item), with vLLM's custom ops off as under V1's default
compilation (``CustomOp.default_on``):

* ``qwen2_vl.py`` ``Qwen2VisionTransformer.forward`` / ``Qwen2VisionBlock`` / ``Qwen2VisionAttention`` /
  ``Qwen2VisionMLP`` with ``QuickGELU.forward_native``;
* ``qwen2_5_vl.py`` ``Qwen2_5_VisionTransformer.forward`` / ``Qwen2_5_VisionBlock`` (``RMSNorm.forward_native``
  with the residual) / ``Qwen2_5_VisionMLP`` (``SiluAndMul.forward_native``), with the window reorder.

Lifetimes: the caller keeps the dummy pixels (and, 0.9.0–0.10.2, the model's concat copy of them) and the block
input; ``forward``'s local keeps qkv; q, k and v are
contiguous copies; ``apply_rotary_pos_emb_vision`` makes an fp32 copy, an fp32 output (flash-attn's Triton
``apply_rotary``, here a copy) and the cast back, with fp32 cos and sin.  Two blocks are replayed: the peak is one
block's, whatever the depth.  The replay checks the accounting of the live set as read, not vLLM itself.
"""

import pytest

from encoder_replay import (bf16_layer_norm, bf16_linear, cuda_torch, encoder_estimate, peak_baseline,
                            record_and_check, varlen_attention)

torch = cuda_torch()
pytestmark = pytest.mark.gpu

F = torch.nn.functional


def _rotate(t, cos, sin):
    """``apply_rotary_pos_emb_vision``: fp32 copy, a new fp32 output, cast back (cos/sin are the caller's)."""
    t_ = t.float()
    out = torch.empty_like(t_)
    out.copy_(t_)
    return out.type_as(t)


def _rms(x, residual=None):
    """``RMSNorm.forward_native`` (fp32 inside; a new residual when one is given)."""
    orig = x.dtype
    x = x.to(torch.float32)
    if residual is not None:
        x = x + residual.to(torch.float32)
        residual = x.to(orig)
    x = (x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)).to(orig)
    return x if residual is None else (x, residual)


def _replay(vc: dict, qwen25: bool) -> int:
    dev, dt = torch.device("cuda"), torch.bfloat16
    d = vc["hidden_size"] if qwen25 else vc["embed_dim"]
    i = vc["intermediate_size"] if qwen25 else d * vc["mlp_ratio"]
    heads = vc["num_heads"]
    hd = d // heads
    channels = 3 * vc["temporal_patch_size"] * vc["patch_size"] ** 2
    n = 16384 * 4  # the 3,584² dummy image
    w = bf16_linear
    wp, wqkv, wo = w(d, channels), w(3 * d, d), w(d, d)
    w1, w2 = (w(2 * i, d), w(d, i)) if qwen25 else (w(i, d), w(d, i))
    ln = bf16_layer_norm(d)
    base = peak_baseline(wo)  # cuBLAS workspace before the baseline
    pixels = torch.randn(n, channels, device=dev, dtype=dt)  # the dummy batch, kept by profile_run
    # the model's _validate_and_reshape_mm_tensor: torch.concat of the runner's (1, n, C) batch, held through the
    # tower (0.9.0–0.10.2; helper vl14, encoder_qwen2vl_pixels)
    copy = torch.cat(list(pixels.unsqueeze(0)))
    table = torch.randn(n, hd // 2, device=dev, dtype=torch.float32)  # rotary_pos_emb
    cached = table.clone() if qwen25 else None  # get_rope_by_thw's lru_cache keeps one, torch.cat copies it
    hidden = F.linear(copy, *wp)  # the Conv3d patch embed as a matmul
    if qwen25:
        order = torch.randperm(n // 4, device=dev)
        hidden = hidden.view(n // 4, 4, d)[order].reshape(n, d)  # the window reorder
    hidden = hidden.unsqueeze(1)

    def attention(y):
        qkv = F.linear(y, *wqkv)  # (n, 1, 3d), kept by forward's local until it returns
        q, k, v = (t.view(n, 1, heads, hd).transpose(0, 1).contiguous() for t in qkv.chunk(3, dim=2))
        cos, sin = table.cos(), table.sin()
        q = _rotate(q, cos, sin)
        k = _rotate(k, cos, sin)
        ctx = varlen_attention(q[0], k[0], v[0], n, hd).reshape(n, 1, d)
        return F.linear(ctx, *wo)

    for _ in range(2):
        x = hidden
        if qwen25:
            x_attn = attention(_rms(x))
            fused, residual = _rms(x, x_attn)
            gate_up = F.linear(fused, *w1)
            act = F.silu(gate_up[..., :i]) * gate_up[..., i:]
            down = F.linear(act, *w2)
            del gate_up, act
            hidden = residual + down
            del x_attn, fused, residual, down
        else:
            x = x + attention(F.layer_norm(x, (d,), *ln))
            n2 = F.layer_norm(x, (d,), *ln)  # held by the MLP's argument until it returns
            fc1 = F.linear(n2, *w1)
            act = fc1 * torch.sigmoid(1.702 * fc1)
            del fc1
            down = F.linear(act, *w2)
            del act, n2
            hidden = x + down
            del down
        del x
    torch.cuda.synchronize()
    del hidden, pixels, copy, table, cached
    return torch.cuda.max_memory_allocated() - base


@pytest.mark.parametrize("stem,qwen25", [("Qwen--Qwen2-VL-2B-Instruct", False),
                                         ("Qwen--Qwen2.5-VL-7B-Instruct", True)])
def test_qwen2_vl_encoder_peak_matches_the_estimate(stem, qwen25):
    cfg, est = encoder_estimate(stem, release=(0, 10, 2), max_num_batched_tokens=2048, max_num_seqs=256,
                                max_model_len=4096)
    peak = _replay(cfg["vision_config"], qwen25)
    record_and_check(f"qwen2_vl_encoder_{'25' if qwen25 else '2'}", peak, None, est)
