"""The wrong-sign rows of bench/decode_published.py against their plain step, and what an all-reduce term can do
(helper sp29, issue 13; CPU only, no network, ~2 min).

    python bench/tp_wrong_signs.py [--json out.json]

For every comparable row it takes the prediction ``tpkit perf`` makes (``decode_published.predict``) and, where the
source gives both tok/s, the measured plain step (batch / plain tok/s) and cycle (batch × accept length / spec tok/s).
It prints:

1. The wrong-sign rows: plain step and cycle predicted / measured, the cycle / step ratio both ways, the all-reduce
   calls of one forward (``C`` = 2 per layer + the embedding's; ``tpkit.perf.calls``) and of one cycle (``C`` for the
   verify + 3 per draft step: the one-layer EAGLE / MTP head's two row-parallel outputs and its embedding), the
   verify's all-reduce message (batch × (k + 1) tokens × hidden × 2 B), and the **bound of any per-call all-reduce
   term**: adding δ µs to every all-reduce call moves the predicted speed-up from ``s`` towards
   ``s × C·cycle / (step·(C + 3k))`` as δ grows, never past it, so a row whose bound stays on the wrong side of 1
   cannot be turned by an all-reduce count or cost per call.  ``δ step / δ cycle``: the extra µs per call that
   would close the plain step's miss alone and the cycle's alone; one per-call term explains a row only where they
   agree.
2. The held-out wrong-sign rows grouped by engine and TP, release and TP, algorithm / batch / accept length (the
   source's or the family default), and the side that alone turns them, each against the held-out rows of its group
   (``wrong_groups``, helper sp31).
3. A per-call term fitted on the training sources only (``split.train``: the grid δ = 0, 5, … 100 µs that maximises
   their sign, then within-25 % count), and its effect on all / training / held-out rows (sign and within 25 %).
   Workload rows (as163) keep their scored prediction (the term is a decode-step what-if).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import decode_published as dp  # noqa: E402

DRAFT_CALLS_PER_STEP = 3
"""all-reduce calls of one draft step of a one-layer head at the target's TP: o_proj, down_proj, embedding
(``tpkit.perf.calls.collective_calls`` with num_layers=1)"""


def collect(data: dict | None = None) -> list[dict]:
    """One record per row (1-based ``row``) with what the tables and the what-if need."""
    from tpkit.models import load_model

    data = data or json.loads(dp.DATA.read_text())
    train = set(data["split"]["train"])
    hidden: dict[str, int] = {}
    out = []
    for number, row in enumerate(data["rows"], 1):
        r = dp.predict(row)
        model = row["model"]
        if model not in hidden:
            hidden[model] = load_model(str(ROOT / model) if model.startswith(("bench/", "tests/")) else model).hidden_size
        tau = row["accept_length"] or r.speculative.accept_length
        both = bool(row["base_tok_s"] and row["spec_tok_s"])
        calls = int(r.allreduce.get("calls_per_forward") or 0) if row["tp"] > 1 else 0
        out.append({
            "row": number, "source": row["source"], "train": row["source"] in train, "tp": row["tp"],
            "gpu": row["gpu"], "engine": row["engine"], "version": row.get("engine_version"),
            "batch": row["batch"], "k": row["num_steps"], "accept_length": tau, "algorithm": row["algorithm"],
            "accept_given": row["accept_length"] is not None,
            "link": r.inputs.get("link") if row["tp"] > 1 else "single",
            "backend": r.allreduce.get("backend") if row["tp"] > 1 else "none",
            "workload": row.get("measurement") == "workload", "comparable": dp.comparable(row),
            "measured": dp.measured_speedup(row), "predicted": dp.scored_speedup(row, data, r),
            "decode_predicted": r.speculative.speedup,
            "step_pred_ms": r.baseline.step_us / 1e3, "cycle_pred_ms": r.speculative.cycle_us / 1e3,
            "step_meas_ms": row["batch"] / row["base_tok_s"] * 1e3 if both else None,
            "cycle_meas_ms": row["batch"] * tau / row["spec_tok_s"] * 1e3 if both else None,
            "calls_forward": calls, "calls_cycle": calls + DRAFT_CALLS_PER_STEP * row["num_steps"] if calls else 0,
            "verify_msg_kib": row["batch"] * row["num_draft_tokens"] * hidden[model] * 2 / 1024
            if row["tp"] > 1 else 0.0})
    return out


def with_term(x: dict, delta_us: float) -> float:
    """The row's scored speed-up with ``delta_us`` added to every all-reduce call (plain step and cycle)."""
    if x["workload"] or not x["calls_forward"] or not delta_us:
        return x["predicted"]
    step, cyc = x["step_pred_ms"] * 1e3, x["cycle_pred_ms"] * 1e3
    return x["predicted"] * (step + x["calls_forward"] * delta_us) / step * cyc / (cyc + x["calls_cycle"] * delta_us)


