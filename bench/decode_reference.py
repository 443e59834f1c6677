"""Reference decode step on one GPU: random weights in a real model's shapes, bf16, TP 1, CUDA graphs.

    PYTHONPATH=src python bench/decode_reference.py --out decode_h200.json
    PYTHONPATH=src python bench/decode_reference.py --smoke --out smoke.json      # small sweep, same checks
    PYTHONPATH=src python bench/decode_reference.py --device cpu --tiny            # logic check without a GPU
    PYTHONPATH=src torchrun --nproc-per-node 2 bench/decode_reference.py --out tp2.json   # TP 2 (NVLink)
    NCCL_P2P_DISABLE=1 PYTHONPATH=src torchrun --nproc-per-node 2 bench/decode_reference.py --out tp2_nop2p.json
                                                                                   # TP 2, PCIe stand-in
Under torchrun each rank holds 1/tp of the heads, MLP/expert widths and vocab (Megatron layout: qkv and
gate_up column-parallel, o and down row-parallel, vocab-parallel embedding and lm_head), with an NCCL
all-reduce after o, after the MLP/MoE and after the embedding, and an all-gather of the logits.

What one step is (per decoder layer, the way SGLang/vLLM lay a TP-1 decode step out):
    add + RMSNorm → fused qkv GEMM → (q/k RMSNorm for Qwen3) → RoPE → KV write at position C-1
    → attention over C cached tokens (SDPA flash; GQA as G query rows per KV head) → o GEMM
    → add + RMSNorm → MLP (gate_up GEMM, SiLU·mul, down GEMM)
               or MoE (router GEMM, softmax top-k, sort by expert, grouped GEMMs, weighted sum)
    final RMSNorm → lm_head GEMM (B × vocab) → argmax
Shapes come from tpkit's model catalog (``tpkit.models.load_model``), so the prediction and the
measurement read the same ModelSpec.

Before timing, every configuration is checked: the graph replay's logits equal the eager step's
(same inputs), attention equals an fp32 softmax reference, and the grouped-GEMM MoE equals a
per-expert loop.  Micro-benchmarks measured in the same run (copy bandwidth, bf16 GEMM rate, the
cost of one tiny kernel inside a CUDA graph) are written next to the step times; the cost model's
constants are compared with them in docs/benchmarks.md.

Output: one JSON object (``--out``): machine facts, micro-benchmarks, checks, and per (model, context,
batch) the median µs of one graph-replayed decode step plus the graph's kernel count.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time

import torch
import torch.nn.functional as F

MODELS = {"dense": "meta-llama/Llama-3.1-8B-Instruct", "moe": "Qwen/Qwen3-30B-A3B"}
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
CONTEXTS = (512, 2048)
EPS = 1e-6
ENV_KEYS = ("NCCL_P2P_DISABLE", "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NCCL_ALGO", "NCCL_PROTO")


# ----------------------------------------------------------------------------------------------- shapes
def shapes_of(model_id: str, tiny: bool, tp: int = 1) -> dict:
    """Per-rank dimensions of one decode step, from tpkit's ModelSpec (``tiny`` shrinks them for CPU)."""
    from tpkit.models import load_model

    spec = load_model(model_id)
    s = {"id": model_id, "hidden": spec.hidden_size, "layers": spec.num_layers, "heads": spec.num_attention_heads,
         "kv_heads": spec.num_kv_heads, "head_dim": spec.head_dim, "inter": spec.intermediate_size,
         "vocab": spec.vocab_size, "qk_norm": bool(spec.extra.get("qk_norm")), "experts": 0, "topk": 0,
         "moe_inter": 0, "rope_theta": float(spec.extra.get("rope_theta", 500000.0) or 500000.0)}
    if spec.moe is not None:
        s.update(experts=spec.moe.num_experts, topk=spec.moe.experts_per_token, moe_inter=spec.moe.moe_intermediate_size)
    if tiny:
        s.update(hidden=256, layers=2, heads=8, kv_heads=2, head_dim=32, inter=512, vocab=1000,
                 experts=min(s["experts"], 16), moe_inter=128 if s["experts"] else 0)
    s["tp"] = tp
    if tp > 1:
        assert s["heads"] % tp == 0 and s["inter"] % tp == 0 and s["moe_inter"] % tp == 0, "tp must divide the widths"
        s.update(heads=s["heads"] // tp, kv_heads=max(1, s["kv_heads"] // tp), inter=s["inter"] // tp,
                 moe_inter=s["moe_inter"] // tp, vocab=-(-s["vocab"] // (64 * tp)) * 64)
    return s


def all_reduce(x, s):
    if s["tp"] > 1:
        torch.distributed.all_reduce(x)
    return x


# ----------------------------------------------------------------------------------------------- model
class Weights:
    """Random bf16 weights (std 0.02, norms 1) in the model's shapes; KV cache for Bmax × Cmax."""

    def __init__(self, s: dict, bmax: int, cmax: int, device: str):
        g = torch.Generator(device=device).manual_seed(0)
        dt, h, hd = torch.bfloat16, s["hidden"], s["head_dim"]
        qkv_out = (s["heads"] + 2 * s["kv_heads"]) * hd

        def rnd(*shape):
            return (torch.randn(*shape, generator=g, device=device, dtype=torch.float32) * 0.02).to(dt)

        self.embed = rnd(s["vocab"], h)
        self.lm_head = rnd(s["vocab"], h)
        self.final_norm = torch.ones(h, device=device, dtype=dt)
        self.layers = []
        for _ in range(s["layers"]):
            layer = {"in_norm": torch.ones(h, device=device, dtype=dt), "post_norm": torch.ones(h, device=device, dtype=dt),
                     "qkv": rnd(qkv_out, h), "o": rnd(h, s["heads"] * hd)}
            if s["qk_norm"]:
                layer["q_norm"] = torch.ones(hd, device=device, dtype=dt)
                layer["k_norm"] = torch.ones(hd, device=device, dtype=dt)
            if s["experts"]:
                e, w = s["experts"], s["moe_inter"]
                layer["router"] = rnd(e, h)
                layer["w13"] = rnd(e, 2 * w, h)          # (E, N, K): passed transposed to _grouped_mm
                layer["w2"] = rnd(e, h, w)
            else:
                layer["gate_up"] = rnd(2 * s["inter"], h)
                layer["down"] = rnd(h, s["inter"])
            kv_shape = (bmax, s["kv_heads"], cmax, hd)
            layer["k_cache"] = torch.empty(kv_shape, device=device, dtype=dt).normal_(generator=g)
            layer["v_cache"] = torch.empty(kv_shape, device=device, dtype=dt).normal_(generator=g)
            self.layers.append(layer)


def weights_bytes(s: dict, bmax: int, cmax: int) -> int:
    """Bytes ``Weights`` allocates (bf16): embedding, lm_head, per layer the projections, the MLP or experts and
    the KV cache for ``bmax`` × ``cmax`` tokens."""
    h, hd = s["hidden"], s["head_dim"]
    per_layer = (s["heads"] + 2 * s["kv_heads"]) * hd * h + h * s["heads"] * hd
    if s["experts"]:
        per_layer += s["experts"] * (h + 3 * s["moe_inter"] * h)
    else:
        per_layer += 3 * s["inter"] * h
    per_layer += 2 * bmax * s["kv_heads"] * cmax * hd
    return 2 * (2 * s["vocab"] * h + s["layers"] * per_layer)


def check_fits(s: dict, bmax: int, cmax: int, free_bytes: int) -> None:
    """Refuse, before any allocation, a sweep whose weights and KV cache exceed the card's free memory, with the
    numbers and the flags that shrink it (an H100's 80 GB cannot hold Llama-3.1-8B's cache for 256 × 2048)."""
    need = weights_bytes(s, bmax, cmax)
    if need > free_bytes:
        raise MemoryError(
            f"{s['id']}: weights and a KV cache for batch {bmax} × context {cmax} need {need / 2**30:.2f} GiB, "
            f"the card has {free_bytes / 2**30:.2f} GiB free; pass smaller --batches or --contexts "
            f"(the KV cache is {2 * s['layers'] * 2 * bmax * s['kv_heads'] * cmax * s['head_dim'] / 2**30:.2f} GiB "
            f"of it)")


def rope_tables(s: dict, position: int, device: str):
    hd = s["head_dim"]
    inv = 1.0 / (s["rope_theta"] ** (torch.arange(0, hd, 2, device=device, dtype=torch.float32) / hd))
    ang = position * inv
    cos = torch.cat([ang.cos(), ang.cos()]).to(torch.bfloat16)
    sin = torch.cat([ang.sin(), ang.sin()]).to(torch.bfloat16)
    return cos, sin


def apply_rope(x, cos, sin):
    half = x.shape[-1] // 2
    rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rot * sin


def attention(q, k_cache, v_cache, batch: int, context: int, s: dict):
    """q (B, H, D) → (B, H·D): GQA as G = H/Hkv query rows per KV head, no mask (decode: all C keys)."""
    hkv, hd = s["kv_heads"], s["head_dim"]
    g = s["heads"] // hkv
    qg = q.view(batch, hkv, g, hd)
    k = k_cache[:batch, :, :context]
    v = v_cache[:batch, :, :context]
    out = F.scaled_dot_product_attention(qg, k, v)
    return out.reshape(batch, s["heads"] * hd)


def route(x, layer, s: dict):
    """Router GEMM, softmax, top-k, renormalised weights (Qwen3 norm_topk_prob)."""
    probs = torch.softmax(x @ layer["router"].t(), dim=-1, dtype=torch.float32)
    top_w, top_i = torch.topk(probs, s["topk"], dim=-1)
    return top_w / top_w.sum(dim=-1, keepdim=True), top_i


def moe(x, layer, s: dict):
    """Top-k routing, tokens sorted by expert, two grouped GEMMs (torch._grouped_mm), weighted sum."""
    top_w, top_i = route(x, layer, s)
    return moe_experts(x, layer, s, top_w, top_i)


def moe_experts(x, layer, s, top_w, top_i):
    t, e, k = x.shape[0], s["experts"], s["topk"]
    flat = top_i.reshape(-1)
    order = torch.argsort(flat, stable=True)
    counts = torch.zeros(e, device=x.device, dtype=torch.int32).scatter_add_(0, flat.int(), torch.ones_like(flat, dtype=torch.int32))
    offs = torch.cumsum(counts, 0, dtype=torch.int32)
    xs = x[order // k]
    gu = torch._grouped_mm(xs, layer["w13"].transpose(-2, -1), offs=offs)
    w = s["moe_inter"]
    act = F.silu(gu[:, :w]) * gu[:, w:]
    y = torch._grouped_mm(act, layer["w2"].transpose(-2, -1), offs=offs)
    y = y * top_w.reshape(-1)[order].unsqueeze(1).to(y.dtype)
    unsorted = torch.empty_like(y)
    unsorted[order] = y
    return unsorted.view(t, k, -1).sum(dim=1)


def moe_loop_reference(x, layer, s: dict, top_w, top_i):
    """The same experts (same routing), one expert at a time in fp32 (the check for the grouped path)."""
    out = torch.zeros(x.shape[0], x.shape[1], device=x.device, dtype=torch.float32)
    w = s["moe_inter"]
    for tok in range(x.shape[0]):
        for j in range(s["topk"]):
            ex = int(top_i[tok, j])
            gu = layer["w13"][ex].float() @ x[tok].float()
            act = F.silu(gu[:w]) * gu[w:]
            out[tok] += top_w[tok, j] * (layer["w2"][ex].float() @ act)
    return out


def layer_step(x, res, layer, batch, context, rope, s):
    res = x + res
    h = F.rms_norm(res, (s["hidden"],), layer["in_norm"], EPS)
    qkv = h @ layer["qkv"].t()
    hd, nh, nkv = s["head_dim"], s["heads"], s["kv_heads"]
    q = qkv[:, : nh * hd].view(batch, nh, hd)
    k = qkv[:, nh * hd: (nh + nkv) * hd].view(batch, nkv, hd)
    v = qkv[:, (nh + nkv) * hd:].view(batch, nkv, hd)
    if s["qk_norm"]:
        q = F.rms_norm(q, (hd,), layer["q_norm"], EPS)
        k = F.rms_norm(k, (hd,), layer["k_norm"], EPS)
    cos, sin = rope
    q = apply_rope(q, cos, sin)
    k = apply_rope(k, cos, sin)
    layer["k_cache"][:batch, :, context - 1] = k
    layer["v_cache"][:batch, :, context - 1] = v
    a = attention(q, layer["k_cache"], layer["v_cache"], batch, context, s)
    x = all_reduce(a @ layer["o"].t(), s)
    res = x + res
    h = F.rms_norm(res, (s["hidden"],), layer["post_norm"], EPS)
    if s["experts"]:
        return all_reduce(moe(h, layer, s), s), res
    gu = h @ layer["gate_up"].t()
    act = F.silu(gu[:, : s["inter"]]) * gu[:, s["inter"]:]
    return all_reduce(act @ layer["down"].t(), s), res


def embed(tokens, wts: Weights, s):
    """Vocab-parallel embedding: rows outside this rank's shard read as zero, then all-reduce."""
    if s["tp"] == 1:
        return F.embedding(tokens, wts.embed)
    start = torch.distributed.get_rank() * s["vocab"]
    local = tokens - start
    inside = (local >= 0) & (local < s["vocab"])
    x = F.embedding(local.clamp(0, s["vocab"] - 1), wts.embed) * inside.unsqueeze(1).to(torch.bfloat16)
    return all_reduce(x, s)


def decode_step(tokens, wts: Weights, batch, context, rope, s):
    x = embed(tokens, wts, s)
    res = torch.zeros_like(x)
    for layer in wts.layers:
        x, res = layer_step(x, res, layer, batch, context, rope, s)
    h = F.rms_norm(x + res, (s["hidden"],), wts.final_norm, EPS)
    logits = h @ wts.lm_head.t()
    if s["tp"] > 1:
        full = torch.empty(s["tp"] * batch, s["vocab"], device=logits.device, dtype=logits.dtype)
        torch.distributed.all_gather_into_tensor(full, logits)
        logits = full.view(s["tp"], batch, s["vocab"]).permute(1, 0, 2).reshape(batch, -1)
    return logits, torch.argmax(logits, dim=-1)


# ----------------------------------------------------------------------------------------------- checks
def check_attention(wts: Weights, s: dict, device: str) -> float:
    """Max |SDPA − fp32 softmax reference| for one layer, batch 2, context 64."""
    b, c = 2, 64
    q = torch.randn(b, s["heads"], s["head_dim"], device=device, dtype=torch.bfloat16)
    layer = wts.layers[0]
    got = attention(q, layer["k_cache"], layer["v_cache"], b, c, s).float()
    g = s["heads"] // s["kv_heads"]
    k = layer["k_cache"][:b, :, :c].float().repeat_interleave(g, dim=1)
    v = layer["v_cache"][:b, :, :c].float().repeat_interleave(g, dim=1)
    att = torch.softmax(torch.einsum("bhd,bhcd->bhc", q.float(), k) / math.sqrt(s["head_dim"]), dim=-1)
    ref = torch.einsum("bhc,bhcd->bhd", att, v).reshape(b, -1)
    return float((got - ref).abs().max())


def check_moe(wts: Weights, s: dict, device: str) -> float:
    """Max |grouped-GEMM MoE − per-expert fp32 loop| relative to the output's max, 4 tokens."""
    x = torch.randn(4, s["hidden"], device=device, dtype=torch.bfloat16)
    top_w, top_i = route(x, wts.layers[0], s)
    got = moe_experts(x, wts.layers[0], s, top_w, top_i).float()
    ref = moe_loop_reference(x, wts.layers[0], s, top_w, top_i)
    return float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-12))


