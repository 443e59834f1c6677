"""From whatever the user pasted to clean text: decoding, line ends, colour codes.

Everything here runs over the whole log once, in C-speed ``str`` methods or one regex substitution,
and only when the log needs it (no ESC byte → no ANSI pass).
"""

from __future__ import annotations

import re

from tpkit.logs.recovered import join_wrapped_frames

__all__ = ["prepare", "decode", "normalise", "clean_line", "unquote_markdown", "strip_wrappers", "last_start",
           "starts_read", "MAX_LINE_CHARS"]

MAX_LINE_CHARS = 1 << 20
"""Longest line read in full; longer lines are clipped (the rest is reported in ``notes``)."""

_ANSI = re.compile(
    r"\x1b\[[0-?]{0,32}[ -/]{0,8}[@-~]"          # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?"  # OSC: titles, links
    r"|\x1b[@-Z\\-_]"                    # other two-byte escapes
    r"|\^\[\[[0-9;]{0,32}[A-Za-z]"       # escapes pasted as caret text: ^[[0;36m
)
_BARE_SGR = re.compile(r"\[[0-9]{1,3}(?:;[0-9]{1,3}){0,8}m")
"""colour codes whose ESC byte was lost in a copy-paste: ``[0;36m(VllmWorker …)[0m``"""


def prepare(data: bytes | bytearray | str) -> tuple[str, bytes | None, tuple[str, ...]]:
    """(clean text, its exact UTF-8 bytes or None, notes): decoding and line ends in one step.

    The bytes come back only when they encode the text exactly (valid UTF-8, no BOM other than UTF-8's):
    the scanner builds its line templates from them without encoding the text again.
    """
    if isinstance(data, str) or bytes(data[:2]) in (b"\xff\xfe", b"\xfe\xff"):
        text, decode_notes = decode(data)
        text, norm_notes = normalise(text)
        text, wrapper_notes = strip_wrappers(text)
        return text, None, decode_notes + norm_notes + wrapper_notes
    raw = bytes(data)
    raw = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    notes: list[str] = []
    if b"\r" in raw:
        raw, cr_notes = _line_ends(raw)
        notes += cr_notes
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"")
        notes.append("NUL characters removed")
    raw, wrapper_notes = strip_wrappers(raw)
    raw, wrap_notes = join_wrapped_frames(raw)
    notes += wrapper_notes + wrap_notes
    try:
        return raw.decode("utf-8"), raw, tuple(notes)
    except UnicodeDecodeError:
        text, decode_notes = decode(raw)
        return text, None, decode_notes + tuple(notes)


_SGR = r"(?:\x1b\[[0-9;]{0,32}m)*"
_WRAPPERS = (
    ("docker compose's service prefix ('NAME  | ')",
     _SGR + r"[A-Za-z0-9][\w.-]{0,62} {1,40}" + _SGR + r"\|" + _SGR + r"(?: |$)"),
    ("kubectl logs --prefix ('[pod/NAME/CONTAINER] ')", _SGR + r"\[pod/[^\]\s]{1,253}\] "),
    ("journalctl's prefix ('MON DD HH:MM:SS HOST UNIT[PID]: ')",
     r"(?:[A-Z][a-z]{2} [ 0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9]"
     r"|[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9](?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)"
     r" [\w.-]{1,64} [\w.@/-]{1,64}(?:\[[0-9]{1,9}\])?: "),
    ("the time stamps of docker / kubectl logs --timestamps",
     r"[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9](?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2}) "),
)
"""Prefixes that a log collector writes before every line of the server's own output (``docker compose logs``,
``kubectl logs --prefix``, ``journalctl``, ``docker logs -t`` / ``kubectl logs --timestamps``; in this order, since
they combine that way: ``svc-1  | 2026-…Z INFO …``).  The engines' record headers are read after them: with the
prefix left on, a header anchored at the line start ('(EngineCore pid=', SGLang's '[HH:MM:SS TPn]') was missed
and a continuation line (a traceback) read as a record of its own."""
_WRAPPER_RES = tuple((what, re.compile("(?m)^" + pattern), re.compile(("(?m)^" + pattern).encode()))
                     for what, pattern in _WRAPPERS)
_WRAPPER_SAMPLE_LINES = 2000
"""lines from the start of the log that decide whether a prefix wraps it"""


