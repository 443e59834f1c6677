"""Issue 13's small-batch wrong signs, itemised, and the three verify-only terms measured on an H100 tried on them.

Why (docs/accuracy.md §4.5, helper sp26, 2026-12-06): the held-out rows measured below 1.0 and predicted above at
batch 1–8 on consumer / quantised / MTP deployments — p18_q38_4x3090 297, 303, 305, 332 (Qwen3.8-27B INT4 / FP8,
4× RTX 3090, vLLM 0.26.0), p22_a100_q36_35b_awq 388 / 389 (Qwen3.6-35B-A3B AWQ, 2× A100, vLLM 0.19.1),
glm51v2_rtx6k 186 (GLM-5.1 NVFP4, 8× RTX PRO 6000) and mb3090_coder 181 (Qwen3-Coder-30B-A3B AWQ, 2× RTX 3090,
SGLang 0.5.15) — and every right row of the same sources.  Per row (``spec_large_batch.itemise``: the scorer's own
prediction): measured and predicted plain step and cycle, the predicted cycle's draft / verify / extend / overhead,
the verify and plain forwards split into weights / attention / small kernels / all-reduce, and three derived figures:

* ``gap`` = measured − predicted cycle (ms);
* ``gap at step scale`` = measured cycle − predicted cycle × (measured / predicted plain step): what is still
  missing if every predicted term were as far off as the plain step is;
* ``margin`` = accept length × predicted step − predicted cycle: the cycle time a row can take before its predicted
  speed-up falls to 1 (a wrong row measured < 1 *needs* more than this; a right row measured > 1 *allows* less).

Then ``what_ifs``: each term measured on one H100 by ``bench/gdn_verify_gpu.py`` (docs/benchmarks.md, sp26; raw
docs/runs/gdn_verify_h100_2026-12-06.json) added to the rows it would apply to, and the sign count of these sources:

1. ``gdn_serial``: the recurrent delta-rule update of a T-token verify costs ~2.1 µs per extra token per GDN layer
   (a serial, latency-bound loop; tpkit charges the state bytes only, ~0.26 µs per token on an H100) — added as
   (T − 1) × GDN layers × the measured increment to every GDN row's cycle;
2. ``sampler``: top-k 20 / top-p 0.95 / temperature 0.7 over 248,320 entries by vLLM's PyTorch sort path (the
   p18 server logs: the generation config's sampling, "FlashInfer top-p/top-k sampling disabled") costs 0.37 ms for
   one row and 0.73–0.78 ms for 2–4 rows where greedy argmax costs 0.02 ms — added to the p18 vLLM rows only (the
   only source whose logs print the sampling), plain step + S(1), cycle + S(k) + S(1) (the rejection sampler's k
   target rows and the bonus token's plain sample);
3. both together (``gdn_serial_every_row``: the first on every hybrid-GDN row of the data);
4. ``w4a16_m``: torch's tinygemm W4A16 GEMMs of the 27B's four per-rank shapes cost 1.03 / 1.12 / 1.20 / 1.77× their
   M = 1 time at M = 2 / 3 / 4 / 8 where bf16 cuBLAS is flat (tpkit prices both as weight bytes) — the verify's dense
   GEMMs but the bf16 lm_head scaled by that ratio at M = verify tokens (capped at the M = 8 ratio), on the
   rows whose checkpoint is int4 / AWQ (Marlin in the engines, not tinygemm: a bound, not a figure); ``all`` = every term.
None is a model change (``src/`` is untouched by this script).

Usage::

    python bench/spec_small_batch.py            # the rows table, the what-ifs
    python bench/spec_small_batch.py --json F   # every number
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

SOURCES = ("p18_q38_4x3090", "p22_a100_q36_35b_awq", "glm51v2_rtx6k", "mb3090_coder")
GPU_RUN = ROOT / "docs" / "runs" / "gdn_verify_h100_2026-12-06.json"
SAMPLED_SOURCES = ("p18_q38_4x3090",)  # the server logs print top_k 20 / top_p 0.95 / temperature 0.7 (sp20b)


def gpu_terms(path: Path = GPU_RUN) -> dict:
    """The H100 figures the what-ifs use: µs per extra verify token per GDN layer (TP 4 and TP 2 shapes, mean of
    T = 2..4 over T = 1), and the sort-path sampler's µs by row count."""
    run = json.loads(path.read_text())
    per_token = {}
    for tp in sorted({r["tp"] for r in run["gdn"]}):
        base = next(r for r in run["gdn"] if r["tp"] == tp and r["tokens"] == 1 and r["per_token_state"])
        incs = [(r["graph_us_per_layer"] - base["graph_us_per_layer"]) / (r["tokens"] - 1)
                for r in run["gdn"] if r["tp"] == tp and r["tokens"] > 1]
        per_token[tp] = sum(incs) / len(incs)
    w4 = {}
    for r in run["w4a16"]:
        w4.setdefault(r["m"], 0.0)
        w4[r["m"]] += r["w4a16_us"]
    w4_ratio = {m: v / w4[1] for m, v in w4.items()}
    sampler = {r["rows"]: r["gpu_us"] for r in run["sampler"] if r["sampler"] == "topk20_topp095_t07"}
    greedy = {r["rows"]: r["gpu_us"] for r in run["sampler"] if r["sampler"] == "greedy_argmax"}
    return {"gdn_us_per_extra_token_layer": per_token, "sampler_us": sampler, "greedy_us": greedy,
            "w4a16_ratio": w4_ratio, "device": run["device"]}


