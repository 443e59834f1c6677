"""Reference speculative-decoding passes on one GPU: the target's verify step, the EAGLE-3 draft step and the plain
decode step of the same run (random bf16 weights in the real shapes, TP 1, CUDA graphs).

    PYTHONPATH=src python bench/spec_reference.py --out spec_h200.json
    PYTHONPATH=src python bench/spec_reference.py --smoke --out smoke.json     # B 1, 16; D 2, 4; same checks
    PYTHONPATH=src python bench/spec_reference.py --device cpu --tiny --out t.json   # logic check without a GPU

It reuses ``bench/decode_reference.py`` (shapes from tpkit's catalog, ``Weights``, RoPE, the MoE, the plain
``decode_step``, graph timing) and adds two passes:

verify   B requests × D query tokens each over C cached tokens, the layers of the decode step on B·D rows: the D
         tokens' K/V are written at positions C … C+D−1, and each query token attends to the C cached tokens and
         causally to the D new ones (token t sees keys 0 … C+t); GQA folded as G·D query rows per KV head with
         an additive mask (SDPA; torch 2.11 runs it on the H200 as cuDNN's fused attention, the decode rows' backend
         too) and, on a GPU, again through FlashAttention-2 split-KV with bottom-right causal (``attention_kernel``
         ``mask`` / ``flash``); final norm and lm_head on all B·D rows, argmax.
draft    one EAGLE-3 step (sglang 0.5.6 models/llama_eagle3.py ``LlamaModel.forward`` /
         ``LlamaDecoderLayer``): embedding of the sampled tokens, (``fc`` 3·hidden → hidden only when the input
         hidden states are the target's three concatenated layers), input_layernorm(embeds) ‖ hidden_norm(hidden)
         → qkv GEMM from 2·hidden, RoPE, KV write, attention over the draft's C cached tokens, o, post norm, MLP,
         final norm, lm_head over the draft vocab (32,000 rows: SpecForge configs/llama3-8B-eagle3.json
         ``draft_vocab_size``, copied in tests/engines/data_vllm_issue11/SpecForge--llama3-8B-eagle3.json), top-k.
         The head's other widths are tpkit perf's EAGLE-3 head (``perf.spec.draft_spec``: the target's heads,
         KV heads, MLP width, head_dim hidden/heads).  Rows: B (chain, topk 1) and B·topk (tree step).
         ``draft_us`` is the engines' draft decode step (no fc: the hidden states are the draft's own);
         ``draft_fc_us`` the same step with the fc (the first/extend pass).
decode   the plain decode step of ``decode_reference`` at B and at B·D sequences over C cached tokens (the
         baseline of the ratio T_verify / T_decode, measured in the same run).

The KV cache is one pool of at most ``--kv-pool-gib`` shared round-robin by the layers (every layer still streams its
own rows from HBM: a layer's K/V read is larger than the L2), so B·D = 512 decode rows at C = 2048 fit next to the
weights.  The pool is also capped by what the GPU has left (``size_plan``): the free memory after the weights, less
the largest pass's activations (computed from the shapes) and a margin, in whole caches; the Qwen3-30B-A3B sweep
(57 GiB of weights) stopped with a CUDA OOM on an H100 (79.18 GiB) when the pool was the fixed 40 GiB
(docs/benchmarks.md §3.8).  ``--plan`` prints that plan for a GPU of ``--plan-total-bytes`` without allocating
anything (CPU).  Checks before timing, as decode_reference: graph replay = eager (same inputs), verify attention and
draft attention = an fp32 softmax reference with the causal mask.  Output: JSON with machine, checks and rows
(``kind`` verify / decode / draft), each with the median µs of ``--repeats`` timings after ``--warmup`` replays.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import decode_reference as dr  # noqa: E402  (bench/ is not a package)

BATCHES = (1, 4, 16, 64)
DRAFT_TOKENS = (2, 4, 8)
TOPKS = (1, 4, 8)
CONTEXT = 2048
DRAFT_VOCAB = 32000
"""EAGLE-3 heads' draft vocab (SpecForge configs/llama3-8B-eagle3.json ``draft_vocab_size``)"""
KEYS_ROW = ("model", "kind", "attention_kernel", "batch", "tokens", "context", "step_us", "step_us_all",
            "check_graph_vs_eager", "attention_only_us")


