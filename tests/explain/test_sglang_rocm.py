"""SGLang on ROCm (``explain.sgrocm``, ``startup.rankspread.PLATFORM_STATS``; helper cap31a, session 31).

The pre sample SGLang sizes the slack from is taken right after the distributed init, 'Load weight begin' later: on
an AMD GPU the log bounds what was lost in between by the largest 'Load weight begin' + 'Init torch distributed ends.
mem usage' seen on that GPU model (``ROCM_FREE_BEFORE_INIT``) − its own sum.  A ROCm log that prints fewer ranks than
the world takes the ROCm deployments' rank spread (p90 0.42 GiB below rank 0, not the pooled 0.13).
"""

import pytest
from tests.scripts_testlib import load_script

from tpkit.explain import explain_log
from tpkit.explain.sglang import ROCM_GAP_ITEM
from tpkit.explain.sgrocm import ROUNDING
from tpkit.startup.rankspread import (PLATFORM_STATS, ROCM_FREE_BEFORE_INIT, SGLANG_BELOW_RANK0, SGLANG_RANGE,
                                      sglang_rank_spread)

GIB = 2**30
REF = ROCM_FREE_BEFORE_INIT["MI300X"][0]
_HEAD = ("[2025-12-13 10:50:50] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
         "mem_fraction_static=0.85, page_size=1, attention_backend='triton')\n")


def _rank(r: int, begin: float, init: float | None = 3.37) -> str:
    end = begin - 15.27
    head = f"[2025-12-13 10:50:59 TP{r}] Init torch distributed ends. mem usage={init:.2f} GB\n" if init else ""
    return (head + f"[2025-12-13 10:51:00 TP{r}] Load weight begin. avail mem={begin:.2f} GB\n"
            f"[2025-12-13 10:51:50 TP{r}] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
            f"avail mem={end:.2f} GB, mem usage=15.27 GB.\n")


def _explain(text: str, gpu: str = "MI300X"):
    return explain_log(text, flags={"model": "Qwen/Qwen3-8B", "gpu": gpu, "engine_version": "0.5.6"}).anchored


def _gap_row(anchored):
    return next((r for r in anchored.rows if r.item == ROCM_GAP_ITEM), None)


@pytest.mark.parametrize("lost, bounded", [(0.0, False), (0.01, True), (0.20, True)])
def test_the_pre_sample_bound_is_what_the_sum_lacks_of_the_largest_seen(lost, bounded):
    """Both sides of the boundary: a sum at the measured largest (191.48 GiB on MI300X) loses nothing; 0.01 under it
    is bounded by 0.01 + the prints' rounding; 0.20 under by 0.21 GiB.  The budget's low end falls by (1 − f) × the
    bound, its high end stays (the rule only widens)."""
    begin = round(REF - 3.37 - lost, 2)
    text = _HEAD + _rank(0, begin) + _rank(1, begin + 0.42)
    got = _explain(text)
    plain = _explain(_HEAD + _rank(0, begin, None) + _rank(1, begin + 0.42, None))  # no init lines: no sums
    row = _gap_row(got)
    assert (row is not None) == bounded and _gap_row(plain) is None
    assert got.rest.high == plain.rest.high
    if bounded:
        high = round(lost * GIB) + ROUNDING.bytes
        assert abs(row.value.high.bytes - high) <= 1 and row.value.low.bytes == 0
        assert "TP0" in row.meaning and f"{REF:.2f} GiB" in row.meaning
        assert abs((plain.rest.low.bytes - got.rest.low.bytes) - 0.15 * high) <= 2
    else:
        assert got.rest.low == plain.rest.low


def test_the_bound_reads_the_rank_whose_load_weight_begin_is_the_min():
    """pre is the MIN over ranks of the sample; the bound is that rank's sum (TP1 here, 0.10 under the largest)."""
    text = _HEAD + _rank(0, REF - 3.37) + _rank(1, REF - 3.37 - 0.52, init=3.79)  # TP1: 0.42 lower, sum 0.10 under
    row = _gap_row(_explain(text))
    assert row is not None and "TP1" in row.meaning
    assert abs(row.value.high.bytes - (round(0.10 * GIB) + ROUNDING.bytes)) <= GIB // 100