def kernel_census(fn) -> dict:
    """GPU kernels one eager call of ``fn`` launches (torch.profiler): total and count by name."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names: dict[str, int] = {}
    for ev in prof.events():
        if ev.device_type.name == "CUDA":
            key = ev.name[:90]
            names[key] = names.get(key, 0) + 1
    return {"total": sum(names.values()), "by_name": dict(sorted(names.items(), key=lambda kv: -kv[1]))}


def kernel_times(fn, device: str, *, top: int | None = 12, name_chars: int = 80, key: str = "top") -> dict | None:
    """GPU µs by kernel name of one eager call of ``fn`` (torch.profiler; a diagnostic split): the ``top`` names
    (all when None), each cut to ``name_chars``, under ``key``.  None on CPU; a profiler error is returned, not
    raised.  Shared by bench/spec_reference.py and bench/draft_breakdown.py."""
    if device == "cpu":
        return None
    from torch.profiler import ProfilerActivity, profile

    try:
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        by: dict[str, list] = {}
        for ev in prof.events():
            if ev.device_type.name == "CUDA":
                row = by.setdefault(ev.name[:name_chars], [0, 0.0])
                row[0] += 1
                row[1] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
        ranked = sorted(by.items(), key=lambda kv: -kv[1][1])[:top]
        return {"kernels": sum(v[0] for v in by.values()), "gpu_us": round(sum(v[1] for v in by.values()), 1),
                key: {k: [v[0], round(v[1], 1)] for k, v in ranked}}
    except Exception as exc:  # noqa: BLE001 - a diagnostic
        return {"error": f"{type(exc).__name__}: {exc}"}


# ----------------------------------------------------------------------------------------------- timing
def time_graph(graph, iters: int, repeats: int) -> list[float]:
    """Median-able list of µs per replay (CUDA events around ``iters`` replays, ``repeats`` times)."""
    out = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            graph.replay()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) * 1000.0 / iters)
    return out


def warm_on_side_stream(fn, times: int) -> None:
    """``fn`` called ``times`` times on a side stream, then joined to the current one: the warm-up torch asks for
    before a CUDA-graph capture.  Shared by spec_reference.py and draft_breakdown.py (``capture``)."""
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(times):
            fn()
    torch.cuda.current_stream().wait_stream(side)


def capture(fn, warm: int = 1):
    """``fn`` captured in a CUDA graph after ``warm`` side-stream calls (``warm_on_side_stream``): (graph, the
    captured outputs)."""
    warm_on_side_stream(fn, warm)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph, out


def run_config(wts, s, batch, context, device, args):
    gen = torch.Generator(device=device).manual_seed(batch)
    tokens = torch.randint(0, s["vocab"], (batch,), device=device, generator=gen)
    rope = rope_tables(s, context - 1, device)
    eager_logits, _ = decode_step(tokens, wts, batch, context, rope, s)
    row = {"model": s["id"], "batch": batch, "context": context}
    if device == "cpu":
        row.update(step_us=None, check_graph_vs_eager=0.0)
        return row
    warm_on_side_stream(lambda: decode_step(tokens, wts, batch, context, rope, s), 2)
    if batch in (1, 64) and context == args.first_context:
        try:
            row["kernels"] = kernel_census(lambda: decode_step(tokens, wts, batch, context, rope, s))
        except Exception as exc:  # noqa: BLE001 - the census is a diagnostic
            row["kernels"] = {"error": f"{type(exc).__name__}: {exc}"}
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        g_logits, _ = decode_step(tokens, wts, batch, context, rope, s)
    graph.replay()
    torch.cuda.synchronize()
    diff = float((g_logits.float() - eager_logits.float()).abs().max())
    scale = float(eager_logits.float().abs().max())
    row["check_graph_vs_eager"] = diff / max(scale, 1e-12)
    for _ in range(args.warmup):
        graph.replay()
    times = time_graph(graph, args.iters, args.repeats)
    row["step_us"] = statistics.median(times)
    row["step_us_all"] = [round(t, 2) for t in times]
    del graph
    row["attention_only_us"] = component_us(lambda: attention_all_layers(wts, s, batch, context), args)
    if s["experts"] and context == args.first_context:
        h = torch.randn(batch, s["hidden"], device=device, dtype=torch.bfloat16)
        row["moe_only_us"] = component_us(lambda: [moe(h, layer, s) for layer in wts.layers], args)
    return row


def attention_all_layers(wts, s, batch, context):
    q = torch.ones(batch, s["heads"], s["head_dim"], device=wts.embed.device, dtype=torch.bfloat16)
    return [attention(q, layer["k_cache"], layer["v_cache"], batch, context, s) for layer in wts.layers]


def component_us(fn, args) -> float:
    """µs per replay of ``fn`` captured alone in a CUDA graph (diagnostic split of the step)."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    for _ in range(args.warmup):
        graph.replay()
    us = statistics.median(time_graph(graph, args.iters, args.repeats))
    del graph
    return us


