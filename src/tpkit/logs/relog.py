"""An exception re-logged by ``logger.exception(e)`` above a traceback cut before its exception line (round ex34:
ai-dynamo/dynamo#1229).

vLLM V0's engine process ends ``run_mp_engine`` with ``except BaseException as e: logger.exception(e)``
(engine/multiprocessing/engine.py, 0.8.5 wheel, line 448): the logging record's message is ``str(e)`` and the
formatter appends the traceback of the exception being handled (CPython ``logging.Logger.exception`` →
``exc_info=True`` → ``Formatter.formatException``), after the message's own continuation lines.  A paste that
shows the exception line (``RuntimeError: CUDA error: …``, the end of an earlier print of the same traceback), then
that record repeating its text, then a second traceback cut before its end, has printed the error: it is the
exception line whose text the record between them repeats.  Nothing else is inferred: the record must quote the
exception's message (at least ``_MIN_TEXT`` characters of it) within ``_REACH`` lines above the traceback."""

from __future__ import annotations

__all__ = ["relogged_exception"]

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
