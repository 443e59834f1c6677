"""Explain-path rules behind the capacity rebuild (docs/accuracy.md §7.2): the target model's loads, not the
draft's; SGLang's ModelRunner multimodal factor; settings written outside a recognised dump."""

import pytest
from explain_testlib import log_bytes, script

from tpkit.explain import explain_log
from tpkit.explain.result import free_form_settings


def _stripped(case_id: str, **flags):
    check = script("explain_capacity_check")
    model = check.model_flag(check.model_map()[case_id])
    return explain_log(check.strip_capacity(log_bytes(case_id)), flags={"model": model, **flags})


def test_the_draft_models_load_does_not_enter_the_target_budget():
    """sg_006 (SGLang, Jan 2025, EAGLE): the target's pool is sized before the draft loads; the budget uses the
    target's 66.15 GB after weights, not the draft's 10.20 GB (it was 0 tokens)."""
    e = _stripped("sg_006")
    a = e.anchored
    assert abs(a.free_after_weights.mid.gib - 66.15) < 0.01
    lo, hi = e.kv_predicted_range
    assert lo <= 87_056 <= hi and hi - lo < 100


def test_multimodal_runner_factor_applies_to_the_printed_fraction_before_0_4_5():
    """sg_007 (Llama-3.2-11B-Vision, log dated 2025-01-31, before SGLang 0.4.5 of 2025-04-07): ModelRunner
    multiplies the printed 0.88 by 0.95."""
    e = _stripped("sg_007")
    assert abs(e.anchored.fraction - 0.88 * 0.95) < 1e-9
    assert "2025-01-31" in e.anchored.fraction_source
    lo, hi = e.kv_predicted_range
    assert lo <= 299_531 <= hi


def test_text_model_keeps_the_printed_fraction():
    e = _stripped("sg_001")
    assert e.anchored.fraction == float(e.context.get("mem_fraction"))


def test_free_form_settings():
    s = free_form_settings(b"server_args ... tp_size=4 ... mem_fraction_static=0.8 ...\n"
                           b"[2025-03-25 16:37:06 TP0] x\n'enable_prefix_caching': False")
    assert s["mem_fraction"][0] == 0.8 and s["tp"][0] == 4 and s["enable_prefix_caching"][0] is False
    assert s["log_date"][0] == "2025-03-25" and s["log_date_line"] == 2
    assert free_form_settings(b"ServerArgs(mem_fraction_static=None, tp_size=0)") == {}
    assert free_form_settings(b"mem_fraction_static=7") == {}


def test_a_dump_value_wins_over_free_form_text():
    head = b"[2025-02-13 21:51:54] server_args=ServerArgs(model_path='x', mem_fraction_static=0.7, tp_size=1)\n"
    debug = b"self.server_args.mem_fraction_static 0.9\n"
    e = explain_log(head + debug)
    assert e.context.get("mem_fraction") == 0.7 and "server_args" in e.context.sources["mem_fraction"]
    e = explain_log(b"[2025-02-13 21:51:54 TP0] Load weight end. type=X, avail mem=10.00 GB\n" + debug)
    assert e.context.get("mem_fraction") == 0.9 and "free-form" in e.context.sources["mem_fraction"]


_QWEN3_30B = "tests/validation/configs/Qwen--Qwen3-30B-A3B.json"
_AVAIL = "INFO 07-06 22:52:09 [gpu_worker.py:508] Available KV cache memory: 23.74 GiB\n"


def _config(rel: str) -> str:
    from pathlib import Path

    return str(Path(__file__).resolve().parents[2] / rel)


def test_no_tp_printed_gives_no_single_capacity_when_the_cell_depends_on_it():
    """vl_023 / validation_case_020: one 'Available KV cache memory' line and nothing about the layout.  Qwen3-30B-A3B
    has 4 KV heads, so the per-rank cell (vllm/config/model.py get_num_kv_heads) and the tokens differ by tp:
    no rebuilt range, the per-tp figures in the reason (tp 4 holds the 1,037,152 vl_023 printed); --tp picks one."""
    e = explain_log(_AVAIL.encode(), flags={"model": _config(_QWEN3_30B)})
    assert e.kv_predicted_range is None
    why = next(m for m in e.missing if m.startswith("KV bytes per block"))
    assert "tp not printed" in why and "tp 4/8 → 1,036,992–1,037,424" in why
    lo, hi = explain_log(_AVAIL.encode(), flags={"model": _config(_QWEN3_30B), "tp": 4}).kv_predicted_range
    assert lo <= 1_037_152 <= hi


