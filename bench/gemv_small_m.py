"""Small-M GEMMs on one GPU: time per launch inside a CUDA graph vs the cost model's ``gemm`` term.

    python bench/gemv_small_m.py --out gemv.json          # on a GPU (torch with CUDA): the sweep
    python bench/gemv_small_m.py --calibrate calib.json   # on a GPU: against decode_reference.py's own figures
    PYTHONPATH=src python bench/gemv_small_m.py --compare gemv.json   # on CPU: the model's prediction per row

Question (issue 13, helper pbw): do the weight-streaming GEMMs of a decode step at M = 1–16 reach a lower
fraction of the copy bandwidth than the model assumes (bytes / copy bandwidth + ``gemm_overhead_us``), in
particular for the small per-rank matrices of tensor-parallel shards (1–30 MB), where a launch's fixed cost
and the ramp of a short kernel weigh more?

Method: for each (N, K) weight shape, bf16, enough distinct copies that their total (≥ 512 MB) is ten times
the L2, one CUDA graph runs ``x @ W_i.T`` over every copy in turn; the median of 5 replays (after 3 warm-up
replays) divided by the number of copies is the time of one GEMM.  Plain torch (cuBLAS) GEMMs, not an
engine's kernels.

Runs (1× H200, torch 2.11.0+cu130, 2026-12-04; the device tool sends the lead's checkout, so the same code was
sent inline): docs/runs/gemv_small_m_h200_2026-12-04.json (sweep) and docs/runs/gemv_calib_h200_2026-12-04.json
(calibration: eager copy 4.247 TB/s vs the reference run's 4.273; 28672×4096 at M = 1 55.6 µs with one repeated
weight vs 56.1 in the reference run, 56.7 over distinct copies).  What the model takes from them:
``gemv_k_latency_ns`` and ``gemv_k_latency_cap`` (tpkit.perf.constants).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

SHAPES = (  # (N out, K in): per-rank matrices of the scored deployments, TP 1 to TP 8
    (28672, 4096), (6144, 4096), (4096, 14336), (4096, 4096),   # Llama-3.1-8B TP 1 (gate_up, qkv, down, o)
    (3584, 4096), (4096, 1792), (768, 4096), (4096, 512),       # Llama-3.1-8B TP 8
    (1536, 2048), (2048, 1024), (1024, 2048), (2048, 512),      # Qwen3-30B-A3B attention at TP 2 / 4
    (512, 2048), (256, 2048), (2048, 256), (128, 7168),         # router / small projections
)
CALIBRATION_SHAPES = ((28672, 4096), (4096, 14336), (128256, 4096), (6144, 4096), (768, 4096), (256, 2048),
                      (2048, 256), (128, 7168))
MS = (1, 4, 16)
MIN_TOTAL_BYTES = 512 * 2**20
MAX_COPIES = 512


def timed_graph(fn, reps: int = 5, warm: int = 3) -> float:
    """µs of one replay of a CUDA graph holding ``fn`` (median of ``reps`` replays after ``warm``; warmed up on a side
    stream before capture; bench/kimi_moe_gpu.py times with it too)."""
    import torch

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    for _ in range(warm):
        g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)


def _copies(n: int, k: int, total: int) -> int:
    return max(2, min(MAX_COPIES, -(-total // (n * k * 2))))


def measure(out_path: str) -> int:
    """The sweep: every shape of ``SHAPES`` at every M of ``MS`` over distinct weight copies (≥ 512 MB).  Its
    copy figure (``copy_`` of a 1 GiB uint8 buffer inside a CUDA graph, 2.74 TB/s on 2026-12-04) is not used:
    the calibration run's eager copy is the one comparable with decode_reference.py."""
    import torch

    dev = "cuda"
    src = torch.empty(2**30, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    copy_us = timed_graph(lambda: dst.copy_(src))
    result = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
              "copy_read_write_tb_s": 2 * 2**30 / copy_us / 1e6, "rows": []}
    del src, dst
    for n, k in SHAPES:
        per, copies = n * k * 2, _copies(n, k, MIN_TOTAL_BYTES)
        ws = [torch.randn(n, k, device=dev, dtype=torch.bfloat16) for _ in range(copies)]
        for m in MS:
            x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            ys = [None] * copies

            def step():
                for i, w in enumerate(ws):
                    ys[i] = x @ w.T

            us = timed_graph(step) / copies
            ref = x.float() @ ws[0].float().T
            err = float((ys[0].float() - ref).abs().max() / ref.abs().max())
            result["rows"].append({"n": n, "k": k, "m": m, "copies": copies, "weight_bytes": per, "us_per_gemm": us,
                                   "weight_tb_s": per / us / 1e6, "rel_err": err})
            print(n, k, m, round(us, 2), round(per / us / 1e6, 2), flush=True)
        del ws
        torch.cuda.empty_cache()
    Path(out_path).write_text(json.dumps(result, indent=1))
    return 0


