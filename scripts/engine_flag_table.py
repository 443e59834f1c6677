"""Build src/tpkit/engines/data/cli_flags.json: the command-line flags each released vLLM / SGLang accepts.

Usage: scripts/engine_flag_table.py ROOT [ROOT ...]
  each ROOT holds unpacked wheels as ``v<version>/vllm/...`` (vLLM) or ``sg<version>/sglang/...`` (SGLang), made with
  ``pip download --no-deps vllm==X -d D && unzip -q D/*.whl 'vllm/engine/arg_utils.py' 'vllm/config*'
  'vllm/entrypoints/openai/cli_args.py'`` (SGLang: ``'sglang/srt/server_args.py' 'sglang/srt/arg_groups/*'``).

Facts only, read with ``ast`` (no engine code is imported or copied):
- every ``add_argument("--x", ...)`` string in vLLM ``vllm/engine/arg_utils.py`` + ``vllm/entrypoints/openai/
  cli_args.py`` and in SGLang ``sglang/srt/server_args.py`` + ``sglang/srt/arg_groups/**.py``;
- ``action=argparse.BooleanOptionalAction`` adds ``--no-x``; in vLLM releases whose ``_compute_kwargs`` gives every
  bool-typed field that action, a flag bound to ``**kwargs["field"]`` whose ``EngineArgs`` annotation holds ``bool``
  (not ``bool | str``) gets ``--no-x`` too;
- SGLang >= 0.5.20 declares flags as ``field: A[T, "help"]`` / ``A[T, Arg(...)]`` in ``arg_groups/fields``:
  ``--field-name`` (or ``Arg(cli_name=)``) plus ``Arg(aliases=)``, none for ``Arg(no_cli=True)``.
The table stores, per flag, the spans of checked releases that accept it ([first, last]; last = the newest checked
release that has it).
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "tpkit", "engines", "data", "cli_flags.json")


def _vt(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else -1 for x in re.findall(r"\d+|rc|post", v))


def _is_boa(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "BooleanOptionalAction" or (
        isinstance(node, ast.Name) and node.id == "BooleanOptionalAction")


def _ann_has_plain_bool(ann) -> bool:
    text = ast.unparse(ann) if ann is not None else ""
    return "bool" in text and "str" not in text


def _add_argument_flags(tree, bool_fields: dict | None, dynamic_boa: bool) -> set:
    flags = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                 and a.value.startswith("--")]
        if not names:
            continue
        flags.update(names)
        boa = any(k.arg == "action" and _is_boa(k.value) for k in node.keywords)
        if not boa and dynamic_boa and bool_fields is not None:
            for k in node.keywords:
                if k.arg is not None:
                    continue
                # ``**kw["field"]`` or ``**{**kw["field"], "default": None}``
                subs = [k.value] if isinstance(k.value, ast.Subscript) else [
                    v for key, v in zip(getattr(k.value, "keys", []), getattr(k.value, "values", []))
                    if key is None and isinstance(v, ast.Subscript)]
                for sub in subs:
                    if isinstance(sub.slice, ast.Constant) and bool_fields.get(sub.slice.value):
                        boa = True
        if boa:
            flags.update("--no-" + n[2:] for n in names)
    return flags


def vllm_flags(root: str) -> set:
    src = open(os.path.join(root, "vllm", "engine", "arg_utils.py"), encoding="utf-8").read()
    tree = ast.parse(src)
    bool_fields = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "EngineArgs":
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                    bool_fields[st.target.id] = _ann_has_plain_bool(st.annotation)
    dynamic = re.search(r'kwargs\[name\]\["action"\]\s*=\s*argparse\.BooleanOptionalAction', src) is not None
    flags = _add_argument_flags(tree, bool_fields, dynamic)
    cli = os.path.join(root, "vllm", "entrypoints", "openai", "cli_args.py")
    if os.path.isfile(cli):
        flags |= _add_argument_flags(ast.parse(open(cli, encoding="utf-8").read()), None, False)
    return flags


def _sglang_field_flags(tree) -> set:
    flags = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for st in node.body:
            if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                continue
            ann = st.annotation
            if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id in ("A", "Annotated")):
                continue
            parts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            meta = parts[1] if len(parts) > 1 else None
            if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
                flags.add("--" + st.target.id.replace("_", "-"))
                continue
            if not (isinstance(meta, ast.Call) and getattr(meta.func, "id", None) == "Arg"):
                continue
            kw = {k.arg: k.value for k in meta.keywords}
            if isinstance(kw.get("no_cli"), ast.Constant) and kw["no_cli"].value is True:
                continue
            name = kw["cli_name"].value if isinstance(kw.get("cli_name"), ast.Constant) else "--" + st.target.id.replace("_", "-")
            names = [name]
            if isinstance(kw.get("aliases"), (ast.List, ast.Tuple)):
                names += [e.value for e in kw["aliases"].elts if isinstance(e, ast.Constant)]
            flags.update(names)
            if "action" in kw and _is_boa(kw["action"]):
                flags.update("--no-" + n[2:] for n in names)
    return flags


def sglang_flags(root: str) -> set:
    srt = os.path.join(root, "sglang", "srt")
    files = [os.path.join(srt, "server_args.py")]
    groups = os.path.join(srt, "arg_groups")
    for dirpath, _dirs, names in os.walk(groups):
        files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".py")]
    flags = set()
    for f in files:
        tree = ast.parse(open(f, encoding="utf-8").read())
        flags |= _add_argument_flags(tree, None, False)
        flags |= _sglang_field_flags(tree)
    return flags


def spans(per_release: dict) -> dict:
    releases = sorted(per_release, key=_vt)
    out = {}
    for flag in sorted(set().union(*per_release.values())):
        runs, start, prev = [], None, None
        for r in releases:
            if flag in per_release[r]:
                start = start or r
                prev = r
            elif start:
                runs.append([start, prev])
                start = None
        if start:
            runs.append([start, prev])
        out[flag] = runs
    return out


def main(argv) -> int:
    found = {"vllm": {}, "sglang": {}}
    for root in argv:
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if "rc" in name or "dev" in name:
                continue
            if name.startswith("v") and os.path.isfile(os.path.join(path, "vllm", "engine", "arg_utils.py")):
                found["vllm"][name[1:]] = vllm_flags(path)
            elif name.startswith("sg") and os.path.isfile(os.path.join(path, "sglang", "srt", "server_args.py")):
                found["sglang"][name[2:]] = sglang_flags(path)
    table = {
        "_source": ("Released wheels (pip download --no-deps), read with scripts/engine_flag_table.py: vLLM "
                    "vllm/engine/arg_utils.py + vllm/entrypoints/openai/cli_args.py; SGLang sglang/srt/server_args.py"
                    " + sglang/srt/arg_groups/**.py. Per flag: spans [first, last] of the checked releases that accept it."),
    }
    for engine, per in found.items():
        table[engine] = {"releases": sorted(per, key=_vt), "flags": spans(per)}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as fh:
        json.dump(table, fh, indent=0, sort_keys=True)
        fh.write("\n")
    for engine, per in found.items():
        print(engine, len(per), "releases,", len(table[engine]["flags"]), "flags")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
