"""GPU check of the LLaVA-NeXT encoder term (``engines/vllm/encoder_llava.py``; skipped without CUDA), helper q2n.

Replays, with plain torch ops and random bf16 weights, the tensors that the vllm 0.10.2 wheel's ``clip.py``
(``CLIPVisionEmbeddings`` / ``CLIPEncoder`` / ``CLIPEncoderLayer`` / ``CLIPAttention`` / ``CLIPMLP`` ``.forward``,
``QuickGELU.forward_native``) and ``llava_next.py`` (``_process_image_pixels``, ``LlavaMultiModalProjector.forward``,
``_merge_image_patch_embeddings``) create on the profile's dummy batch: vl_031's 5 images of 672² (5 crops of 336²
each, 577 CLIP tokens per crop) for llava-v1.6-mistral-7b-hf under max_num_batched_tokens 16384.  Lifetimes: the
caller keeps the dummy pixels; ``pre_layrnorm``'s output stays referenced by ``CLIPEncoder.forward``'s
``hidden_states_pool`` and the transformer's local; each layer's input is held by the caller's loop variable; q, k
and v are ``chunk`` views handed to the kernel (FlashAttention varlen here, one sequence per crop; vLLM 0.10.2 runs
xFormers over the same views); QuickGELU's native ``x * sigmoid(1.702 x)``.  Two layers are replayed (the peak is
one layer's after the first, whatever the depth), then the projector (its ``linear_1`` on the ``[:, 1:]`` slice)
and the per-image merge.  The replay checks the accounting of the live set as read, not vLLM itself.
"""

import pytest

from encoder_replay import (batched_varlen_attention, bf16_layer_norm, bf16_linear, cuda_torch, encoder_estimate,
                            peak_baseline, record_and_check)

torch = cuda_torch()
pytestmark = pytest.mark.gpu

F = torch.nn.functional


def _replay(cfg: dict, items: int, crops_per_item: int, grid_hw: tuple[int, int]) -> tuple[int, int]:
    dev, dt = torch.device("cuda"), torch.bfloat16
    vc = cfg["vision_config"]
    d, i, heads = vc["hidden_size"], vc["intermediate_size"], vc["num_attention_heads"]
    size, patch = vc["image_size"], vc["patch_size"]
    side = size // patch
    s, hd, text = side * side + 1, d // heads, cfg["text_config"]["hidden_size"]
    crops = items * crops_per_item
    w = bf16_linear
    conv = torch.randn(d, 3, patch, patch, device=dev, dtype=dt) * 0.02
    cls = torch.randn(d, device=dev, dtype=dt) * 0.02
    pos = torch.randn(s, d, device=dev, dtype=dt) * 0.02
    wqkv, wo, w1, w2 = w(3 * d, d), w(d, d), w(i, d), w(d, i)
    p1, p2 = w(text, d), w(text, text)
    ln = bf16_layer_norm(d)
    newline = torch.randn(text, device=dev, dtype=dt) * 0.02
    base = peak_baseline(wo)  # cuBLAS workspace before the baseline
    pixels = torch.randn(items, crops_per_item, 3, size, size, device=dev, dtype=dt)  # kept by profile_run
    stacked = pixels.view(crops, 3, size, size)
    patch_embeds = F.conv2d(stacked, conv, stride=patch).flatten(2).transpose(1, 2)
    cat = torch.cat([cls.expand(crops, 1, -1), patch_embeds], dim=1)
    embeddings = cat + pos
    del cat, patch_embeds
    emb = F.layer_norm(embeddings, (d,), *ln)  # pre_layrnorm; the pool and the transformer's local keep it
    del embeddings
    hidden = emb
    for _ in range(2):
        x = hidden  # the caller's loop variable
        h = F.layer_norm(x, (d,), *ln)
        qkv = F.linear(h, *wqkv)
        q, k, v = (t.view(crops, s, heads, hd).flatten(0, 1) for t in qkv.chunk(3, dim=-1))
        out = batched_varlen_attention(q, k, v, crops, s, hd).view(crops, s, d)
        del q, k, v
        attn = F.linear(out, *wo)
        del out, qkv, h
        s1 = x + attn
        del attn
        h2 = F.layer_norm(s1, (d,), *ln)
        f = F.linear(h2, *w1)
        sg = torch.sigmoid(1.702 * f)
        g = f * sg
        del sg, f
        down = F.linear(g, *w2)
        del g, h2
        hidden = s1 + down
        del down, s1, x
    tower = hidden
    del hidden, emb  # the transformer returns: its local and the pool let go of the embeddings
    selected = tower[:, 1:]
    lin1 = F.linear(selected, *p1)
    act = F.gelu(lin1)
    del lin1
    projected = F.linear(act, *p2)
    del act, selected, tower
    per_item = projected.view(items, crops_per_item, side * side, text)
    rows, cols = grid_hw
    merged = []
    for pe in per_item:
        base_embeds = pe[0]
        other = pe[1:][: rows * cols].view(rows, cols, side, side, -1)
        other = other.permute(4, 0, 2, 1, 3).contiguous().flatten(1, 2).flatten(2, 3)
        other = torch.cat((other, newline[:, None, None].expand(*other.shape[:-1], 1)), dim=-1)
        other = other.flatten(1, 2).transpose(0, 1)
        merged.append(torch.cat((base_embeds, other), dim=0))
        del other, base_embeds, pe
    del per_item, projected
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    kept = torch.cuda.memory_allocated() - base  # the merged outputs + pixels
    del merged, pixels, stacked
    return peak, kept


def test_llava_next_encoder_peak_matches_the_estimate():
    cfg, est = encoder_estimate("llava-hf--llava-v1.6-mistral-7b-hf", release=(0, 10, 2),
                                max_num_batched_tokens=16384, max_num_seqs=1024, max_model_len=4096)
    assert est.items == 5
    peak, kept = _replay(cfg, est.items, 5, (2, 2))
    record_and_check("llava_next_encoder", peak, kept, est)
