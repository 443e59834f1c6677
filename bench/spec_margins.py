"""How much extra cycle time would turn a published row's predicted sign, and whether one term shape fits a source.

Why (docs/accuracy.md §4.5, helper eg23, 2026-12-06): issue 13's held-out wrong signs were each tried against
candidate cost terms — a flat cost per cycle, a cost per running request (spec v1's host loop), a cost per accepted
token (the per-token ``append`` / ``check_finished``) — by patching the model and re-running the whole bench.  The
question "can any term of this shape fix the wrong rows of a source without turning its right rows" has a closed
answer from the predictions alone, which this script prints so that no one re-patches to find it.

For every comparable row of the chosen source (or rows) it takes the scorer's decode-step prediction
(``decode_published.predict``) and its **margin**: the extra time per speculative cycle at which the predicted
speed-up reaches 1.0 (the speed-up is speculative ÷ plain tok/s, and the speculative rate is running requests ×
accept length ÷ cycle, so ``margin = cycle × (speed-up − 1)``).  A row measured below 1.0 but predicted above needs
an extra cost larger than its margin; a row measured above 1.0 allows at most its margin; a row measured above 1.0
and predicted below needs a *cheaper* cycle (no added cost fixes it).  Each margin is also given per running request
(÷ running speculative requests) and per accepted token (÷ running × accept length).  For each shape the script
prints the interval a single non-negative term would have to fall in: ``needs > L, allows < U``; it fits only if
L < U.

Workload rows (``measurement: workload``, scored by ``tpkit.perf.workload``) are given at their decode step at
``batch`` and marked: the margin is that of the step, not of the workload's score.

Usage::

    python bench/spec_margins.py --source eagle3_t3
    python bench/spec_margins.py --rows 131,135,148
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = (("flat per cycle", "ms", 1e-3), ("per running request", "µs", 1.0), ("per accepted token", "µs", 1.0))


def margins(row: dict) -> dict:
    """The row's decode-step prediction and its margin: total (µs per cycle), per running request, per accepted
    token, with the measured and predicted speed-ups."""
    import decode_published as dp

    r = dp.predict(row)
    spec = r.speculative
    running = spec.running or row["batch"]
    tau = spec.accept_length
    margin = spec.cycle_us * (spec.speedup - 1.0)
    return {"measured": dp.measured_speedup(row), "predicted": spec.speedup, "cycle_us": spec.cycle_us,
            "running": running, "accept_length": tau,
            "per_shape": (margin, margin / running, margin / (running * tau)),
            "workload": row.get("measurement") == "workload"}


def bounds(items: list[dict]) -> list[tuple[float, float]]:
    """Per shape, (L, U): an added non-negative cost x fixes every row measured below 1.0 and predicted above
    (x > L) and keeps every row measured above 1.0 and predicted above (x < U).  L = 0 / U = inf when no row sets it."""
    out = []
    for k in range(len(SHAPES)):
        need = [m["per_shape"][k] for m in items if m["measured"] <= 1.0 < m["predicted"]]
        allow = [m["per_shape"][k] for m in items if m["measured"] > 1.0 and m["predicted"] > 1.0]
        out.append((max(need, default=0.0), min(allow, default=float("inf"))))
    return out


def _role(m: dict) -> str:
    meas_up, pred_up = m["measured"] > 1.0, m["predicted"] > 1.0
    if meas_up == pred_up:
        return "allows <" if meas_up else "right at any added cost"
    return "needs >" if pred_up else "needs a cheaper cycle"


def report(numbers: list[int], rows: list[dict]) -> list[str]:
    lines = ["| row | source | batch | measured / predicted | cycle ms | running | τ | role | margin ms | "
             "per request µs | per accepted token µs |", "|---:|---|---:|---|---:|---:|---:|---|---:|---:|---:|"]
    items = []
    for n, row in zip(numbers, rows):
        m = margins(row)
        items.append(m)
        flat, req, tok = m["per_shape"]
        mark = " (workload: decode step)" if m["workload"] else ""
        lines.append(f"| {n} | {row['source']}{mark} | {row['batch']} | {m['measured']:.2f} / {m['predicted']:.2f} | "
                     f"{m['cycle_us'] / 1e3:.2f} | {m['running']} | {m['accept_length']:.2f} | {_role(m)} | "
                     f"{flat / 1e3:+.2f} | {req:+.1f} | {tok:+.1f} |")
    lines.append("")
    for (name, unit, scale), (lo, hi) in zip(SHAPES, bounds(items)):
        verdict = "fits" if lo < hi else "no single term fits"
        lines.append(f"{name}: needs > {lo * scale:.2f} {unit}, allows < {hi * scale:.2f} {unit}: {verdict}")
    cheaper = [str(n) for n, m in zip(numbers, items) if _role(m) == "needs a cheaper cycle"]
    if cheaper:
        lines.append(f"rows no added cost can fix (measured above 1.0, predicted below): {', '.join(cheaper)}")
    return lines


def _select(data: dict, source: str | None, rows_arg: str | None) -> list[int] | str:
    """1-based row numbers, or the error text."""
    n_rows = len(data["rows"])
    if rows_arg:
        try:
            numbers = [int(x) for x in rows_arg.split(",") if x.strip()]
        except ValueError:
            return f"--rows takes row numbers separated by commas, e.g. 135,148; got {rows_arg!r}"
        if not numbers or any(not 1 <= n <= n_rows for n in numbers):
            return f"--rows: row numbers run from 1 to {n_rows}; got {rows_arg!r}"
        return numbers
    numbers = [i for i, r in enumerate(data["rows"], 1) if r["source"] == source and not r.get("not_comparable")]
    if not numbers:
        known = sorted({r["source"] for r in data["rows"]})
        return f"--source: no comparable row of {source!r}; sources are e.g. {', '.join(known[:6])} … ({len(known)})"
    return numbers


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--source", help="every comparable row of this source (bench/data/published_spec.json)")
    group.add_argument("--rows", help="comma-separated row numbers (1-based)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "bench"))
    import decode_published as dp

    data = json.loads(dp.DATA.read_text())
    numbers = _select(data, args.source, args.rows)
    if isinstance(numbers, str):
        print(numbers, file=sys.stderr)
        return 2
    print("\n".join(report(numbers, [data["rows"][n - 1] for n in numbers])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