# ----------------------------------------------------------------------------------------------- micro
def micro_benchmarks(device: str) -> dict:
    """Hardware ceilings measured in the same run: D2D copy, bf16 GEMM, one tiny kernel in a graph."""
    if device == "cpu":
        return {}
    out = {}
    a = torch.empty(2 * 1024**3, dtype=torch.uint8, device=device)
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    t0 = torch.cuda.Event(enable_timing=True)
    t1 = torch.cuda.Event(enable_timing=True)
    t0.record()
    for _ in range(10):
        b.copy_(a)
    t1.record()
    t1.synchronize()
    out["copy_bytes_per_s_read_plus_write"] = 2 * a.numel() * 10 / (t0.elapsed_time(t1) / 1000)
    del a, b
    m = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        m @ m
    torch.cuda.synchronize()
    t0.record()
    for _ in range(10):
        m @ m
    t1.record()
    t1.synchronize()
    out["bf16_gemm_8192_tflops"] = 2 * 8192**3 * 10 / (t0.elapsed_time(t1) / 1000) / 1e12
    del m
    x = torch.zeros(1, device=device)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(500):
            x.add_(1.0)
    graph.replay()
    torch.cuda.synchronize()
    out["tiny_kernel_in_graph_us"] = statistics.median(time_graph(graph, 20, 5)) / 500
    del graph
    gemv = {}
    for rows, cols in ((14336 * 2, 4096), (4096, 14336), (128256, 4096)):
        w = torch.randn(rows, cols, device=device, dtype=torch.bfloat16)
        for bsz in (1, 16, 64, 256):
            xin = torch.randn(bsz, cols, device=device, dtype=torch.bfloat16)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(20):
                    xin @ w.t()
            graph.replay()
            us = statistics.median(time_graph(graph, 5, 3)) / 20
            gemv[f"{rows}x{cols}@b{bsz}"] = {"us": round(us, 2), "weight_bytes_per_s": rows * cols * 2 / (us / 1e6),
                                            "tflops": 2 * bsz * rows * cols / (us / 1e6) / 1e12}
            del graph
        del w
    out["gemm_by_batch"] = gemv
    for key, fn in (("small_kernels_in_graph_us", small_kernels), ("attention_single_cta", attention_streaming),
                    ("grouped_mm", grouped_mm_rates)):
        try:
            out[key] = fn(device)
        except Exception as exc:  # noqa: BLE001 - a failed micro-benchmark is recorded, the sweep goes on
            out[key] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def graph_us(fn, reps: int) -> float:
    """µs per call of ``fn`` when ``reps`` calls are captured in one CUDA graph."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(reps):
            fn()
    graph.replay()
    us = statistics.median(time_graph(graph, 5, 3)) / reps
    del graph
    return us


def small_kernels(device: str) -> dict:
    """Per-kernel cost of the decode step's small element-wise ops, back to back in a graph."""
    out = {}
    for rows in (1, 64, 256):
        x = torch.randn(rows, 4096, device=device, dtype=torch.bfloat16)
        r = torch.randn_like(x)
        w = torch.ones(4096, device=device, dtype=torch.bfloat16)
        out[f"add_{rows}x4096"] = graph_us(lambda: x + r, 100)
        out[f"rms_norm_{rows}x4096"] = graph_us(lambda: F.rms_norm(x, (4096,), w, EPS), 100)
        out[f"silu_mul_{rows}x14336"] = graph_us(
            lambda: F.silu(torch.empty(rows, 14336, device=device, dtype=torch.bfloat16)), 100)
    return out


