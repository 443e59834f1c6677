"""The standard streams every ``tpkit`` command writes to, in any environment: a closed one becomes os.devnull, one
whose encoding lacks tpkit's symbols spells them in ASCII (``ASCII_SPELLING``), and a write that finds a full disk
is one line on stderr and exit 2, not a traceback.  Split from ``cli/__init__.py`` (helper tidy29)."""

from __future__ import annotations

import os
import sys

__all__ = ["ASCII_SPELLING", "unicode_stream", "write_json", "usable_streams", "disk_full", "cannot_write"]


ASCII_SPELLING = {
    "±": "+/-", "∓": "-/+", "×": "x", "·": "-", "–": "-", "—": "-", "−": "-", "…": "...", "≥": ">=", "≤": "<=",
    "≠": "!=", "≈": "~", "→": "->", "←": "<-", "↳": "->", "⇒": "=>", "⇄": "<->", "↑": "up", "✓": "ok", "✗": "X",
    "─": "-", "│": "|", "├": "|", "└": "`", "µ": "u", "²": "^2", "½": "1/2", "÷": "/", "§": "S", "⌈": "ceil(",
    "⌉": ")", "‖": "||", "’": "'", "′": "'", "∝": "~", "∈": "in", "Σ": "sum ", "Δ": "delta ", "α": "alpha",
    "β": "beta", "ρ": "rho", "τ": "tau", "⏎": "\\n", "ᵀ": "^T",
}
"""how a standard stream whose encoding lacks a character tpkit prints spells it (an ASCII locale: ``LC_ALL=C`` with
Python's UTF-8 mode off, as in minimal containers; ``PYTHONIOENCODING=ascii``); "·" between words is "-", in a
product ("(n-1)·S") "*"; another letter loses its accents (``é`` → ``e``), anything else is "?"."""


def _ascii_spelling(exc: UnicodeError) -> tuple[str, int]:
    """The ``tpkit-ascii`` codec error handler: ``ASCII_SPELLING`` for what the stream cannot encode."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for at in range(exc.start, exc.end):
        ch = exc.object[at]
        spelled = ASCII_SPELLING.get(ch)
        if ch == "·" and at and exc.object[at - 1] != " ":  # "(n-1)·S", "24·1024²": a product, not a separator
            spelled = "*"
        if spelled is None:
            import unicodedata

            plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            spelled = plain if plain and unicodedata.category(ch).startswith("L") else "?"
        out.append(spelled)
    return "".join(out), exc.end


def unicode_stream(stream=None) -> bool:
    """Whether ``stream`` (default ``sys.stdout``) encodes the symbols tpkit prints ("±", "→", "×", "↳", "…")."""
    stream = sys.stdout if stream is None else stream
    try:
        "±→×↳…".encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def write_json(doc) -> None:
    """``tpkit explain --json`` and ``tpkit perf --json``: ``doc`` on standard output, indented by 2, then a newline;
    non-ASCII text as it is where the stream encodes tpkit's symbols (``unicode_stream``), else escaped
    (``\\u00b1``), so the JSON keeps the exact text (helper nc18; one home since helper tidy31).  ``plan --json``
    and the catalogs' ``--json`` escape every non-ASCII character whatever the stream (json's default)."""
    import json

    json.dump(doc, sys.stdout, indent=2, ensure_ascii=not unicode_stream())
    sys.stdout.write("\n")


def usable_streams() -> None:
    """Standard streams every command can write to, in any environment: a closed one (``tpkit plan … >&-``: Python
    sets it to None) becomes os.devnull, so the command runs and keeps its exit status; one whose encoding lacks
    tpkit's symbols spells them in ASCII (``ASCII_SPELLING``) instead of raising UnicodeEncodeError.  ``--json`` then
    escapes them (``unicode_stream``), so the JSON keeps the exact text."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - lives as long as the process
        elif not unicode_stream(stream) and hasattr(stream, "reconfigure"):
            import codecs

            codecs.register_error("tpkit-ascii", _ascii_spelling)
            stream.reconfigure(errors="tpkit-ascii")


def disk_full(exc: Exception) -> bool:
    """An OSError of a write that found no room: ENOSPC, EDQUOT (quota), EFBIG (file size limit)."""
    import errno

    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def cannot_write(prog: str, exc: OSError) -> int:
    """``tpkit plan … > /dev/full`` (stdout, or a file being written, on a full disk): one line on stderr and exit 2,
    not a traceback; stdout's unwritten rest goes to os.devnull, so the exit's flush does not fail again."""
    try:
        sys.stdout.flush()
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    try:
        print(f"{prog}: error: cannot write the output: {exc.strerror}; free space on that disk or send the output "
              "elsewhere", file=sys.stderr, flush=True)
    except OSError:  # stderr on the full disk too
        pass
    return 2
