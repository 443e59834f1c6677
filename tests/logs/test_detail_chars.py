"""One cut for every failure detail read from a message (``logs.failures.DETAIL_CHARS``; round rev33's leftover,
helper tidy34, session 34): NCCL's WARN record was cut at 240 characters, the graph-capture error and the
start-failure header at 200, with no name for either."""

from __future__ import annotations

from tpkit.logs.failures import DETAIL_CHARS, detect

_LONG = "x" * 400


def _details(message: str) -> dict[str, str]:
    return {kind: detail for kind, _, _, _, detail in detect(message, "")}


def test_an_nccl_warning_is_cut_where_every_other_detail_is():
    warn = "node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: " + _LONG
    detail = _details(warn)["nccl_error"]
    assert detail.startswith("NCCL WARN socketPollConnect: ") and len(detail) == DETAIL_CHARS


def test_the_graph_capture_and_start_failure_details_share_the_cut():
    assert len(_details("Capture cuda graph failed: " + _LONG)["cuda_graph_capture_failed"]) == DETAIL_CHARS
    assert len(_details("EngineCore failed to start. " + _LONG)["engine_start_failed"]) == DETAIL_CHARS


def test_a_short_detail_is_kept_whole():
    warn = "node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113"
    assert _details(warn)["nccl_error"] == warn[warn.index("NCCL WARN"):]
