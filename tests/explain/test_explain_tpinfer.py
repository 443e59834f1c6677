"""A vLLM log's tp inferred from its 'Model loading took' and the bounds its text states (issue 12, helper tpw)."""

from __future__ import annotations

from types import SimpleNamespace

from explain_testlib import log_bytes, script

from tpkit.explain import explain_log
from tpkit.explain.tpinfer import infer_tp, tp_hints
from tpkit.units import Bytes

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GIB = 2**30


def _printed(gib: float, digits: int = 2):
    half = 0.5 * 10**-digits
    return SimpleNamespace(low=Bytes(round((gib - half) * GIB)), high=Bytes(round((gib + half) * GIB)),
                           text=f"{gib:.{digits}f} GiB")


def _predict(model, tp, **_):
    """Synthetic weights: 34.4 GiB split evenly over tp, ± 1 %."""
    n = 34.4 * 2 / tp * GIB
    return Bytes(round(n)), Bytes(round(n * 0.99)), Bytes(round(n * 1.01))


MODEL = SimpleNamespace(num_attention_heads=32)


def test_one_candidate_is_the_tp_with_the_others_in_the_evidence():
    got = infer_tp(model=MODEL, weights=(_printed(17.2), 5), predict=_predict)
    assert got.tp == 4 and got.candidates == (4,) and got.weights_used
    text = got.text()
    assert text.startswith("tp 4 inferred: line 5: Model loading took 17.20 GiB matches the tp 4 weights 17.20 GiB")
    assert "tp 2 → 34.40 GiB" in text and "tp 8 → 8.60 GiB" in text and "tp 1 → 68.80 GiB" in text


def test_several_candidates_are_listed_and_none_is_chosen():
    """Weights that do not depend on tp (replicated) leave every tp; no tp is set."""
    flat = lambda model, tp, **_: (Bytes(10 * GIB), Bytes(int(9.9 * GIB)), Bytes(int(10.1 * GIB)))  # noqa: E731
    got = infer_tp(model=MODEL, weights=(_printed(10.0), 1), predict=flat)
    assert got.tp is None and got.candidates == (1, 2, 4, 8)
    assert got.text().startswith("tp 1/2/4/8 fit the log's numbers")


def test_no_candidate_when_the_printed_weights_match_no_tp():
    got = infer_tp(model=MODEL, weights=(_printed(25.0), 3), predict=_predict)
    assert got.tp is None and got.candidates == ()
    assert got.text().startswith("no tp fits the log's numbers") and "tp 2 → 34.40 GiB" in got.text()


def test_the_print_rounding_and_the_band_decide_the_edge():
    """17.2 × 0.99 = 17.03: a print of 17.02 (≤ 17.025) misses tp 4, 17.03 fits it."""
    assert infer_tp(model=MODEL, weights=(_printed(17.03), 1), predict=_predict).tp == 4
    assert infer_tp(model=MODEL, weights=(_printed(17.01), 1), predict=_predict).candidates == ()


def test_heads_drop_a_tp_that_does_not_divide_them():
    """28 heads: tp 8 is no candidate even when its weights would match."""
    got = infer_tp(model=SimpleNamespace(num_attention_heads=28), weights=(_printed(8.6), 1), predict=_predict)
    assert got.candidates == () and "tp 8 do not divide the 28 attention heads" in got.text()


def test_nothing_bears_on_the_tp():
    assert infer_tp(model=MODEL, weights=None, hints=(), predict=_predict) is None


def test_text_bounds_world_size_nranks_visible_devices():
    world1 = tp_hints(b"x\nINFO [parallel_state.py:1165] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, "
                      b"TP rank 0, EP rank 0\n")
    assert [(h.low, h.high, h.line_no) for h in world1] == [(1, 1, 2)]
    world8 = tp_hints(b"rank 3 in world size 8 is assigned as DP rank 0, PP rank 0, TP rank 3\n")
    assert [(h.low, h.high) for h in world8] == [(4, 8)]
    assert [(h.low, h.high) for h in tp_hints(b"rank 3 in world size 8 is assigned as DP rank 0, PP rank 0, "
                                              b"TP rank 3\n", pp=2, dp=1)] == [(4, 4)]
    nccl = tp_hints(b"NCCL INFO comm 0x5581 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
                    b"NCCL INFO comm 0x5599 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n")
    assert [(h.low, h.high, h.line_no) for h in nccl] == [(1, 4, 2)]
    vis = tp_hints(b"$ CUDA_VISIBLE_DEVICES=0,1 vllm serve m --max-model-len 8192\n")
    assert [(h.low, h.high) for h in vis] == [(1, 2)]
    assert tp_hints(b"Available KV cache memory: 8.11 GiB\n") == ()


def test_bounds_alone_pin_tp_1_and_combine_with_the_weights():
    world1 = tp_hints(b"rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0\n")
    assert infer_tp(model=MODEL, hints=world1, predict=_predict).tp == 1
    vis = tp_hints(b"CUDA_VISIBLE_DEVICES=0,1 vllm serve m\n")
    got = infer_tp(model=MODEL, weights=(_printed(34.4), 2), hints=vis, predict=_predict)
    assert got.tp == 2 and "CUDA_VISIBLE_DEVICES lists 2 GPUs" in got.text()


