"""A failure whose log never prints the error: a traceback cut before its exception line, or an engine's bare
"Scheduler hit an exception" / "EngineCore failed to start" header.  The frames place the failure (the phase); they
do not say what failed, so no lack of memory is assumed and no memory fix is offered (round ex29, docs/accuracy.md
§7.3: six held-back logs, among them an NCCL group's creation and an AssertionError of the KV commit, were called out
of memory from their phase alone)."""

from __future__ import annotations

import re

from tpkit.explain.diagnose import Diagnosis, Fix, custom_allreduce_fix, names_a_cause
from tpkit.logs.failures import POOL_SLOT_ERRORS

__all__ = ["unnamed_diagnosis", "NO_TEXT_KINDS", "UNNAMED_PHASES"]

NO_TEXT_KINDS = ("exception", "engine_start_failed")
"""failure kinds that say only that the run failed (``logs.failures``: a cut traceback is ``exception`` with the
detail 'traceback cut before its exception line'; the engines' start-failure headers are ``engine_start_failed``)"""

UNNAMED_PHASES = {"sglang": ("weights", "kv_pool", "first_request", "cuda_graph"),
                  "vllm": ("weights", "kv_pool", "cuda_graph")}
"""by engine, the phases whose diagnoses read any failure as out of memory (``sgweights.weights_failure`` /
``_first_request_failure``, ``voom.weights_failure`` and vLLM's KV-pool step, whose diagnosis otherwise says "no
memory left for the KV cache" from the phase alone: round ex30's logs, docs/accuracy.md §7.3); vLLM's first-request
diagnosis asks for a ``cuda_oom`` already.  SGLang's KV pool (round ex38b: kvcached#198, a traceback cut in
``Scheduler.__init__`` after kvcached's allocator refused gpt-oss's attention) was read "the KV pool could not be
sized or allocated" and given a fraction called a fit; a pool step whose error is printed keeps its own rules
(``sgdiagnose._kv_pool_failure``: 'Not enough memory', the weights floor, an allocation OOM).  The capture (round ex32): a
traceback cut in the capture with no error line was read "out of memory while capturing CUDA graphs" from the phase
alone (pytorch#170433; flashinfer#2546, whose error is past the excerpt); ex22's memory reading of a
*quoted* error cut short stays (``diagnose.capture_error_not_memory``: a ``cuda_graph_capture_failed`` failure is not
of ``NO_TEXT_KINDS``)"""

_WHERE = {"weights": "loading the weights", "first_request": "serving its first requests",
          "kv_pool": "in the profile run that sizes the KV cache", "cuda_graph": "capturing the CUDA graphs"}
"""how a cause names each of ``UNNAMED_PHASES``' phases (vLLM's; ``_WHERE_SGLANG`` where SGLang's step differs)"""
_WHERE_SGLANG = {"kv_pool": "sizing or allocating the KV pool"}
"""SGLang sizes its pool from the free memory after the weights (``ModelRunner.init_memory_pool``), no profile run"""
_SKIP_CAPTURE = {"sglang": "--disable-cuda-graph", "vllm": "--enforce-eager"}
"""the flag that captures no CUDA graph (SGLang ``--disable-cuda-graph``, vLLM ``--enforce-eager``): whatever failed
in the capture is not run, so it is offered for a capture failure whose error is not printed"""


_WRAPPER_RAISE = re.compile(r"\bRuntimeError: (?=Engine core initialization failed)")
"""vLLM's API server raises ``RuntimeError("Engine core initialization failed. See root cause above. Failed core
proc(s): {…}")`` whatever the engine core died of (``v1/engine/utils.py`` ``wait_for_engine_startup``, read in the
0.11.0, 0.16.0, 0.17.0 and 0.33.0 wheels): that exception class is the wrapper's, not a cause (helper cr31,
2026-12-07: a log with no other error was read as naming one, and its KV-pool step as "no memory left")"""


def _texts(failures) -> list[str]:
    """The failures' details and evidence, less the start-up header's own exception class (``_WRAPPER_RAISE``)."""
    return [_WRAPPER_RAISE.sub("", t) if f.kind == "engine_start_failed" else t
            for f in failures for t in (f.detail, f.evidence) if t]


def unnamed_diagnosis(parsed, engine: str | None) -> Diagnosis | None:
    """The diagnosis of a run of ``engine`` that failed in one of its ``UNNAMED_PHASES`` without printing its error,
    else None.

    It applies when every error of the run is of ``NO_TEXT_KINDS``, no failure text carries a memory word, a CUDA
    error or a Python exception class: the engine's own diagnosis then has nothing to read but the phase."""
    primary = parsed.primary_failure
    if primary is None or primary.phase not in UNNAMED_PHASES.get(engine or "", ()):
        return None
    errors = [f for f in parsed.failures if f.severity == "error"]
    if not errors or any(f.kind not in NO_TEXT_KINDS for f in errors):
        return None
    if names_a_cause(_texts(errors)):
        return None
    where = (_WHERE_SGLANG if engine == "sglang" else {}).get(primary.phase, _WHERE[primary.phase])
    frame = next((name for name in POOL_SLOT_ERRORS if f"frame {name} " in primary.phase_evidence), None)
    if frame is not None:  # SGLang's run-time pool allocators raise one error each (round ex29: sglang#26265)
        cause = (f"the run failed {where}: the traceback is cut in SGLang's {frame}, whose only error is "
                 f"'{POOL_SLOT_ERRORS[frame]}' (the pool had no free slots for a scheduled batch)")
    else:
        cause = (f"the run failed {where}, but the log does not print the error ({primary.detail or 'no exception line'}"
                 f"; {primary.phase_evidence}): nothing says it was a lack of memory, so no memory fix is given; the "
                 "exception line after the traceback names the cause")
    fixes = () if primary.phase != "cuda_graph" else (*custom_allreduce_fix(primary.phase_evidence), Fix(
        flags=_SKIP_CAPTURE[engine], kv_tokens=None, fits=True,
        why="no CUDA graph is captured, so whatever failed in the capture does not run (slower decode)"))
    return Diagnosis(status="failed", phase=primary.phase, cause=cause,
                     evidence=f"line {primary.line_no}: {primary.evidence[:160]}", fixes=fixes)
