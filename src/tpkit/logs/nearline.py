"""The first line naming a marker near a given line: the reach check that places a cut traceback by a line vLLM logs
only on a running engine (``logs.enginedead``, ``logs.stepdump``)."""

from __future__ import annotations

__all__ = ["marker_near"]


def marker_near(text: str, needles: tuple[str, ...], line_no: int, reach: int) -> tuple[int, str] | None:
    """(line number, needle) of the first occurrence of a ``needles`` entry (tried in order) whose line lies within
    ``reach`` lines of ``line_no``; None when none does.  Lines are counted once, from one occurrence to the next."""
    for needle in needles:
        pos, at, counted = text.find(needle), 1, 0
        while pos >= 0:
            at += text.count("\n", counted, pos)
            counted = pos
            if abs(at - line_no) <= reach:
                return at, needle
            if at > line_no + reach:
                break
            pos = text.find(needle, pos + len(needle))
    return None
