"""No function in src/ grows past a ceiling (helper long22, 2026-12-06, session 22).

A function's length is ``end_lineno − lineno + 1`` of its ``def`` (``ast``; signature, docstring and body, the
decorators not counted), for every function: module level, nested and methods.  New code stays at ``CEILING``
lines or fewer; the functions that were longer on 2026-12-06 are listed in ``EXCEPTIONS`` at their length then and
may not grow.  The list only shrinks: once a listed function is split to ``CEILING`` lines or fewer its entry must
go, so the gain stays.  Session 22 split the nine functions of 75–88 lines (``plan_vllm``, perf's ``register``,
``extensible_relayout``, ``explain_parsed``, ``estimate_profile_peak``, ``lora_buffers``, ``plan_mamba_pool``,
``extensible_from_log``, ``extensible_pool``) into named steps of 60 lines or fewer.  Helper tidy29 (session 29)
split five listed ones: ``explain.replan.relayout`` (69 → 54: ``_scaled_weights``),
``engines.vllm.baseline.profile_nontorch_growth`` (65 → 51: ``_tp_group_growth``), ``perf.runtime.runtime_for``
(63 → 58: ``_sglang_runtime``), ``engines.vllm.pages.build_layout`` (62 → 52: ``_with_linear_pages``),
``engines.vllm.inputs.resolve_inputs`` (61 → 52: ``_refuse_newer_than_release``).  Helper tidy30 (session 30):
``engines.vllm.profile_lines.activation_lines`` (62 → 46: the V0 engine's terms, ``engines.vllm.v0_profile_lines``),
``explain.context.build_context`` (61 → 43: ``_tp_from_ranks_or_default``, ``_vllm_run_facts``) and
``engines.vllm.mixtral_v0.replay`` (61 → 47: ``_experts``), which empties the list.
"""

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"

CEILING = 60
"""lines a function of src/ may have"""

HARD_CEILING = 80
"""no function, listed or not, is longer (the task's ceiling; every listed one is below it)"""

EXCEPTIONS: dict[str, int] = {}
"""the functions longer than ``CEILING`` on 2026-12-06 (qualified name → lines then): none may grow; split one and
remove its entry"""


def _lengths(root: Path = SRC) -> dict[str, int]:
    """Qualified name (module path under tpkit, then class and enclosing functions) → lines, for every function."""
    out: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out[name] = max(out.get(name, 0), child.end_lineno - child.lineno + 1)
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        walk(ast.parse(path.read_text(encoding="utf-8")), module + "." if module else "")
    return out


@functools.cache
def _src_lengths() -> dict[str, int]:
    return _lengths()


def test_no_function_grows_past_the_ceiling():
    lengths = _src_lengths()
    assert len(lengths) > 2000  # the walk sees the whole package
    too_long = [f"{name}: {n} lines > {EXCEPTIONS.get(name, CEILING)}" for name, n in sorted(lengths.items())
                if n > EXCEPTIONS.get(name, CEILING)]
    assert not too_long, ("functions past their ceiling (split them into named steps; tests/core/"
                          "test_function_length.py):\n" + "\n".join(too_long))
    assert max(lengths.values()) <= HARD_CEILING


def test_the_exceptions_only_shrink():
    lengths = _src_lengths()
    gone = [name for name in EXCEPTIONS if name not in lengths]
    assert not gone, f"listed functions that no longer exist (remove them from EXCEPTIONS): {gone}"
    done = [f"{name}: {lengths[name]} lines" for name in EXCEPTIONS if lengths[name] <= CEILING]
    assert not done, f"listed functions now within {CEILING} lines (remove them from EXCEPTIONS): {done}"
    assert all(CEILING < n <= HARD_CEILING for n in EXCEPTIONS.values())


def test_the_count_sees_long_functions_methods_and_nested_ones(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("def top():\n    return 1\n")
    body = "\n".join(f"    x{i} = {i}" for i in range(70))
    (pkg / "sub" / "mod.py").write_text(
        f"class C:\n    def method(self):\n        pass\n\n\ndef outer():\n    def inner():\n{body.replace('    ', '        ')}\n"
        f"    return inner\n\n\n@decorated\ndef long():\n{body}\n")
    got = _lengths(pkg)
    assert got == {"top": 2, "sub.mod.C.method": 2, "sub.mod.outer": 73, "sub.mod.outer.inner": 71,
                   "sub.mod.long": 71}
