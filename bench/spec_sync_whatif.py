"""Issue 13's wrong rows 388 / 389 (vLLM MTP, hybrid GDN MoE on 2× A100) and 181 (SGLang EAGLE-3 tree on 2× RTX 3090)
itemised, set against their source's sibling runs, and two what-ifs that were not kept (helper sp24; CPU only).

    python bench/spec_sync_whatif.py               # the tables and both what-ifs
    python bench/spec_sync_whatif.py --json F      # also write the numbers to F

1. ``itemised``: rows 388, 389 and 180–183 (the same sources' right-sign rows), each predicted exactly as
   ``bench/decode_published.py`` does: measured and predicted plain step and cycle, and the cycle's predicted draft /
   verify / overhead.
2. ``sibling_3090``: rows 388 / 389's source (thc1006/qwen3.6-vllm-2x3090) ran the same vLLM 0.19.1 image, the same
   checkpoint and serve flags on 2× RTX 3090 (PCIe, no NVLink) with prefix caching off (results/mtp_v3_summary.json:
   streaming decode TPOT, 25 requests per side; v4_2026_05_07/README.md Phase A for the k = 1 acceptance).  The
   measured plain step is the same on both boxes; tpkit's differs by its memory bandwidth.
3. ``blocks_before_drafter``: the vLLM builds whose hybrid-model speculative step copies the accepted-token counts to
   the host (a blocking ``.cpu()``) before the drafter is launched — read in the wheels (``v1/worker/
   gpu_model_runner.py`` ``_update_states_after_model_execute``): 0.16.0 for every hybrid model; 0.17.1, 0.19.1 and
   0.21.0 only in mamba cache mode "align" (prefix caching on; the non-blocking copy otherwise, vllm PR #35442); none
   in 0.22.0, 0.25.0 and 0.26.0 (``mamba_utils.postprocess_mamba_align_gpu``, vllm PR #40172).  Prefix caching is off
   by default for hybrid models in these releases (``config/model.py`` ``is_prefix_caching_supported``: "Hybrid models
   do not support prefix caching since the feature is still experimental"), so it is on only where the launch says so.
   ``sync_what_if``: every GDN row whose build blocks gets X ms of exposed host time per cycle.
4. ``tree_what_if``: every SGLang row with topk > 1 (tree verify, FlashInfer custom mask) gets c ns per context token
   and request per cycle (the shape of the context-dependent step rows 180 → 181 show).

Neither what-if is in ``tpkit.perf``: no source sizes X or c, and X cannot keep every row right (docs/accuracy.md §4.5,
helper sp24).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import decode_published as dp  # noqa: E402

ITEMISED = (388, 389, 180, 181, 182, 183)

SIBLING_3090 = {
    "plain_tpot_ms": 7.620, "mtp_tpot_ms": 5.976,
    "source": "thc1006/qwen3.6-vllm-2x3090 results/mtp_v3_summary.json exp1_dialog_summary: decode_tpot_ms_mean "
              "7.6197 (no MTP) / 5.9757 (MTP k = 1), vLLM 0.19.1, QuantTrio/Qwen3.6-35B-A3B-AWQ, TP 2 "
              "--enable-expert-parallel, 0.90 / 8, --no-enable-prefix-caching (scripts/serve_v3_no_mtp.sh), "
              "streaming, 5 prompts x 5 trials, max_tokens 200",
    "accept_length": 1.87,
    "accept_source": "v4_2026_05_07/README.md Phase A, p350_k1_t0.0: 0.87 accepted draft tokens per cycle (the same "
                     "box, image and checkpoint family, prefix caching off; temperature 0.0, v3 ran 0.5)",
}
"""The A100 rows' source on 2× RTX 3090, prefix caching off (decode TPOT per output token, ms)."""

PREFIX_CACHING_ON = {
    "p13_q35_rtx6k_matrix": "'prefix caching and chunked prefill on' (the source note)",
    "p22_a100_q36_35b_awq": "'--enable-prefix-caching' (results/modal_2x_a100_v2.json serve_flags)",
    "p22_l40s_q36_fp8": "'--enable-prefix-caching' (the source note)",
}
"""Sources of vLLM GDN rows whose launch turns prefix caching on (every other vLLM GDN source: the default, off)."""


def blocks_before_drafter(version: tuple[int, int, int], prefix_caching: bool) -> bool:
    """Whether a vLLM release's hybrid speculative step blocks on the accepted counts before the drafter (module
    docstring, item 3).  Releases before 0.17.1 are read as 0.16.0; 0.17.0 is not read (its only rows run with prefix
    caching on, which blocks either way)."""
    if version >= (0, 22, 0):
        return False
    return prefix_caching or version < (0, 17, 1)


