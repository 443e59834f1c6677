"""A golden record of ``tpkit explain`` over the explain corpus, for behaviour-preserving refactors of the explain layer.

For every log under tests/logs/data (sorted by path), ``tpkit explain LOG --json`` is run in-process through the
CLI's own ``main`` (argument parsing, flag checks, the JSON writer): once bare, and, where
tests/logs/data/models.json names the log, once more with the ``--model`` and plan flags it gives (as
scripts/explain_capacity_check.py passes them), that second run also as text (the renderer).  Each run keeps its
exit status, stdout and stderr.  The rows of scripts/explain_capacity_check.py (``--json``) are added.  The whole
record is written as one canonical JSON (sorted keys, this checkout's path replaced by ``<ROOT>``) to PATH; two
records of unchanged behaviour are byte-identical (``cmp A B``).

    PYTHONPATH=src python scripts/explain_golden.py PATH
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"


def _capacity_module():
    """scripts/explain_capacity_check.py, loaded as a module (its flag helpers and its ``check``)."""
    spec = importlib.util.spec_from_file_location("explain_capacity_check", ROOT / "scripts" / "explain_capacity_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _run(argv: list[str]) -> dict:
    """``tpkit`` ``argv`` in this interpreter: exit status, stdout and stderr (a JSON stdout parsed)."""
    from tpkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse's exit 2
            rc = exc.code
    text = out.getvalue()
    stdout = text
    if "--json" in argv and rc == 0:
        stdout = json.loads(text)
    return {"argv": argv, "rc": rc, "stdout": stdout, "stderr": err.getvalue()}


def record() -> dict:
    cap = _capacity_module()
    entries = {e["file"]: e for e in cap.model_map().values()}
    logs = {}
    for path in sorted(DATA.rglob("*.log")):
        rel = path.relative_to(DATA).as_posix()
        runs = {"bare": _run(["explain", str(path), "--json"])}
        entry = entries.get(rel)
        if entry is not None:
            words = cap.flag_argv(cap.source_flags(entry))
            model = cap.model_flag(entry)
            if model:
                words = ["--model", model, *words]
            runs["flagged"] = _run(["explain", str(path), "--json", *words])
            runs["flagged_text"] = _run(["explain", str(path), *words])
        logs[rel] = runs
    cases = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
    models = cap.model_map()
    rows = []
    for case in cases:
        text = (DATA / case["file"]).read_bytes().decode("utf-8", "replace")
        needle = "Load weight end" if case["engine"] == "sglang" else "Available KV cache memory"
        if needle in text:
            rows.append(cap.check(case, models))
    return {"logs": logs, "capacity_rows": rows}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: PYTHONPATH=src python scripts/explain_golden.py PATH  (PATH: where the JSON record goes)",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT / "src"))
    text = json.dumps(record(), sort_keys=True, indent=1, ensure_ascii=False, default=repr)
    Path(argv[0]).write_text(text.replace(str(ROOT), "<ROOT>") + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
