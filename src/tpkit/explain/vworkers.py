"""vLLM: the capacity lines of several workers.  vLLM 0.8.2–0.11.0 print one 'GPU KV cache size' line per worker
before every worker gets the smallest block count (``VllmRules.capacity_per_worker``); a log that prints fewer
lines than workers may show another worker's line than the one whose available memory it prints.  Used by
``explain.vllm``."""

from __future__ import annotations

from tpkit.explain.context import Context
from tpkit.explain.vtokens import version_ends
from tpkit.logs import ParsedLog
from tpkit.units import gib_text


def _report_block(parsed: ParsedLog, last) -> list:
    """The capacity lines of the start-up report that ends with ``last``: the "GPU KV cache size" lines printed
    one after the other (each followed by its "Maximum concurrency" line, so at most 3 lines apart)."""
    lines = sorted((a for a in parsed.anchors if a.name == "kv_tokens" and a.group is None and a.count is not None
                    and isinstance(a.count.value, int) and a.line_no <= last.line_no), key=lambda a: a.line_no)
    block = [last]
    for a in reversed(lines[:-1] if lines and lines[-1] is last else lines):
        if block[-1].line_no - a.line_no > 3:
            break
        block.append(a)
    return block


PER_WORKER_RELEASES = ((0, 8, 2), (0, 11, 0))
"""first and last vLLM release whose engine core prints one 'GPU KV cache size' line per worker
(``VllmRules.capacity_per_worker``)"""


def may_print_per_worker(ctx: Context) -> bool:
    """Whether a release the log allows prints the capacity per worker while the rules that read it do not: no
    release printed nor inferred, or an inferred range (``version_ends``) that overlaps ``PER_WORKER_RELEASES``."""
    import re

    if not (ctx.version or ctx.rules_version):
        return True
    ends = version_ends(ctx)
    if ends is None:
        return False

    def parse(v: str) -> tuple[int, ...]:
        nums = tuple(int(x) for x in re.findall(r"\d+", v)[:3])
        return nums + (0,) * (3 - len(nums))

    lo, hi = parse(ends[0]), parse(ends[1])
    return lo <= PER_WORKER_RELEASES[1] and hi >= PER_WORKER_RELEASES[0]


def per_worker_capacity(parsed: ParsedLog, rules, tp: int, pp: int, tok_a, available_a,
                release_known: bool = True, range_text: str | None = None) -> tuple[object, str | None]:
    """vLLM 0.8.2–0.11.0 print one "GPU KV cache size" line per worker, each from that worker's own available
    memory, and only then give every worker the smallest block count (``VllmRules.capacity_per_worker``; the
    engine core's ``_initialize_kv_caches`` calls ``get_kv_cache_config`` once per worker, in worker order, before
    ``unify_kv_cache_configs``).  The pool is the smallest line of the report; the returned anchor is that line
    (``tok_a`` itself when the rule does not apply) and the pairing in words: with fewer lines than workers the
    printed line may be another worker's than the one whose 'Available KV cache memory' the log shows.

    ``release_known`` False (no release printed, or a range inferred from the line formats that holds such a
    release while the rules reading the log are another's, ``may_print_per_worker``): the rule is kept as a caveat in words when more than one worker runs and the log prints fewer capacity
    lines than workers — the pool is then not re-read from the lines (the release may print one line for all)."""
    world = tp * pp
    if tok_a is not None and not release_known and not rules.capacity_per_worker and world > 1:
        block = _report_block(parsed, tok_a)
        if len(block) < world:
            inferred = f"inferred {range_text} from the line formats; " if range_text else ""
            return tok_a, (f"the release is not printed ({inferred}the log is read with vLLM {rules.label} rules): vLLM "
                           "0.8.2–0.11.0 print one 'GPU KV cache size' line per worker, each from that worker's own "
                           "available memory, before every worker gets the smallest block count (v1/engine/core.py "
                           f"_initialize_kv_caches); the log prints {len(block)} line(s) for {world} workers, so "
                           "from such a release the printed line may be another worker's than the one whose "
                           "'Available KV cache memory' it shows; --engine-version reads it by that release")
    if tok_a is None or not rules.capacity_per_worker or rules.engine != "V1" or world <= 1:
        return tok_a, None
    block = _report_block(parsed, tok_a)
    smallest = min(block, key=lambda a: a.count.value)
    seen = sorted({a.rank.label for a in parsed.anchors if a.name == "available_kv" and a.group is None})
    text = (f"vLLM {rules.label} prints one 'GPU KV cache size' line per worker, each from that worker's own "
            "available memory, before every worker gets the smallest block count (v1/engine/core.py "
            "_initialize_kv_caches, 0.8.2–0.11.0): the pool is the smallest line")
    if len(block) >= world:
        text += f"; the log prints {len(block)} lines for {world} workers, the smallest {smallest.count.value:,}"
    else:
        shown = ", ".join(seen) if seen else "none"
        text += (f"; the log prints {len(block)} of the {world} workers' lines and the available memory of "
                 f"{len(seen)} worker(s) ({shown}; the smallest "
                 f"{available_a.size.text if available_a is not None else '—'}): the printed line may be another "
                 "worker's, whose available memory the log does not show")
    return smallest, text


