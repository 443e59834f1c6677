"""Which lines of a log with several engine starts belong to the last one (round fx37, issue 12; the start rule is
``logs.text.last_start``).

Two rules, one per way a text comes to hold more than one start:

- **The same start pasted twice.**  A bug report often quotes the top of a log and then the whole of it (the
  ``docker logs CONTAINER`` output under the lines already shown): the start's opening line and the lines the first
  copy holds come back verbatim, time stamps included, and the second copy goes on.  A restarted server prints its
  lines again at a later time (a start-up takes seconds at least), so such a partial copy is the same launch read
  again, not a new start (vllm#10034: vLLM's 'vLLM API server version X' twice at the same 03:21:18).
- **The command of a later run.**  Two runs pasted one after the other (a crash, then a retry with other flags) show
  each run's launch command above its log.  The command printed after the previous start opened and before the last
  start is the last run's own — an engine prints no launch command of its own inside a start (SGLang / vLLM's
  records quoting a launcher, a warning or a usage line, are no command: ``logs.command.is_command``) — so its
  lines are kept when the earlier starts are blanked, and the last start is judged with its flags, as it would be
  had it been pasted alone (vllm#16141: a V1 crash, then the retry under ``-e VLLM_USE_V1=0``).  A command above the first start stays with the first start (blanked), as does a
  restart that shows no new command (``docker logs`` of a container that restarted: the log shows no command at all).
"""

from __future__ import annotations

import re

__all__ = ["same_start", "command_lines"]

_TIME = re.compile(r"\b\d{1,2}:\d\d:\d\d\b")
_MAX_LINES = 120
"""the most continuation lines a kept command may span (``logs.scan``'s joined-command bound)"""


def _line_at(text: str, offset: int) -> str:
    end = text.find("\n", offset)
    return text[offset:len(text) if end < 0 else end]


def same_start(text: str, previous: int, line: int) -> bool:
    """Whether the opening line at offset ``line`` starts the same text again as the one at ``previous``: the line
    repeated time stamp and all, the lines between the two (less trailing lines with no time of day, such as the
    shell prompt of the ``docker logs`` that printed the rest) repeated right after it, and the second copy going on
    past them — a partial copy, then the whole.  A block repeated whole (the same lines, then another opening line or
    the end) is read as a restart, as before."""
    here = _line_at(text, line).strip()
    if not here or _TIME.search(here) is None or here != _line_at(text, previous).strip():
        return False
    first = text[previous:line].rstrip("\n").split("\n")
    while first and _TIME.search(first[-1]) is None:
        first.pop()
    stop = line
    for _ in range(len(first) + 1):  # the copy's lines and the one after, not the rest of the log (linear per start)
        stop = text.find("\n", stop) + 1 or len(text)
    after = text[line:stop].split("\n")
    if len(after) <= len(first) or [a.strip() for a in after[:len(first)]] != [f.strip() for f in first]:
        return False
    rest = after[len(first)].split("\n", 1)[0].strip()
    return bool(rest) and rest != here


def command_lines(text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """(start, end) offsets of the last launch command between offsets ``lo`` and ``hi`` (the previous start's
    opening line and the last start's), its backslash-continued lines included; None where there is none."""
    from tpkit.logs.command import is_command  # (the raw line: logs.text, which calls this, cleans no colour here)

    lines, at = [], lo
    while at < hi:
        end = text.find("\n", at, hi)
        end = hi if end < 0 else end
        lines.append((at, end))
        at = end + 1
    found = next((i for i in range(len(lines) - 1, -1, -1)
                  if is_command(text[lines[i][0]:lines[i][1]])), None)
    if found is None:
        return None
    first = last = found
    while first > 0 and found - first < _MAX_LINES and text[lines[first - 1][0]:lines[first - 1][1]].rstrip() \
            .endswith("\\"):
        first -= 1
    while last + 1 < len(lines) and last - found < _MAX_LINES and text[lines[last][0]:lines[last][1]].rstrip() \
            .endswith("\\"):
        last += 1
    return lines[first][0], lines[last][1]
