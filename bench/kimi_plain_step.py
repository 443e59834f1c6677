"""Issue 13, Kimi-K2.5 on 8× RTX PRO 6000 (k26v1 / k26v4): the plain decode step, measured against tpkit's, term by term.

Why (docs/accuracy.md §4.5, helper perf27, 2026-12-06, session 27): tpkit's plain tok/s is right at batch 1 and 64
but 28–31 % fast at batch 8–16 on k26v1, and rows 63 / 64 / 68 are wrong-signed by that step alone (their predicted
cycle is within 3 % at 63 / 68).  For every comparable k26v1 / k26v4 row this prints (CPU only, no network):

1. the measured plain step (batch / plain tok/s) and tpkit's, with tpkit's terms: attention, dense GEMMs, expert
   (grouped) GEMMs, small kernels, all-reduce (NCCL, vLLM's choice on > 2 PCIe GPUs), and the all-reduce **as each
   launch set it** (``whatif_pcie_allreduce._priced('D', source)``: k26v4 the C++ custom path ≤ 56 KiB or ≤ 8 rows,
   NCCL above; k26v1 one-stage below 256 KiB, NCCL above: kv14's reading) priced by tpkit's own one-stage / NCCL
   model; the *compute gap* = measured − (tpkit's compute + the all-reduce as launched), and that gap per
   expert-GEMM launch (2 a MoE layer);
2. the source's own sibling runs of the same deployment at context 0 (``bench/data/kimi_k26_plain_runs.json``:
   k26v1, v2, v3, k26v4 plain tok/s, read from the rtx6kpro pages), the step by run: the same box and model with three
   all-reduce policies;
3. with ``--gpu F`` (default ``docs/runs/kimi_moe_h100_2026-12-06.json``, ``bench/kimi_moe_gpu.py`` on one H100): the
   two expert GEMMs of one Kimi MoE layer at TP 8 by batch, measured (a W4A16 Triton kernel and torch._grouped_mm
   bf16), a line through them (µs a layer = intercept + slope × distinct experts) and tpkit's vLLM price of the same
   bytes on the H100 (``forward.kernel_us``: bytes at the copy rate + ``gemm_overhead_us`` a launch).

Usage::

    python bench/kimi_plain_step.py [--json F] [--gpu F]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
RUNS = ROOT / "bench" / "data" / "kimi_k26_plain_runs.json"
GPU_RUN = ROOT / "docs" / "runs" / "kimi_moe_h100_2026-12-06.json"
SOURCES = ("k26v1", "k26v4")
MOE_LAUNCHES = 2 * 60          # Kimi-K2: 60 MoE layers (the first of 61 is dense), w13 and w2 grouped GEMMs each


def _plain(row: dict, launched: bool) -> dict:
    """tpkit's plain step of ``row`` (µs by term); ``launched``: the all-reduce priced as the launch set it."""
    import decode_published as dp
    import tpkit.perf.plan as plan
    import whatif_pcie_allreduce as wa

    g = plan.collectives_us.__globals__
    stock = g["policy_cost"]
    try:
        if launched:
            g["policy_cost"] = wa._priced("D", row["source"])
        base = dp.predict(row).breakdown["baseline"]
    finally:
        g["policy_cost"] = stock
    return {"total_us": base["total_us"], "allreduce_us": base["allreduce_us"], **base["by_kind_us"]}


def itemise() -> list[dict]:
    import decode_published as dp

    data = json.loads(dp.DATA.read_text())
    out = []
    for i, row in enumerate(data["rows"], 1):
        if row["source"] not in SOURCES or not dp.comparable(row):
            continue
        pred, launched = _plain(row, False), _plain(row, True)
        meas = row["batch"] / row["base_tok_s"] * 1e6
        compute = pred["total_us"] - pred["allreduce_us"]
        gap = meas - compute - launched["allreduce_us"]
        out.append({"row": i, "source": row["source"], "batch": row["batch"], "context": row["context"],
                    "meas_us": meas, "pred_us": pred["total_us"], "terms_us": pred,
                    "ar_launched_us": launched["allreduce_us"], "compute_gap_us": gap,
                    "gap_per_moe_launch_us": gap / MOE_LAUNCHES})
    return out


def sibling_runs() -> list[dict]:
    """The source's context-0 runs of one deployment, step by batch (µs), and tpkit's NCCL step beside them."""
    data = json.loads(RUNS.read_text())
    out = []
    for run in data["runs"]:
        out.append({"run": run["run"], "allreduce": run["allreduce"],
                    "step_us": {int(b): int(b) / t * 1e6 for b, t in run["plain_tok_s"].items()}})
    return out


