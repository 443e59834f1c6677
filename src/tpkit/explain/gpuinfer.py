"""The device total of a log that names no GPU, bounded by the memory arithmetic it prints (issue 12).

SGLang's free-memory figures (``get_available_gpu_memory``: ``torch.cuda.mem_get_info`` free bytes / 2^30, printed
"{x:.2f} GB"; sglang 0.3.3–0.5.23 ``model_executor/model_runner.py``) bound the device total from below: the
total is at least what was free plus what the process had already taken at that moment —

* 'Load weight begin. avail mem' + 'Init torch distributed ends. mem usage' (same rank): the free memory before
  the distributed init (0.4.6+ print the usage); only the CUDA context and the process's own start-up lie above;
* 'Load weight end. avail mem' + its 'mem usage', or 'Load weight begin. avail mem': the free memory before the
  weights; the CUDA context and the distributed init (NCCL, custom all-reduce) lie above;
* any other free figure ('Load weight end', 'Memory pool end', …): a lower bound only.

The upper bound assumes the process is alone on its GPU: the figure plus what tpkit's start-up table allows for
what lies above it (the CUDA context's highest band end over the GPU families; the distributed init's band:
``sglang_tp1_init`` for one rank, NCCL's for ``tp`` ranks over NVLink or PCIe, whichever is larger).  Where the rank
prints its distributed init ('Init torch distributed ends. mem usage', 0.4.6+), the measured figure bounds it and the
band is not used (helper sgz, 2026-12-04: RCCL's 8-10 GiB per rank on MI300X / MI355X lie above NCCL's band, which
made the band's bound fall below the measured lower bound).  The catalog
GPUs whose CUDA total lies in [low, high] are the candidates; none is chosen when several fit.  Only totals printed
for the GPU itself compete (``GpuSpec.total_printed``: a total assumed from a sibling board or derived from
nvidia-smi does not), and only GPUs SGLang runs on (``engines.sglang.support.sglang_runs_on``: SM75 and newer).
"""

from __future__ import annotations

from tpkit.logs import ParsedLog
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes, gib_text

__all__ = ["InferredTotal", "infer_sglang_total"]


@dataclass(frozen=True, kw_only=True, slots=True)
class InferredTotal:
    """The device total (CUDA-reported) as the log's arithmetic bounds it."""

    low: Bytes
    """the total is at least this"""
    high: Bytes | None
    """at most this when the process is alone on its GPU; None when no figure bounds it from above"""
    evidence: tuple[str, ...]
    """the figures and the arithmetic, with their lines"""
    candidates: tuple[str, ...]
    """catalog GPUs whose CUDA total lies in [low, high]"""

    def text(self) -> str:
        rng = (f"{gib_text(self.low, label='')}–{gib_text(self.high)}" if self.high is not None
               else f"≥ {gib_text(self.low)} (no upper bound)")
        fits = (f"; catalog GPUs in the interval: {', '.join(self.candidates)}" if self.candidates
                else "; no catalog GPU in the interval")
        return f"device total inferred from the memory arithmetic: {rng} ({'; '.join(self.evidence)}){fits}"

    def to_dict(self) -> dict:
        return {"low_bytes": self.low.bytes, "high_bytes": None if self.high is None else self.high.bytes,
                "evidence": list(self.evidence), "candidates": list(self.candidates)}


def _context_high() -> tuple[Bytes, str]:
    """The highest band end of the CUDA context over the start-up table's families."""
    from tpkit.startup.table import read_table, entry

    best = max(((entry("cuda_context", k).bytes + entry("cuda_context", k).uncertainty), k)
               for k in read_table()["terms"]["cuda_context"])
    return best[0], f"CUDA context ≤ {format_bytes(best[0])} (start-up table, highest band end: {best[1]})"


