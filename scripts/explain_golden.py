"""A golden record of ``tpkit explain`` over the explain corpus, for behaviour-preserving refactors of the explain
layer.

For every log under tests/logs/data (sorted by path), ``tpkit explain LOG --json`` is run in-process through the
CLI's own ``main`` (argument parsing, flag checks, the JSON writer): once bare, and, where
tests/logs/data/models.json names the log, once more with the ``--model`` and plan flags it gives (as
scripts/explain_capacity_check.py passes them), that second run also as text (the renderer).  Each run keeps its
exit status, stdout and stderr.  The rows of scripts/explain_capacity_check.py (``--json``) are added, and the
diagnosis of every log's anchors (the bare run's) under each failure of ``FAILURES`` (one per phase and kind the
diagnoses tell apart), so branches of the diagnoses no corpus log reaches are recorded too.  The whole record is
written as one canonical JSON (sorted keys, this checkout's path replaced by ``<ROOT>``) to PATH; two records of
unchanged behaviour are byte-identical (``cmp A B``).

    PYTHONPATH=src python scripts/explain_golden.py PATH
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/: cli_inproc
from cli_inproc import run_tpkit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"


def _capacity_module():
    """scripts/explain_capacity_check.py, loaded as a module (its flag helpers and its ``check``)."""
    path = ROOT / "scripts" / "explain_capacity_check.py"
    spec = importlib.util.spec_from_file_location("explain_capacity_check", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _run(argv: list[str]) -> dict:
    """``tpkit`` ``argv`` in this interpreter: exit status, stdout and stderr (a JSON stdout parsed)."""
    rc, text, err = run_tpkit(argv)
    stdout = json.loads(text) if "--json" in argv and rc == 0 else text
    return {"argv": argv, "rc": rc, "stdout": stdout, "stderr": err}


def _size(gib: float):
    from tpkit.logs.printed import PrintedSize
    from tpkit.units import Bytes

    return PrintedSize(value=Bytes(round(gib * 2**30)), text=f"{gib:.2f} GiB", unit_word="GiB", divisor_bytes=2**30,
                       rounding=Bytes(2**30 // 200), meaning="synthetic")


def _count(n: int):
    from tpkit.logs.printed import PrintedCount

    return PrintedCount(value=n, text=f"{n:,}", rounding=0, meaning="synthetic")


FAILURES = (
    ("imbalance", "imbalance", "", {"pre_model_load_memory": 60.0, "local_gpu_memory": 75.0}, {}),
    ("kv_budget_non_positive", "kv_pool", "", {}, {}),
    ("cuda_oom", "kv_pool", "", {"requested": 2.0, "free": 0.5, "total": 80.0}, {}),
    ("cuda_oom", "weights", "", {"requested": 2.0, "free": 0.5, "process_in_use": 40.0}, {}),
    ("cuda_oom", "weights", "", {}, {}),
    ("cuda_oom", "cuda_graph", "", {"requested": 2.0, "free": 0.5, "graph_pools": 3.0}, {}),
    ("cuda_oom", "cuda_graph", "profile_cudagraph_memory", {"requested": 2.0, "free": 0.5}, {}),
    ("cuda_oom", "first_request", "", {"requested": 2.0, "free": 0.5}, {}),
    ("kv_too_small", "kv_pool", "", {"needed": 12.0, "available": 4.0}, {"max_model_len": 131072,
                                                                         "estimated_max_len": 40000}),
    ("kv_too_small", "kv_pool", "", {}, {"max_model_len": 32768, "kv_tokens": 9000}),
    ("startup_free_memory", "startup", "", {"free": 30.0, "total": 80.0, "requested": 72.0}, {}),
    ("unknown_error", "load", "", {}, {}),
)
"""(kind, phase, phase evidence, sizes in GiB, counts) of the synthetic failures each log's anchors are diagnosed
under"""


def _diagnoses(data: bytes) -> list | None:
    """The bare run's diagnosis under each of ``FAILURES`` (its own failures replaced), None when nothing is
    anchored."""
    from dataclasses import replace

    from tpkit.explain import explain_log
    from tpkit.logs.failures import Failure
    from tpkit.logs.prefix import RankKey

    e = explain_log(data)
    engine = e.context.engine
    if e.anchored is None or engine not in ("sglang", "vllm"):
        return None
    if engine == "sglang":
        from tpkit.explain.sgdiagnose import diagnose_sglang as diagnose
    else:
        from tpkit.explain.vdiagnose import diagnose_vllm as diagnose
    out = []
    for kind, phase, why, sizes, counts in FAILURES:
        failure = Failure(kind=kind, severity="error", phase=phase, phase_evidence=why, rank=RankKey(label="main"),
                          line_no=1, evidence=f"synthetic {kind} in phase {phase}",
                          sizes=tuple((n, _size(v)) for n, v in sizes.items()),
                          counts=tuple((n, _count(v)) for n, v in counts.items()))
        out.append(diagnose(replace(e.parsed, failures=(failure,)), e.anchored, e.context).to_dict())
    return out


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
        runs["diagnoses"] = _diagnoses(path.read_bytes())
        logs[rel] = runs
    return {"logs": logs, "capacity_rows": cap.capacity_rows()}


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
