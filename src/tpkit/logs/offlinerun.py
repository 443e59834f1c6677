"""A server command printed after an offline run's traceback is not that run's command (helper fx38, 2026-12-08,
issue 12; docs/accuracy.md §7.3 round fx38).

A bug report often shows two runs of one model: the offline ``LLM(...)`` script that failed, its traceback, and then
the ``vllm serve …`` command the writer also tried ("online serving works, but …", vllm#16111).  The reader used to
take every launch command in the text as the run's, so the failed offline run was judged with the server's
``--tensor-parallel-size 8`` while its own script asked for one GPU.

The rule: where the failure's traceback passes through vLLM's offline entry point — a frame in
``vllm/entrypoints/llm.py`` (the ``LLM`` class: ``__init__``, ``generate``, ``chat`` …; a ``vllm serve`` or
``python -m vllm.entrypoints.openai.api_server`` process never enters that module: it builds its engine in
``entrypoints/openai/api_server.py``, read in the 0.7.3, 0.11.0 and 0.30.0 wheels) — a server launch command printed
after that failure's line is another run, and its settings are not the failed run's.  A command printed before the
traceback, or any command where the frames do not show the offline entry point (the usual 'error, then my command'
report of a served run), is kept as before."""

from __future__ import annotations

import re

__all__ = ["OFFLINE_FRAME", "offline_failure_line", "drop_later_server_commands"]

OFFLINE_FRAME = re.compile(r"""File "[^"\n]{0,300}?vllm[\\/]entrypoints[\\/]llm\.py", line \d{1,6}, in \w{1,60}""")
"""a traceback frame in vLLM's offline ``LLM`` class (``vllm/entrypoints/llm.py``)"""
_SERVER = ("vllm serve", "vllm.entrypoints.openai", "vllm/vllm-openai")
"""the words of a server launch (``logs.command``'s launchers and the server image of ``docker run``)"""


def offline_failure_line(lines: list[str], failure_lines: list[int]) -> int | None:
    """The last failure line (1-based) whose traceback, read back from it to the traceback's opening line,
    holds a frame of vLLM's offline ``LLM`` class; None where none does."""
    for line_no in sorted(failure_lines, reverse=True):
        for i in range(min(line_no, len(lines)) - 1, max(-1, line_no - 400), -1):
            if "vllm" in lines[i] and OFFLINE_FRAME.search(lines[i]):
                return line_no
            if "Traceback (most recent call last)" in lines[i]:
                break
    return None


def drop_later_server_commands(settings: list, text: str, failure_lines: list[int]) -> list:
    """``settings`` less those of a server launch command printed after an offline run's failure
    (:func:`offline_failure_line`); unchanged where the failure is not an offline run's or no such command follows."""
    if "entrypoints" not in text or not any(s.source == "command_line" for s in settings):
        return settings
    failed = offline_failure_line(text.split("\n"), failure_lines)
    if failed is None:
        return settings
    return [s for s in settings if not (s.source == "command_line" and s.line_no > failed
                                        and any(w in (s.text or "") for w in _SERVER))]
