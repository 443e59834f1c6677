"""vLLM V1's ``EngineDeadError``: the engine core died after its start-up finished (round ex37).

The API server's client raises ``EngineDeadError`` ("EngineCore encountered an issue. See stack trace (above) for the
root cause.", ``v1/engine/exceptions.py``) only on a running engine: ``MPClient.__init__`` starts the engine-core
monitor (``start_engine_core_monitor``, which sets ``engine_dead`` when a core process exits) as its last step, after
the start-up handshake succeeded; ``validate_alive`` raises it on the ``ENGINE_CORE_DEAD`` frame a core sends from its
busy loop; ``AsyncLLM.add_request`` raises it when ``errored``; the output task puts it in the queue a request's
``generate`` reads (``v1/engine/core_client.py``, ``v1/engine/async_llm.py``, 0.20.1 wheel).  A start-up that fails
raises "Engine core initialization failed" instead (``v1/engine/utils.py`` ``wait_for_engine_startup``).  So a
traceback the API server logs near the line (``chat_completion_stream_generator`` → ``generate`` →
``output_processor.get`` → ``raise output``: noonghunna/club-3090#613) is a served request's, whose root cause the
engine core printed above it — the V1 counterpart of V0's ``AsyncEngineDeadError`` (``phases.serving_loop_phase``).
"""

from __future__ import annotations

from tpkit.logs.nearline import marker_near

__all__ = ["NEEDLE", "REACH", "engine_dead_phase"]

NEEDLE = "EngineDeadError"
REACH = 120
"""lines between the ``EngineDeadError`` line and the traceback it places (``logs.scan._TB_REACH``'s reach)"""


def engine_dead_phase(text: str, line_no: int) -> tuple[str, str] | None:
    """``first_request`` for a traceback starting at ``line_no`` of ``text`` within ``REACH`` lines of a line naming
    vLLM V1's ``EngineDeadError``, else None."""
    found = marker_near(text, (NEEDLE,), line_no, REACH)
    if found is None:
        return None
    return ("first_request", f"vLLM V1's EngineDeadError at line {found[0]}: the engine core died after its "
                             "start-up finished (the client raises it only on a running engine), while a "
                             "request was served; its own error is printed above it")
