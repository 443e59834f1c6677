"""SGLang: reading the anchors a log prints.  Every size SGLang prints is GiB though it says GB (``GIB_NOTE``); a
rank's anchors are the target model's (a draft's loads are not); SGLang sizes every rank's pool from the MIN over
the world of the free memory before and after the weights (``get_available_gpu_memory(distributed=True)``), so the
budget is rebuilt from the smallest printed rank, and a log that prints fewer ranks than the world may hide a
smaller one.  Used by ``explain.sglang`` and ``explain.sgpool``."""

from __future__ import annotations

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv
from tpkit.logs import ParsedLog, RankView
from tpkit.units import gib_text

GIB_NOTE = "GiB (SGLang prints 'GB' but divides by 2^30)"


def min_over_ranks(parsed: ParsedLog, name: str, group: str | None = None):
    """The smallest last-printed value of ``name`` over the ranks (SGLang reduces it with a MIN all-reduce)."""
    last = {}
    for a in parsed.anchors:
        if a.name == name and a.group == group and a.size is not None:
            last[a.rank.label] = a
    if not last:
        return None, 0
    return min(last.values(), key=lambda a: a.size.value.bytes), len(last)


def target_last(view: RankView, name: str):
    """The last anchor ``name`` of the target model on this rank (a draft model's loads are not the target's)."""
    found = [a for a in view.all(name) if a.group != "draft"]
    return found[-1] if found else None


def draft_before_pool(parsed: ParsedLog, draft_end) -> bool:
    """Whether the draft's weights were loaded before the target's KV pool was sized (then the target's budget
    sees the free memory after both loads); SGLang ≤ 0.4 sizes the target's pool first and loads the draft after
    its 'Memory pool end', so the draft's load does not enter the target's budget.

    The draft's 'Load weight end' is the right reading in 0.5.14+ (read in the 0.5.14, 0.5.15, 0.5.20 and 0.5.23
    wheels): ``Scheduler.init_model_worker`` loads the target, then the draft (``EagleDraftWorker.__init__``, whose
    'Load weight end' still holds the draft's own embedding / lm_head), then ``init_memory_pools`` sizes the
    target's pool (``init_target_memory_pool``: ``_profile_available_bytes`` reads the free memory then) before
    ``EagleDraftWorker.alloc_memory_pool`` → ``init_lm_head`` → ``set_embed`` frees the draft's own tensors.  The
    budget therefore sees the draft at load, as that line prints it (the planner charges the same:
    ``engines.sglang.budget.draft_weights_at_sizing``)."""
    pools = [a.line_no for a in parsed.anchors if a.rank.label == draft_end.rank.label and a.group != "draft"
             and a.name in ("pool_end_avail", "kv_tokens", "kv_k_size", "kv_size", "max_total_num_tokens")]
    return not pools or draft_end.line_no < min(pools)


def tokens_agreed(parsed: ParsedLog):
    """The target's printed token count when the explained rank printed none but the other ranks did and all
    agree (None otherwise): SGLang sizes the pool from the free memory MIN-all-reduced over the world group
    (``get_available_gpu_memory(distributed=True)``, sglang 0.3.0 / 0.4.3 / 0.4.8 ``profile_max_num_token``;
    0.5.23 ``KVCacheConfigurator``, with a MIN sync across PP stages), so every rank of one launch prints the
    same count.  Different counts (two launches pasted together) pin nothing."""
    found = [a for a in parsed.anchors if a.name in ("kv_tokens", "max_total_num_tokens") and a.group != "draft"
             and a.count is not None and isinstance(a.count.value, int)]
    if not found or len({a.count.value for a in found}) != 1:
        return None
    return found[0]


def printed_floor(parsed: ParsedLog, tokens: int | None, page: int) -> tuple[int | None, int, str]:
    """(tokens, step, what) that pin SGLang's floor(budget / cell): the printed pool (step: the page), else the
    'profiled value' of the max_total_tokens warning (``profile_max_num_token``'s raw floor, step 1, negative when
    the budget is); (None, 1, "") without either."""
    if tokens is not None:
        return tokens, page, "the printed pool"
    for f in parsed.failures:
        for name, count in f.counts:
            if name == "profiled_tokens" and isinstance(count.value, int):
                return count.value, 1, "the printed profiled value"
    return None, 1, ""


def unprinted_shortfall(tokens: int | None, step: int, what: str, rest: Iv | None, cell: float | None, f,
                         world: int, printed_ranks: int, ctx: Context) -> str | None:
    """Why a printed pool below the rebuilt range can still be SGLang's own arithmetic: the pool is sized from the
    MIN over all ranks of the free memory before and after the weights (``get_available_gpu_memory(distributed=
    True)`` in ``init_torch_distributed`` and ``profile_max_num_token``, sglang 0.3.0–0.5.8; 0.5.23
    ``KVCacheConfigurator``), and a log that prints fewer ranks than the world does not show the smallest.  The
    printed tokens pin the budget to [tokens × cell, (tokens + step) × cell) (``printed_floor``: the pool, step the
    page; or the warning's profiled value, step 1); its distance Δ below the rebuilt
    budget is what an unprinted rank lacks: Δ when only its free memory after the weights is lower, Δ / f when it
    is lower by the same amount on both samples (the slack (1 − f) × pre shrinks with it).  None when the printed
    pool is not below the range, every rank is printed, or a ``--max-total-tokens`` cap may bind."""
    if tokens is None or rest is None or not cell or f is None:
        return None
    if world <= 1 or printed_ranks >= world or (ctx.get("max_total_tokens") and step != 1):
        return None
    need_high_bytes = (tokens + step) * cell  # a float: the cell is bytes per token, not always whole
    need_high_gib = need_high_bytes / 2**30
    short_gib = (rest.low.bytes - need_high_bytes) / 2**30
    if short_gib <= 0:
        return None
    return (f"{what} ({tokens:,} tokens) needs a KV budget below {need_high_gib:.3f} GiB, "
            f"{short_gib:.3f} GiB under the low end ({gib_text(rest.low, 3)}) of the budget rebuilt from the "
            f"{printed_ranks} printed rank(s) of {world}: SGLang sizes every rank's pool from the MIN over all ranks "
            f"of the free memory before and after the weights (get_available_gpu_memory(distributed=True)), so an "
            f"unprinted rank had {short_gib:.2f}–{short_gib / max(float(f), 1e-9):.2f} GiB less free memory than that low "
            "end assumes (after the weights only … on both samples); the log does not show it")