def verify_quantised_gemm_us(row: dict) -> float:
    """µs of the predicted verify's GEMMs other than the lm_head (kept bf16 by these checkpoints) on one rank:
    the GEMMs a W4A16 checkpoint runs through its int4 kernel (``plan._spec_point``'s verify batch, as
    ``spec_large_batch._verify_forward`` builds it)."""
    import decode_published as dp
    from tpkit.perf import plan
    from tpkit.perf.forward import kernel_us
    from tpkit.perf.graphs import graph_padding
    from tpkit.perf.mla_splits import verify_attention_mode
    from tpkit.perf.spec import running_requests
    from tpkit.perf.work import forward_kernels

    req = dp._request(row)
    ctx = plan._context(req)
    s, rt = req.spec, ctx.runtime(req.spec)
    running, _ = running_requests(req, req.batch, True)
    pad, _graph = graph_padding(req, rt, running, True, rt.verify_graph)
    batch = plan._batch(ctx, running, s.num_draft_tokens, pad, verify=True)
    kernels = forward_kernels(req.model, ctx.shard, batch, ctx.impl, quant=req.model.quant, kv_bytes=ctx.kv_bytes,
                              attention=verify_attention_mode(rt))
    return sum(kernel_us(k, ctx.dev, ctx.impl) * k.count for k in kernels
               if k.kind == "gemm" and k.name != "lm_head")


def _gdn_layers(row: dict) -> int:
    from tpkit.models import load_model

    spec = load_model(row["model"])
    return sum(1 for k in spec.kinds if k == "linear")


def itemise_all(data: dict) -> list[dict]:
    import spec_large_batch as slb

    numbers = [i for i, r in enumerate(data["rows"], 1) if r["source"] in SOURCES]
    out = []
    for n in numbers:
        row = data["rows"][n - 1]
        it = slb.itemise(n, row)
        it["not_comparable"] = bool(row.get("not_comparable"))
        it["gdn_layers"] = _gdn_layers(row)
        it["tp"] = row["tp"]
        it["engine"] = f"{row['engine']} {row.get('engine_version') or ''}".strip()
        it["num_steps"] = row["num_steps"]
        it["num_draft_tokens"] = row["num_draft_tokens"]
        it["attention_backend"] = row.get("attention_backend")
        it["verify_quantised_gemm_us"] = verify_quantised_gemm_us(row)
        it["w4a16"] = any(w in (row["model"] + " " + (row.get("note") or "")).lower() for w in ("int4", "awq", "w4a16"))
        tau = it["accept_length"]
        it["margin_us"] = tau * it["step_pred_us"] - it["cycle_pred_us"]
        if it["cycle_meas_us"] is not None:
            it["gap_us"] = it["cycle_meas_us"] - it["cycle_pred_us"]
            it["gap_at_step_scale_us"] = it["cycle_meas_us"] - it["cycle_pred_us"] * it["step_meas_us"] / it["step_pred_us"]
        out.append(it)
    return out


def _ms(x) -> str:
    return "—" if x is None else f"{x / 1e3:.2f}"


def _split(by_kind: dict, allreduce: float) -> str:
    w = by_kind.get("gemm", 0.0) + by_kind.get("grouped", 0.0)
    return f"{w / 1e3:.2f} / {by_kind.get('attention', 0.0) / 1e3:.2f} / {by_kind.get('small', 0.0) / 1e3:.2f} / " \
           f"{allreduce / 1e3:.2f}"


def _sign(meas: float, pred: float, nc: bool) -> str:
    s = "ok" if (meas > 1) == (pred > 1) else "**WRONG**"
    return f"n/c ({s})" if nc else s


