"""vLLM ≥ 0.34's extensible KV cache in a log: what each printed number is, and the pool rebuilt from them (helper
cur17b, vllm 0.34.0 wheel).

With the extensible KV cache (on by default from 0.34.0 on CUDA and ROCm) the KV pool is sized twice:

* ``v1/worker/gpu_worker.py determine_available_memory`` (logger line 795) prints "Available KV cache memory: A GiB"
  = requested − (consumed + transient peak) − the CUDA-graph estimate, which is 0 there (Model Runner V2's
  ``profile_cudagraph_memory``).  ``v1/engine/core.py _initialize_kv_caches`` turns it into the block count of the
  *reservation*: ``ExtensibleKVCache`` reserves address space for that many blocks and commits the minimum; the
  capacity line is not printed then (``update_kv_cache_capacity`` is skipped).  The "Free memory on device …
  Current kv cache memory in use is A GiB" line (line 1175, after capture) repeats the reservation.
* ``v1/worker/extensible_kv_cache.py measure_kv_cache_blocks`` (line 693), after warm-up and CUDA-graph capture,
  prints "Memory after warmup: W GiB free, K GiB committed to the KV cache, X GiB kept for transient activations
  (p GiB allocated at peak, g GiB of torch reservation growth); N KV cache blocks (B GiB) fit within the requested
  R GiB": ``measure_kv_cache_bytes`` = min(R − (F − W − K), W + K − max(1 GiB (ROCm 3 GiB), 0.75 × p)) − X, F the
  start-up snapshot's free memory ("Free memory on device (F/T GiB)"), X = max(p, g); N = ``blocks_within`` it
  (each segment's bytes rounded up to the 2 MiB granule, ``physical_bytes_for``), B = N × bytes per block.
* ``v1/core/kv_cache_planning.py finalize_extensible_kv_cache``: the final count is min(N over workers, the
  reservation's blocks); it prints the capacity line ("GPU KV cache size", ``kv_cache_utils.py`` line 1168) from
  that count, then each worker prints "Extended KV cache to N blocks (Y GiB)." (line 536; Y the physical bytes).

So "Available KV cache memory" is the reservation (an upper bound of the pool), and the pool is the measured budget
of the warm-up line.  A log is read this way where it prints the warm-up line; otherwise (0.34 with
``--no-enable-extensible-kv-cache``, any earlier release) nothing here applies."""

from __future__ import annotations

from tpkit.explain.interval import Iv, iv_of
from tpkit.explain.rows import Row, derived_row, printed_row
from tpkit.logs import ParsedLog, RankView
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

__all__ = ["ExtensiblePool", "extensible_pool", "is_extensible_log"]

_G = "GiB (vLLM divides by 2^30)"
MARGIN_FLOOR = {False: Bytes(1 << 30), True: Bytes(3 << 30)}
"""``KV_CACHE_MARGIN_FLOOR_BYTES`` (vllm 0.34.0 ``v1/worker/extensible_kv_cache.py``): 1 GiB, 3 GiB on ROCm"""
MARGIN_FRACTION = 0.75
"""``KV_CACHE_MARGIN_FRACTION`` (vllm 0.34.0)"""
GRANULE = Bytes(2 << 20)
"""the 2 MiB commit granule each segment of the pool is rounded up to (``ExtensibleKVCache.physical_bytes_for``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class ExtensiblePool:
    """The pool of an extensible-KV log, rebuilt from the smallest worker's warm-up line."""
    pool: Iv
    """``measure_kv_cache_bytes``: the KV bytes the worker's measurement allows (before the block rounding)"""
    capped: Iv
    """the pool the tokens are rebuilt from: the measured bytes less one granule per segment at the low end
    (``blocks_within``), capped at the reservation (``finalize_extensible_kv_cache``)"""
    words: str
    snapshot_free: Iv | None = None
    """the worker's free memory at the start-up snapshot ("Free memory on device (F/T GiB)"), None where not printed"""
    used: Iv | None = None
    """non-KV memory used since the snapshot: F − free after warm-up − committed (weights, non-torch growth, the
    captured graphs, what torch keeps)"""
    kept: Iv | None = None
    """kept for transient activations: max(allocated peak, torch reservation growth)"""
    peak: Iv | None = None
    """the allocated transient peak the margin scales with"""


def is_extensible_log(parsed: ParsedLog) -> bool:
    """The log prints vLLM ≥ 0.34's warm-up measurement (only an extensible KV cache prints it)."""
    return any(a.name in ("warmup_free", "kv_extended_blocks") for a in parsed.anchors)


def _rank_lines(parsed: ParsedLog) -> dict[str, dict[str, object]]:
    """Each rank's last warm-up numbers (anchor name → anchor)."""
    names = ("warmup_free", "warmup_committed", "warmup_kept", "warmup_peak", "warmup_growth", "warmup_requested",
             "warmup_fit_blocks", "startup_free")
    out: dict[str, dict[str, object]] = {}
    for a in parsed.anchors:
        if a.name in names and a.group is None:
            out.setdefault(a.rank.label, {})[a.name] = a
    return {k: v for k, v in out.items() if "warmup_free" in v}


def _max(a: Iv, b: Iv) -> Iv:
    return Iv(low=max(a.low, b.low), high=max(a.high, b.high))


def _min(a: Iv, b: Iv) -> Iv:
    return Iv(low=min(a.low, b.low), high=min(a.high, b.high))