def attention_streaming(device: str) -> dict:
    """SDPA flash at batch 1, 8 KV heads, long context: the streaming rate of one (batch, KV head) CTA."""
    out = {}
    for context in (2048, 8192, 32768):
        q = torch.randn(1, 8, 4, 128, device=device, dtype=torch.bfloat16)
        k = torch.randn(1, 8, context, 128, device=device, dtype=torch.bfloat16)
        v = torch.randn_like(k)
        us = graph_us(lambda: F.scaled_dot_product_attention(q, k, v), 20)
        out[f"c{context}"] = {"us": us, "bytes_per_s_per_kv_head": 2 * context * 128 * 2 / (us / 1e6)}
    return out


def grouped_mm_rates(device: str) -> dict:
    """torch._grouped_mm (Qwen3-30B-A3B expert shapes) with 8 and with all 128 experts active."""
    e, h, w = 128, 2048, 768
    w13 = torch.randn(e, 2 * w, h, device=device, dtype=torch.bfloat16)
    out = {}
    for active, per_expert in ((8, 1), (32, 1), (128, 1), (128, 16)):
        counts = torch.zeros(e, dtype=torch.int32, device=device)
        counts[:active] = per_expert
        offs = torch.cumsum(counts, 0, dtype=torch.int32)
        xs = torch.randn(active * per_expert, h, device=device, dtype=torch.bfloat16)
        us = graph_us(lambda: torch._grouped_mm(xs, w13.transpose(-2, -1), offs=offs), 20)
        out[f"{active}experts_x{per_expert}"] = {"us": us, "weight_bytes_per_s": active * 2 * w * h * 2 / (us / 1e6)}
    return out


