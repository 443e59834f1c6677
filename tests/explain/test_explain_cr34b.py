"""Helper cr34b (2026-12-07, issue 12): vLLM weights / layout crash logs re-planned from the model the log or its
source names, under round cr33c's one standard (docs/accuracy.md §7.3 round cr34b).  A layout fix whose re-plan
carries no weights the log measured is planned from the catalog (class b) and fits only at the band's pessimistic end
(``explain.vcatalogfit``); a weights-load OOM's layout fixes fit only where the plan of the log's own settings
reproduces the failure; a fix re-planned from the log's measured weights (class a) is unchanged.  Each rule on both
sides."""

from types import SimpleNamespace

import pytest
from explain_testlib import log_bytes
from test_explain_corpus import FLAGS_FOR

from tpkit.explain import explain_log, vcatalogfit
from tpkit.explain.diagnose import SUGGESTION, Fix

PESSIMISTIC = "the band's pessimistic end holds"


def _e(case_id, flags=None):
    return explain_log(log_bytes(case_id), flags=FLAGS_FOR.get(case_id) if flags is None else flags)


def _fix(d, prefix):
    return next(f for f in d.fixes if f.flags.startswith(prefix))


def _fake_relayout(low, high, need, fits=True):
    result = SimpleNamespace(band=SimpleNamespace(kv_tokens=(low, high)), context_length=need,
                             verdict=SimpleNamespace(fits=fits))
    return lambda *args, **kwargs: SimpleNamespace(result=result)


@pytest.mark.parametrize("low,need,ok", [(4096, 4096, True), (4095, 4096, False), (0, 1, False)])
def test_the_pessimistic_end_must_hold_one_request(monkeypatch, low, need, ok):
    # vLLM refuses to start where the KV cache cannot hold one request of max_model_len (check_enough_kv_cache_memory)
    import tpkit.explain.replan as replan

    monkeypatch.setattr(replan, "log_planner", lambda ctx, band=True, **changes: object())
    monkeypatch.setattr(replan, "relayout", _fake_relayout(low, 90_000, need))
    fits, words = vcatalogfit.at_pessimistic_end(None, None, tp=2, pp=1, quantization=None)
    assert fits is ok and f"{low:,} KV tokens" in words and f"the {need:,} of one request" in words


def test_a_failing_nominal_verdict_never_fits_at_the_pessimistic_end(monkeypatch):
    import tpkit.explain.replan as replan

    monkeypatch.setattr(replan, "log_planner", lambda ctx, band=True, **changes: object())
    monkeypatch.setattr(replan, "relayout", _fake_relayout(10_000, 20_000, 100, fits=False))
    assert vcatalogfit.at_pessimistic_end(None, None, tp=2, pp=1, quantization=None)[0] is False


def test_checked_offers_a_pessimistic_miss_as_a_suggestion(monkeypatch):
    fix = Fix(flags="--tensor-parallel-size 2", kv_tokens=5, fits=True, why="w", note="n")
    monkeypatch.setattr(vcatalogfit, "at_pessimistic_end", lambda *a, **k: (False, "the end holds 0"))
    miss = vcatalogfit.checked(fix, None, None, tp=2, pp=1, quantization=None)
    assert not miss.fits and miss.note.startswith(f"{SUGGESTION}: the end holds 0") and miss.kv_tokens == 5
    monkeypatch.setattr(vcatalogfit, "at_pessimistic_end", lambda *a, **k: (True, "the end holds 9"))
    hit = vcatalogfit.checked(fix, None, None, tp=2, pp=1, quantization=None)
    assert hit.fits and hit.note == "n; the end holds 9"