def itemised(numbers=ITEMISED, data: dict | None = None) -> list[dict]:
    """Rows ``numbers``: measured / predicted plain step and cycle (ms), the cycle's predicted parts, speed-ups."""
    data = data or json.loads(dp.DATA.read_text())
    out = []
    for n in numbers:
        row = data["rows"][n - 1]
        r = dp.predict(row)
        tau = row["accept_length"] or r.speculative.accept_length
        parts = dict(r.speculative.parts_us)
        out.append({"row": n, "source": row["source"], "context": row["context"], "accept_length": tau,
                    "step_ms": {"measured": row["batch"] / row["base_tok_s"] * 1e3, "predicted": r.baseline.step_us / 1e3},
                    "cycle_ms": {"measured": row["batch"] * tau / row["spec_tok_s"] * 1e3,
                                 "predicted": r.speculative.cycle_us / 1e3},
                    "parts_ms": {k: parts[k] / 1e3 for k in ("draft steps", "verify", "draft extend", "overhead")},
                    "verify_attention_ms": parts["verify attention (in verify)"] / 1e3,
                    "speedup": {"measured": dp.measured_speedup(row), "predicted": r.speculative.speedup}})
    return out


def sibling_3090(data: dict | None = None) -> dict:
    """Row 388's request on 2× RTX 3090 (everything else the same; accept length of the 3090 k = 1 run) against the
    source's 3090 measurement, beside row 388 on the A100s."""
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.perf import plan_perf

    data = data or json.loads(dp.DATA.read_text())
    row = data["rows"][388 - 1]
    a100 = plan_perf(dp._request(row))
    req = dataclasses.replace(dp._request(row), gpu=lookup_gpu("RTX-3090"), accept_length=SIBLING_3090["accept_length"])
    r3090 = plan_perf(req)
    meas = SIBLING_3090
    return {"a100": {"step_ms_measured": row["batch"] / row["base_tok_s"] * 1e3, "step_ms_predicted": a100.baseline.step_us / 1e3},
            "rtx3090": {"step_ms_measured": meas["plain_tpot_ms"], "step_ms_predicted": r3090.baseline.step_us / 1e3,
                        "cycle_ms_measured": meas["mtp_tpot_ms"] * meas["accept_length"],
                        "cycle_ms_predicted": r3090.speculative.cycle_us / 1e3,
                        "speedup_measured": meas["plain_tpot_ms"] / meas["mtp_tpot_ms"],
                        "speedup_predicted": r3090.speculative.speedup}}


def _gdn_vllm_rows(data: dict) -> list[dict]:
    import gdn_spec_rows as g

    from tpkit.engines import release_tuple

    out = []
    for x in g.rows(data):
        if not x["engine"].startswith("vllm") or not x["comparable"]:
            continue
        version = release_tuple(x["engine"].split()[1])
        x["blocks"] = blocks_before_drafter(version, x["source"] in PREFIX_CACHING_ON)
        out.append(x)
    return out


def _score(xs: list[dict], speedups: list[float]) -> tuple[list[int], int]:
    wrong = [x["row"] for x, s in zip(xs, speedups) if (s > 1) != (x["speedup"]["measured"] > 1)]
    within = sum(abs(s / x["speedup"]["measured"] - 1) <= 0.25 for x, s in zip(xs, speedups))
    return wrong, within


def sync_what_if(xs: list[dict], extra_ms: float) -> dict:
    """Speed-up = accept length × step / (cycle + X) on the rows whose build blocks (``x['blocks']``), the others as
    predicted: wrong rows and rows within 25 %, over the blocking rows and over all ``xs``."""
    sp = [x["accept_length"] * x["step_ms"]["predicted"] / (x["cycle_ms"]["predicted"] + (extra_ms if x["blocks"] else 0.0))
          for x in xs]
    blocking = [(x, s) for x, s in zip(xs, sp) if x["blocks"]]
    wrong_b, within_b = _score([x for x, _ in blocking], [s for _, s in blocking])
    wrong, within = _score(xs, sp)
    return {"extra_ms": extra_ms, "blocking_rows": len(blocking), "blocking_wrong": wrong_b,
            "blocking_within_25": within_b, "rows": len(xs), "wrong": wrong, "within_25": within}


