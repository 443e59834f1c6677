"""From whatever the user pasted to clean text: decoding, line ends, colour codes.

Everything here runs over the whole log once, in C-speed ``str`` methods or one regex substitution,
and only when the log needs it (no ESC byte → no ANSI pass).
"""

from __future__ import annotations

import re

__all__ = ["prepare", "decode", "normalise", "clean_line", "MAX_LINE_CHARS"]

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
        return text, None, decode_notes + norm_notes
    raw = bytes(data)
    raw = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    notes: list[str] = []
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        notes.append("CR / CRLF line ends read as line breaks")
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"")
        notes.append("NUL characters removed")
    try:
        return raw.decode("utf-8"), raw, tuple(notes)
    except UnicodeDecodeError:
        text, decode_notes = decode(raw)
        return text, None, decode_notes + tuple(notes)


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
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        notes.append("CR / CRLF line ends read as line breaks")
    if "\x00" in text:
        text = text.replace("\x00", "")
        notes.append("NUL characters removed")
    return text, tuple(notes)


def clean_line(line: str) -> tuple[str, int]:
    """A line without colour codes (ESC-based, ``^[[`` caret text, or bare ``[0;36m``), and how many went.

    Done per line read, not over the whole log: most lines of a big log are never read.
    """
    count = 0
    if "\x1b" in line or "^[[" in line:
        line, n = _ANSI.subn("", line)
        count += n
    if "m" in line and "[" in line:
        line, n = _BARE_SGR.subn("", line)
        count += n
    return line, count