def test_explain_sets_the_tp_of_a_synthetic_vllm_log_from_the_planner_weights():
    """Llama-3.1-8B at tp 2: the planner's weights per rank (+ rotary cache) are 7.51 GiB; the KV cell then
    follows the inferred tp (8 KV heads / 2 per rank)."""
    text = ("INFO 07-01 10:00:00 [gpu_model_runner.py:1770] Model loading took 7.5100 GiB and 3.1 seconds\n"
            "INFO 07-01 10:00:09 [gpu_worker.py:276] Available KV cache memory: 60.00 GiB\n")
    e = explain_log(text, flags={"model": LLAMA})
    assert e.context.get("tp") == 2
    src = e.context.sources["tp"]
    assert src.startswith("tp 2 inferred: line 1: Model loading took 7.5100 GiB matches the tp 2 weights 7.51 GiB")
    assert "tp 1 → 14.99 GiB" in src and "tp 4 → 3.77 GiB" in src
    e1 = explain_log(text.replace("7.5100", "14.9900"), flags={"model": LLAMA})
    assert e1.context.get("tp") == 1
    none = explain_log(text.replace("7.5100", "11.0000"), flags={"model": LLAMA})
    assert none.context.get("tp") is None and none.context.tp_inferred.candidates == ()


def test_a_printed_tp_is_never_overridden():
    text = ("INFO non-default args: {'model': 'x', 'tensor_parallel_size': 4}\n"
            "INFO Model loading took 7.5100 GiB and 3.1 seconds\n"
            "INFO Available KV cache memory: 60.00 GiB\n")
    e = explain_log(text, flags={"model": LLAMA})
    assert e.context.get("tp") == 4 and e.context.tp_inferred is None


def test_corpus_log_gets_its_tp_from_the_weights():
    """vl_068 prints no tp; its 'Model loading took 14.25 GiB' is the tp-4 share of its model (the source says tp 4)."""
    check = script("explain_capacity_check")
    entry = check.model_map()["vl_068"]
    e = explain_log(check.strip_capacity(log_bytes("vl_068")), flags={"model": check.model_flag(entry)})
    assert e.context.get("tp") == 4
    assert "Model loading took 14.25 GiB matches the tp 4 weights" in e.context.sources["tp"]


def test_target_logs_without_weights_stay_misses_with_the_reason():
    """vl_023, vl_051, vl_055, validation_case_020, validation_case_027 print only the KV lines: nothing in them
    bounds the tp, so from the log alone the tp stays unknown and the row says why (an honest miss, not a guess).
    With the flags their source threads state (models.json ``flags``, helper flg) the user's --tp fills it: vl_023
    (--tp 4, the guide's serve command) rebuilds 1,037,152 within the print rounding; vl_051 (tp 1 from the one H100
    its issue names, plus the EAGLE layer) rebuilds 410,128."""
    check = script("explain_capacity_check")
    models = check.model_map()
    from explain_testlib import cases

    ids = ("vl_023", "vl_051", "vl_055", "validation_case_020", "validation_case_027")
    log_only = {k: {f: v for f, v in e.items() if not f.startswith("flags")} for k, e in models.items()}
    rows = {c["id"]: check.check(c, log_only) for c in cases() if c["id"] in ids}
    assert len(rows) == 5
    for row in rows.values():
        assert row["outcome"] == "miss"
        assert "no 'Model loading took' line, world size, NCCL nranks or CUDA_VISIBLE_DEVICES): pass --tp" in row["why"]
    flagged = {c["id"]: check.check(c, models) for c in cases() if c["id"] in ids}
    assert flagged["vl_023"]["outcome"] == "hit" and flagged["vl_023"]["flags"]["tp"] == 4
    # vl_051: the setup names one H100 and an EAGLE drafter (models.json flags, helper cfg5: tp 1 and an
    # EAGLE head of Llama-3.1-8B as source defaults): with them the rebuild holds the print
    assert flagged["vl_051"]["outcome"] == "hit" and flagged["vl_051"]["flags"]["tp"] == 1


def test_rendered_and_json_carry_the_evidence():
    from tpkit.explain.render import format_explanation

    text = ("INFO Model loading took 7.5100 GiB and 3.1 seconds\n"
            "INFO Available KV cache memory: 60.00 GiB\n")
    e = explain_log(text, flags={"model": LLAMA})
    shown = format_explanation(e)
    assert "tp from the memory arithmetic: tp 2 inferred: line 1: Model loading took 7.5100 GiB" in shown
    got = e.to_dict()["run"]["tp_inferred"]
    assert got["tp"] == 2 and got["candidates"] == [2] and got["weights_used"]


def test_a_quoted_multiline_launch_command_gives_the_tp():
    """'--tensor-parallel-size 4 \\' on its own line of a launch command quoted from its middle (the reader sees
    no 'vllm serve') and '-tp=2' are read as the log's tp; the rank prefix TP1 alone would say 2."""
    text = ("-served-model-name q \\\n    --tensor-parallel-size 4 \\\n    --max-model-len 32768\n"
            "(Worker_TP1 pid=771) INFO Model loading took 4.10 GiB memory and 48.5 seconds\n")
    e = explain_log(text)
    assert e.context.get("tp") == 4 and "--tensor-parallel-size 4" in e.context.sources["tp"]
    assert explain_log("python3 -m vllm.entrypoints.openai.api_server --model=/m -tp=2 --port=8080\n"
                       ).context.get("tp") == 2
    assert explain_log("vllm serve m --tp-sizes 4\n").context.get("tp") != 4


def test_corpus_tp_now_read_agrees_with_the_sources():
    """vl_033 ('--tensor-parallel-size 4 \\' in a quoted command; the prefixes show TP0…TP1) and vl_064."""
    check = script("explain_capacity_check")
    models = check.model_map()
    for cid, tp in (("vl_033", 4), ("vl_064", 2), ("vl_069", 4), ("validation_case_021", 1)):
        flag = check.model_flag(models.get(cid))
        e = explain_log(log_bytes(cid), flags={"model": flag} if flag else {})
        assert e.context.get("tp") == tp, cid
