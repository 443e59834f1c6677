"""Every hybrid Gated-DeltaNet row with speculation, right and wrong, side by side (helper gdn23, issue 13; CPU only).

    python bench/gdn_spec_rows.py               # the row table, then the groups (engine, TP 1 / ≥ 2, link)
    python bench/gdn_spec_rows.py --json F      # also write every row's numbers to F

Reads ``bench/data/published_spec.json`` and predicts each row exactly as ``bench/decode_published.py`` does
(``decode_published.predict``; the class from ``plain_step_by_class.arch_class``).  A row is listed when its model is
``hybrid GDN`` or ``hybrid GDN MoE`` (Qwen3-Next, Qwen3.5 / 3.6 / 3.8 with Gated DeltaNet layers).  Per row: TP, GPU,
the link ``tpkit perf`` prices the all-reduce on (``nvlink`` / ``pcie``) and the catalog's PCIe peer access
(``GpuSpec.pcie_p2p``: False on GeForce cards, whose NCCL then goes through host memory), batch, context, the
speculative settings, the accept length (logged, or the family default marked *), measured plain / speculative tok/s,
the measured plain step and cycle (batch / plain tok/s; batch × accept length / speculative tok/s), the predicted ones
and the cycle's parts (draft steps, verify, overhead), the measured and predicted speed-up and the sign.  Rows marked
``not_comparable`` are listed as "n/c" and left out of the group counts; rows without a tok/s show the speed-up only.
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
from plain_step_by_class import arch_class  # noqa: E402

GDN_CLASSES = ("hybrid GDN", "hybrid GDN MoE")


def _link(row: dict, gpu) -> str:
    if row["tp"] == 1:
        return "—"
    kind = "nvlink" if gpu.nvlink_gbps_per_direction else "pcie"
    if kind == "pcie":
        kind += {True: " P2P", False: " no P2P"}.get(gpu.pcie_p2p, " P2P ?")
    return kind


def rows(data: dict | None = None) -> list[dict]:
    """Every hybrid GDN row with its measured and predicted step, cycle, parts and speed-up."""
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model

    data = data or json.loads(dp.DATA.read_text())
    specs: dict[str, object] = {}
    out = []
    for number, row in enumerate(data["rows"], 1):
        model = row["model"]
        if model not in specs:
            specs[model] = load_model(str(ROOT / model) if model.startswith("bench/") else model)
        cls = arch_class(specs[model])
        if cls not in GDN_CLASSES:
            continue
        r = dp.predict(row)
        spec = r.speculative
        tau = row["accept_length"] or spec.accept_length
        parts = dict(spec.parts_us)
        meas_step = row["batch"] / row["base_tok_s"] * 1e3 if row["base_tok_s"] else None
        meas_cycle = row["batch"] * tau / row["spec_tok_s"] * 1e3 if row["spec_tok_s"] else None
        out.append({
            "row": number, "source": row["source"], "class": cls,
            "model": model.split("/")[-1].replace(".config.json", "").replace(".json", ""),
            "engine": f"{row['engine']} {row.get('engine_version') or ''}".strip(), "gpu": row["gpu"], "tp": row["tp"],
            "link": _link(row, lookup_gpu(row["gpu"])), "attention": row.get("attention_backend") or "default",
            "kv": row["kv_cache_dtype"], "batch": row["batch"], "context": row["context"],
            "settings": f"{row['algorithm']} {row['num_steps']}/{row['topk']}/{row['num_draft_tokens']}",
            "accept_length": tau, "accept_logged": bool(row["accept_length"]),
            "tok_s": {"plain": row["base_tok_s"], "spec": row["spec_tok_s"]},
            "step_ms": {"measured": meas_step, "predicted": r.baseline.step_us / 1e3},
            "cycle_ms": {"measured": meas_cycle, "predicted": spec.cycle_us / 1e3},
            "parts_ms": {"draft": parts["draft steps"] / 1e3, "verify": parts["verify"] / 1e3,
                         "overhead": parts["overhead"] / 1e3},
            "allreduce_ms": {"step": r.breakdown.get("baseline", {}).get("allreduce_us", 0.0) / 1e3,
                             "cycle": (parts["verify allreduce (in verify)"]
                                       + parts["draft allreduce (in steps)"]) / 1e3},
            "verify_tokens": row["num_steps"] + 1 if row["engine"] == "vllm" else row["num_draft_tokens"],
            "speedup": {"measured": dp.measured_speedup(row), "predicted": spec.speedup},
            "comparable": dp.comparable(row)})
    return out


def _sign(x: dict) -> str:
    ok = (x["speedup"]["predicted"] > 1) == (x["speedup"]["measured"] > 1)
    word = "ok" if ok else "WRONG"
    return word if x["comparable"] else f"n/c ({word})"


def _ms(v: float | None) -> str:
    return "—" if v is None else f"{v:.1f}"


def row_table(items: list[dict]) -> list[str]:
    lines = ["| # | source | model | engine | GPU × TP | link | attn / KV | batch | ctx | settings | accept | "
             "tok/s plain / spec (meas) | step ms meas / pred | cycle ms meas / pred | pred draft / verify / overhead "
             "ms | speed-up meas / pred | sign |",
             "|---|---|---|---|---|---|---|---:|---:|---|---:|---|---|---|---|---|---|"]
    for x in items:
        tok = (f"{x['tok_s']['plain']:.1f} / {x['tok_s']['spec']:.1f}" if x["tok_s"]["plain"] and x["tok_s"]["spec"]
               else "—")
        p = x["parts_ms"]
        lines.append(
            f"| {x['row']} | {x['source']} | {x['model']} | {x['engine']} | {x['gpu']} × {x['tp']} | {x['link']} | "
            f"{x['attention']} / {x['kv']} | {x['batch']} | {x['context']} | {x['settings']} | "
            f"{x['accept_length']:.2f}{'' if x['accept_logged'] else '*'} | {tok} | "
            f"{_ms(x['step_ms']['measured'])} / {x['step_ms']['predicted']:.1f} | "
            f"{_ms(x['cycle_ms']['measured'])} / {x['cycle_ms']['predicted']:.1f} | "
            f"{p['draft']:.1f} / {p['verify']:.1f} / {p['overhead']:.1f} | "
            f"{x['speedup']['measured']:.2f} / {x['speedup']['predicted']:.2f} | {_sign(x)} |")
    return lines


def group_key(x: dict) -> tuple:
    return (x["engine"].split()[0], "TP 1" if x["tp"] == 1 else "TP ≥ 2", x["link"])


def group_table(items: list[dict]) -> list[str]:
    """By engine, TP 1 / ≥ 2 and link: comparable rows, wrong signs, measured speed-up and, where the source gives
    both tok/s, the cycle's and the plain step's predicted / measured ratio and the cycle / step ratio both ways."""
    groups: dict[tuple, list[dict]] = {}
    for x in items:
        if x["comparable"]:
            groups.setdefault(group_key(x), []).append(x)
    lines = ["| engine | TP | link | rows | sources | wrong sign | measured speed-up: median (range) | step pred / "
             "meas | cycle pred / meas | cycle / step meas | cycle / step pred |",
             "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|"]
    for key, xs in sorted(groups.items()):
        wrong = sum((x["speedup"]["predicted"] > 1) != (x["speedup"]["measured"] > 1) for x in xs)
        sp = [x["speedup"]["measured"] for x in xs]
        timed = [x for x in xs if x["cycle_ms"]["measured"]]

        def med(f) -> str:
            return f"{statistics.median(f(x) for x in timed):.2f}" if timed else "—"

        lines.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {len(xs)} | {len({x['source'] for x in xs})} | {wrong} | "
            f"{statistics.median(sp):.2f} ({min(sp):.2f}–{max(sp):.2f}) | "
            f"{med(lambda x: x['step_ms']['predicted'] / x['step_ms']['measured'])} | "
            f"{med(lambda x: x['cycle_ms']['predicted'] / x['cycle_ms']['measured'])} | "
            f"{med(lambda x: x['cycle_ms']['measured'] / x['step_ms']['measured'])} | "
            f"{med(lambda x: x['cycle_ms']['predicted'] / x['step_ms']['predicted'])} |")
    return lines


def tp_pairs(items: list[dict]) -> list[dict]:
    """Rows measured at TP 2 and TP 4 with everything else equal (source, model, engine, attention, KV, batch,
    context, settings; both comparable and with both tok/s): TP 4 ÷ TP 2 of the plain and the speculative tok/s,
    measured and predicted (predicted speculative tok/s = accept length × batch / cycle)."""
    def key(x):
        return (x["source"], x["model"], x["engine"], x["attention"], x["kv"], x["batch"], x["context"], x["settings"])

    by_tp: dict[tuple, dict[int, dict]] = {}
    for x in items:
        if x["comparable"] and x["cycle_ms"]["measured"]:
            by_tp.setdefault(key(x), {})[x["tp"]] = x
    out = []
    for k, xs in sorted(by_tp.items()):
        if 2 in xs and 4 in xs:
            a, b = xs[2], xs[4]
            out.append({"rows": (a["row"], b["row"]), "engine": a["engine"], "model": a["model"], "kv": a["kv"],
                        "context": a["context"],
                        "plain_measured": b["tok_s"]["plain"] / a["tok_s"]["plain"],
                        "spec_measured": b["tok_s"]["spec"] / a["tok_s"]["spec"],
                        "plain_predicted": a["step_ms"]["predicted"] / b["step_ms"]["predicted"],
                        "spec_predicted": (b["accept_length"] / b["cycle_ms"]["predicted"])
                        / (a["accept_length"] / a["cycle_ms"]["predicted"])})
    return out


def link_what_if(x: dict, factor: float = 3.0) -> dict:
    """What a slower link does to row ``x``'s predicted speed-up (accept length × step / cycle), two ways:
    ``latency``: every all-reduce of the plain step and of the cycle ``factor`` × as long (a per-call cost, as NCCL's
    latency-bound small messages are); ``bandwidth``: the extra all-reduce time per plain step ``a`` that would turn the
    sign if every verify all-reduce carried ``verify_tokens`` × that time (a byte-proportional cost), and the plain
    step it implies — against the measured one.  The draft's own all-reduces are left at their price."""
    tau, s, c = x["accept_length"], x["step_ms"]["predicted"], x["cycle_ms"]["predicted"]
    a_s, a_c = x["allreduce_ms"]["step"], x["allreduce_ms"]["cycle"]
    latency = tau * (s + (factor - 1) * a_s) / (c + (factor - 1) * a_c)
    n = x["verify_tokens"]
    a = (tau * s - c) / (n - tau) if n > tau else float("inf")
    return {"latency_speedup": latency, "bandwidth_extra_step_ms": a, "bandwidth_step_ms": s + a,
            "measured_step_ms": x["step_ms"]["measured"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=None, help="also write every row's numbers to this file")
    args = ap.parse_args()
    items = rows()
    print("\n".join(row_table(items)))
    print()
    print("\n".join(group_table(items)))
    print()
    pairs = tp_pairs(items)
    print("TP 4 ÷ TP 2, same configuration otherwise (tp_pairs): median (range) over the pairs")
    for engine in sorted({p["engine"] for p in pairs}):
        ps = [p for p in pairs if p["engine"] == engine]
        parts = []
        for name in ("plain_measured", "plain_predicted", "spec_measured", "spec_predicted"):
            v = sorted(p[name] for p in ps)
            parts.append(f"{name} {statistics.median(v):.2f} ({v[0]:.2f}–{v[-1]:.2f})")
        print(f"  {engine}: {len(ps)} pairs: " + ", ".join(parts))
    print()
    print("a slower link, on the comparable wrong rows (link_what_if): speed-up with every all-reduce 3× as long; "
          "extra all-reduce ms per plain step a byte-proportional cost would need to turn the sign, and the step")
    for x in items:
        if x["comparable"] and (x["speedup"]["predicted"] > 1) != (x["speedup"]["measured"] > 1):
            w = link_what_if(x)
            print(f"  row {x['row']}: predicted {x['speedup']['predicted']:.2f}x -> {w['latency_speedup']:.2f}x "
                  f"(measured {x['speedup']['measured']:.2f}x); bandwidth: +{w['bandwidth_extra_step_ms']:.1f} ms per "
                  f"step, plain step {w['bandwidth_step_ms']:.1f} ms against {_ms(w['measured_step_ms'])} measured")
    if args.json:
        Path(args.json).write_text(json.dumps(items, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
