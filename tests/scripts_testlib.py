"""One home for loading a scripts/*.py or bench/*.py file as a module in the tests (neither folder is a package).

    from tests.scripts_testlib import load_script, import_bench
    check = load_script("explain_capacity_check")
    kps = import_bench("kimi_plain_step")
"""

from __future__ import annotations

import importlib
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


def import_bench(name: str, *, root: Path = ROOT) -> ModuleType:
    """``root``/bench/``name``.py imported by name, with ``src`` and ``bench`` on ``sys.path`` (bench scripts import
    tpkit and each other by plain name)."""
    for folder in ("src", "bench"):
        path = str(root / folder)
        if path not in sys.path:
            sys.path.insert(0, path)
    return importlib.import_module(name)
