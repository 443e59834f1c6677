"""Round cr35c (helper cr35c, 2026-12-07, session 35; docs/accuracy.md §7.3): a lower utilization after a
first-request OOM re-planned from a pool the log prints only in tokens, and checked against vLLM's start-up check on
one max_model_len request (``explain.vrequest``); ``plan --from-log`` pins the same pool (``cli.fromlog_plan``).
Each rule is tested on both sides."""

from __future__ import annotations

import json
from types import SimpleNamespace

from explain_testlib import ROOT, log_bytes
from test_explain_corpus import FLAGS_FOR

from tpkit.cli.fromlog_plan import _pool_in_tokens
from tpkit.explain import explain_log
from tpkit.explain import vrequest
from tpkit.explain.diagnose import SUGGESTION, Fix
from tpkit.explain.interval import Iv
from tpkit.units import Bytes


def _a(**kw):
    base = dict(available=None, tokens_printed=9072, token_bytes=81920.0, token_bytes_source="1,310,720 B per block",
                block_size=16)
    base.update(kw)
    return SimpleNamespace(**base)


class _Ctx(dict):
    model = object()


def test_pool_from_tokens_only_where_the_memory_is_not_printed_and_the_model_gives_the_bytes():
    assert vrequest.pool_from_tokens(_a()) == 9072 * 81920
    assert vrequest.pool_from_tokens(_a(available=Iv(Bytes(1), Bytes(2)))) is None  # the memory is printed
    assert vrequest.pool_from_tokens(_a(token_bytes_source="measured: available KV memory / printed tokens")) is None
    assert vrequest.pool_from_tokens(_a(tokens_printed=None)) is None
    assert vrequest.pool_from_tokens(_a(token_bytes=None)) is None


def _fix(tokens=3904):
    return Fix(flags="--gpu-memory-utilization 0.94", kv_tokens=tokens, fits=True, why="w")


def test_one_request_kept_added_or_refused(monkeypatch):
    ctx = _Ctx(context_length=8192)
    # vLLM's estimate says the smaller pool holds the whole length: the fix is kept as it is
    monkeypatch.setattr(vrequest, "longest_request", lambda a, c, b, tp=None: (10_000, 8192))
    assert vrequest.with_one_request(_fix(20_000), _a(), ctx, 1) == _fix(20_000)
    # shorter: --max-model-len the longest it holds, one block less for V1's null block
    monkeypatch.setattr(vrequest, "longest_request", lambda a, c, b, tp=None: (3904, 8192))
    fix = vrequest.with_one_request(_fix(3904), _a(), ctx, 1)
    assert fix.fits and fix.flags == "--gpu-memory-utilization 0.94 --max-model-len 3888"
    # no request fits: a suggestion
    monkeypatch.setattr(vrequest, "longest_request", lambda a, c, b, tp=None: (0, 8192))
    fix = vrequest.with_one_request(_fix(16), _a(), ctx, 1)
    assert not fix.fits and fix.note.startswith(SUGGESTION)
    # model unknown: the smaller pool's tokens must cover the length (full attention's need)
    monkeypatch.setattr(vrequest, "longest_request", lambda a, c, b, tp=None: (None, 8192))
    assert vrequest.with_one_request(_fix(9000), _a(), ctx, 1).fits
    fix = vrequest.with_one_request(_fix(3904), _a(), ctx, 1)
    assert not fix.fits and "fewer than max_model_len 8,192" in fix.note
    # no length known: unchanged
    monkeypatch.setattr(vrequest, "longest_request", lambda a, c, b, tp=None: (None, None))
    assert vrequest.with_one_request(_fix(3904), _a(), ctx, 1) == _fix(3904)


def test_vl_990_lower_utilisation_re_planned_from_the_printed_tokens():
    d = explain_log(log_bytes("vl_990"), flags=FLAGS_FOR["vl_990"]).diagnosis
    fix = d.fixes[0]
    # 9,072 tokens × 81,920 B (80 layers × 2 × 2 KV heads per rank at tp 4 × 128 × 2 B) less 0.01 × 39.38 GiB
    assert fix.fits and fix.flags == "--gpu-memory-utilization 0.94 --max-model-len 3888"
    assert fix.kv_tokens == 3904
    # without the model, no bytes per token: the suggestion as before (tests/explain/test_explain_cr33c.py)
    fix = explain_log(log_bytes("vl_990")).diagnosis.fixes[0]
    assert not fix.fits and fix.note.startswith(SUGGESTION)


