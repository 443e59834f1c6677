"""The cross-rank spread allowance (``startup.rankspread``), measured by ``scripts/rank_spread.py``.

SGLang sizes every rank's pool from the MIN over the ranks of the free memory before and after the weights;
vLLM 0.8.2–0.11.0 print one 'GPU KV cache size' line per worker.  A log that prints fewer ranks than run bounds
neither, and the allowance is the measured p90 of the spread in the corpus logs that print every rank: 0.06 GiB
below rank 0 (SGLang, rank 0 printed, 31 deployments in session 25; 0.42 over gs24 29 and sgz, whose MI355X tp-8 logs leave rank 0 0.42 GiB
above the others), 0.44 GiB below any other rank (SGLang; 0.42 until gs29b), 0.47 GiB either way (vLLM).
"""


import pytest
from tests.scripts_testlib import load_script

from tpkit.explain import explain_log
from tpkit.units import GiB
from tpkit.startup.rankspread import (PLATFORM_STATS, SGLANG_BELOW_RANK0, SGLANG_RANGE, SPREAD_STATS, VLLM_BELOW_RANK0,
                                      VLLM_PRINT_STEP, VLLM_RANGE, VLLM_RANGE_WORLD2, sglang_rank_spread,
                                      vllm_min_below_printed, vllm_worker_spread)


def _script():
    return load_script("rank_spread")


def test_the_allowances_are_what_the_corpus_measures():
    """The constants are the script's p90 / max / count over the logs that print every rank, not typed by hand."""
    mod = _script()
    measured = mod.allowance_stats(mod.measure())
    for engine, stats in SPREAD_STATS.items():
        for what, (p90, top, n, at) in stats.items():
            got = measured[engine][what]
            assert (got[0], got[1], got[2], tuple(got[3])) == (p90, top, n, at), (engine, what, got)


def test_the_allowance_depends_on_whether_rank_0_is_printed():
    """Both sides of the one condition the evidence separates; the values are the measured p90s."""
    assert sglang_rank_spread(True)[0].bytes == SGLANG_BELOW_RANK0.bytes == round(0.13 * 2**30)  # 42 deployments (gs30e: sg_781-sg_784, B200 tp 2 / 4 / 8, 0.15 -> 0.13; 39 with gs29c: sg_720, GB300 tp 4, 0.13 -> 0.15; gs29: sg_635-sg_638, H100 tp 4 / tp 2; gs29b: sg_655, H200 tp 8; gs28c: sg_633 / sg_634, MI355X tp 4 / tp 2; gs27: sg_606 at 0.10; 32 with gs27b at 0.06; 31 in session 25; 0.42 over gs24 29, 0.05 over mv15 20)
    assert sglang_rank_spread(False)[0].bytes == SGLANG_RANGE.bytes == round(0.42 * 2**30)  # 0.42 with gs30 + gs30e merged (gs30 alone 0.47, gs30e alone 0.42); 0.42 until gs29b's sg_655, 0.44 until gs30e's sg_781-sg_784
    why = sglang_rank_spread(True)[1]
    assert "rank 0 is printed" in why and f"{SPREAD_STATS['sglang']['below_rank0'][2]} logs" in why
    assert "not among the printed ranks" in sglang_rank_spread(False)[1]
    assert vllm_worker_spread(4)[0].bytes == VLLM_RANGE.bytes == round(0.47 * 2**30)
    assert vllm_worker_spread(3)[0].bytes == VLLM_RANGE.bytes
    assert vllm_worker_spread(2)[0].bytes == VLLM_RANGE_WORLD2.bytes == 0


_HEAD = ("[2025-09-11 10:24:10] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
         "mem_fraction_static=0.85, page_size=1)\n")


def _rank(label: str) -> str:
    p = f" {label}" if label else ""
    return (f"[2025-09-11 10:24:24{p}] Load weight begin. avail mem=78.48 GB\n"
            f"[2025-09-11 10:25:33{p}] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
            "avail mem=70.80 GB, mem usage=7.68 GB.\n")


def _sglang(text: str):
    return explain_log(text, flags={"model": "Qwen/Qwen3-8B", "gpu": "H100-SXM-80GB", "engine_version": "0.5.2"})


@pytest.mark.parametrize("printed, allowance", [("TP0", GiB(PLATFORM_STATS["cuda"]["below_rank0"][0])),
                                               ("TP1", GiB(PLATFORM_STATS["cuda"]["range"][0]))])
def test_sglang_widens_by_the_allowance_of_the_rank_printed(printed, allowance):
    """tp 2 on an H100, one rank's load lines: rank 0 printed → f × the CUDA deployments' 0.09 GiB below (helper
    cap32: the pooled 0.13 before); rank 1 printed → f × 0.42 GiB; every rank printed → not widened."""
    both = _sglang(_HEAD + _rank("TP0") + _rank("TP1"))
    one = _sglang(_HEAD + _rank(printed))
    assert not any("ranks not printed" in r.item for r in both.anchored.rows)
    assert one.anchored.rest.high == both.anchored.rest.high
    assert both.anchored.rest.low.bytes - one.anchored.rest.low.bytes == round(allowance.bytes * 0.85)


def test_a_tp_1_log_without_rank_labels_is_not_widened():
    text = _HEAD.replace("tp_size=2", "tp_size=1") + _rank("")
    assert not any("ranks not printed" in r.item for r in _sglang(text).anchored.rows)


_AVAIL = "({w} pid=10) INFO 09-24 20:53:41 [gpu_worker.py:298] Available KV cache memory: {g} GiB\n"
_LINE = "(EngineCore_DP0 pid=9) INFO 09-24 20:53:41 [kv_cache_utils.py:864] GPU KV cache size: {n:,} tokens\n"
_VFLAGS = {"model": "Qwen/Qwen3-8B", "gpu": "H100", "tp": 4, "engine_version": "0.10.2"}


