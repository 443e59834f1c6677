"""``tpkit plan --from-log LOG`` against each corpus log's own printed capacity.

For every log of tests/logs/data (cases.json) whose explanation reads the measured weights (vLLM 'Model loading
took', SGLang 'Load weight begin/end') and a printed capacity (``Explanation.kv_printed``): run ``tpkit plan
--from-log LOG`` with no other flag, and compare the plan's KV tokens with the printed ones.  Where the log does not
name a model tpkit can read, MODEL is the config tests/logs/data/models.json names for it; where it names no GPU,
the ``gpu`` / ``gpu_memory`` of that entry's source flags (both as ``scripts/explain_capacity_check.py`` takes them),
else ``--gpu-memory`` of the device total the explanation rebuilt from the anchors.
A log that still cannot be planned is listed as skipped, with the error.

    PYTHONPATH=src python scripts/from_log_capacity_check.py [--json OUT]

Prints one row per log (id, printed, planned, error) and the distribution of |error|: median, p90, count within
1 %.  ``--json OUT`` writes the rows, for a before/after comparison of two checkouts (run the script with the other
checkout's ``src`` on PYTHONPATH).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_inproc import run_tpkit  # noqa: E402

from explain_capacity_check import model_flag, model_map  # noqa: E402


def _plan(argv: list[str]) -> tuple[dict | None, str]:
    """(the plan's JSON, '') or (None, the error) for ``tpkit plan ARGV --json``."""
    code, out, err = run_tpkit(["plan", *argv, "--json"], internal_errors=True)  # a crash is a row, not the end
    if code not in (0, 3):
        return None, err.strip().splitlines()[-1].removeprefix("INTERNAL ") if err.strip() else f"exit {code}"
    return json.loads(out), ""


def check(case: dict, models: dict[str, dict]) -> dict:
    from tpkit.explain import explain_log

    path = DATA / case["file"]
    e = explain_log(path.read_bytes())
    row = {"id": case["id"], "engine": case["engine"], "printed": e.kv_printed, "planned": None, "error": None,
           "argv": [], "skipped": ""}
    if e.kv_printed is None or getattr(e.anchored, "weights", None) is None:
        row["skipped"] = "no printed capacity" if e.kv_printed is None else "no measured weights"
        return row
    entry = models.get(case["id"]) or {}
    flags = entry.get("flags") or {}
    gpu = ["--gpu", str(flags["gpu"])] if flags.get("gpu") else (
        ["--gpu-memory", str(flags["gpu_memory"])] if flags.get("gpu_memory") else [])
    if not gpu:  # the device total the explanation rebuilt (vLLM: requested / utilisation; SGLang: its anchors)
        total = getattr(e.anchored, "total", None) or getattr(e.anchored, "device_total", None)
        mid = getattr(total, "mid", total)
        gpu = ["--gpu-memory", f"{mid.bytes}B"] if mid is not None and getattr(mid, "bytes", 0) > 0 else []
    model = [model_flag(entry)] if model_flag(entry) else []
    plan, why = None, ""
    tried = []
    for m, g in (([], []), (model, []), ([], gpu), (model, gpu)):  # the bare command first, then what it lacks
        argv = [*m, "--from-log", str(path.relative_to(ROOT)), *g]
        if plan is None and argv not in tried:
            tried.append(argv)
            row["argv"] = argv
            plan, why = _plan(argv)
    if plan is None:
        row["skipped"] = why
        return row
    row["planned"] = plan["kv_tokens"]
    row["error"] = (plan["kv_tokens"] - e.kv_printed) / max(e.kv_printed, 1)
    return row


def summary(rows: list[dict]) -> dict:
    errs = sorted(abs(r["error"]) for r in rows if r["error"] is not None)
    if not errs:
        return {"count": 0}
    p90 = errs[min(len(errs) - 1, max(0, round(0.9 * len(errs)) - 1))]
    return {"count": len(errs), "median_abs_error": statistics.median(errs), "p90_abs_error": p90,
            "within_1pct": sum(1 for x in errs if x <= 0.01)}


def main(argv: list[str]) -> int:
    cases = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
    models = model_map()
    rows = [check(c, models) for c in cases if (DATA / c["file"]).is_file()]
    for r in rows:
        if r["error"] is not None:
            print(f"{r['id']:<10} {r['engine']:<7} printed {r['printed']:>12,} planned {r['planned']:>12,} "
                  f"{r['error']:+8.2%}")
        elif r["skipped"] not in ("no printed capacity", "no measured weights"):
            print(f"{r['id']:<10} {r['engine']:<7} skipped: {r['skipped'][:150]}")
    s = summary(rows)
    print(json.dumps(s))
    if "--json" in argv:
        Path(argv[argv.index("--json") + 1]).write_text(json.dumps({"rows": rows, "summary": s}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
