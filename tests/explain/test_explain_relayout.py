"""A fix at another layout (``--tensor-parallel-size``, ``--tp``, ``--quantization``) and ``tpkit plan --from-log LOG
<the same flags>`` take their numbers from one function (``explain.replan.relayout``, SGLang
``explain.replan.scaled_weights``), so ``tpkit explain`` and the plan give one answer (helper rt14, 2026-12-05;
docs/accuracy.md §7).  Before, explain halved the log's measured weights and kept the rest of its non-KV memory while
the plan derived every term: vl_456's --tensor-parallel-size 2 was 120,304 tokens in explain and 240,592 in the
plan."""

from __future__ import annotations

import json

import pytest
from explain_testlib import cases, log_bytes, script

from tpkit.explain import explain_log
from tpkit.units import Bytes

ROUNDTRIP = script("explain_roundtrip_check")


def _case(case_id: str) -> dict:
    return next(c for c in cases() if c["id"] == case_id)


def _fix_row(case_id: str, flags: str) -> dict:
    case = _case(case_id)
    e, model, given = ROUNDTRIP.explained(case, ROUNDTRIP.model_map())
    return next(r for r in ROUNDTRIP.roundtrip(case, e, model, given) if r["flags"].startswith(flags))


def _plan(capsys, case_id: str, *extra: str) -> dict:
    from tpkit.cli import main

    entry = ROUNDTRIP.model_map()[case_id]
    argv = ["plan", ROUNDTRIP.model_flag(entry), "--from-log", str(ROUNDTRIP.DATA / _case(case_id)["file"]),
            *ROUNDTRIP.flag_argv(ROUNDTRIP.source_flags(entry)), *extra, "--json"]
    assert main(argv) in (0, 3)
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("case_id,flags", [("vl_456", "--tensor-parallel-size 2"), ("vl_456", "--quantization fp8"),
                                           ("vl_159", "--tensor-parallel-size 2"), ("vl_788", "--quantization fp8")])
def test_vllm_layout_fix_is_the_plans_answer(case_id, flags):
    row = _fix_row(case_id, flags)
    assert row["outcome"] == "match" and row["kv_tokens"] == row["plan_kv_tokens"], row


def test_vllm_tp_fix_scales_the_measured_weights_by_the_planned_sharding(capsys):
    # vl_456 (0.17.1, Qwen2.5-7B on an RTX 3090 at 0.6): 'Model loading took 14.25 GiB' at tp 1.  At tp 2 the plan
    # charges 14.25 GiB × planned(tp 2) / planned(tp 1), not the derived 7.09 GiB nor half of 14.25
    plan = _plan(capsys, "vl_456", "--tensor-parallel-size", "2")
    weights = next(x["bytes"] for x in plan["ledger"] if x["item"] == "model weights")
    assert 7.10 * 2**30 < weights < 7.16 * 2**30 and weights != round(14.25 * 2**30 / 2)
    note = next(w for w in plan["warnings"] if w.startswith("re-planned at tp 2"))
    assert "the log's 14.25 GiB" in note and "planned at the new layout" in note
    e = explain_log(log_bytes("vl_456"), flags={"model": ROUNDTRIP.model_flag(ROUNDTRIP.model_map()["vl_456"]),
                                                "gpu": "RTX-3090", "engine_version": "0.17.1"})
    fix = next(f for f in e.diagnosis.fixes if f.flags == "--tensor-parallel-size 2")
    assert fix.kv_tokens == plan["kv_tokens"] and fix.fits == plan["verdict"]["fits"]
    assert fix.kv_tokens > 200_000  # the KV heads split too (explain's own arithmetic kept tp 1's bytes per token)