def _vllm(workers: dict[str, str], lines: tuple[int, ...] = ()):
    text = "".join(_AVAIL.format(w=w, g=g) for w, g in workers.items()) + "".join(_LINE.format(n=n) for n in lines)
    return explain_log(text.encode(), flags=_VFLAGS)


def _spread_row(e):
    return [r for r in e.anchored.rows if r.item == "available KV memory of the printed line's worker"]


def test_vllm_one_workers_memory_of_four_widens_either_way_by_the_allowance():
    """0.10.2, tp 4, one worker's available memory and no capacity line: the line (the pool, or another worker's)
    lies within 0.47 GiB of it either way; every worker's memory printed: the pool is the smallest, not widened;
    tp 2: the measured spread is 0, not widened."""
    one = _vllm({"Worker_TP0": "10.00"})
    rows = _spread_row(one)
    assert rows and "within 0.47 GiB of it either way" in rows[0].meaning
    lo = round(9.995 * 2**30) - VLLM_RANGE.bytes
    hi = round(10.005 * 2**30) + VLLM_RANGE.bytes
    assert abs(rows[0].value.low.bytes - lo) <= 2 and abs(rows[0].value.high.bytes - hi) <= 2
    assert not _spread_row(_vllm({f"Worker_TP{i}": "10.00" for i in range(4)}))
    two = explain_log(_AVAIL.format(w="Worker_TP0", g="10.00").encode(), flags={**_VFLAGS, "tp": 2})
    assert not _spread_row(two)


def test_vllm_one_line_of_four_with_every_workers_memory_lies_between_them():
    workers = {"Worker_TP0": "10.00", "Worker_TP1": "10.10", "Worker_TP2": "10.10", "Worker_TP3": "10.20"}
    rows = _spread_row(_vllm(workers, (230_000,)))
    assert rows and "every worker's available memory is printed" in rows[0].meaning
    assert not _spread_row(_vllm(workers, (230_000, 232_000, 232_000, 234_000)))


@pytest.mark.parametrize("release, widened", [("0.8.1", False), ("0.8.2", True), ("0.11.0", True),
                                              ("0.11.1", False)])
def test_vllm_widens_only_for_the_per_worker_releases(release, widened):
    """0.8.1 and 0.11.1+ size every worker from the smallest available memory and print one line."""
    e = explain_log("".join(_AVAIL.format(w="Worker_TP0", g="10.00")).encode(),
                    flags={**_VFLAGS, "engine_version": release})
    assert bool(_spread_row(e)) is widened


def test_vllm_release_not_printed_widens_when_its_range_holds_the_per_worker_releases():
    """validation_case_020's two lines (tp 4, no release: the formats admit 0.8–0.27): widened; a release given
    outside 0.8.2–0.11.0, or one worker: not."""
    two = b"Available KV cache memory: 8.11 GiB\nGPU KV cache size: 178,880 tokens\n"
    flags = {"model": "Qwen/Qwen3-8B", "gpu": "H100", "tp": 4}
    assert _spread_row(explain_log(two, flags=flags))
    assert not _spread_row(explain_log(two, flags={**flags, "engine_version": "0.20.0"}))
    assert not _spread_row(explain_log(two, flags={**flags, "tp": 1}))


def _min_row(e):
    return [r for r in e.anchored.rows if r.item == "available KV memory of the smallest worker"]


@pytest.mark.parametrize("tp, printed, allowance", [(2, ["Worker_TP0"], VLLM_PRINT_STEP),
                                                     (4, ["Worker_TP0"], VLLM_BELOW_RANK0),
                                                     (4, ["Worker_TP2"], VLLM_RANGE)])
def test_vllm_min_over_workers_widens_down_by_the_allowance(tp, printed, allowance):
    """0.12.0 sizes every worker from the smallest and prints one capacity: a log that shows fewer workers' available
    memory than run is widened DOWN only — one 0.01 GiB print step at two workers (their prints are equal), the
    p90 below rank 0 at four when rank 0 is printed, the range otherwise."""
    e = explain_log("".join(_AVAIL.format(w=w, g="10.00") for w in printed).encode(),
                    flags={**_VFLAGS, "tp": tp, "engine_version": "0.12.0"})
    rows = _min_row(e)
    assert rows and f"up to {allowance.gib:.2f} GiB below it" in rows[0].meaning
    assert abs(rows[0].value.low.bytes - (round(9.995 * 2**30) - allowance.bytes)) <= 2
    assert abs(rows[0].value.high.bytes - round(10.005 * 2**30)) <= 2
    assert vllm_min_below_printed(tp, printed == ["Worker_TP0"])[0] == allowance


@pytest.mark.parametrize("release, widened", [("0.11.0", False), ("0.11.1", True), ("0.20.0", True)])
def test_vllm_min_over_workers_only_where_one_line_is_the_min(release, widened):
    """0.8.2–0.11.0 print a line per worker (the other rule, either way); 0.11.1 on print the MIN once."""
    e = explain_log(_AVAIL.format(w="Worker_TP0", g="10.00").encode(), flags={**_VFLAGS, "engine_version": release})
    assert bool(_min_row(e)) is widened


def test_vllm_min_over_workers_not_when_every_worker_or_one_runs():
    every = "".join(_AVAIL.format(w=f"Worker_TP{i}", g="10.00") for i in range(4)).encode()
    assert not _min_row(explain_log(every, flags={**_VFLAGS, "engine_version": "0.12.0"}))
    one = _AVAIL.format(w="Worker_TP0", g="10.00").encode()
    assert not _min_row(explain_log(one, flags={**_VFLAGS, "tp": 1, "engine_version": "0.12.0"}))