def rows_table(items: list[dict]) -> list[str]:
    out = ["| row | source | TP | B | ctx | attn | τ | speed-up meas / pred | plain step ms meas / pred | cycle ms meas / "
           "pred | draft / verify / extend / overhead ms | verify: weights / attn / small / AR ms | plain: weights / "
           "attn / small / AR ms | gap / at step scale / margin ms |",
           "|---:|---|---:|---:|---:|---|---:|---|---|---|---|---|---|---|"]
    for it in items:
        v = it["verify"]
        gap = (f"{_ms(it.get('gap_us'))} / {_ms(it.get('gap_at_step_scale_us'))} / {_ms(it['margin_us'])}")
        out.append(f"| {it['row']} | {it['source']} | {it['tp']} | {it['batch']} | {it['context']} | "
                   f"{it['attention_backend'] or '—'} | {it['accept_length']:.2f} | {it['measured']:.2f} / "
                   f"{it['predicted']:.2f} {_sign(it['measured'], it['predicted'], it['not_comparable'])} | "
                   f"{_ms(it['step_meas_us'])} / {_ms(it['step_pred_us'])} | {_ms(it['cycle_meas_us'])} / "
                   f"{_ms(it['cycle_pred_us'])} | {_ms(it['draft_us'])} / {_ms(v['total_us'])} / "
                   f"{_ms(it['extend_us'])} / {_ms(it['overhead_us'])} | {_split(v['by_kind_us'], v['allreduce_us'])} | "
                   f"{_split(it['plain_by_kind_us'], it['plain_allreduce_us'])} | {gap} |")
    return out


def _added(it: dict, terms: dict, which: str) -> tuple[float, float]:
    """(µs added to the plain step, µs added to the cycle) for one row under what-if ``which``."""
    d_step = d_cycle = 0.0
    if which in ("gdn_serial", "both", "all") and it["gdn_layers"]:
        per = terms["gdn_us_per_extra_token_layer"]
        inc = per.get(it["tp"], per[max(per)])  # TP 1 / 8 rows take the TP 4 figure (the smallest head count here)
        d_cycle += (it["num_draft_tokens"] - 1) * it["gdn_layers"] * inc
    if which in ("w4a16_m", "all") and it["w4a16"]:
        r = terms["w4a16_ratio"]
        m = it["verify"]["tokens"]
        ratio = r[m] if m in r else r[max(k for k in r if k <= m)]
        d_cycle += it["verify_quantised_gemm_us"] * (ratio - 1.0)
    if which in ("sampler", "both", "all") and it["source"] in SAMPLED_SOURCES and it["engine"].startswith("vllm"):
        s = terms["sampler_us"]
        k = it["num_steps"]
        d_step += s[1] - terms["greedy_us"][1]
        d_cycle += s[min(k, max(s))] + s[1] - 2 * terms["greedy_us"][1]
    return d_step, d_cycle


def flat_term(rows: list[dict]) -> dict:
    """Per source and engine: the interval a flat cost per cycle must fall in to turn every wrong row (measured
    < 1, predicted > 1: needs more than its margin) and no right one (measured > 1: allows less than its margin), µs."""
    out = {}
    for key in sorted({(r["source"], r["engine"]) for r in rows}):
        sub = [r for r in rows if (r["source"], r["engine"]) == key]
        need = [(r["margin_us"], r["row"]) for r in sub if r["measured"] <= 1.0 < r["predicted"]]
        allow = [(r["margin_us"], r["row"]) for r in sub if r["measured"] > 1.0 and r["predicted"] > 1.0]
        if not need:
            continue
        lo, hi = max(need), min(allow, default=(float("inf"), None))
        out[f"{key[0]} ({key[1]})"] = {"needs_gt_us": lo[0], "needs_row": lo[1], "allows_lt_us": hi[0],
                                        "allows_row": hi[1], "fits": lo[0] < hi[0]}
    return out


def what_ifs(items: list[dict], terms: dict) -> dict:
    out = {}
    for which in ("none", "gdn_serial", "sampler", "both", "w4a16_m", "all"):
        rows = []
        for it in items:
            d_step, d_cycle = _added(it, terms, which)
            tau = it["accept_length"]
            step, cycle = it["step_pred_us"] + d_step, it["cycle_pred_us"] + d_cycle
            pred = tau * step / cycle
            rows.append({"row": it["row"], "source": it["source"], "engine": it["engine"].split()[0],
                         "margin_us": tau * step - cycle, "d_step_us": d_step, "d_cycle_us": d_cycle, "predicted": pred,
                         "measured": it["measured"], "not_comparable": it["not_comparable"],
                         "step_err": None if it["step_meas_us"] is None else step / it["step_meas_us"] - 1})
        comp = [r for r in rows if not r["not_comparable"]]
        wrong = [r["row"] for r in comp if (r["measured"] > 1) != (r["predicted"] > 1)]
        within = sum(1 for r in comp if abs(r["predicted"] / r["measured"] - 1) <= 0.25)
        out[which] = {"rows": rows, "wrong": wrong, "within_25": within, "comparable": len(comp),
                      "flat_term": flat_term(comp)}
    return out


