"""The engines tpkit plans for: every folder ``engines/<name>/`` with an ``engine.py`` (found, not listed).

    engine_names() -> ("sglang", "vllm")        the default first, then by name
    get_engine("vllm") -> Engine                imports only that engine's ``engine.py``
"""

from __future__ import annotations

import importlib
import os
from functools import lru_cache

from tpkit.engines.engine import Engine
from tpkit.errors import PlanInputError

__all__ = ["DEFAULT_ENGINE", "engine_names", "get_engine", "all_engines"]

DEFAULT_ENGINE = "sglang"
"""the engine ``tpkit plan`` plans for without ``--engine``"""


@lru_cache(maxsize=1)
def engine_names() -> tuple[str, ...]:
    """Names of every engine package (the default first)."""
    import tpkit.engines as package

    found = sorted({entry.name for path in package.__path__ for entry in os.scandir(path)
                    if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "engine.py"))})
    return tuple(sorted(found, key=lambda n: n != DEFAULT_ENGINE))


def get_engine(name: str) -> Engine:
    """The engine called ``name``."""
    if name not in engine_names():
        raise PlanInputError(f"unknown engine {name!r}; tpkit plans for {', '.join(engine_names())}")
    engine = importlib.import_module(f"tpkit.engines.{name}.engine").ENGINE
    assert engine.name == name, f"engines/{name}/engine.py defines the engine {engine.name!r}"
    return engine


def all_engines() -> tuple[Engine, ...]:
    """Every engine, the default first."""
    return tuple(get_engine(n) for n in engine_names())