def test_plan_from_log_pins_the_pool_in_tokens_unless_the_page_changes():
    a = _a()
    args = SimpleNamespace(user_given=frozenset({"gpu_memory_utilization", "max_model_len"}))
    iv = _pool_in_tokens(args, a, {"bytes_per_block": 1_310_720, "block_size": 16})
    assert iv.low.bytes == 567 * 1_310_720 and iv.high.bytes == 568 * 1_310_720 - 1
    assert _pool_in_tokens(SimpleNamespace(user_given=frozenset({"kv_cache_dtype"})), a,
                           {"bytes_per_block": 1_310_720, "block_size": 16}) is None
    assert _pool_in_tokens(args, _a(available=Iv(Bytes(1), Bytes(2))), {"bytes_per_block": 1, "block_size": 16}) is None
    assert _pool_in_tokens(args, _a(tokens_printed=None), {"bytes_per_block": 1, "block_size": 16}) is None


def test_vl_990_fix_round_trips_through_plan_from_log():
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    import explain_roundtrip_check as rt

    case = next(c for c in json.loads((ROOT / "tests/logs/data/cases.json").read_text(encoding="utf-8"))
                if c["id"] == "vl_990")
    [row] = rt.check_all([case])["fixes"]
    assert row["outcome"] == "match" and row["plan_fits"] and abs(row["plan_kv_tokens"] - 3904) <= 16


# --- explain.vnoblocks: the smaller profile batch with the length its pessimistic end holds -----------------------

def test_vl_007_smaller_profile_with_the_length_the_pessimistic_end_holds():
    d = explain_log(log_bytes("vl_007"), flags=FLAGS_FOR["vl_007"]).diagnosis
    plain = next(f for f in d.fixes if f.flags == "--max-num-seqs 64 --max-num-batched-tokens 4096")
    assert not plain.fits and "below the 131,072" in plain.note  # the default length misses the pessimistic end
    [fit] = [f for f in d.fixes if f.fits]
    assert fit.flags == "--max-num-seqs 64 --max-num-batched-tokens 4096 --max-model-len 118576"
    assert "≥ the 118,576" in fit.note
    # without the model and GPU its thread names: nothing planned, nothing shown to fit
    d = explain_log(log_bytes("vl_007")).diagnosis
    assert not any(f.fits for f in d.fixes) and not any("--max-model-len" in f.flags for f in d.fixes)


def test_shorter_profile_fix_only_where_it_applies(monkeypatch):
    from tpkit.explain import vnoblocks

    ctx, a = _Ctx(context_length=131072), _a()
    batch = {"max_num_seqs": 64, "max_num_batched_tokens": 4096}
    shown = Fix(flags="--max-num-seqs 64 --max-num-batched-tokens 4096", kv_tokens=1, fits=True, why="w")
    unshown_fix = Fix(flags=shown.flags, kv_tokens=1, fits=False, why="w", note=SUGGESTION)
    assert vnoblocks.shorter_profile_fix(a, ctx, None, batch, "w") is None
    assert vnoblocks.shorter_profile_fix(a, ctx, shown, batch, "w") is None  # already a fit
    assert vnoblocks.shorter_profile_fix(a, ctx, unshown_fix, {**batch, "max_model_len": 4096}, "w") is None
    calls = []

    def tokens(c, an, changes):
        calls.append(dict(changes))
        return 0 if not changes else 118_592

    monkeypatch.setattr(vnoblocks, "_pessimistic_tokens", tokens)
    monkeypatch.setattr("tpkit.explain.vreplan.reprofiled",
                        lambda a, c, changes, why: Fix(flags=str(changes["max_model_len"]), kv_tokens=1, fits=True,
                                                       why=why))
    assert vnoblocks.shorter_profile_fix(a, ctx, unshown_fix, batch, "w").flags == "118576"
    # the log's own settings keep tokens at the pessimistic end: the catalog does not reproduce the failure
    monkeypatch.setattr(vnoblocks, "_pessimistic_tokens", lambda c, an, changes: 5_000 if not changes else 118_592)
    assert vnoblocks.shorter_profile_fix(a, ctx, unshown_fix, batch, "w") is None
    # the pessimistic end already holds the default length: nothing to shorten
    monkeypatch.setattr(vnoblocks, "_pessimistic_tokens", lambda c, an, changes: 0 if not changes else 140_000)
    assert vnoblocks.shorter_profile_fix(a, ctx, unshown_fix, batch, "w") is None
