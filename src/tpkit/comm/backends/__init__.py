"""All-reduce backends (torch/triton); each ``start(...)`` allocates everything at init.

A backend object has ``name``, ``capacity`` (largest message in bytes, None = any), ``run(x, out)``
(flat contiguous tensors; ``out`` may be ``x`` for in place; graph-capturable), ``ledger_lines()``.
``start_backend`` raises :class:`BackendUnavailable` with the reason when a backend cannot start.
"""

from __future__ import annotations

import importlib

__all__ = ["BackendUnavailable", "start_backend", "MODULES"]

MODULES = {
    "nccl": "tpkit.comm.backends.nccl",
    "gloo": "tpkit.comm.backends.gloo",
    "symm_mem_one_shot": "tpkit.comm.backends.symm_mem",
    "symm_mem_two_shot": "tpkit.comm.backends.symm_mem",
    "one_shot": "tpkit.comm.backends.triton_push",
    "one_shot_pull": "tpkit.comm.backends.triton_oneshot",
    "two_shot": "tpkit.comm.backends.triton_twoshot",
}


class BackendUnavailable(Exception):
    """A backend that cannot start in this group; ``str(exc)`` is the reason."""


def start_backend(name: str, group, *, max_bytes: int, device, **options):
    """Start backend ``name`` on ``group`` (collective for symmetric-memory backends)."""
    if name not in MODULES:
        raise BackendUnavailable(f"unknown backend {name!r}; known: {', '.join(MODULES)}")
    try:
        module = importlib.import_module(MODULES[name])
    except ImportError as exc:
        raise BackendUnavailable(f"cannot import {MODULES[name]}: {exc}") from None
    return module.start(name, group, max_bytes=max_bytes, device=device, **options)
