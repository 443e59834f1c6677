"""tpkit perf against published speculative-decoding measurements (CPU only, no network).

    python bench/decode_published.py [--markdown docs_table.md]
    python bench/decode_published.py --rows 25,166      # itemise rows 25 and 166 (1-based, as in the table)

``--rows`` prints, for each named row, the ``tpkit perf`` command line that reproduces its prediction
(``perf_argv``; add ``--json`` for the whole result), the measured plain step and cycle where the source gives
tok/s (step = batch / plain tok/s; cycle = batch × accept length / speculative tok/s), the predicted ones, and the
cycle's parts, so which side of a wrong row is off can be read directly.

Reads ``bench/data/published_spec.json`` (every row with its source), predicts each with
``tpkit.perf.plan_perf`` exactly as ``tpkit perf`` would (the row's GPU, TP, engine and engine version,
batch, context, algorithm and settings; the measured accept length where the source gives one, else the
per-family default; the attention backend where the source forced one with ``--attention-backend``; SGLang's
spec v1/v2 (``sglang_spec_v2``) where the source set SGLANG_ENABLE_SPEC_V2; ``max_running_requests`` where the
source set SGLang's --max-running-requests, else the release's speculative running-request cap applies; the
all-reduce backend, ``allreduce_backend``, where the source's launch fixed it, e.g. --disable-custom-all-reduce →
nccl; the draft head's config, ``draft_model``, where the source's own logs give its shape, e.g. a head trained
with the full vocabulary, passed as ``--speculative-draft-model-path``; helper s13; vLLM's NVFP4 GEMM backend,
``nvfp4_gemm_backend``, where the source set VLLM_NVFP4_GEMM_BACKEND, e.g. marlin: W4A16 at the 16-bit rate;
helper pf38) and
prints a markdown table with the measured and predicted speed-up and the error, then the scores for all
rows, for the training sources (``split.train``: the only rows the constants marked ``fitted`` were set on,
by ``bench/decode_fit.py``) and for the held-out rest:

    sign right       predicted speed-up > 1 exactly when the measured one is
    within 25 %      |predicted / measured − 1| ≤ 0.25 (speed-up)

A row with ``"measurement": "workload"`` measured a closed-loop benchmark's output tokens / wall time, not a decode
step at ``batch`` (SpecForge's ``Benchmarker.run``: client threads = batch over a benchmark's multi-turn questions,
prefills and the tail at falling concurrency inside the wall time).  It is scored with ``tpkit.perf.workload``: the
source's workload (``workloads[source]`` in the data: prompt tokens per turn, the output tokens per turn derived
from the source's totals, their distribution, the threads) run on both sides at the row's per-concurrency step and
cycle; the table marks it "(workload)".  ``predict`` and ``--rows`` stay the decode step at ``batch``.

A row with ``"not_comparable"`` (the source's own words on why the point is not a steady decode, e.g. a server's
first request that compiles the decode path's kernels inside the timed decode; helper sp20b) stays in the table with
its prediction and error, its sign column reads "n/c", and it is left out of the three score lines; a fourth line
names those rows and gives the scores with them counted, so every row is still reported.

The held-out line is also split in two (helper pf38): the rows whose accept length the source printed, and the rows
where it printed none and tpkit's family default is assumed (``*`` in the table) — a sign or an error on an assumed
accept length tests the default as much as the cycle.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data" / "published_spec.json"


def predict(row: dict):
    """``plan_perf`` of the row: the decode step at ``batch`` (what ``tpkit perf`` prints for ``perf_argv(row)``)."""
    from tpkit.perf import plan_perf

    return plan_perf(_request(row))


def _request(row: dict):
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.perf import PerfRequest, SpecSettings

    model = row["model"]
    spec = load_model(str(ROOT / model) if model.startswith("bench/") else model)
    draft_path = row.get("draft_model")
    draft = load_model(str(ROOT / draft_path)) if draft_path else None
    settings = SpecSettings(algorithm=row["algorithm"], num_steps=row["num_steps"], topk=row["topk"],
                            num_draft_tokens=row["num_draft_tokens"])
    return PerfRequest(model=spec, gpu=lookup_gpu(row["gpu"]), tp=row["tp"], batch=row["batch"],
                       context=row["context"], engine=row["engine"], spec=settings,
                       accept_length=row["accept_length"], kv_cache_dtype=row["kv_cache_dtype"],
                       engine_version=row.get("engine_version"), attention_backend=row.get("attention_backend"),
                       sglang_spec_v2=row.get("sglang_spec_v2"),
                       max_running_requests=row.get("max_running_requests"), backend=row.get("allreduce_backend"),
                       draft=draft, draft_path=draft_path, nvfp4_gemm_backend=row.get("nvfp4_gemm_backend"))


def workload_orders(row: dict, workload: dict) -> list:
    """The ``tpkit.perf.workload.Workload`` of each order of ``workload`` (the data's ``workloads[source]``) at the
    row's thread count: the per-turn prompt tokens as given, the output lengths by the entry's distribution."""
    import random

    from tpkit.perf.workload import Turn, Workload, spread_lengths

    turns = sum(len(p) for p in workload["prompt_tokens"])
    mean, cap = workload["output_tokens_per_turn"], workload["max_new_tokens"]
    if workload["distribution"] == "equal":
        orders = [[mean] * turns]
    elif workload["distribution"] == "maxent":
        base = list(spread_lengths(mean, cap, turns))
        orders = []
        for seed in range(workload["orders"]):
            lengths = list(base)
            random.Random(seed).shuffle(lengths)
            orders.append(lengths)
    else:
        raise ValueError(f"workload distribution must be 'equal' or 'maxent'; got {workload['distribution']!r}")
    threads = row["batch"] if workload["threads"] == "batch" else int(workload["threads"])
    out = []
    for lengths in orders:
        it = iter(lengths)
        requests = tuple(tuple(Turn(prompt_tokens=p, output_tokens=next(it)) for p in prompts)
                         for prompts in workload["prompt_tokens"])
        out.append(Workload(requests=requests, threads=threads))
    return out


def workload_prediction(row: dict, workload: dict) -> float:
    """The row's speed-up as the workload it measured: the mean over the workload's orders of speculative ÷ plain
    tok/s (``tpkit.perf.workload.workload_speedup``), the costs priced once at the workload's mean context (every
    turn at the mean output length)."""
    from tpkit.perf.workload import workload_costs
    from tpkit.perf.workload import Turn, Workload, workload_speedup

    req = _request(row)
    orders = workload_orders(row, workload)
    prefix = workload.get("cached_prefix_tokens", 0)
    equal = Workload(requests=tuple(tuple(Turn(prompt_tokens=t.prompt_tokens,
                                               output_tokens=workload["output_tokens_per_turn"]) for t in r)
                                    for r in orders[0].requests), threads=orders[0].threads)
    costs = workload_costs(req, threads=equal.threads, context=equal.mean_context(prefix))
    speedups = [workload_speedup(req, w, cached_prefix=prefix, costs=costs)[0] for w in orders]
    return sum(speedups) / len(speedups)


def scored_speedup(row: dict, data: dict, result=None) -> float:
    """The predicted speed-up the row is scored on: the workload's where the row measured one, else the decode
    step's at ``batch`` (``result``: ``predict(row)`` when already computed)."""
    if row.get("measurement") == "workload":
        return workload_prediction(row, data["workloads"][row["source"]])
    return (result or predict(row)).speculative.speedup


