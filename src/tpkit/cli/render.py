"""Render a PlanResult as text (pure: returns a string; the CLI prints it)."""

from __future__ import annotations

import io

from tpkit.memory.result import PlanResult
from tpkit.units import Bytes, format_bytes

__all__ = ["format_plan", "format_ledger"]

_SIGN = {"capacity": "", "use": "−", "reserve": "−", "info": ""}


def _console(width: int):
    from rich.console import Console

    return Console(file=io.StringIO(), width=width, color_system=None, highlight=False)


def format_ledger(result: PlanResult, *, width: int = 110) -> str:
    """The per-GPU ledger as a table: item, bytes, GiB, source."""
    from rich.table import Table

    table = Table(title=f"Memory ledger — {result.ledger.rank_label}", title_justify="left",
                  show_lines=False, expand=False)
    table.add_column("item")
    table.add_column("bytes", justify="right")
    table.add_column("GiB", justify="right")
    table.add_column("source", overflow="fold")
    for line in result.ledger.items:
        sign = _SIGN[line.kind]
        name = line.item if line.kind != "info" else f"({line.item})"
        gib = f"{sign}{line.bytes.gib:.2f}" + (f" ± {line.uncertainty.gib:.2f}" if line.uncertainty.bytes else "")
        table.add_row(name, f"{sign}{line.bytes.bytes:,}", gib, line.source)
    table.add_row("= remaining", f"{result.ledger.remaining.bytes:,}", f"{result.ledger.remaining.gib:.2f}",
                  "capacity − uses − reserves: budget the pool could not use (under one token or block; "
                  "negative when the padding page comes out of the slack)")
    console = _console(width)
    console.print(table)
    return console.file.getvalue()


def _header(result: PlanResult) -> str:
    par = result.parallel
    gpu = result.gpu
    total = Bytes(gpu["total_bytes"])
    return (
        f"tpkit plan · {result.engine} {result.engine_version} · {result.model.get('name')}\n"
        f"  GPU {gpu.get('name')} ({format_bytes(total)} = {format_bytes(total, binary=False)} as CUDA reports) "
        f"× {par.num_gpus} · tp {par.tp} pp {par.pp} dp {par.dp} ep {par.ep}\n"
        f"  model from {result.model.get('source')}\n"
    )


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


def _capacity(result: PlanResult) -> str:
    lines = [f"KV cache: {_tokens(result)} per rank"]
    pool = result.kv_pool
    if pool is not None:
        lines[0] += (f" · {pool.cell_bytes.bytes:,} B/token · page {pool.page_size} · "
                     f"pool {format_bytes(pool.total_bytes)} ({pool.dtype})")
    for key in ("kv_blocks", "block_size"):
        if key in result.extra:
            lines.append(f"{key.replace('_', ' ')}: {result.extra[key]:,}")
            if key == "kv_blocks" and result.band is not None and result.band.kv_blocks is not None:
                lo, hi = result.band.kv_blocks
                lines[-1] += f" ({lo:,}–{hi:,})"
    note = _band_note(result)
    if note:
        lines.append(note)
    if result.max_running_requests is not None:
        lines.append(f"max running requests: {result.max_running_requests:,}")
    lines.append(f"max concurrency at {result.context_length:,} tokens/request: {result.max_concurrency:.2f}×")
    return "\n".join(lines) + "\n"


def format_plan(result: PlanResult, *, width: int = 110) -> str:
    """Header, ledger, capacity, verdict, warnings and the engine's own log lines."""
    parts = [_header(result), format_ledger(result, width=width), _capacity(result)]
    verdict = result.verdict
    parts.append(f"verdict: {'FITS' if verdict.fits else 'DOES NOT FIT'} — {verdict.message}\n")
    if result.warnings:
        parts.append("warnings:\n" + "".join(f"  ! {w}\n" for w in result.warnings))
    if result.engine_log:
        parts.append(f"what {result.engine} would log (its 'GB' means GiB where noted):\n"
                     + "".join(f"  {line}\n" for line in result.engine_log))
    return "\n".join(parts)
