"""Round-trip cause fixed by helper rt22 (2026-12-06, session 22; docs/accuracy.md §7): vl_996's --enforce-eager.

vLLM 0.9.1 (``v1/worker/gpu_worker.py`` ``determine_available_memory``) sizes the KV cache as requested − the profile
run's non-KV memory, with no CUDA-graph term: the graphs are captured after it (``gpu_model_runner.capture_model``).
``--enforce-eager`` switches torch.compile, the custom ops and the capture list (``config.py``); where the planner's
own non-KV memory is the same eager or not, ``plan --from-log`` keeps the log's measured non-KV memory (the printed
pool), as explain's fix does; where the planner prices the flag (a graph estimate applied before the KV cache, an
encoder, the cold-compile scratch) the measured base is moved by that priced change only."""

from __future__ import annotations

from roundtrip_testlib import plan as _plan, row as _row


def test_enforce_eager_keeps_the_measured_non_kv_memory(capsys):
    row = _row("vl_996", "--enforce-eager")
    # was 547,776 (explain, the printed pool) against 541,024 (the plan dropped the measured 0.40 GiB peak for the
    # catalog's 1.22 GiB logits + sampler estimate)
    assert row["outcome"] == "match", row
    assert abs(row["plan_kv_tokens"] - 547_776) <= 96, row
    plan = _plan(capsys, "vl_996", "--enforce-eager")
    act = next(li for li in plan["ledger"] if li["item"].startswith("activation peak"))
    assert abs(act["bytes"]) < 0.5 * 2**30, act  # the log's measured residual, not the 1.22 GiB estimate


def test_a_profile_flag_beside_enforce_eager_still_replans():
    # the rule covers --enforce-eager alone (beside budget-only flags); another profile flag re-plans as before
    from types import SimpleNamespace

    from tpkit.cli.fromlog_plan import profile_neutral_flags

    args = SimpleNamespace(user_given=frozenset({"enforce_eager", "max_num_seqs"}))
    log = SimpleNamespace(context={})
    assert profile_neutral_flags(args, log, None, lambda **o: None) == frozenset()
    args = SimpleNamespace(user_given=frozenset({"gpu_memory_utilization"}))
    assert profile_neutral_flags(args, log, None, lambda **o: None) == frozenset()


def test_no_blocks_error_anchors_the_plan_at_zero_available(capsys):
    # vl_986, V1 0.8.5 at --gpu-memory-utilization 0.4: 'No available memory for the cache blocks' (available ≤ 0,
    # kv_cache_utils.check_enough_kv_cache_memory) and nothing else printed.  Explain's 0.48 fix adds 0.08 × total
    # to 0 available; the plan took the catalog's non-KV memory and gave 121,040 tokens (10 GiB already free at 0.4,
    # which the log disproves)
    row = _row("vl_986", "--gpu-memory-utilization 0.48")
    assert row["outcome"] == "suggestion", row  # helper cr33c: the start-up free memory is not printed
    assert abs(row["plan_kv_tokens"] - 46_160) <= 16, row
    plan = _plan(capsys, "vl_986")  # the log's own settings: no room, as the log says
    assert plan["kv_tokens"] <= 16, plan["kv_tokens"]
