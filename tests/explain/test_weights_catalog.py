"""A weight-load OOM that prints no weight size gets its fixes planned from the catalog (issue 12, helper wo22).

The four SGLang weight-load OOMs sg_511–sg_514 print no 'Load weight' figure and no weight size: explain used to name
--tp / --quantization fixes it could not re-plan.  Where the model and the GPU are known (from the log, or --model /
--gpu) the fixes are now planned with ``explain.planned.catalog_fixes_sglang`` — the function ``tpkit plan
--from-log`` and the pool-OOM path use — and where either is unknown the cause says which to pass."""

from __future__ import annotations

from explain_testlib import ROOT, log_bytes

from tpkit.explain import explain_log
from tpkit.explain.render import format_explanation

MISTRAL_7B = str(ROOT / "tests/validation/configs/mistralai--Mistral-7B-Instruct-v0.2.json")


def test_a_weight_oom_the_catalog_reproduces_gets_planned_fits():
    """sg_514 (a Mistral-7B fine-tune; the log names no GPU) read as if on a T4: the catalog plan of the log's
    settings fails (13.5 GiB of bf16 weights above the static budget), so fp8 weights and --tp 2, planned by the
    same planner, are called fits, each marked as planned from the catalog with its band — not measured."""
    e = explain_log(log_bytes("sg_514"), flags={"model": MISTRAL_7B, "gpu": "T4"})
    d = e.diagnosis
    assert d.phase == "weights" and "planned from the catalog" in d.cause and "does not reproduce" not in d.cause
    fits = {f.flags: f for f in d.fixes if f.fits}
    assert set(fits) == {"--quantization fp8", "--tp 2"}, [f.to_dict() for f in d.fixes]
    for f in fits.values():
        assert f.kv_tokens > 0 and "planned from the catalog" in f.note and "(band " in f.note
    # no fraction fix: SGLang loads the weights before anything is sized by --mem-fraction-static
    assert not any(f.flags.startswith("--mem-fraction-static") for f in d.fixes)
    assert "planned from the catalog, not measured" in format_explanation(e)


def test_a_weight_oom_the_catalog_does_not_reproduce_gets_no_fit():
    """sg_511 (Llama-3-70B at --tp 8 on 8x L4; the catalog's Llama-3.1-70B geometry, models.json): the catalog plan
    of the log's settings fits an empty card, so the planned fixes are shown but none is called a fit, and the
    cause says the plan does not reproduce the failure (the same rule as the pool-OOM path)."""
    e = explain_log(log_bytes("sg_511"), flags={"model": "meta-llama/Llama-3.1-70B-Instruct"})
    d = e.diagnosis
    assert d.phase == "weights" and "does not reproduce" in d.cause
    assert d.fixes and not any(f.fits for f in d.fixes)
    assert all("planned from the catalog" in f.note for f in d.fixes)


def test_a_weight_oom_without_model_or_gpu_says_what_to_pass():
    """sg_512 names a model with no config here and no GPU (its OOM line is cut after 'GPU '); sg_514 read without
    --model: a card, no model.  (sg_513 was here, a model and no GPU: helper cr31 reads its torch 'total capacty of
    44.35 GiB', so its card is the log's; tests/explain/test_explain_cr31.py.)"""
    for case_id, flags, wants in (("sg_512", None, ("--model", "--gpu")),
                                  ("sg_514", {"gpu": "A40"}, ("--model",))):
        d = explain_log(log_bytes(case_id), flags=flags).diagnosis
        assert d.phase == "weights" and not any(f.fits for f in d.fixes)
        assert "the log prints no weight size" in d.cause, d.cause
        tail = d.cause.split("the log prints no weight size")[1]
        assert all(w in tail for w in wants) and ("--model" in tail) == ("--model" in wants)