def test_tp_one_from_the_uniprocess_worker_prefix():
    """vLLM runs the worker inside the engine-core process only with the uni-process executor, which
    config/parallel.py picks for tp × pp = 1 (0.11.0); a 'Worker_TP…' process exists only for tp > 1
    (multiproc_executor.py setup_proc_title_and_log_prefix)."""
    model = {"model": _config(_QWEN3_30B)}
    one = explain_log(("(EngineCore_DP0 pid=7) " + _AVAIL).encode(), flags=model)
    assert one.context.get("tp") == 1 and "engine-core" in one.context.sources["tp"]
    lo, hi = one.kv_predicted_range
    assert 259_000 < lo <= hi < 260_000
    worker = explain_log(("(Worker_TP0 pid=8) " + _AVAIL).encode(), flags=model)
    assert worker.context.get("tp") is None and worker.kv_predicted_range is None


def test_tp_one_from_a_launch_record_without_tp():
    """A printed `vllm serve` command or vLLM's non-default args that name no TP size: the default 1
    (--tensor-parallel-size defaults to 1); with --tensor-parallel-size in the command the log's value is used."""
    model = {"model": _config(_QWEN3_30B)}
    plain = explain_log(("vllm serve Qwen/Qwen3-30B-A3B --max-model-len 32768\n" + _AVAIL).encode(), flags=model)
    assert plain.context.get("tp") == 1 and plain.kv_predicted_range is not None
    four = explain_log(("vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4\n" + _AVAIL).encode(), flags=model)
    assert four.context.get("tp") == 4
    lo, hi = four.kv_predicted_range
    assert lo <= 1_037_152 <= hi


def test_no_tp_printed_keeps_the_range_when_every_tp_gives_the_same():
    """MLA stores one latent head per rank whatever the tp (get_num_kv_heads): the range stands without tp."""
    e = explain_log(_AVAIL.encode(), flags={"model": "deepseek-ai/DeepSeek-V3"})
    assert e.kv_predicted_range is not None and "the same for tp" in e.kv_source


def test_sglang_no_tp_tag_from_0_4_7_means_tp_1():
    """sg_019 (SGLang 0.5.15–0.5.23 by its line formats, no ServerArgs, no command, no ' TPn' on any line): from
    0.4.6.post2 the scheduler tags its lines ' TPn' only when tp_size > 1, so the run is tp 1 and the cell is
    Qwen3-30B-A3B's 98,304 B/token; the budget (204.63 GiB, the author's 'initial available_bytes') is rebuilt.
    The printed pool is 34 % lower: the log comes from an unreleased PR that subtracts an AITER workspace."""
    e = _stripped("sg_019")
    assert e.context.get("tp") == 1 and "no TP tag" in e.context.sources["tp"]
    lo, hi = e.kv_predicted_range
    assert 2_235_000 < lo <= hi < 2_236_000


def test_sglang_tp0_tag_alone_pins_tp_only_before_0_4_7():
    """SGLang ≤ 0.4.6 tags every run ' TP0' (tp 1 assumed from TP0 alone; sg_012 is dated 2024-12-13, which caps
    its 0.4.6–0.5.3 line formats to a release before 0.4.6.post2); from 0.4.6.post2 a ' TP0' tag means tp > 1
    and its value is not in the log (sg_014, 0.5.10–0.5.15): tp stays unknown and the note says so."""
    old = explain_log(log_bytes("sg_012"), flags={})
    assert old.context.get("tp") == 1 and "before 0.4.6.post2" in old.context.sources["tp"]
    new = explain_log(log_bytes("sg_014"), flags={})
    assert new.context.get("tp") is None
    assert any("TP0 only" in n for n in new.context.notes)


