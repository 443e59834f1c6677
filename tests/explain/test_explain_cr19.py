"""Crash logs without a fitting fix, session 19 (helper cr19, 2026-12-05; docs/accuracy.md §7).

* vl_225 (vLLM 0.20.1, Qwen3.6-35B-A3B bf16 on one 11.49 GiB card, start-up check failed on another process's
  memory): no setting that keeps the weights on the GPU fits (helper cr17).  vLLM has ``--cpu-offload-gb`` in this
  release (0.19.1 and 0.21.0 read, 0.20.1 between them: ``engine/arg_utils.py`` ``--cpu-offload-gb``,
  ``model_executor/offloader/base.py`` ``create_offloader`` → ``offloader/uva.py`` ``UVAOffloader``; per GPU, GiB =
  2^30 B), and tpkit's planner plans it (``engines.offload``, helper cpo).  explain now offers the smallest whole
  ``--cpu-offload-gb`` at which the plan of the log's settings fits, with the utilization that passes the start-up
  check, and says how much host memory it needs (the log does not show the host).  The plan at that offload stops
  at vLLM's mamba-blocks check (a hybrid model with FULL decode graphs: one KV block per sequence, vLLM ≥ 0.20), so
  ``--max-num-seqs`` at the plan's block count joins it (``engines.vllm.verdict._mamba_blocks``).
"""

from __future__ import annotations

import re

import pytest
from explain_testlib import log_bytes
from roundtrip_testlib import row as _row

from tpkit.explain import explain_log

_OFFLOAD = re.compile(r"--cpu-offload-gb (\d+)")


def _offload_fix(e):
    return next((f for f in e.diagnosis.fixes if _OFFLOAD.search(f.flags)), None)


def _anchors(monkeypatch, case_id):
    import tpkit.explain.vdiagnose as vd

    seen = {}
    orig = vd.diagnose_vllm
    monkeypatch.setattr(vd, "diagnose_vllm", lambda parsed, a, ctx: seen.update(a=a, ctx=ctx) or orig(parsed, a, ctx))
    e = explain_log(log_bytes(case_id))
    return e, seen["a"], seen["ctx"]


def test_weights_above_the_card_get_a_planned_cpu_offload_fix():
    e = explain_log(log_bytes("vl_225"))
    fix = _offload_fix(e)
    assert fix is not None, [f.flags for f in e.diagnosis.fixes]
    # passes the start-up check (9.91 GiB free of 11.49) and keeps the log's one GPU
    assert fix.flags.startswith("--gpu-memory-utilization 0.81 --cpu-offload-gb ")
    assert "--tensor-parallel-size" not in fix.flags and "--quantization" not in fix.flags
    assert fix.fits and fix.kv_tokens and fix.kv_tokens > 0
    n = int(_OFFLOAD.search(fix.flags).group(1))
    assert 55 <= n <= 65  # 65.39 GiB of weights on a ~9 GiB budget
    assert "host memory" in fix.note and f"{n} GiB" in fix.note
    assert f"--cpu-offload-gb {n}" in e.diagnosis.cause and "the log does not show the host" in e.diagnosis.cause


def test_the_offload_is_the_smallest_whole_gib_that_fits(monkeypatch):
    """One GiB less does not fit when re-planned (the same planner tpkit plan --from-log runs), at any
    --max-num-seqs; at the offered offload the default 256 sequences stop at the mamba-blocks check."""
    from tpkit.explain.replan import log_planner, relayout

    e, a, ctx = _anchors(monkeypatch, "vl_225")
    fix = _offload_fix(e)
    n = int(_OFFLOAD.search(fix.flags).group(1))
    seqs = int(re.search(r"--max-num-seqs (\d+)", fix.flags).group(1))

    def planned(gib, **more):
        plan = log_planner(ctx, band=False, gpu_memory_utilization=0.81, cpu_offload_gb=float(gib), **more)
        return relayout(ctx, a, tp=1, pp=1, quantization=None, plan=plan).result

    r = planned(n, max_num_seqs=seqs)
    assert r.verdict.fits and r.kv_tokens == fix.kv_tokens
    r = planned(n)
    assert not r.verdict.fits and "Mamba cache blocks" in r.verdict.message and r.verdict.knob == "--max-num-seqs"
    for s in (seqs, 1):
        r = planned(n - 1, max_num_seqs=s)
        assert not (r.verdict.fits and r.kv_tokens), (s, r.verdict.message)


@pytest.mark.parametrize("case_id,flags", [("vl_115", None), ("vl_225", {"gpu": "H100"})])
def test_no_offload_fix_where_a_setting_on_the_card_may_fit(case_id, flags):
    """Offered only with the outcome "does not fit at any setting that keeps the weights on the GPU"."""
    e = explain_log(log_bytes(case_id), flags=flags)
    assert _offload_fix(e) is None


def test_the_offload_fix_round_trips():
    e = explain_log(log_bytes("vl_225"))
    fix = _offload_fix(e)
    row = _row("vl_225", fix.flags)
    assert row["outcome"] == "match", row
