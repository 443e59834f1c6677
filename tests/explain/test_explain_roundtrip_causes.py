"""Round-trip causes fixed by helper rt15 (2026-12-05, session 15; docs/accuracy.md §7): a fix of ``tpkit explain``
re-planned as ``tpkit plan MODEL --from-log LOG <its flags>`` gives the fix's KV tokens and verdict.

* SGLang's default fraction at another TP size: where the log prints no ``mem_fraction_static`` (the run took
  SGLang's default), a ``--tp N`` fix runs at the release's default for tp N, as the user who types it gets and as
  the plan applies (sg_061, 0.4.8 on MI300X: 0.690 at tp 8 with the ROCm aiter × 0.85, 0.812 at tp 16, where the
  default backend is triton).
* vLLM's printed estimate of the longest request pins the available memory inside its two-decimal print, on both
  sides (vl_455: 'Available KV cache memory: 0.41 GiB', 'the estimated maximum model length is 7760').
* vLLM's start-up free-memory check: a utilization fix that passes it also states the pool the plan gives after it
  (vl_115, vl_225: the weights do not fit what passes the check)."""

from __future__ import annotations


from roundtrip_testlib import explained as _explained, row as _row, plan as _plan


def test_sglang_tp_fix_takes_the_default_fraction_of_the_new_layout():
    e = _explained("sg_061")[0]
    assert e.context.get("mem_fraction") is None and abs(e.anchored.fraction - 0.6902) < 1e-4
    fix = next(f for f in e.diagnosis.fixes if f.flags == "--tp 16")
    assert "mem_fraction_static 0.812, SGLang's default at tp 16" in fix.note
    row = _row("sg_061", "--tp 16")
    # was 694,294 (the run's 0.690 kept) against the plan's 1,044,773
    # 1,044,773 before session 32 (the cuda / rocm rank-spread split and the MLA copies moved the re-plan)
    assert row["outcome"] == "match" and row["kv_tokens"] == row["plan_kv_tokens"] == 1044801, row


def test_sglang_tp_fix_keeps_a_fraction_the_log_prints():
    # a printed / given fraction is the user's flag: SGLang keeps it at any tp (sg_102 prints it)
    e = _explained("sg_102")[0]
    assert e.context.get("mem_fraction") is not None
    fix = next(f for f in e.diagnosis.fixes if f.flags.startswith("--tp"))
    assert "SGLang's default at tp" not in fix.note


def test_vllm_estimate_pins_the_available_memory():
    from tpkit.explain.vtokens import estimate_pins_available

    e = _explained("vl_455")[0]
    pinned = estimate_pins_available(e.anchored, e.parsed.primary_failure)
    # 485 blocks × 16 tokens × 57,344 B ≤ available < 486 blocks, inside 0.41 GiB ± 5 MiB
    assert pinned is not None and pinned.low.bytes == 485 * 16 * 57344
    assert pinned.high.bytes < 486 * 16 * 57344 and pinned.high <= e.anchored.available.high
    fix = next(f for f in e.diagnosis.fixes if f.flags == "--max-model-len 7760")
    assert fix.kv_tokens == 7760 and fix.fits  # was 7,632 (the print's middle at the error's rounded bytes/token)
    row = _row("vl_455", "--max-model-len 7760")
    assert row["outcome"] == "match" and row["plan_kv_tokens"] == 7760, row  # the plan said 7,664: no fit


def test_vllm_plan_of_the_logs_own_settings_says_the_estimate(capsys):
    plan = _plan(capsys, "vl_455")
    assert plan["kv_tokens"] == 7760
    assert any("narrowed by the log's 'estimated maximum model length is 7760'" in w for w in plan["warnings"])


def test_no_estimate_no_pin():
    from tpkit.explain.vtokens import estimate_pins_available

    e = _explained("vl_115")[0]  # a start-up check failure: no estimate
    assert estimate_pins_available(e.anchored, e.parsed.primary_failure) is None


def test_startup_check_fix_states_the_pool_after_the_check():
    for case_id, flags in (("vl_115", "--gpu-memory-utilization 0.16"), ("vl_225", "--gpu-memory-utilization 0.81")):
        e = _explained(case_id)[0]
        fix = next(f for f in e.diagnosis.fixes if f.flags == flags)
        # was kv_tokens None, fits True: it passes the check, and the weights do not fit what passes it
        assert fix.kv_tokens == 0 and not fix.fits and "passes the start-up check; after it" in fix.note
        assert _row(case_id, flags)["outcome"] == "match"
    # the advice that frees the other process's memory stays
    e = _explained("vl_115")[0]
    assert any(f.flags.startswith("free the other process") and f.fits for f in e.diagnosis.fixes)


