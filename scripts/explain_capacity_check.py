"""Capacity rebuilt from a log's own anchors, with the capacity lines removed (docs/accuracy.md §7.2).

For every log of tests/logs/data that prints "Load weight end" (SGLang) or "Available KV cache memory" (vLLM):
remove the lines that print the capacity (SGLang 'KV Cache is allocated', 'max_total_num_tokens=';
vLLM 'GPU KV cache size', 'Maximum concurrency', '# GPU blocks' / '# cuda blocks'), run ``tpkit explain`` on
the rest, and check that the printed capacity of the full log lies in the token range rebuilt from the
anchors (the print-rounding interval of the anchors carried through the engine's arithmetic).

The model is passed as a user would pass ``--model``: the config that tests/logs/data/models.json names for the
log (a catalog id or a config path); every other setting comes from the log.  A log without a config there is a
miss with that reason.

    PYTHONPATH=src python scripts/explain_capacity_check.py [--json]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
CAPACITY = re.compile(r"KV Cache is allocated|max_total_num_tokens=|GPU KV cache size|Maximum concurrency for|"
                      r"# GPU blocks|# cuda blocks|# CUDA blocks|num_gpu_blocks")


def model_map() -> dict[str, dict]:
    """tests/logs/data/models.json by case id: the model each log served and a config tpkit loads (or null)."""
    return {e["id"]: e for e in json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]}


def model_flag(entry: dict | None) -> str | None:
    """The ``--model`` a user would pass for this log: a catalog id, or the path of the config file."""
    ref = (entry or {}).get("config")
    if not ref:
        return None
    return ref[len("catalog:"):] if ref.startswith("catalog:") else str(ROOT / ref)


ANCHOR = re.compile(r"Load weight end|Available KV cache memory")
NEXT_RECORD = r"(?=\s(?:INFO|WARNING|DEBUG|ERROR)\s|\s\(\w+ pid=|\s\[20\d\d-|$)"


def strip_capacity(data: bytes) -> bytes:
    """The log without its capacity records: a line that prints the capacity is dropped; where one physical line
    holds several records (a pasted one-liner), only the capacity records are cut out of it, up to the next
    record's prefix."""
    out = []
    for raw in data.split(b"\n"):
        line = raw.decode("utf-8", "replace")
        if not CAPACITY.search(line):
            out.append(raw)
        elif ANCHOR.search(line):
            out.append(re.sub(f"(?:{CAPACITY.pattern}).*?{NEXT_RECORD}", "", line).encode("utf-8"))
    return b"\n".join(out)


def check(case: dict, models: dict[str, dict]) -> dict:
    from tpkit.explain import explain_log

    data = (DATA / case["file"]).read_bytes()
    full = explain_log(data)
    printed = full.kv_printed
    entry = models.get(case["id"]) or {}
    row = {"id": case["id"], "engine": case["engine"], "printed": printed, "range": None, "outcome": "", "why": "",
           "model": entry.get("model"), "config": entry.get("config"),
           "fidelity": entry.get("config_fidelity")}
    model = model_flag(entry)
    flags = {"model": model} if model else {}
    stripped = explain_log(strip_capacity(data), flags=flags)
    rng = stripped.kv_predicted_range
    row["range"] = list(rng) if rng else None
    row["cell_source"] = stripped.kv_source
    if printed is None:
        row.update(outcome="n/a", why="the full log prints no capacity either")
    elif rng is None:
        if stripped.context.model is None:
            row.update(outcome="miss", why=f"no config (models.json: {(entry.get('note') or 'not found')[:90]}…)"
                       if entry.get("model") else "model not known (not printed, not named by the source)")
        else:
            row.update(outcome="miss", why=f"anchors incomplete: {_incomplete(stripped)}")
    elif rng[0] <= printed <= rng[1]:
        row.update(outcome="hit", why="printed capacity within the rebuilt range")
    else:
        off = printed - (rng[0] + rng[1]) // 2
        row.update(outcome="miss", why=f"outside the rebuilt range by {off:+,} tokens ({off / max(printed, 1):+.2%})")
    return row


def _incomplete(e) -> str:
    """What the rebuild lacked, in words."""
    a = e.anchored
    if e.context.engine == "sglang" and a is not None:
        why = []
        if a.pre is None:
            why.append("no pre-load free memory ('Load weight begin', or 'Load weight end' avail + mem usage)")
        if a.fraction is None:
            why.append(f"mem_fraction_static {a.fraction_source or 'not printed'}")
        if a.cell_bytes is None:
            why.append(a.cell_source)
        return "; ".join(why) or e.kv_source
    return "; ".join(m for m in e.missing if "KV" in m) or e.kv_source or "engine not recognised"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    cases = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
    models = model_map()
    rows = []
    for case in cases:
        text = (DATA / case["file"]).read_bytes().decode("utf-8", "replace")
        needle = "Load weight end" if case["engine"] == "sglang" else "Available KV cache memory"
        if needle in text:
            rows.append(check(case, models))
    if "--json" in argv:
        json.dump(rows, sys.stdout, indent=1)
        return 0
    scored = [r for r in rows if r["outcome"] in ("hit", "miss")]
    hits = sum(r["outcome"] == "hit" for r in scored)
    print("| case | engine | printed | rebuilt range | outcome | why |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        rng = f"{r['range'][0]:,}–{r['range'][1]:,}" if r["range"] else "—"
        printed = f"{r['printed']:,}" if r["printed"] is not None else "—"
        print(f"| {r['id']} | {r['engine']} | {printed} | {rng} | {r['outcome']} | {r['why']} |")
    withcfg = [r for r in rows if r["config"]]
    hits_all = sum(r["outcome"] == "hit" for r in rows)
    hits_cfg = sum(r["outcome"] == "hit" for r in withcfg)
    print(f"\n{len(rows)} logs print the anchor; {hits_all}/{len(rows)} rebuilt within the print rounding "
          f"({hits_all / max(len(rows), 1):.0%}); with a config in models.json: {hits_cfg}/{len(withcfg)}; "
          f"{len(scored)} print a capacity: {hits}/{len(scored)}; of those with a config: "
          f"{sum(r['outcome'] == 'hit' for r in withcfg if r['outcome'] != 'n/a')}/"
          f"{sum(r['outcome'] != 'n/a' for r in withcfg)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
