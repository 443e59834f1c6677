"""Capacity rebuilt from a log's own anchors, with the capacity lines removed (docs/accuracy.md §7.2).

For every log of tests/logs/data that prints "Load weight end" (SGLang) or "Available KV cache memory" (vLLM):
remove the lines that print the capacity (SGLang 'KV Cache is allocated', 'max_total_num_tokens=';
vLLM 'GPU KV cache size', 'Maximum concurrency', '# GPU blocks' / '# cuda blocks'), run ``tpkit explain`` on
the rest, and check that the printed capacity of the full log lies in the token range rebuilt from the
anchors (the print-rounding interval of the anchors carried through the engine's arithmetic).

The KV cell comes from the model config: the log's model (catalog / HF cache) or, when that is not on this
machine, a config under tests/ whose file name is the log's model name (``org--name.json``); a log whose model
is not printed or has no config is a miss with that reason.

    PYTHONPATH=src python scripts/explain_capacity_check.py [--json]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
CONFIG_DIRS = (ROOT / "tests" / "validation" / "configs", ROOT / "tests" / "validation" / "data_vllm" / "configs",
               ROOT / "tests" / "engines" / "data_vllm_issue11")
CAPACITY = re.compile(r"KV Cache is allocated|max_total_num_tokens=|GPU KV cache size|Maximum concurrency for|"
                      r"# GPU blocks|# cuda blocks|# CUDA blocks|num_gpu_blocks")


MODEL_LABELS = {
    # the model the source names where the excerpt does not print it (cases.json 'source' / notes), as a user
    # would pass it with --model
    "sg_036": "Qwen/Qwen3-14B",  # the note: "SGLang service baseline, Qwen3-14B on 4 x RTX 4090"
    "sg_021": "moonshotai/Kimi-K2.5",  # the report: "ROCm SGLang runs of Kimi-K2.5"
}


def _norm(name: str) -> str:
    """A model name without its org and the old 'Meta-' prefix of Llama repos (same config)."""
    return name.rstrip("/").split("/")[-1].lower().removeprefix("meta-")


def configs() -> dict[str, Path]:
    out = {}
    for d in CONFIG_DIRS:
        for p in sorted(d.glob("*.json")):
            out.setdefault(_norm(p.stem.split("--", 1)[-1]), p)
    return out


def validation_record(case_id: str) -> dict:
    """The record of a validation case (tests/validation/cases/*.json): its model and layout."""
    if not case_id.startswith("validation_"):
        return {}
    for name in ("vllm.json", "sglang.json"):
        items = json.loads((ROOT / "tests" / "validation" / "cases" / name).read_text(encoding="utf-8"))
        for c in items if isinstance(items, list) else items.get("cases", []):
            if c.get("id") == case_id.removeprefix("validation_"):
                return c
    return {}


def strip_capacity(data: bytes) -> bytes:
    return b"\n".join(line for line in data.split(b"\n")
                      if not CAPACITY.search(line.decode("utf-8", "replace")))


def check(case: dict, cfgs: dict[str, Path]) -> dict:
    from tpkit.explain import explain_log

    data = (DATA / case["file"]).read_bytes()
    full = explain_log(data)
    printed = full.kv_printed
    row = {"id": case["id"], "engine": case["engine"], "printed": printed, "range": None, "outcome": "", "why": ""}
    flags = {}
    if full.context.model is None:
        record = validation_record(case["id"])
        label = MODEL_LABELS.get(case["id"]) or record.get("model")
        for key in ("tp", "pp"):
            if record.get(key):
                flags[key] = record[key]
        name = _norm(str(full.parsed.run.value("model") or label or ""))
        if name and name in cfgs:
            flags["model"] = str(cfgs[name])
        elif label:
            flags["model"] = label
    stripped = explain_log(strip_capacity(data), flags=flags)
    rng = stripped.kv_predicted_range
    row["range"] = list(rng) if rng else None
    row["cell_source"] = stripped.kv_source
    if printed is None:
        row.update(outcome="n/a", why="the full log prints no capacity either")
    elif rng is None:
        if stripped.context.model is None:
            model = full.parsed.run.value("model")
            row.update(outcome="miss", why="model not printed (nor named by the source)" if not model
                       else f"no config for {model} in tests/ or the catalog")
        else:
            row.update(outcome="miss", why=f"anchors incomplete: {'; '.join(m for m in stripped.missing if 'KV' in m)}"
                       or stripped.kv_source)
    elif rng[0] <= printed <= rng[1]:
        row.update(outcome="hit", why="printed capacity within the rebuilt range")
    else:
        off = printed - (rng[0] + rng[1]) // 2
        row.update(outcome="miss", why=f"outside the rebuilt range by {off:+,} tokens ({off / max(printed, 1):+.2%})")
    return row


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    cases = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
    cfgs = configs()
    rows = []
    for case in cases:
        text = (DATA / case["file"]).read_bytes().decode("utf-8", "replace")
        needle = "Load weight end" if case["engine"] == "sglang" else "Available KV cache memory"
        if needle in text:
            rows.append(check(case, cfgs))
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
    modelled = [r for r in scored if r["range"] is not None]
    print(f"\n{len(rows)} logs print the anchor; {len(scored)} print a capacity; {hits}/{len(scored)} rebuilt within "
          f"the print rounding ({hits / max(len(scored), 1):.0%}); of the {len(modelled)} with a model config: "
          f"{sum(r['outcome'] == 'hit' for r in modelled)}/{len(modelled)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
