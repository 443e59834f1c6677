"""The pins of scripts/explain_capacity_check.py that a crash prints, and the ``Pin`` they share with the other pins.

A log that crashes at the pool prints no capacity, but the engine's error states it: the pool would have held no
token.  Each rule here reads one such record (never a quote of it in prose or a table cell), names the engine's
condition for raising it (file, function and release read), and compares it with what tpkit rebuilds from the
log's anchors with the capacity lines removed: the rebuilt token range must admit 0, or, where no cell is known,
the rebuilt budget must reach ≤ 0.  The crash line stays in the input (it is the crash, not a capacity record).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Pin:
    """A printed number that pins the pool of a log that prints no capacity line, as an interval of the compared
    quantity (tokens per rank), and the interval tpkit rebuilt for it from the stripped log (None: not rebuilt)."""

    kind: str
    """the line type (a key of ``PINS``)"""
    printed: int
    """the number as printed (tokens), for the table"""
    low: int
    high: int
    compare: str
    """``tokens``: against the rebuilt token range; ``own``: ``rebuilt`` was computed by the pin itself"""
    rebuilt: tuple[int, int] | None
    why: str
    """the compared quantity and its print rounding, in words"""
    shown: str = ""
    """the rebuilt side for the table when it is not a token range"""



_NO_BUDGET = re.compile(r"^(?:\[[^\]]*\]\s*)?(?:\w*Error: )?Loaded weights leave no GPU memory for the KV cache")


def _line_no(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _unclamped(stripped) -> tuple[int, int] | None:
    """floor(KV budget / cell) over the rebuilt budget interval, negative budgets kept (None without both)."""
    a = stripped.anchored
    if a is None or getattr(a, "rest", None) is None or not getattr(a, "cell_bytes", None):
        return None
    return math.floor(a.rest.low.bytes / a.cell_bytes), math.floor(a.rest.high.bytes / a.cell_bytes)


def pin_no_budget(text: str, full, stripped) -> Pin | None:
    """SGLang's ValueError 'Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=F':
    raised when ``rest_memory`` = available − pre × (1 − F) (− the multimodal reservation) is ≤ 0 (sglang 0.5.23
    ``mem_cache/kv_cache_configurator.py``): the budget is ≤ 0 GiB, so the pool is 0 tokens.  Compared in tokens:
    floor(rebuilt budget / cell) unclamped must admit a value ≤ 0; the crash line stays in the input (it is the
    crash, not a capacity record).  A quote of the message inside other text (a table cell) is not the record."""
    m = None
    for line in text.splitlines():
        m = _NO_BUDGET.search(line.strip())
        if m:
            break
    if m is None or full.context.engine != "sglang":
        return None
    a = stripped.anchored
    rest = getattr(a, "rest", None)
    rng = None
    if rest is not None:
        cell = getattr(a, "cell_bytes", None) or 0
        rng = _unclamped(stripped) if cell else ((-1 if rest.low.bytes <= 0 else 1), (-1 if rest.high.bytes <= 0 else 1))
    shown = "" if rest is None or getattr(a, "cell_bytes", None) else (
        f"budget {rest.low.bytes / 2**30:+.2f}…{rest.high.bytes / 2**30:+.2f} GiB")
    return Pin(kind="sglang_no_kv_budget", printed=0, low=-(1 << 62), high=0, compare="own", rebuilt=rng, shown=shown,
               why="'Loaded weights leave no GPU memory for the KV cache' (the crash, kept): KV budget ≤ 0 GiB, i.e. "
                   "0 tokens; hit when the rebuilt budget interval (±0.005 GiB per print carried) reaches ≤ 0"
                   + ("" if rest is None else f"; rebuilt budget {rest.low.bytes / 2**30:+.2f}…"
                      f"{rest.high.bytes / 2**30:+.2f} GiB")
                   + ("" if rest is None or getattr(a, "cell_bytes", None) else " (no cell needed: the budget's sign)"))




_NOT_ENOUGH = re.compile(r"^(?:\[[^\]]*\]\s*)?(?:\w*Error: )?Not enough memory\. Please try to increase "
                         r"--mem-fraction-static")


def pin_not_enough_memory(text: str, full, stripped) -> Pin | None:
    """SGLang's RuntimeError 'Not enough memory. Please try to increase --mem-fraction-static': raised when the
    pool's token count is ≤ 0, i.e. floor(KV budget / cell), capped by --max-total-tokens and (from the releases
    with a page size) floored to the page, is 0 or less (sglang 0.4.3 ``ModelRunner.init_memory_pool``; 0.5.7
    ``model_runner_kv_cache_mixin.init_memory_pool``; 0.5.10 ``MemoryPoolConfig.__post_init__``).  So the pool
    was 0 tokens.  Compared with floor(rebuilt budget / cell) unclamped, each end floored to the page: hit when
    it admits ≤ 0.  Without a cell only a budget ≤ 0 decides it (a positive budget may still hold less than a
    page; not rebuilt then).  Where the log prints no pre-load free memory, the budget's top f × device total −
    weights (``explain.sgbudget.ceiling``) decides it when it holds less than a page of the cell.  Only the record, not a
    quote inside other text."""
    m = next((m for m in (_NOT_ENOUGH.search(ln.strip()) for ln in text.splitlines()) if m), None)
    if m is None or full.context.engine != "sglang":
        return None
    a = stripped.anchored
    rest = getattr(a, "rest", None)
    page = max(1, int(getattr(a, "page", 1) or 1))
    rng = _unclamped(stripped)
    if rng is not None:
        rng = (rng[0] // page * page, rng[1] // page * page)
    elif rest is not None and rest.low.bytes <= 0:
        rng = (-1, -1 if rest.high.bytes <= 0 else 1)
    top = getattr(a, "rest_ceiling", None) if rest is None else None
    cell = getattr(a, "cell_bytes", None)
    if rng is None and top is not None and top.bytes < (page * cell if cell else 1):
        rng = (-1, -1)  # no pre printed: the budget's top (f × device total − weights) holds less than a page
    budget = "" if rest is None else (f"; rebuilt budget {rest.low.bytes / 2**30:+.2f}…"
                                      f"{rest.high.bytes / 2**30:+.2f} GiB")
    if top is not None:
        budget = (f"; no pre-load free memory printed: the budget's top f × device total − weights "
                  f"{top.bytes / 2**30:+.2f} GiB (explain.sgbudget.ceiling)")
    return Pin(kind="sglang_not_enough_memory", printed=0, low=-(1 << 62), high=0, compare="own", rebuilt=rng,
               shown="" if rng is None or _unclamped(stripped) is not None else budget.lstrip("; "),
               why="'Not enough memory. Please try to increase --mem-fraction-static' (the crash, kept): the pool's "
                   f"token count ≤ 0 (page {page}); hit when floor(rebuilt budget / cell), floored to the page, "
                   "admits ≤ 0" + budget)


_NO_BLOCKS = re.compile(r"(?:^|\s)ValueError: No available memory for the cache blocks")


def pin_vllm_no_blocks(text: str, full, stripped) -> Pin | None:
    """vLLM's ValueError 'No available memory for the cache blocks': V1 raises it when the available KV memory is
    ≤ 0, before any other check (``v1/core/kv_cache_utils.py check_enough_kv_cache_memory``: ``if
    available_memory <= 0: raise``; the corpus's 0.13.0 (vl_342, vl_344) and 0.16.1 (vl_256) tracebacks raise it
    from there; 0.16 names it ``_check_enough_kv_cache_memory``), V0 when the block count floor(available / block
    bytes) is ≤ 0 (``worker/worker.py
    raise_if_cache_size_invalid``).  So the pool was 0 blocks.  vLLM's anchor, 'Available KV cache memory', is
    that budget itself: this pin checks tpkit's block arithmetic at its low end (the rebuilt token range must
    admit 0) and, where no cell is known, only the budget's sign (the printed anchor ±0.005 GiB reaching ≤ 0,
    which gives 0 blocks in V0 and V1 alike); it is not an independent rebuild of the budget as SGLang's crash
    pins are.  Only the record ('ValueError: …' after the log prefix), not the ``raise`` source line a traceback
    prints nor a quote in prose."""
    m = next((m for m in (_NO_BLOCKS.search(ln) for ln in text.splitlines() if not ln.lstrip().startswith("|"))
              if m), None)
    if m is None or full.context.engine != "vllm":
        return None
    rng = stripped.kv_predicted_range
    available = getattr(stripped.anchored, "available", None)
    shown = ""
    if rng is None and available is not None and available.low.bytes <= 0:
        rng = (-1, -1 if available.high.bytes <= 0 else 1)
        shown = f"available {available.low.bytes / 2**30:+.2f}…{available.high.bytes / 2**30:+.2f} GiB"
    return Pin(kind="vllm_no_cache_blocks", printed=0, low=-(1 << 62), high=0, compare="own",
               rebuilt=None if rng is None else (min(rng), max(rng)), shown=shown,
               why="'No available memory for the cache blocks' (the crash, kept): 0 blocks; hit when the blocks "
                   "rebuilt from 'Available KV cache memory' ±0.005 GiB admit 0 (the anchor is the budget itself: "
                   "a check of the block arithmetic and the sign, not of the budget)"
                   + (" (no cell needed: the budget's sign)" if shown else ""))
