"""A log that holds several engine starts: keep the last one.

``docker logs`` of a container that restarted, a file appended to by every start (``>> server.log``) or two runs
pasted one after the other hold more than one start.  Read as one, their numbers mix: the version of one start,
the flags of another, a crash of the first beside the KV cache of the second.  The server that runs now is the last
start, so only its lines are read; the lines before it are blanked (line numbers stay the file's) and a note says
which starts were found and how to read an earlier one.

A start opens at a line that each engine prints once per launch:

    SGLang   ``server_args=ServerArgs(``                       launch_server, before it starts its processes
    vLLM     the banner's ``█  version X`` line,               the API server, once each (also with
             ``vLLM API server version X``, ``non-default      --api-server-count), before any engine core starts
             args:``
    vLLM     ``Initializing a V1 LLM engine (vX)`` /           each engine core; with data parallelism each DP rank
             ``Initializing an LLM engine (vX)``               prints one (``EngineCore_DP0``, ``EngineCore_DP1`` …)

An API-server line opens a new start when the current start already holds a line of its kind or an engine-core
line; an engine-core line, when its process name was already seen in the current start (the same core again: a
restart), its version differs from the current start's, or the current start is the other engine's.  None of the
581 corpus logs (tests/logs/data) holds two starts by this rule (tests/logs/test_log_starts.py).
"""

from __future__ import annotations

import re

__all__ = ["last_start"]

_MARK = re.compile(r"(?P<sglang>server_args=ServerArgs\()|(?P<api>vLLM API server version|█ +version)[: ]*v?(?P<v>[\w.+-]*)"
                   r"|(?P<args>non-default args:)|Initializing an? (?:V1 )?LLM engine \(v?(?P<init>[^)\s]*)\)")
_PROCESS = re.compile(r"\((?P<name>[A-Za-z_][\w]*)(?: [^)]*)?\)")


def _process(text: str, start: int) -> str:
    """The process tag before the marker on its line (``EngineCore_DP1`` of ``(EngineCore_DP1 pid=7) INFO …``)."""
    head = text[text.rfind("\n", 0, start) + 1:start]
    m = _PROCESS.search(head)
    return m.group("name") if m else ""


def _starts(text: str) -> list[int]:
    """Offsets of the lines that open a start."""
    opened: list[int] = []
    engine, version, seen = None, None, set()
    for m in _MARK.finditer(text):
        line = text.rfind("\n", 0, m.start()) + 1
        if m.group("sglang"):
            opened.append(line)
            engine, version, seen = "sglang", None, set()
            continue
        kind = "api" if m.group("api") else "args" if m.group("args") else "core:" + _process(text, m.start())
        printed = (m.group("v") if m.group("api") else m.group("init")) or None
        core_seen = any(k.startswith("core:") for k in seen)
        new = (engine != "vllm" or kind in seen or (version and printed and printed != version)
               or (not kind.startswith("core:") and core_seen))
        if new:
            opened.append(line)
            engine, version, seen = "vllm", None, set()
        seen.add(kind)
        version = printed or version
    return opened


def last_start(text: str) -> tuple[str, tuple[str, ...]]:
    """(the text with every line before the last start blanked, notes); the text unchanged with one start or none."""
    opened = _starts(text)
    if len(opened) < 2:
        return text, ()
    lines = [text.count("\n", 0, offset) + 1 for offset in opened]
    cut = opened[-1]
    shown = ", ".join(str(n) for n in lines[:8]) + (", …" if len(lines) > 8 else "")
    note = (f"the log holds {len(lines)} engine starts (lines {shown}): only the last one, from line {lines[-1]}, "
            f"is read (the server that runs now); to explain an earlier start, pass its part of the log alone")
    return "\n" * text.count("\n", 0, cut) + text[cut:], (note,)
