"""A package's public names imported from their modules on first use (PEP 562 module ``__getattr__``).

Each package that keeps ``import`` cheap (``tpkit``, ``memory``, ``startup``, ``engines.sglang``, ``engines.vllm``)
maps its public names to the modules that define them and takes its ``__getattr__`` from ``lazy_getattr``.
Imports nothing from tpkit (layer 0, beside ``errors``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, home: Mapping[str, str]) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package``: a name in ``home`` is read from ``package.<home[name]>`` (imported
    then); any other name raises ``AttributeError`` as Python's own message words it."""

    def __getattr__(name: str) -> object:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{home[name]}"), name)

    return __getattr__