def test_sglang_tag_era_from_the_release_range_and_the_date():
    from tpkit.explain.context import sglang_tag_era

    assert sglang_tag_era("0.4.6", None) == "tags_every_run"
    assert sglang_tag_era("0.4.7", None) == "tags_above_1"
    assert sglang_tag_era("0.5.10–0.5.15 (not in 0.5.3)", None) == "tags_above_1"
    assert sglang_tag_era("0.4.6–0.5.3", None) is None  # straddles the boundary
    assert sglang_tag_era("0.4.6–0.5.3", "2024-12-13") == "tags_every_run"  # dated before 0.4.7
    assert sglang_tag_era(None, "2024-12-13") is None


def test_version_readers_drop_a_local_label():
    """Every reader of the log's version text goes through logs.engine.releases_in, which drops a PEP 440 local
    label: '+….nv26.01' is no release 26.01 (before, the tag era straddled 0.4.7 and the compile-cache note took
    the newest rules)."""
    from tpkit.explain.context import compile_cache_note, sglang_tag_era

    assert sglang_tag_era("0.4.6+abc.nv25.10", None) == "tags_every_run"
    assert compile_cache_note({}, {}, "0.27.1+faa43dbf.nv26.01") == compile_cache_note({}, {}, "0.27.1") != []
    assert compile_cache_note({}, {}, "0.33.0+faa43dbf.nv26.01") == []
def test_free_form_fraction_in_the_flag_spelling_of_an_engine_message():
    """SGLang 0.5.23's KV-budget error prints the fraction it ran with as '--mem-fraction-static=0.88.' (a
    sentence's full stop after the number); a version-like '0.9.1' is still not a fraction."""
    msg = b"ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88.\n"
    assert free_form_settings(msg)["mem_fraction"][0] == 0.88
    assert free_form_settings(b"--gpu-memory-utilization 0.9 --port 8000")["mem_fraction"][0] == 0.9
    assert "mem_fraction" not in free_form_settings(b"mem_fraction_static 0.9.1")


_RANKS = (b"[2025-05-09 15:00:14 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=30.00 GB, "
          b"mem usage=10.00 GB.\n"
          b"[2025-05-09 15:00:14 TP1] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=30.50 GB, "
          b"mem usage=10.00 GB.\n"
          b"[2025-05-09 15:00:15 TP1] KV Cache is allocated. #tokens: %d, K size: 9.00 GB, V size: 9.00 GB\n"
          b"[2025-05-09 15:00:15 TP%d] KV Cache is allocated. #tokens: %d, K size: 9.00 GB, V size: 9.00 GB\n")


def test_the_count_printed_by_the_other_ranks_when_the_tightest_rank_prints_none():
    """The tightest rank (TP0) prints no pool line; TP1 (and TP2) print one count: every rank of a launch prints
    the same (the MIN all-reduce of the free memory), so it is the log's printed capacity.  Two different counts
    pin nothing."""
    e = explain_log(_RANKS % (150_000, 2, 150_000))
    assert e.rank == "TP0" and e.kv_printed == 150_000
    assert explain_log(_RANKS % (150_000, 2, 151_000)).kv_printed is None


def test_tp_from_rank_prefixes_is_raised_to_divide_the_heads():
    """'TP0…TP5' seen (a stripped or cut log) of a 128-head model: tp 6 cannot run, 8 is the smallest that can;
    a tp printed by the log itself is never changed."""
    from types import SimpleNamespace

    from tpkit.explain.context import tp_divides_heads

    model = SimpleNamespace(num_attention_heads=128)
    values, sources = {"tp": 6}, {"tp": "inferred from the rank prefixes TP0…TP5 (6 ranks): not printed"}
    tp_divides_heads(model, values, sources)
    assert values["tp"] == 8 and "raised from 6 to 8" in sources["tp"]
    values, sources = {"tp": 4}, {"tp": "inferred from the rank prefixes TP0…TP3 (4 ranks): not printed"}
    tp_divides_heads(model, values, sources)
    assert values["tp"] == 4 and "raised" not in sources["tp"]
    values, sources = {"tp": 6}, {"tp": "server_args dump"}
    tp_divides_heads(model, values, sources)
    assert values["tp"] == 6
    # more ranks than heads (a fuzzed log, lead session 22: StopIteration before): the bound stays, a note says why
    values, sources = {"tp": 12}, {"tp": "inferred from the rank prefixes TP0…TP11 (12 ranks): not printed"}
    tp_divides_heads(SimpleNamespace(num_attention_heads=8), values, sources)
    assert values["tp"] == 12 and "exceed the model's 8 attention heads" in sources["tp"]


