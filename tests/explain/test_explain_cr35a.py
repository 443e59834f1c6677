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


# --- the sizes of a phase's OOM where the first prints none (explain.sgsized) -----------------------------------

def _failures(case_id):
    from tpkit.logs import parse_log

    return parse_log(log_bytes(case_id).decode("utf-8", "replace"))


def test_first_request_sizes_from_the_phases_sized_oom_give_the_catalog_fraction():
    """sg_516 (sglang#4547): the first OOM (a CUDA runtime 'out of memory' in set_stream) prints no sizes, the same
    phase's torch OOM (line 86) does; with the model and card the issue names, the fraction is planned from the
    catalog (cr34a's rule) and its tokens are those tpkit plan gives at it (the round trip)."""
    from dataclasses import replace

    from test_explain_corpus import FLAGS_FOR

    from tpkit.explain.planned import catalog_plan, log_settings_sglang

    e = explain_log(log_bytes("sg_516"), flags=FLAGS_FOR["sg_516"])
    d = e.diagnosis
    assert d.phase == "first_request" and "sizes from the OOM at line 86" in d.cause
    fix = next(f for f in d.fixes if f.flags.startswith("--mem-fraction-static"))
    assert fix.fits and "band's pessimistic end" in fix.note
    _v, _c, parallel, options = log_settings_sglang(e.context)
    planned = catalog_plan(e.context.model, e.context.gpu, parallel,
                           replace(options, mem_fraction_static=float(fix.flags.split()[1])))
    assert planned.verdict.fits and planned.kv_tokens == fix.kv_tokens


def test_without_the_model_no_fraction_is_planned_even_with_sizes():
    """The other side: sg_516 without the flags (no model, no catalog card): no fraction fix."""
    d = explain_log(log_bytes("sg_516")).diagnosis
    assert not any(f.flags.startswith("--mem-fraction-static") for f in d.fixes)
    assert not any(f.fits for f in d.fixes)


def test_sized_oom_keeps_a_primary_that_prints_its_sizes():
    from tpkit.explain.sgsized import sized_note, sized_oom

    parsed = _failures("sg_519")  # two sized first-request OOMs: the primary keeps its own
    primary = parsed.primary_failure
    assert sized_oom(parsed, primary) is primary and sized_note(primary, primary) == ""


def test_sized_oom_reads_nothing_where_no_oom_of_the_phase_prints_sizes():
    from tpkit.explain.sgsized import sized_oom

    for cid in ("sg_517", "sg_518"):  # first-request OOMs cut before their sizes
        parsed = _failures(cid)
        assert sized_oom(parsed, parsed.primary_failure) is parsed.primary_failure, cid


def test_sized_oom_takes_only_the_same_phase_and_the_largest_shortfall():
    from types import SimpleNamespace as NS

    from tpkit.explain.sgsized import sized_oom
    from tpkit.units import Bytes

    def oom(line, phase, req=None, free=None):
        sizes = {"requested": req, "free": free}
        return NS(kind="cuda_oom", phase=phase, line_no=line,
                  size=lambda k, s=sizes: None if s.get(k) is None else NS(value=Bytes(s[k])))

    primary = oom(1, "first_request")
    other_phase = oom(2, "cuda_graph", 9 << 30, 1 << 30)
    small, large = oom(3, "first_request", 2 << 30, 1 << 30), oom(4, "first_request", 5 << 30, 1 << 30)
    assert sized_oom(NS(failures=[primary, other_phase, small, large]), primary) is large
    assert sized_oom(NS(failures=[primary, other_phase]), primary) is primary
