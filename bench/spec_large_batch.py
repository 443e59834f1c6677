"""Issue 13's large-batch wrong signs, itemised: where the predicted cycle goes and how the measured one grows.

Why (docs/accuracy.md §4.5, helper sp25, 2026-12-06): the held-out rows measured below 1.0 and predicted above at
batch 8–128 (eagle3_t3 135–139, as163 25 / 26, k26v1 59) and the opposite at small batch on the same Kimi box (k26v1
63 / 64 / 68, training k26v4 34–49).  For every comparable row of those four sources this prints, from the scorer's
own prediction (``decode_published.predict``) and the same internals ``plan_perf`` calls:

* the measured plain step and cycle (step = batch / plain tok/s, cycle = batch × accept length / speculative tok/s;
  eagle3_t3 prints speed-ups only, so its cycle is the one implied at the *predicted* plain step), the predicted
  ones, and the predicted cycle's parts: draft steps, the verify forward split into its weight / MoE GEMMs,
  attention, small kernels and all-reduce, the draft extend and the overhead;
* per source and context, the **marginal cost per added verify token** between consecutive batches, measured
  (Δcycle / Δ(batch × draft tokens)) against predicted, and the plain step's marginal cost per added request; the
  predicted verify and plain step at each batch split the same way, so which term carries the slope can be read;
* the margin of every row per verify token (``spec_margins.margins``' total ÷ running × draft tokens): the interval
  a cost proportional to the verify's tokens would have to fall in to fix the wrong rows without turning a right
  one, for these sources and for every comparable row of the data (``--all``).

Usage::

    python bench/spec_large_batch.py                 # the four sources
    python bench/spec_large_batch.py --all           # + the per-verify-token bounds over every comparable row
    python bench/spec_large_batch.py --json F        # every number
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("eagle3_t3", "as163", "k26v1", "k26v4")


def _verify_forward(row: dict) -> dict:
    """The predicted verify forward of ``row`` as ``plan._spec_point`` builds it: µs by kernel kind, all-reduce µs,
    total µs, running requests and verify tokens."""
    import decode_published as dp
    from tpkit.perf import plan
    from tpkit.perf.graphs import graph_padding
    from tpkit.perf.mla_splits import verify_attention_mode
    from tpkit.perf.spec import running_requests

    req = dp._request(row)
    ctx = plan._context(req)
    policy = req.backend or plan.default_policy(ctx.setup.link)
    s, rt = req.spec, ctx.runtime(req.spec)
    running, _ = running_requests(req, req.batch, True)
    pad, graph = graph_padding(req, rt, running, True, rt.verify_graph)
    out, _ = plan._forward(ctx, req.model, plan._batch(ctx, running, s.num_draft_tokens, pad, verify=True), policy,
                           attention=verify_attention_mode(rt), graph=graph)
    return {"by_kind_us": dict(out.by_kind_us), "allreduce_us": out.allreduce_us, "total_us": out.total_us,
            "running": running, "tokens": running * s.num_draft_tokens}


def itemise(number: int, row: dict) -> dict:
    """Measured and predicted step / cycle of one row, the cycle's parts and the verify / plain splits (µs)."""
    import decode_published as dp

    r = dp.predict(row)
    spec, base = r.speculative, r.baseline
    tau = row["accept_length"] or spec.accept_length
    meas = dp.measured_speedup(row)
    has_tok_s = bool(row["base_tok_s"] and row["spec_tok_s"])
    step_meas = row["batch"] / row["base_tok_s"] * 1e6 if has_tok_s else None
    cycle_meas = row["batch"] * tau / row["spec_tok_s"] * 1e6 if has_tok_s else None
    plain = r.breakdown.get("baseline", {})
    parts = dict(spec.parts_us)
    return {"row": number, "source": row["source"], "batch": row["batch"], "context": row["context"],
            "algorithm": f"{row['algorithm']} {row['num_steps']}/{row['topk']}/{row['num_draft_tokens']}",
            "accept_length": tau, "measured": meas, "predicted": spec.speedup,
            "scored": dp.scored_speedup(row, _data(), r), "workload": row.get("measurement") == "workload",
            "step_meas_us": step_meas, "cycle_meas_us": cycle_meas,
            "cycle_implied_us": tau * base.step_us / meas if not has_tok_s else None,
            "step_pred_us": base.step_us, "cycle_pred_us": spec.cycle_us,
            "plain_by_kind_us": plain.get("by_kind_us", {}), "plain_allreduce_us": plain.get("allreduce_us", 0.0),
            "draft_us": parts["draft steps"], "extend_us": parts["draft extend"], "overhead_us": parts["overhead"],
            "verify": _verify_forward(row)}


