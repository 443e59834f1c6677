"""No module of ``src/tpkit/explain`` or ``src/tpkit/logs`` imports another module's private name (one home per
concept: the owner makes the name public, or the concept moves to its one reader).  Rounds tidy30 (explain) and
tidy31 (logs) started these checks; ``PRIVATE_IMPORTS_LEFT`` lists the ones still to go, by package, and only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"

PRIVATE_IMPORTS_LEFT = {
    "explain": set(),
    "logs": {("logs/failures.py", "tpkit.logs.phases", "_LOAD_OOM")},
}
"""package → private imports still to go: ``logs.failures`` reads ``phases._LOAD_OOM`` (logs/failures.py was helper
cr31's in session 31, so tidy31 left it)"""


def _private_imports(path: Path) -> list[tuple[str, str, str]]:
    rel = path.relative_to(SRC).as_posix()
    own = "tpkit." + rel.removesuffix(".py").replace("/", ".")
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module != own:
            out += [(rel, node.module, a.name) for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
    return out


@pytest.mark.parametrize("package", sorted(PRIVATE_IMPORTS_LEFT))
def test_no_module_imports_another_modules_private_name(package):
    left = PRIVATE_IMPORTS_LEFT[package]
    found = {i for path in sorted((SRC / package).rglob("*.py")) for i in _private_imports(path)}
    assert found - left == set(), "import the owner's public name (or move the concept)"
    assert left <= found, "a listed private import is gone: drop it from PRIVATE_IMPORTS_LEFT"
