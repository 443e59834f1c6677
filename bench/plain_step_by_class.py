"""The plain decode step, predicted vs measured, by architecture class (helper hy22, issue 13; CPU only, no network).

    python bench/plain_step_by_class.py              # class table, per-source table, the GDN what-if
    python bench/plain_step_by_class.py --json F     # also write every row's numbers to F
    python bench/plain_step_by_class.py --by gpu_class,link   # the plain-step error grouped by those keys (helper sp28)

Reads ``bench/data/published_spec.json`` and predicts every row exactly as ``bench/decode_published.py`` does
(``decode_published.predict``).  For each row whose source gives a plain tok/s (``base_tok_s``) it sets the measured
plain step (batch / plain tok/s) against ``tpkit perf``'s, and, where the source also gives a speculative tok/s, the
measured cycle (batch × accept length / speculative tok/s, the accept length as ``decode_published.itemise`` takes it)
against the predicted one.  Rows ``not_comparable`` and rows scored as a workload are left out of the tables (their
step is not a steady decode step at ``batch``).

Classes, from the model's config as ``tpkit`` reads it: ``hybrid GDN`` (Gated DeltaNet linear-attention layers:
Qwen3-Next, Qwen3.5 / 3.6 / 3.8), ``hybrid other`` (any other linear-attention or Mamba mixer), ``MLA``, ``MoE``,
``dense``; a MoE GDN model is ``hybrid GDN MoE``.

Helper sp28 (2026-12-06): every row also carries its GPU class (``gpu_class``: the architecture by compute capability,
AMD Instinct apart), the TP group's ``link`` as ``tpkit perf`` takes it (``nvlink`` / ``xgmi`` / ``pcie``; ``single`` at
TP 1), ``p2p`` (CUDA peer access over PCIe: the GPU catalog's ``pcie_p2p``; NVLink and xGMI have it), the all-reduce
``ar_backend`` tpkit picks, and ``tp_bucket``; ``group_table`` sets the plain-step error (predicted / measured) against
any of these keys, with the rows whose plain step is predicted ≥ 25 % fast ("far off") and the wrong signs among them.

The what-if asks whether the plain step can be what turns the hybrid GDN rows' signs: the speed-up ``tpkit`` predicts
is accept length × step / cycle, so it prints the GDN rows' sign and within-25 % counts (a) as predicted, (b) with the
measured plain step and the predicted cycle, (c) with the measured plain step and the same extra milliseconds added to
the cycle (a per-forward term the verify would carry as well).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import decode_published as dp  # noqa: E402


def arch_class(spec) -> str:
    """``hybrid GDN`` / ``hybrid GDN MoE`` / ``hybrid other`` / ``MLA`` / ``MoE`` / ``dense`` of a ``ModelSpec``."""
    moe = spec.moe is not None
    if spec.linear_attn is not None or "linear" in spec.kinds:
        gdn = spec.linear_attn is not None and "Gated DeltaNet" in spec.linear_attn.description
        return ("hybrid GDN" + (" MoE" if moe else "")) if gdn else "hybrid other"
    if spec.mla is not None:
        return "MLA"
    return "MoE" if moe else "dense"


_CLASSES = {(8, 0): "Ampere DC (8.0)", (8, 6): "Ampere GA10x (8.6)", (8, 9): "Ada (8.9)", (9, 0): "Hopper (9.0)",
            (10, 0): "Blackwell DC (10.0)", (10, 3): "Blackwell DC (10.3)", (12, 0): "Blackwell GB20x (12.0)"}


def gpu_class(gpu) -> str:
    """The GPU's architecture class (``GpuSpec``): by compute capability; AMD Instinct apart."""
    from tpkit.hardware.gpu import is_amd

    if is_amd(gpu.vendor):
        return "AMD Instinct"
    cc = tuple(gpu.compute_capability or ())
    return _CLASSES.get(cc, f"sm {'.'.join(map(str, cc))}")


