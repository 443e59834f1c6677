"""Render a PlanResult as text (pure: returns a string; the CLI prints it).

The ledger is plain text that fits the terminal (80 columns when the width is unknown, e.g. in a pipe):
one row per item with its bytes and GiB, its source on the indented lines below it (``↳``).  An item name
too long for its column continues on the next line, indented, so it never reads as a new item.  Every
number is signed with ASCII ``-`` and a value that rounds to zero prints unsigned (never ``-0.00``).
"""

from __future__ import annotations

import shutil
import textwrap

from tpkit.memory.result import PlanResult
from tpkit.units import Bytes, format_bytes, gib_text

__all__ = ["format_plan", "format_ledger", "terminal_width", "signed_bytes", "signed_gib", "MIN_WIDTH", "MAX_WIDTH"]

MIN_WIDTH = 60
"""narrowest layout rendered (a narrower terminal gets this width)"""
_SIGN = {"capacity": 1, "use": -1, "reserve": -1, "info": 1}
_SOURCE_INDENT = "    "
_SOURCE_MARK = "↳ "
_ITEM_INDENT = "  "


MAX_WIDTH = 500
"""widest layout rendered: a wider ``COLUMNS`` (``COLUMNS=1000000`` padded every ledger row to a million columns; 20
digits raised ValueError in the format spec) gets this width"""


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` wins), 80 when unknown, between ``MIN_WIDTH`` and ``MAX_WIDTH``."""
    return min(MAX_WIDTH, max(MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns))


def signed_bytes(value: int) -> str:
    """``-1,370,896``; zero is ``0`` (no sign)."""
    return f"{value:,}" if value else "0"


def signed_gib(value: Bytes, digits: int = 2) -> str:
    """GiB with ``digits`` decimals, the number alone; a value that rounds to zero prints as ``0.00``, never
    ``-0.00``."""
    text = gib_text(value, digits, label="")
    return text.lstrip("-") if float(text) == 0 else text


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=max(10, width), break_long_words=True, break_on_hyphens=False) or [""]


def format_ledger(result: PlanResult, *, width: int | None = None) -> str:
    """The per-GPU ledger: item, bytes, GiB on one row, the source below it; fits ``width`` columns."""
    width = max(MIN_WIDTH, width or terminal_width())
    rows = []
    for line in result.ledger.items:
        value = line.bytes * _SIGN[line.kind]
        name = line.item if line.kind != "info" else f"({line.item})"
        gib = signed_gib(value) + (f" ± {gib_text(line.uncertainty, label='')}" if line.uncertainty.bytes else "")
        rows.append((name, signed_bytes(value.bytes), gib, line.source))
    remaining = result.ledger.remaining
    rows.append(("= remaining", signed_bytes(remaining.bytes), signed_gib(remaining),
                 "capacity − uses − reserves: budget the pool could not use (under one token or block; "
                 "negative when the padding page comes out of the slack)"))
    bytes_w = max(len("bytes"), *(len(r[1]) for r in rows))
    gib_w = max(len("GiB"), *(len(r[2]) for r in rows))
    item_w = width - bytes_w - gib_w - 4
    out = [f"Memory ledger — {result.ledger.rank_label}",
           f"{'item (source below it)':<{item_w}}  {'bytes':>{bytes_w}}  {'GiB':>{gib_w}}",
           "─" * width]
    for name, nbytes, gib, source in rows:
        names = _wrap(name, item_w)
        first, rest = names[0], " ".join(names[1:])
        out.append(f"{first:<{item_w}}  {nbytes:>{bytes_w}}  {gib:>{gib_w}}".rstrip())
        if rest:
            out += [_ITEM_INDENT + n for n in _wrap(rest, item_w - len(_ITEM_INDENT))]
        src = _wrap(source, width - len(_SOURCE_INDENT) - len(_SOURCE_MARK))
        out += [_SOURCE_INDENT + (_SOURCE_MARK if i == 0 else " " * len(_SOURCE_MARK)) + s for i, s in enumerate(src)]
    return "\n".join(out) + "\n"


def _version(result: PlanResult) -> str:
    """``vllm 0.34 rules`` — the release whose rules the plan follows (the default is the newest modelled)."""
    return f"{result.engine} {result.engine_version} rules"


def _header(result: PlanResult, width: int) -> str:
    par = result.parallel
    gpu = result.gpu
    total = Bytes(gpu["total_bytes"])
    return _block([f"tpkit plan · {_version(result)} · {result.model.get('name')}"], width) + _block([
        f"GPU {gpu.get('name')} ({format_bytes(total)} = {format_bytes(total, binary=False)} as CUDA reports) "
        f"× {par.num_gpus} · tp {par.tp} pp {par.pp} dp {par.dp} ep {par.ep}",
        f"model from {result.model.get('source')}{_provenance(result.model.get('provenance'))}"], width, indent="  ")


def _provenance(status: str | None) -> str:
    """`` (config: verified: verbatim config copy)`` — how a catalog entry's config was checked, its first clause."""
    if not status:
        return ""
    head = status.split(";")[0].split(", checked against")[0].split(", no public start-up")[0]
    return f" (config {head if len(head) <= 110 else head[:109] + '…'})"


def _tokens(result: PlanResult) -> str:
    """"98,000 ± 2,400 tokens" (with the band's ends when they are not symmetric), or the bare count."""
    band = result.band
    if band is None:
        return f"{result.kv_tokens:,} tokens"
    lo, hi = band.kv_tokens
    text = f"{result.kv_tokens:,} ± {band.plus_minus_tokens:,} tokens"
    if hi - result.kv_tokens != result.kv_tokens - lo:
        text += f" ({lo:,}–{hi:,})"
    return text


def _band_note(result: PlanResult) -> str | None:
    """Which estimates the band comes from (largest first), or that every term is exact or measured."""
    band = result.band
    if band is None:
        return None
    if not band.estimates:
        return "band: none (every term exact or measured)"
    terms = sorted(band.estimates, key=lambda e: -e.uncertainty.bytes)
    parts = ", ".join(f"{e.item} ± {format_bytes(e.uncertainty)}" for e in terms[:5])
    more = f" and {len(terms) - 5} more" if len(terms) > 5 else ""
    return f"band: every estimated term at its ends — {parts}{more}"


def _capacity(result: PlanResult) -> list[str]:
    lines = [f"KV cache: {_tokens(result)} per rank"]
    pool = result.kv_pool
    if pool is not None:
        page = pool.page_size  # every count with its unit (helper nc20, session 20: "page 64", "block size: 64")
        lines[0] += (f" · {pool.cell_bytes.bytes:,} B/token · page {page:,} token{'s' if page != 1 else ''} · "
                     f"pool {format_bytes(pool.total_bytes)} ({pool.dtype})")
    for key, unit in (("kv_blocks", " per rank"), ("block_size", " tokens")):
        if key in result.extra:
            lines.append(f"{key.replace('_', ' ')}: {result.extra[key]:,}{unit}")
            if key == "kv_blocks" and result.band is not None and result.band.kv_blocks is not None:
                lo, hi = result.band.kv_blocks
                lines[-1] += f" ({lo:,}–{hi:,})"
    note = _band_note(result)
    if note:
        lines.append(note)
    if result.max_running_requests is not None:
        lines.append(f"max running requests: {result.max_running_requests:,}")
    lines.append(f"max concurrency at {result.context_length:,} tokens/request: {result.max_concurrency:.2f}×")
    return lines


def _block(lines: list[str], width: int, indent: str = "") -> str:
    """Each line wrapped to ``width``; its continuation lines indented two more spaces."""
    out = []
    for line in lines:
        out += textwrap.wrap(line, width=width, initial_indent=indent, subsequent_indent=indent + "  ",
                             break_long_words=True, break_on_hyphens=False) or [indent]
    return "\n".join(out) + "\n"


def format_plan(result: PlanResult, *, width: int | None = None) -> str:
    """Header, ledger, capacity, verdict, warnings and the engine's own log lines, fitted to ``width``."""
    width = max(MIN_WIDTH, width or terminal_width())
    verdict = result.verdict
    parts = [_header(result, width), format_ledger(result, width=width), _block(_capacity(result), width),
             _block([f"verdict: {_status(verdict)} — {verdict.message}"], width)]
    if result.warnings:
        parts.append("warnings:\n" + _block([f"! {w}" for w in result.warnings], width, indent="  "))
    if result.engine_log:
        # the engine's lines are quoted whole (one per line, not wrapped) so they can be grepped in a server log
        parts.append(f"what {result.engine} would log (its 'GB' means GiB where noted):\n"
                     + "".join(f"  {line}\n" for line in result.engine_log))
    return "\n".join(parts)


def _status(verdict) -> str:
    """FITS, DOES NOT FIT or WILL NOT START (``Verdict.starts`` False: the engine refuses the command itself)."""
    return "FITS" if verdict.fits else "DOES NOT FIT" if getattr(verdict, "starts", True) else "WILL NOT START"
