"""Helper pp23 (issue 12): explain's vLLM anchor takes the smallest worker, also where a worker prints only the
DEBUG 'Total non KV cache memory' line (``explain.vworkers.workers_available``).  vLLM 0.19.0 prints 'Available KV
cache memory' with ``info_once(scope="local")``: at pp 2 / pp 4 only Worker_PP0 prints it, while the engine gives every
stage the smallest stage's block count (v1/core/kv_cache_utils.py get_kv_cache_configs)."""

from __future__ import annotations

from pathlib import Path

from tpkit.explain import explain_log
from tpkit.explain.interval import Iv
from tpkit.logs import parse_log
from tpkit.units import Bytes

DATA = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm"
GIB = 2**30


def _text(case: str) -> str:
    return (DATA / f"{case}.log").read_text(encoding="utf-8", errors="replace")


def _row(e, start: str):
    return next((r for r in e.rows if r.item.startswith(start)), None)


def test_pp2_the_last_stage_debug_line_sizes_the_pool():
    """vl_1018 (Llama-3.1-8B pp 2, 0.19.0): Worker_PP1's 'Total non KV cache memory: 9.6GiB' → 75.23 − 9.6 =
    65.63 GiB, below Worker_PP0's printed 66.54 GiB; the printed 1,075,312 tokens are rebuilt from it (the old
    anchor, 66.54 GiB, rebuilt 1,089,936–1,090,272)."""
    e = explain_log(_text("vl_1018"))
    row = _row(e, "available KV cache memory of the tightest worker")
    assert row is not None and "Worker_PP1, derived" in row.item and "9.6 GiB" in row.meaning
    assert abs(row.value.mid.bytes / GIB - 65.63) < 0.006
    # the first 'available KV cache memory' row is the tightest worker's, whose ledger sums hold
    assert _row(e, "available KV cache memory") is row
    assert e.anchored.available == row.value
    lo, hi = e.kv_predicted_range
    assert e.kv_printed == 1_075_312 and lo <= 1_075_312 <= hi and hi - lo < 1_000
    assert _row(e, "KV tokens").check == "reproduced"
    # the residual is the tightest worker's and matches its DEBUG print
    assert abs(e.anchored.non_kv.mid.bytes / GIB - 9.6) < 0.006
    assert _row(e, "non-KV memory (printed, DEBUG)").line_no == 66


def test_pp4_the_last_stage_is_the_tightest():
    """vl_1019 (pp 4): Worker_PP3's 6.34 GiB (lm_head, the logits peak) is the largest non-KV of the four stages."""
    e = explain_log(_text("vl_1019"))
    row = _row(e, "available KV cache memory of the tightest worker")
    assert row is not None and "Worker_PP3" in row.item
    assert abs(row.value.mid.bytes / GIB - (75.23 - 6.34)) < 0.006
    lo, hi = e.kv_predicted_range
    assert lo <= e.kv_printed == 2_257_264 <= hi


def test_the_rank_header_names_the_derived_worker_that_sizes_the_pool():
    """The header keeps the rank whose printed lines are read (Worker_PP0) and says that the derived, tighter
    worker sizes the pool (session 24: it named only PP0); where no worker is derived it is the rank's reason."""
    e = explain_log(_text("vl_1019"))
    assert e.rank == "Worker_PP0" and e.anchored.sized_by == "Worker_PP3"
    assert "the pool is sized by Worker_PP3" in e.rank_reason
    assert e.to_dict()["rank"] == {"label": "Worker_PP0", "reason": e.rank_reason}
    plain = explain_log(_text("vl_1016"))
    assert plain.anchored.sized_by is None and "sized by" not in plain.rank_reason


def test_tp_workers_with_debug_lines_count_as_shown():
    """vl_1016 (tp 2, 0.19.0): rank 1 prints only the DEBUG line, its derived memory lies above rank 0's printed
    one, so rank 0's stays the pool and no worker is left unshown: the range is not widened down."""
    e = explain_log(_text("vl_1016"))
    assert _row(e, "available KV cache memory of the tightest worker") is None
    assert _row(e, "available KV memory of the smallest worker") is None
    lo, hi = e.kv_predicted_range
    assert lo <= e.kv_printed <= hi and hi - lo <= 200


def test_derived_memory_takes_the_applied_graph_estimate_and_the_rounding():
    """requested − non-KV − the applied estimate (the worker's own printed estimate where it was applied), each
    print ± 0.005 GiB; no derivation where no worker prints the INFO line or the applied estimate is unknown."""
    from tpkit.explain.vworkers import tightest_worker, workers_available

    p = parse_log(_text("vl_1018"))
    req = Iv(low=Bytes(int(75.225 * GIB)), high=Bytes(int(75.235 * GIB)))
    zero = Iv(low=Bytes(0), high=Bytes(0))
    workers = {w[0]: w for w in workers_available(p, req, zero)}
    assert set(workers) == {"Worker_PP0", "Worker_PP1"}
    assert not workers["Worker_PP0"][3] and workers["Worker_PP1"][3]
    pp1 = workers["Worker_PP1"][1]
    assert abs((pp1.high - pp1.low).bytes / GIB - 0.02) < 0.0005  # two prints of 2 decimals
    applied = Iv(low=Bytes(GIB // 2), high=Bytes(GIB // 2))
    with_graphs = {w[0]: w for w in workers_available(p, req, applied)}["Worker_PP1"][1]
    # the worker's own printed estimate (0.54 GiB ± 0.005) replaces the engine-wide one
    assert abs((pp1.mid - with_graphs.mid).bytes / GIB - 0.54) < 0.001
    assert [w[0] for w in workers_available(p, req, None)] == ["Worker_PP0"]
    smallest, worker = tightest_worker(list(workers.values()))
    assert worker[0] == "Worker_PP1" and smallest == Iv(low=min(pp1.low, workers["Worker_PP0"][1].low),
                                                         high=min(pp1.high, workers["Worker_PP0"][1].high))
    no_info = parse_log("\n".join(l for l in _text("vl_1018").splitlines() if "Available KV cache memory" not in l))
    assert workers_available(no_info, req, zero) == []
