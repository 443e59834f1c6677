"""Reading the engines' configuration dumps without ``eval``.

- SGLang: ``server_args=ServerArgs(model_path='…', tp_size=8, mem_fraction_static=0.85, …)``
- vLLM: ``Initializing a V1 LLM engine (v0.10.2) with config: model='…', tensor_parallel_size=4, …``
- vLLM ≥ 0.10: ``non-default args: {'model': '…', 'tensor_parallel_size': 4, …}``

A dump can be cut anywhere (a pasted excerpt); every complete ``key=value`` pair before the cut is kept.
Values are read with :func:`ast.literal_eval` when they are Python literals, else kept as text.
"""

from __future__ import annotations

import ast
import re

__all__ = ["split_pairs", "read_value", "literal_dict", "balanced", "MAX_DIGITS"]

_MAX_DUMP = 1 << 20
_MAX_LITERAL = 20_000
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,80}$")
_OPEN, _CLOSE = "([{", ")]}"

MAX_DIGITS = 18
"""the longest decimal a log's setting may have and still fit a 64-bit integer: a longer one is a damaged line (fuzz
seed 33, case 3866: a 33,615-digit capture size), read as no setting rather than raised on"""


def _unquoted(text: str, start: int, end: int):
    """(index, character) of each character of ``text[start:end]`` outside a quoted string (the quote characters
    and backslash escapes inside quotes are skipped), then ``(end, "")`` when the text does not end inside a quote."""
    quote, i = "", start
    while i < end:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        else:
            yield i, ch
        i += 1
    if not quote:
        yield end, ""


def balanced(text: str, start: int) -> str:
    """``text[start:]`` up to the bracket that closes ``text[start]`` (or the end when it never closes)."""
    depth, end = 0, min(len(text), start + _MAX_DUMP)
    for i, ch in _unquoted(text, start, end):
        if ch and ch in _OPEN:
            depth += 1
        elif ch and ch in _CLOSE:
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    return text[start:end]


def _pieces(body: str):
    depth, start, n, closed = 0, 0, min(len(body), _MAX_DUMP), False
    for i, ch in _unquoted(body, 0, n):
        if not ch:
            closed = True
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            if depth == 0:
                yield body[start:i], True
                return
            depth -= 1
        elif ch == "," and depth == 0:
            yield body[start:i], True
            start = i + 1
    yield body[start:n], closed and depth == 0 and n == len(body)


def split_pairs(body: str) -> list[tuple[str, str]]:
    """``k=v, k=v, …`` at bracket depth 0 → [(k, v text)]; an unfinished last pair is dropped."""
    pairs = []
    for piece, complete in _pieces(body):
        key, eq, value = piece.partition("=")
        key = key.strip()
        if not eq or not _KEY.match(key):
            continue
        if not complete:
            continue
        pairs.append((key, value.strip()))
    return pairs


def read_value(text: str):
    """A Python literal when the text is one (``'x'``, ``8``, ``None``, ``[1, 2]``), else the bare text."""
    text = text.strip()
    if len(text) <= _MAX_LITERAL:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    low = text.lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    return text[:_MAX_LITERAL]


def literal_dict(text: str) -> dict:
    """The dict printed from ``text[0] == "{"`` on (``non-default args: {…}``); a cut dict gives its
    complete items."""
    body = balanced(text, 0)
    if body.endswith("}") and len(body) <= _MAX_LITERAL * 10:
        try:
            value = ast.literal_eval(body)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
    items = {}
    for piece, complete in _pieces(body[1:]):
        key, colon, value = piece.partition(":")
        key = key.strip().strip("'\"")
        if colon and complete and _KEY.match(key):
            items[key] = read_value(value)
    return items
