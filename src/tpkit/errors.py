"""Errors tpkit raises for user mistakes.

    TpkitError                 base: a user-facing problem; the CLI prints it and exits 2
    ├── UnitError              a size string without or with a wrong unit (raised by tpkit.units)
    ├── ConfigError            a model config is missing, malformed or lacks a field
    ├── UnknownModelError      a model id found nowhere (path, HF cache, catalog)
    ├── UnknownGpuError        a GPU name not in the catalog (lists close matches)
    ├── PlanInputError         a flag value that cannot be planned (fraction ≤ 0, TP ∤ heads …)
    └── RuntimeSetupError      a runtime problem at start-up (imbalance, a rank died, no GPU …)

Every message says what was wrong, what was received and how to fix it. Internal
invariants use ``assert``; they are bugs, not user errors.

This is the bottom layer: it imports nothing from tpkit (``tpkit.units`` imports ``UnitError`` from here).
"""

from __future__ import annotations

__all__ = [
    "TpkitError",
    "UnitError",
    "ConfigError",
    "UnknownModelError",
    "UnknownGpuError",
    "PlanInputError",
    "RuntimeSetupError",
    "json_kind",
]


class TpkitError(Exception):
    """A problem with what the user asked for; printed without a traceback, exit code 2."""


class UnitError(TpkitError, ValueError):
    """A size string could not be read as a memory quantity."""


class ConfigError(TpkitError):
    """A model config is missing, unreadable, or lacks a field tpkit needs."""


class UnknownModelError(TpkitError):
    """A model id that is neither a path, nor in the local HF cache, nor in the catalog."""


class UnknownGpuError(TpkitError):
    """A GPU name that the catalog does not know."""


class PlanInputError(TpkitError):
    """A flag value that cannot be planned."""


class RuntimeSetupError(TpkitError):
    """A start-up problem on a real machine (memory imbalance, a rank that died, no GPU)."""


def is_user_error(exc: BaseException) -> bool:
    """True for errors that the CLI reports as a message with exit code 2."""
    return isinstance(exc, TpkitError)


def json_kind(value: object) -> str:
    """What a parsed JSON value is, in JSON's words, for a message: ``null``, ``an array``, ``a string``, ``a number``,
    ``true`` / ``false`` or ``an object`` (Python's ``NoneType`` / ``list`` / ``str`` mean little to a user who
    wrote the file)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