def test_plan_keeps_the_measured_weights_of_a_quantization_the_config_refuses(capsys, monkeypatch):
    # vl_342: 'quantization=compressed-tensors' planned on its base model's config (no quantization_config): the
    # quantization is dropped (helper rev13), and the weights the log measured, the checkpoint's as it ran, stay
    # (helper cr34b: models.json now holds its assembled FP8-dynamic config; the base config is passed here)
    import roundtrip_testlib
    from test_explain_roundtrip import base_config_for_vl_342

    base_config_for_vl_342(monkeypatch, roundtrip_testlib.ROUNDTRIP)
    plan = _plan(capsys, "vl_342", "--gpu-memory-utilization", "0.19")
    weights = next(li for li in plan["ledger"] if li["item"] in ("model weights", "weights"))
    assert abs(weights["bytes"] - 16345249664) < 2**20  # 'Model loading took 15.22 GiB', not 27.51 GiB derived
    assert any(w.startswith("weights taken from the log (compressed-tensors, as it ran)") for w in plan["warnings"])
    row = _row("vl_342", "--gpu-memory-utilization 0.19")
    # helper cr33c: explain offers 0.19 as a suggestion (the start-up free memory is not printed): the tokens agree
    assert row["outcome"] == "suggestion" and row["plan_kv_tokens"] == 38064, row  # was 0 tokens, no fit
    # a --quantization the user gives is a change of the run: the measured weights do not carry over
    plan = _plan(capsys, "vl_342", "--quantization", "fp8")
    assert not any(w.startswith("weights taken from the log") for w in plan["warnings"])


def test_plan_from_a_v0_log_takes_the_v0_engine(capsys):
    # vl_071: 'VLLM_USE_V1=0 vllm serve …' (0.8–0.10 by its formats; the V0 worker's 'the current vLLM instance can
    # use'): planned by V1 0.10 rules, the plan failed V1's start-up free-memory check by 0.16 GiB, a check V0's
    # worker.py init_device does not make (0.8.3 source); with the V0 rules it sizes a pool
    from tpkit.cli.fromlog import v0_engine_release

    e = _explained("vl_071")[0]
    assert e.context.rules_version == "0.10" and v0_engine_release(e, "0.10") == "0.10:v0"
    plan = _plan(capsys, "vl_071")
    assert plan["kv_tokens"] > 0 and not any(li["item"].startswith("requested beyond the free memory (start-up check")
                                             for li in plan["ledger"])
    # explain reads it by the V0 rules too: V0 allocates every layer's KV (gemma-3's sliding layers included),
    # 8,126,464 B per 16-token block, not V1's hybrid layout (1,310,720 B)
    assert e.context.get("vllm_v0_engine") and e.anchored.token_bytes * e.anchored.block_size == 8126464
    # and the capacity V0 prints in its error (3,584 tokens = 224 blocks) pins the available memory, on both sides
    assert plan["kv_tokens"] == 3584
    assert any("that the log's KV capacity of 3584 tokens pins" in w for w in plan["warnings"])
    # a V1 log keeps its release (vl_455: 'Available KV cache memory', EngineCore)
    e = _explained("vl_455")[0]
    assert v0_engine_release(e, e.context.rules_version) == e.context.rules_version


def test_freeing_the_card_is_a_fit_only_where_the_run_fits_a_free_card():
    # vl_115 (Qwen3-14B on a 93 GiB card at 0.8): with the other process gone the plan of the log's settings fits
    e = _explained("vl_115")[0]
    free = next(f for f in e.diagnosis.fixes if f.flags.startswith("free the other process"))
    assert free.fits and free.kv_tokens and free.kv_tokens > 0
    # vl_225 (Qwen3.6-35B-A3B bf16 on an 11.49 GiB card): the weights alone exceed the card; was called a fit
    e = _explained("vl_225")[0]
    free = next(f for f in e.diagnosis.fixes if f.flags.startswith("free the other process"))
    assert not free.fits and "with the card free the run still does not fit" in free.note
    # helper cr17 (2026-12-05): nothing fits its one GPU; what fits is the fewest tp × pp (explain.vgpus); helper
    # cr19: or the weights kept in host memory (--cpu-offload-gb, test_explain_cr19.py)
    assert not any(f.fits for f in e.diagnosis.fixes
                   if "--tensor-parallel-size" not in f.flags and "--cpu-offload-gb" not in f.flags)
    assert "at any setting" in e.diagnosis.cause
