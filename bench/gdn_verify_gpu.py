"""Issue 13's small-batch cluster: the verify-only terms of a hybrid GDN / W4A16 / sampled MTP cycle, on one GPU.

Why (docs/accuracy.md §4.5, helper sp26, 2026-12-06): the wrong-sign rows of p18_q38_4x3090 (Qwen3.8-27B INT4 /
FP8, 4× RTX 3090, vLLM 0.26.0, MTP k = 2), p22_a100_q36_35b_awq (Qwen3.6-35B-A3B AWQ, vLLM 0.19.1, MTP k = 1),
glm51v2_rtx6k and mb3090_coder measure a speculative cycle 10–18 ms longer than tpkit's at batch 1 while the plain
step is ~4 ms off.  Three candidate terms that a verify of T = 1 + k tokens pays and a decode step does not, measured
in isolation, bf16 / fp32 as the engines run them, random data in the Qwen3.8-27B shapes (``SHAPES``):

1. ``gdn``: the Gated-DeltaNet recurrent update as vLLM's spec path runs it (0.26.0
   ``fla/ops/fused_sigmoid_gating.py`` ``fused_sigmoid_gating_delta_rule_update``: in-kernel sigmoid gate and softplus
   decay, L2-normed q / k, the fp32 state read once, then T serial token updates, the state stored after **every**
   token into its own slot).  Written here from the algorithm (no engine code), checked against an fp32 PyTorch loop
   first.  48 layers (the 27B's GDN layer count) in one CUDA graph per T, the L2 flushed before every replay; per
   tensor-parallel rank at TP 2 and TP 4; plus the eager host time of the 48 launches (a piecewise verify runs the
   GDN core outside the graph).
2. ``w4a16``: a W4A16 GEMM at M = 1 / 2 / 3 / 4 / 8 (torch's tinygemm ``_weight_int4pack_mm``, group 128: the only
   W4A16 kernel in the image; Marlin is not in it) against bf16 cuBLAS at the same M, the 27B's per-rank GEMMs at
   TP 4, in one CUDA graph each, checked against the dequantised bf16 product first.
3. ``sampler``: top-k 20 / top-p 0.95 / temperature sampling over the 248,320-entry vocabulary on R rows as vLLM's
   PyTorch path does it below 8 rows (``v1/sample/ops/topk_topp_sampler.py`` ``apply_top_k_top_p``: a full sort, a
   gather, softmax, cumsum, two masks, a scatter; then the exponential-race sample), R = 1 (a plain step) and
   R = 2 / 3 / 4 (the rejection sampler's k draft rows + the bonus row, k = 1 / 2 / 3), eager (the sampler runs
   outside the graph), GPU time by events and host wall time; greedy argmax beside it.

Usage (GPU; writes JSON to --out and prints tables)::

    python bench/gdn_verify_gpu.py --out $OUT/gdn_verify.json
    python bench/gdn_verify_gpu.py --check-only       # the correctness checks alone (TRITON_INTERPRET=1 on CPU)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - the CPU test VM has no Triton
    triton = None
    tl = None

# Qwen3.8-27B (tests/validation/configs/Qwen--Qwen3.8-27B.json): 64 layers, 48 linear-attention (GDN) + 16 full.
SHAPES = {"hidden": 5120, "intermediate": 17408, "gdn_layers": 48, "k_heads": 16, "v_heads": 48, "head_k": 128,
          "head_v": 128, "conv_kernel": 4, "vocab": 248320, "attn_heads": 24, "kv_heads": 4, "head_dim": 256}
TOKENS = (1, 2, 3, 4)
TPS = (4, 2)
W4_M = (1, 2, 3, 4, 8)
SAMPLER_ROWS = (1, 2, 3, 4)

if triton is not None:
    @triton.jit
    def _gdn_recurrent(q, k, v, a, b, a_log, dt_bias, o, state, idx, scale,
                       T: tl.constexpr, HK: tl.constexpr, HV: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
                       BV: tl.constexpr, PER_TOKEN: tl.constexpr):
        i_v = tl.program_id(0)
        i_nh = tl.program_id(1)
        n = i_nh // HV
        hv = i_nh % HV
        hk = hv // (HV // HK)
        ok = tl.arange(0, K)
        ov = i_v * BV + tl.arange(0, BV)
        s0 = tl.load(idx + n * T).to(tl.int64)
        tile = hv * K * V + ok[:, None] * V + ov[None, :]
        h = tl.load(state + s0 * HV * K * V + tile)
        alog = tl.load(a_log + hv).to(tl.float32)
        dtb = tl.load(dt_bias + hv).to(tl.float32)
        for t in tl.static_range(T):
            row = n * T + t
            bq = tl.load(q + (row * HK + hk) * K + ok).to(tl.float32)
            bk = tl.load(k + (row * HK + hk) * K + ok).to(tl.float32)
            bv = tl.load(v + (row * HV + hv) * V + ov).to(tl.float32)
            x = tl.load(a + row * HV + hv).to(tl.float32) + dtb
            sp = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(x)))
            g = -tl.exp(alog) * sp
            beta = tl.sigmoid(tl.load(b + row * HV + hv).to(tl.float32))
            bq = bq / tl.sqrt(tl.sum(bq * bq) + 1e-6) * scale
            bk = bk / tl.sqrt(tl.sum(bk * bk) + 1e-6)
            h = h * tl.exp(g)
            vn = (bv - tl.sum(h * bk[:, None], 0)) * beta
            h = h + bk[:, None] * vn[None, :]
            bo = tl.sum(h * bq[:, None], 0)
            tl.store(o + (row * HV + hv) * V + ov, bo.to(o.dtype.element_ty))
            if PER_TOKEN:
                st = tl.load(idx + row).to(tl.int64)
                tl.store(state + st * HV * K * V + tile, h)
        if not PER_TOKEN:
            tl.store(state + s0 * HV * K * V + tile, h)


def gdn_reference(q, k, v, a, b, a_log, dt_bias, state, idx, scale):
    """fp32 PyTorch loop of the same update; returns (o, state after)."""
    n_req, t_len, hk_n, kd = q.shape
    hv_n = v.shape[2]
    st = state.clone()
    o = torch.empty(v.shape, dtype=torch.float32, device=v.device)
    rep = hv_n // hk_n
    for n in range(n_req):
        h = st[idx[n, 0]].clone()  # [HV, K, V]
        for t in range(t_len):
            qq = q[n, t].float().repeat_interleave(rep, 0)
            kk = k[n, t].float().repeat_interleave(rep, 0)
            qq = qq / torch.sqrt((qq * qq).sum(-1, keepdim=True) + 1e-6) * scale
            kk = kk / torch.sqrt((kk * kk).sum(-1, keepdim=True) + 1e-6)
            g = -torch.exp(a_log.float()) * torch.nn.functional.softplus(a[n, t].float() + dt_bias.float())
            beta = torch.sigmoid(b[n, t].float())
            h = h * torch.exp(g)[:, None, None]
            vn = (v[n, t].float() - (h * kk[:, :, None]).sum(1)) * beta[:, None]
            h = h + kk[:, :, None] * vn[:, None, :]
            o[n, t] = (h * qq[:, :, None]).sum(1)
            st[idx[n, t]] = h
    return o, st


def gdn_inputs(n_req, t_len, hk_n, hv_n, kd, vd, slots, device, dtype=torch.bfloat16, seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    r = lambda *s: torch.randn(*s, generator=g).to(device=device, dtype=dtype)  # noqa: E731
    q, k, v = r(n_req, t_len, hk_n, kd), r(n_req, t_len, hk_n, kd), r(n_req, t_len, hv_n, vd)
    a, b = r(n_req, t_len, hv_n), r(n_req, t_len, hv_n)
    a_log = torch.randn(hv_n, generator=g).to(device) * 0.5
    dt_bias = torch.randn(hv_n, generator=g).to(device) * 0.5
    state = (torch.randn(slots, hv_n, kd, vd, generator=g) * 0.1).to(device)
    idx = torch.arange(n_req * t_len, dtype=torch.int32).reshape(n_req, t_len).to(device)
    return q, k, v, a, b, a_log, dt_bias, state, idx


def gdn_launch(q, k, v, a, b, a_log, dt_bias, o, state, idx, scale, per_token: bool, bv: int = 32):
    n_req, t_len, hk_n, kd = q.shape
    hv_n, vd = v.shape[2], v.shape[3]
    grid = (vd // bv, n_req * hv_n)
    _gdn_recurrent[grid](q, k, v, a, b, a_log, dt_bias, o, state, idx, scale, T=t_len, HK=hk_n, HV=hv_n, K=kd,
                         V=vd, BV=bv, PER_TOKEN=per_token, num_warps=4)


def check_gdn(device) -> dict:
    out = {}
    for t_len in (1, 3):
        args = gdn_inputs(2, t_len, 2, 4, 128, 128, 2 * t_len + 1, device)
        q, k, v, a, b, a_log, dt_bias, state, idx = args
        scale = 128 ** -0.5
        ref_o, ref_st = gdn_reference(q, k, v, a, b, a_log, dt_bias, state, idx, scale)
        o = torch.empty_like(v)
        st = state.clone()
        gdn_launch(q, k, v, a, b, a_log, dt_bias, o, st, idx, scale, per_token=True)
        err_o = (o.float() - ref_o).abs().max().item() / max(ref_o.abs().max().item(), 1e-9)
        err_s = (st - ref_st).abs().max().item() / max(ref_st.abs().max().item(), 1e-9)
        out[f"T{t_len}"] = {"o_rel_max_err": err_o, "state_rel_max_err": err_s}
    out["ok"] = all(v["o_rel_max_err"] < 2e-2 and v["state_rel_max_err"] < 1e-3 for v in out.values())
    return out


def _flush(buf):
    buf.zero_()


def graph_time_us(fn, reps: int, flush) -> float:
    """Median GPU µs of one replay of a CUDA graph of ``fn``, the L2 flushed (outside the timed span) first."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    times = []
    for _ in range(reps):
        flush()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) * 1e3)
    times.sort()
    return times[len(times) // 2]


def bench_gdn(device, flush, reps: int) -> list[dict]:
    rows = []
    s = SHAPES
    for tp in TPS:
        hk_n, hv_n = s["k_heads"] // tp, s["v_heads"] // tp
        for t_len in TOKENS:
            for per_token in ((False, True) if t_len == 1 else (True,)):
                layers = []
                for layer in range(s["gdn_layers"]):
                    args = gdn_inputs(1, t_len, hk_n, hv_n, s["head_k"], s["head_v"], t_len + 1, device,
                                      seed=layer)
                    layers.append((args, torch.empty_like(args[2])))
                scale = s["head_k"] ** -0.5

                def run_all():
                    for (q, k, v, a, b, a_log, dt_bias, state, idx), o in layers:
                        gdn_launch(q, k, v, a, b, a_log, dt_bias, o, state, idx, scale, per_token)

                us = graph_time_us(run_all, reps, flush)
                torch.cuda.synchronize()
                walls = []
                for _ in range(7):
                    torch.cuda.synchronize()
                    w0 = time.perf_counter()
                    run_all()
                    w1 = time.perf_counter()
                    torch.cuda.synchronize()
                    walls.append((w1 - w0) * 1e6)
                walls.sort()
                state_bytes = hv_n * s["head_k"] * s["head_v"] * 4
                rows.append({"tp": tp, "tokens": t_len, "per_token_state": per_token,
                             "graph_us_48_layers": us, "graph_us_per_layer": us / s["gdn_layers"],
                             "eager_launch_wall_us_48": walls[len(walls) // 2],
                             "state_bytes_per_layer": state_bytes,
                             "state_bytes_moved_per_layer": state_bytes * (1 + (t_len if per_token else 1))})
                print(f"gdn tp{tp} T={t_len} per_token={per_token}: graph {us:8.1f} us / 48 layers "
                      f"({us / 48:6.2f} per layer), eager launch wall {walls[len(walls) // 2]:8.1f} us",
                      flush=True)
    return rows


def _pack_int4(w_int: torch.Tensor, high_first: bool = True) -> torch.Tensor:
    if high_first:
        return (w_int[:, ::2] << 4 | w_int[:, 1::2]).to(torch.uint8)
    return (w_int[:, 1::2] << 4 | w_int[:, ::2]).to(torch.uint8)


W4_HIGH_FIRST = [True]


def w4_setup(n_out, k_in, device, group=128, seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    w_int = torch.randint(0, 16, (n_out, k_in), generator=g, dtype=torch.int32)
    scales = (torch.rand(k_in // group, n_out, generator=g) * 0.02 + 0.001)
    zeros = torch.randn(k_in // group, n_out, generator=g) * 0.01
    packed = torch._convert_weight_to_int4pack(_pack_int4(w_int, W4_HIGH_FIRST[0]).to(device), 8)
    sz = torch.stack([scales, zeros], dim=-1).to(device=device, dtype=torch.bfloat16).contiguous()
    s_full = scales.repeat_interleave(group, 0).T  # [N, K]
    z_full = zeros.repeat_interleave(group, 0).T
    deq = ((w_int.float() - 8.0) * s_full + z_full).to(device=device, dtype=torch.bfloat16)
    return packed, sz, deq


def check_w4(device) -> dict:
    out = {}
    for high_first in (True, False):
        W4_HIGH_FIRST[0] = high_first
        packed, sz, deq = w4_setup(256, 512, device)
        x = torch.randn(3, 512, device=device, dtype=torch.bfloat16)
        got = torch._weight_int4pack_mm(x, packed, 128, sz).float()
        ref = (x.float() @ deq.float().T)
        err = (got - ref).abs().max().item() / max(ref.abs().max().item(), 1e-9)
        out[f"rel_max_err_high_nibble_first_{high_first}"] = err
        if err < 2e-2:
            out.update(ok=True, high_nibble_first=high_first)
            return out
    out["ok"] = False
    return out


def bench_w4(device, flush, reps: int) -> list[dict]:
    s, tp = SHAPES, 4
    gdn_qkvz = (2 * s["k_heads"] * s["head_k"] + 2 * s["v_heads"] * s["head_v"]) // tp
    gemms = {"gdn in_proj_qkvz": (gdn_qkvz, s["hidden"]), "gdn out_proj": (s["hidden"], s["v_heads"] * s["head_v"] // tp),
             "mlp gate_up": (2 * s["intermediate"] // tp, s["hidden"]), "mlp down": (s["hidden"], s["intermediate"] // tp)}
    rows = []
    for name, (n_out, k_in) in gemms.items():
        packed, sz, deq = w4_setup(n_out, k_in, device)
        for m in W4_M:
            x = torch.randn(m, k_in, device=device, dtype=torch.bfloat16)
            w4 = graph_time_us(lambda: torch._weight_int4pack_mm(x, packed, 128, sz), reps, flush)
            bf = graph_time_us(lambda: x @ deq.T, reps, flush)
            rows.append({"gemm": name, "n": n_out, "k": k_in, "m": m, "w4a16_us": w4, "bf16_us": bf,
                         "w4_bytes": n_out * k_in // 2, "bf16_bytes": n_out * k_in * 2})
            print(f"w4a16 {name:18s} N={n_out:6d} K={k_in:6d} M={m}: int4 {w4:7.1f} us, bf16 {bf:7.1f} us", flush=True)
    return rows


def topk_topp_sample(logits: torch.Tensor, k: torch.Tensor, p: torch.Tensor, temperature: float) -> torch.Tensor:
    """vLLM's PyTorch top-k / top-p path (sort-based) and the exponential-race sample, re-written."""
    logits = logits / temperature
    srt, order = logits.sort(dim=-1, descending=False)
    kth = srt.gather(1, (srt.size(1) - k.to(torch.long)).unsqueeze(1))
    srt.masked_fill_(srt < kth, -float("inf"))
    probs = srt.softmax(dim=-1)
    cum = torch.cumsum(probs, dim=-1)
    mask = cum <= 1 - p.unsqueeze(1)
    mask[:, -1] = False
    srt.masked_fill_(mask, -float("inf"))
    logits = srt.scatter(dim=-1, index=order, src=srt)
    probs = logits.softmax(dim=-1, dtype=torch.float32)
    qexp = torch.empty_like(probs).exponential_()
    return probs.div_(qexp).argmax(dim=-1)


def check_sampler(device) -> dict:
    torch.manual_seed(0)
    logits = torch.randn(2, 1000, device=device) * 3
    k = torch.full((2,), 20, device=device)
    p = torch.full((2,), 0.95, device=device)
    top = logits.topk(20, dim=-1).indices
    ok = True
    for _ in range(20):
        s = topk_topp_sample(logits, k, p, 0.7)
        ok &= bool((top == s.unsqueeze(1)).any(dim=1).all())
    return {"samples_inside_top_k": ok, "ok": ok}


def bench_sampler(device, reps: int) -> list[dict]:
    rows = []
    vocab = SHAPES["vocab"]
    for r in SAMPLER_ROWS:
        logits = torch.randn(r, vocab, device=device, dtype=torch.float32) * 3
        k = torch.full((r,), 20, device=device)
        p = torch.full((r,), 0.95, device=device)
        for name, fn in (("topk20_topp095_t07", lambda: topk_topp_sample(logits, k, p, 0.7)),
                         ("greedy_argmax", lambda: logits.argmax(dim=-1))):
            for _ in range(5):
                fn()
            torch.cuda.synchronize()
            gpu, wall = [], []
            for _ in range(reps):
                torch.cuda.synchronize()
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                w0 = time.perf_counter()
                e0.record()
                fn()
                e1.record()
                w1 = time.perf_counter()
                e1.synchronize()
                w2 = time.perf_counter()
                gpu.append(e0.elapsed_time(e1) * 1e3)
                wall.append(((w1 - w0) * 1e6, (w2 - w0) * 1e6))
            gpu.sort()
            wall.sort()
            rows.append({"rows": r, "sampler": name, "gpu_us": gpu[len(gpu) // 2],
                         "host_launch_us": sorted(x[0] for x in wall)[len(wall) // 2],
                         "wall_to_done_us": sorted(x[1] for x in wall)[len(wall) // 2]})
            print(f"sampler {name:20s} rows={r}: gpu {gpu[len(gpu) // 2]:7.1f} us, host launch "
                  f"{rows[-1]['host_launch_us']:7.1f} us, wall {rows[-1]['wall_to_done_us']:7.1f} us", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="JSON file for every number")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--only", default="gdn,w4a16,sampler")
    args = ap.parse_args(argv)
    if triton is None:
        print("gdn_verify_gpu: needs Triton (a GPU image, or TRITON_INTERPRET=1 with triton installed); exit 2",
              file=sys.stderr)
        return 2
    device = "cuda" if torch.cuda.is_available() else "cpu"
    result = {"device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu", "torch": torch.__version__,
              "triton": triton.__version__, "shapes": SHAPES, "checks": {}}
    only = set(args.only.split(","))
    result["checks"]["gdn"] = check_gdn(device)
    print("check gdn:", result["checks"]["gdn"], flush=True)
    if device == "cuda" and "sampler" in only:
        result["checks"]["sampler"] = check_sampler(device)
        print("check sampler:", result["checks"]["sampler"], flush=True)
    if device == "cuda" and "w4a16" in only:
        try:
            result["checks"]["w4a16"] = check_w4(device)
        except Exception as exc:  # tinygemm's packing API moves between torch releases
            result["checks"]["w4a16"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:400]}
        print("check w4a16:", result["checks"]["w4a16"], flush=True)
    if args.check_only or device != "cuda":
        print(json.dumps(result["checks"], indent=1))
        return 0 if result["checks"]["gdn"]["ok"] else 1

    flush_buf = torch.empty(256 * 2**20, dtype=torch.uint8, device=device)
    flush = lambda: _flush(flush_buf)  # noqa: E731

    def save():
        if args.out:
            with open(args.out, "w") as f:
                json.dump(result, f, indent=1)

    if "gdn" in only and result["checks"]["gdn"]["ok"]:
        result["gdn"] = bench_gdn(device, flush, args.reps)
        save()
    if "w4a16" in only and result["checks"].get("w4a16", {}).get("ok"):
        result["w4a16"] = bench_w4(device, flush, args.reps)
        save()
    if "sampler" in only and result["checks"].get("sampler", {}).get("ok"):
        result["sampler"] = bench_sampler(device, args.reps)
        save()
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
