"""Round cr36b (helper cr36b, 2026-12-07, session 36; docs/accuracy.md §7.3): vLLM kv_pool / weights crash logs
without a fit.  vl_1430's model (Xinference's chatglm3-6b-32k) gets an assembled config, so freeing the process the
OOM lists is planned on the freed card (class b); and a vLLM weights OOM's "free the other processes" is a fit only
where the listed memory accounts for the failure (``explain.vheldcard``), as SGLang's catalog path already required.
Each rule is tested on both sides."""

from __future__ import annotations

import json

from explain_testlib import ROOT, log_bytes
from test_explain_corpus import FLAGS_FOR, NOT_SHOWN

from tpkit.explain import explain_log
from tpkit.explain.diagnose import SUGGESTION
from tpkit.explain.vheldcard import held_accounts
from tpkit.models.load import load_model
from tpkit.models.params import count_params

CONFIG = ROOT / "tests/logs/data/configs/THUDM__chatglm3-6b-32k/config.json"
LISTED = b"Process 35156 has 22.14 GiB memory in use"


def _small_tenant() -> bytes:
    """vl_1430 with the other process holding 1.14 GiB instead of 22.14 GiB (too little to stop the load)."""
    data = log_bytes("vl_1430")
    assert LISTED in data
    return data.replace(LISTED, b"Process 35156 has 1.14 GiB memory in use")


def _free_fix(e):
    return next(f for f in e.diagnosis.fixes if f.flags.startswith("free the other processes"))


def test_the_assembled_config_is_chatglm3_6b():
    m = load_model(str(CONFIG))
    assert (m.num_layers, m.hidden_size, m.num_attention_heads, m.num_kv_heads, m.head_dim) == (28, 4096, 32, 2, 128)
    assert (m.intermediate_size, m.vocab_size, m.torch_dtype, m.tie_word_embeddings) == (13696, 65024, "float16", False)
    assert m.max_position_embeddings == 32768
    # ChatGLM3-6B's 6,243,584,000 parameters, plus the o-projection bias a standard decoder with attention_bias adds
    assert count_params(m) == 6_243_584_000 + 28 * 4096
    assert any("not one tpkit has rules for" in s for s in m.assumptions)  # planned as a standard decoder, said so
    assert "helper cr36b" in json.loads(CONFIG.read_text())["_assembled"]
    assert "xorbitsai/inference/issues/1361" in (CONFIG.parent / "SOURCE.md").read_text()


def test_models_map_gives_what_flags_for_passes():
    entry = next(c for c in json.loads((ROOT / "tests/logs/data/models.json").read_text())["cases"]
                 if c["id"] == "vl_1430")
    flags = FLAGS_FOR["vl_1430"]
    assert str(ROOT / entry["config"]) == flags["model"] and entry["config_fidelity"] == "partial"
    assert entry["flags"] == {k: v for k, v in flags.items() if k != "model"}
    assert entry["model_evidence"].encode() in log_bytes("vl_1430")
    assert "v0.10.2.post1" in entry["flags_from"] and "vl_1430" not in NOT_SHOWN


def test_vl_1430_frees_the_other_process_as_a_fit():
    e = explain_log(log_bytes("vl_1430"), flags=FLAGS_FOR["vl_1430"])
    assert e.diagnosis.phase == "weights" and "the catalog does not reproduce" in e.diagnosis.cause
    fix = _free_fix(e)
    assert fix.fits and fix.flags.startswith("free the other processes (22.14 GiB")
    assert "pessimistic end holds" in fix.note and fix.kv_tokens > 4096
    # the layout fixes stay suggestions: the empty card fits, so tp / fp8 do not cure this failure
    assert not any(f.fits for f in e.diagnosis.fixes if f is not fix)


def test_without_the_model_freeing_stays_a_suggestion():
    fix = _free_fix(explain_log(log_bytes("vl_1430")))
    assert not fix.fits and fix.note.startswith(SUGGESTION) and "model or the GPU is not known" in fix.note


def test_a_listed_process_too_small_to_explain_the_failure_is_not_a_fit():
    e = explain_log(_small_tenant(), flags=FLAGS_FOR["vl_1430"])
    fix = _free_fix(e)
    assert not fix.fits and fix.note.startswith(SUGGESTION)
    assert "does not account for the failure" in fix.note and "still fits the card" in fix.note


