"""Round cr36a (2026-12-07): ``--disable-cuda-graph`` after an SGLang capture OOM that prints no anchors keeps the
run's own pool (``explain.sgkeptpool``), docs/accuracy.md §7.3 'SGLang crash logs without a fit, round cr36a'.
Each condition both ways: the fraction the run's (printed or given, or a release before 0.5.14), a graph captured,
speculative decoding shown off; the anchored re-plan (cr34a) and the corpus logs of the round unchanged."""

from __future__ import annotations

import re

from explain_testlib import log_bytes
from test_explain_corpus import FLAGS_FOR, NOT_SHOWN

from tpkit.explain import explain_log


def _server_args(fraction: str | None = "0.55", spec: str = "None") -> bytes:
    """sg_763's ServerArgs line (SGLang 0.5.19 by its fields), its model path replaced by one no catalog resolves, the
    fraction and the speculative algorithm set."""
    line = next(l for l in log_bytes("sg_763").decode().splitlines() if "server_args=ServerArgs(" in l)
    line = re.sub(r"(model_path|tokenizer_path)='[^']*'", r"\1='/models/private-model'", line)
    line = re.sub(r"mem_fraction_static=[0-9.]+, ", "" if fraction is None else f"mem_fraction_static={fraction}, ",
                  line)
    assert "speculative_algorithm=None" in line
    return (line.replace("speculative_algorithm=None", f"speculative_algorithm={spec}") + "\n").encode()


_CAPTURED = log_bytes("sg_453")  # capture OOM, 1.56 GiB in graph pools (a graph was captured), no anchors
_NOT_CAPTURED = next(l for l in log_bytes("sg_450").splitlines() if l.startswith(b"worker-longctx-1  | Exception"))


def _graphs_off(data: bytes, flags=None):
    d = explain_log(data, flags=flags).diagnosis
    assert d.phase == "cuda_graph"
    return next(f for f in d.fixes if f.flags.startswith("--disable-cuda-graph"))


def test_the_runs_pool_is_kept_where_the_fraction_is_printed_and_speculation_is_off():
    fix = _graphs_off(_server_args() + _CAPTURED)
    assert fix.fits and fix.kv_tokens is None
    assert fix.flags == "--disable-cuda-graph --mem-fraction-static 0.55"  # 0.5.19: the run's fraction pinned
    assert fix.note.startswith("the pool the run allocated before the capture is kept")
    assert "not shown to fit" not in fix.note


def test_a_speculative_draft_withholds_the_fit():
    """The draft worker is built after the target's capture: its weights and pool are not sized by the log."""
    fix = _graphs_off(_server_args(spec="'EAGLE'") + _CAPTURED)
    assert not fix.fits
    assert "speculative decoding shown off" in fix.note and "draft worker" in fix.note


def test_speculation_not_shown_withholds_the_fit():
    """No ServerArgs: the fraction given by a flag, but nothing says the run had no draft."""
    fix = _graphs_off(_CAPTURED, flags={"mem_fraction_static": 0.86})
    assert not fix.fits and "speculative decoding shown off" in fix.note


def test_a_default_fraction_from_0_5_14_is_not_pinned():
    """0.5.19, no fraction printed: the default moves with the flag and none is the run's to pin."""
    fix = _graphs_off(_server_args(fraction=None) + _CAPTURED)
    assert not fix.fits and fix.flags == "--disable-cuda-graph"
    assert "no fraction to pin" in fix.note


def test_before_0_5_14_the_flag_alone_keeps_a_default_fraction():
    fix = _graphs_off(_server_args(fraction=None) + _CAPTURED, flags={"engine_version": "0.5.13.post1"})
    assert fix.fits and fix.flags == "--disable-cuda-graph" and fix.kv_tokens is None
    assert "does not change with the flag before 0.5.14" in fix.note


def test_no_graph_captured_withholds_the_fit():
    """torch prints no private-pool figure: the failure may be the largest batch's eager forward (cr34a)."""
    fix = _graphs_off(_server_args() + _NOT_CAPTURED + b"\n")
    assert not fix.fits and "a graph already captured" in fix.note
    assert "the pool the run allocated" not in fix.note


def test_the_anchored_replan_is_unchanged():
    """sg_763 prints the anchors: its fix keeps cr34a's re-planned tokens, not the kept-pool note."""
    fix = _graphs_off(log_bytes("sg_763"))
    assert fix.fits and fix.kv_tokens == 107_457
    assert "the pool the run allocated" not in fix.note


def test_the_rounds_capture_logs_stay_suggestions_with_what_they_lack():
    """sg_453 with its source's release and fraction (FLAGS_FOR): the MTP draft was on (the report's attempt 5 / 6),
    and the excerpt shows nothing of it, so no fit; sg_028 / sg_030 / sg_450 as before."""
    assert FLAGS_FOR["sg_453"] == {"engine_version": "0.5.13.post1", "mem_fraction_static": 0.86}
    fix = _graphs_off(log_bytes("sg_453"), flags=FLAGS_FOR["sg_453"])
    assert fix.flags == "--disable-cuda-graph" and not fix.fits
    assert "speculative decoding shown off" in fix.note
    for cid in ("sg_028", "sg_030", "sg_450", "sg_453"):
        assert cid in NOT_SHOWN
        d = explain_log(log_bytes(cid), flags=FLAGS_FOR.get(cid)).diagnosis
        assert not any(f.fits for f in d.fixes), cid