# ----------------------------------------------------------------------------------------------- memory plan
GIB = 2**30
H100_TOTAL_BYTES = 85_017_493_504
"""CUDA total of the H100 80GB HBM3 the device tool lends (machine.total_bytes of
docs/runs/decode_h100_moe_2026-12-05.json: 79.18 GiB)"""
CONTEXT_BYTES = int(0.76 * GIB)
"""memory the process holds outside PyTorch's allocator (CUDA context, cuBLAS/cuDNN handles): the session-15 OOM on
that H100 (docs/runs/spec_h100_llama_2026-12-05.json errors): 78.30 GiB in use by the process − 75.98 allocated −
1.56 reserved by PyTorch.  Only ``--plan`` uses it; on a GPU the plan reads ``torch.cuda.mem_get_info``"""
MARGIN_BYTES = 1 * GIB
"""left free beyond the computed activations, for what the free memory read after the weights does not count yet:
the libraries loaded at the first GEMM / attention (cuBLAS, cuBLASLt, cuDNN, flash kernels), at most the 0.76 GiB
everything outside PyTorch took at the end of session 15's H100 run (``CONTEXT_BYTES``, context included), and
torch's cuBLAS + cuBLASLt workspaces, 32 MiB each per stream on Hopper, for the two streams of the graph warm-up
(0.125 GiB): 0.89 GiB, rounded up (the run records its peak, ``peak_allocated_bytes``)"""


def weight_bytes(s: dict) -> int:
    """Bytes of ``decode_reference.Weights`` for shapes ``s`` (bf16), the 1 × 1 KV caches it starts with aside."""
    h, hd, heads, kv = s["hidden"], s["head_dim"], s["heads"], s["kv_heads"]
    per_layer = 2 * h + (heads + 2 * kv) * hd * h + h * heads * hd + (2 * hd if s["qk_norm"] else 0)
    if s["experts"]:
        per_layer += s["experts"] * (h + 3 * s["moe_inter"] * h)
    else:
        per_layer += 3 * s["inter"] * h
    return 2 * (2 * s["vocab"] * h + h + s["layers"] * per_layer)


def cache_bytes(s: dict, rows: int, positions: int) -> int:
    """Bytes of one pool cache: K and V, rows × KV heads × positions × head_dim, bf16."""
    return 2 * rows * s["kv_heads"] * positions * s["head_dim"] * 2


