"""Every engine flag tpkit prints for the user, checked against the release's parser (helper fix22, session 22).

Runs the emitters in-process: `tpkit explain LOG` (text and --json) on every crash log of tests/logs/data/cases.json,
and a grid of `tpkit perf` / `tpkit plan` runs with --engine-version; collects each ``--flag`` the output names
outside a ``tpkit ...`` command and checks it with ``tpkit.engines.cliflags.accepts`` against the release (explain:
the version explain read, else the corpus record's; perf/plan: --engine-version).

Usage: scripts/emitted_flags_check.py [--list]    (last line: "flags checked: ok/checked, mismatches M")
"""

from __future__ import annotations

import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

from tpkit.engines import cliflags  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # scripts/: cli_inproc
from cli_inproc import run_tpkit  # noqa: E402

DATA = os.path.join(ROOT, "tests", "logs", "data")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# a tpkit command written out for the user: its flags are tpkit's
_TPKIT_CMD = re.compile(r"tpkit (?:plan|perf|explain|bench|probe)\b[^\n`'\"]*")
# "looked for ... --context-length" lines name what explain searched the log for, not something to type
_QUOTE_LINES = re.compile(r"looked for[^\n]*|missing:[^\n]*|evidence:[^\n]*")
# a plain "vLLM 0.6.5 has no --x (first in 0.8.2; ...)" names the flag the release lacks: not one to type
_HAS_NO = re.compile(r"has no --[a-z0-9-]+(?: \((?:[^()]|\([^()]*\))*\))?")

PERF_MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3")
PLAN_MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3",
               "openai/gpt-oss-120b", "Qwen/Qwen3-Next-80B-A3B-Instruct", "google/gemma-3-27b-it",
               "Qwen/Qwen3-VL-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct")
VERSIONS = {
    "sglang": ("0.4.6", "0.5.1", "0.5.6", "0.5.10", "0.5.15", "0.5.20", "0.5.23"),
    "vllm": ("0.6.5", "0.7.3", "0.8.5", "0.9.2", "0.10.2", "0.11.0", "0.13.0", "0.17.1", "0.19.1", "0.25.0", "0.34.0"),
}


def run(argv: list[str]) -> str:
    _, out, err = run_tpkit(argv)
    return out + "\n" + err


# JSON parts that quote the log or list what was searched for: not something to type
_QUOTED_KEYS = {"engine_evidence", "evidence", "missing", "printed", "line", "claim", "sources"}
# tpkit explain's own options (the re-plan inputs: "pass --model ..."), outside the diagnosis' fixes
EXPLAIN_OWN = {"--rank", "--model", "--engine", "--gpu", "--gpu-memory", "--json", "--engine-version"}


def _strings(obj, key=None):
    if key in _QUOTED_KEYS:
        return
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, key)


def emitted_flags(text: str, own: frozenset = frozenset()) -> set:
    """The ``--flag`` words of ``text`` (a JSON document or the text report) outside tpkit commands, quotes of the
    log and 'looked for' lists; ``own``: the command's own options, left out."""
    texts = [text]
    if text.lstrip().startswith("{"):
        try:
            texts = list(_strings(json.loads(text[text.find("{"):text.rfind("}") + 1])))
        except ValueError:
            pass
    found = set()
    for t in texts:
        t = re.sub(r"\s+", " ", _QUOTE_LINES.sub(" ", _TPKIT_CMD.sub(" ", t)))  # the text report wraps lines
        t = _HAS_NO.sub(" ", t)
        found.update(f for f in _FLAG.findall(t) if f not in own)
    return found


def fix_flags(out: str) -> tuple[set, set]:
    """(flags, flags said plainly missing) of explain --json's ``diagnosis.fixes``: every flag of a fix is an engine
    flag to restart with, unless the fix's note says plainly that the release has no such flag."""
    try:
        doc = json.loads(out[out.find("{"):out.rfind("}") + 1])
    except ValueError:
        return set(), set()
    flags, plain = set(), set()
    for fix in (doc.get("diagnosis") or {}).get("fixes") or []:
        for f in _FLAG.findall(fix.get("flags") or ""):
            (plain if f"has no {f}" in (fix.get("note") or "") else flags).add(f)
    return flags, plain