def _dist_high(tp: int) -> tuple[Bytes, str]:
    """The distributed init's highest band end for ``tp`` ranks, over every transport of the start-up table's pooled
    NCCL cells: NVLink, PCIe and RCCL over xGMI (an AMD Instinct card is a candidate too; helper ev32, 2026-12-07:
    without xgmi the bound fell under an MI300X corpus log's figure when the pooled nvlink:8 cell lost one sample;
    docs/accuracy.md round ev32 names them)."""
    from tpkit.startup.table import entry, nccl_entry

    if tp <= 1:
        e = entry("sglang_tp1_init", "all")
        return e.bytes + e.uncertainty, f"distributed init (1 rank) ≤ {format_bytes(e.bytes + e.uncertainty)}"
    high = max(nccl_entry(t, tp).bytes + nccl_entry(t, tp).uncertainty for t in ("nvlink", "pcie", "xgmi"))
    return high, f"distributed init ({tp} ranks, NCCL band) ≤ {format_bytes(high)}"


def infer_sglang_total(parsed: ParsedLog, tp: int) -> InferredTotal | None:
    """The device-total interval from SGLang's free-memory figures (module doc); None without any figure."""
    per_rank: dict[str, dict[str, object]] = {}
    for a in parsed.anchors:
        if a.size is not None and a.group != "draft":
            per_rank.setdefault(a.rank.label, {})[a.name] = a  # last printed per rank
    lows: list[tuple[Bytes, str]] = []
    uppers: list[tuple[Bytes, str]] = []
    ctx_high, ctx_why = _context_high()
    dist_high, dist_why = _dist_high(tp)
    for label, got in per_rank.items():
        where = f" ({label})" if label and label != "main" else ""
        begin, init = got.get("load_begin_avail"), got.get("init_dist_mem_usage")
        end, usage = got.get("load_end_avail"), got.get("weights_mem_usage")
        if begin is not None and init is not None:
            lo, hi = begin.size.low + init.size.low, begin.size.high + init.size.high
            lows.append((lo, f"line {begin.line_no}{where}: avail {begin.size.text} + distributed init "
                             f"{init.size.text} (line {init.line_no})"))
            uppers.append((hi + ctx_high, ctx_why))
        pre = None
        if begin is not None:
            pre = (begin.size.low, begin.size.high, f"line {begin.line_no}{where}: 'Load weight begin' avail "
                                                    f"{begin.size.text}")
        elif end is not None and usage is not None:
            pre = (end.size.low + usage.size.low, end.size.high + usage.size.high,
                   f"line {end.line_no}{where}: 'Load weight end' avail {end.size.text} + mem usage {usage.size.text}")
        if pre is not None:
            lows.append((pre[0], pre[2]))
            if not (begin is not None and init is not None):
                # the table's distributed-init band only where the rank prints no measured init: a printed
                # 'Init torch distributed ends. mem usage' already bounds it (RCCL on ROCm takes 8-10 GiB per rank,
                # above NCCL's band: sglang#25118, Jacob0226/SGLang-benchmarks MI355X logs)
                uppers.append((pre[1] + ctx_high + dist_high, f"{ctx_why}; {dist_why}"))
        for name in ("load_end_avail", "pool_end_avail", "graph_begin_avail", "graph_end_avail"):
            a = got.get(name)
            if a is not None:
                lows.append((a.size.low, f"line {a.line_no}{where}: free {a.size.text}"))
    if not lows:
        return None
    low, low_why = max(lows, key=lambda x: x[0].bytes)
    high, high_why = min(uppers, key=lambda x: x[0].bytes) if uppers else (None, "")
    evidence = [f"total ≥ {gib_text(low)} from {low_why}"]
    if high is not None and high < low:
        evidence.append(f"the per-rank upper bound {gib_text(high)} lies below it: another process on a GPU? "
                        "no upper bound used")
        high = None
    elif high is not None:
        evidence.append(f"≤ {gib_text(high)} if the process is alone on its GPU ({high_why})")
    from tpkit.engines.sglang.support import sglang_runs_on
    from tpkit.hardware.catalog import list_gpus

    fits = tuple(g.name for g in list_gpus() if high is not None and low <= g.total_bytes <= high
                 and g.total_printed and sglang_runs_on(g.vendor, g.compute_capability))
    return InferredTotal(low=low, high=high, evidence=tuple(evidence), candidates=fits)
