"""`tpkit explain` against `tpkit plan --from-log` over the whole corpus (docs/accuracy.md §7, issues 11 and 12).

For every log of tests/logs/data/cases.json (sglang/, vllm/, validation/), explained as
scripts/explain_capacity_check.py runs it (``--model`` from tests/logs/data/models.json, the source's flags):

1. round trip: each fix of ``diagnosis.fixes`` whose ``flags`` are command-line flags is re-planned in-process as a
   user would type it, ``tpkit plan MODEL --from-log LOG <the source's flags> <the fix's flags>``, and the plan's KV
   tokens and verdict are compared with the fix's ``kv_tokens`` and ``fits``.  Tokens match when equal or within the
   rounding the explanation states (the width of its rebuilt range, at least one page / block); a fix that states no
   tokens is compared on ``fits`` alone.  Outcomes: ``match``; ``advice`` (the fix is an action, not flags: "free the
   other process's memory …"); ``refused`` (the plan stops with a user error that names an input neither the log nor
   the flags give: no model config, no GPU); ``mismatch``; ``error`` (anything else the plan raises: a bug);
2. the ``--json`` schema (``SCHEMA_KEYS`` and their types; ``status`` in {ok, failed}, ``phase`` one of
   ``logs.failures.PHASES`` or null); on a log with several ranks, ``--rank`` with each rank's label gives that
   rank; ``tpkit explain -`` (standard input) reads the same bytes as the file, and prints the same JSON (compared
   whole on every ``WHOLE_CLI_EVERY``-th log);
3. the ledger adds up: every identity its rows state (``LEDGER_SUMS``) holds within the print rounding.

    PYTHONPATH=src python scripts/explain_roundtrip_check.py [--json] [--all]

The last line is the summary; ``--all`` lists every fix, not only those that do not match.
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_inproc import PipedStdin, run_tpkit  # noqa: E402
from explain_capacity_check import DATA, ROOT, cli_flags, flag_argv, model_flag, model_map, source_flags  # noqa: E402
from tpkit.explain.diagnose import SUGGESTION as SUGGESTION_WORDS  # noqa: E402

SCHEMA_KEYS = {
    "engine": (str, type(None)), "engine_version": (str, type(None)), "kv_tokens": dict, "ledger": list,
    "diagnosis": dict, "missing": list,
}
"""the top-level keys issue 12 names, with their JSON types"""
KV_KEYS = {"printed": (int, type(None)), "predicted": (int, type(None))}
DIAGNOSIS_KEYS = {"status": str, "phase": (str, type(None)), "cause": str, "fixes": list}
FIX_KEYS = {"flags": str, "kv_tokens": (int, type(None)), "fits": bool}

ROUNDING = 0.005 * 2**30
"""one printed GiB figure's rounding (two decimals): ± 5 MiB"""

LEDGER_SUMS = (
    # (total, [(+1 | -1, item, required), ...]): total = Σ sign × item, each item the first ledger row whose name
    # starts so; an item not required counts 0 where the ledger has no such row
    ("CUDA context + process", [(+1, "device total", True), (-1, "pre_model_load_memory", True),
                                (-1, "distributed init", False), (-1, "torch stream pool", False),
                                (-1, "expert-location metadata's first kernels", False),
                                (-1, "DeepGEMM's cuBLASLt workspace", False)]),
    ("free when the KV budget is sampled", [(+1, "free after weights", True), (-1, "RoPE cache pre-expansion", True)]),
    ("req_to_token + pool metadata", [(+1, "free after weights", True), (-1, "KV pool", True),
                                      (-1, "state pool", False), (-1, "free after the pools", True)]),
    ("non-KV memory (residual)", [(+1, "requested memory", True), (-1, "available KV cache memory", True),
                                  (-1, "CUDA-graph estimate", False)]),
)
"""the sums the SGLang and vLLM ledgers state in their rows' meanings (``explain.sglang``, ``explain.sgpool``,
``explain.vllm``); a vLLM CUDA-graph estimate counts only where the ledger says it was applied (subtracted before
the KV cache was sized)"""


