"""vLLM V1's dump of a failed step: the engine core's error came from a served step (round ex38).

``EngineCore.step`` (and ``step_with_batch_queue``) run ``execute_model`` inside ``log_error_detail``, whose ``except``
calls ``dump_engine_exception`` before re-raising: it logs "Dumping input data for V1 LLM engine (vX) with config: …",
"Dumping scheduler output for model execution: …" and "Dumping scheduler stats: SchedulerStats(…)"
(``vllm/logging_utils/dump_input.py``; ``v1/engine/core.py``, 0.11.0, 0.20.1 and 0.30.0 wheels).  ``step`` returns
before scheduling when the scheduler holds no request, and the start-up's profile run, graph capture and warm-up call
the executor directly, never through ``step``: so the dump is logged only for a step that ran scheduled requests.  A
traceback cut before its exception line within ``REACH`` lines of the dump (the worker's, printed just before the
engine core's dump: vllm-project/vllm#43222, 809 requests running) is a served step's failure, the V1 counterpart of
V0's serving loop (``phases.serving_loop_phase``).
"""

from __future__ import annotations

from tpkit.logs.nearline import marker_near

__all__ = ["NEEDLES", "REACH", "step_dump_phase"]

NEEDLES = ("Dumping input data for V1 LLM engine", "Dumping scheduler output for model execution",
           "Dumping scheduler stats: ")
REACH = 120
"""lines between the dump and the traceback it places (``logs.enginedead.REACH``, ``logs.scan._TB_REACH``'s reach)"""


def step_dump_phase(text: str, line_no: int) -> tuple[str, str] | None:
    """``first_request`` for a traceback starting at ``line_no`` of ``text`` within ``REACH`` lines of a line of
    vLLM V1's failed-step dump, else None."""
    found = marker_near(text, NEEDLES, line_no, REACH)
    if found is None:
        return None
    at, needle = found
    return ("first_request", f"vLLM V1's failed-step dump at line {at} ('{needle.strip()}'): the engine core logs it "
                             "only when a scheduled step's execute_model raised, so the traceback is a served "
                             "request's")
