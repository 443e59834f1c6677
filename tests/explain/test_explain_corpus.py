"""Every real log explains (text and JSON); crash logs get their phase and a fix that fits; the capacity is
rebuilt from the anchors with the capacity lines removed (docs/accuracy.md §7)."""

import json

import pytest
from explain_testlib import cases, log_bytes, script

from tpkit.explain import explain_log
from tpkit.explain.render import format_explanation

IDS = [c["id"] for c in cases()]
SCHEMA_KEYS = {"engine", "engine_version", "kv_tokens", "ledger", "diagnosis", "missing"}
MEMORY_KINDS = {"cuda_oom", "kv_too_small", "no_kv_memory", "kv_budget_non_positive", "imbalance",
                "startup_free_memory"}
PHASE_WORDS = {"weight_load": "weights"}
PARSER_PHASE_DISAGREES = {
    # the reader's phase differs from the label (tests/logs/test_corpus.py KNOWN says why)
}
NO_NUMBERS = {
    # memory failures whose excerpt prints no number to re-plan from, and no model config in tests/
    "sg_039": "title-only OOM while loading Gemma-3; no sizes in the excerpt",
}
FLAGS_FOR = {
    "sg_042": {"model": "tests/engines/data_vllm_issue11/google--gemma-3-27b-it.json"},
    "sg_060": {"model": "tests/explain/data/deepseek-ai--DeepSeek-V2.config.json", "engine_version": "0.4.1"},
}
"""Flags where the excerpt lacks what its source states.  sg_042: the log does not name its model (the source
does: MedGemma 27B = Gemma-3-27B geometry).  sg_060: the log names deepseek-ai/DeepSeek-V2.5, whose config is not in
tests/ (tests/explain/data/SOURCE.md: the DeepSeek-V2 236B geometry), and no release (the issue is dated
2025-01-07, the 0.4.1 series; cases.json engine_version_note); its fixes are planned from the catalog."""


@pytest.mark.parametrize("case_id", IDS)
def test_every_log_explains(case_id):
    e = explain_log(log_bytes(case_id))
    out = json.loads(json.dumps(e.to_dict()))
    assert SCHEMA_KEYS <= set(out)
    assert set(out["kv_tokens"]) >= {"printed", "predicted"}
    assert set(out["diagnosis"]) >= {"status", "phase", "cause", "fixes"}
    assert out["diagnosis"]["status"] in ("ok", "failed")
    assert out["diagnosis"]["phase"] in (None, "weights", "kv_pool", "cuda_graph", "first_request", "imbalance",
                                         "other")
    for fix in out["diagnosis"]["fixes"]:
        assert set(fix) >= {"flags", "kv_tokens", "fits"} and isinstance(fix["fits"], bool)
    assert format_explanation(e)


def _memory_crashes():
    out = []
    for c in cases():
        if c["status"] != "crash" or not (c.get("failure") or {}).get("phase"):
            continue
        failure = explain_log(log_bytes(c["id"])).parsed.primary_failure
        if failure is not None and failure.kind in MEMORY_KINDS:
            out.append(c["id"])
    return out


MEMORY_CRASHES = _memory_crashes()


def test_enough_memory_crash_logs():
    assert len(MEMORY_CRASHES) >= 8


@pytest.mark.parametrize("case_id", MEMORY_CRASHES)
def test_crash_gets_its_phase_and_a_fix_that_fits(case_id):
    label = next(c for c in cases() if c["id"] == case_id)["failure"]["phase"]
    flags = FLAGS_FOR.get(case_id)
    e = explain_log(log_bytes(case_id), flags=flags)
    if case_id in PARSER_PHASE_DISAGREES:
        pytest.skip(PARSER_PHASE_DISAGREES[case_id])
    assert e.diagnosis.status == "failed"
    assert e.diagnosis.phase == PHASE_WORDS.get(label, label), e.diagnosis.cause
    if case_id in NO_NUMBERS:
        assert not any(f.fits and f.kv_tokens for f in e.diagnosis.fixes)
        return
    assert any(f.fits for f in e.diagnosis.fixes), [f.to_dict() for f in e.diagnosis.fixes]


