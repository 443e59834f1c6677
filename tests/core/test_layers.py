"""The layer rules of src/tpkit/README.md, enforced.

1. The planner path never imports torch (checked by importing it with torch blocked).
2. Imports point downwards only (checked on the source, module by module).
"""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"

PLANNER_MODULES = [
    "tpkit.units",
    "tpkit.errors",
    "tpkit.parallel",
    "tpkit.memory",
    "tpkit.hardware.gpu",
    "tpkit.hardware.machine",
    "tpkit.hardware.catalog",
    "tpkit.models",
    "tpkit.models.weights",
    "tpkit.engines.sglang",
    "tpkit.engines.vllm",
    "tpkit.comm.dispatch",
    "tpkit.comm.plan",
    "tpkit.cli",
    "tpkit.cli.plan",
]

# layer rank: a module may import tpkit modules of the same or a lower rank only
RANKS = {
    "units": 0, "errors": 1, "fileio": 1, "parallel": 2,
    "hardware": 3, "models": 3, "memory": 3,
    "engines": 4, "comm.dispatch": 4, "comm.env": 4, "comm.profile": 4, "comm.ledger": 4, "comm.topology": 4,
    "comm.plan": 4,
    "runtime": 5, "comm": 6, "cli": 7,
}
NO_TORCH_PREFIXES = ("units", "errors", "fileio", "parallel", "hardware", "models", "memory", "engines", "comm.dispatch",
                     "comm.plan")


def _layer(module: str) -> str | None:
    rel = module.removeprefix("tpkit.")
    best = None
    for key in RANKS:
        if rel == key or rel.startswith(key + "."):
            if best is None or len(key) > len(best):
                best = key
    return best


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        yield name, path


OUTSIDE_THE_LAYERS = {"tpkit", "tpkit.__main__"}
"""modules with no layer of their own: the package root (version, public API) and ``python -m tpkit``"""


def test_planner_modules_exist():
    """A renamed planner module must be renamed here too; it used to be dropped from the check silently."""
    missing = [m for m in PLANNER_MODULES if not (SRC.parent / (m.replace(".", "/") + ".py")).exists()
               and not (SRC.parent / m.replace(".", "/") / "__init__.py").exists()]
    assert missing == [], f"PLANNER_MODULES lists modules that do not exist: {missing}"


def test_planner_path_imports_without_torch():
    existing = list(PLANNER_MODULES)
    code = textwrap.dedent(
        f"""
        import sys, importlib.abc
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch.") or name in ("triton", "pynvml"):
                    raise ImportError("torch is blocked in this test: " + name)
        sys.meta_path.insert(0, Block())
        import importlib
        for m in {existing!r}:
            importlib.import_module(m)
        assert "torch" not in sys.modules
        print("ok", len({existing!r}))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=SRC.parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


@pytest.mark.parametrize("name, path", list(_modules()), ids=lambda x: str(x) if isinstance(x, str) else "")
def test_imports_point_downwards(name, path):
    own = _layer(name)
    if own is None:
        assert name in OUTSIDE_THE_LAYERS, f"{name} has no layer: add it to RANKS (or OUTSIDE_THE_LAYERS)"
        return
    tree = ast.parse(path.read_text())
    top_level_only = name.removeprefix("tpkit.").startswith(NO_TORCH_PREFIXES)
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom) and node.module:
            targets = [node.module]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        for target in targets:
            if target.split(".")[0] in ("torch", "triton") and top_level_only:
                pytest.fail(f"{name} imports {target}: the planner layers must not import torch")
            if not target.startswith("tpkit."):
                continue
            other = _layer(target)
            if other is None:
                assert target in OUTSIDE_THE_LAYERS, f"{name} imports {target}, which has no layer: add it to RANKS"
                continue
            assert RANKS[other] <= RANKS[own], f"{name} ({own}) imports {target} ({other}): upward import"
