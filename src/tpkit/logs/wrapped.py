"""Traceback frame lines a paste hard-wrapped, joined back (round ex34: vllm#29360).

Python writes each frame of a traceback on one line, ``  File "{filename}", line {lineno}, in {name}``
(CPython ``Lib/traceback.py``, ``StackSummary.format_frame_summary``, 3.8–3.13).  A line that ends inside the
opening quote of ``File "`` — the path's closing quote, line number and function are missing — while the next line
holds exactly that rest (``or/multiproc_executor.py", line 810, in worker_busy_loop``, no quote before it) was cut
by the terminal or the issue box at a fixed column, mid-word.  The reader joins the two pieces with nothing between
them (a column wrap inserts no character) onto the first line and leaves the second line blank, so every later line
keeps its number in the file (what ``grep -n`` and ``sed -n`` count, as ``text._line_ends`` keeps them).

Only that shape is joined: a continuation that itself opens a ``File "`` or carries a quote before ``", line`` is
another record, not the rest of a path.
"""

from __future__ import annotations

import re

__all__ = ["join_wrapped_frames"]

_WRAPPED = re.compile(r'(?m)^([^\n]{0,2000}File "[^"\n]{1,1000})\n([^"\n]{1,1000}", line \d{1,7}, in [\w<>.]{1,200})$')
_WRAPPED_B = re.compile(_WRAPPED.pattern.encode())


def join_wrapped_frames(text):
    """(text with each hard-wrapped frame line joined, notes) for ``str`` or ``bytes``; line numbers unchanged."""
    is_str = isinstance(text, str)
    if ('File "' if is_str else b'File "') not in text:
        return text, ()
    pattern, lf = (_WRAPPED, "\n") if is_str else (_WRAPPED_B, b"\n")
    text, count = pattern.subn(lambda m: m.group(1) + m.group(2) + lf, text)
    if not count:
        return text, ()
    return text, (f"{count:,} traceback frame line(s) wrapped mid-path by the paste joined back (the continuation "
                  "line left blank, so line numbers stay the file's)",)
