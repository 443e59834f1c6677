"""GPU check of the multimodal encoder term (``engines/vllm/encoder.py``; skipped without CUDA).

Replays, with plain torch ops and random bf16 weights, the tensors that vLLM's Qwen3-VL vision forward creates
on the profile's dummy image: 65,536 patches, one item.  The op order and the lifetimes follow the vllm 0.20.0
wheel (``qwen3_vl.py`` ``Qwen3_VisionTransformer.forward`` / ``Qwen3_VisionBlock`` / ``Qwen3_VisionPatchMerger``,
``qwen2_5_vl.py`` ``Qwen2_5_VisionAttention``, ``layers/conv.py`` ``Conv3dLayer._forward_mulmat``):

* the caller keeps the dummy pixel values;
* the encoder metadata keeps the position embeddings and the rotary cos/sin;
* the attention's locals (qkv, the contiguous q/k and the rotated q/k) live until it returns;
* the block's caller keeps the block input.

The rotary kernel writes one new tensor (vllm_flash_attn's Triton ``apply_rotary_emb``).  The attention is
FlashAttention varlen, as ``MMEncoderAttention._forward_fa`` calls it.  The allocator's peak is compared with
``encoder_profile``'s estimate.  On one H200 (torch 2.11.0+cu130, 2026-12-04, helper mmp) the same replay peaked
at 2,224,030,208 B, against an estimate of 2,224,029,696 B.
"""

import pytest

from encoder_replay import (bf16_layer_norm, bf16_linear, cuda_torch, encoder_estimate, peak_baseline,
                            record_and_check, varlen_attention)

torch = cuda_torch()
pytestmark = pytest.mark.gpu

F = torch.nn.functional


def _replay(vc: dict) -> int:
    dev, dt = torch.device("cuda"), torch.bfloat16
    d, i, heads, depth = vc["hidden_size"], vc["intermediate_size"], vc["num_heads"], vc["depth"]
    hd, out, m, deep = d // heads, vc["out_hidden_size"], vc["spatial_merge_size"], vc["deepstack_visual_indexes"]
    channels = 3 * vc["temporal_patch_size"] * vc["patch_size"] ** 2
    n = 16384 * m * m  # the 4096 × 4096 dummy image
    w = bf16_linear
    wp, wqkv, wo, w1, w2 = w(d, channels), w(3 * d, d), w(d, d), w(i, d), w(d, i)
    wm1, wm2 = w(4 * d, 4 * d), w(out, 4 * d)
    ln = bf16_layer_norm(d)
    base = peak_baseline(wo)  # cuBLAS workspace before the baseline
    pixels = torch.randn(n, channels, device=dev, dtype=dt)  # the dummy batch, kept by profile_run
    pos = torch.randn(n, d, device=dev, dtype=dt)  # encoder_metadata["pos_embeds"]
    cos, sin = (torch.randn(n, hd // 2, device=dev, dtype=dt) for _ in range(2))
    hidden = F.linear(pixels.view(n, 3, 2, 16, 16).reshape(-1, channels), *wp)
    hidden = (hidden + pos).unsqueeze(1)
    features = []

    def merger(x):
        y = F.layer_norm(x, (d,), *ln).view(-1, 4 * d)
        return F.linear(F.gelu(F.linear(y, *wm1)), *wm2)

    for layer in range(depth):
        x = hidden
        n1 = F.layer_norm(x, (d,), *ln)
        qkv = F.linear(n1, *wqkv)  # (n, 1, 3d)
        qkv5 = qkv.view(n, 1, 3, heads, hd).permute(1, 0, 2, 3, 4)  # b s three head hd
        qk = qkv5[:, :, :2].permute(2, 0, 1, 3, 4).reshape(2, n, heads, hd).contiguous()
        rotated = torch.empty_like(qk)
        rotated.copy_(qk)  # the Triton rotary kernel's single output
        q, k = rotated.unbind(0)
        v = qkv5[0, :, 2]
        ctx = varlen_attention(q, k, v, n, hd).reshape(n, 1, d)
        proj = F.linear(ctx, *wo)
        del qkv, qkv5, qk, rotated, q, k, v, ctx
        x = x + proj
        del proj, n1
        n2 = F.layer_norm(x, (d,), *ln)
        act = F.gelu(F.linear(n2, *w1), approximate="tanh")
        mlp = F.linear(act, *w2)
        del act, n2
        hidden = x + mlp
        del mlp, x
        if layer in deep:
            features.append(merger(hidden))
    result = torch.cat([merger(hidden)] + features, dim=1)
    torch.cuda.synchronize()
    del result, features, hidden, pixels, pos, cos, sin
    return torch.cuda.max_memory_allocated() - base


def test_qwen3_vl_encoder_peak_matches_the_estimate():
    cfg, est = encoder_estimate("Qwen--Qwen3-VL-30B-A3B-Instruct-FP8", name="qwen3-vl", release=(0, 20, 2),
                                max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=32768)
    peak = _replay(cfg["vision_config"])
    record_and_check("qwen3_vl_encoder", peak, None, est)