def test_weights_oom_planned_from_the_catalog_fits_at_the_pessimistic_end():
    # vl_785: Qwen3-235B-A22B-Instruct-2507-FP8 at tp 2 on RTX PRO 6000 Blackwell cards (the post's model, tp and
    # 0.27.1): the plan at tp 2 reproduces the OOM (110 GiB of weights per GPU); tp 4 fits at the band's low end
    d = _e("vl_785").diagnosis
    fix = _fix(d, "--tensor-parallel-size 4")
    assert fix.fits and PESSIMISTIC in fix.note and "≥ the 262,144 of one request" in fix.note
    assert "does not reproduce" not in d.cause
    # without the model the same log keeps the halving suggestion
    bare = _e("vl_785", flags={"tp": 2}).diagnosis
    assert not any(f.fits for f in bare.fixes) and _fix(bare, "--tensor-parallel-size 4").note.startswith(SUGGESTION)


def test_weights_oom_not_reproduced_by_the_catalog_calls_no_layout_fix_a_fit():
    # vl_1398: DeepSeek-R1-Distill-Llama-8B (the log's HF path; Llama-3.1-8B's geometry) on a 47.36 GiB card that
    # other processes hold 43.95 GiB of: the plan of the log's settings fits the empty card, so freeing the card is
    # the fit (planned at the pessimistic end) and tp / fp8 are suggestions
    d = _e("vl_1398").diagnosis
    assert "does not reproduce this weights OOM" in d.cause
    freed = d.fixes[0]
    assert freed.flags.startswith("free the other processes (43.95 GiB") and freed.fits and PESSIMISTIC in freed.note
    for prefix in ("--tensor-parallel-size 2", "--quantization fp8"):
        f = _fix(d, prefix)
        assert not f.fits and f.note.startswith(f"{SUGGESTION}: the plan of the log's own settings fits an empty card")


def test_a_nominal_fit_below_the_pessimistic_end_is_a_suggestion():
    # vl_224: Qwen2.5-7B fp16 on a 6 GiB card; the log measured no weights: tp 4 at 0.87 fits the nominal plan (2,112
    # tokens) but the band's low end holds none, so it is offered, not a fit (round cr33c counted it a fit)
    d = _e("vl_224").diagnosis
    fix = _fix(d, "--tensor-parallel-size 4 --gpu-memory-utilization 0.87")
    assert not fix.fits and fix.note.startswith(f"{SUGGESTION}: planned from the catalog")
    assert "holds 0 KV tokens" in fix.note
    assert not any(f.fits for f in d.fixes)


@pytest.mark.parametrize("case_id,flags", [
    ("vl_456", "--tensor-parallel-size 2"), ("vl_456", "--quantization fp8"), ("vl_342", "--tensor-parallel-size 2"),
    ("vl_430", "--tensor-parallel-size 2"), ("vl_005", "--tensor-parallel-size 2")])
def test_kv_pool_layout_fix_from_the_measured_weights_is_class_a(case_id, flags):
    # the log's 'Model loading took' / 'model weights take' scaled by the planned sharding: no band check applies;
    # vl_342's assembled FP8-dynamic config lets the measured 15.22 GiB scale (with the base config it did not);
    # vl_005: gpt-oss-120b on an H100, both named by its issue's title, 65.97 GiB measured
    fix = _fix(_e(case_id).diagnosis, flags)
    # helper cr35b: vl_342's tp 2 needs 2 GPUs and its DGX Spark (GB10) is the board's only one: the re-planned fix
    # is offered as a suggestion (explain.vhostgpus; tests/explain/test_explain_cr35b.py)
    beyond_the_host = "needs 2 GPUs; this host shows 1" in fix.note
    assert (fix.fits or beyond_the_host) and "the log's" in fix.note and PESSIMISTIC not in fix.note
    assert beyond_the_host == (case_id == "vl_342")


def test_kv_pool_layout_fix_without_the_model_stays_a_suggestion():
    for case_id in ("vl_456", "vl_342", "vl_005"):
        d = _e(case_id, flags={}).diagnosis
        fix = _fix(d, "--tensor-parallel-size 2")
        assert not fix.fits and "halving the measured weights is a rule of thumb" in fix.note