def strip_wrappers(text: str | bytes) -> tuple[str | bytes, tuple[str, ...]]:
    """The log without a collector's line prefix, when every non-empty line of the first 2,000 carries it, or at
    least half of them and at least 3; the line count is unchanged, so line numbers still point into the user's file.  A log
    that interleaves several services keeps every service's lines (each prefix is removed)."""
    notes: list[str] = []
    for what, pattern_str, pattern_bytes in _WRAPPER_RES:
        pattern = pattern_bytes if isinstance(text, bytes) else pattern_str
        newline = b"\n" if isinstance(text, bytes) else "\n"
        head_end = -1
        for _ in range(_WRAPPER_SAMPLE_LINES):
            head_end = text.find(newline, head_end + 1)
            if head_end < 0:
                head_end = len(text)
                break
        head = text[:head_end]
        lines = sum(1 for line in head.split(newline) if line.strip())
        hits = len(pattern.findall(head))
        if hits and (hits == lines or (hits >= 3 and 2 * hits >= lines)):
            text, count = pattern.subn(b"" if isinstance(text, bytes) else "", text)
            notes.append(f"{what} removed from {count:,} line(s)")
    return text, tuple(notes)


_REDRAWN = re.compile(r"(?m)^[^\n\r]*\r[^\n]*")
_TRAILING_CR = re.compile(r"\r+(?=\n|\Z)")
_RECORD = re.compile(r"\b(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\b|^\s*\[20[0-9]{2}-[^\]]*\] ?\S")
"""a log record (a level word, or SGLang's ``[2026-… TP0] text``): a progress bar, or the bare process tag vLLM
writes before one (``(EngineCore pid=203) \\rLoading …``), has none"""
_REDRAWN_B = re.compile(_REDRAWN.pattern.encode())
_TRAILING_CR_B = re.compile(_TRAILING_CR.pattern.encode())
_RECORD_B = re.compile(_RECORD.pattern.encode())


def _line_ends(text):
    """(text with Unix line ends, notes), for ``str`` or ``bytes``.  CRLF is a line end.  A bare CR inside a line is a
    progress bar redrawing itself (tqdm: ``\\rLoading … 25%\\rLoading … 50%``): the line is read as a terminal shows
    it, its last state, so the line numbers stay the file's (what ``grep -n`` and ``sed -n`` count); a redrawn part
    that is a log record (a level word or an engine's record header) is kept as a line of its own.  A text with CRs
    and no LF at all (old Mac line ends) reads every CR as a line end."""
    is_str = isinstance(text, str)
    cr, lf = ("\r", "\n") if is_str else (b"\r", b"\n")
    redrawn, trailing, record = (_REDRAWN, _TRAILING_CR, _RECORD) if is_str else (_REDRAWN_B, _TRAILING_CR_B, _RECORD_B)
    if lf not in text:
        return text.replace(cr, lf), ("CR line ends read as line breaks",)
    notes = []
    if cr + lf in text:
        text = text.replace(cr + lf, lf)
        notes.append("CRLF line ends read as line breaks")
    text = trailing.sub(text[:0], text)
    split = [0]

    def last_state(m):
        parts = [p for p in m.group(0).split(cr) if p.strip()]
        kept = [p for p in parts[:-1] if record.search(p)] + parts[-1:]
        split[0] += len(kept) > 1
        return lf.join(kept)

    text, count = redrawn.subn(last_state, text)
    if count:
        notes.append(f"{count:,} line(s) redrawn with a bare CR (progress bars) read as a terminal shows them, their "
                     "last state" + (f"; {split[0]:,} of them also held log records, read as lines of their own (line "
                                     "numbers after them run ahead of the file's)" if split[0] else ""))
    return text, tuple(notes)


def decode(data: bytes | bytearray | str) -> tuple[str, tuple[str, ...]]:
    """Text of a log and notes on what decoding had to repair (never raises)."""
    if isinstance(data, str):
        return data, ()
    raw = bytes(data)
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", "replace"), ("decoded as UTF-16 (byte-order mark)",)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), ()
    except UnicodeDecodeError as err:
        text = raw.decode("utf-8", "replace")
        bad = text.count("\ufffd")
        return text, (f"{bad} byte(s) that are not UTF-8 replaced by U+FFFD (first at byte {err.start})",)


def normalise(text: str) -> tuple[str, tuple[str, ...]]:
    """Unix line ends and no NUL bytes; notes say what was changed (colour codes: :func:`clean_line`)."""
    notes: list[str] = []
    if "\r" in text:
        text, cr_notes = _line_ends(text)
        notes += cr_notes
    if "\x00" in text:
        text = text.replace("\x00", "")
        notes.append("NUL characters removed")
    text, wrap_notes = join_wrapped_frames(text)
    return text, tuple(notes) + wrap_notes


_QUOTE = re.compile(r" {0,3}>(?: {0,4}>){0,15} ?")
"""markdown's blockquote markers at a line's start (``> ``, nested ``> > ``)"""