def perf_argv(row: dict) -> list[str]:
    """The ``tpkit perf`` arguments that make the prediction ``predict(row)`` makes (model, GPU, TP, engine and
    release, batch, context, speculative settings, accept length, KV dtype, backend, spec v1/v2, running cap,
    all-reduce backend, draft head config, NVFP4 GEMM backend)."""
    argv = ["perf", row["model"], "--gpu", row["gpu"], "--tp", str(row["tp"]), "--engine", row["engine"],
            "--batch", str(row["batch"]), "--context", str(row["context"]),
            "--kv-cache-dtype", row["kv_cache_dtype"],
            "--speculative-algorithm", row["algorithm"], "--speculative-num-steps", str(row["num_steps"]),
            "--speculative-eagle-topk", str(row["topk"]),
            "--speculative-num-draft-tokens", str(row["num_draft_tokens"])]
    if row.get("engine_version"):
        argv += ["--engine-version", row["engine_version"]]
    if row["accept_length"]:
        argv += ["--accept-length", str(row["accept_length"])]
    if row.get("attention_backend"):
        argv += ["--attention-backend", row["attention_backend"]]
    if row.get("sglang_spec_v2") is not None:
        argv += ["--sglang-spec-v2", "on" if row["sglang_spec_v2"] else "off"]
    if row.get("max_running_requests") is not None:
        argv += ["--max-running-requests", str(row["max_running_requests"])]
    if row.get("allreduce_backend"):
        argv += ["--allreduce-backend", row["allreduce_backend"]]
    if row.get("draft_model"):
        argv += ["--speculative-draft-model-path", row["draft_model"]]
    if row.get("nvfp4_gemm_backend"):
        argv += ["--nvfp4-gemm-backend", row["nvfp4_gemm_backend"]]
    return argv


