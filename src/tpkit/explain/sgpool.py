"""SGLang: the KV pool of the ledger.  The printed pool and tokens; the cell (bytes per token) from the model
config, as the planner sizes it (``tpkit.engines.sglang.pool``), with the hybrid-SWA request-capped pool and an
unknown TP size; the tokens rebuilt from the KV budget; the pool's rows ('KV pool', 'KV tokens', 'Memory pool
end').  Used by ``explain.sglang``."""

from __future__ import annotations

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.refusals import REFUSED
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.explain.sganchors import GIB_NOTE, target_last, tokens_agreed
from tpkit.logs import Anchor, ParsedLog, RankView
from tpkit.units import Bytes, gib_text


def _cell(ctx: Context, tp: int, pp: int) -> tuple[float | None, str, int]:
    """(bytes per token of the target pool, source, page) from the model config, None when no model."""
    return _cell_capped(ctx, tp, pp)[:3]


def _cell_capped(ctx: Context, tp: int, pp: int) -> tuple[float | None, str, int, tuple | None]:
    """``_cell`` and, when SGLang sizes a hybrid-SWA pool from the request cap, (CellSize, SwaPoolChoice): then the
    bytes per token are the full pool's alone (the SWA pool is fixed)."""
    page = int(ctx.get("page_size", 1) or 1)
    if ctx.model is None:
        return None, "no model config", page, None
    try:
        from tpkit.engines.sglang.options import UNMODELLED_KV_DTYPES, SglangOptions, unmodelled_kv_error
        from tpkit.engines.sglang.pool import compute_cell
        from tpkit.engines.sglang.swa import gpt_oss_one_pool, is_sm100
        from tpkit.engines.sglang.kvdtype import resolve_kv_dtype
        from tpkit.engines.sglang.versions import parse_version

        from tpkit.explain.sgrelease import log_release

        # the newest release the log's line formats allow, capped by its date (a log dated before a release
        # cannot come from it: sgrelease.log_release, as sgrelease's terms)
        version = log_release(ctx)[0]
        kv = str(ctx.get("kv_cache_dtype", "auto"))
        if kv.lower() in UNMODELLED_KV_DTYPES:  # fp4/mx KV: no cell rather than the model dtype's
            raise unmodelled_kv_error(kv.lower())
        try:
            opts = SglangOptions(kv_cache_dtype=kv, engine_version=version)
        except REFUSED:  # a spelling the options refuse: the model's own dtype
            opts = SglangOptions(engine_version=version)
        kv_dtype = resolve_kv_dtype(ctx.model, opts)[0]
        attn_tp = tp // max(1, int(ctx.get("dp", 1) or 1)) if ctx.get("enable_dp_attention") else tp
        ratio = ctx.get("swa_full_tokens_ratio")
        one_pool = gpt_oss_one_pool(ctx.model, version, sm100=ctx.gpu is not None and is_sm100(ctx.gpu),
                                    attention_backend=ctx.get("attention_backend"),
                                    speculative=ctx.get("spec_algorithm") not in (None, "", "None", "NONE"))
        cell = compute_cell(ctx.model, attn_tp, pp, kv_dtype, split_v_dim=parse_version(version) >= (0, 5, 8),
                            version=version, swa_full_tokens_ratio=float(ratio) if ratio else None,
                            one_pool=one_pool)
        if cell.layout == "dsv4":  # every modelled release: the plan's dsv4_budget_tokens
            return _dsv4_fixed(ctx, cell, version, page, tp // attn_tp)
        choice = _swa_choice(ctx, cell, version, page, tp // attn_tp, pp)
        if choice is not None and choice.swa_cap is not None:
            return (float(cell.full_bytes()), f"{cell.source}; {choice.configurator}: {choice.why} "
                    f"({ctx.model_source})", page, (cell, choice))
        return float(cell.bytes_per_token), f"{cell.source} ({ctx.model_source})", page, None
    except REFUSED as exc:  # a model the rules cannot size: say so, keep explaining
        return None, f"cell not computable ({type(exc).__name__}: {str(exc)[:120]})", page, None


class _Dsv4Fixed:
    """DeepSeek-V4 on SGLang: the pool is sized by ``engines.sglang.dsv4.dsv4_budget_tokens`` (the plan's formula:
    from 0.5.15 the per-request c128 states off the KV budget, then budget ÷ cell); plays the part of ``capped`` for
    ``full_share`` and ``predict_tokens``."""

    __slots__ = ("fixed", "layout", "cell", "version", "running", "attn_dp")

    def __init__(self, fixed: Bytes, layout, cell, version: str, running: int | None, attn_dp: int) -> None:
        self.fixed, self.layout, self.cell, self.version = fixed, layout, cell, version
        self.running, self.attn_dp = running, attn_dp

    def tokens(self, budget: Bytes, page: int, max_total_tokens: int | None) -> int:
        """Full-pool tokens from one budget (``dsv4_budget_tokens``, as ``engines.sglang.budget.kv_budget``)."""
        from tpkit.engines.sglang.dsv4 import dsv4_budget_tokens

        return dsv4_budget_tokens(self.layout, self.cell, self.version, budget.bytes, page,
                                  max_running_requests=self.running, attn_dp=self.attn_dp,
                                  max_total_tokens=max_total_tokens).full_tokens


def _dsv4_fixed(ctx: Context, cell, version: str, page: int, attn_dp: int):
    """(cell, source, page, _Dsv4Fixed) for DeepSeek-V4: on 0.5.15 – 0.5.19 the c128 states priced at
    max_running_requests as printed, else the DeepSeek-V4 hook's 256, per attention-DP rank; none before 0.5.15."""
    from tpkit.engines.sglang.dsv4 import DEFAULT_RUNNING, c128_state_fixed_bytes

    layout, dcell = cell.dsv4
    running = ctx.get("max_running_requests")
    try:
        running = int(running) if running is not None and not isinstance(running, bool) else None
    except (TypeError, ValueError):
        running = None
    fixed = Bytes(c128_state_fixed_bytes(layout, dcell, version, max_running_requests=running,
                                         attn_dp=max(1, attn_dp)))
    if not dcell.c128_per_request:  # before 0.5.15 the c128 states ride in the cell
        return (float(cell.bytes_per_token), f"{cell.source} ({ctx.model_source})", page,
                _Dsv4Fixed(Bytes(0), layout, dcell, version, running, max(1, attn_dp)))
    said = (f"max_running_requests {running}" if running is not None
            else f"max_running_requests {DEFAULT_RUNNING} (deepseek_v4_hook default)")
    return (float(cell.bytes_per_token), f"{cell.source}; minus c128 states per request {gib_text(fixed, 3)} "
            f"({said}; DSV4PoolConfigurator._get_c128_state_fixed_bytes, 0.5.15 – 0.5.19) ({ctx.model_source})",
            page, _Dsv4Fixed(fixed, layout, dcell, version, running, max(1, attn_dp)))


def _swa_choice(ctx: Context, cell, version: str, page: int, attn_dp: int, pp: int):
    """SGLang's hybrid-SWA configurator for this log (``engines.sglang.swa_cap.swa_pool_choice``, the plan's rule): the
    printed ServerArgs / command line flags; the chunked-prefill size as printed (already per attention-DP rank)."""
    from tpkit.engines.sglang.swa_cap import swa_pool_choice

    def num(name):
        v = ctx.get(name)
        try:
            return int(v) if v is not None and not isinstance(v, bool) else None
        except (TypeError, ValueError):
            return None

    spec = ctx.get("spec_algorithm") not in (None, "", "None", "NONE")
    try:
        return swa_pool_choice(cell, version, disable_radix_cache=bool(ctx.get("disable_radix_cache")),
                               max_running_requests=num("max_running_requests"),
                               chunked_prefill_size=num("chunked_prefill_size"), page_size=page,
                               sliding_window=ctx.model.sliding_window, attn_dp=max(1, attn_dp),
                               overlap_schedule=not (ctx.get("disable_overlap_schedule") or pp > 1),
                               speculative=spec)
    except REFUSED:
        return None


def _tp_unknown_cell(ctx: Context, pp: int, cell: float, source: str) -> tuple[float | None, str]:
    """The cell when the log names no TP size (no ServerArgs, no command line: ``runtp.tp_default_evidence``):
    kept when every TP size of ``TP_CANDIDATES`` the model accepts gives the same cell (MLA: the latent is not
    split); else None, with the cell per TP size in the source text (``pool_configurator.py _compute_cell_size``
    divides the KV heads by the attention TP size)."""
    from tpkit.explain.context import TP_CANDIDATES

    cells: dict[float, list[int]] = {}
    for tp in TP_CANDIDATES:
        c, _, _ = _cell(ctx, tp, pp)
        if c is not None:
            cells.setdefault(c, []).append(tp)
    if len(cells) <= 1:
        return cell, source
    each = "; ".join(f"tp {'/'.join(map(str, tps))} → {c:,.0f} B/token" for c, tps in cells.items())
    return None, f"tp not printed and the KV cell depends on it ({each}): pass --tp"


def full_share(rest: Iv | None, capped) -> Iv | None:
    """The KV budget left to the full pool: all of it, or less the fixed SWA pool when SGLang sizes that pool from
    the request cap (``engines.sglang.pool.size_tokens``), so budget ÷ full cell stays the full pool's tokens."""
    if rest is None or capped is None:
        return rest
    fixed = capped.fixed if isinstance(capped, _Dsv4Fixed) else Bytes(capped[1].swa_cap * capped[0].swa_bytes())
    return rest - Iv(low=fixed, high=fixed)



def cell_of(ctx: Context, tp: int, pp: int, pool: Iv | None,
             tokens_printed: int | None) -> tuple[float | None, str, int, tuple | None]:
    """(cell bytes, source, page, capped) for the run: the config's (``_cell_capped``; with no TP size printed,
    only when every TP size gives the same cell), else measured from the printed pool and tokens."""
    cell, cell_source, page, capped = _cell_capped(ctx, tp, pp)
    if cell is not None and ctx.get("tp") is None:
        cell, cell_source = _tp_unknown_cell(ctx, pp, cell, cell_source)
    if cell is None:
        capped = None
    if cell is None and pool is not None and tokens_printed:
        cell = pool.mid.bytes / (tokens_printed + page)
        cell_source = "measured: printed KV pool bytes / (printed tokens + page)"
    elif cell is not None and capped is None and pool is not None and tokens_printed:
        check = _inferred_tp_by_pool(ctx, pp, pool, tokens_printed, page)
        if check:
            cell_source = f"{cell_source}; {check}"
    return cell, cell_source, page, capped


def _inferred_tp_by_pool(ctx: Context, pp: int, pool: Iv, tokens: int, page: int) -> str | None:
    """For a tp the log does not print but lets tpkit infer (``ctx.sources['tp']`` starting 'inferred'): what the
    printed pool says about it.  'KV Cache is allocated' prints K + V = (tokens + page) × cell (GiB to two decimals,
    ``memory_pool.py MHATokenToKVPool._create_buffers``), and the cell divides the KV heads by the attention TP
    size, so the pool per token falls on one tp's cell: the inferred tp's (corroborated), another's (contradicted:
    the inference is wrong or the log is not one run), or none (the pool holds more than this cell: a dtype or a
    layout the config does not show; it says nothing).  None when the tp was not inferred or every tp gives the
    same cell (MLA)."""
    from tpkit.explain.context import TP_CANDIDATES

    tp = ctx.get("tp")
    if tp is None or not str(ctx.sources.get("tp", "")).startswith("inferred"):
        return None
    cells = {t: _cell(ctx, t, pp)[0] for t in TP_CANDIDATES}
    cells = {t: c for t, c in cells.items() if c is not None}
    if tp not in cells or len(set(cells.values())) <= 1:
        return None
    lo, hi = pool.low.bytes / (tokens + page), pool.high.bytes / (tokens + page)
    fits = [t for t, c in cells.items() if lo <= c <= hi]
    measured = f"printed pool ÷ (tokens + page) = {lo:,.0f}–{hi:,.0f} B/token"
    if tp in fits:
        others = ", ".join(f"tp {t} → {c:,.0f}" for t, c in cells.items() if t != tp)
        return f"the inferred tp {tp} corroborated: {measured} holds tp {tp}'s cell ({others})"
    if fits:
        return (f"✗ the inferred tp {tp} contradicted: {measured} holds the cell of tp "
                f"{'/'.join(map(str, fits))}, not tp {tp}'s {cells[tp]:,.0f}")
    return None


def predict_tokens(ctx: Context, rest: Iv | None, cell: float | None, page: int,
                    capped) -> tuple[int, int] | None:
    """(low, high) tokens rebuilt from the KV budget: floor(budget / cell) rounded down to the page and capped by
    ``--max-total-tokens``, or the plan's ``size_tokens`` for a request-capped SWA pool; None without both."""
    if rest is None or not cell:
        return None
    mtt = ctx.get("max_total_tokens")
    if isinstance(capped, _Dsv4Fixed):  # DeepSeek-V4: the plan's dsv4_budget_tokens on both ends
        return tuple(capped.tokens(b, page, int(mtt) if mtt else None) for b in (rest.low, rest.high))
    if capped is not None:  # the request-capped SWA pool: the plan's size_tokens
        from tpkit.engines.sglang.pool import size_tokens

        lo, hi = (size_tokens(b, capped[0], page_size=page, max_total_tokens=int(mtt) if mtt else None,
                              swa_cap=capped[1].swa_cap)[0] for b in (rest.low, rest.high))
        return int(lo), int(hi)
    lo = max(rest.low.bytes, 0) // cell // page * page
    hi = max(rest.high.bytes, 0) // cell // page * page
    if mtt:
        lo, hi = min(lo, int(mtt)), min(hi, int(mtt))
    return int(lo), int(hi)


class _PrintedPool:
    """The printed KV pool of this rank: the K and V size anchors, the one size (MLA) or 'SWAKVPool mem usage' (``kv``;
    ``both`` for the latter), and the pool's bytes; a plain class: a dataclass costs ~1 ms of ``tpkit explain``'s cold
    start, issue 12."""

    __slots__ = ("k", "v", "kv", "both", "bytes")

    def __init__(self, k: Anchor | None, v: Anchor | None, kv: Anchor | None, both: Anchor | None,
                 bytes: Iv | None) -> None:
        self.k, self.v, self.kv, self.both, self.bytes = k, v, kv, both, bytes


def printed_pool(view: RankView) -> _PrintedPool:
    """The target's printed KV pool on this rank (a hybrid-SWA pool: 'SWAKVPool mem usage' holds both pools,
    each 'KV Cache is allocated' line one)."""
    k, v, kv = target_last(view, "kv_k_size"), target_last(view, "kv_v_size"), target_last(view, "kv_size")
    both = target_last(view, "swa_pool_mem_usage")
    if both:
        kv = both
    pool = None
    if kv:
        pool = iv_of(kv.size)
    elif k and v:
        pool = iv_of(k.size) + iv_of(v.size)
    return _PrintedPool(k, v, kv, both, pool)


def printed_tokens(parsed: ParsedLog, view: RankView):
    """(the anchor of the printed token count, the count as an int or None): this rank's, else the one count
    every rank agrees on (``sganchors.tokens_agreed``), else the 'full size' of this rank's 'SWAKVPool mem usage'
    line (the same count: a log that prints no 'KV Cache is allocated' / max_total_num_tokens line, sg_402)."""
    tokens_a = (target_last(view, "kv_tokens") or target_last(view, "max_total_num_tokens")
                or tokens_agreed(parsed) or target_last(view, "swa_pool_full_size"))
    tokens_printed = int(tokens_a.count.value) if tokens_a and isinstance(tokens_a.count.value, int) else None
    if tokens_printed is not None and tokens_printed < 0:  # a damaged line (fuzz_explain seed 8, case 284: '#tokens: -1')
        return None, None
    return tokens_a, tokens_printed


def pool_row(pool: _PrintedPool, cell: float | None, page: int, rest: Iv | None) -> Row:
    """The printed KV pool, checked against the budget within one page of cells (+ 1 MiB)."""
    slack_cell = Bytes(int((cell or 0) * page))
    anchor = pool.kv or pool.k
    return Row(item="KV pool", value=pool.bytes, kind="printed",
               meaning=("'SWAKVPool mem usage' = full pool + SWA pool" if pool.both else
                        "'KV Cache is allocated' K size + V size (or the MLA latent size)")
                       + f" = (tokens + page) × cell, {GIB_NOTE}",
               printed=" + ".join(a.size.text for a in (pool.k, pool.v) if a) if not pool.kv else pool.kv.size.text,
               line_no=anchor.line_no, derived=rest, derived_from="KV budget (rest)",
               check=None if rest is None else ("reproduced" if pool.bytes.overlaps(rest, slack_cell + Bytes(2**20))
                                                else "differs"),
               note="within one page of cells of the budget" if rest is not None else "")


def tokens_row(tokens_a, tokens_printed: int | None, predicted: tuple[int, int] | None, cell: float | None,
                cell_source: str, page: int, capped) -> Row:
    """The KV tokens: printed (checked against the range rebuilt from the anchors) or rebuilt."""
    check = None
    if tokens_printed is not None and predicted is not None:
        check = "reproduced" if predicted[0] <= tokens_printed <= predicted[1] else "differs"
    if tokens_printed is not None:
        mid = tokens_printed
    elif predicted is not None:
        mid = (predicted[0] + predicted[1]) // 2
    else:
        mid = tokens_a.count.value
    dsv4 = isinstance(capped, _Dsv4Fixed)
    rule = ("full pool = floor((KV budget − c128 states per request) / cell)" if dsv4 and capped.fixed
            else "full pool = floor((KV budget − SWA pool × SWA cell) / full cell)" if capped is not None and not dsv4
            else "floor(KV budget / cell)")
    return Row(item="KV tokens", value=None, count=mid, kind="printed" if tokens_a else "derived",
               meaning=f"{rule} rounded down to page {page}; cell "
                       f"{cell:,.0f} B/token ({cell_source})" if cell else "KV pool tokens per rank",
               printed=tokens_a.count.text if tokens_a else None,
               line_no=tokens_a.line_no if tokens_a else None,
               derived=None, check=check,
               note="" if predicted is None else f"rebuilt from the anchors: {predicted[0]:,}–{predicted[1]:,}")


def pool_end_rows(view: RankView, rows: list[Row], end, pool: Iv | None, state):
    """'Memory pool end' and what the pools took beside the KV pool (req_to_token, metadata); its anchor."""
    pool_end = target_last(view, "pool_end_avail")
    if not pool_end:
        return pool_end
    d = iv_of(end.size) - pool if end and pool is not None else None
    if d is not None and state is not None:
        d = d - state.pool
    rows.append(printed_row("free after the pools", pool_end,
                            f"'Memory pool end. avail mem' = free after the KV and req_to_token pools, {GIB_NOTE}"))
    if d is not None:
        rows.append(derived_row("req_to_token + pool metadata", d - iv_of(pool_end.size),
                                "free after weights − KV pool − "
                                + ("the state pool − " if state is not None else "")
                                + "free after the pools (from the slack)"))
    return pool_end
