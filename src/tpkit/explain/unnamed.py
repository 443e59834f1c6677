"""A failure whose log never prints the error: a traceback cut before its exception line, or an engine's bare
"Scheduler hit an exception" / "EngineCore failed to start" header.  The frames place the failure (the phase); they
do not say what failed, so no lack of memory is assumed and no memory fix is offered (round ex29, docs/accuracy.md
§7.3: six held-back logs, among them an NCCL group's creation and an AssertionError of the KV commit, were called out
of memory from their phase alone)."""

from __future__ import annotations

from tpkit.explain.diagnose import _CUDA_ERROR, _EXCEPTION_NAME, _MEMORY_WORDS, Diagnosis

__all__ = ["unnamed_diagnosis", "NO_TEXT_KINDS", "UNNAMED_PHASES", "SLOT_FRAMES"]

NO_TEXT_KINDS = ("exception", "engine_start_failed")
"""failure kinds that say only that the run failed (``logs.failures``: a cut traceback is ``exception`` with the
detail 'traceback cut before its exception line'; the engines' start-failure headers are ``engine_start_failed``)"""

UNNAMED_PHASES = {"sglang": ("weights", "first_request"), "vllm": ("weights",)}
"""by engine, the phases whose diagnoses read any failure as out of memory (``sgdiagnose._weights_failure`` /
``_first_request_failure``, ``vdiagnose._weights_failure``; vLLM's first-request diagnosis asks for a ``cuda_oom``
already); the capture keeps ex22's memory reading of a cut quote (``diagnose.capture_error_not_memory``), the KV pool
its own rules"""

SLOT_FRAMES = {
    "alloc_token_slots": "Out of memory. Try to lower your batch size.",
    "alloc_paged_token_slots_extend": "Prefill out of memory. Try to lower your batch size.",
    "alloc_paged_token_slots_decode": "Decode out of memory. Try to lower your batch size.",
    "alloc_req_slots": "alloc_req_slots runs out of memory. Please set a smaller number for `--max-running-requests`.",
}
"""SGLang's run-time pool allocators and the one error each raises: a scheduled batch needed more KV token slots
(or request slots) than the pools had free.  ``RuntimeError(error_msg)`` is each function's only raise
(``mem_cache/common.py``, sglang 0.5.9 wheel; ``mem_cache/allocation.py``, 0.5.23 wheel), so a traceback cut in
one of them names its error although the line is missing (round ex29: sglang#26265)."""


def _texts(failures) -> list[str]:
    return [t for f in failures for t in (f.detail, f.evidence) if t]


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
    texts = _texts(errors)
    if any(w in t.lower() for t in texts for w in _MEMORY_WORDS) or any(_CUDA_ERROR.search(t) for t in texts) \
            or any(_EXCEPTION_NAME.search(t) for t in texts):
        return None
    where = "loading the weights" if primary.phase == "weights" else "serving its first requests"
    frame = next((name for name in SLOT_FRAMES if f"frame {name} " in primary.phase_evidence), None)
    if frame is not None:
        cause = (f"the run failed {where}: the traceback is cut in SGLang's {frame}, whose only error is "
                 f"'{SLOT_FRAMES[frame]}' (the pool had no free slots for a scheduled batch)")
    else:
        cause = (f"the run failed {where}, but the log does not print the error ({primary.detail or 'no exception line'}"
                 f"; {primary.phase_evidence}): nothing says it was a lack of memory, so no memory fix is given; the "
                 "exception line after the traceback names the cause")
    return Diagnosis(status="failed", phase=primary.phase, cause=cause,
                     evidence=f"line {primary.line_no}: {primary.evidence[:160]}")
