"""Round cr34a (2026-12-07): SGLang crash logs without a fit, re-planned under round cr33c's one standard
(docs/accuracy.md §7.3 'SGLang crash logs without a fit, round cr34a').  Each rule both ways."""

from __future__ import annotations

from dataclasses import replace

from explain_testlib import log_bytes
from test_explain_corpus import FLAGS_FOR

from tpkit.explain import explain_log
from tpkit.explain.diagnose import SUGGESTION
from tpkit.units import Bytes, GiB

def _fixes(case_id, flags=None, prefix=""):
    e = explain_log(log_bytes(case_id), flags=flags)
    return e, [f for f in e.diagnosis.fixes if f.flags.startswith(prefix)]


# --- the fraction planned from the catalog after an OOM past the pool (explain.sgslack) -------------------------

def test_first_request_fraction_planned_from_the_catalog_fits():
    """sg_519: no pre-load memory printed; the model (the launch command) and the card (the OOM's total) known: the
    catalog plan's pre at the band's pessimistic end sizes the fraction that frees the OOM's shortfall + half the
    margin; a fit, its tokens those tpkit plan gives at that fraction (the round trip)."""
    e, fixes = _fixes("sg_519", prefix="--mem-fraction-static")
    assert e.diagnosis.phase == "first_request" and len(fixes) == 1
    fix = fixes[0]
    assert fix.fits and fix.kv_tokens and "planned from the catalog" in fix.note
    assert "band's pessimistic end" in fix.note and "not from the log's numbers" in fix.note
    from tpkit.explain.planned import catalog_plan, log_settings_sglang

    _v, _c, parallel, options = log_settings_sglang(e.context)
    f2 = float(fix.flags.split()[1])
    assert f2 < options.mem_fraction_static
    planned = catalog_plan(e.context.model, e.context.gpu, parallel, replace(options, mem_fraction_static=f2))
    assert planned.kv_tokens == fix.kv_tokens and planned.verdict.fits


def test_first_request_fraction_not_planned_without_the_model():
    """sg_516 prints no model (a '1.5B' title): no fraction is planned, the chunk stays a suggestion."""
    e, fixes = _fixes("sg_516")
    assert not any(f.flags.startswith("--mem-fraction-static") for f in fixes)
    assert not any(f.fits for f in fixes) and any(f.note.startswith(SUGGESTION) for f in fixes)


def test_other_processes_lower_the_planned_pre_load_memory():
    """sg_520's OOM lists another process's 946 MiB: the fraction is sized on the card less it."""
    _e, fixes = _fixes("sg_520", prefix="--mem-fraction-static")
    assert fixes and "on the card less the 946.00 MiB" in fixes[0].note


def test_no_fraction_when_the_shortfall_exceeds_the_static_memory():
    from tpkit.explain.sgslack import catalog_slack_fix

    e = explain_log(log_bytes("sg_519"))
    failure = e.parsed.primary_failure
    assert catalog_slack_fix(e.context, failure, Bytes(GiB(1).bytes), "activations").fits
    assert catalog_slack_fix(e.context, failure, Bytes(GiB(500).bytes), "activations") is None
    assert catalog_slack_fix(e.context, failure, None, "activations") is None


def test_the_plan_of_the_logs_settings_must_start():
    """A plan that does not start (the log got past the pool) does not describe the run: nothing planned."""
    from tpkit.explain.sgslack import catalog_slack_fix

    e = explain_log(log_bytes("sg_519"), flags={"gpu": "L4"})  # 109B parameters over 8 x 24 GB: no start
    assert catalog_slack_fix(e.context, e.parsed.primary_failure, Bytes(GiB(1).bytes), "activations") is None


# --- --disable-cuda-graph re-planned (explain.sggraphs) ----------------------------------------------------------

def test_disable_cuda_graph_fits_where_re_planned_and_a_graph_was_captured():
    """sg_763 prints its anchors and torch's 110 MiB of graph pools: the flag keeps the pool, re-planned (the
    fraction pinned from 0.5.14), a fit; its tokens are plan --from-log's (107,457)."""
    _e, fixes = _fixes("sg_763", prefix="--disable-cuda-graph")
    assert len(fixes) == 1 and fixes[0].fits and fixes[0].kv_tokens == 107_457
    assert fixes[0].flags == "--disable-cuda-graph --mem-fraction-static 0.55"


def test_disable_cuda_graph_release_boundary():
    """Before 0.5.14 the default fraction does not move with the flag: no fraction to pin; from 0.5.14 it is pinned."""
    _e, at13 = _fixes("sg_763", {"engine_version": "0.5.13"}, "--disable-cuda-graph")
    _e, at14 = _fixes("sg_763", {"engine_version": "0.5.14"}, "--disable-cuda-graph")
    assert at13[0].flags == "--disable-cuda-graph" and at13[0].fits
    assert at14[0].flags == "--disable-cuda-graph --mem-fraction-static 0.55" and at14[0].fits
    assert at13[0].kv_tokens == at14[0].kv_tokens


def test_disable_cuda_graph_is_a_suggestion_without_a_captured_graph_or_anchors():
    """sg_764: anchors, but torch prints no private pools (the largest batch's eager warm-up may be what failed);
    sg_453: graph pools, but no anchors to re-plan the pool from."""
    _e, no_graph = _fixes("sg_764", prefix="--disable-cuda-graph")
    assert not no_graph[0].fits and no_graph[0].note.startswith(SUGGESTION)
    assert "a graph already captured" in no_graph[0].note
    _e, no_anchor = _fixes("sg_453", prefix="--disable-cuda-graph")
    assert not no_anchor[0].fits and "the pool the flag keeps" in no_anchor[0].note
    assert "a graph already captured" not in no_anchor[0].note


# --- sg_045: the layout re-planned once the card is known ---------------------------------------------------------

def test_sg045_layout_re_planned_with_the_sources_card():
    _e, fixes = _fixes("sg_045", FLAGS_FOR["sg_045"])
    tp = next(f for f in fixes if f.flags == "--tp 2")
    assert tp.fits and "re-planned at tp 2" in tp.note and not tp.note.startswith(SUGGESTION)
    _e, bare = _fixes("sg_045")
    assert not next(f for f in bare if f.flags == "--tp 2").fits  # no card: the weights halved, a suggestion


# --- sgweights: the fraction of a weights re-plan sourced ---------------------------------------------------------

def test_weights_replan_fraction_is_the_releases_default_or_a_suggestion(monkeypatch):
    from tpkit.explain import sgweights

    e = explain_log(log_bytes("sg_042"), flags=FLAGS_FOR["sg_042"])
    ctx, a = e.context, e.anchored
    room = GiB(44).bytes  # the log's 44.02 GiB free before the load
    pinned = sgweights._weights_fixes_from_model(ctx, 1, room, None, a)
    assert pinned and all("SGLang's default at tp" in f.note for f in pinned)
    assert not any(f.note.startswith(SUGGESTION) for f in pinned)
    monkeypatch.setattr(sgweights, "_fraction_at", lambda ctx, tp: (sgweights.ASSUMED_FRACTION, sgweights.ASSUMED))
    assumed = sgweights._weights_fixes_from_model(ctx, 1, room, None, a)
    assert assumed and all(not f.fits and f.note.startswith(SUGGESTION) for f in assumed)
    given = sgweights._weights_fixes_from_model(ctx, 1, room, 0.773, a)
    assert all("(the run's)" in f.note for f in given)
