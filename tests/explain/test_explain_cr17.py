"""Crash logs without a fitting fix (helper cr17, 2026-12-05, session 17; docs/accuracy.md §7).

* vl_225 (Qwen3.6-35B-A3B bf16 on an 11.49 GiB card): with the card free the run still does not fit, and the weights
  exceed the card even as fp8: explain says "does not fit on 1 × GPU at any setting", gives the least GPU count the
  weights need (whole weights ÷ the card) and plans the fewest tp × pp that fit (``explain.vgpus``).  Not where the
  free card fits (vl_115) or where some engine flag's weights fit one card (the same log on an H100 or A100-40GB).
* sg_490 (Qwen3-8B TP 2 on A800 at 0.12, colocated with a trainer): the plan of the log's settings fits an empty
  card, so another process's memory made it fail.  explain now gives the least it held (K / f) and the fraction that
  gives the planned KV budget back with that much held, with how much it tolerates (``explain.planned``); not a fit.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from explain_testlib import log_bytes
from roundtrip_testlib import row as _row

from tpkit.explain import explain_log

GIB = 2**30


def _gpus(flags: str) -> int:
    tp = re.search(r"--tensor-parallel-size (\d+)", flags)
    pp = re.search(r"--pipeline-parallel-size (\d+)", flags)
    return (int(tp.group(1)) if tp else 1) * (int(pp.group(1)) if pp else 1)


def test_weights_above_the_card_at_every_setting_get_their_own_outcome():
    e = explain_log(log_bytes("vl_225"))
    cause = e.diagnosis.cause
    assert "does not fit on 1 × 11.49 GiB GPU at any setting" in cause, cause
    # the whole bf16 weights, 65.39 GiB, over 11.49 GiB cards: at least 6; fp8 weights (34.20 GiB): at least 3
    assert "needs ≥ 6 GPUs of this size (≥ 3 with fp8 weights)" in cause, cause
    fitting = [f for f in e.diagnosis.fixes if f.fits and "--cpu-offload-gb" not in f.flags]  # cr19: the offload
    assert [f.flags for f in fitting] == ["--tensor-parallel-size 2 --pipeline-parallel-size 5",
                                          "--tensor-parallel-size 2 --pipeline-parallel-size 3 --quantization fp8"]
    assert all(f.kv_tokens and _gpus(f.flags) >= 3 for f in fitting)
    # nothing on the log's one GPU is called a fit, but the weights kept in host memory (helper cr19:
    # test_explain_cr19.py; the fix names the host memory it needs)
    assert not any(f.fits for f in e.diagnosis.fixes if _gpus(f.flags) == 1 and "--cpu-offload-gb" not in f.flags)


def test_the_fewest_gpus_are_the_fewest_the_plan_fits(monkeypatch):
    """One GPU fewer than each offered layout does not fit at any tp × pp the search plans."""
    import tpkit.explain.vdiagnose as vd
    from tpkit.explain.replan import log_planner, relayout
    from tpkit.explain.vgpus import _layouts

    seen = {}
    orig = vd.diagnose_vllm
    monkeypatch.setattr(vd, "diagnose_vllm", lambda parsed, a, ctx: seen.update(a=a, ctx=ctx) or orig(parsed, a, ctx))
    explain_log(log_bytes("vl_225"))
    a, ctx = seen["a"], seen["ctx"]
    plan = log_planner(ctx, band=False)
    for n, q in ((9, None), (5, "fp8")):
        for tp, pp in _layouts(n):
            r = relayout(ctx, a, tp=tp, pp=pp, quantization=q, plan=plan).result
            assert not (r.verdict.fits and r.kv_tokens), (n, q, tp, pp)


@pytest.mark.parametrize("case_id,flags", [("vl_115", None), ("vl_225", {"gpu": "H100"}),
                                           ("vl_225", {"gpu": "A100-40GB"})])
def test_no_such_outcome_where_a_setting_on_the_card_may_fit(case_id, flags):
    """vl_115: the free card fits.  vl_225 on an H100: the bf16 weights fit one card; on an A100-40GB the fp8
    weights (34.20 GiB) do: the outcome is not claimed and no more-GPU layout is offered."""
    e = explain_log(log_bytes(case_id), flags=flags)
    assert "at any setting" not in e.diagnosis.cause
    assert not any(_gpus(f.flags) > 1 for f in e.diagnosis.fixes)


def test_the_more_gpu_fixes_round_trip():
    for flags in ("--tensor-parallel-size 2 --pipeline-parallel-size 5",
                  "--tensor-parallel-size 2 --pipeline-parallel-size 3 --quantization fp8"):
        row = _row("vl_225", flags)
        assert row["outcome"] == "match", row


SG_490 = {"gpu": "A800", "tp": 2, "model": "Qwen/Qwen3-8B", "mem_fraction_static": 0.12}


def test_another_process_memory_is_bounded_and_a_fraction_planned():
    e = explain_log(log_bytes("sg_490"), flags=SG_490)
    cause = e.diagnosis.cause
    assert "does not reproduce" in cause
    assert "at least 1.66 GiB / 0.12 = 13.85 GiB per GPU" in cause, cause  # 13.86 before ev24 (A800 context model)
    assert "--mem-fraction-static 0.15, which tolerates up to 26.63 GiB held" in cause, cause  # 26.64 before ev24
    fix = next(f for f in e.diagnosis.fixes if f.flags == "--mem-fraction-static 0.15")
    assert not fix.fits and fix.kv_tokens and fix.kv_tokens > 24_214  # the empty card's plan at 0.12: 24,214
    assert not any(f.fits for f in e.diagnosis.fixes)


def test_the_bound_is_where_the_planner_starts_to_fail():
    """The closed form K / f against the planner itself: the log's settings on the card less a little under the bound
    still hold tokens, a little over it none; at 0.15 the same holds around the tolerance."""
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.explain.planned import catalog_plan
    from tpkit.parallel import ParallelSpec
    from tpkit.units import Bytes

    ctx = explain_log(log_bytes("sg_490"), flags=SG_490).context
    from tpkit.explain.sgrelease import log_release

    options = SglangOptions(engine_version=log_release(ctx)[0], mem_fraction_static=0.12)
    par = ParallelSpec(tp=2)
    total = ctx.gpu.total_bytes.bytes

    def tokens(held_gib, f):
        gpu = replace(ctx.gpu, total_bytes=Bytes(int(total - held_gib * GIB)))
        r = catalog_plan(ctx.model, gpu, par, replace(options, mem_fraction_static=f))
        return r.kv_tokens if r.verdict.fits else 0

    assert tokens(13.86 - 0.2, 0.12) > 0 and tokens(13.86 + 0.2, 0.12) == 0
    assert tokens(26.63 - 0.3, 0.15) > 0 and tokens(26.63 + 0.3, 0.15) == 0


@pytest.mark.parametrize("case_id,flags", [("sg_038", None),
                                           ("sg_455", {"gpu": "RTX 5060 Ti", "model": "Qwen/Qwen3-8B",
                                                       "engine_version": "0.5.10"})])
def test_no_tenant_bound_where_the_plan_reproduces_the_failure(case_id, flags):
    e = explain_log(log_bytes(case_id), flags=flags)
    assert "another process" not in e.diagnosis.cause or "must have held" not in e.diagnosis.cause
    assert any(f.fits for f in e.diagnosis.fixes)


# vl_048 (vLLM 0.15.2, pp 2 over an RTX 5070 Ti and an RTX 5090 D, 16 / 32 layers): vLLM printed only the one-request
# error, with the smallest worker's available KV memory (3.18 GiB) and its estimate (34,736 tokens).


def test_pp_fixes_on_unlike_gpus_are_planned_per_stage():
    from roundtrip_testlib import explained

    e = explained("vl_048")[0]
    fixes = {f.flags: f for f in e.diagnosis.fixes}
    mml, fp8 = fixes["--max-model-len 34736"], fixes["--kv-cache-dtype fp8"]
    # the engine prints the fewest blocks over the workers, each of its own layers: stage 0's 16 layers on 3.18 GiB
    # (32,768 B a token), not 3.18 GiB over all 48 layers (34,720, main's number)
    assert mml.fits and mml.kv_tokens == 104_224, mml
    assert not fp8.fits and fp8.kv_tokens == 208_400, fp8  # 262,144 tokens over 48 layers still need 12 GiB
    assert "planned per pipeline stage" in mml.note
    for flags in ("--max-model-len", "--kv-cache-dtype"):
        row = _row("vl_048", flags)
        assert row["outcome"] == "match", row


def test_the_pinned_stage_reproduces_the_printed_estimate(capsys):
    """Pinned to the printed 3.18 GiB (narrowed by the estimate), the plan of the log's own settings fails vLLM 0.15's
    all-layer check and names the estimate the log printed; one block more than it does not fit."""
    from roundtrip_testlib import plan

    own = plan(capsys, "vl_048")
    assert not own["verdict"]["fits"] and "--max-model-len 34736 or lower" in own["verdict"]["message"], own["verdict"]
    assert any("pinned to the 3.18 GiB the log printed" in w for w in own["warnings"])
    assert plan(capsys, "vl_048", "--max-model-len", "34736")["verdict"]["fits"]
    assert not plan(capsys, "vl_048", "--max-model-len", "34752")["verdict"]["fits"]


def test_gpus_the_user_names_are_not_pinned(capsys):
    """The printed memory was measured on the log's GPUs: --gpu given on the command line plans without the pin."""
    from roundtrip_testlib import plan

    given = plan(capsys, "vl_048", "--gpu", "RTX-5070-Ti,RTX-5090")
    assert not any("pinned to" in w for w in given["warnings"])
