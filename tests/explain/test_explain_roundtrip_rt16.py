"""Round-trip causes fixed by helper rt16 (2026-12-05, session 16; docs/accuracy.md §7): a fix of ``tpkit explain``
re-planned as ``tpkit plan MODEL --from-log LOG <its flags>`` gives the fix's KV tokens and verdict.

* SGLang's rank rule: the pool is sized from the MIN over ranks of the free memory after the load and the MIN before
  it (``ModelRunner.profile_max_num_token``), not from one rank's 'mem usage'; explain's re-planned budget, its
  layout fixes and ``plan --from-log`` all charge pre − MIN free after (``SglangAnchored.pool_load``), the ledger's
  own budget (sg_106; sg_105's ``--tp 8`` still matches).
* vLLM V0's KV allocation: V0 makes no start-up free-memory check and releases the profile run's activation peak
  before it allocates the KV cache, so a budget (total × util) above the free memory after the CUDA context by less
  than that peak allocates (vl_071 at 0.98: its second attempt allocated the cache and failed later, in capture)."""

from __future__ import annotations

from types import SimpleNamespace

from roundtrip_testlib import ROUNDTRIP, explained as _explained, row as _row, plan as _plan

GIB = 2**30


def test_sglang_replan_charges_the_load_the_min_over_ranks_sees():
    from tpkit.explain.sgbudget import BudgetReplan

    e = _explained("sg_106")[0]
    a = e.anchored
    # rank 0's 'mem usage=90.80 GB'; pre MIN 176.22, MIN free after the load 85.41 (ranks 1 and 2): 90.81
    assert abs(a.weights.mid.bytes / GIB - 90.80) < 1e-6
    assert abs(a.pool_load.mid.bytes / GIB - (176.22 - 85.41)) < 1e-6
    # the re-planned budget at the run's own settings is the ledger's budget (was 10 MiB above it)
    rest, _ = BudgetReplan(a, e.context).budget()
    assert abs(rest - a.rest.mid.bytes) < 2**20, (rest, a.rest.mid.bytes)


def test_sglang_plan_from_log_uses_the_same_rank_rule(capsys):
    plan = _plan(capsys, "sg_106", "--disable-cuda-graph")
    weights = next(li for li in plan["ledger"] if li["item"] in ("model weights", "weights"))
    assert abs(weights["bytes"] / GIB - 90.81) < 0.005  # was rank 0's 90.80
    row = _row("sg_106", "--disable-cuda-graph")
    assert row["outcome"] == "match", row  # was 446,016 against 446,272 (4 pages)
    row = _row("sg_105", "--tp 8")  # the --tp fix scales the same measured load on both sides
    assert row["outcome"] == "match" and row["kv_tokens"] == row["plan_kv_tokens"], row


def test_sglang_single_rank_log_keeps_its_load():
    # one rank: pre − free after is the printed 'mem usage' within the print rounding (± 0.01 GB)
    e = _explained("sg_045")[0]
    a = e.anchored
    if a.pool_load is not None:
        assert abs(a.pool_load.mid.bytes - a.weights.mid.bytes) <= 0.0101 * GIB


def test_v0_kv_allocation_reuses_the_released_activation_peak(capsys):
    # vl_071 --max-model-len 3584 (explain: fits): planned by the V0 rules the budget, 21.55 GiB at 0.98, lies 0.16
    # GiB above the free memory after the estimated CUDA context, but the 2.14 GiB activation peak is released first
    plan = _plan(capsys, "vl_071", "--max-model-len", "3584")
    assert plan["verdict"]["fits"] and plan["kv_tokens"] == 3584, plan["verdict"]
    assert all(li["bytes"] >= 0 for li in plan["ledger"] if li["item"] != "remaining")
    act = next(li for li in plan["ledger"] if li["item"].startswith("activation peak"))
    assert "re-uses" in act["source"]
    row = _row("vl_071", "--max-model-len 3584")
    assert row["outcome"] == "match", row  # was fits True vs False