# hybrid state pools (helper hyb): 'Mamba Cache is allocated' -----------------------------------------------------

_MAMBA = (b"[2026-04-14 16:08:49 TP0] Mamba Cache is allocated. max_mamba_cache_size: 186, conv_state size: 0.10GB, "
          b"ssm_state size: 4.38GB \n")


def _state(version, line=_MAMBA, **kw):
    from tpkit.explain.sgstate import state_from_anchors
    from tpkit.logs import parse_log

    parsed = parse_log(line)
    return state_from_anchors(parsed.select_rank(), version, **kw)


def test_the_state_line_is_parsed_as_anchors_not_as_capacity():
    from tpkit.logs import parse_log

    names = {a.name: a for a in parse_log(_MAMBA).anchors}
    assert names["mamba_cache_size"].count.value == 186
    assert names["mamba_conv_size"].size.text == "0.10 GB" and names["mamba_ssm_size"].size.text == "4.38 GB"
    assert "kv_tokens" not in names
    assert not explain_capacity_strips(_MAMBA)


def explain_capacity_strips(line: bytes) -> bool:
    return script("explain_capacity_check").strip_capacity(line) != line


@pytest.mark.parametrize("version, charged", [("0.5.16", 186), ("0.5.17", 187)])
def test_the_kv_budget_loses_the_padding_slot_from_0_5_17(version, charged):
    s = _state(version)
    assert s.slots == 186 and s.slots_printed
    mid = (0.10 + 4.38) * 2**30 * charged / 187
    assert abs(s.charged.mid.bytes - mid) < 2**20
    assert s.charged.low <= s.pool.low and s.charged.high <= s.pool.high


@pytest.mark.parametrize("version, pinned", [("0.5.3", False), ("0.5.4", True), ("0.5.16", True), ("0.5.17", True)])
def test_the_ratio_split_pins_the_budget_from_0_5_4(version, pinned):
    from tpkit.explain.sgstate import rest_from_split

    found = rest_from_split(_state(version), version)
    assert (found is not None) is pinned
    if found is None:
        return
    rest, why = found
    per = (0.10 + 4.38) * 2**30 / 187
    first = 187 if version == "0.5.17" else 186
    assert rest.low.bytes <= first * per * 1.9 / 0.9 <= rest.high.bytes
    assert rest.high.bytes < (first + 1.05) * per * 1.9 / 0.9 + 0.02 * 2**30
    assert ("0.5.17+" in why) is (version == "0.5.17")


def test_a_set_slot_count_or_speculative_states_pin_nothing():
    from tpkit.explain.sgstate import rest_from_split

    assert rest_from_split(_state("0.5.10"), "0.5.10", slots_set=True) is None
    spec = _MAMBA.rstrip(b" \n") + b" intermediate_ssm_state_cache size: 1.00GB intermediate_conv_window_cache size: 0.02GB \n"
    s = _state("0.5.10", spec)
    assert s.intermediate is not None and rest_from_split(s, "0.5.10") is None
    assert s.charged.high.bytes - s.charged.low.bytes > 2**30 * 0.99