def test_a_kv_budget_fix_is_re_planned_from_the_anchors():
    """sg_045: weights 30.06 GiB exceed f × pre; no fraction ≤ 0.95 leaves room, --tp 2 does (re-planned)."""
    e = explain_log(log_bytes("sg_045"))
    a = e.anchored
    assert e.diagnosis.phase == "kv_pool" and a.rest.high.bytes < 0
    assert abs(e.diagnosis.short_by.bytes + a.rest.mid.bytes) < 2**20  # the same budget, re-planned
    assert (a.weights.mid.bytes + 2**30) / a.pre.mid.bytes > 0.95
    assert not any(f.flags.startswith("--mem-fraction-static") for f in e.diagnosis.fixes)
    tp = next(f for f in e.diagnosis.fixes if f.flags == "--tp 2")
    assert tp.fits and a.pre.mid.bytes * a.fraction - a.weights.mid.bytes / 2 > 0


def test_vllm_max_model_len_fix_uses_the_engines_own_estimate():
    e = explain_log(log_bytes("vl_034"))
    fix = e.diagnosis.fixes[0]
    assert fix.flags == "--max-model-len 32768" and fix.fits  # vLLM printed "estimated maximum model length is 32768"


def _capacity_rows():
    check = script("explain_capacity_check")
    models = check.model_map()
    return [check.check(c, models) for c in cases()
            if ("Load weight end" if c["engine"] == "sglang" else "Available KV cache memory")
            in log_bytes(c["id"]).decode("utf-8", "replace")]


def test_capacity_rebuilt_without_the_capacity_lines():
    """Every log that prints 'Load weight end' / 'Available KV cache memory' is scored, with the model of
    tests/logs/data/models.json passed as --model and nothing else (the table is in docs/accuracy.md §7.2).
    Measured on 2026-12-01: 20 of the 63 (20 of the 43 with a config; 20 of the 33 with a config that print a
    capacity); 21 of the 63 (21 of 50 with a config) after helper cfg's configs (vl_050 granite-4.0-micro); 23 of
    the 63 with the GPU's total and SGLang's default fraction inferred from the arithmetic (helper gpu: sg_012,
    sg_013); 24 with helper off's Qwen3.5 SSM-dtype rule (vl_012).  The issue's bar is 90 % of the 63: not reached;
    this floor guards the measured figure."""
    rows = _capacity_rows()
    assert len(rows) == 63
    hits = [r["id"] for r in rows if r["outcome"] == "hit"]
    assert len(hits) >= 24, [r for r in rows if r["outcome"] == "miss" and r["config"]]
    assert all(r["why"] for r in rows if r["outcome"] == "miss")
    # a log the map has no config for never scores a hit by accident
    assert not any(r["outcome"] == "hit" and not r["config"] for r in rows)


@pytest.mark.parametrize("case_id, flags, expected", [
    # the excerpt lacks tp, release, max_model_len and GPU; with the validation record's values the hybrid
    # (Kimi-Linear: KDA linear groups, 'none' mamba mode) rebuilds exactly through engines.vllm.capacity
    ("validation_case_027", {"tp": 2, "max_model_len": 120000, "engine_version": "0.11.0", "gpu": "RTX-3090"},
     75_840),
])
def test_hybrid_capacity_through_the_engine_rules(case_id, flags, expected):
    check = script("explain_capacity_check")
    entry = check.model_map()[case_id]
    e = explain_log(check.strip_capacity(log_bytes(case_id)), flags={"model": check.model_flag(entry), **flags})
    lo, hi = e.kv_predicted_range
    assert lo <= expected <= hi and hi - lo < 0.001 * expected