def unquote_markdown(line: str) -> str:
    """A line of a log pasted into markdown (a GitHub issue, a README, notes) without the blockquote markers before
    it (``> INFO … GPU KV cache size: …``): no SGLang / vLLM record starts with ``>``, and a shell's continuation
    prompt (``> --tp 8``) goes the same way.  Inline-code backticks are dropped where a memory line is read
    (``rules.apply_rules``), not here: around a command they end it (`` `vllm serve` without … ``)."""
    if line.startswith((">", " >", "  >", "   >")):
        line = _QUOTE.sub("", line, count=1)
    return line


def clean_line(line: str) -> tuple[str, int]:
    """A line without colour codes (ESC-based, ``^[[`` caret text, or bare ``[0;36m``), and how many went; and
    without markdown's blockquote markers (:func:`unquote_markdown`, not counted).

    Done per line read, not over the whole log: most lines of a big log are never read.
    """
    line = unquote_markdown(line)
    count = 0
    if "\x1b" in line or "^[[" in line:
        line, n = _ANSI.subn("", line)
        count += n
    if "m" in line and "[" in line:
        line, n = _BARE_SGR.subn("", line)
        count += n
    return line, count


# --- several engine starts in one file -------------------------------------------------------------------------------

_MARK = re.compile(r"(?P<sglang>server_args=ServerArgs\()|(?P<api>vLLM API server version|█ +version)[: ]*v?(?P<v>[\w.+-]*)"
                   r"|(?P<args>non-default args:)|Initializing an? (?:V1 )?LLM engine \(v?(?P<init>[^)\s]*)\)")
_RAN = re.compile(r"(?m)^[^\n]*(?:\[20[0-9]{2}-[^\]\n]* (?:TP|DP|PP|EP|CP)[0-9]+[^\]\n]*\]|Traceback)")
"""a line that shows a launch went past its server-args dump: an SGLang scheduler's record (``[2026-… TP0] …``) or a
traceback"""
_PROCESS = re.compile(r"\((?P<name>[A-Za-z_][\w]*)(?: [^)]*)?\)")


def _process(text: str, start: int) -> str:
    """The process tag before the marker on its line (``EngineCore_DP1`` of ``(EngineCore_DP1 pid=7) INFO …``)."""
    head = text[text.rfind("\n", 0, start) + 1:start]
    m = _PROCESS.search(head)
    return m.group("name") if m else ""


_MARK_LITERALS = ("server_args=ServerArgs(", "vLLM API server version", "\u2588", "non-default args:", "LLM engine (")
"""a literal inside each of ``_MARK``'s alternatives: ``str.find`` on them picks the few lines the regex must read"""


def _marks(text: str):
    """``_MARK``'s matches in order, the regex run only on the lines that hold one of its literals (a regex of five
    alternatives tried at every offset of a 100 MB log took seconds; the literal scan is linear and fast)."""
    spans = set()
    for literal in _MARK_LITERALS:
        at = text.find(literal)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            spans.add((start, end))
            at = text.find(literal, end)
    for start, end in sorted(spans):
        yield from _MARK.finditer(text, start, end)


def _same_start(text: str, previous: int, line: int) -> bool:
    from tpkit.logs.restarts import same_start  # a second opening line only (cold start)

    return same_start(text, previous, line)


def _starts(text: str) -> tuple[list[int], list[str]]:
    """(offsets of the lines that open a start, the engine of each: "SGLang" or "vLLM")."""
    opened: list[int] = []
    engines: list[str] = []
    engine, version, seen, last_dump, last_end = None, None, set(), None, 0
    for m in _marks(text):
        line = text.rfind("\n", 0, m.start()) + 1
        if m.group("sglang"):
            end = text.find("\n", m.start())
            dump = text[m.start():end if end >= 0 else len(text)]
            if not (engine == "sglang" and dump == last_dump and not _RAN.search(text, last_end, line)):
                opened.append(line)
                engines.append("SGLang")
            engine, version, seen, last_dump, last_end = "sglang", None, set(), dump, m.end()
            continue
        kind = "api" if m.group("api") else "args" if m.group("args") else "core:" + _process(text, m.start())
        printed = (m.group("v") if m.group("api") else m.group("init")) or None
        core_seen = any(k.startswith("core:") for k in seen)
        api_seen = any(not k.startswith("core:") for k in seen)
        sibling = kind.startswith("core:") and api_seen
        new = (engine != "vllm" or (kind in seen and not sibling) or (version and printed and printed != version)
               or (not kind.startswith("core:") and core_seen))
        if new and opened and engine == "vllm" and _same_start(text, opened[-1], line):
            new, seen = False, set()  # the same start pasted again (logs.restarts)
        if new:
            opened.append(line)
            engines.append("vLLM")
            engine, version, seen = "vllm", None, set()
        seen.add(kind)
        version = printed or version
    return opened, engines


