"""The EAGLE-3 draft step at B = 1, topk = 1 on the H200 and the H100, term by term (CPU only, no torch).

    python bench/draft_by_gpu.py [spec run JSON ...]

Default runs: ``docs/runs/spec_h200_2026-12-05.json`` (both heads), ``spec_h100_llama_2026-12-05.json`` and
``spec_h100_qwen_2026-12-05.json``.  For every ``draft`` row with a profile at (B 1, topk 1), without the fc, the
run's torch.profiler top-12 kernels are put in perf's terms and set beside perf's own kernels of the step
(``spec_compare.draft_kernels``, the list ``plan._draft_forward`` times, on the run's ``machine.gpu``):

    gemm       cuBLAS GEMMs (``nvjet``/``gemm``/split-K reduce): qkv, o, gate_up, down, lm_head; ``lm_head`` is the
               largest single GEMM of the profile (the 32,000 × hidden draft head is the largest matrix of both heads)
    attention  the reference's masked cuDNN SDPA; perf charges the engines' decode attention (not the same kernel)
    softmax    ``cunn_SoftMaxForward`` over the 32,000-wide row
    radix      ``torch.topk(·, 1)``'s radix select (``mbtopk``, scan-by-key; those in the top 12): the reference's,
               where SGLang 0.5.6 runs ``torch.max`` (perf: ``spec_compare.reference_topk1_us``, the radix select
               less the max, the "as run" addition)
    small      everything else: torch's RMSNorms, element-wise kernels, embedding, the top-k kernels outside the top
               12 (measured: the profile's GPU time less the terms above); perf's norm / element-wise / embedding /
               max kernels
    gap        the graph replay time less the profiled kernel time (inter-kernel gaps inside the CUDA graph)

and the step's error against the reference (perf as SGLang 0.5.6, and "as run").  What differs between the GPUs is
read from this table (docs/accuracy.md §4, helper sp18).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = tuple(ROOT / "docs" / "runs" / f for f in
             ("spec_h200_2026-12-05.json", "spec_h100_llama_2026-12-05.json", "spec_h100_qwen_2026-12-05.json"))
TERMS = ("gemm", "lm_head", "attention", "softmax", "radix", "small")


def measured_terms(profile: dict) -> dict:
    """µs per term of a spec_reference profile (``top``: name → [count, µs]); ``small`` = gpu_us − the other terms."""
    out = dict.fromkeys(TERMS, 0.0)
    gemms = []
    for name, (_, us) in profile["top"].items():
        low = name.lower()
        if "nvjet" in low or "gemm" in low or "splitkreduce" in low:
            out["gemm"] += us
            gemms.append(us)
        elif "sdpa" in low or "fmha" in low:
            out["attention"] += us
        elif "softmax" in low:
            out["softmax"] += us
        elif "mbtopk" in low or "scan_by_key" in low or "gathertopk" in low:
            out["radix"] += us
    out["lm_head"] = max(gemms) if gemms else 0.0
    out["small"] = profile["gpu_us"] - sum(out[t] for t in ("gemm", "attention", "softmax", "radix"))
    return out


def perf_terms(model: str, context: int) -> tuple[dict, float]:
    """perf's µs per term of the draft step at B 1, topk 1 without the fc (``spec_compare.GPU``), and its total."""
    import spec_compare
    from tpkit.perf.forward import kernel_us

    kernels, dev, impl = spec_compare.draft_kernels(model, 1, 1, context, fc=False)
    out = dict.fromkeys(TERMS, 0.0)
    for k in kernels:
        us = k.count * kernel_us(k, dev, impl)
        if k.kind == "gemm":
            out["gemm"] += us
            if k.name == "lm_head":
                out["lm_head"] = us
        elif k.kind == "attention":
            out["attention"] += us
        elif k.name == "draft softmax":
            out["softmax"] += us
        else:
            out["small"] += us
    out["radix"] = spec_compare.reference_topk1_us(model, 1, context)
    return out, sum(k.count * kernel_us(k, dev, impl) for k in kernels)


def rows(paths=RUNS) -> list[dict]:
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "bench"))
    import spec_compare
    from tpkit.hardware.catalog import lookup_gpu

    out = []
    for path in paths:
        run = json.loads(Path(path).read_text())
        spec_compare.GPU = lookup_gpu(run["machine"]["gpu"]).name
        for r in run["rows"]:
            if r["kind"] != "draft" or (r["batch"], r["topk"]) != (1, 1) or not r.get("profile"):
                continue
            pred, total = perf_terms(r["model"].split(" for ", 1)[1], r["context"])
            as_run = total + pred["radix"]
            out.append({"model": r["model"].split("/")[-1], "gpu": spec_compare.GPU, "step_us": r["step_us"],
                        "kernels_us": r["profile"]["gpu_us"], "measured": measured_terms(r["profile"]),
                        "perf": pred, "perf_us": total,
                        "error": total / r["step_us"] - 1, "error_as_run": as_run / r["step_us"] - 1})
    return out


def main(argv: list[str]) -> int:
    found = rows([Path(a) for a in argv[1:]] or RUNS)
    print("| draft head | GPU | step µs (graph) | kernels µs | " + " | ".join(f"{t} meas / perf" for t in TERMS)
          + " | gap µs | perf µs | error | error as run |")
    print("|---|---|---:|---:|" + "---|" * len(TERMS) + "---:|---:|---:|---:|")
    for r in found:
        m, p = r["measured"], r["perf"]
        cells = " | ".join(f"{m[t]:.1f} / {p[t]:.1f}" for t in TERMS)
        print(f"| {r['model']} | {r['gpu']} | {r['step_us']:.0f} | {r['kernels_us']:.0f} | {cells} | "
              f"{r['step_us'] - r['kernels_us']:.0f} | {r['perf_us']:.0f} | {r['error'] * 100:+.1f} % | "
              f"{r['error_as_run'] * 100:+.1f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