def extensible_pool(parsed: ParsedLog, view: RankView, rows: list[Row], *, requested: Iv | None,
                    reservation: Iv | None, segments: int, rocm: bool) -> ExtensiblePool | None:
    """Rows for the warm-up measurement of the tightest worker and the pool rebuilt from it (None where the log
    prints no warm-up line).  ``segments``: the pool's segments (a layer-outermost layout: one per layer), each of
    which ``blocks_within`` may round up by up to one granule."""
    ranks = _rank_lines(parsed)
    if not ranks:
        return None
    start = view.last("startup_free")
    best: tuple[Iv, str, dict] | None = None
    for label, got in ranks.items():
        measured = _worker_pool(got, start, requested, rocm)
        if measured is not None and (best is None or measured[0].mid < best[0].mid):
            best = (measured[0], label, measured[1])
    if best is None:
        return None
    pool, label, got = best
    _warmup_rows(rows, got, label, pool, len(ranks), rocm)
    low = Bytes(max(pool.low.bytes - segments * GRANULE.bytes, 0))
    capped = Iv(low=low, high=pool.high)
    if reservation is not None:
        capped = _min(capped, reservation)
    words = (f"pool measured after warm-up (extensible KV cache, vLLM ≥ 0.34): {pool.text()}, less up to "
             f"{segments} × 2 MiB of granule rounding (blocks_within), capped at the reservation")
    init = got.get("startup_free") or start
    return ExtensiblePool(pool=pool, capped=capped, words=words, used=got["_used"], kept=got["_kept"],
                          peak=got["_peak"], snapshot_free=iv_of(init.size) if init is not None else None)


def _worker_pool(got: dict, start, requested: Iv | None, rocm: bool) -> tuple[Iv, dict] | None:
    """One worker's ``measure_kv_cache_bytes`` from its warm-up anchors ``got`` → (the pool, ``got`` with the
    derived margin, used, kept, peak and growth added), None where it prints neither kept nor the peak.  ``start``:
    the view's start-up free memory, where the worker has none of its own; ``requested``: where it prints none."""
    free, committed = iv_of(got["warmup_free"].size), got.get("warmup_committed")
    committed = iv_of(committed.size) if committed else Iv(low=Bytes(0), high=Bytes(0))
    req = iv_of(got["warmup_requested"].size) if "warmup_requested" in got else requested
    peak = iv_of(got["warmup_peak"].size) if "warmup_peak" in got else None
    kept = iv_of(got["warmup_kept"].size) if "warmup_kept" in got else peak
    if kept is None:
        return None
    if peak is None:
        peak = kept  # kept = max(peak, growth) ≥ peak: the margin's upper end
    floor = MARGIN_FLOOR[rocm]
    margin = Iv(low=max(floor, Bytes(int(peak.low.bytes * MARGIN_FRACTION))),
                high=max(floor, Bytes(int(peak.high.bytes * MARGIN_FRACTION))))
    head = free + committed - margin
    init = got.get("startup_free") or start
    if init is not None and req is not None:
        used = iv_of(init.size) - free - committed
        pool = _min(req - used, head) - kept
    else:
        used = None
        pool = head - kept
    return pool, dict(got, _margin=margin, _used=used, _kept=kept, _peak=peak, _growth=got.get("warmup_growth"))


def _warmup_rows(rows: list[Row], got: dict, label: str, pool: Iv, workers: int, rocm: bool) -> None:
    """Append the rows of the tightest worker's warm-up line (``got`` from ``_worker_pool``): what it printed, the
    margin, the memory used since the snapshot and the measured pool."""
    rows.append(printed_row("free memory after warm-up", got["warmup_free"],
                            f"device free memory read after warm-up and CUDA-graph capture, torch's cache emptied "
                            f"(measure_kv_cache_blocks, vLLM ≥ 0.34, worker {label}); {_G}"))
    if "warmup_committed" in got:
        rows.append(printed_row("KV blocks committed at the measurement", got["warmup_committed"],
                                f"the extensible pool's committed prefix then (counted back into the headroom); {_G}"))
    growth = got.get("_growth")
    kept_a = got.get("warmup_kept")
    if kept_a is not None:
        derived = _max(got["_peak"], iv_of(growth.size)) if growth is not None and "warmup_peak" in got else None
        rows.append(printed_row("kept for transient activations", kept_a,
                                f"max(allocated transient peak, torch reservation growth) of the profile and the "
                                f"sizing steps (record_transient_peak), kept free beside the pool; {_G}",
                                derived=derived, derived_from="max(peak, reservation growth) as printed"))
    rows.append(derived_row("extensible KV cache margin", got["_margin"],
                            f"max({gib_text(MARGIN_FLOOR[rocm], 0)}, {MARGIN_FRACTION} × the printed transient peak) "
                            "left free below the headroom (measure_kv_cache_bytes)"))
    if got["_used"] is not None:
        rows.append(derived_row("non-KV memory used since the snapshot", got["_used"],
                                "start-up free − free after warm-up − committed KV: weights, non-torch growth (all "
                                "outside-torch workspaces), the captured CUDA graphs and what torch keeps"))
    fit = got.get("warmup_fit_blocks")
    how = ("min(requested − used since the snapshot, free + committed − margin) − kept"
           if got["_used"] is not None else
           "free + committed − margin − kept (the start-up free memory is not printed: the requested side unchecked)")
    rows.append(derived_row("KV pool measured after warm-up", pool,
                            f"{how} (v1/worker/extensible_kv_cache.py measure_kv_cache_bytes, vLLM ≥ 0.34, the "
                            f"smallest of {workers} worker(s)); the engine takes min(blocks over workers, the "
                            "reservation's blocks)",
                            note=f"the worker printed {fit.count.text} blocks fitting" if fit else ""))