def last_start(text: str) -> tuple[str, tuple[str, ...]]:
    """(the text with every line before the last start blanked, notes); the text unchanged with one start or none.

    A log that holds several engine starts: keep the last one.

    ``docker logs`` of a container that restarted, a file appended to by every start (``>> server.log``) or two runs
    pasted one after the other hold more than one start.  Read as one, their numbers mix: the version of one start,
    the flags of another, a crash of the first beside the KV cache of the second.  The server that runs now is the last
    start, so only its lines are read; the lines before it are blanked (line numbers stay the file's) and a note says
    which starts were found and how to read an earlier one.

    A start opens at a line that each engine prints once per launch (SGLang's offline ``sgl.Engine`` logs its dump
    twice, in ``Engine.__init__`` and in ``_launch_subprocesses``, sglang 0.5.23 ``srt/entrypoints/engine.py``: the
    same dump again, with no scheduler record or traceback between, is the same launch):

        SGLang   ``server_args=ServerArgs(``                       launch_server, before it starts its processes
        vLLM     the banner's ``█  version X`` line,               the API server, once each (also with
                 ``vLLM API server version X``, ``non-default      --api-server-count), before any engine core starts
                 args:``
        vLLM     ``Initializing a V1 LLM engine (vX)`` /           each engine core; with data parallelism each DP rank
                 ``Initializing an LLM engine (vX)``               prints one (``EngineCore_DP0``, ``EngineCore_DP1`` …)

    An API-server line opens a new start when the current start already holds a line of its kind or an engine-core
    line; an engine-core line, when its process name was already seen in a start that holds no API-server line (the
    same core again: an offline ``LLM(...)`` run twice), its version differs from the current start's, or the current
    start is the other engine's.  Under an API server a repeated core name is a sibling, not a restart: Ray's data
    parallel backend prefixes every rank's core with the same ``(DPEngineCoreActor pid=N)`` (vLLM V1
    ``vllm/v1/engine/core.py`` ``DPEngineCoreActor``, 0.10 on), and a restarted server prints its API-server lines
    again before its cores.  None of the
    581 corpus logs (tests/logs/data) holds two starts by this rule (tests/cli/test_newcomer_session21.py).
    """
    opened, engines = _starts(text)
    if len(opened) < 2:
        return text, ()
    lines, line, at = [], 1, 0
    for offset in opened:  # counted from the previous start, not from the top: linear in the log however many starts
        line += text.count("\n", at, offset)
        lines.append(line)
        at = offset
    cut = opened[-1]
    shown = ", ".join(str(n) for n in lines[:8]) + (", …" if len(lines) > 8 else "")
    note = (f"{_STARTS_HEAD} {len(lines)} engine starts (lines {shown}): only the last one, from line {lines[-1]}, "
            f"is read (the server that runs now); to explain an earlier start, pass its part of the log alone"
            + (f"; the starts are of both engines ({', '.join(f'{e} from line {n}' for e, n in zip(engines, lines))}"
               f"): the one read is {engines[-1]}'s" if len(set(engines)) > 1 else ""))
    from tpkit.logs.restarts import command_lines  # several starts only (cold start)

    kept = command_lines(text, opened[-2], cut)  # the last run's own command, printed before it (logs.restarts)
    if kept is None:
        return "\n" * text.count("\n", 0, cut) + text[cut:], (note,)
    note += (f"; the launch command at line {text.count(chr(10), 0, kept[0]) + 1}, printed after the previous start, "
             "is read with it")
    return ("\n" * text.count("\n", 0, kept[0]) + text[kept[0]:kept[1]] + "\n" * text.count("\n", kept[1], cut)
            + text[cut:], (note,))


_STARTS_HEAD = "the log holds"
_STARTS_NOTE = re.compile(re.escape(_STARTS_HEAD) + r" (?P<count>[0-9]+) engine starts \(lines (?P<lines>[^)]*)\)")


def starts_read(notes) -> tuple[int, str]:
    """(how many engine starts the log holds, the first lines of the starts as the note lists them) from
    :func:`last_start`'s note among a parse's ``notes``; (1, "") without it."""
    for note in notes:
        m = _STARTS_NOTE.match(note)
        if m:
            return int(m.group("count")), m.group("lines")
    return 1, ""