@pytest.mark.parametrize("version", ["0.5.3", "0.5.9", "0.5.23"])
def test_the_intermediate_conv_windows_widen_the_speculative_charge(version):
    """MambaPool prints the intermediate conv windows on the same line as the intermediate SSM states wherever it
    prints either (0.5.3 - 0.5.23, mem_cache/memory_pool.py MambaPool.__init__); both are allocated with the pool,
    so both widen the charge (helper gs32a, 2026-12-07: sg_961's 0.26 GB were left out)."""
    spec = _MAMBA.rstrip(b" \n") + b" intermediate_ssm_state_cache size: 1.00GB intermediate_conv_window_cache size: 0.26GB \n"
    only = _MAMBA.rstrip(b" \n") + b" intermediate_ssm_state_cache size: 1.00GB \n"
    with_window, without = _state(version, spec), _state(version, only)
    assert with_window.intermediate.mid.bytes - without.intermediate.mid.bytes == pytest.approx(0.26 * 2**30, abs=2**20)
    assert with_window.charged.high.bytes - without.charged.high.bytes == pytest.approx(0.265 * 2**30, abs=2**20)  # + print rounding
    assert with_window.charged.low == without.charged.low


def test_a_0_5_3_line_without_the_slot_count_takes_the_release_count():
    line = b"[2025-10-06 00:00:00 TP0] Mamba Cache is allocated. conv_state size: 0.10GB, ssm_state size: 4.38GB \n"
    assert _state("0.5.3", line).slots == 512
    assert _state("0.5.3", line, max_running=48).slots == 48


@pytest.mark.parametrize("case_id, printed", [("sg_016", 327_310), ("sg_017", 580_364)])
def test_qwen3_5_hybrids_rebuild_from_the_state_split(case_id, printed):
    """sg_016 (Qwen3.5-9B tp 2) and sg_017 (Qwen3.5-397B on kt-sglang): without the state pool the rebuild was
    80 % / 69 % too high; the printed split pins the budget whatever the default fraction."""
    e = _stripped(case_id)
    lo, hi = e.kv_predicted_range
    assert lo <= printed <= hi and (hi - lo) / printed < 0.05
    items = [r.item for r in e.rows]
    assert "state pool (mamba / linear attention)" in items and "KV budget after the state pool" in items


@pytest.mark.parametrize("release,per_worker", [("0.8.1", False), ("0.8.2", True), ("0.10.2", True),
                                                ("0.11.0", True), ("0.11.1", False), ("0.33", False)])
def test_vllm_prints_each_workers_capacity_from_0_8_2_to_0_11_0(release, per_worker):
    """vllm 0.8.1 takes min(available) over the workers before sizing (v1/executor/abstract.py); 0.8.2–0.11.0
    size and print every worker from its own available memory, then unify to the smallest (v1/engine/core.py
    _initialize_kv_caches); 0.11.1 prints once after the min (kv_cache_utils.py get_kv_cache_configs →
    _report_kv_cache_config).  Read in the 0.8.0–0.8.3, 0.8.5, 0.9.0, 0.9.1, 0.10.0, 0.10.2, 0.11.0–0.11.2,
    0.12.0, 0.13.0, 0.20.0, 0.21.0 and 0.27.1 wheels."""
    from tpkit.engines.vllm.versions import resolve_rules

    assert resolve_rules(release).capacity_per_worker is per_worker


_VL021_BLOCK = ("(EngineCore_DP0 pid=1944) INFO 09-24 20:53:41 [kv_cache_utils.py:864] GPU KV cache size: "
                "238,208 tokens\n")


def test_one_capacity_line_of_eight_workers_is_named_as_maybe_another_workers():
    """vl_021 (vLLM 0.10.2, tp 8): the excerpt keeps one of the eight per-worker capacity lines and TP3's available
    memory; 238,208 tokens is more than TP3's 10.65 GiB holds (237,488–237,712), and the explanation says the line
    may be another worker's instead of calling it the pool."""
    e = explain_log(log_bytes("vl_021"), flags={"model": str(_case_model("vl_021"))})
    assert e.kv_printed == 238_208
    assert "1 of the 8 workers' lines" in e.anchored.per_worker and "Worker_TP3_EP3" in e.anchored.per_worker
    tp1 = explain_log(log_bytes("vl_021").replace(b"'tensor_parallel_size': 8", b"'tensor_parallel_size': 1")
                      .replace(b"tensor_parallel_size=8", b"tensor_parallel_size=1"),
                      flags={"model": str(_case_model("vl_021"))})
    assert tp1.context.get("tp") == 1 and tp1.anchored.per_worker is None  # one worker: its line is the pool