_DATA: dict | None = None


def _data() -> dict:
    global _DATA
    if _DATA is None:
        import decode_published as dp
        _DATA = json.loads(dp.DATA.read_text())
    return _DATA


def _ms(x: float | None) -> str:
    return "—" if x is None else f"{x / 1e3:.2f}"


def _split(by_kind: dict, allreduce: float) -> str:
    """weights (gemm + grouped) / attention / small / all-reduce, ms"""
    w = by_kind.get("gemm", 0.0) + by_kind.get("grouped", 0.0)
    return f"{w / 1e3:.2f} / {by_kind.get('attention', 0.0) / 1e3:.2f} / {by_kind.get('small', 0.0) / 1e3:.2f} / " \
           f"{allreduce / 1e3:.2f}"


def rows_table(items: list[dict]) -> list[str]:
    out = ["| row | source | B | ctx | verify tokens | speed-up meas / pred | plain step ms meas / pred | "
           "cycle ms meas / pred | draft / verify / extend / overhead ms | verify: weights / attn / small / AR ms | "
           "plain: weights / attn / small / AR ms |",
           "|---:|---|---:|---:|---:|---|---|---|---|---|---|"]
    for it in items:
        v = it["verify"]
        sign = "" if (it["measured"] > 1) == (it["scored"] > 1) else " **WRONG**"
        scored = f"{it['scored']:.2f} (workload)" if it["workload"] else f"{it['predicted']:.2f}"
        cyc = (f"{_ms(it['cycle_meas_us'])} / {_ms(it['cycle_pred_us'])}" if it["cycle_meas_us"] is not None else
               f"({_ms(it['cycle_implied_us'])} implied) / {_ms(it['cycle_pred_us'])}")
        out.append(f"| {it['row']} | {it['source']} | {it['batch']} | {it['context']} | {v['tokens']} | "
                   f"{it['measured']:.2f} / {scored}{sign} | {_ms(it['step_meas_us'])} / {_ms(it['step_pred_us'])} | "
                   f"{cyc} | {_ms(it['draft_us'])} / {_ms(v['total_us'])} / {_ms(it['extend_us'])} / "
                   f"{_ms(it['overhead_us'])} | {_split(v['by_kind_us'], v['allreduce_us'])} | "
                   f"{_split(it['plain_by_kind_us'], it['plain_allreduce_us'])} |")
    return out


def slopes(items: list[dict]) -> list[dict]:
    """Consecutive batches of one source and context: µs per added verify token (cycle) and per added request
    (plain step), measured and predicted, with the predicted verify's weight / attention / all-reduce shares."""
    out = []
    groups: dict[tuple, list[dict]] = {}
    for it in items:
        groups.setdefault((it["source"], it["context"], it["algorithm"]), []).append(it)
    for (source, context, algo), group in groups.items():
        group = sorted(group, key=lambda x: x["batch"])
        for a, b in zip(group, group[1:]):
            dt = b["verify"]["tokens"] - a["verify"]["tokens"]
            db = b["batch"] - a["batch"]
            if dt <= 0 or db <= 0:
                continue
            va, vb = a["verify"], b["verify"]

            def d(key_a, key_b):
                return (key_b - key_a) / dt

            w = lambda v: v["by_kind_us"].get("gemm", 0.0) + v["by_kind_us"].get("grouped", 0.0)  # noqa: E731
            row = {"source": source, "context": context, "algorithm": algo, "batches": (a["batch"], b["batch"]),
                   "rows": (a["row"], b["row"]),
                   "cycle_per_token_pred_us": d(a["cycle_pred_us"], b["cycle_pred_us"]),
                   "verify_weights_per_token_us": d(w(va), w(vb)),
                   "verify_attention_per_token_us": d(va["by_kind_us"].get("attention", 0.0),
                                                      vb["by_kind_us"].get("attention", 0.0)),
                   "verify_allreduce_per_token_us": d(va["allreduce_us"], vb["allreduce_us"]),
                   "step_per_request_pred_us": (b["step_pred_us"] - a["step_pred_us"]) / db}
            if a["cycle_meas_us"] is not None and b["cycle_meas_us"] is not None:
                row["cycle_per_token_meas_us"] = d(a["cycle_meas_us"], b["cycle_meas_us"])
                row["step_per_request_meas_us"] = (b["step_meas_us"] - a["step_meas_us"]) / db
            out.append(row)
    return out


