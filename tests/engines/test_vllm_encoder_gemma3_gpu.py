"""GPU check of the Gemma 3 encoder term (``engines/vllm/encoder_gemma3.py``; skipped without CUDA).

Replays, with plain torch ops and random bf16 weights, the tensors that the vllm 0.23.0 wheel's
``siglip.py`` (``SiglipVisionEmbeddings`` / ``SiglipEncoder`` / ``SiglipEncoderLayer`` / ``SiglipAttention`` /
``SiglipMLP`` ``.forward``) and ``gemma3_mm.py`` (``Gemma3MultiModalProjector.forward``) create on the profile's
dummy batch: 32 images of 896² (4,096 patches each) for gemma-3-4b-it under max_num_batched_tokens 8192.
Lifetimes: the caller keeps the dummy pixels; the patch embeddings stay referenced by ``SiglipEncoder.forward``
(``inputs_embeds``, ``hidden_states_pool``); each layer's input is held by the caller's loop variable; q, k and v
are ``chunk`` views handed to FlashAttention varlen (one sequence per image); ``nn.GELU(approximate="tanh")``.
Two layers are replayed (the peak is one layer's after the first, whatever the depth), then the post-layernorm and
the projector.  The replay checks the accounting of the live set as read, not vLLM itself.
"""

import pytest

from encoder_replay import (batched_varlen_attention, bf16_layer_norm, bf16_linear, cuda_torch, encoder_estimate,
                            peak_baseline, record_and_check)

torch = cuda_torch()
pytestmark = pytest.mark.gpu

F = torch.nn.functional


def _replay(cfg: dict, items: int) -> tuple[int, int]:
    dev, dt = torch.device("cuda"), torch.bfloat16
    vc = cfg["vision_config"]
    d, i, heads = vc["hidden_size"], vc["intermediate_size"], vc["num_attention_heads"]
    size, patch = vc["image_size"], vc["patch_size"]
    side = size // patch
    s, hd, text = side * side, d // heads, cfg["text_config"]["hidden_size"]
    w = bf16_linear
    conv = torch.randn(d, 3, patch, patch, device=dev, dtype=dt) * 0.02
    pos = torch.randn(1, s, d, device=dev, dtype=dt) * 0.02
    wqkv, wo, w1, w2 = w(3 * d, d), w(d, d), w(i, d), w(d, i)
    ln = bf16_layer_norm(d)
    proj = torch.randn(d, text, device=dev, dtype=dt) * 0.02
    base = peak_baseline(wo)  # cuBLAS workspace before the baseline
    pixels = torch.randn(items, 3, size, size, device=dev, dtype=dt)  # the dummy batch, kept by profile_run
    emb = F.conv2d(pixels, conv, stride=patch).flatten(2).transpose(1, 2)
    emb += pos
    hidden = emb  # inputs_embeds / hidden_states_pool keep emb through every layer
    for _ in range(2):
        x = hidden  # the caller's loop variable
        h = F.layer_norm(x, (d,), *ln)
        qkv = F.linear(h, *wqkv)
        q, k, v = (t.view(items, s, heads, hd).flatten(0, 1) for t in qkv.chunk(3, dim=-1))
        out = batched_varlen_attention(q, k, v, items, s, hd).view(items, s, d)
        del q, k, v, qkv
        attn = F.linear(out, *wo)
        del out, h
        attn += x
        residual = attn
        h2 = F.layer_norm(attn, (d,), *ln)
        f = F.linear(h2, *w1)
        f = F.gelu(f, approximate="tanh")
        down = F.linear(f, *w2)
        del f, h2
        down += residual
        del residual, attn, x
        hidden = down
        del down
    post = F.layer_norm(hidden, (d,), *ln)
    del hidden
    r = post.transpose(1, 2).reshape(items, d, side, side).contiguous()
    pooled = F.avg_pool2d(r, kernel_size=4, stride=4).flatten(2).transpose(1, 2)
    del r, post
    normed = (pooled.float() * torch.rsqrt(pooled.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(dt)
    outputs = torch.matmul(normed, proj)
    del normed, pooled, emb
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    kept = torch.cuda.memory_allocated() - base  # outputs + pixels
    del outputs, pixels
    return peak, kept


def test_gemma3_encoder_peak_matches_the_estimate():
    cfg, est = encoder_estimate("google--gemma-3-4b-it", release=(0, 23, 0), max_num_batched_tokens=8192,
                                max_num_seqs=256, max_model_len=8192)
    peak, kept = _replay(cfg, est.items)
    record_and_check("gemma3_encoder", peak, kept, est)
