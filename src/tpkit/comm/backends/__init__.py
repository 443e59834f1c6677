"""All-reduce backends (torch/triton); each ``start(...)`` allocates everything at init.

A backend object has ``name``, ``capacity`` (largest message as ``Bytes``, None = any), ``run(x, out)``
(flat contiguous tensors; ``out`` may be ``x`` for in place; graph-capturable), ``ledger_lines()``.
``start_backend`` imports the module of the backend's ``comm.registry`` row and calls its ``start``;
it raises :class:`BackendUnavailable` with the reason when a backend cannot start.
"""

from __future__ import annotations

import importlib

import tpkit.comm.registry as registry
from tpkit.units import Bytes

__all__ = ["BackendUnavailable", "start_backend"]


class BackendUnavailable(Exception):
    """A backend that cannot start in this group; ``str(exc)`` is the reason."""


def start_backend(name: str, group, *, max_bytes: Bytes, device, **options):
    """Start backend ``name`` on ``group`` (collective for symmetric-memory backends)."""
    if name not in registry.ROWS:
        raise BackendUnavailable(f"unknown backend {name!r}; known: {', '.join(registry.names())}")
    module_name = registry.ROWS[name].module
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BackendUnavailable(f"cannot import {module_name}: {exc}") from None
    return module.start(name, group, max_bytes=max_bytes, device=device, **options)