def _link_fields(row: dict, result) -> dict:
    """link / p2p / all-reduce backend of the row's TP group as ``tpkit perf`` priced it."""
    from tpkit.hardware.catalog import lookup_gpu

    gpu = lookup_gpu(row["gpu"])
    link = "single" if row["tp"] == 1 else result.inputs["link"]
    p2p = {"single": "n/a", "pcie": "yes" if gpu.pcie_p2p else "no"}.get(link, "yes")
    return {"gpu_class": gpu_class(gpu), "link": link, "p2p": p2p,
            "ar_backend": result.allreduce.get("backend") if row["tp"] > 1 else "none",
            "tp_bucket": "1" if row["tp"] == 1 else ("2" if row["tp"] == 2 else ("4" if row["tp"] <= 4 else "8+"))}


def rows(data: dict | None = None, classes: tuple[str, ...] | None = None) -> list[dict]:
    """Every row with a plain tok/s: its class and measured vs predicted plain step, cycle and speed-up.
    ``classes``: price only the rows of these classes (``arch_class``)."""
    from tpkit.models import load_model

    data = data or json.loads(dp.DATA.read_text())
    specs: dict[str, object] = {}
    out = []
    for number, row in enumerate(data["rows"], 1):
        if not row["base_tok_s"]:
            continue
        model = row["model"]
        if model not in specs:
            specs[model] = load_model(str(ROOT / model) if model.startswith("bench/") else model)
        spec = specs[model]
        if classes is not None and arch_class(spec) not in classes:
            continue
        r = dp.predict(row)
        tau = row["accept_length"] or r.speculative.accept_length
        out.append({
            "row": number, "source": row["source"], "class": arch_class(spec), "model": model.split("/")[-1],
            "gpu": row["gpu"], "tp": row["tp"], "engine": row["engine"], "version": row.get("engine_version"),
            "batch": row["batch"], "context": row["context"], "gdn_layers": list(spec.kinds).count("linear"),
            "layers": spec.num_layers, "accept_length": tau, "num_steps": row["num_steps"],
            "step_ms": {"measured": row["batch"] / row["base_tok_s"] * 1e3, "predicted": r.baseline.step_us / 1e3},
            "cycle_ms": {"measured": row["batch"] * tau / row["spec_tok_s"] * 1e3 if row["spec_tok_s"] else None,
                         "predicted": r.speculative.cycle_us / 1e3},
            "speedup": {"measured": dp.measured_speedup(row), "predicted": r.speculative.speedup},
            "scored": dp.comparable(row) and row.get("measurement") != "workload", **_link_fields(row, r)})
    return out


def _ratio(x: dict, key: str) -> float:
    return x[key]["predicted"] / x[key]["measured"]


def class_table(items: list[dict]) -> list[str]:
    groups: dict[tuple, list[dict]] = {}
    for x in items:
        if x["scored"] and x["cycle_ms"]["measured"]:
            groups.setdefault((x["class"], x["engine"], "1" if x["batch"] == 1 else "> 1"), []).append(x)
    lines = ["| class | engine | batch | rows | sources | plain step pred / meas: median (range) | "
             "extra µs per layer (median) | cycle pred / meas: median (range) | wrong sign |",
             "|---|---|---|---:|---:|---|---:|---|---:|"]
    for (cls, engine, batch), xs in sorted(groups.items()):
        s, c = [_ratio(x, "step_ms") for x in xs], [_ratio(x, "cycle_ms") for x in xs]
        wrong = sum((x["speedup"]["predicted"] > 1) != (x["speedup"]["measured"] > 1) for x in xs)
        extra = statistics.median((x["step_ms"]["measured"] - x["step_ms"]["predicted"]) * 1e3 / x["layers"] for x in xs)
        lines.append(f"| {cls} | {engine} | {batch} | {len(xs)} | {len({x['source'] for x in xs})} | "
                     f"{statistics.median(s):.2f} ({min(s):.2f}–{max(s):.2f}) | {extra:.0f} | "
                     f"{statistics.median(c):.2f} ({min(c):.2f}–{max(c):.2f}) | {wrong} |")
    return lines


