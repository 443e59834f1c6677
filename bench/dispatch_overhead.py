"""CPU cost per eager call of the pieces of ``AllReduce.decide`` (one GPU, no process group).

    python bench/dispatch_overhead.py

Prints µs per call for the capture query (public wrapper and the raw binding), the size/dtype
computation and the cached decision lookup, to find what an eager auto call pays over a forced one.
"""

from __future__ import annotations

import sys
import time

import torch

from tpkit.comm.allreduce import _dtype_name


def per_call_us(fn, n: int = 20000) -> float:
    for _ in range(1000):
        fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    from tpkit.runtime.machine_probe import no_gpu_reason

    if (why := no_gpu_reason()) is not None:  # a GPU script on a CPU machine: say so, exit 2, no traceback
        print(f"bench/dispatch_overhead.py: needs a CUDA GPU: {why}; run it on a GPU machine", file=sys.stderr)
        raise SystemExit(2)
    x = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    cache = {(x.numel() * x.element_size(), "bf16", "eager"): "decision"}
    rows = {
        "torch.cuda.is_current_stream_capturing()": torch.cuda.is_current_stream_capturing,
        "torch._C._cuda_isCurrentStreamCapturing()": torch._C._cuda_isCurrentStreamCapturing,
        "x.is_cuda": lambda: x.is_cuda,
        "numel × element_size + dtype name": lambda: (x.numel() * x.element_size(), _dtype_name(x.dtype)),
        "cached decision lookup": lambda: cache.get((x.numel() * x.element_size(), _dtype_name(x.dtype), "eager")),
        "torch.empty_like(x)": lambda: torch.empty_like(x),
    }
    print(f"{'step':45s} {'us_per_call':>12s}")
    for name, fn in rows.items():
        print(f"{name:45s} {per_call_us(fn):12.2f}")


if __name__ == "__main__":
    main()