def gpu_table(path: Path) -> dict | None:
    """The H100 run: per batch the measured µs a layer, a line through them, tpkit's price of the same bytes."""
    if not path.exists():
        return None
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.perf.device import device_rates
    from tpkit.perf.forward import kernel_us
    from tpkit.perf.impl import impl_profile
    from tpkit.perf.kernels import Kernel

    run = json.loads(path.read_text())
    dev, impl = device_rates(lookup_gpu("H100-SXM-80GB")), impl_profile("vllm")
    out = {"machine": run["machine"], "copy_gbps": run["copy_gbps"], "kinds": {}}
    for kind in ("int4", "bf16"):
        pts = sorted((int(b), r) for b, r in run[kind].items())
        xs = [r["distinct_experts"] for _, r in pts]
        ys = [r["us_per_layer"] for _, r in pts]
        slope, intercept = _line(xs, ys)
        rows = []
        for (b, r), x, y in zip(pts, xs, ys):
            k = Kernel(kind="grouped", name="experts", dtype="bf16", bytes=r["bytes_per_layer"], flops=0.0)
            tp = kernel_us(k, dev, impl) + impl.grouped_overhead_us   # two launches: one overhead more
            rows.append({"batch": b, "distinct": x, "meas_us": y, "line_us": intercept + slope * x, "tpkit_us": tp,
                         "us_per_expert": y / x})
        out["kinds"][kind] = {"slope_us_per_expert": slope, "intercept_us_per_layer": intercept,
                              "bytes_per_expert": pts[0][1]["bytes_per_layer"] / xs[0], "rows": rows}
    return out


def _line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return slope, my - slope * mx


def _ms(us: float) -> str:
    return f"{us / 1e3:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write every number here")
    ap.add_argument("--gpu", default=str(GPU_RUN), help="kimi_moe_gpu.py's JSON")
    args = ap.parse_args()
    items = itemise()
    print("| row | source | B | ctx | plain ms meas / pred | gap ms | pred: attention / gemm / grouped / small / AR (NCCL) "
          "ms | AR as launched ms | compute gap ms | per expert-GEMM launch µs |")
    print("|---:|---|---:|---:|---|---:|---|---:|---:|---:|")
    for it in items:
        t = it["terms_us"]
        print(f"| {it['row']} | {it['source']} | {it['batch']} | {it['context']} | {_ms(it['meas_us'])} / "
              f"{_ms(it['pred_us'])} | {(it['meas_us'] - it['pred_us']) / 1e3:+.2f} | {_ms(t.get('attention', 0))} / "
              f"{_ms(t.get('gemm', 0))} / {_ms(t.get('grouped', 0))} / {_ms(t.get('small', 0))} / "
              f"{_ms(t['allreduce_us'])} | {_ms(it['ar_launched_us'])} | {it['compute_gap_us'] / 1e3:+.2f} | "
              f"{it['gap_per_moe_launch_us']:+.1f} |")
    runs = sibling_runs()
    batches = sorted(runs[0]["step_us"])
    print("\nSource's own runs, context 0, plain step ms by batch")
    print("| run | all-reduce as launched | " + " | ".join(map(str, batches)) + " |")
    print("|---|---|" + "---:|" * len(batches))
    for r in runs:
        print(f"| {r['run']} | {r['allreduce']} | " + " | ".join(_ms(r['step_us'][b]) for b in batches) + " |")
    ctx0 = {it["batch"]: it for it in items if it["source"] == "k26v4" and it["context"] == 0}
    print("| tpkit (NCCL) | | " + " | ".join(_ms(ctx0[b]["pred_us"]) if b in ctx0 else "—" for b in batches) + " |")
    gpu = gpu_table(Path(args.gpu))
    if gpu:
        print(f"\nH100 run ({gpu['machine']['gpu']}, {gpu['machine']['date_utc']} UTC, torch {gpu['machine']['torch']}, "
              f"triton {gpu['machine']['triton']}): two expert GEMMs of one Kimi MoE layer at TP 8, µs")
        for kind, k in gpu["kinds"].items():
            print(f"{kind}: line {k['intercept_us_per_layer']:.1f} µs + {k['slope_us_per_expert']:.2f} µs × distinct "
                  f"experts ({k['bytes_per_expert'] / 1e6:.2f} MB an expert → "
                  f"{k['bytes_per_expert'] / k['slope_us_per_expert'] / 1e3:.0f} GB/s)")
            print("| B | distinct | measured | line | tpkit (vLLM profile) | µs per expert |")
            print("|---:|---:|---:|---:|---:|---:|")
            for r in k["rows"]:
                print(f"| {r['batch']} | {r['distinct']:.1f} | {r['meas_us']:.1f} | {r['line_us']:.1f} | "
                      f"{r['tpkit_us']:.1f} | {r['us_per_expert']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": items, "runs": runs, "gpu": gpu}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