def _tree_rows(data: dict) -> list[dict]:
    out = []
    for n, row in enumerate(data["rows"], 1):
        if row["engine"] != "sglang" or row["topk"] <= 1 or not dp.comparable(row):
            continue
        r = dp.predict(row)
        out.append({"row": n, "source": row["source"], "context": row["context"], "batch": row["batch"],
                    "cycle_ms": r.speculative.cycle_us / 1e3, "measured": dp.measured_speedup(row),
                    "predicted": dp.scored_speedup(row, data, r),
                    "workload": row.get("measurement") == "workload"})
    return out


def tree_what_if(ts: list[dict], ns_per_token: float) -> dict:
    """Speed-up × cycle / (cycle + c · context · batch) on the SGLang tree rows (a workload-scored row keeps its
    prediction: its cycle is not a single decode step's)."""
    sp = [t["predicted"] if t["workload"] else
          t["predicted"] * t["cycle_ms"] / (t["cycle_ms"] + ns_per_token * 1e-6 * t["context"] * t["batch"]) for t in ts]
    wrong = [t["row"] for t, s in zip(ts, sp) if (s > 1) != (t["measured"] > 1)]
    within = sum(abs(s / t["measured"] - 1) <= 0.25 for t, s in zip(ts, sp))
    return {"ns_per_token": ns_per_token, "rows": len(ts), "wrong": wrong, "within_25": within}


SYNC_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 2.2, 2.5, 3.0, 4.0, 6.0)
TREE_GRID = (0, 10, 20, 30, 40, 50, 60)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=None, help="also write the numbers to this file")
    args = ap.parse_args()
    data = json.loads(dp.DATA.read_text())
    items = itemised(data=data)
    print("| row | source | ctx | accept | plain step ms meas / pred | cycle ms meas / pred | pred draft / verify (attention) "
          "/ extend / overhead ms | speed-up meas / pred |")
    print("|---:|---|---:|---:|---|---|---|---|")
    for x in items:
        p = x["parts_ms"]
        print(f"| {x['row']} | {x['source']} | {x['context']:,} | {x['accept_length']:.2f} | "
              f"{x['step_ms']['measured']:.2f} / {x['step_ms']['predicted']:.2f} | "
              f"{x['cycle_ms']['measured']:.2f} / {x['cycle_ms']['predicted']:.2f} | "
              f"{p['draft steps']:.2f} / {p['verify']:.2f} ({x['verify_attention_ms']:.2f}) / {p['draft extend']:.2f} / "
              f"{p['overhead']:.2f} | {x['speedup']['measured']:.2f} / {x['speedup']['predicted']:.2f} |")
    sib = sibling_3090(data)
    a, b = sib["a100"], sib["rtx3090"]
    print(f"\nsibling (prefix caching off, 2x RTX 3090): plain step measured {b['step_ms_measured']:.2f} ms, predicted "
          f"{b['step_ms_predicted']:.2f}; row 388 (2x A100): measured {a['step_ms_measured']:.2f}, predicted "
          f"{a['step_ms_predicted']:.2f}; A100 / 3090 measured {a['step_ms_measured'] / b['step_ms_measured']:.2f}, "
          f"predicted {a['step_ms_predicted'] / b['step_ms_predicted']:.2f}")
    print(f"  3090 MTP k=1 at accept length {SIBLING_3090['accept_length']}: cycle measured {b['cycle_ms_measured']:.2f} "
          f"ms, predicted {b['cycle_ms_predicted']:.2f}; speed-up measured {b['speedup_measured']:.3f}x, predicted "
          f"{b['speedup_predicted']:.3f}x")
    xs = _gdn_vllm_rows(data)
    print(f"\nsync what-if: {sum(x['blocks'] for x in xs)} of {len(xs)} comparable vLLM GDN rows block before the drafter "
          f"({sorted({x['source'] for x in xs if x['blocks']})})")
    sync = [sync_what_if(xs, e) for e in SYNC_GRID]
    for s in sync:
        print(f"  X = {s['extra_ms']:.1f} ms: blocking rows wrong {s['blocking_wrong']}, within 25 % "
              f"{s['blocking_within_25']}/{s['blocking_rows']}; all vLLM GDN rows wrong {len(s['wrong'])}, within 25 % "
              f"{s['within_25']}/{s['rows']}")
    ts = _tree_rows(data)
    print(f"\ntree what-if: {len(ts)} comparable SGLang rows with topk > 1, contexts {sorted({t['context'] for t in ts})}")
    tree = [tree_what_if(ts, c) for c in TREE_GRID]
    for t in tree:
        print(f"  c = {t['ns_per_token']} ns/token: wrong {t['wrong']}, within 25 % {t['within_25']}/{t['rows']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"itemised": items, "sibling_3090": sib, "sync_what_if": sync,
                                               "tree_what_if": tree}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
