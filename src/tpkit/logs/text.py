"""From whatever the user pasted to clean text: decoding, line ends, colour codes.

Everything here runs over the whole log once, in C-speed ``str`` methods or one regex substitution,
and only when the log needs it (no ESC byte → no ANSI pass).
"""

from __future__ import annotations

import re

__all__ = ["prepare", "decode", "normalise", "clean_line", "unquote_markdown", "strip_wrappers", "MAX_LINE_CHARS"]

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
    notes += wrapper_notes
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


_REDRAWN = re.compile(r"(?m)^(?:[^\r\n]*\r)+(?=[^\r\n])")
_TRAILING_CR = re.compile(r"\r+(?=\n|\Z)")
_REDRAWN_B = re.compile(_REDRAWN.pattern.encode())
_TRAILING_CR_B = re.compile(_TRAILING_CR.pattern.encode())


def _line_ends(text):
    """(text with Unix line ends, notes), for ``str`` or ``bytes``.  CRLF is a line end.  A bare CR inside a line is a
    progress bar redrawing itself (tqdm: ``\\rLoading … 25%\\rLoading … 50%``): the line is read as a terminal shows
    it, its last state, so the line numbers stay the file's (what ``grep -n`` and ``sed -n`` count).  A text with CRs
    and no LF at all (old Mac line ends) reads every CR as a line end."""
    cr, lf = ("\r", "\n") if isinstance(text, str) else (b"\r", b"\n")
    redrawn, trailing = (_REDRAWN, _TRAILING_CR) if isinstance(text, str) else (_REDRAWN_B, _TRAILING_CR_B)
    if lf not in text:
        return text.replace(cr, lf), ("CR line ends read as line breaks",)
    notes = []
    if cr + lf in text:
        text = text.replace(cr + lf, lf)
        notes.append("CRLF line ends read as line breaks")
    text = trailing.sub(text[:0], text)
    text, count = redrawn.subn(text[:0], text)
    if count:
        notes.append(f"{count:,} line(s) redrawn with a bare CR (progress bars) read as a terminal shows them, "
                     "their last state")
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
    return text, tuple(notes)


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