def test_weights_oom_tp_fix_is_the_smallest_tp_whose_replan_fits():
    # vl_106 (0.13.0, DeepSeek-R1-Distill-Qwen-14B bf16 on a 16 GB card at 0.7): tp 2 leaves 13.95 GiB of weights per
    # GPU against a 10.9 GiB budget (the plan: no KV memory); was offered as a fit with no tokens.  tp 4 fits
    row = _fix_row("vl_106", "--tensor-parallel-size")
    assert row["flags"] == "--tensor-parallel-size 4" and row["fits"] and row["outcome"] == "match", row
    # vl_224 (0.16.0, Qwen2.5-7B fp16 on a 6 GiB card at 0.8): tp 4 is short by 0.37 GiB before any KV cache (28 heads:
    # no tp 8); with 0.87 of each device the nominal plan fits, as the plan's own verdict names.  Helper cr34b: the log
    # measured no weights, so the fix is planned from the catalog and its band's pessimistic end holds no token: a
    # suggestion whose tokens the plan repeats (explain.vcatalogfit)
    row = _fix_row("vl_224", "--tensor-parallel-size")
    assert row["flags"] == "--tensor-parallel-size 4 --gpu-memory-utilization 0.87", row
    assert not row["fits"] and row["plan_fits"] and row["outcome"] == "suggestion", row


def test_max_model_len_that_moves_the_profile_batch_is_replanned(capsys):
    # vl_227 (0.19.0, max_num_seqs 1, max_model_len 100000): from 0.11.1 a default budget is capped at
    # max_num_seqs × max_model_len, so --max-model-len 1024 shrinks the profile run to 1,024 tokens; the log's
    # non-KV memory (measured with 2,048) no longer holds and the activation peak is re-derived
    plan = _plan(capsys, "vl_227", "--max-model-len", "1024")
    assert plan["max_num_batched_tokens"] == 1024
    assert not any(w.startswith("non-KV memory from the log") for w in plan["warnings"])
    assert any("the profile run re-derived" in w for w in plan["warnings"])
    # a length that keeps the batch still charges the log's non-KV memory (vl_455, 0.17.1, 8,192 -> 7,760: 2,048)
    plan = _plan(capsys, "vl_455", "--max-model-len", "7760")
    assert any(w.startswith("non-KV memory from the log") for w in plan["warnings"])


def test_smaller_profile_fix_is_replanned():
    # vl_456: the weights (14.25 GiB) exceed the requested 14.12 GiB, so a smaller profile run cannot leave KV memory;
    # the fix was called a fit (short by 0.7 GiB < 1 GiB) with no tokens, the plan said 0 / does not fit
    row = _fix_row("vl_456", "--max-num-seqs 64 --max-num-batched-tokens 4096")
    assert row["outcome"] == "match" and not row["fits"] and row["kv_tokens"] == 0, row


def test_same_profile_compares_the_resolved_batch():
    from types import SimpleNamespace as NS

    from tpkit.explain.replan import same_profile

    a = NS(extra={"max_num_batched_tokens": 2048, "max_num_seqs": 256})
    assert same_profile(a, NS(extra={"max_num_batched_tokens": 2048, "max_num_seqs": 256}))
    assert not same_profile(a, NS(extra={"max_num_batched_tokens": 1024, "max_num_seqs": 256}))
    assert not same_profile(a, NS(extra={"max_num_batched_tokens": 2048, "max_num_seqs": 1}))


@pytest.mark.parametrize("flags", ["--tp 2", "--quantization fp8"])
def test_sglang_layout_fix_scales_the_measured_load_as_the_plan_does(flags):
    # sg_045 (GLM-4.7-Flash, planned as a standard decoder: 55.84 GiB against 30.06 GiB measured): explain halved the
    # measurement (208,440 tokens, a fit), the plan derived 55.84 / 2 (0 tokens); both now scale the measurement by the
    # planner's load usage at the two layouts
    # helper amdev26 (2026-12-06): explain infers no GPU for sg_045 since the start-up table's highest context band end
    # fell below its 1.30 GiB gap (cdna3 1.32 -> 1.15 GiB with the AMD CI rows), so the fix keeps the measured weights
    # halved and the plan refuses it for want of a GPU; the fix itself still fits
    row = _fix_row("sg_045", flags)
    # helper cr33c: halving the measured weights is a rule of thumb: the fix is offered, not called a fit
    assert row["outcome"] == "refused" and not row["fits"] and "no GPU given" in row["why"], row


def test_scaled_weights():
    from tpkit.explain.replan import scaled_weights

    assert scaled_weights(Bytes(30 * 2**30), own=Bytes(60 * 2**30), new=Bytes(31 * 2**30)) == Bytes(31 * 2**29)
    with pytest.raises(ValueError, match="planned weights at the log's layout must be > 0"):
        scaled_weights(Bytes(1), own=Bytes(0), new=Bytes(1))