def test_held_accounts_both_ways_and_unknowns():
    e = explain_log(log_bytes("vl_1430"), flags=FLAGS_FOR["vl_1430"])
    held = e.parsed.primary_failure.size("other_processes")
    accounts, words = held_accounts(e.context, e.anchored, held)
    assert accounts is True and "accounts for the failure" in words
    small = explain_log(_small_tenant(), flags=FLAGS_FOR["vl_1430"])
    accounts, words = held_accounts(small.context, small.anchored, small.parsed.primary_failure.size("other_processes"))
    assert accounts is False and "1.14 GiB" in words
    bare = explain_log(log_bytes("vl_1430"))
    assert held_accounts(bare.context, bare.anchored, held)[0] is None  # no model: nothing planned
    assert held_accounts(None, None, held)[0] is None


def test_a_tenant_that_fills_the_card_keeps_its_fit():
    """vl_1398: 43.95 GiB of other processes on a 47.36 GiB card; the plan fails with them there, so freeing them is
    still the fit it was (round cr34b)."""
    e = explain_log(log_bytes("vl_1398"), flags=FLAGS_FOR["vl_1398"])
    fix = _free_fix(e)
    assert fix.fits and fix.flags.startswith("free the other processes (43.95 GiB")


# -- explain.vshortlen: the one-request check on a profile fix re-planned from the log (class a) ---------------------

def test_vl_342_fits_on_its_one_gb10_with_the_length_its_pool_holds():
    e = explain_log(log_bytes("vl_342"), flags=FLAGS_FOR["vl_342"])
    batch = next(f for f in e.diagnosis.fixes if f.flags == "--max-num-seqs 64 --max-num-batched-tokens 4096")
    assert not batch.fits and batch.kv_tokens == 10928 and "To serve at least one request" in batch.note
    short = next(f for f in e.diagnosis.fixes if "--max-model-len" in f.flags)
    assert short.flags == "--max-num-seqs 64 --max-num-batched-tokens 4096 --max-model-len 10912"
    assert short.fits and short.kv_tokens >= 10912 and "the log's 15.22 GiB" in short.note
    assert "needs" not in short.note  # one card: the host rule has nothing to say
    tp = next(f for f in e.diagnosis.fixes if f.flags == "--tensor-parallel-size 2")
    assert not tp.fits  # still beyond the host (round cr35b)
    assert "vl_342" not in NOT_SHOWN


def test_without_the_model_no_length_is_offered():
    e = explain_log(log_bytes("vl_342"), flags={"gpu": "GB10"})
    assert not any("--max-model-len" in f.flags for f in e.diagnosis.fixes)
    assert not any(f.fits for f in e.diagnosis.fixes)


def test_one_request_fix_applies_only_where_its_conditions_hold(monkeypatch):
    from types import SimpleNamespace

    from tpkit.explain import vreplan, vshortlen
    from tpkit.explain.diagnose import Fix

    class _Ctx(dict):
        model = SimpleNamespace(max_position_embeddings=32768)

    ctx, a = _Ctx(), SimpleNamespace(block_size=16)
    seen = []

    def _reprofiled(a_, ctx_, changes, why):
        seen.append(changes["max_model_len"])
        return Fix(flags="x", kv_tokens=10928, fits=True, why=why)

    monkeypatch.setattr(vreplan, "reprofiled", _reprofiled)
    monkeypatch.setattr(vshortlen, "_measured", lambda a_, c_, ch: True)
    fix = Fix(flags="--max-num-seqs 64", kv_tokens=10928, fits=False, why="w")
    assert vshortlen.one_request_fix(a, ctx, fix, {"max_num_seqs": 64}, "w").fits and seen == [10912]
    assert vshortlen.one_request_fix(a, ctx, Fix(flags="f", kv_tokens=10928, fits=True, why="w"), {}, "w") is None
    assert vshortlen.one_request_fix(a, ctx, Fix(flags="f", kv_tokens=40000, fits=False, why="w"), {}, "w") is None
    assert vshortlen.one_request_fix(a, ctx, Fix(flags="f", kv_tokens=31, fits=False, why="w"), {}, "w") is None
    assert vshortlen.one_request_fix(a, None, fix, {}, "w") is None
    assert vshortlen.one_request_fix(a, ctx, fix, {"max_model_len": 8192}, "w") is None
    monkeypatch.setattr(vshortlen, "_measured", lambda a_, c_, ch: False)  # class (b): round cr35c's rule decides
    assert vshortlen.one_request_fix(a, ctx, fix, {}, "w") is None
    monkeypatch.setattr(vshortlen, "_measured", lambda a_, c_, ch: True)
    monkeypatch.setattr(vreplan, "reprofiled", lambda *args: Fix(flags="x", kv_tokens=0, fits=False, why="w"))
    assert vshortlen.one_request_fix(a, ctx, fix, {}, "w") is None  # the shorter re-plan does not fit: not offered
