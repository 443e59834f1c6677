"""vLLM: the CUDA-graph estimate subtracted before KV sizing, and the printed peak activation that may hold it.

The one home of the rule (issue 12, helper flfix 2026-12-04); ``explain.vllm`` (the ledger's activation row, the
derived "available KV" check, the non-KV residual) and ``explain.fromlog`` (``plan --from-log``'s measured
activation peak and CUDA graphs) both read it from here.

From 0.18.0 vLLM measures the CUDA-graph memory before KV sizing (``profile_cudagraph_memory``) and subtracts it
from the KV budget only when ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` is on: the *applied* estimate
(``vllm/envs.py``: default "0" in 0.18.0–0.19.1, "1" from 0.20.0 to 0.34.0).  ``v1/worker/gpu_worker.py
Worker.determine_available_memory`` sets ``self.peak_activation_memory``, which ``compile_or_warm_up_model``
prints as "P GiB for peak activation" on the kv-cache-memory suggestion line ("Free memory on device …"); read in
the wheels 0.18.0, 0.18.1, 0.19.0–0.29.0, 0.30.0–0.34.0:

    release        print ("Actual usage is …")            printed P                       available KV
    0.18.0–0.18.1  "W GiB for weight, P GiB for peak      torch_peak_increase + applied   R − (W + N + P)
                   activation, N GiB for non-torch"
    0.19.0–0.26.0  the same                               torch_peak_increase             R − (W + N + P) − applied
    0.27.0–0.34.0  "C GiB for consumed memory (weights    transient_peak_headroom         R − C − P
                   + non-torch), P GiB for peak           + applied
                   activation"

(R requested memory, W weights, N non-torch memory, C total consumed.)  So where the print holds the estimate, the
activation term is ``P − applied`` and the estimate is a term of its own.  The consumed wording is the signature
of the 0.27 code (``utils/mem_utils.py memory_profiling``'s ``transient_peak_headroom``), also printed by main
builds between 0.26.1rc0 and 0.27.0 (vl_100: 0.26.1rc1.dev156), so it decides the rule by itself; the old wording
holds the estimate only in 0.18.x (by release).

Whether the estimate was applied: the log says so where the estimate is > 0 ("CUDA graph memory profiling is
enabled … is equivalent to --gpu-memory-utilization=U′": applied; "… increase --gpu-memory-utilization from U to
U′": measured, not applied); otherwise the release's default (on from 0.20.0, and in every release that prints
the consumed wording).  Which estimate: the printed "Estimated CUDA graph memory: X GiB" or the "(estimated)" of
"CUDA graph pool memory" (``graph_estimate``).  An estimate that was applied but is not printed (an excerpt)
stays inside P: the terms are then ``P`` and 0, whose sum is still what vLLM subtracted.
"""

from __future__ import annotations

from tpkit.explain.interval import Iv, iv_of
from tpkit.logs import RankView
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["GraphEstimateUse", "graph_estimate_use", "PEAK_HOLDS_ESTIMATE_OLD_FORMAT", "ESTIMATE_DEFAULT_ON"]

PEAK_HOLDS_ESTIMATE_OLD_FORMAT = ((0, 18, 0), (0, 19, 0))
"""release range [first, next) whose old-wording print ("GiB for weight, … for peak activation") holds the applied
estimate (gpu_worker.py determine_available_memory: ``torch_peak_increase + cudagraph_memory_estimate_applied``
in 0.18.0 and 0.18.1, ``torch_peak_increase`` alone in 0.19.0–0.26.0)"""

ESTIMATE_DEFAULT_ON = (0, 20, 0)
"""first release whose ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` defaults to "1" (envs.py; "0" in 0.18–0.19)"""

_ZERO = Iv(low=Bytes(0), high=Bytes(0))


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphEstimateUse:
    """What a vLLM log says about the CUDA-graph estimate and the printed peak activation."""

    estimate: Iv | None
    """the printed estimate (``graph_estimate``), None where none is printed"""
    applied: Iv | None
    """the part subtracted before KV sizing: the estimate, 0 where it was not applied, None where it was applied
    but is not printed"""
    applied_why: str
    peak_holds: bool
    """the printed peak activation holds ``applied`` (the consumed wording, or 0.18.x)"""
    peak_why: str

    def activation(self, peak: Iv | None) -> Iv | None:
        """The activation term of a printed peak ``peak``: ``P − applied`` where the print holds a known applied
        estimate, else ``P`` (an applied estimate not printed alone stays inside it)."""
        if peak is None:
            return None
        if self.peak_holds and self.applied is not None:
            left = peak - self.applied
            return Iv(low=max(left.low, Bytes(0)), high=max(left.high, Bytes(0)))
        return peak

    @property
    def graphs_in_peak(self) -> bool:
        """An applied estimate that is not printed alone sits inside the printed peak activation."""
        return self.peak_holds and self.applied is None

    @property
    def subtracted(self) -> Iv:
        """The applied estimate as a term of its own (0 where unknown: then it is inside the peak, or not
        printed)."""
        return self.applied if self.applied is not None else _ZERO


def _release(version: str | None) -> tuple[int, int, int] | None:
    if not version:
        return None
    from tpkit.engines.vllm.versions import parse_version
    from tpkit.errors import PlanInputError

    try:
        return parse_version(str(version).partition(":")[0])
    except PlanInputError:
        return None


def graph_estimate_use(view: RankView, version: str | None) -> GraphEstimateUse:
    """The CUDA-graph estimate of one rank's log lines (``view``) of vLLM ``version`` (the release text, None when
    unknown): printed, applied or not, inside the printed peak activation or not (module docstring)."""
    ge = view.last("graph_estimate")
    estimate = iv_of(ge.size) if ge else None
    consumed = view.last("consumed_memory") is not None
    release = _release(version)
    on, off = view.last("gmu_equivalent"), view.last("gmu_estimate_off")
    if on is not None and (off is None or on.line_no >= off.line_no):
        applied_on, why = True, f"applied: 'CUDA graph memory profiling is enabled' (line {on.line_no})"
    elif off is not None:
        applied_on, why = False, (f"not applied: 'increase --gpu-memory-utilization from …' "
                                  f"(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS off, line {off.line_no})")
    elif consumed or (release is not None and release >= ESTIMATE_DEFAULT_ON):
        applied_on, why = True, ("applied: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 1 from vLLM 0.20.0 "
                                 "(the log prints neither profiling message)")
    else:
        applied_on, why = False, ("not applied: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 0 before "
                                  "vLLM 0.20.0" if release is not None else
                                  "not applied as far as the log shows (release unknown, no profiling message)")
    if not applied_on:
        applied = _ZERO
    elif estimate is not None:
        applied = estimate
        why += f"; the estimate printed line {ge.line_no}"
    else:
        applied = None
        why += "; the estimate itself is not printed"
    if consumed:
        holds, peak_why = True, ("the 'consumed memory (weights + non-torch)' print (vLLM ≥ 0.27): peak activation = "
                                 "transient peak headroom + the applied CUDA-graph estimate")
    elif release is not None and PEAK_HOLDS_ESTIMATE_OLD_FORMAT[0] <= release < PEAK_HOLDS_ESTIMATE_OLD_FORMAT[1]:
        holds, peak_why = True, ("vLLM 0.18.x: peak activation = torch peak increase + the applied CUDA-graph "
                                 "estimate")
    else:
        holds, peak_why = False, "the printed peak activation holds no CUDA-graph estimate (vLLM 0.19–0.26 or older)"
    return GraphEstimateUse(estimate=estimate, applied=applied, applied_why=why, peak_holds=holds, peak_why=peak_why)