def source_table(items: list[dict], classes=("hybrid GDN", "hybrid GDN MoE")) -> list[str]:
    groups: dict[tuple, list[dict]] = {}
    for x in items:
        if x["scored"] and x["cycle_ms"]["measured"] and x["class"] in classes:
            groups.setdefault((x["class"], x["source"], x["model"], x["gpu"], x["tp"], x["engine"], x["version"]),
                              []).append(x)
    lines = ["| class | source | model | GPU × TP | engine | batch | GDN / all layers | rows | plain step pred / meas "
             "(range) | extra µs per GDN layer (median) | cycle pred / meas | wrong sign |",
             "|---|---|---|---|---|---|---|---:|---|---:|---:|---:|"]
    for key, xs in sorted(groups.items()):
        cls, source, model, gpu, tp, engine, version = key
        s, c = [_ratio(x, "step_ms") for x in xs], [_ratio(x, "cycle_ms") for x in xs]
        extra = statistics.median((x["step_ms"]["measured"] - x["step_ms"]["predicted"]) * 1e3 / x["gdn_layers"]
                                  for x in xs)
        batches = sorted({x["batch"] for x in xs})
        wrong = sum((x["speedup"]["predicted"] > 1) != (x["speedup"]["measured"] > 1) for x in xs)
        lines.append(f"| {cls} | {source} | {model.replace('.config.json', '').replace('.json', '')} | {gpu} × {tp} | "
                     f"{engine} {version or ''} | {batches[0]}–{batches[-1]} | {xs[0]['gdn_layers']} / {xs[0]['layers']} "
                     f"| {len(xs)} | {statistics.median(s):.2f} ({min(s):.2f}–{max(s):.2f}) | {extra:.0f} µs | "
                     f"{statistics.median(c):.2f} | {wrong} |")
    return lines


GROUP_KEYS = ("gpu_class", "link", "p2p", "ar_backend", "tp", "tp_bucket", "engine", "version", "class", "source", "gpu",
              "batch")
"""the fields of ``rows`` that ``--by`` / ``group_table`` group on"""

FAR = 1.25
"""a plain step measured ≥ 1.25 × the predicted one is "far off" (the within-25 % line of the speed-up, on the step)"""


def _wrong(x: dict) -> bool:
    m = x["speedup"]["measured"]
    return m is not None and (x["speedup"]["predicted"] > 1) != (m > 1)


def group_table(items: list[dict], keys: tuple[str, ...]) -> list[str]:
    """The plain-step error of the scored rows grouped by ``keys`` (fields of ``rows``): predicted / measured step
    (median, range), the rows whose measured step is ≥ ``FAR`` × predicted, and the wrong signs, all and among those."""
    groups: dict[tuple, list[dict]] = {}
    for x in items:
        if x["scored"]:
            groups.setdefault(tuple(str(x[k]) for k in keys), []).append(x)
    lines = [f"| {' | '.join(keys)} | rows | sources | plain step pred / meas: median (range) | far off (meas ≥ 1.25 × pred) "
             "| wrong sign | wrong sign among far off |", "|" + "---|" * len(keys) + "---:|---:|---|---:|---:|---:|"]
    for key, xs in sorted(groups.items()):
        s = [_ratio(x, "step_ms") for x in xs]
        far = [x for x in xs if x["step_ms"]["measured"] >= FAR * x["step_ms"]["predicted"]]
        lines.append(f"| {' | '.join(key)} | {len(xs)} | {len({x['source'] for x in xs})} | "
                     f"{statistics.median(s):.2f} ({min(s):.2f}–{max(s):.2f}) | {len(far)} | "
                     f"{sum(map(_wrong, xs))} | {sum(map(_wrong, far))} |")
    return lines