def worker_spread(parsed: ParsedLog, rules, tp: int, pp: int, tok_a, available, release_known: bool = True):
    """The available KV memory of the worker whose 'GPU KV cache size' line the log prints, when that worker is
    not known: (interval, words), or (None, None) when every worker's line is printed, the rule does not apply,
    or one worker runs.  Without a capacity line (``tok_a`` None: a log cut short, or the capacity check's log with
    those lines removed) the interval is where any worker's line may lie when the log prints the available memory
    of fewer workers than run (the smallest, the pool, is then within it too).

    vLLM 0.8.2–0.11.0 print one line per worker from that worker's own 'Available KV cache memory'
    (``per_worker_capacity``); a log that prints fewer lines than workers may show any worker's.  When the log prints
    every worker's available memory the line's lies between their smallest and largest; else it lies within
    ``startup.rankspread.vllm_worker_spread`` of the printed ones, either way (0.47 GiB beyond two workers, the
    measured p90 of largest − smallest over the 3 logs at tp 4 / 8 that print every worker; 0 at two, 4 logs).
    Applied also when the release is not printed but its inferred range holds 0.8.2–0.11.0 (``release_known``
    False) and the rules reading the log print one line."""
    from tpkit.explain.interval import Iv, iv_of
    from tpkit.startup.rankspread import vllm_worker_spread
    from tpkit.units import Bytes

    world = tp * pp
    if available is None or world <= 1:
        return None, None
    applies = (rules.capacity_per_worker and rules.engine == "V1") or (not release_known
                                                                       and not rules.capacity_per_worker)
    if not applies or (tok_a is not None and len(_report_block(parsed, tok_a)) >= world):
        return None, None
    last = {}
    for a in parsed.anchors:
        if a.name == "available_kv" and a.size is not None and a.group is None:
            last[a.rank.label] = iv_of(a.size)
    seen = list(last.values()) or [available]
    lo, hi = min(v.low for v in seen), max(v.high for v in seen)
    if len(seen) >= world:
        if tok_a is None:  # no capacity line: the pool is the smallest worker's, which the log shows
            return None, None
        return Iv(low=lo, high=hi), (f"the line printed may be any worker's: every worker's available memory is "
                                      f"printed, "
                            f"{Iv(low=lo, high=hi).text()}")
    spread, why = vllm_worker_spread(world)
    if spread.bytes == 0 and tok_a is None:
        return None, None
    return Iv(low=Bytes(max(0, lo.bytes - spread.bytes)), high=hi + spread), (
        f"the line printed may be any worker's, and {len(seen)} of the {world} workers' available memory is "
        f"printed: another worker's lies within {gib_text(spread)} of it either way ({why})")