def calibrate(out_path: str) -> int:
    """Against decode_reference.py's own micro-benchmarks: its eager 2 GiB copy (10 copies after 3), and each GEMM
    both over distinct copies (≥ 1 GiB, as the sweep) and as one weight repeated 20 times (as the reference)."""
    import torch

    dev = "cuda"
    a = torch.empty(2 * 1024**3, dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(10):
        b.copy_(a)
    e1.record()
    e1.synchronize()
    result = {"gpu": torch.cuda.get_device_name(),
              "copy_eager_tb_s": 2 * a.numel() * 10 / (e0.elapsed_time(e1) / 1e3) / 1e12, "same": {}, "distinct": {}}
    del a, b
    torch.cuda.empty_cache()
    for n, k in CALIBRATION_SHAPES:
        copies = _copies(n, k, 1024 << 20)
        ws = [torch.randn(n, k, device=dev, dtype=torch.bfloat16) for _ in range(copies)]
        for m in (1, 16):
            x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)

            def distinct():
                for w in ws:
                    x @ w.T

            def same():
                for _ in range(20):
                    x @ ws[0].T

            result["distinct"][f"{n}x{k}@{m}"] = timed_graph(distinct) / copies
            result["same"][f"{n}x{k}@{m}"] = timed_graph(same) / 20
        del ws
        torch.cuda.empty_cache()
    Path(out_path).write_text(json.dumps(result, indent=1))
    return 0


def compare(path: str) -> int:
    """The sweep's rows against the model's ``gemm`` term without and with the K-latency floor."""
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.perf.device import device_rates
    from tpkit.perf.forward import kernel_us
    from tpkit.perf.kernels import GEMV_MAX_TOKENS, Kernel

    run = json.loads(Path(path).read_text())
    dev = device_rates(lookup_gpu("H200"))
    print(f"{run['gpu']}, {len(run['rows'])} GEMMs")
    print("| N × K | weights MB | M | measured µs | model µs, no floor | error | model µs | error |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    before, after = [], []
    for r in run["rows"]:
        n, k, m = r["n"], r["k"], r["m"]
        args = dict(kind="gemm", name="w", bytes=r["weight_bytes"] + 2 * m * (n + k), flops=2.0 * m * n * k)
        old = kernel_us(Kernel(**args), dev)
        new = kernel_us(Kernel(**args, latency_k=k if m <= GEMV_MAX_TOKENS else 0), dev)
        before.append(old / r["us_per_gemm"] - 1)
        after.append(new / r["us_per_gemm"] - 1)
        print(f"| {n} × {k} | {r['weight_bytes'] / 1e6:.1f} | {m} | {r['us_per_gemm']:.2f} | {old:.2f} | "
              f"{before[-1] * 100:+.0f} % | {new:.2f} | {after[-1] * 100:+.0f} % |")
    for name, errs in (("no floor", before), ("with the floor", after)):
        print(f"{name}: median error {statistics.median(errs) * 100:+.1f} %, min {min(errs) * 100:+.0f} %, "
              f"max {max(errs) * 100:+.0f} %")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="measure the sweep on the GPU and write this JSON")
    ap.add_argument("--calibrate", help="measure the calibration against decode_reference.py and write this JSON")
    ap.add_argument("--compare", help="print the model's prediction for each row of this JSON (CPU)")
    a = ap.parse_args()
    if a.compare:
        return compare(a.compare)
    if a.out:
        return measure(a.out)
    if a.calibrate:
        return calibrate(a.calibrate)
    ap.error("pass --out or --calibrate (GPU), or --compare (CPU)")
    return 2


if __name__ == "__main__":
    sys.exit(main())