def far_off_cross(items: list[dict]) -> dict:
    """Wrong signs against the plain step being far off, over the scored rows with a measured speed-up."""
    xs = [x for x in items if x["scored"] and x["speedup"]["measured"] is not None]
    far = [x for x in xs if x["step_ms"]["measured"] >= FAR * x["step_ms"]["predicted"]]
    return {"rows": len(xs), "far_off": len(far), "wrong": sum(map(_wrong, xs)), "wrong_far_off": sum(map(_wrong, far))}


def what_if(items: list[dict], *, gdn_only: bool = True) -> dict:
    """Sign right / within 25 % of the scored hybrid GDN rows (every class with ``gdn_only=False``, helper sp28) with
    both tok/s, as predicted and with the measured plain step put in (cycle as predicted, or cycle plus the same extra
    ms)."""
    gdn = [x for x in items if x["scored"] and x["cycle_ms"]["measured"]
           and (x["class"].startswith("hybrid GDN") or not gdn_only)]

    def count(speedup) -> dict:
        sp = [speedup(x) for x in gdn]
        return {"sign_ok": sum((p > 1) == (x["speedup"]["measured"] > 1) for p, x in zip(sp, gdn)),
                "within_25": sum(abs(p / x["speedup"]["measured"] - 1) <= 0.25 for p, x in zip(sp, gdn))}

    def step_in(x, forwards: float) -> float:
        meas, pred, cyc = x["step_ms"]["measured"], x["step_ms"]["predicted"], x["cycle_ms"]["predicted"]
        return x["accept_length"] * meas / (cyc + forwards * (meas - pred))

    out = {"rows": len(gdn), "as_predicted": count(lambda x: x["speedup"]["predicted"]),
           "measured_step_cycle_as_predicted": count(lambda x: step_in(x, 0.0)),
           "measured_step_same_ms_on_cycle": count(lambda x: step_in(x, 1.0))}
    if not gdn_only:  # helper sp28: the step's miss on every forward of the cycle (the verify and each draft step)
        out["measured_step_miss_per_forward"] = count(lambda x: step_in(x, 1.0 + x["num_steps"]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=None, help="also write every row's numbers to this file")
    ap.add_argument("--by", action="append", default=None, help="comma-separated keys of one plain-step table, "
                    "repeatable (gpu_class, link, p2p, ar_backend, tp, tp_bucket, engine, version, class, source, gpu); "
                    "prints only those tables (helper sp28)")
    args = ap.parse_args()
    tables = [tuple(k.strip() for k in by.split(",") if k.strip()) for by in args.by or ()]
    bad = sorted({k for keys in tables for k in keys if k not in GROUP_KEYS})
    if bad or any(not keys for keys in tables):
        print(f"plain_step_by_class: --by: unknown or empty key(s) {', '.join(bad) or '(none given)'}; "
              f"known: {', '.join(GROUP_KEYS)}", file=sys.stderr)
        return 2
    items = rows()
    if args.json:
        Path(args.json).write_text(json.dumps(items, indent=1) + "\n")
    if tables:
        for keys in tables:
            print("\n".join(group_table(items, keys)) + "\n")
        print(far_off_cross(items))
        w = what_if(items, gdn_only=False)
        print(f"every class, rows with both tok/s (scored): {w['rows']}")
        for key in ("as_predicted", "measured_step_cycle_as_predicted", "measured_step_same_ms_on_cycle",
                    "measured_step_miss_per_forward"):
            print(f"  {key}: sign right {w[key]['sign_ok']}, within 25 % {w[key]['within_25']}")
        return 0
    print("\n".join(class_table(items)))
    print()
    print("\n".join(source_table(items)))
    print()
    w = what_if(items)
    print(f"hybrid GDN rows with both tok/s (scored): {w['rows']}")
    for key in ("as_predicted", "measured_step_cycle_as_predicted", "measured_step_same_ms_on_cycle"):
        print(f"  {key}: sign right {w[key]['sign_ok']}, within 25 % {w[key]['within_25']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
