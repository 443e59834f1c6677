"""Engine memory policies, one folder each (pure): ``sglang/``, ``vllm/``.

Each folder's ``engine.py`` defines ``ENGINE`` (``tpkit.engines.engine.Engine``: options + plan);
``tpkit.engines.registry`` finds them.  Start-up costs come from ``tpkit.startup``.

``release_tuple`` is the one reader of an engine's version text, which both folders' ``versions.parse_version`` use
(here, in the package both import anyway, so that no command imports one module more: tests/cli/test_cold_imports.py).
"""

from __future__ import annotations

import re

__all__ = ["release_tuple"]

_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[.\-+]?(?:rc|post|dev|a|b)?\d*.*)?$")


def release_tuple(text: str) -> tuple[int, int, int] | None:
    """``"0.5.23"`` → ``(0, 5, 23)``; ``"0.11"`` → ``(0, 11, 0)``; pre-, post- and development releases and a local
    label fold into their base release (``"0.5.0rc0"`` → ``(0, 5, 0)``, ``"0.4.9.post2"`` → ``(0, 4, 9)``,
    ``"0.10.1.dev101+gbda9d0535"`` → ``(0, 10, 1)``); None when ``text`` does not start with MAJOR.MINOR.  Each engine
    refuses an unreadable text in its own words."""
    m = _VERSION_RE.match(str(text))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None