SUGGESTION = SUGGESTION_WORDS + ": "
"""the note with which ``tpkit explain`` offers a fix it does not call a fit (``explain.diagnose.unshown``, round
cr33c; its words from ``explain.diagnose.SUGGESTION``, their one home)"""


def _parser():
    from tpkit.cli import build_parser

    return build_parser(["plan"])


def _is_flags(text: str) -> bool:
    """Whether a fix's ``flags`` are command-line flags a user can paste (not an action in words, not a
    placeholder such as 'N/2 (half the captured max)')."""
    try:
        words = shlex.split(text)
    except ValueError:
        return False
    return bool(words) and words[0].startswith("--") and all(
        w.startswith("--") or not any(c in w for c in "()<>/ ") for w in words)


def _tolerance(e) -> int:
    """The token rounding the explanation states: the width of its rebuilt range, at least one page / block."""
    a = e.anchored
    step = int(getattr(a, "page", None) or getattr(a, "block_size", None) or 1)
    rng = e.kv_predicted_range
    return max(step, (rng[1] - rng[0]) if rng else 0)


def explained(case: dict, models: dict):
    """(explanation, the model flag, the source's flags as the map writes them) of one log, as the capacity check
    runs it (with its capacity lines)."""
    from tpkit.explain import explain_log

    entry = models.get(case["id"]) or {}
    given = source_flags(entry)
    flags = cli_flags(given)
    model = model_flag(entry)
    if model:
        flags["model"] = model
    return explain_log((DATA / case["file"]).read_bytes(), flags=flags), model, given


def roundtrip(case: dict, e, model: str | None, given: dict, parser=None) -> list[dict]:
    """One row per fix of ``e``: the plan ``plan --from-log`` makes of it and the outcome."""
    from tpkit.cli.plan import plan
    from tpkit.errors import PlanInputError
    from tpkit.hardware.npu import NpuNotPlannedError

    parser = parser or _parser()
    path = str(DATA / case["file"])
    tolerance = _tolerance(e)
    rows = []
    for fix in e.diagnosis.fixes:
        row = {"id": case["id"], "flags": fix.flags, "kv_tokens": fix.kv_tokens, "fits": fix.fits,
               "plan_kv_tokens": None, "plan_fits": None, "outcome": "", "why": ""}
        rows.append(row)
        if not _is_flags(fix.flags):
            row.update(outcome="advice", why="an action in words, not flags")
            continue
        argv = ["plan", *([model] if model else []), "--from-log", path, *flag_argv(given), *shlex.split(fix.flags)]
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                result = plan(parser.parse_args(argv))
        except SystemExit as exc:
            row.update(outcome="error", why=f"argparse exit {exc.code}: the flags do not parse")
            continue
        except PlanInputError as exc:
            text = str(exc)
            # ex22: a release the planner does not model (SGLang < 0.2.15: sg_518's 0.2.9) is an input it refuses too
            named = ("no GPU given" in text or "prints no model" in text or "neither on this machine" in text
                     or "releases before" in text)
            row.update(outcome="refused" if named else "error", why=text[:200])
            continue
        except NpuNotPlannedError as exc:  # helper np37: an Ascend NPU's log, refused by design (hardware.npu)
            row.update(outcome="refused", why=str(exc)[:200])
            continue
        except Exception as exc:  # noqa: BLE001 - any other failure of the plan is the bug this check looks for
            row.update(outcome="error", why=f"{type(exc).__name__}: {str(exc)[:200]}")
            continue
        kv, fits = int(result.kv_tokens), bool(result.verdict.fits)
        row.update(plan_kv_tokens=kv, plan_fits=fits)
        same_tokens = fix.kv_tokens is None or abs(kv - fix.kv_tokens) <= tolerance
        if same_tokens and fits == fix.fits:
            row["outcome"] = "match"
        elif same_tokens and not fix.fits and fix.note.startswith(SUGGESTION):
            # helper cr33c: explain offers the fix as a suggestion (a rule of thumb or an input the log does not
            # print, ``explain.voom.unshown``): it claims neither a fit nor a failure, so only its tokens compare
            row.update(outcome="suggestion", why=f"explain's suggestion; the plan: fits {fits}")
        else:
            row.update(outcome="mismatch", why=(f"tokens {fix.kv_tokens} vs {kv} (± {tolerance})" if not same_tokens
                                                else "") + ("" if fits == fix.fits else
                                                            f"{'; ' if not same_tokens else ''}fits {fix.fits} vs {fits}"))
    return rows