def slopes_table(rows: list[dict]) -> list[str]:
    out = ["| source | ctx | batches (rows) | cycle µs per verify token meas / pred | of pred: verify weights / "
           "attention / all-reduce | plain step µs per request meas / pred |",
           "|---|---:|---|---|---|---|"]
    for s in rows:
        meas = s.get("cycle_per_token_meas_us")
        step_meas = s.get("step_per_request_meas_us")
        out.append(f"| {s['source']} | {s['context']} | {s['batches'][0]}→{s['batches'][1]} "
                   f"({s['rows'][0]}→{s['rows'][1]}) | {'—' if meas is None else f'{meas:.0f}'} / "
                   f"{s['cycle_per_token_pred_us']:.0f} | {s['verify_weights_per_token_us']:.0f} / "
                   f"{s['verify_attention_per_token_us']:.0f} / {s['verify_allreduce_per_token_us']:.0f} | "
                   f"{'—' if step_meas is None else f'{step_meas:.0f}'} / {s['step_per_request_pred_us']:.0f} |")
    return out


def per_verify_token_bounds(numbers: list[int], rows: list[dict]) -> dict:
    """(needs > L, allows < U) in µs per verify token for an added cost c × running × draft tokens per cycle, over
    ``rows`` (``spec_margins``' rule: a row measured ≤ 1 and predicted > 1 needs c above its margin, a row right
    above 1 allows c below its margin), with the rows that set each bound."""
    import spec_margins as sm

    need, allow = [], []
    for n, row in zip(numbers, rows):
        m = sm.margins(row)
        per_token = m["per_shape"][0] / (m["running"] * row["num_draft_tokens"])
        if m["measured"] <= 1.0 < m["predicted"]:
            need.append((per_token, n))
        elif m["measured"] > 1.0 and m["predicted"] > 1.0:
            allow.append((per_token, n))
    lo = max(need, default=(0.0, None))
    hi = min(allow, default=(float("inf"), None))
    turns = sorted(n for x, n in allow if x < lo[0])
    return {"needs_gt_us": lo[0], "needs_row": lo[1], "allows_lt_us": hi[0], "allows_row": hi[1],
            "fits": lo[0] < hi[0], "right_rows_turned_at_needed": turns,
            "wrong_rows": sorted(n for _, n in need)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--all", action="store_true", help="also the per-verify-token bounds over every comparable row")
    ap.add_argument("--json", help="write every number to this file")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "bench"))
    data = _data()
    numbers = [i for i, r in enumerate(data["rows"], 1) if r["source"] in SOURCES and not r.get("not_comparable")]
    items = [itemise(n, data["rows"][n - 1]) for n in numbers]
    print("\n".join(rows_table(items)))
    sl = slopes(items)
    print()
    print("\n".join(slopes_table(sl)))
    result = {"rows": items, "slopes": sl, "bounds": {}}
    print()
    for source in SOURCES:
        sub = [n for n in numbers if data["rows"][n - 1]["source"] == source]
        b = per_verify_token_bounds(sub, [data["rows"][n - 1] for n in sub])
        result["bounds"][source] = b
        print(f"{source}: a cost per verify token needs > {b['needs_gt_us']:.1f} µs (row {b['needs_row']}), allows < "
              f"{b['allows_lt_us']:.1f} µs (row {b['allows_row']}): {'fits' if b['fits'] else 'no single term fits'}")
    if args.all:
        every = [i for i, r in enumerate(data["rows"], 1) if not r.get("not_comparable")]
        b = per_verify_token_bounds(every, [data["rows"][n - 1] for n in every])
        result["bounds"]["all"] = b
        print(f"every comparable row: needs > {b['needs_gt_us']:.1f} µs (row {b['needs_row']}), allows < "
              f"{b['allows_lt_us']:.1f} µs (row {b['allows_row']}); at the needed cost "
              f"{len(b['right_rows_turned_at_needed'])} right rows turn wrong")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
