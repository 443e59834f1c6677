"""Copy the real logs the data helpers collected (outside the repo) into tests/logs/data/.

Run by hand when the collection grows; the tests never read outside the repo:

    python tests/logs/data/collect.py /work/data/sglang_logs /work/data/vllm_logs /work/shared/validation

Writes ``<engine>/<id>.log`` (the verbatim excerpt, bytes as collected) and ``cases.json`` (per log: source,
source URL, status, the labelled failure phase, and the numbers the source printed), and rewrites README.md.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEEP = ("id", "engine", "source", "source_url", "engine_version", "engine_version_note", "status", "failure",
        "tp", "mem_fraction_static", "gpu_memory_utilization", "context_length", "max_model_len", "reported",
        "quality")


def _collection(folder: Path) -> list[dict]:
    out = []
    for case in json.loads((folder / "cases.json").read_text(encoding="utf-8")):
        log = folder / "logs" / f"{case['id']}.log"
        engine = case.get("engine") or folder.name.split("_")[0]
        if not log.exists():
            continue
        target = HERE / engine / log.name
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(log, target)
        row = {k: case.get(k) for k in KEEP}
        row["engine"], row["file"] = engine, f"{engine}/{log.name}"
        out.append(row)
    return out


def _validation(folder: Path) -> list[dict]:
    out = []
    for case in json.loads((folder / "cases.json").read_text(encoding="utf-8")):
        lines = case["log"] if isinstance(case["log"], list) else case["log"].split("\n")
        target = HERE / "validation" / f"{case['id']}.log"
        target.parent.mkdir(exist_ok=True)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        row = {k: case.get(k) for k in KEEP}
        row["id"], row["file"] = f"validation_{case['id']}", f"validation/{case['id']}.log"
        failed = str(case.get("status", "")).startswith("failed")
        row["status"] = "crash" if failed else "ok"
        if failed and "KV capacity" in case["status"] or "KV)" in str(case.get("status")):
            row["failure"] = {"phase": "kv_pool", "message": case["status"]}
        out.append(row)
    return out


def _readme(rows: list[dict]) -> str:
    lines = ["# Real SGLang and vLLM logs used by tests/logs", "",
             "Every file is a verbatim excerpt of a public log (GitHub issues and pull requests, project docs and",
             "CI output), collected by the tpkit data helpers; `cases.json` keeps each excerpt's source, its",
             "status, the labelled failure phase and the numbers the source printed. Copied by `collect.py`.",
             "One synthetic log is labelled as such (`synthetic/`).", "", "| file | status | source |", "|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['file']}` | {r['status']} | {r['source_url'] or r['source']} |")
    for path in sorted((HERE / "synthetic").glob("*.log")):
        lines.append(f"| `synthetic/{path.name}` | synthetic | built by hand from the README walk-through's numbers "
                     "(header lines say so) |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    rows: list[dict] = []
    for arg in argv:
        folder = Path(arg)
        rows += _validation(folder) if folder.name == "validation" else _collection(folder)
    (HERE / "cases.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (HERE / "README.md").write_text(_readme(rows), encoding="utf-8")
    print(f"{len(rows)} logs")


if __name__ == "__main__":
    main(sys.argv[1:])