def activation_bytes(s: dict, rows: int, context: int, tokens: int) -> int:
    """An upper bound on the memory the largest pass (``rows`` = B·D query rows over ``context`` + ``tokens`` keys)
    holds beside the weights and the pool: its logits as ``timed`` keeps them (the graph's bf16 output, the eager
    call's bf16 logits and their fp32 copy, one warm-up call's bf16 logits: 10 bytes per logit), and twice (eager
    call, graph pool) every intermediate of one layer added up without reuse: the hidden-wide tensors, qkv, the q/k
    norms, RoPE's five temporaries per tensor, the attention output, the MoE's sorted rows, gate_up, activation,
    down output, weighting and unsort (top-k rows each), and attention scores with their softmax in fp32 as SDPA's
    math path would hold them (B · KV heads · G·D rows · keys); plus the per-layer outputs the attention-only graph
    keeps (``attention_only``: layers × rows × heads·head_dim)."""
    h, hd, heads, kv = s["hidden"], s["head_dim"], s["heads"], s["kv_heads"]
    logits = 10 * rows * s["vocab"]
    layer = 2 * rows * (4 * h + (heads + 2 * kv) * hd + 6 * (heads + kv) * hd + 2 * heads * hd)
    if s["experts"]:
        k, w = s["topk"], s["moe_inter"]
        layer += 2 * rows * k * (4 * h + 2 * w + 3 * w) + 6 * rows * s["experts"]
    else:
        layer += 2 * rows * 4 * s["inter"]
    batch = max(1, rows // max(tokens, 1))
    scores = 2 * 4 * batch * kv * (heads // kv) * tokens * (context + tokens)
    attention_only = 2 * s["layers"] * rows * heads * hd
    return logits + 2 * (layer + scores) + attention_only


def size_plan(s: dict, rows: int, positions: int, context: int, tokens: int, *, free_bytes: int,
              pool_cap_bytes: float, margin_bytes: int = MARGIN_BYTES) -> dict:
    """How many pool caches of ``rows`` × ``positions`` fit: ``free_bytes`` is the device memory left once the weights
    are on it; the pool gets what remains after the largest pass's activations and the margin, at most
    ``pool_cap_bytes``, in whole caches, at most one per layer.  ``caches`` 0: not even one fits (``fits`` False)."""
    per = cache_bytes(s, rows, positions)
    act = activation_bytes(s, rows, context, tokens)
    room = free_bytes - act - margin_bytes
    caches = max(0, min(s["layers"], int(min(room, pool_cap_bytes) // per)))
    return {"free_after_weights_bytes": int(free_bytes), "cache_bytes": per, "activation_bytes": act,
            "margin_bytes": margin_bytes, "pool_cap_bytes": int(pool_cap_bytes), "caches": caches,
            "pool_bytes": caches * per, "left_bytes": int(free_bytes - act - caches * per), "fits": caches >= 1}


def device_plan(s: dict, rows: int, positions: int, context: int, tokens: int, pool_cap_gib: float,
                free_total: tuple[int, int]) -> dict:
    """``size_plan`` on the GPU: ``free_total`` is ``torch.cuda.mem_get_info()`` read after the weights are built
    (and the allocator's cache emptied).  Prints the plan; raises when not one cache fits (which batches to drop)."""
    free, total = free_total
    plan = dict(size_plan(s, rows, positions, context, tokens, free_bytes=free, pool_cap_bytes=pool_cap_gib * GIB),
                total_bytes=int(total), weights_bytes=weight_bytes(s))
    print(s["id"], "memory plan", json.dumps(plan), flush=True)
    if not plan["fits"]:
        raise RuntimeError(f"{s['id']}: not one KV cache of {gib(plan['cache_bytes'])} ({rows} rows × {positions} "
                           f"positions) fits beside the weights ({gib(free)} free after them, "
                           f"{gib(plan['activation_bytes'])} for the largest pass); pass fewer --batches or "
                           f"--draft-tokens")
    return plan


def gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


# ----------------------------------------------------------------------------------------------- KV pool
def share_kv_pool(wts: dr.Weights, s: dict, rows: int, positions: int, pool_bytes: float, device: str,
                  caches: int | None = None) -> int:
    """Replace every layer's KV cache by one of ``n`` pool caches (rows × KV heads × positions × head_dim, round
    robin over the layers), ``n`` as many as ``pool_bytes`` holds (≥ 1, ≤ layers), or ``caches`` when given (the
    memory plan's).  Returns ``n``."""
    per = cache_bytes(s, rows, positions)
    n = caches if caches is not None else max(1, min(s["layers"], int(pool_bytes // per)))
    g = torch.Generator(device=device).manual_seed(1)
    pool = []
    for _ in range(n):
        shape = (rows, s["kv_heads"], positions, s["head_dim"])
        pool.append((torch.empty(shape, device=device, dtype=torch.bfloat16).normal_(generator=g),
                     torch.empty(shape, device=device, dtype=torch.bfloat16).normal_(generator=g)))
    for i, layer in enumerate(wts.layers):
        layer["k_cache"], layer["v_cache"] = pool[i % n]
    return n


# ----------------------------------------------------------------------------------------------- verify
def rope_rows(s: dict, start: int, tokens: int, device: str):
    """cos/sin (tokens, 1, head_dim) for positions start … start+tokens−1."""
    hd = s["head_dim"]
    inv = 1.0 / (s["rope_theta"] ** (torch.arange(0, hd, 2, device=device, dtype=torch.float32) / hd))
    ang = torch.arange(start, start + tokens, device=device, dtype=torch.float32)[:, None] * inv[None, :]
    cos = torch.cat([ang.cos(), ang.cos()], dim=-1).to(torch.bfloat16)
    sin = torch.cat([ang.sin(), ang.sin()], dim=-1).to(torch.bfloat16)
    return cos[:, None, :], sin[:, None, :]


def causal_bias(s: dict, tokens: int, context: int, device: str) -> torch.Tensor:
    """Additive bf16 mask (G·tokens, context+tokens) for the folded GQA rows (g, t): row t sees keys ≤ context+t.
    Allocated with the key length rounded up to 16 and sliced (the fused kernels want aligned mask rows)."""
    g = s["heads"] // s["kv_heads"]
    keys = context + tokens
    t = torch.arange(tokens, device=device).repeat(g)                   # row (gi, t) → t
    allowed = torch.arange(keys, device=device)[None, :] <= (context + t)[:, None]
    full = torch.zeros(g * tokens, -(-keys // 16) * 16, device=device, dtype=torch.bfloat16)
    full[:, :keys] = torch.where(allowed, 0.0, float("-inf")).to(torch.bfloat16)
    return full[:, :keys]


def verify_attention(q, k_cache, v_cache, batch: int, tokens: int, context: int, bias, s: dict):
    """q (B, T, H, hd) → (B·T, H·hd): per KV head the G·T rows (g, t) attend to context+T keys under ``bias``."""
    hkv, hd = s["kv_heads"], s["head_dim"]
    g = s["heads"] // hkv
    qg = q.view(batch, tokens, hkv, g, hd).permute(0, 2, 3, 1, 4).reshape(batch, hkv, g * tokens, hd)
    k = k_cache[:batch, :, : context + tokens]
    v = v_cache[:batch, :, : context + tokens]
    out = F.scaled_dot_product_attention(qg, k, v, attn_mask=bias)
    return out.view(batch, hkv, g, tokens, hd).permute(0, 3, 1, 2, 4).reshape(batch * tokens, s["heads"] * hd)


def verify_attention_flash(q, k_cache, v_cache, batch: int, tokens: int, context: int, s: dict):
    """The same attention through FlashAttention-2 (``aten._scaled_dot_product_flash_attention``, is_causal: for
    fewer queries than keys the mask is aligned bottom-right, token t sees keys ≤ context+t; GQA natively, the KV
    heads not repeated): the kind of kernel the engines verify with (FA / FlashInfer with a causal offset)."""
    hd = s["head_dim"]
    k = k_cache[:batch, :, : context + tokens]
    v = v_cache[:batch, :, : context + tokens]
    out = torch.ops.aten._scaled_dot_product_flash_attention(q.transpose(1, 2), k, v, 0.0, is_causal=True,
                                                             return_debug_mask=False, scale=1.0 / math.sqrt(hd))[0]
    return out.transpose(1, 2).reshape(batch * tokens, s["heads"] * hd)


def attend(q, layer, batch, tokens, context, bias, s):
    """``s["verify_kernel"]``: ``flash`` (FA2, causal bottom-right) or ``mask`` (SDPA with the additive mask)."""
    if s.get("verify_kernel") == "flash":
        return verify_attention_flash(q, layer["k_cache"], layer["v_cache"], batch, tokens, context, s)
    return verify_attention(q, layer["k_cache"], layer["v_cache"], batch, tokens, context, bias, s)


def attention_block(h, layer, batch, tokens, context, rope, bias, s):
    """qkv GEMM (input h: hidden or 2·hidden wide) → q/k norm → RoPE → KV write at context … → attention → o."""
    qkv = h @ layer["qkv"].t()
    hd, nh, nkv = s["head_dim"], s["heads"], s["kv_heads"]
    q = qkv[:, : nh * hd].view(batch, tokens, nh, hd)
    k = qkv[:, nh * hd: (nh + nkv) * hd].view(batch, tokens, nkv, hd)
    v = qkv[:, (nh + nkv) * hd:].view(batch, tokens, nkv, hd)
    if s["qk_norm"]:
        q = F.rms_norm(q, (hd,), layer["q_norm"], dr.EPS)
        k = F.rms_norm(k, (hd,), layer["k_norm"], dr.EPS)
    cos, sin = rope
    q = dr.apply_rope(q, cos, sin)
    k = dr.apply_rope(k, cos, sin)
    layer["k_cache"][:batch, :, context: context + tokens] = k.transpose(1, 2)
    layer["v_cache"][:batch, :, context: context + tokens] = v.transpose(1, 2)
    return attend(q, layer, batch, tokens, context, bias, s) @ layer["o"].t()


def mlp_block(h, layer, s):
    if s["experts"]:
        return dr.moe(h, layer, s)
    gu = h @ layer["gate_up"].t()
    return (F.silu(gu[:, : s["inter"]]) * gu[:, s["inter"]:]) @ layer["down"].t()


def verify_step(tokens, wts: dr.Weights, batch, ntok, context, rope, bias, s):
    """The target on B·T rows; logits of every row and their argmax."""
    x = F.embedding(tokens, wts.embed)
    res = torch.zeros_like(x)
    for layer in wts.layers:
        res = x + res
        h = F.rms_norm(res, (s["hidden"],), layer["in_norm"], dr.EPS)
        res = attention_block(h, layer, batch, ntok, context, rope, bias, s) + res
        x = mlp_block(F.rms_norm(res, (s["hidden"],), layer["post_norm"], dr.EPS), layer, s)
    logits = F.rms_norm(x + res, (s["hidden"],), wts.final_norm, dr.EPS) @ wts.lm_head.t()
    return logits, torch.argmax(logits, dim=-1)


# ----------------------------------------------------------------------------------------------- draft
def draft_shapes(s: dict, tiny: bool) -> dict:
    """The EAGLE-3 head's widths: perf.spec.draft_spec's (the target's heads / KV heads / MLP width, head_dim
    hidden/heads, no q/k norm, dense MLP), 1 layer, draft vocab 32,000 (1,000 when tiny), qkv input 2·hidden."""
    d = dict(s, layers=1, experts=0, topk=0, moe_inter=0, qk_norm=False, head_dim=s["hidden"] // s["heads"],
             draft_vocab=1000 if tiny else DRAFT_VOCAB, id=f"EAGLE3 head for {s['id']}")
    return d


class DraftWeights:
    """Random bf16 weights of one EAGLE-3 head (names of sglang's llama_eagle3: fc, midlayer, norm, lm_head)."""

    def __init__(self, d: dict, device: str):
        g = torch.Generator(device=device).manual_seed(2)
        h, hd = d["hidden"], d["head_dim"]

        def rnd(*shape):
            return (torch.randn(*shape, generator=g, device=device, dtype=torch.float32) * 0.02).to(torch.bfloat16)

        def ones(n):
            return torch.ones(n, device=device, dtype=torch.bfloat16)

        self.embed = rnd(d["vocab"], h)                 # the target's vocabulary (embed_tokens)
        self.fc = rnd(h, 3 * h)
        self.lm_head = rnd(d["draft_vocab"], h)
        self.final_norm = ones(h)
        self.layer = {"in_norm": ones(h), "hidden_norm": ones(h), "post_norm": ones(h),
                      "qkv": rnd((d["heads"] + 2 * d["kv_heads"]) * hd, 2 * h), "o": rnd(h, d["heads"] * hd),
                      "gate_up": rnd(2 * d["inter"], h), "down": rnd(h, d["inter"])}


def draft_input(tokens, hidden, dw: DraftWeights, d):
    """The EAGLE-3 layer's input: the token embedding and the (fc-reduced when 3·hidden wide) hidden state, each
    RMS-normed and concatenated (2·hidden wide), and the residual (the reduced hidden state)."""
    emb = F.embedding(tokens, dw.embed)
    if hidden.shape[-1] != emb.shape[-1]:
        hidden = hidden @ dw.fc.t()
    layer, hs = dw.layer, (d["hidden"],)
    h = torch.cat([F.rms_norm(emb, hs, layer["in_norm"], dr.EPS), F.rms_norm(hidden, hs, layer["hidden_norm"], dr.EPS)],
                  dim=-1)
    return h, hidden


def draft_step(tokens, hidden, dw: DraftWeights, batch, ntok, context, rope, bias, d, topk: int):
    """One EAGLE-3 forward on B·T rows: ``hidden`` is 3·hidden wide (the fc runs) or hidden wide (it does not)."""
    layer, hs = dw.layer, (d["hidden"],)
    h, res = draft_input(tokens, hidden, dw, d)
    res = attention_block(h, layer, batch, ntok, context, rope, bias, d) + res
    x = mlp_block(F.rms_norm(res, hs, layer["post_norm"], dr.EPS), layer, d)
    out = F.rms_norm(x + res, hs, dw.final_norm, dr.EPS)
    logits = out @ dw.lm_head.t()
    probs = torch.softmax(logits, dim=-1, dtype=torch.float32)
    return logits, torch.topk(probs, topk, dim=-1)


# ----------------------------------------------------------------------------------------------- checks
def check_verify_attention(layer, s: dict, device: str, tokens: int = 4, context: int = 64) -> float:
    """Max |masked SDPA − fp32 causal softmax reference|, batch 2, ``tokens`` query tokens after ``context``."""
    b, hd = 2, s["head_dim"]
    g = s["heads"] // s["kv_heads"]
    q = torch.randn(b, tokens, s["heads"], hd, device=device, dtype=torch.bfloat16)
    bias = causal_bias(s, tokens, context, device)
    got = attend(q, layer, b, tokens, context, bias, s).float()
    keys = context + tokens
    k = layer["k_cache"][:b, :, :keys].float().repeat_interleave(g, dim=1)          # (b, H, keys, hd)
    v = layer["v_cache"][:b, :, :keys].float().repeat_interleave(g, dim=1)
    scores = torch.einsum("bthd,bhkd->bhtk", q.float(), k) / math.sqrt(hd)
    allowed = torch.arange(keys, device=device)[None, :] <= (context + torch.arange(tokens, device=device))[:, None]
    att = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    ref = torch.einsum("bhtk,bhkd->bthd", att, v).reshape(b * tokens, -1)
    return float((got - ref).abs().max())


# ----------------------------------------------------------------------------------------------- timing
def timed(fn, row: dict, device: str, args) -> dict:
    """Eager call, graph capture, check graph = eager on the first output, warm-up, median of repeats."""
    eager = fn()[0].float()
    if device == "cpu":
        row.update(step_us=None, step_us_all=[], check_graph_vs_eager=0.0)
        return row
    graph, out = dr.capture(fn, warm=2)
    graph.replay()
    torch.cuda.synchronize()
    diff = float((out[0].float() - eager).abs().max())
    row["check_graph_vs_eager"] = diff / max(float(eager.abs().max()), 1e-12)
    for _ in range(args.warmup):
        graph.replay()
    one = dr.time_graph(graph, 2, 1)[0]
    iters = max(args.iters, math.ceil(2000.0 / max(one, 1.0)))     # ≥ ~2 ms of replays per timing
    times = dr.time_graph(graph, iters, args.repeats)
    row["iters"] = iters
    row["step_us"] = statistics.median(times)
    row["step_us_all"] = [round(t, 2) for t in times]
    del graph
    return row


def kernel_times(fn, device: str) -> dict | None:
    """GPU µs by kernel name of one eager call of ``fn``: the top 12 names (``decode_reference.kernel_times``)."""
    return dr.kernel_times(fn, device)


def attention_only(wts_layers, s, batch, ntok, context, bias, device, args) -> float | None:
    """µs of the attention kernels of all layers alone (graph-replayed), for the split of the verify step."""
    if device == "cpu":
        return None
    q = torch.ones(batch, ntok, s["heads"], s["head_dim"], device=device, dtype=torch.bfloat16)
    return dr.component_us(lambda: [attend(q, lay, batch, ntok, context, bias, s) for lay in wts_layers], args)


def run_model(key: str, args, device: str, result: dict) -> None:
    s = dr.shapes_of(dr.MODELS[key], args.tiny)
    c, batches, dtoks = args.context, args.batch_list, args.draft_list
    rows_max = max(max(batches) * max(dtoks), max(batches))
    positions = c + max(max(dtoks), max(args.topk_list)) + 1
    t0 = time.time()
    wts = dr.Weights(s, 1, 1, device)
    caches, plan = None, None
    if device != "cpu":
        torch.cuda.empty_cache()              # the fp32 temporaries of the weight build (1.5 GiB for a w13)
        torch.cuda.reset_peak_memory_stats()
        plan = device_plan(s, rows_max, positions, c, max(dtoks), args.kv_pool_gib, torch.cuda.mem_get_info())
        caches = plan["caches"]
    pools = share_kv_pool(wts, s, rows_max, positions, args.kv_pool_gib * GIB, device, caches)
    checks = {"kv_pool_caches": pools, "verify_attention_max_abs_err": check_verify_attention(wts.layers[0], s, device)}
    if plan is not None:
        checks["memory_plan"] = plan
    if s["experts"]:
        checks["moe_rel_err"] = dr.check_moe(wts, s, device)
    result["checks"][s["id"]] = checks
    print(s["id"], "weights+checks", round(time.time() - t0, 1), "s", checks, flush=True)
    gen = torch.Generator(device=device).manual_seed(0)
    # plain decode at B and B·D sequences over C cached tokens (decode_reference writes at context−1: pass C+1)
    for n in sorted(set(batches) | {b * t for b in batches for t in dtoks}):
        tokens = torch.randint(0, s["vocab"], (n,), device=device, generator=gen)
        rope = dr.rope_tables(s, c, device)
        row = {"model": s["id"], "kind": "decode", "batch": n, "tokens": 1, "context": c}
        row = timed(lambda: dr.decode_step(tokens, wts, n, c + 1, rope, s), row, device, args)
        if device != "cpu":
            row["attention_only_us"] = dr.component_us(lambda: dr.attention_all_layers(wts, s, n, c + 1), args)
        if n == 1:
            row["profile"] = kernel_times(lambda: dr.decode_step(tokens, wts, n, c + 1, rope, s), device)
        emit(result, row)
    kernels = ["mask"]
    if device != "cpu":
        try:
            err = check_verify_attention(wts.layers[0], dict(s, verify_kernel="flash"), device)
            checks["verify_flash_attention_max_abs_err"] = err
            if err <= 2e-2:
                kernels.append("flash")
        except Exception as exc:  # noqa: BLE001 - the FA2 variant is optional; the masked SDPA runs anyway
            checks["verify_attention_flash_error"] = f"{type(exc).__name__}: {exc}"
    for kernel in kernels:
        sk = dict(s, verify_kernel=kernel)
        for b in batches:
            for t in dtoks:
                tokens = torch.randint(0, s["vocab"], (b * t,), device=device, generator=gen)
                rope, bias = rope_rows(s, c, t, device), causal_bias(s, t, c, device)
                row = {"model": s["id"], "kind": "verify", "batch": b, "tokens": t, "context": c,
                       "attention_kernel": kernel}
                try:
                    row = timed(lambda: verify_step(tokens, wts, b, t, c, rope, bias, sk), row, device, args)
                    row["attention_only_us"] = attention_only(wts.layers, sk, b, t, c, bias, device, args)
                except Exception as exc:  # noqa: BLE001 - the FA2 rows are optional: record, go on
                    if kernel == "mask":
                        raise
                    checks.setdefault("verify_flash_errors", []).append(f"B{b} D{t}: {type(exc).__name__}: {exc}")
                    continue
                if b == 1 and t == 4:
                    row["profile"] = kernel_times(lambda: verify_step(tokens, wts, b, t, c, rope, bias, sk), device)
                emit(result, row)
    if device != "cpu":
        checks["peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
    del wts
    if device != "cpu":
        torch.cuda.empty_cache()
    d = draft_shapes(s, args.tiny)
    dw = DraftWeights(d, device)
    n_draft = share_kv_pool_draft(dw, d, max(batches), c + max(args.topk_list) + 1, device)
    checks["draft_attention_max_abs_err"] = check_verify_attention(dw.layer, d, device)
    checks["draft_kv_rows"] = n_draft
    for b in batches:
        for k in args.topk_list:
            tokens = torch.randint(0, s["vocab"], (b * k,), device=device, generator=gen)
            rope, bias = rope_rows(d, c, k, device), causal_bias(d, k, c, device)
            own = torch.randn(b * k, d["hidden"], device=device, dtype=torch.bfloat16)
            cat3 = torch.randn(b * k, 3 * d["hidden"], device=device, dtype=torch.bfloat16)
            for fc, hidden in ((False, own), (True, cat3)):
                row = {"model": d["id"], "kind": "draft_fc" if fc else "draft", "batch": b, "tokens": k, "context": c,
                       "draft_vocab": d["draft_vocab"], "topk": k}
                row = timed(lambda: draft_step(tokens, hidden, dw, b, k, c, rope, bias, d, k), row, device, args)
                if (b, k) in ((1, 1), (64, 8)):
                    row["profile"] = kernel_times(lambda: draft_step(tokens, hidden, dw, b, k, c, rope, bias, d, k),
                                                  device)
                emit(result, row)
    del dw
    if device != "cpu":
        torch.cuda.empty_cache()


def share_kv_pool_draft(dw: DraftWeights, d: dict, rows: int, positions: int, device: str) -> int:
    """The draft layer's own KV cache (rows × KV heads × positions × head_dim)."""
    g = torch.Generator(device=device).manual_seed(3)
    shape = (rows, d["kv_heads"], positions, d["head_dim"])
    dw.layer["k_cache"] = torch.empty(shape, device=device, dtype=torch.bfloat16).normal_(generator=g)
    dw.layer["v_cache"] = torch.empty(shape, device=device, dtype=torch.bfloat16).normal_(generator=g)
    return rows


def print_plan(args) -> int:
    """``--plan``: the memory plan of every model of ``--models`` on a GPU of ``--plan-total-bytes`` (CPU, nothing
    allocated); exit 1 when a model does not fit."""
    ok = True
    for key in args.models.split(","):
        s = dr.shapes_of(dr.MODELS[key], args.tiny)
        rows = max(max(args.batch_list) * max(args.draft_list), max(args.batch_list))
        positions = args.context + max(max(args.draft_list), max(args.topk_list)) + 1
        wb = weight_bytes(s)
        free = args.plan_total_bytes - CONTEXT_BYTES - wb
        plan = size_plan(s, rows, positions, args.context, max(args.draft_list), free_bytes=free,
                         pool_cap_bytes=args.kv_pool_gib * GIB)
        ok = ok and plan["fits"]
        print(f"{s['id']}: GPU {gib(args.plan_total_bytes)} − context {gib(CONTEXT_BYTES)} − weights {gib(wb)} = "
              f"{gib(free)} free; largest pass {rows} rows: activations ≤ {gib(plan['activation_bytes'])}, margin "
              f"{gib(plan['margin_bytes'])}; pool {plan['caches']} × {gib(plan['cache_bytes'])} = "
              f"{gib(plan['pool_bytes'])} (cap {args.kv_pool_gib:g} GiB); left {gib(plan['left_bytes'])}"
              + ("" if plan["fits"] else "  DOES NOT FIT"))
    return 0 if ok else 1


def emit(result: dict, row: dict) -> None:
    result["rows"].append(row)
    print(json.dumps({k: row.get(k) for k in KEYS_ROW if k != "step_us_all"}), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = dr.run_args(__doc__.split("\n")[0], batches=BATCHES)
    ap.add_argument("--draft-tokens", default=",".join(map(str, DRAFT_TOKENS)), help="D: verify tokens per request")
    ap.add_argument("--topks", default=",".join(map(str, TOPKS)), help="draft rows per request (tree step)")
    ap.add_argument("--context", type=int, default=CONTEXT)
    ap.add_argument("--kv-pool-gib", type=float, default=40.0,
                    help="most GiB for the shared KV pool (less where the GPU has less left: size_plan)")
    ap.add_argument("--smoke", action="store_true", help="B 1,16; D 2,4; topk 1,4 only")
    ap.add_argument("--plan", action="store_true",
                    help="print the memory plan of every model for a GPU of --plan-total-bytes and exit (no GPU)")
    ap.add_argument("--plan-total-bytes", type=int, default=H100_TOTAL_BYTES,
                    help="CUDA total of the GPU --plan sizes for (default: the H100 80GB HBM3, 79.18 GiB)")
    args = ap.parse_args(argv)
    args.batch_list = (1, 16) if args.smoke else tuple(int(b) for b in args.batches.split(","))
    args.draft_list = (2, 4) if args.smoke else tuple(int(t) for t in args.draft_tokens.split(","))
    args.topk_list = (1, 4) if args.smoke else tuple(int(k) for k in args.topks.split(","))
    if args.tiny:
        args.context = min(args.context, 64)
        args.kv_pool_gib = min(args.kv_pool_gib, 0.01)
    bad = [f"{flag} {v}" for flag, vals in (("--batches", args.batch_list), ("--draft-tokens", args.draft_list),
                                            ("--topks", args.topk_list)) for v in vals if v < 1]
    if bad or args.context < 1:
        print(f"spec_reference: every batch, draft-token count, topk and the context must be ≥ 1; got "
              f"{', '.join(bad) or f'--context {args.context}'}", file=sys.stderr)
        return 2
    if args.plan:
        return print_plan(args)
    device = args.device
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
    result = {"command": " ".join(sys.argv if argv is None else ["bench/spec_reference.py", *argv]),
              "machine": dr.machine(device), "context": args.context, "batches": list(args.batch_list),
              "draft_tokens": list(args.draft_list), "topks": list(args.topk_list), "checks": {}, "rows": [],
              "errors": []}
    print(json.dumps(result["machine"]), flush=True)
    for key in args.models.split(","):
        try:
            run_model(key, args, device, result)
        except Exception as exc:  # noqa: BLE001 - record and go on to the next model
            result["errors"].append(f"{dr.MODELS.get(key, key)}: {type(exc).__name__}: {exc}")
            print("ERROR", result["errors"][-1], flush=True)
        if device != "cpu":
            torch.cuda.empty_cache()
        Path(args.out).write_text(json.dumps(result, indent=1))
    bad = [r for r in result["rows"] if (r.get("check_graph_vs_eager") or 0) > 1e-2]
    att = [v for c in result["checks"].values() if isinstance(c, dict)
           for k, v in c.items() if k.endswith("attention_max_abs_err") and v > 2e-2]
    result["checks"]["graph_vs_eager_failures"] = len(bad)
    result["checks"]["attention_failures"] = len(att)
    Path(args.out).write_text(json.dumps(result, indent=1))
    return 1 if bad or att or result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
