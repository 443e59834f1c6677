"""vLLM V0 profile-run OOMs (helper rt23, 2026-12-06, session 23; docs/accuracy.md §7, issue 12).

V0's ``worker.determine_num_available_blocks`` runs ``model_runner.profile_run()`` on the whole device and reads
``gpu_memory_utilization`` only after it (vllm 0.6.2 / 0.6.4 wheels): an OOM inside the profile run is not cured by
``--gpu-memory-utilization``, which explain offered for vl_989 (0.80) and vl_992 (0.95), and which the round trip
could not match (99,616 vs 79,264 and 103,728 vs 1,677,280 tokens: OPEN).  The cure is a smaller profile batch:
``enc_dec_model_runner.profile_run`` (0.6.2, 0.6.4) runs ``max_num_seqs`` dummy sequences, each with the model's
encoder dummy data (Mllama: one 4-tile image per sequence), so the vision pass scales with max_num_seqs alone.
``explain.vprofile`` charges what the OOM shows the profile needed beyond the planner's weights and peak
(torch-allocated + the failed request), scaled by the batch, in explain's fixes and in ``plan --from-log`` alike."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from roundtrip_testlib import explained, plan as _plan, row as _row

from tpkit.units import Bytes, GiB

PROFILE_OOMS = ("vl_794", "vl_989", "vl_992", "vl_993")
"""the corpus's V0 profile-run OOMs (vl_794: a Qwen2 sampler OOM, no model named; the rest Llama-3.2-11B-Vision)"""


@pytest.mark.parametrize("case_id", PROFILE_OOMS)
def test_v0_profile_run_ooms_are_recognised(case_id):
    from tpkit.explain.vprofile import profile_oom

    e = explained(case_id)[0]
    oom = profile_oom(e.parsed, e.context)
    assert oom is not None and oom.demand.bytes > 0
    assert "--gpu-memory-utilization" in e.diagnosis.cause and "cannot cure" in e.diagnosis.cause


@pytest.mark.parametrize("case_id", ["vl_107", "vl_159", "vl_991", "vl_994", "vl_986"])
def test_other_kv_pool_failures_are_not(case_id):
    # V1's profile run (vl_107 / vl_159: inductor autotuning), V0's KV allocation after the profile (vl_991,
    # _allocate_kv_cache; vl_994, allocate_cpu_cache), V1's no-blocks error (vl_986)
    from tpkit.explain.vprofile import profile_oom

    e = explained(case_id)[0]
    assert profile_oom(e.parsed, e.context) is None


@pytest.mark.parametrize("case_id", ["vl_989", "vl_992", "vl_993"])
def test_no_utilization_fix_and_a_profile_fix_that_fits(case_id):
    fixes = explained(case_id)[0].diagnosis.fixes
    assert not any(f.flags.startswith("--gpu-memory-utilization") for f in fixes), [f.flags for f in fixes]
    seqs = next(f for f in fixes if f.flags.startswith("--max-num-seqs"))
    assert seqs.fits and seqs.kv_tokens and len(seqs.flags.split()) == 2, seqs
    assert "explain.vprofile" in seqs.note


def test_vl_989_max_num_seqs_values():
    # 256 dummy sequences (one image each; the failed 1.95 GiB is their patch embeddings) needed 11.59 GiB beyond the
    # planner's weights (the log's 10.07 GiB) and peak (1.19 GiB); 128 seqs leave no KV cache at 0.7 × 22.09 GiB, 64 do
    fixes = {f.flags.split()[0]: f for f in explained("vl_989")[0].diagnosis.fixes}
    assert fixes["--max-num-seqs"].flags == "--max-num-seqs 64"
    # V0 SchedulerConfig._verify_args (0.6.2): without chunked prefill max_num_batched_tokens ≥ max_model_len (1024)
    tokens = fixes["--max-num-batched-tokens"]
    assert int(tokens.flags.split()[1]) >= 1024 and not tokens.fits  # the images follow max_num_seqs, not the tokens


@pytest.mark.parametrize("case_id", ["vl_989", "vl_992", "vl_993"])
def test_every_fix_round_trips(case_id):
    e, _, _ = explained(case_id)
    for fix in e.diagnosis.fixes:
        row = _row(case_id, fix.flags)
        # helper cr35b: vl_989's tp 16 needs 16 GPUs and its nvidia-smi table lists 3 (explain.vhostgpus): offered as
        # a suggestion, the same tokens as the plan (which knows no host)
        beyond_the_host = "this host shows" in fix.note
        assert row["outcome"] == ("suggestion" if beyond_the_host else "match"), row
        assert beyond_the_host == ((case_id, fix.flags) in {("vl_989", "--tensor-parallel-size 16")})


def test_plan_of_the_logs_own_settings_reproduces_the_oom(capsys):
    # before: plan --from-log vl_989 planned 50,688 tokens (the text model's peak only), a fit
    out = _plan(capsys, "vl_989")
    assert out["kv_tokens"] == 0 and not out["verdict"]["fits"], out["verdict"]
    out = _plan(capsys, "vl_989", "--max-num-seqs", "64")
    assert out["verdict"]["fits"] and out["kv_tokens"] == _row("vl_989", "--max-num-seqs 64")["kv_tokens"]


def _result(weights: int, peak: int, seqs: int, tokens: int):
    ledger = SimpleNamespace(items=(SimpleNamespace(item="model weights", bytes=Bytes(weights)),
                                    SimpleNamespace(item="activation peak (profile run, estimate)", bytes=Bytes(peak))))
    return SimpleNamespace(ledger=ledger, extra={"max_num_seqs": seqs, "max_num_batched_tokens": tokens})


def test_charged_peak_scales_the_missed_demand_by_the_batch():
    from tpkit.explain.vprofile import ProfileOom, charged_peak

    g = GiB(1).bytes
    own, new = _result(10 * g, g, 256, 4096), _result(10 * g, g // 2, 64, 4096)
    per_seq = ProfileOom(demand=Bytes(23 * g), words="", per_sequence=True, release=None)
    assert charged_peak(per_seq, own, new)[0].bytes == g // 2 + 12 * g // 4  # 12 GiB missed × 64 / 256
    text = ProfileOom(demand=Bytes(23 * g), words="", per_sequence=False, release=None)
    assert charged_peak(text, own, new)[0].bytes == g // 2 + 12 * g  # × max(64/256, 4096/4096)
    assert charged_peak(ProfileOom(demand=Bytes(11 * g), words="", per_sequence=True, release=None), own, new) is None


def test_same_profile_is_an_argument_not_an_attribute():
    # rt22's args.same_profile side channel: the flags that leave the profile as it was are passed explicitly
    from tpkit.cli.fromlog_plan import budget_only_change

    args = SimpleNamespace(user_given=frozenset({"enforce_eager", "tp"}), tp=1)
    ctx = {"tp": 1}
    assert not budget_only_change(args, ctx)
    assert budget_only_change(args, ctx, frozenset({"enforce_eager"}))
    args.same_profile = frozenset({"enforce_eager"})  # an attribute is no longer read
    assert not budget_only_change(args, ctx)