def itemise(number: int, row: dict) -> list[str]:
    """Row ``number`` (1-based): its command, measured vs predicted plain step and cycle, and the cycle's parts."""
    r = predict(row)
    base, spec = r.baseline, r.speculative
    tau = row["accept_length"] or spec.accept_length
    meas = measured_speedup(row)
    out = [f"row {number} ({row['source']}): measured speed-up {meas:.3f}x, predicted {spec.speedup:.3f}x",
           "  tpkit " + " ".join(perf_argv(row)) + "   (from the repository root; add --json)"]
    if row["base_tok_s"] and row["spec_tok_s"]:
        step_ms, cycle_ms = row["batch"] / row["base_tok_s"] * 1e3, row["batch"] * tau / row["spec_tok_s"] * 1e3
        out.append(f"  measured   plain step {step_ms:8.2f} ms   cycle {cycle_ms:8.2f} ms   cycle/step {cycle_ms / step_ms:.2f}"
                   f"   (batch {row['batch']}, accept length {tau:.2f})")
    else:
        out.append(f"  measured   speed-up only (no tok/s): implied cycle/step {tau / meas:.2f} at accept length {tau:.2f}")
    step_ms, cycle_ms = base.step_us / 1e3, spec.cycle_us / 1e3
    out.append(f"  predicted  plain step {step_ms:8.2f} ms   cycle {cycle_ms:8.2f} ms   cycle/step {cycle_ms / step_ms:.2f}"
               f"   (running plain {base.running or row['batch']}, speculative {spec.running or row['batch']})")
    out.append("  cycle parts (ms): " + ", ".join(f"{k} {v / 1e3:.2f}" for k, v in spec.parts_us))
    b = r.breakdown.get("baseline", {})
    if b:
        kinds = ", ".join(f"{k} {v / 1e3:.2f}" for k, v in b.get("by_kind_us", {}).items())
        out.append(f"  plain step (ms): compute {b['compute_us'] / 1e3:.2f} [{kinds}], all-reduce "
                   f"{b['allreduce_us'] / 1e3:.2f}, exposed host {b['exposed_host_us'] / 1e3:.2f}")
    return out


def measured_speedup(row: dict) -> float:
    return row["measured_speedup"] or row["spec_tok_s"] / row["base_tok_s"]


