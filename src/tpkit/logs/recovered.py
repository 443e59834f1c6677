"""What a paste, a wrapper or a child process hides in a log, read back (round ex34, docs/accuracy.md §7.3).

**Hard-wrapped traceback frame lines** (``join_wrapped_frames``; vllm#29360).  Python writes each frame on one line,
``  File "{filename}", line {lineno}, in {name}`` (CPython ``Lib/traceback.py``, ``StackSummary.format_frame_summary``,
3.8–3.13).  A line that ends inside the opening quote of ``File "`` while the next line holds exactly the rest
(``or/multiproc_executor.py", line 810, in worker_busy_loop``, no quote before it) was cut at a fixed column,
mid-word.  The two pieces are joined with nothing between them (a column wrap inserts no character) onto the first
line and the second is left blank, so every later line keeps its number in the file (as ``text._line_ends`` keeps
them).  A continuation that opens its own ``File "`` or has a quote before ``", line`` is another record: not joined.

**An exception re-logged above a cut traceback** (``relogged_exception``; ai-dynamo/dynamo#1229).  vLLM V0's engine
process ends ``run_mp_engine`` with ``except BaseException as e: logger.exception(e)`` (engine/multiprocessing/engine.py,
0.8.5 wheel, line 448): the record's message is ``str(e)`` and the formatter appends the traceback being handled
(CPython ``Logger.exception`` → ``exc_info=True`` → ``Formatter.formatException``) after the message's continuation
lines.  An exception line with no traceback of its own (the end of an earlier print), then a record repeating its
text, then a traceback cut before its end: the error is that exception line.  Nothing else is inferred: the record
must quote at least ``_MIN_TEXT`` characters of the exception's message, within ``_REACH`` lines of the traceback.

**A native build's error lines** (``build_notices``, ``first_build_error``; QwenLM/Qwen3-VL#1267).  Triton and torch
inductor build C launchers and kernels with the system compiler while vLLM profiles or warms the model; the compiler
is a child process writing to the engine's stderr, so its errors are bare lines above the Python traceback that
follows.  The linker's lines have fixed shapes: GNU ld's ``<ld path>: cannot find -l<name>`` (binutils ``ld``) and
GCC's ``collect2: error: ld returned <status> exit status`` (GCC ``collect2``).  Such a line is a ``warning`` of kind
``exception`` (alone it is not the engine's failure); a start failure whose traceback is cut names the first one
logged before it, the tool's own message, which the driver's summary follows (``failures.cut_header``).
"""

from __future__ import annotations

import re

__all__ = ["join_wrapped_frames", "relogged_exception", "BUILD_NEEDLES", "build_notices", "first_build_error"]

_WRAPPED = re.compile(r'(?m)(File "[^"\n]{1,1000})\n([^"\n]{1,1000}", line \d{1,7}, in [\w<>.]{1,200})$')
"""a frame line cut inside its path, and its continuation; anchored on the literal 'File "' rather than on every
line start, so the search skips ahead to each frame (the text before it on the line is kept as it is)"""
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


_REACH = 12
"""lines between the exception line and the cut traceback's first line: the record and its continuation lines (CUDA's
error adds three: 'CUDA kernel errors might be asynchronously reported …')"""
_MIN_TEXT = 12


def relogged_exception(orphans, tb_start: int, log: str, line_start) -> tuple | None:
    """The ``(line_no, rank, text)`` of ``orphans`` (exception lines with no traceback of their own) that a record
    between it and the traceback starting at ``tb_start`` repeats; ``line_start(n)``: line ``n``'s offset in ``log``."""

    def line_text(number: int) -> str:
        start = line_start(number)
        return "" if start is None else log[start:log.find("\n", start) % (len(log) + 1)]

    for line_no, rank, text in reversed(orphans):
        if not 0 < tb_start - line_no <= _REACH:
            continue
        message = text.partition(": ")[2].strip()
        if len(message) >= _MIN_TEXT and any(message in line_text(n) for n in range(line_no + 1, tb_start)):
            return line_no, rank, text
    return None


BUILD_NEEDLES = ("collect2: error: ", "ld: cannot find ")
_BUILD_ERROR = re.compile(r"(?:^|\s)((?:collect2: error: |\S{0,200}\bld: cannot find )[^\n]{1,200})")
_PREFIX = "native build error: "


def build_notices(message: str) -> list[tuple]:
    """(kind, severity, sizes, counts, detail) for a linker / compiler-driver error line."""
    if not any(n in message for n in BUILD_NEEDLES):
        return []
    m = _BUILD_ERROR.search(message)
    return [("exception", "warning", (), (), _PREFIX + m.group(1).strip())] if m else []


def first_build_error(warnings) -> str | None:
    """The detail of the first build-error warning among ``warnings`` (Failure records), without its prefix."""
    found = [w.detail[len(_PREFIX):] for w in warnings if w.kind == "exception" and w.detail.startswith(_PREFIX)]
    return found[0] if found else None