def test_not_on_a_cuda_gpu_nor_a_gpu_without_a_measured_figure(monkeypatch):
    begin = round(REF - 3.37 - 0.20, 2)
    text = _HEAD + _rank(0, begin) + _rank(1, begin)
    assert _gap_row(_explain(text)) is not None
    import tpkit.explain.sgrocm as sgrocm

    cuda = _HEAD + _rank(0, 75.0) + _rank(1, 75.0)  # sums 78.37 GiB, 0.20 under a figure given to the H100 below
    monkeypatch.setattr(sgrocm, "ROCM_FREE_BEFORE_INIT", {"H100-SXM-80GB": (78.57, 1, ("x",))})
    assert _gap_row(_explain(cuda, gpu="H100-SXM-80GB")) is None  # not an AMD GPU: the rule does not read it
    monkeypatch.setattr(sgrocm, "ROCM_FREE_BEFORE_INIT", {})  # an AMD GPU model no corpus log measured
    assert _gap_row(_explain(text)) is None


def test_the_rank_spread_of_a_rocm_log_is_the_rocm_deployments():
    """Rank 0 printed of 2: a ROCm log is widened by f × the ROCm p90 (0.42 GiB), a CUDA one by f × the pooled 0.13."""
    assert sglang_rank_spread(True, "rocm")[0].bytes == round(PLATFORM_STATS["rocm"]["below_rank0"][0] * GIB)
    assert sglang_rank_spread(False, "rocm")[0].bytes == round(PLATFORM_STATS["rocm"]["range"][0] * GIB)
    assert sglang_rank_spread(True)[0] == SGLANG_BELOW_RANK0 and sglang_rank_spread(False)[0] == SGLANG_RANGE
    assert "ROCm deployments" in sglang_rank_spread(True, "rocm")[1]
    for gpu, allowance in (("MI300X", PLATFORM_STATS["rocm"]["below_rank0"][0]), ("H100-SXM-80GB", None)):
        both = _explain(_HEAD + _rank(0, 180.0, None) + _rank(1, 180.0, None), gpu)
        one = _explain(_HEAD + _rank(0, 180.0, None), gpu)
        want = allowance * GIB if allowance is not None else SGLANG_BELOW_RANK0.bytes
        assert abs((both.rest.low.bytes - one.rest.low.bytes) - 0.85 * want) <= 2


def test_the_figures_are_what_the_corpus_measures():
    """PLATFORM_STATS and ROCM_FREE_BEFORE_INIT are scripts/rank_spread.py's, not typed by hand."""
    mod = load_script("rank_spread")
    rows = mod.measure()
    for plat, stats in mod.platform_stats(rows).items():
        for what, (p90, top, n, at, _deps) in stats.items():
            assert (p90, top, n, tuple(at)) == PLATFORM_STATS[plat][what], (plat, what)
    assert {g: (v, n, tuple(at)) for g, (v, n, at) in mod.free_before_init_stats(rows).items()} == ROCM_FREE_BEFORE_INIT


@pytest.mark.parametrize("text, gpu, platform", [
    ("server_args=ServerArgs(enable_aiter_allreduce_fusion=False)", None, "cuda"),  # SGLang's CUDA build prints it
    ("server_args=ServerArgs(attention_backend='aiter')", None, "rocm"),
    ("Automatically detected platform rocm.", None, "rocm"),
    ("", "MI300X", "rocm"),
    ("", "H100-SXM-80GB", "cuda"),
    ("UserWarning: Only CUDA, HIP and XPU support AWQ currently.", None, "cuda"),  # awq.py, a GPU-less process
    ("UserWarning: Only CUDA, HIP and XPU support AWQ currently. rccl", None, "rocm"),
])
def test_the_platform_is_the_logs_own_sign(text, gpu, platform):
    assert load_script("rank_spread").platform_of(text, gpu) == platform
