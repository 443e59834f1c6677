"""Issue 13, Kimi-K2.5 on 8× RTX PRO 6000: the routed-expert GEMMs of one decode step at batch 1–128, on one GPU.

Why (docs/accuracy.md §4.5, helper perf27, 2026-12-06, session 27): the source's plain step (k26v1 / k26v4 and their
sibling runs) grows faster than tpkit's from 1 to 8 requests and slower from 16 to 128.  tpkit prices vLLM's expert
GEMMs as the distinct experts' bytes at the full copy rate plus 2.8 µs a launch (``perf.forward.kernel_us``, the vLLM
profile).  This measures how the time of the two grouped expert GEMMs of one MoE layer grows with the distinct
experts a batch touches, in Kimi-K2's per-rank shapes at TP 8 (hidden 7168, 384 experts, 256 intermediate columns a
rank, top-8 routing drawn uniformly at random per token and per layer, as tpkit's occupancy bound assumes):

* ``bf16``: ``torch._grouped_mm`` (gate/up then down; empty groups for the experts not hit);
* ``int4``: a W4A16 grouped GEMM written here (Triton; symmetric INT4, group 32 as the checkpoint's
  compressed-tensors pack, 16-row expert blocks as engines' fused-MoE kernels pad them; no engine code), checked
  against the dequantised bf16 product first.  It is *a* W4A16 MoE kernel, not Marlin (not in the image).

Each variant runs ``LAYERS`` layers with their own weights back to back in one CUDA graph (their weights rotate
through far more than the L2), so the per-layer time is streaming time.  Baselines in the same run: the copy rate
of a 2 GiB device-to-device copy, and a dense bf16 GEMV (M = 1) of one layer's 60-expert bytes.

Usage (GPU; writes JSON to --out and prints a table)::

    python bench/kimi_moe_gpu.py --out $OUT/kimi_moe.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - the CPU test VM has no Triton
    triton = None
    tl = None

HIDDEN, INTER, EXPERTS, TOP_K, GROUP = 7168, 256, 384, 8, 32   # Kimi-K2 per rank at TP 8 (2048 / 8 columns)
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128)
BLOCK_M = 16


def expected_distinct(batch: int) -> float:
    return EXPERTS * (1 - (1 - TOP_K / EXPERTS) ** batch)


if triton is not None:
    @triton.jit
    def _w4a16_grouped(x_ptr, w_ptr, s_ptr, out_ptr, rows_ptr, expert_ptr, n_dim, k_dim,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP: tl.constexpr):
        """out[row] = x[row] · dequant(W[e])ᵀ for the ≤ BLOCK_M rows of one expert block; W[e] is (N, K/2) bytes,
        element 2j in the low nibble, 2j+1 in the high, value = (nibble − 8) × scale[n, k // GROUP]."""
        blk = tl.program_id(0)
        pid_n = tl.program_id(1)
        e = tl.load(expert_ptr + blk)
        offs_m = tl.arange(0, BLOCK_M)
        rows = tl.load(rows_ptr + blk * BLOCK_M + offs_m)
        valid = rows >= 0
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        w_base = w_ptr + e.to(tl.int64) * n_dim * (k_dim // 2)
        s_base = s_ptr + e.to(tl.int64) * n_dim * (k_dim // GROUP)
        for k0 in range(0, k_dim, BLOCK_K):
            offs_kb = k0 // 2 + tl.arange(0, BLOCK_K // 2)
            packed = tl.load(w_base + offs_n[:, None] * (k_dim // 2) + offs_kb[None, :])
            lo = (packed & 0xF).to(tl.int32) - 8
            hi = ((packed >> 4) & 0xF).to(tl.int32) - 8
            w = tl.reshape(tl.join(lo, hi), (BLOCK_N, BLOCK_K)).to(tl.float32)
            offs_g = k0 // GROUP + tl.arange(0, BLOCK_K // GROUP)
            s = tl.load(s_base + offs_n[:, None] * (k_dim // GROUP) + offs_g[None, :]).to(tl.float32)
            w = tl.reshape(tl.reshape(w, (BLOCK_N, BLOCK_K // GROUP, GROUP)) * s[:, :, None], (BLOCK_N, BLOCK_K))
            offs_k = k0 + tl.arange(0, BLOCK_K)
            x = tl.load(x_ptr + rows[:, None] * k_dim + offs_k[None, :], mask=valid[:, None], other=0.0)
            acc += tl.dot(x, tl.trans(w.to(tl.bfloat16)))
        tl.store(out_ptr + rows[:, None] * n_dim + offs_n[None, :], acc.to(tl.bfloat16), mask=valid[:, None])


def _route(batch: int, gen: torch.Generator):
    """Top-8 of 384 per token, uniform: (token index per routed pair sorted by expert, expert per pair)."""
    experts = torch.stack([torch.randperm(EXPERTS, generator=gen)[:TOP_K] for _ in range(batch)])   # (B, 8)
    pairs_tok = torch.arange(batch).repeat_interleave(TOP_K)
    pairs_exp = experts.reshape(-1)
    order = torch.argsort(pairs_exp, stable=True)
    return pairs_tok[order], pairs_exp[order]


def _blocks(pairs_exp: torch.Tensor):
    """16-row blocks per expert hit: (rows (blocks × 16, pair index or −1), expert per block)."""
    rows, owner = [], []
    counts = torch.bincount(pairs_exp, minlength=EXPERTS)
    start = 0
    for e in range(EXPERTS):
        c = int(counts[e])
        for b0 in range(0, c, BLOCK_M):
            idx = list(range(start + b0, start + min(c, b0 + BLOCK_M)))
            rows.extend(idx + [-1] * (BLOCK_M - len(idx)))
            owner.append(e)
        start += c
    return torch.tensor(rows, dtype=torch.int32), torch.tensor(owner, dtype=torch.int32)


def _pack(n: int, k: int, e: int, device, gen):
    q = torch.randint(0, 16, (e, n, k), generator=gen, dtype=torch.uint8)
    packed = (q[..., 0::2] | (q[..., 1::2] << 4)).contiguous().to(device)
    scales = (torch.rand(e, n, k // GROUP, generator=gen) * 0.02 + 0.01).to(torch.bfloat16).to(device)
    return packed, scales, q


def _pack_device(n: int, k: int, e: int, device):
    """Random packed INT4 weights and scales made on the GPU (any byte is two valid nibbles)."""
    packed = torch.randint(0, 256, (e, n, k // 2), dtype=torch.uint8, device=device)
    scales = (torch.rand(e, n, k // GROUP, device=device) * 0.02 + 0.01).to(torch.bfloat16)
    return packed, scales


def _dequant(q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    e, n, k = q.shape
    w = (q.to(torch.float32) - 8).reshape(e, n, k // GROUP, GROUP) * scales.float().cpu()[..., None]
    return w.reshape(e, n, k)


def w4a16_gemm(x, packed, scales, rows, owner, n, k, out, block_n=64, block_k=128):
    grid = (owner.numel(), n // block_n)
    _w4a16_grouped[grid](x, packed, scales, out, rows, owner, n, k, BLOCK_M=BLOCK_M, BLOCK_N=block_n,
                         BLOCK_K=block_k, GROUP=GROUP, num_warps=4, num_stages=4)
    return out


def check(device) -> dict:
    """The Triton kernel against the dequantised product (small expert count, Kimi's K and N)."""
    gen = torch.Generator().manual_seed(0)
    e = 4
    out = {}
    for n, k in ((2 * INTER, HIDDEN), (HIDDEN, INTER)):
        packed, scales, q = _pack(n, k, e, device, gen)
        pairs_exp = torch.tensor([0, 0, 1] + [2] * 17 + [3, 3, 3])   # sorted by expert, as _route gives
        rows, owner = _blocks(pairs_exp)
        x = torch.randn(pairs_exp.numel(), k, generator=gen).to(torch.bfloat16)
        y = torch.empty(pairs_exp.numel(), n, dtype=torch.bfloat16, device=device)
        w4a16_gemm(x.to(device), packed, scales, rows.to(device), owner.to(device), n, k, y)
        w = _dequant(q, scales).to(torch.bfloat16).float()
        ref = torch.stack([x[i].float() @ w[int(pairs_exp[i])].T for i in range(pairs_exp.numel())])
        err = ((y.float().cpu() - ref).abs().max() / ref.abs().max()).item()
        out[f"{n}x{k}"] = err
        if err > 2e-2:
            raise SystemExit(f"W4A16 kernel wrong at N {n} K {k}: max relative error {err:.3g}")
    return out


def time_graph(fn, reps: int = 7) -> float:
    """Median µs of one replay of a CUDA graph holding ``fn``'s launches (gemv_small_m's graph timer, one warm replay)."""
    from gemv_small_m import timed_graph

    return timed_graph(fn, reps=reps, warm=1)


def measure(device, layers_int4: int, layers_bf16: int, batches) -> dict:
    gen = torch.Generator().manual_seed(1)
    res = {"int4": {}, "bf16": {}}
    # --- INT4 weights: layers_int4 layers × (w13, w2) for all 384 experts
    w13 = [_pack_device(2 * INTER, HIDDEN, EXPERTS, device) for _ in range(layers_int4)]
    w2 = [_pack_device(HIDDEN, INTER, EXPERTS, device) for _ in range(layers_int4)]
    per_expert_int4 = (2 * INTER * HIDDEN + HIDDEN * INTER) // 2 + (2 * INTER * HIDDEN + HIDDEN * INTER) // GROUP * 2
    for b in batches:
        routes = [_route(b, gen) for _ in range(layers_int4)]
        blocks = [tuple(t.to(device) for t in _blocks(pe)) for _, pe in routes]
        distinct = statistics.mean(len(set(pe.tolist())) for _, pe in routes)
        pairs = b * TOP_K
        x = torch.randn(pairs, HIDDEN, device=device, dtype=torch.bfloat16)
        mid = torch.empty(pairs, 2 * INTER, device=device, dtype=torch.bfloat16)
        act = torch.randn(pairs, INTER, device=device, dtype=torch.bfloat16)
        y = torch.empty(pairs, HIDDEN, device=device, dtype=torch.bfloat16)

        def run_int4():
            for li in range(layers_int4):
                rows, owner = blocks[li]
                w4a16_gemm(x, *w13[li], rows, owner, 2 * INTER, HIDDEN, mid)
                w4a16_gemm(act, *w2[li], rows, owner, HIDDEN, INTER, y)
        us = time_graph(run_int4) / layers_int4
        res["int4"][b] = {"us_per_layer": us, "distinct_experts": distinct, "expected_distinct": expected_distinct(b),
                          "bytes_per_layer": distinct * per_expert_int4,
                          "gbps": distinct * per_expert_int4 / us / 1e3, "us_per_expert": us / distinct}
    del w13, w2
    torch.cuda.empty_cache()
    # --- bf16 weights through torch._grouped_mm
    w13b = [torch.randn(EXPERTS, 2 * INTER, HIDDEN, device=device, dtype=torch.bfloat16) for _ in range(layers_bf16)]
    w2b = [torch.randn(EXPERTS, HIDDEN, INTER, device=device, dtype=torch.bfloat16) for _ in range(layers_bf16)]
    per_expert_bf16 = (2 * INTER * HIDDEN + HIDDEN * INTER) * 2
    for b in batches:
        routes = [_route(b, gen) for _ in range(layers_bf16)]
        offs = [torch.cumsum(torch.bincount(pe, minlength=EXPERTS), 0).to(torch.int32).to(device) for _, pe in routes]
        distinct = statistics.mean(len(set(pe.tolist())) for _, pe in routes)
        pairs = b * TOP_K
        x = torch.randn(pairs, HIDDEN, device=device, dtype=torch.bfloat16)
        act = torch.randn(pairs, INTER, device=device, dtype=torch.bfloat16)

        def run_bf16():
            for li in range(layers_bf16):
                torch._grouped_mm(x, w13b[li].transpose(-2, -1), offs=offs[li])
                torch._grouped_mm(act, w2b[li].transpose(-2, -1), offs=offs[li])
        us = time_graph(run_bf16) / layers_bf16
        res["bf16"][b] = {"us_per_layer": us, "distinct_experts": distinct, "bytes_per_layer": distinct * per_expert_bf16,
                          "gbps": distinct * per_expert_bf16 / us / 1e3, "us_per_expert": us / distinct}
    del w13b, w2b
    torch.cuda.empty_cache()
    # --- baselines: copy rate; a dense bf16 GEMV of 60 experts' w13 + w2 bytes (M = 1)
    src = torch.empty(2 << 30, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    copy_us = time_graph(lambda: dst.copy_(src))
    res["copy_gbps"] = 2 * src.numel() / copy_us / 1e3     # read + write
    del src, dst
    dense = [torch.randn(60 * 3 * INTER, HIDDEN, device=device, dtype=torch.bfloat16) for _ in range(4)]
    v = torch.randn(1, HIDDEN, device=device, dtype=torch.bfloat16)
    gemv_us = time_graph(lambda: [v @ d.T for d in dense]) / len(dense)
    res["dense_gemv_60_experts_bf16"] = {"us": gemv_us, "gbps": dense[0].numel() * 2 / gemv_us / 1e3}
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers-int4", type=int, default=16)
    ap.add_argument("--layers-bf16", type=int, default=4)
    ap.add_argument("--batches", default=",".join(map(str, BATCHES)))
    args = ap.parse_args()
    device = torch.device("cuda")
    p = torch.cuda.get_device_properties(0)
    t0 = time.time()
    info = {"gpu": p.name, "sms": p.multi_processor_count, "torch": torch.__version__,
            "triton": triton.__version__ if triton else None, "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}
    info["check_max_rel_err"] = check(device)
    res = measure(device, args.layers_int4, args.layers_bf16, [int(b) for b in args.batches.split(",")])
    res["machine"] = info
    res["seconds"] = time.time() - t0
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(info))
    print(f"copy {res['copy_gbps']:.0f} GB/s; dense bf16 GEMV (60 experts' bytes) {res['dense_gemv_60_experts_bf16']}")
    print("kind | batch | distinct | us/layer | GB/s | us/expert")
    for kind in ("int4", "bf16"):
        for b, r in res[kind].items():
            print(f"{kind} | {b} | {r['distinct_experts']:.1f} | {r['us_per_layer']:.1f} | {r['gbps']:.0f} | "
                  f"{r['us_per_expert']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
