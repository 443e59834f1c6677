"""SGLang's TP memory-balance check: another process on one GPU, or ranks of different card sizes, told apart by
the numbers the log prints (``imbalance``)."""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, bytes_text
from tpkit.explain.sgbudget import BudgetReplan
from tpkit.units import Bytes, gib_text

__all__ = ["imbalance"]


_IDLE_SLACK_GIB = 3.0
"""how far below its total a card's free memory may sit at SGLang's start-up and still count as an idle card of that
size: the CUDA context and NCCL of the rank (about 0.5-1 GiB) and, on a consumer card, a desktop session (up to
about 2 GiB); capped at 16 % of the total for small cards"""


def _idle_cards(free_gib: float, cards) -> list:
    """Catalog cards an idle rank with ``free_gib`` free at start-up could be: free ≤ total ≤ free + slack."""
    return sorted((g for g in cards if free_gib <= g.total_bytes.gib <= free_gib + min(_IDLE_SLACK_GIB,
                                                                                           0.16 * g.total_bytes.gib)),
                  key=lambda g: g.total_bytes.gib)


def _mixed_cards(lo_gib: float, loc_gib: float, ctx) -> tuple[list, list] | None:
    """(cards the smallest rank could be, cards the local rank could be) when both ranks' free memory reads as an
    idle card and the smallest rank's card is a whole card size below the local one (the spread matches a
    difference in total, not memory taken on an equal card); None otherwise. The local card is the log's GPU when
    known (``ctx.gpu``), else the catalog cards its free memory fits."""
    from tpkit.hardware.catalog import list_gpus

    cards = list_gpus()
    big = [ctx.gpu] if ctx.gpu is not None and _idle_cards(loc_gib, [ctx.gpu]) else \
        ([] if ctx.gpu is not None else _idle_cards(loc_gib, cards))
    if not big:
        return None
    top = min(g.total_bytes.gib for g in big)
    small = [g for g in _idle_cards(lo_gib, cards) if g.total_bytes.gib < top - _IDLE_SLACK_GIB]
    return (small, big) if small else None


def _named_mixed(parsed, lo_gib: float | None) -> tuple[list, list] | None:
    """(smaller, larger) catalog cards when the log names GPUs whose totals differ by more than the idle slack
    (``Run.gpus_named``: an nvidia-smi list, an issue's environment) and a printed minimum, if any, fits the smaller
    card; None otherwise."""
    from tpkit.errors import TpkitError
    from tpkit.hardware.catalog import lookup_gpu

    cards = []
    for name in getattr(getattr(parsed, "run", None), "gpus_named", ()) or ():
        try:
            cards.append(lookup_gpu(name))
        except TpkitError:
            continue
    if len(cards) < 2:
        return None
    top = max(g.total_bytes.gib for g in cards)
    small = sorted({g.name: g for g in cards if g.total_bytes.gib < top - _IDLE_SLACK_GIB}.values(),
                   key=lambda g: g.total_bytes.gib)
    big = [g for g in cards if g.total_bytes.gib >= top - _IDLE_SLACK_GIB][:1]
    if not small or (lo_gib is not None and lo_gib > small[-1].total_bytes.gib):
        return None
    return small, big


def _balance_env(ctx) -> str:
    """The switch that turns SGLang's balance check into a warning: SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 up to
    0.5.8 (model_runner.py ``init_torch_distributed``), SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0 from 0.5.9
    (environ.py; distributed/bootstrap.py ``_check_tp_memory_balance`` 0.5.16-0.5.23), read in the wheels."""
    v = ctx.rules_version
    parts = tuple(int(x) for x in v.split(".")[:3] if x.isdigit()) if v else ()
    if parts and parts < (0, 5, 9):
        return "SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1"
    return "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0" + ("" if parts else
                                                          " (SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 before 0.5.9)")