def bound(x: dict) -> float | None:
    """The limit of ``with_term`` as the per-call term grows without end (None at TP 1 or for workload rows)."""
    if x["workload"] or not x["calls_forward"]:
        return None
    return x["decode_predicted"] * x["calls_forward"] * x["cycle_pred_ms"] / (x["step_pred_ms"] * x["calls_cycle"])


def deltas_us(x: dict) -> tuple[float, float] | None:
    """(δ_step, δ_cycle): the extra µs per all-reduce call that would close the plain step's miss alone
    ((step_meas − step_pred) / C) and the cycle's alone ((cycle_meas − cycle_pred) / (C + 3k)).  One per-call term
    explains both only where the two agree."""
    if x["step_meas_ms"] is None or not x["calls_cycle"]:
        return None
    return ((x["step_meas_ms"] - x["step_pred_ms"]) * 1e3 / x["calls_forward"],
            (x["cycle_meas_ms"] - x["cycle_pred_ms"]) * 1e3 / x["calls_cycle"])


def tally(items: list[dict], delta_us: float) -> dict:
    """all / train / held-out (comparable rows): sign right and within 25 % with the term."""
    out = {}
    for name, keep in (("all", lambda x: True), ("train", lambda x: x["train"]), ("held_out", lambda x: not x["train"])):
        sel = [x for x in items if x["comparable"] and keep(x)]
        sp = [with_term(x, delta_us) for x in sel]
        out[name] = {"rows": len(sel), "sign_ok": sum((p > 1) == (x["measured"] > 1) for p, x in zip(sp, sel)),
                     "within_25": sum(abs(p / x["measured"] - 1) <= 0.25 for p, x in zip(sp, sel))}
    return out


def fit_on_training(items: list[dict], grid=tuple(range(0, 101, 5))) -> float:
    """The per-call term that maximises the training rows' (sign right, within 25 %), smallest on ties."""
    return max(grid, key=lambda d: (tally(items, d)["train"]["sign_ok"], tally(items, d)["train"]["within_25"], -d))


def side(x: dict) -> str:
    """Which measured side alone turns the sign right: ``step`` (measured plain step, predicted cycle), ``cycle``
    (predicted step, measured cycle), ``both``, ``neither``; ``n/a`` without both tok/s."""
    if x["workload"]:
        return "n/a (workload)"
    if x["step_meas_ms"] is None:
        return "n/a"
    right = x["measured"] > 1
    with_step = x["decode_predicted"] * x["step_meas_ms"] / x["step_pred_ms"]
    with_cycle = x["decode_predicted"] * x["cycle_pred_ms"] / x["cycle_meas_ms"]
    fixed = [(with_step > 1) == right, (with_cycle > 1) == right]
    return {(True, True): "both", (True, False): "step", (False, True): "cycle"}.get(tuple(fixed), "neither")


def _f(v, fmt="{:.2f}") -> str:
    return "—" if v is None else fmt.format(v)


def _deltas(x: dict) -> str:
    d = deltas_us(x)
    return "—" if d is None else f"{d[0]:.0f} / {d[1]:.0f}"