def min_over_workers(parsed: ParsedLog, rules, tp: int, pp: int, available, release_known: bool = True,
                     derived: frozenset = frozenset()):
    """The available KV memory of the smallest worker, when the rules reading the log size every worker from it
    (vLLM V1 outside 0.8.2–0.11.0 — 0.8.0–0.8.1, and 0.11.1 on: ``v1/core/kv_cache_utils.py
    get_kv_cache_configs`` sets each worker's block count to the smallest and prints that capacity once, read in
    0.12.0) and the log prints the available memory of fewer workers than run (an
    excerpt of rank 0's lines, or a release whose workers do not all log): (interval, words), the printed interval
    widened DOWN by ``startup.rankspread.vllm_min_below_printed``; (None, None) otherwise.  ``derived``: the workers
    whose available memory is derived from their DEBUG non-KV line (``workers_available``), counted as shown."""
    from tpkit.explain.interval import Iv
    from tpkit.startup.rankspread import vllm_min_below_printed
    from tpkit.units import Bytes

    world = tp * pp
    if available is None or world <= 1 or rules.engine != "V1" or rules.capacity_per_worker or not release_known:
        return None, None
    printed = {a.rank.label: a for a in parsed.anchors
               if a.name == "available_kv" and a.size is not None and a.group is None}
    shown = len(set(printed) | set(derived))
    if shown >= world:
        return None, None
    rank0 = any(a.rank.index(tp_size=tp) == 0 for a in printed.values())
    allowance, why = vllm_min_below_printed(world, rank0)
    low = Bytes(max(0, available.low.bytes - allowance.bytes))
    return Iv(low=low, high=available.high), (
        f"vLLM {rules.label} gives every worker the smallest worker's block count and prints that capacity once "
        f"(v1/core/kv_cache_utils.py get_kv_cache_configs); the log prints the available memory of "
        f"{shown} of the {world} workers{' (' + str(len(derived)) + ' derived from the DEBUG non-KV line)' if derived else ''}, so the smallest may lie up to {gib_text(allowance)} below it ({why})")


def _last_by_worker(parsed: ParsedLog, name: str) -> dict:
    """The last anchor ``name`` (with a size, outside any group) of each worker, by rank label."""
    last = {}
    for a in parsed.anchors:
        if a.name == name and a.size is not None and a.group is None:
            last[a.rank.label] = a
    return last


def workers_available(parsed: ParsedLog, requested, applied) -> list[tuple[str, object, object, bool]]:
    """Each worker's available KV memory: (rank label, interval, anchor, derived).  Printed where the worker prints
    'Available KV cache memory'; derived where it prints only the DEBUG profile line ('Memory profiling takes …
    Total non KV cache memory: X GiB', ``non_kv_cache_memory``): its requested memory (its own print, else
    ``requested``) − X − ``applied`` (the applied CUDA-graph estimate, its own print where it has one), an interval
    holding the print rounding (``round(x / 2**30, 2)``, utils/mem_utils.py ``format_gib``).

    Read in the wheels 0.9.1, 0.18.0, 0.19.0, 0.27.0 and 0.34.0 (v1/worker/gpu_worker.py
    ``Worker.determine_available_memory``): available = requested − ``non_kv_cache_memory`` − the applied
    estimate (no estimate before 0.18.0), and ``non_kv_cache_memory`` never holds the estimate (weights + non-torch
    increase + torch peak increase in 0.18.0–0.26.0; total consumed + transient peak headroom from 0.27.0).  The
    INFO line is ``info_once(..., scope="local")`` in 0.19.0, so a worker that is not its node's first rank may
    print only the DEBUG line (vLLM 0.19.0 pp 2 / pp 4 logs: Worker_PP0 alone).  Derived only where some worker
    prints the INFO line (the log is one of those releases) and the applied estimate is known (``applied`` None:
    applied but not printed)."""
    from tpkit.explain.interval import iv_of

    printed = _last_by_worker(parsed, "available_kv")
    out = [(label, iv_of(a.size), a, False) for label, a in printed.items()]
    if not printed or applied is None:
        return out
    own_requested = _last_by_worker(parsed, "requested_memory")
    own_estimate = _last_by_worker(parsed, "graph_estimate")
    for label, a in _last_by_worker(parsed, "non_kv_cache_memory").items():
        req = iv_of(own_requested[label].size) if label in own_requested else requested
        if label in printed or req is None:
            continue
        graphs = applied
        if applied.high.bytes > 0 and label in own_estimate:
            graphs = iv_of(own_estimate[label].size)
        out.append((label, req - iv_of(a.size) - graphs, a, True))
    return out


def tightest_worker(workers: list[tuple[str, object, object, bool]]):
    """(the smallest available memory over ``workers`` — the least low and the least high —, the worker whose
    interval is lowest, by its middle), or (None, None) without workers.  The engine sizes every worker with the
    smallest (v1/core/kv_cache_utils.py ``get_kv_cache_configs``: the least block count)."""
    from tpkit.explain.interval import Iv

    if not workers:
        return None, None
    low = min(w[1].low for w in workers)
    high = min(w[1].high for w in workers)
    return Iv(low=low, high=high), min(workers, key=lambda w: w[1].low.bytes + w[1].high.bytes)
