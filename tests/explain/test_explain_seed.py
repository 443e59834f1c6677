"""The seed scenario: the synthetic Kimi-K2.5 INT4 log on 8× RTX PRO 6000 (tests/logs/data/synthetic, labelled
synthetic).  Where did the memory go, and could the custom all-reduce buffers (tens of MiB) cause an OOM with
about 21.7 GiB free after the weights?"""

from explain_testlib import SYNTHETIC_KIMI

from tpkit.explain import explain_log
from tpkit.units import GiB, MiB


def _explain():
    return explain_log(SYNTHETIC_KIMI.read_bytes(), flags={"gpu": "RTX-PRO-6000"})


def test_where_the_memory_went():
    e = _explain()
    rows = {r.item: r for r in e.rows}
    assert rows["weights"].printed == "71.36 GB" and rows["weights"].check == "reproduced"
    assert "GiB (SGLang prints 'GB' but divides by 2^30)" in rows["weights"].meaning
    assert rows["KV pool"].printed == "7.70 GB" and rows["KV pool"].check == "reproduced"
    assert rows["CUDA graphs"].printed == "1.21 GB"
    # the budget: free after weights (min over ranks, 21.65) − 0.15 × pre (93.01) = 7.70 GiB
    assert abs(e.anchored.rest.mid.gib - (21.65 - 0.15 * 93.01)) < 0.01
    assert e.kv_printed == 117631 and e.kv_predicted == 117631
    lo, hi = e.kv_predicted_range
    # print rounding (70,272 B per token) and, from SGLang 0.5.6, the RoPE pre-expansion's 0 … 2 MiB
    # (engines.sglang.rope: the 40 MiB MLA cache of 163,840 rows grows by one 2 MiB rounding step)
    assert lo <= 117631 <= hi and hi - lo < 200 + 2 * 2**20 // 70_272 + 1


def test_custom_allreduce_buffers_cannot_cause_the_oom():
    e = _explain()
    a = e.anchored
    assert MiB(10) < a.car_bytes < MiB(100)  # tens of MiB: legacy 2 × 8 MiB IPC + 8 MiB rank data
    finding = next(f for f in e.diagnosis.findings if f.startswith("custom all-reduce buffers"))
    assert "forced on" in finding and "cannot by themselves cause an OOM" in finding
    assert a.free_after_weights.mid > GiB(21.6) and a.slack_after_pool.low > GiB(11)
    assert e.diagnosis.status == "ok" and e.diagnosis.phase is None


def test_without_the_gpu_the_ledger_still_reads():
    """No --gpu: the memory arithmetic leaves one catalog GPU, the log's RTX PRO 6000 (the H20-96GB, whose total is
    derived from nvidia-smi, is not a candidate: GpuSpec.total_printed)."""
    e = explain_log(SYNTHETIC_KIMI.read_bytes())
    assert e.context.gpu is not None and e.context.gpu.name == "RTX-PRO-6000" and e.kv_predicted == 117631