def _typed(d: dict, keys: dict, where: str) -> list[str]:
    errors = []
    for key, kind in keys.items():
        if key not in d:
            errors.append(f"{where}: no key {key!r}")
        elif not isinstance(d[key], kind) or (kind is int and isinstance(d[key], bool)):
            errors.append(f"{where}.{key}: {type(d[key]).__name__} {d[key]!r:.60}")
    return errors


def schema_errors(d: dict) -> list[str]:
    """What the ``--json`` object lacks of the issue's schema (empty when it has it all)."""
    from tpkit.logs.failures import PHASES

    errors = _typed(d, SCHEMA_KEYS, "explain")
    if errors:
        return errors
    errors += _typed(d["kv_tokens"], KV_KEYS, "kv_tokens")
    errors += _typed(d["diagnosis"], DIAGNOSIS_KEYS, "diagnosis")
    if errors:
        return errors
    diagnosis = d["diagnosis"]
    if diagnosis["status"] not in ("ok", "failed"):
        errors.append(f"diagnosis.status {diagnosis['status']!r}")
    if diagnosis["phase"] is not None and diagnosis["phase"] not in PHASES:
        errors.append(f"diagnosis.phase {diagnosis['phase']!r}")
    if diagnosis["status"] == "ok" and diagnosis["phase"] is not None:
        errors.append(f"diagnosis.phase {diagnosis['phase']!r} on a run that did not fail")
    for i, fix in enumerate(diagnosis["fixes"]):
        errors += _typed(fix, FIX_KEYS, f"diagnosis.fixes[{i}]") if isinstance(fix, dict) else [f"fixes[{i}]"]
    for i, row in enumerate(d["ledger"]):
        if not isinstance(row, dict) or not isinstance(row.get("item"), str) or "bytes" not in row:
            errors.append(f"ledger[{i}]: {row!r:.80}")
    if not all(isinstance(m, str) for m in d["missing"]):
        errors.append("missing: not all strings")
    return errors


def ledger_errors(e) -> list[str]:
    """The sums of ``LEDGER_SUMS`` the explanation's ledger states and does not add up to (within the rounding of
    the printed numbers in them)."""
    rows = [r for r in e.rows if r.value is not None]

    def find(name: str):
        return next((r for r in rows if r.item.startswith(name)), None)

    errors = []
    for total_name, parts in LEDGER_SUMS:
        total = find(total_name)
        if total is None:
            continue
        items = []
        for sign, name, required in parts:
            row = find(name)
            if row is not None and name == "CUDA-graph estimate" and ", applied:" not in row.meaning:
                row = None  # measured, not subtracted before the KV cache was sized (explain.vpeak)
            if row is None and required:
                break
            if row is not None:
                items.append((sign, row))
        else:
            total_b = total.value.mid.bytes
            summed = sum(s * r.value.mid.bytes for s, r in items)
            slack = ROUNDING * (1 + sum(r.kind == "printed" for _, r in items)) + 2**20
            if abs(summed - total_b) > slack:
                errors.append(f"{total.item} {total_b:,} B ≠ " + " ".join(
                    f"{'+' if s > 0 else '−'} {r.item}" for s, r in items)
                    + f" = {summed:,} B (off by {summed - total_b:+,} B)")
    return errors


def rank_errors(case: dict, e, model: str | None) -> list[str]:
    """``--rank LABEL`` for each rank of a log with several: the explanation is of that rank and keeps the schema."""
    from tpkit.explain import explain_log

    labels = []
    for r in e.parsed.ranks:
        if r.label not in labels and any(a.rank.label == r.label for a in e.parsed.anchors):
            labels.append(r.label)
    if len(labels) < 2:
        return []
    data = (DATA / case["file"]).read_bytes()
    errors = []
    for label in labels:
        got = explain_log(data, rank=label, flags={"model": model} if model else None)
        if got.rank != label:
            errors.append(f"--rank {label!r} explained rank {got.rank!r}")
        errors += [f"--rank {label}: {x}" for x in schema_errors(got.to_dict())]
    return errors


