"""Explain-path rules behind the capacity rebuild (docs/accuracy.md §7.2): the target model's loads, not the
draft's; SGLang's ModelRunner multimodal factor; settings written outside a recognised dump."""

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