def wrong_table(items: list[dict]) -> list[str]:
    lines = ["| row | source | split | GPU × TP | link / AR | batch | k | accept len | speed-up meas → pred | "
             "step pred / meas (ms) | cycle pred / meas (ms) | cycle/step pred / meas | AR calls step / cycle | "
             "verify msg (KiB) | per-call bound | δ step / δ cycle (µs) | side that turns it |",
             "|---:|---|---|---|---|---:|---:|---:|---|---|---|---|---|---:|---:|---:|---|"]
    for x in items:
        if not x["comparable"] or (x["predicted"] > 1) == (x["measured"] > 1):
            continue
        sm, cm = x["step_meas_ms"], x["cycle_meas_ms"]
        lines.append(
            f"| {x['row']} | {x['source']} | {'train' if x['train'] else 'held out'} | {x['gpu']} × {x['tp']} | "
            f"{x['link']} / {x['backend']} | {x['batch']} | {x['k']} | {x['accept_length']:.2f} | "
            f"{x['measured']:.2f} → {x['predicted']:.2f}{' (workload)' if x['workload'] else ''} | "
            f"{x['step_pred_ms']:.2f} / {_f(sm)} | {x['cycle_pred_ms']:.2f} / {_f(cm)} | "
            f"{x['cycle_pred_ms'] / x['step_pred_ms']:.2f} / {_f(cm / sm if sm else None)} | "
            f"{x['calls_forward']} / {x['calls_cycle']} | {x['verify_msg_kib']:.0f} | {_f(bound(x))} | "
            f"{_deltas(x)} | {side(x)} |")
    return lines


def is_wrong(x: dict) -> bool:
    """A comparable row whose predicted speed-up is on the other side of 1 from the measured one."""
    return x["comparable"] and (x["predicted"] > 1) != (x["measured"] > 1)


def group_key(x: dict, key: str) -> str:
    """One grouping column of a record: ``engine``, ``release`` (None = newest facts), ``tp``, ``batch`` (1, 2–8,
    16–64, > 64), ``algorithm``, ``accept`` (given by the source or the family default), ``side``."""
    if key == "release":
        return f"{x['engine']} {x['version'] or 'newest'}"
    if key == "batch":
        b = x["batch"]
        return "1" if b == 1 else "2-8" if b <= 8 else "16-64" if b <= 64 else ">64"
    if key == "accept":
        return "source" if x.get("accept_given") else "family default"
    if key == "side":
        return side(x)
    return str(x[key])


def wrong_groups(items: list[dict], keys: tuple[str, ...]) -> list[str]:
    """The held-out wrong-sign rows counted by ``keys`` against every held-out comparable row of the same group
    (helper sp31): which groups the wrong signs sit in, and how large those groups are."""
    held = [x for x in items if x["comparable"] and not x["train"]]
    groups: dict[tuple, list] = {}
    for x in held:
        groups.setdefault(tuple(group_key(x, k) for k in keys), []).append(x)
    lines = [f"| {' | '.join(keys)} | held-out rows | wrong | wrong rows |", "|" + "---|" * len(keys) + "---:|---:|---|"]
    for key in sorted(groups, key=lambda k: (-sum(map(is_wrong, groups[k])), k)):
        bad = [x["row"] for x in groups[key] if is_wrong(x)]
        if bad:
            lines.append(f"| {' | '.join(key)} | {len(groups[key])} | {len(bad)} | {', '.join(map(str, bad))} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=None, help="also write every row's record to this file")
    args = ap.parse_args()
    items = collect()
    if args.json:
        Path(args.json).write_text(json.dumps(items, indent=1) + "\n")
    print("\n".join(wrong_table(items)))
    for keys in (("engine", "tp"), ("release", "tp"), ("algorithm", "batch", "accept"), ("side",)):
        print("\nheld-out wrong signs by " + ", ".join(keys) + " (groups with at least one):")
        print("\n".join(wrong_groups(items, keys)))
    best = fit_on_training(items)
    print(f"\nper-call all-reduce term fitted on the training sources only: {best} µs")
    for d in sorted({0, best, 25, 50}):
        print(f"  δ = {d:3d} µs: {tally(items, d)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