def test_v0_budget_above_the_room_by_more_than_the_peak_still_runs_out():
    from tpkit.engines.vllm.budget import Budget
    from tpkit.engines.vllm.verdict import decide
    from tpkit.engines.vllm.versions import resolve_rules
    from tpkit.units import Bytes

    rules = resolve_rules("0.8.3:v0")
    assert rules.memory_rule == "v0_peak" and rules.v0_context_outside

    def verdict(activation_gib: float):
        budget = Budget(requested=Bytes(int(21.55 * GIB)), free_at_snapshot=Bytes(int(21.4 * GIB)),
                        weights=Bytes(int(17.6 * GIB)), activation=Bytes(int(activation_gib * GIB)),
                        non_torch=Bytes(int(0.1 * GIB)), graphs=Bytes(0), available=Bytes(int(1.7 * GIB)))
        cap = SimpleNamespace(num_blocks=224, fits=True, tokens=3584, max_concurrency=1.0)
        r = SimpleNamespace(utilization=0.98, max_model_len=3584, max_num_seqs=256)
        return decide(budget, cap, r, rules, Bytes(int(21.99 * GIB)), v0_room=Bytes(int(21.39 * GIB)))

    assert verdict(2.14)[0].fits  # 0.16 GiB over, 2.14 GiB released
    v, line = verdict(0.10)  # 0.16 GiB over, 0.10 GiB released: the KV allocation runs out
    assert not v.fits and "while allocating the KV cache" in line


def test_sglang_pool_oom_without_anchors_plans_its_fixes_as_the_plan_does():
    # sg_038 (gemma-3-12b-it on a 23.52 GiB card at 0.717, tp not printed): the log prints no 'Load weight' line,
    # only the OOM of the pool allocation; its fixes were "not computable" (tokens None) while plan --from-log planned
    # them from the catalog.  Now both plan from the catalog, at the release plan --from-log reads the log by (0.5.5:
    # the log is dated 2025-11-01), and the fixes say so
    e = _explained("sg_038")[0]
    fixes = {f.flags: f for f in e.diagnosis.fixes}
    assert all("planned from the catalog" in f.note and "SGLang 0.5.5 rules" in f.note for f in fixes.values())
    # helper gh18 (2026-12-05): the printed 23.52 GiB now fits two catalog GPUs (RTX-3090 23.54, the new RTX-A5000
    # 23.57), so the reader names none and the fixes plan on the printed total ('GPU of the log'), no longer on the
    # RTX 3090 (54,471 / 20,918 tokens then)
    assert e.context.gpu.name == "GPU of the log" and e.parsed.run.gpu_candidates == ("RTX-3090", "RTX-A5000")
    # helper gs29 (2026-12-06): SGLang keeps Gemma 3's token embedding whole on every rank (models.weights
    # SGLANG_REPLICATED_EMBEDDING, gemma3_causal.py's nn.Embedding): at tp 2 each rank holds the other half of the
    # 262,208 x 3,840 table too (0.94 GiB), 52,107 -> 41,865
    # helper ev32 (2026-12-07): SGLang reads nccl[sglang:pcie:2] (sg-16920 alone, 0.26 GiB; the pooled 0.245 also
    # held vLLM's vl_004): 41,865 -> 41,747
    assert (fixes["--tp 2"].kv_tokens, fixes["--tp 2"].fits) == (41747, True)  # 52147 before ev24: nccl[pcie:2] 0.245 GiB
    assert (fixes["--quantization fp8"].kv_tokens, fixes["--quantization fp8"].fits) == (19847, True)
    # the shortfall's fraction: the catalog's weights (22.81 GiB) leave no budget at 0.69 (was called a fit)
    frac = fixes["--mem-fraction-static 0.69"]
    assert (frac.kv_tokens, frac.fits) == (0, False) and "shortfall alone is covered" in frac.note
    for flags in ("--tp 2", "--quantization fp8", "--mem-fraction-static 0.69"):
        assert _row("sg_038", flags)["outcome"] == "match"


def test_vl_048_plans_with_its_own_fp8_config(capsys):
    # Qwen3-Coder-30B-A3B-Instruct-FP8's config.json (block FP8) replaces the assembled bf16 Qwen3-30B-A3B one
    entry = ROUNDTRIP.model_map()["vl_048"]
    assert entry["config_fidelity"] == "exact" and "Qwen3-Coder-30B-A3B-Instruct-FP8" in entry["config"]
    plan = _plan(capsys, "vl_048", "--max-model-len", "34736")
    weights = next(li for li in plan["ledger"] if li["item"] == "model weights")
    # helper ppl16: the plan now takes the log's VLLM_PP_LAYER_PARTITION=16,32, so the heaviest stage holds 32 of
    # the 48 layers: 19.16 GiB in fp8 (14.52 GiB at the even 24/24; the bf16 config gave 28.44 GiB at 24/24)
    # helper pps16: the log numbers its two devices, so each stage is planned on its own GPU and the plan shown is
    # the stage with the fewest blocks: stage 0 (16 layers + the embedding, 9.93 GiB) on the RTX 5070 Ti
    assert 9.5 * GIB < weights["bytes"] < 10.5 * GIB
    assert plan["gpu"]["stages"] == ["RTX-5070-Ti", "RTX-5090"]
    assert "16/32: set by hand" in weights["source"]