def gdn_serial_every_row(terms: dict) -> dict:
    """The ``gdn_serial`` what-if on every comparable hybrid-GDN row of the data (not only these sources): sign and
    within-25 % counts with and without (T − 1) × GDN layers × the measured per-token increment on the cycle, and the
    rows that change sign or band."""
    import decode_published as dp
    import spec_large_batch as slb
    from tpkit.models import load_model

    data = slb._data()
    per = terms["gdn_us_per_extra_token_layer"]
    inc = max(per.values())
    layers: dict[str, int] = {}
    rows = []
    for n, row in enumerate(data["rows"], 1):
        if row["model"] not in layers:
            layers[row["model"]] = sum(1 for k in load_model(row["model"]).kinds if k == "linear")
        if not layers[row["model"]] or row.get("not_comparable"):
            continue
        r = dp.predict(row)
        scored = dp.scored_speedup(row, data, r)
        cycle = r.speculative.cycle_us
        added = (row["num_draft_tokens"] - 1) * layers[row["model"]] * inc
        rows.append({"row": n, "measured": dp.measured_speedup(row), "main": scored,
                     "with": scored * cycle / (cycle + added)})

    def counts(key):
        return {"sign": sum((x["measured"] > 1) == (x[key] > 1) for x in rows),
                "within_25": sum(abs(x[key] / x["measured"] - 1) <= 0.25 for x in rows)}

    band = lambda x, k: abs(x[k] / x["measured"] - 1) <= 0.25  # noqa: E731
    return {"rows": len(rows), "main": counts("main"), "with": counts("with"), "increment_us": inc,
            "sign_changed": [x["row"] for x in rows if (x["main"] > 1) != (x["with"] > 1)],
            "band_changed": [x["row"] for x in rows if band(x, "main") != band(x, "with")]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write every number to this file")
    args = ap.parse_args(argv)
    import spec_large_batch as slb

    data = slb._data()
    items = itemise_all(data)
    print("\n".join(rows_table(items)))
    terms = gpu_terms()
    wi = what_ifs(items, terms)
    print()
    print(f"H100 terms ({terms['device']}): GDN µs per extra verify token per layer "
          + ", ".join(f"TP {tp}: {v:.2f}" for tp, v in terms["gdn_us_per_extra_token_layer"].items())
          + "; sort-path sampler µs by rows " + ", ".join(f"{r}: {v:.0f}" for r, v in terms["sampler_us"].items()))
    for which, w in wi.items():
        print(f"what-if {which}: wrong {len(w['wrong'])} of {w['comparable']} ({', '.join(map(str, w['wrong']))}); "
              f"within 25 % {w['within_25']}")
        for key, f in w["flat_term"].items():
            print(f"    flat term per cycle, {key}: needs > {f['needs_gt_us'] / 1e3:.2f} ms (row {f['needs_row']}), "
                  f"allows < {f['allows_lt_us'] / 1e3:.2f} ms (row {f['allows_row']}): "
                  f"{'fits' if f['fits'] else 'does not fit'}")
    every = gdn_serial_every_row(terms)
    print(f"gdn_serial on every comparable GDN row ({every['rows']}): sign {every['main']['sign']} → "
          f"{every['with']['sign']}, within 25 % {every['main']['within_25']} → {every['with']['within_25']}; "
          f"sign changed {every['sign_changed']}, band changed {every['band_changed']}")
    base = {r["row"]: r for r in wi["none"]["rows"]}
    print("\n| row | speed-up meas | pred: main / +GDN serial / +sampler / +W4A16 M / all | Δ cycle ms (all) | "
          "Δ step ms | plain step error main / with sampler |")
    print("|---:|---:|---|---:|---:|---|")
    for r_all, r_g, r_s, r_w in zip(wi["all"]["rows"], wi["gdn_serial"]["rows"], wi["sampler"]["rows"],
                                    wi["w4a16_m"]["rows"]):
        b = base[r_all["row"]]
        err = "—" if b["step_err"] is None else f"{b['step_err'] * 100:+.0f} % / {r_s['step_err'] * 100:+.0f} %"
        print(f"| {r_all['row']} | {b['measured']:.2f} | {b['predicted']:.2f} / {r_g['predicted']:.2f} / "
              f"{r_s['predicted']:.2f} / {r_w['predicted']:.2f} / {r_all['predicted']:.2f} | "
              f"{r_all['d_cycle_us'] / 1e3:.2f} | {r_all['d_step_us'] / 1e3:.2f} | {err} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": items, "terms": terms, "what_ifs": wi,
                                               "gdn_serial_every_row": every}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