def imbalance(failure, plan: BudgetReplan, ctx, parsed=None):
    """SGLang's rank-balance check failed: (cause, short, fixes). The check (model_runner.py / from 0.5.16
    distributed/bootstrap.py ``init_torch_distributed``, only when tp_size > 1) compares the minimum free memory
    over all ranks with 0.9 × this rank's: another process on one GPU and ranks of different card sizes both fail
    it. Mixed sizes are told apart by the printed numbers (``_mixed_cards``); their fixes re-plan the layout."""
    short = None
    sizes = dict(failure.sizes)
    lo, loc = sizes.get("pre_model_load_memory"), sizes.get("local_gpu_memory")
    x09 = sizes.get("local_times_0_9")
    loc_bytes = loc.value.bytes if loc else (int(x09.value.bytes / 0.9) if x09 else None)
    mixed = _mixed_cards(lo.value.gib, loc_bytes / 2 ** 30, ctx) if lo and loc_bytes else None
    mixed = mixed or _named_mixed(parsed, lo.value.gib if lo else None)
    if lo and loc_bytes:
        short = Bytes(int(loc_bytes * 0.9) - lo.value.bytes)
    gain = 0 if not (lo and loc_bytes) else loc_bytes - lo.value.bytes
    rest, tokens = plan.budget(free_gain=gain)
    if mixed is None:
        cause = "rank memory imbalance: some GPU of the TP group has > 10 % less free memory than another " \
                "(another process on the GPU)"
        if lo and loc_bytes:
            cause += f": min over ranks {lo.text} < 0.9 × local {bytes_text(loc_bytes)}"
        fixes = [Fix(flags="free the other process's memory on the busy GPU (nvidia-smi), or "
                           "CUDA_VISIBLE_DEVICES=<idle GPUs>", kv_tokens=tokens, fits=True,
                     why="with every rank as free as the local one the balance check passes"
                     + ("" if rest is None else f"; KV budget {bytes_text(rest)}"))]
        return cause, short, fixes
    small, big = mixed
    tp = int(ctx.get("tp", 1) or 1)
    tp = tp if tp > 1 else "N"
    names = lambda gs: " / ".join(f"{g.name} ({gib_text(g.total_bytes)})" for g in gs[:3])
    if lo and loc_bytes:
        cause = (f"rank memory imbalance from mixed card sizes: the smallest rank has {lo.text} free, what an idle "
                 f"{names(small)} has at start-up, the local rank {bytes_text(loc_bytes)}, an idle {names(big)}; the "
                 f"spread {bytes_text(gain)} is a whole card's difference in total, not memory another process holds")
    else:
        cause = f"rank memory imbalance from mixed card sizes: the log names {names(small)} and {names(big)}"
    cause += ". SGLang's check wants every TP rank within 10 % of the same free memory"
    fixes = [Fix(flags=f"CUDA_VISIBLE_DEVICES=<{tp} cards of one size> (matching cards)", kv_tokens=tokens, fits=True,
                 why="with equal cards every rank is as free as the local one and the balance check passes"
                 + ("" if rest is None else f"; KV budget {bytes_text(rest)}"),
                 note="" if tp != "N" else "or pipeline parallelism over the same cards (--tp-size 1 --pp-size "
                                            "<ranks>): SGLang runs the balance check only when tp_size > 1")]
    if tp != "N":
        fixes.append(Fix(flags=f"--tp-size 1 --pp-size {tp}", kv_tokens=None, fits=False,
                         why="SGLang runs the balance check only when tp_size > 1; each pipeline stage holds its "
                             "share of the layers",
                         note="not shown to fit (the log prints no weights); the pool is still sized from the "
                              "smallest rank's free memory (pre_model_load_memory is the minimum over all ranks)"))
    rest0, tokens0 = plan.budget()
    fixes.append(Fix(flags=_balance_env(ctx), kv_tokens=tokens0, fits=rest0 is not None and rest0 > 0,
                     why="the check only warns; every rank then sizes its pool from the smallest card's free memory "
                         "(SGLang's pre_model_load_memory is the minimum over ranks)",
                     note="" if rest0 is not None else "not shown to fit: the log prints no weights or fraction"))
    return cause, short, fixes