def explain_runs():
    """(label, engine, release, output, own flags) for `tpkit explain` (text and --json) of every crash log."""
    cases = json.load(open(os.path.join(DATA, "cases.json"), encoding="utf-8"))
    for c in cases:
        if c["status"] == "ok":
            continue
        path = os.path.join(DATA, c["file"])
        for extra in ([], ["--json"]):
            out = run(["explain", path, *extra])
            version = None
            if extra:
                try:
                    version = json.loads(out[out.find("{"):out.rfind("}") + 1]).get("engine_version")
                except ValueError:
                    pass
            yield (f"explain {c['id']}{' --json' if extra else ''}", c["engine"],
                   c.get("engine_version") or version, out, EXPLAIN_OWN)


def grid_runs(versions_by_engine: dict | None = None, perf_models=PERF_MODELS, plan_models=PLAN_MODELS):
    """(label, engine, release, output, own flags) for a grid of `tpkit perf` / `tpkit plan` runs."""
    for engine, versions in (versions_by_engine or VERSIONS).items():
        for v in versions:
            for model in perf_models:
                spec = (["--speculative-algorithm", "EAGLE3"] if model.startswith("meta") else
                        ["--speculative-algorithm", "NEXTN"] if "DeepSeek" in model else [])
                for tp in ("1", "8"):
                    for extra in ([], ["--batch", "64"], spec, [*spec, "--batch", "32", "--json"]):
                        argv = ["perf", model, "--gpu", "H100", "--tp", tp, "--engine", engine, "--engine-version", v,
                                *extra]
                        yield " ".join(argv), engine, v, run(argv), frozenset()
            for model in plan_models:
                for tp in ("1", "8"):
                    for extra in ([], ["--json"]):
                        argv = ["plan", model, "--gpu", "H100", "--tp", tp, "--engine", engine, "--engine-version", v,
                                *extra]
                        yield " ".join(argv), engine, v, run(argv), frozenset()


def check(runs) -> tuple[int, int, list, set]:
    """(ok, checked, mismatches [(run, engine, release, flag, why)], flags that are tpkit's own).  A fix flag that the
    fix's note says plainly the release lacks counts as right (the brief's "say plainly ... what to do instead")."""
    ok = checked = 0
    bad, own = [], set()
    for label, engine, version, out, own_flags in runs:
        fixes, plain = fix_flags(out) if label.startswith("explain") else (set(), set())
        ok += len(plain)
        checked += len(plain)
        for flag in sorted((emitted_flags(out, own_flags) | fixes) - plain):
            if not any(cliflags.accepts(engine, flag, r) for r in cliflags.releases_checked(engine)):
                if flag in fixes:
                    checked += 1
                    bad.append((label, engine, version, flag, "no release of the engine parses it"))
                else:
                    own.add((engine, flag))
                continue
            verdict = cliflags.accepts(engine, flag, version)
            if verdict is None:
                continue
            checked += 1
            if verdict:
                ok += 1
            else:
                bad.append((label, engine, version, flag, "this release does not parse it"))
    return ok, checked, bad, own


def sites(root: str = os.path.join(ROOT, "src", "tpkit")) -> list:
    """(module, line, flag) for every engine flag written in a string of src/tpkit that is not a docstring, an
    ``add_argument`` name (tpkit's own parser) or a log pattern (``re.compile``): the static list of emitters."""
    import ast

    union = cliflags.known_flags("vllm") | cliflags.known_flags("sglang")
    out = []
    for dirpath, _dirs, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            tree = ast.parse(open(path, encoding="utf-8").read())
            skip = set()
            for node in ast.walk(tree):
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                        body[0].value, ast.Constant):
                    skip.add(id(body[0].value))
                if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                        "add_argument", "compile", "search", "match", "findall", "finditer"):
                    for a in ast.walk(node):
                        skip.add(id(a))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                    for f in sorted(set(_FLAG.findall(node.value)) & union):
                        out.append((os.path.relpath(path, os.path.join(root, "..")), node.lineno, f))
    return sorted(set(out))


def main(argv) -> int:
    if "--sites" in argv:
        for s in sites():
            print(*s)
        return 0
    runs = list(explain_runs()) + list(grid_runs())
    ok, checked, bad, own = check(runs)
    if "--list" in argv:
        for b in bad:
            print("MISMATCH", *b)
        for u in sorted(own):
            print("TPKIT-OWN", *u)
    print(f"runs {len(runs)}; flags checked: {ok}/{checked}, mismatches {len(bad)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