def machine(device: str) -> dict:
    info = {"python": platform.python_version(), "torch": torch.__version__, "host": platform.node(),
            "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}
    if device != "cpu":
        p = torch.cuda.get_device_properties(0)
        info.update(gpu=p.name, sms=p.multi_processor_count, total_bytes=p.total_memory,
                    cuda=torch.version.cuda, capability=f"{p.major}.{p.minor}")
    return info


def run_args(description: str, *, batches, models_help: str = "comma list of dense, moe") -> argparse.ArgumentParser:
    """The arguments every reference run takes (--out, --device, --models, --batches, --warmup, --iters, --repeats,
    --tiny); each script adds its own.  Shared by spec_reference.py and draft_breakdown.py."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--models", default="dense,moe", help=models_help)
    ap.add_argument("--batches", default=",".join(map(str, batches)))
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tiny", action="store_true", help="shrink the shapes (CPU logic check)")
    return ap


def main() -> int:
    ap = run_args(__doc__.split("\n")[0], batches=BATCHES)
    ap.add_argument("--contexts", default=",".join(map(str, CONTEXTS)))
    ap.add_argument("--smoke", action="store_true", help="batches 1,64 and context 512 only")
    args = ap.parse_args()
    tp = int(os.environ.get("WORLD_SIZE", "1"))
    rank = 0
    if tp > 1:
        rank = int(os.environ["LOCAL_RANK"])
        if args.device == "cpu":
            torch.distributed.init_process_group("gloo")
        else:
            torch.cuda.set_device(rank)
            torch.distributed.init_process_group("nccl", device_id=torch.device("cuda", rank))
    batches = (1, 64) if args.smoke else tuple(int(b) for b in args.batches.split(","))
    contexts = (512,) if args.smoke else tuple(int(c) for c in args.contexts.split(","))
    args.first_context = contexts[0]
    device = args.device if tp == 1 or args.device == "cpu" else f"cuda:{rank}"
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
    result = {"command": " ".join(sys.argv), "tp": tp, "env": {k: os.environ.get(k) for k in ENV_KEYS},
              "machine": machine(device), "micro": micro_benchmarks(device) if rank == 0 and tp == 1 else {},
              "checks": {}, "rows": [], "errors": []}
    if rank == 0:
        print(json.dumps(result["machine"]), json.dumps(result["micro"]), flush=True)
    for key in args.models.split(","):
        s = shapes_of(MODELS[key], args.tiny, tp)
        t0 = time.time()
        try:
            if device != "cpu":
                check_fits(s, max(batches), max(contexts), torch.cuda.mem_get_info(device)[0])
            wts = Weights(s, max(batches), max(contexts), device)
            result["checks"][s["id"]] = {"attention_max_abs_err": check_attention(wts, s, device)}
            if s["experts"]:
                result["checks"][s["id"]]["moe_rel_err"] = check_moe(wts, s, device)
            print(s["id"], "weights+checks", round(time.time() - t0, 1), "s", result["checks"][s["id"]], flush=True)
            for context in contexts:
                for batch in batches:
                    row = run_config(wts, s, batch, context, device, args)
                    result["rows"].append(row)
                    if rank == 0:
                        print(json.dumps(row), flush=True)
        except Exception as exc:  # noqa: BLE001 - record and go on to the next model
            result["errors"].append(f"{s['id']}: {type(exc).__name__}: {exc}")
            print("ERROR", result["errors"][-1], flush=True)
        finally:
            wts = None
            if device != "cpu":
                torch.cuda.empty_cache()
        if rank == 0:
            with open(args.out, "w") as fh:
                json.dump(result, fh, indent=1)
    bad = [r for r in result["rows"] if r.get("check_graph_vs_eager", 0) > 1e-2]
    result["checks"]["graph_vs_eager_failures"] = len(bad)
    if rank == 0:
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=1)
    if tp > 1:
        torch.distributed.destroy_process_group()
    return 1 if bad or result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