def test_the_pool_is_the_smallest_of_the_per_worker_lines():
    """A report block of per-worker lines (0.8.2–0.11.0): the printed pool is the smallest line, not the last."""
    data = log_bytes("vl_021").decode()
    lines = [_VL021_BLOCK.replace("238,208", f"{n:,}") +
             "(EngineCore_DP0 pid=1944) INFO 09-24 20:53:41 [kv_cache_utils.py:868] Maximum concurrency for 32,768 "
             f"tokens per request: {n / 32768:.2f}x\n" for n in (237_344, 237_600, 237_456, 238_000, 237_520,
                                                                  237_488, 237_712)]
    data = data.replace(_VL021_BLOCK, _VL021_BLOCK + "".join(lines).replace("\n(", "\n(", 1), 1)
    e = explain_log(data.encode(), flags={"model": str(_case_model("vl_021"))})
    assert e.kv_printed == 237_344
    assert "the log prints 8 lines for 8 workers, the smallest 237,344" in e.anchored.per_worker


def _case_model(case_id: str):
    check = script("explain_capacity_check")
    return check.model_flag(check.model_map()[case_id])


def _eagle3_log(draft_first: bool) -> bytes:
    t = "[2026-03-01 10:00:0{} TP0] "
    target = [t.format(1) + "Load weight begin. avail mem=139.00 GB",
              t.format(2) + "Load weight end. elapsed=9.00 s, type=LlamaForCausalLM, dtype=torch.bfloat16, "
                            "avail mem=124.00 GB, mem usage=15.00 GB."]
    draft = [t.format(3) + "Load weight begin. avail mem=124.00 GB",
             t.format(4) + "Load weight end. elapsed=1.00 s, type=LlamaForCausalLMEagle3, dtype=torch.bfloat16, "
                           "avail mem=122.02 GB, mem usage=1.98 GB."]
    pool = [t.format(5) + "Memory pool end. avail mem=30.00 GB"]
    return ("\n".join(target + draft + pool if draft_first else target + pool + draft) + "\n").encode()


@pytest.mark.parametrize("version, draft_first, free_gib", [("0.5.13", False, 124.00), ("0.5.14", True, 122.02),
                                                            ("0.5.23", True, 122.02)])
def test_the_budget_reads_the_drafts_load_end_when_the_draft_loads_before_the_pool(version, draft_first, free_gib):
    """Synthetic EAGLE-3 start-ups (Llama-3.1-8B, H200, f 0.8).  0.5.14+ load the draft before sizing the target's
    pool, and ``set_embed`` frees the draft's own embedding (0.98 GiB here) only after the pool is sized
    (``scheduler.py init_memory_pools`` → ``eagle_worker_v2.py alloc_memory_pool`` → ``init_lm_head``): the
    budget starts from the draft's 'Load weight end' free memory, embedding included.  ≤ 0.5.13 sizes the pool
    before the draft loads: the target's line."""
    e = explain_log(_eagle3_log(draft_first), flags={
        "model": "meta-llama/Llama-3.1-8B-Instruct", "tp": 1, "mem_fraction": 0.8, "gpu": "H200",
        "engine_version": version})
    assert abs(e.anchored.free_after_weights.mid.gib - free_gib) < 0.006


def test_a_time_only_rank_prefix_reads_the_0_3_defaults():
    """sg_025 (MI300X, tp 1, no release or date printed): '[22:30:44 TP0]' is SGLang 0.2.15–0.3.3's record prefix,
    whose default fraction at tp 1 is 0.88 (``server_args.py __post_init__``, 0.3.2 and 0.3.3 read); 0.5.15's
    capacity-class default (0.867) rebuilt it 1.6 % short."""
    e = _stripped("sg_025", tp=1, gpu="MI300X")
    assert e.context.rules_version == "0.3.3" and abs(e.anchored.fraction - 0.88) < 1e-9
    lo, hi = e.kv_predicted_range
    assert lo <= 1_256_440 <= hi


