"""Round cr35a (2026-12-07): SGLang weight-phase failures that are not a lack of memory (ex34's lead, sg_1010;
``explain.sgloadfail``), docs/accuracy.md §7.3 'SGLang crash logs without a fit, round cr35a'.  Each rule both ways."""

from __future__ import annotations

from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.explain.sgloadfail import LOAD_SYNC

_OOM = (b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacity of "
        b"79.15 GiB of which 120.75 MiB is free. Including non-PyTorch memory, this process has 79.02 GiB memory in "
        b"use.\n")


def _d(data: bytes, flags=None):
    return explain_log(data, flags=flags).diagnosis


def test_load_sync_error_is_another_ranks_failure_not_an_oom():
    """sg_1010 (sglang#5602): the rank that raises SGLang's load-sync ValueError finished its load; the failure is
    another rank's, not shown: no OOM cause, no memory fix."""
    d = _d(log_bytes("sg_1010"))
    assert d.phase == "weights" and d.status == "failed"
    assert "out of memory while loading" not in d.cause
    assert "another rank did not" in d.cause and "not in this log" in d.cause
    assert d.fixes == ()


def test_load_sync_error_with_an_oom_in_the_log_keeps_the_oom_reading():
    """The same log holding a CUDA OOM (the other rank's, printed in the same output): the OOM is the cause."""
    data = log_bytes("sg_1010").replace(b"ValueError: TP rank 1", _OOM + b"ValueError: TP rank 1", 1)
    d = _d(data)
    assert d.phase == "weights"
    assert d.cause.startswith("out of memory while loading the weights")
    assert d.fixes and any(f.flags.startswith("--tp") for f in d.fixes)


def test_load_sync_pattern_is_the_engines_wording_only():
    text = ("ValueError: TP rank 3 could finish the model loading, but there are other ranks that didn't finish "
            "loading. It is likely due to unexpected failures (e.g., OOM) or a slow node.")
    assert LOAD_SYNC.search(text).group(1) == "3"
    assert LOAD_SYNC.search("TP rank 3 could not finish the model loading") is None


def test_named_exception_while_loading_is_not_an_oom():
    """sg_064 (a weight whose shape does not match its parameter) and sg_034 (a shard past the tensor's dimension):
    an exception class with no memory word in any failure: no OOM cause, no memory fix."""
    for cid in ("sg_064", "sg_034"):
        d = _d(log_bytes(cid))
        assert d.phase == "weights", cid
        assert "which is not a lack of memory" in d.cause and "out of memory" not in d.cause, cid
        assert d.fixes == (), cid


def test_named_exception_that_is_a_memory_error_keeps_the_oom_reading():
    """The other side: the exception line a CUDA OOM (sg_064's assertion replaced): read as out of memory."""
    data = log_bytes("sg_064")
    start = data.index(b"AssertionError: Attempted")
    end = data.index(b"\n", start) + 1
    d = _d(data[:start] + _OOM + data[end:])
    assert d.phase == "weights"
    assert d.cause.startswith("out of memory while loading the weights")
    assert d.fixes


def test_named_exception_mentioning_memory_keeps_the_oom_reading():
    """An exception whose text mentions memory (not a reader OOM kind) is not called 'not a lack of memory'."""
    data = log_bytes("sg_064").replace(b"Attempted to load weight", b"not enough memory to load weight", 1)
    d = _d(data)
    assert "which is not a lack of memory" not in d.cause


def test_weights_oom_unchanged():
    """sg_512 (a CUDA OOM in create_weights): still out of memory, still offered --tp."""
    d = _d(log_bytes("sg_512"))
    assert d.cause.startswith("out of memory while loading the weights")
    assert any(f.flags.startswith("--tp") for f in d.fixes)


def test_cut_traceback_stays_unnamed():
    """sg_1011: a traceback cut before its exception line is explain.unnamed's (no memory assumed, no fix)."""
    d = _d(log_bytes("sg_1011"))
    assert "does not print the error" in d.cause and d.fixes == ()