def _cli_json(argv: list[str], stdin: bytes | None = None) -> str:
    return run_tpkit(argv, stdin=stdin)[1]


def stdin_errors(case: dict, *, whole: bool = True) -> list[str]:
    """``tpkit explain -`` with the log on standard input reads the bytes ``tpkit explain LOG`` reads (every log);
    with ``whole``, the two ``--json`` outputs are compared as well (the CLI end to end)."""
    from tpkit.cli.explain import read_log

    path = DATA / case["file"]
    saved = sys.stdin
    try:
        sys.stdin = PipedStdin(path.read_bytes())
        piped = read_log("-")
    finally:
        sys.stdin = saved
    if piped != read_log(str(path)):
        return ["explain - (stdin) reads other bytes than explain LOG"]
    if not whole:
        return []
    from_file = _cli_json(["explain", str(path), "--json"])
    from_stdin = _cli_json(["explain", "-", "--json"], stdin=path.read_bytes())
    if not from_file.strip():
        return ["explain LOG --json printed nothing"]
    return [] if from_file == from_stdin else ["explain - (stdin) differs from explain LOG"]


WHOLE_CLI_EVERY = 8
"""``explain -`` and ``explain LOG`` are compared by their whole ``--json`` output on every 8th log (and by the
bytes read on every log): the CLI twice per log was 25 of the check's 50 s"""


def check_all(cases: list[dict] | None = None) -> dict:
    """Every check on every log: {"fixes": [row, …], "logs": [{id, schema, ledger, rank, stdin}, …]}."""
    cases = cases if cases is not None else json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
    models = model_map()
    parser = _parser()
    fixes, logs = [], []
    for n, case in enumerate(cases):
        e, model, given = explained(case, models)
        fixes += roundtrip(case, e, model, given, parser)
        logs.append({"id": case["id"], "schema": schema_errors(e.to_dict()), "ledger": ledger_errors(e),
                     "rank": rank_errors(case, e, model),
                     "stdin": stdin_errors(case, whole=n % WHOLE_CLI_EVERY == 0),
                     "ranks": len({r.label for r in e.parsed.ranks})})
    return {"fixes": fixes, "logs": logs}


def summary(report: dict) -> str:
    from collections import Counter

    outcomes = Counter(r["outcome"] for r in report["fixes"])
    logs = report["logs"]
    with_fixes = len({r["id"] for r in report["fixes"]})
    bad = {k: sum(bool(x[k]) for x in logs) for k in ("schema", "ledger", "rank", "stdin")}
    ranked = sum(x["ranks"] > 1 for x in logs)
    replanned = outcomes["match"] + outcomes["mismatch"]
    return (f"{len(logs)} logs, {len(report['fixes'])} fixes in {with_fixes}; round trip: {outcomes['match']}/"
            f"{replanned} re-planned fixes match (mismatch {outcomes['mismatch']}), suggestions {outcomes['suggestion']}, "
            f"advice {outcomes['advice']}, "
            f"refused for a missing input {outcomes['refused']}, errors {outcomes['error']}; schema failures "
            f"{bad['schema']}, ledger sums off {bad['ledger']}, --rank failures {bad['rank']} ({ranked} logs with "
            f"several ranks), stdin differs {bad['stdin']}")


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    report = check_all()
    if "--json" in argv:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for row in report["fixes"]:
            if "--all" in argv or row["outcome"] in ("mismatch", "error"):
                print(f"{row['id']:<22} {row['outcome']:<9} {row['flags'][:48]:<48} explain {row['kv_tokens']}/"
                      f"{row['fits']}  plan {row['plan_kv_tokens']}/{row['plan_fits']}  {row['why']}")
        for log in report["logs"]:
            for key in ("schema", "ledger", "rank", "stdin"):
                for err in log[key]:
                    print(f"{log['id']:<22} {key:<9} {err}")
    print(summary(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