@pytest.mark.parametrize("dp_attention, reserve_mib", [(False, 32_768), (True, 36_864)])
def test_the_default_fraction_carries_the_runs_dp_attention(dp_attention, reserve_mib):
    """sg_061 (DeepSeek-R1, 8 × MI300X, SGLang 0.4.8.post1, no fraction printed): 0.4.8's default reserve is the
    capacity class (32 GiB above 160 GiB) + 4 GiB with DP attention (``server_args.py __post_init__``), then
    × 0.85 for aiter.  With the run's --dp 8 --enable-dp-attention the profiled value -561,981 is rebuilt within
    0.4 % (it was -157k … -143k without the DP-attention term)."""
    flags = {"tp": 8, "dp": 8, "enable_dp_attention": True} if dp_attention else {"tp": 8}
    e = _stripped("sg_061", **flags)
    assert f"− {reserve_mib})" in e.anchored.fraction_source
    if dp_attention:
        cell = 70_272
        lo, hi = (e.anchored.rest.low.bytes // cell, e.anchored.rest.high.bytes // cell)
        assert abs(lo - (-561_981)) / 561_981 < 0.004 and abs(hi - (-561_981)) / 561_981 < 0.006


_TWO_LINES = b"Available KV cache memory: 8.11 GiB\nGPU KV cache size: 178,880 tokens\n"


def test_a_release_not_printed_keeps_the_per_worker_caveat():
    """validation_case_020 (two lines, tp 4 from the source, no release): the line formats admit 0.8–0.27, which
    holds the per-worker releases 0.8.2–0.11.0, while the newest rules read the log; the explanation says the
    printed line may be another worker's.  A release given outside that span says instead that the one line is the
    smallest worker's (``min_over_workers``); one worker says nothing."""
    flags = {"model": "Qwen/Qwen3-8B", "gpu": "H100", "tp": 4}
    e = explain_log(_TWO_LINES, flags=flags)
    assert e.anchored.per_worker is not None and "release is not printed" in e.anchored.per_worker
    assert "1 line(s) for 4 workers" in e.anchored.per_worker
    given = explain_log(_TWO_LINES, flags={**flags, "engine_version": "0.20.0"}).anchored.per_worker
    # 0.20.0 prints the MIN over workers once: not the per-worker caveat, but the smallest worker may lie below
    assert given is not None and "release is not printed" not in given and "prints that capacity once" in given
    assert explain_log(_TWO_LINES, flags={**flags, "tp": 1}).anchored.per_worker is None
    inside = explain_log(_TWO_LINES, flags={**flags, "engine_version": "0.10.0"}).anchored.per_worker
    assert inside is not None and "release is not printed" not in inside and "1 of the 4 workers' lines" in inside


@pytest.mark.parametrize("version, rules", [("0.13.0+faa43dbf.nv26.01", "0.13.0"), ("0.13.0", "0.13.0"),
                                            ("0.10.1.dev101+gbda9d0535", "0.10.1"), ("0.4.6–0.5.3", "0.5.3"),
                                            ("0.22.1", "0.22.1")])
def test_the_rules_release_ignores_a_local_build_label(version, rules):
    """PEP 440's local label ('+…') is not a release: NVIDIA's container build prints 'vLLM API server version
    0.13.0+faa43dbf.nv26.01' (vl_134), whose '26.01' is the container's YY.MM; read as a release it put 0.13's
    GB10 run under the ≥ 0.21 concurrency rule and rebuilt 372k tokens for the printed 282,624.  Ranges and dev
    builds keep their release."""
    from tpkit.explain.context import Context

    ctx = Context.__new__(Context)
    object.__setattr__(ctx, "version", version)
    assert ctx.rules_version == rules


def test_an_nvidia_container_build_is_rebuilt_by_its_release():
    """vl_134 (gpt-oss-20b on a GB10, vLLM 0.13.0+faa43dbf.nv26.01): blocks // groups × block (V1 < 0.21)."""
    from pathlib import Path

    from tpkit.explain import explain_log

    data = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm" / "vl_134.log"
    e = explain_log(data.read_bytes(), flags={"gpu": "GB10", "model": str(Path(__file__).resolve().parents[2]
                                                                        / "tests/validation/configs/openai--gpt-oss-20b.json")})
    lo, hi = e.kv_predicted_range
    assert lo <= 282_624 <= hi
