"""Which corpus logs find their model with no flags at all (docs/accuracy.md §7, "A log's model path read by its name").

For every log of tests/logs/data/cases.json, run ``tpkit explain LOG --json`` with no flags (in-process, the CLI's own
``main``) and record whether a model was found (``model.source`` other than "unknown") and how: the log's path or id
as given, or by its name (``explain.modelpath._by_path_tail``).  A log whose model is not found is put in one class:

    none       the log prints no model name or path at all (the log reader finds no ``model``), or only a placeholder
               or a folder that names no model (``<model>``, ``/opt/ml/model``, ``/mnt/models``, ``…/8b/1``)
    tested     it prints one whose labelled config (tests/logs/data/models.json) is a public config file of the test
               data that the catalog does not hold (scripts/catalog_tested.json could add it)
    variant    its label is "same architecture" / a base model's config: a quantized or fine-tuned variant whose
               base architecture the catalog (or the test data) holds, not the variant's own config
    other      anything else (no label, a label with no config, a catalog label the name does not reach)

    PYTHONPATH=src python scripts/model_by_name_check.py [--ids FILE] [--json]

``--ids`` restricts the run to the case ids listed in FILE (one a line), e.g. the 252 logs of an earlier corpus.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/: cli_inproc
from cli_inproc import run_tpkit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"


def _explain(path: Path) -> dict:
    return json.loads(run_tpkit(["explain", str(path), "--json"])[1])


_GENERIC = {"model", "models", "checkpoint", "checkpoints", "weights"}
_VARIANT = ("same architecture", "base architecture", "assumed model")


def _class(label: dict, logged) -> str:
    """The class of a log whose model is not found (the module docstring's four)."""
    printed = str(logged or "").strip().rstrip("/").split("/")[-1].replace("___", ".").lower()
    if (not any(ch.isalnum() for ch in printed) or (printed.startswith("<") and printed.endswith(">"))
            or printed.isdigit() or printed in _GENERIC):
        return "none"  # nothing printed, a placeholder ('<model>'), a fence read as a path, a folder naming no model
    config = label.get("config") or ""
    if not config:
        return "other"  # no labelled config: nothing to add to the catalog from the test data
    if config.startswith("catalog:"):
        named = config.split("/")[-1]
    elif config.endswith("/config.json"):
        named = config.split("/")[-2].split("__")[-1]
    else:
        named = config.split("/")[-1].removesuffix(".json").split("--")[-1]
    fidelity = (label.get("config_fidelity") or "").lower()
    if named.lower() == printed and not fidelity.startswith(_VARIANT):
        return "other" if config.startswith("catalog:") else "tested"
    return "variant"  # another model's config stands for this build (a quantized, fine-tuned or base variant)


def rows(ids: set[str] | None = None) -> list[dict]:
    """One row per corpus log: id, the logged model, whether (and how) it was found, the class of a miss."""
    from tpkit.logs import parse_log

    labels = {c["id"]: c for c in json.loads((DATA / "models.json").read_text())["cases"]}
    out = []
    for case in json.loads((DATA / "cases.json").read_text()):
        if ids is not None and case["id"] not in ids:
            continue
        path = DATA / case["file"]
        logged = parse_log(path.read_bytes()).run.value("model")
        result = _explain(path)
        model = result.get("model") or {}
        source = model.get("source") or "unknown"
        found = source != "unknown"
        label = labels.get(case["id"], {})
        out.append({"id": case["id"], "logged": None if logged is None else str(logged), "found": found,
                    "by_name": found and "by its name" in source, "source": source,
                    "label": label.get("config"), "label_model": label.get("model"),
                    "fidelity": label.get("config_fidelity"),
                    "class": None if found else _class(label, logged)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ids = set(args.ids.read_text().split()) if args.ids else None
    table = rows(ids)
    if args.json:
        print(json.dumps(table, indent=1))
        return
    for r in table:
        print(f"{r['id']:8} {'FOUND' if r['found'] else r['class']:8} {'name' if r['by_name'] else '':4} "
              f"{r['logged']!s:60.60} {r['label']!s:60.60} {r['fidelity']!s}")
    found = sum(r["found"] for r in table)
    by_name = sum(r["by_name"] for r in table)
    classes = {}
    for r in table:
        if not r["found"]:
            classes[r["class"]] = classes.get(r["class"], 0) + 1
    print(f"model found with no flags: {found} of {len(table)} ({by_name} by name); not found: {classes}")


if __name__ == "__main__":
    sys.exit(main())
