"""One home for loading a scripts/*.py file as a module in the tests (scripts/ is not a package).

    from tests.scripts_testlib import load_script
    check = load_script("explain_capacity_check")
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str, *, as_name: str | None = None, root: Path = ROOT) -> ModuleType:
    """``root``/scripts/``name``.py run as a fresh module, registered in ``sys.modules`` as ``as_name`` (default
    ``name``: a script's dataclasses and pickles look their module up there).  A distinct ``as_name`` keeps a second
    copy (a script loaded from a temporary copy of the repository) apart from the first."""
    module_name = as_name or name
    spec = importlib.util.spec_from_file_location(module_name, root / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
