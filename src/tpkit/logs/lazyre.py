"""Regular expressions compiled on first use.

Compiling the log rules' ~130 patterns took about a tenth of a cold ``tpkit explain`` (issue 12), yet a log uses
only the few whose needle or engine it has: ``lazy(pattern, flags)`` stands for ``re.compile(pattern, flags)``
and compiles at the first attribute read (``.search``, ``.findall``, ``.groups`` …); each attribute read is then
kept on the object, so later reads cost a plain attribute look-up.  Pass it only where a compiled pattern's
methods are called, never to ``re.search(pattern, …)`` and the like (they take ``str`` or ``re.Pattern``).
"""

from __future__ import annotations

import re

__all__ = ["lazy", "LazyPattern"]


class LazyPattern:
    """``re.compile(pattern, flags)``, deferred to the first attribute read."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "_args":  # protocols (copy, pickle) see a plain object
            raise AttributeError(name)
        value = getattr(re.compile(*self._args), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazy({self._args[0]!r})"


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """A pattern compiled when first used."""
    return LazyPattern(pattern, flags)