def comparable(row: dict) -> bool:
    """Whether the row is scored: False where the data mark it ``not_comparable`` (with the source's reason)."""
    return not row.get("not_comparable")


def score(rows: list[dict], speedups: list[float]) -> dict:
    """sign right / within 25 % / median |error| of predicted ``speedups`` against ``rows``."""
    errs = [p / measured_speedup(r) - 1 for r, p in zip(rows, speedups)]
    n = len(errs)
    sign = sum((p > 1) == (measured_speedup(r) > 1) for r, p in zip(rows, speedups))
    within = sum(abs(e) <= 0.25 for e in errs)
    med = sorted(abs(e) for e in errs)[n // 2] if n else 0.0
    return {"rows": n, "sign_ok": sign, "within_25": within, "median_abs_error": med}


def summary_line(name: str, s: dict) -> str:
    n = s["rows"]
    return (f"{name}: {n} rows: sign right in {s['sign_ok']} ({s['sign_ok'] / n:.0%}), speed-up within 25 % in "
            f"{s['within_25']} ({s['within_25'] / n:.0%}); median |error| {s['median_abs_error'] * 100:.0f} %")


def table(data: dict) -> tuple[list[str], dict]:
    lines = ["| # | source | split | model | GPU × TP | engine | batch | ctx | settings (steps/topk/draft) | accept len | "
             "plain tok/s meas / pred | spec tok/s meas / pred | speed-up meas | speed-up pred | error | sign |",
             "|---|---|---|---|---|---|---:|---:|---|---:|---|---|---:|---:|---:|---|"]
    train = set(data.get("split", {}).get("train", ()))
    preds = []
    for i, row in enumerate(data["rows"], 1):
        r = predict(row)
        meas, pred = measured_speedup(row), scored_speedup(row, data, r)
        preds.append(pred)
        err = pred / meas - 1
        sign = (pred > 1) == (meas > 1)
        base_pred = r.baseline.tok_s
        tau = (f"{row['accept_length']:.2f}" if row["accept_length"] else f"{r.speculative.accept_length:.2f}*")
        base = f"{row['base_tok_s']:.1f} / {base_pred:.1f}" if row["base_tok_s"] else f"— / {base_pred:.1f}"
        spec = f"{row['spec_tok_s']:.1f} / {r.speculative.tok_s:.1f}" if row["spec_tok_s"] else \
            f"— / {r.speculative.tok_s:.1f}"
        name = row["model"].split("/")[-1].replace(".config.json", "")
        workload = " (workload)" if row.get("measurement") == "workload" else ""
        engine = row["engine"] + (f" {row['engine_version']}" if row.get("engine_version") else "") + (
            {True: " (spec v2)", False: " (spec v1)"}.get(row.get("sglang_spec_v2"), ""))
        lines.append(f"| {i} | {row['source']} | {'train' if row['source'] in train else 'held out'} | {name} | "
                     f"{row['gpu']} × {row['tp']} | {engine} | {row['batch']} | "
                     f"{row['context']} | {row['algorithm']} {row['num_steps']}/{row['topk']}/{row['num_draft_tokens']} | "
                     f"{tau} | {base} | {spec} | {meas:.2f}× | {pred:.2f}×{workload} | {err * 100:+.0f} % | "
                     f"{('ok' if sign else 'WRONG') if comparable(row) else 'n/c (' + ('ok' if sign else 'WRONG') + ')'} |")
    return lines, scores(data, preds)


def scores(data: dict, preds: list[float]) -> dict:
    """all / train / held_out scores over the comparable rows, and the same with every row counted
    (``all_rows``, ``held_out_all_rows``)."""
    train = set(data.get("split", {}).get("train", ()))
    rows = data["rows"]
    ok = [i for i, r in enumerate(rows) if comparable(r)]
    held = [i for i in ok if rows[i]["source"] not in train]
    fit = [i for i in ok if rows[i]["source"] in train]
    every_held = [i for i, r in enumerate(rows) if r["source"] not in train]
    printed = [i for i in held if accept_printed(rows[i])]
    assumed = [i for i in held if not accept_printed(rows[i])]
    return {"all": score([rows[i] for i in ok], [preds[i] for i in ok]),
            "train": score([rows[i] for i in fit], [preds[i] for i in fit]),
            "held_out": score([rows[i] for i in held], [preds[i] for i in held]),
            "all_rows": score(rows, preds),
            "held_out_all_rows": score([rows[i] for i in every_held], [preds[i] for i in every_held]),
            "held_out_accept_printed": score([rows[i] for i in printed], [preds[i] for i in printed]),
            "held_out_accept_assumed": score([rows[i] for i in assumed], [preds[i] for i in assumed])}


def accept_printed(row: dict) -> bool:
    """Whether the row's accept length is the source's own (``accept_length`` set from what the source printed);
    False where the source printed none and the family default is assumed (the table's ``*``)."""
    return bool(row.get("accept_length"))


def split_lines(s: dict) -> list[str]:
    """The held-out comparable rows split by where their accept length comes from (helper pf38): printed by the
    source vs assumed (the family default, marked ``*`` in the table); the two lines add up to the held-out line."""
    out = []
    for key, name in (("held_out_accept_printed", "held-out, accept length printed by the source"),
                      ("held_out_accept_assumed", "held-out, accept length assumed (family default, *)")):
        out.append(summary_line(name, s[key]) if s[key]["rows"] else f"{name}: 0 rows")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--markdown", default=None, help="also write the table to this file")
    ap.add_argument("--rows", default=None, help="comma-separated row numbers (1-based): itemise these rows instead")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    data = json.loads(DATA.read_text())
    if args.rows:
        try:
            numbers = [int(x) for x in args.rows.split(",") if x.strip()]
        except ValueError:
            print(f"--rows takes row numbers separated by commas, e.g. 25,166; got {args.rows!r}", file=sys.stderr)
            return 2
        bad = [n for n in numbers if not 1 <= n <= len(data["rows"])]
        if bad or not numbers:
            print(f"--rows: row numbers run from 1 to {len(data['rows'])}; got {args.rows!r}", file=sys.stderr)
            return 2
        for n in numbers:
            print("\n".join(itemise(n, data["rows"][n - 1])))
            row = data["rows"][n - 1]
            if row.get("measurement") == "workload":
                print(f"  scored as a workload (tpkit.perf.workload, workloads[{row['source']!r}]): predicted speed-up "
                      f"{scored_speedup(row, data):.3f}x; the lines above are the decode step at batch {row['batch']}")
            if not comparable(row):
                print(f"  not comparable, left out of the scores: {row['not_comparable']}")
        return 0
    lines, s = table(data)
    workload_rows = [str(i) for i, r in enumerate(data["rows"], 1) if r.get("measurement") == "workload"]
    nc_rows = [str(i) for i, r in enumerate(data["rows"], 1) if not comparable(r)]
    summary = ([f"scored as the workload they measured (tpkit.perf.workload): rows {', '.join(workload_rows)}"]
               if workload_rows else []) + [summary_line("all", s["all"]), summary_line("training sources", s["train"]),
                                            summary_line("held-out sources", s["held_out"])] + split_lines(s)
    if nc_rows:
        summary.append(f"not comparable (the row's not_comparable, the source's words): rows {', '.join(nc_rows)}; "
                       f"with them counted: all {s['all_rows']['sign_ok']}/{s['all_rows']['rows']} sign right, "
                       f"{s['all_rows']['within_25']} within 25 %; held-out {s['held_out_all_rows']['sign_ok']}/"
                       f"{s['held_out_all_rows']['rows']} sign right, {s['held_out_all_rows']['within_25']} within 25 %")
    text = "\n".join(lines + [""] + summary)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
