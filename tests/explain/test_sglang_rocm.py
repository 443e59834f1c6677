"""SGLang on ROCm (``explain.sgrocm``, ``startup.rankspread.PLATFORM_STATS``; helpers cap31a and cap32, sessions 31-32).

The pre sample SGLang sizes the slack from is taken right after the distributed init, 'Load weight begin' later: on
an AMD GPU, for a model class that builds the expert-location metadata in between (``sgrocm.METADATA_CLASSES``), the
log and the card bound what was lost there by the card's total (catalog) − 'Load weight begin' − 'Init torch
distributed ends. mem usage' (the HIP context ≥ 0; helper cap32).  Round cap31a's bound, the largest such sum seen on
that GPU model (``ROCM_FREE_BEFORE_INIT``), is kept for the comparison (``reference="corpus"``).  A ROCm log that
prints fewer ranks than the world takes the ROCm deployments' rank spread, an NVIDIA one the CUDA deployments'.
"""

import json
import zipfile
from pathlib import Path

import pytest
from tests.scripts_testlib import load_script

from tpkit.explain import explain_log
from tpkit.explain.sgload import ROCM_GAP_ITEM
from tpkit.explain.sgrocm import METADATA_CLASSES, ROUNDING, TOTAL_ROUNDING
from tpkit.hardware.catalog import lookup_gpu
from tpkit.units import Bytes, GiB
from tpkit.startup.rankspread import (PLATFORM_STATS, ROCM_FREE_BEFORE_INIT, SGLANG_BELOW_RANK0, SGLANG_RANGE,
                                      gpu_platform, sglang_rank_spread)

GIB = 2**30
REF = ROCM_FREE_BEFORE_INIT["MI300X"].largest.bytes / GIB  # 191.48 GiB
TOTAL = lookup_gpu("MI300X").total_bytes.bytes / GIB  # 191.98 GiB, HIP's 'total capacity'
MOE = "Qwen/Qwen3-30B-A3B"  # Qwen3MoeForCausalLM: builds the metadata
_HEAD = ("[2025-12-13 10:50:50] server_args=ServerArgs(model_path='{m}', tp_size=2, "
         "mem_fraction_static=0.85, page_size=1, attention_backend='triton')\n")


def _rank(r: int, begin: float, init: float | None = 3.37, arch: str = "Qwen3MoeForCausalLM") -> str:
    end = begin - 15.27
    head = f"[2025-12-13 10:50:59 TP{r}] Init torch distributed ends. mem usage={init:.2f} GB\n" if init else ""
    return (head + f"[2025-12-13 10:51:00 TP{r}] Load weight begin. avail mem={begin:.2f} GB\n"
            f"[2025-12-13 10:51:50 TP{r}] Load weight end. type={arch}, dtype=torch.bfloat16, "
            f"avail mem={end:.2f} GB, mem usage=15.27 GB.\n")


def _explain(text: str, gpu: str = "MI300X", model: str = MOE):
    return explain_log(text, flags={"model": model, "gpu": gpu, "engine_version": "0.5.6"}).anchored


def _gap_row(anchored):
    return next((r for r in anchored.rows if r.item == ROCM_GAP_ITEM), None)


@pytest.mark.parametrize("under", [0.05, 0.20, 0.50, 0.80])
def test_the_pre_sample_bound_is_what_the_sum_lacks_of_the_cards_total(under):
    """The sum 'Load weight begin' + 'mem usage' under the card's total by ``under`` GiB bounds the loss by that + the
    prints' rounding (0.01) + the total's (0.005).  The budget's low end falls by (1 − f) × the bound, its high end
    stays (the rule only widens)."""
    begin = round(TOTAL - 3.37 - under, 2)
    text = _HEAD.format(m=MOE) + _rank(0, begin) + _rank(1, begin + 0.02, 3.35)  # TP1: the same sum, more free
    got = _explain(text)
    plain = _explain(_HEAD.format(m=MOE) + _rank(0, begin, None) + _rank(1, begin + 0.02, None))  # no init: no sum
    row = _gap_row(got)
    assert row is not None and _gap_row(plain) is None
    assert got.rest.high == plain.rest.high
    lost = round((TOTAL - begin - 3.37) * GIB)
    high = lost + ROUNDING.bytes + TOTAL_ROUNDING.bytes
    assert abs(row.value.high.bytes - high) <= GIB // 200 and row.value.low.bytes == 0
    assert "TP0" in row.meaning and "191.98 GiB" in row.meaning and "HIP context" in row.meaning
    assert abs((plain.rest.low.bytes - got.rest.low.bytes) - 0.15 * row.value.high.bytes) <= 2


def test_a_class_that_builds_no_metadata_gets_no_bound():
    """Both sides of the class test: Qwen3-8B (Qwen3ForCausalLM, no get_model_config_for_expert_location in the
    0.5.3-0.5.9 wheels) on 0.5.6 gets none; the MoE class gets one; a release before 0.4.10 (every class builds a
    one-expert dummy) gets one for the dense class too."""
    begin = round(TOTAL - 3.37 - 0.30, 2)
    dense = _HEAD.format(m="Qwen/Qwen3-8B") + _rank(0, begin, arch="Qwen3ForCausalLM") + _rank(1, begin,
                                                                                               arch="Qwen3ForCausalLM")
    assert "Qwen3ForCausalLM" not in METADATA_CLASSES and "Qwen3MoeForCausalLM" in METADATA_CLASSES
    assert _gap_row(_explain(dense, model="Qwen/Qwen3-8B")) is None
    assert _gap_row(_explain(_HEAD.format(m=MOE) + _rank(0, begin) + _rank(1, begin))) is not None
    old = explain_log(dense, flags={"model": "Qwen/Qwen3-8B", "gpu": "MI300X", "engine_version": "0.4.9.post6"})
    assert _gap_row(old.anchored) is not None


def test_the_corpus_reference_is_round_cap31as_bound():
    """``reference="corpus"``: the largest sum seen on the card (191.48 GiB on MI300X), every class; a sum at it
    loses nothing, 0.20 under it 0.21 GiB; the device bound is wider by the card's total − that figure."""
    from tpkit.explain.sgrocm import rocm_pre_gap

    for lost, bounded in ((0.0, False), (0.20, True)):
        begin = round(REF - 3.37 - lost, 2)
        text = _HEAD.format(m=MOE) + _rank(0, begin) + _rank(1, begin)
        res = explain_log(text, flags={"model": MOE, "gpu": "MI300X", "engine_version": "0.5.6"})
        parsed, ctx = res.parsed, res.context
        corpus = rocm_pre_gap(parsed, ctx, reference="corpus")
        device = rocm_pre_gap(parsed, ctx)
        assert (corpus is not None) == bounded and device is not None
        if bounded:
            assert abs(corpus[0].high.bytes - (round(lost * GIB) + ROUNDING.bytes)) <= GIB // 200
            assert abs((device[0].high.bytes - corpus[0].high.bytes) - (TOTAL - REF) * GIB - TOTAL_ROUNDING.bytes) \
                <= GIB // 200
            assert "(191.48 GiB over 55 corpus logs, startup.rankspread.ROCM_FREE_BEFORE_INIT)" in corpus[1]
        with pytest.raises(ValueError):
            rocm_pre_gap(parsed, ctx, reference="guess")


def test_the_corpus_reference_carries_bytes():
    """Round rev32's leftover (helper tidy33): the figure was a tuple of float GiB; it is a record with a ``Bytes``."""
    for gpu, ref in ROCM_FREE_BEFORE_INIT.items():
        assert isinstance(ref.largest, Bytes) and ref.logs >= len(ref.at) >= 1, gpu
    assert ROCM_FREE_BEFORE_INIT["MI300X"].largest == GiB(191.48)


def test_the_bound_reads_the_rank_whose_load_weight_begin_is_the_min():
    """pre is the MIN over ranks of the sample; the bound is that rank's sum (TP1 here, 0.10 under TP0's)."""
    text = _HEAD.format(m=MOE) + _rank(0, TOTAL - 3.37 - 0.5) + _rank(1, TOTAL - 3.37 - 1.02, init=3.79)
    row = _gap_row(_explain(text))
    assert row is not None and "TP1" in row.meaning
    assert abs(row.value.high.bytes - (round(0.60 * GIB) + ROUNDING.bytes + TOTAL_ROUNDING.bytes)) <= GIB // 100


def test_not_on_a_cuda_gpu():
    begin = round(TOTAL - 3.37 - 0.20, 2)
    assert _gap_row(_explain(_HEAD.format(m=MOE) + _rank(0, begin) + _rank(1, begin))) is not None
    cuda = _HEAD.format(m=MOE) + _rank(0, 75.0) + _rank(1, 75.0)  # sums 78.37 GiB, under the H100's total
    assert _gap_row(_explain(cuda, gpu="H100-SXM-80GB")) is None  # not an AMD GPU: the rule does not read it


def test_the_rank_spread_is_the_platform_deployments():
    """Rank 0 printed of 2: a ROCm log is widened by f × the ROCm p90 (0.42 GiB), an NVIDIA one by f × the CUDA p90
    (0.09, helper cap32: the pooled 0.13 before), a log whose GPU is not known by f × the pooled 0.13."""
    for plat in ("rocm", "cuda"):
        assert sglang_rank_spread(True, plat)[0].bytes == round(PLATFORM_STATS[plat]["below_rank0"][0] * GIB)
        assert sglang_rank_spread(False, plat)[0].bytes == round(PLATFORM_STATS[plat]["range"][0] * GIB)
    assert sglang_rank_spread(True)[0] == SGLANG_BELOW_RANK0 and sglang_rank_spread(False)[0] == SGLANG_RANGE
    assert "ROCm deployments" in sglang_rank_spread(True, "rocm")[1]
    assert "CUDA deployments" in sglang_rank_spread(True, "cuda")[1] and "pooled" in sglang_rank_spread(True)[1]
    with pytest.raises(ValueError):
        sglang_rank_spread(True, "xpu")
    assert (gpu_platform("AMD"), gpu_platform("NVIDIA"), gpu_platform(None), gpu_platform("Huawei")) == \
        ("rocm", "cuda", None, None)
    head = _HEAD.format(m="Qwen/Qwen3-8B")
    for gpu, allowance in (("MI300X", PLATFORM_STATS["rocm"]["below_rank0"][0]),
                           ("H100-SXM-80GB", PLATFORM_STATS["cuda"]["below_rank0"][0])):
        both = _explain(head + _rank(0, 60.0, None) + _rank(1, 60.0, None), gpu, "Qwen/Qwen3-8B")
        one = _explain(head + _rank(0, 60.0, None), gpu, "Qwen/Qwen3-8B")
        assert abs((both.rest.low.bytes - one.rest.low.bytes) - 0.85 * round(allowance * GIB)) <= 2


def test_the_figures_are_what_the_corpus_measures():
    """PLATFORM_STATS and ROCM_FREE_BEFORE_INIT are scripts/rank_spread.py's, not typed by hand."""
    mod = load_script("rank_spread")
    rows = mod.measure()
    for plat, stats in mod.platform_stats(rows).items():
        for what, (p90, top, n, at, _deps) in stats.items():
            assert (p90, top, n, tuple(at)) == PLATFORM_STATS[plat][what], (plat, what)
    assert {g: (GiB(v), n, tuple(at)) for g, (v, n, at) in mod.free_before_init_stats(rows).items()} == \
        {g: (ref.largest, ref.logs, ref.at) for g, ref in ROCM_FREE_BEFORE_INIT.items()}


@pytest.mark.parametrize("text, gpu, platform", [
    ("server_args=ServerArgs(enable_aiter_allreduce_fusion=False)", None, "cuda"),  # SGLang's CUDA build prints it
    ("server_args=ServerArgs(attention_backend='aiter')", None, "rocm"),
    ("Automatically detected platform rocm.", None, "rocm"),
    ("", "MI300X", "rocm"),
    ("", "H100-SXM-80GB", "cuda"),
    ("UserWarning: Only CUDA, HIP and XPU support AWQ currently.", None, "cuda"),  # awq.py, a GPU-less process
    ("UserWarning: Only CUDA, HIP and XPU support AWQ currently. rccl", None, "rocm"),
    ("Ascend 910B3 ranks", None, "npu"),  # sg_484: neither CUDA nor ROCm
    ("import torch_npu", "H100-SXM-80GB", "npu"),
])
def test_the_platform_is_the_logs_own_sign(text, gpu, platform):
    assert load_script("rank_spread").platform_of(text, gpu) == platform


@pytest.mark.parametrize("evidence, platform", [
    ("##### Docker Image : rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260218", "rocm"),  # sg_021's entry
    ("sglang serve --model-path moonshotai/Kimi-K2.5 --tp 8", "cuda"),
])
def test_the_platform_also_reads_the_entrys_quoted_evidence(evidence, platform):
    assert load_script("rank_spread").platform_of("TP0 Load weight end", None, evidence) == platform


def test_sg_021_and_sg_484_are_not_cuda_samples():
    rows = {r["log"]: r for r in load_script("rank_spread").measure()}
    assert rows["sg_021"]["platform"] == "rocm"
    assert rows["sg_484"]["platform"] == "npu"


METADATA_DATA = Path(__file__).resolve().parent / "data" / "sglang_metadata_classes.json"
"""each wheel's classes as scripts/expert_location_classes.py read them (the wheels are not in the repository)"""


def test_the_metadata_classes_are_the_wheels():
    """METADATA_CLASSES is scripts/expert_location_classes.py's union over the seven wheels (0.5.3–0.5.23), as recorded
    in tests/explain/data/sglang_metadata_classes.json."""
    wheels = json.loads(METADATA_DATA.read_text())["wheels"]
    assert len(wheels) == 7 and all(w.startswith("sglang-0.5.") for w in wheels)
    assert set().union(*map(set, wheels.values())) == METADATA_CLASSES


def test_the_script_follows_bases_across_files(tmp_path):
    """The script's reading, on a wheel built here: an EntryClass whose base (in another file) defines the method is
    counted, one with neither is not, and a class that defines it without being an EntryClass is not listed."""
    wheel = tmp_path / "sglang-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("sglang/srt/models/base.py", "class Base:\n    def get_model_config_for_expert_location(cls):\n"
                                                "        return None\n")
        z.writestr("sglang/srt/models/moe.py", "class Moe(Base):\n    pass\nclass Dense:\n    pass\n"
                                               "EntryClass = [Moe, Dense]\n")
        z.writestr("sglang/srt/models/broken.py", "class (:\n")
    assert load_script("expert_location_classes").metadata_classes(str(wheel)) == ["Moe"]


@pytest.mark.parametrize("version, builds", [("0.4.9", True), ("0.4.10", False), (None, False)])
def test_builds_metadata_takes_streams_boundary_for_a_class_without_the_method(version, builds):
    """``sgrocm.builds_metadata`` reads its 0.4.10 boundary from ``engines.sglang.streams.METADATA_END`` (helper
    rev32: the one home; sgrocm kept a copy) — both sides for a class without ``get_model_config_for_expert_location``;
    a class that has it builds the metadata in any release."""
    from types import SimpleNamespace

    from tpkit.engines.sglang.streams import METADATA_END
    from tpkit.explain.sgrocm import builds_metadata

    assert METADATA_END == "0.4.10"
    llama = SimpleNamespace(model=SimpleNamespace(architecture="LlamaForCausalLM"), rules_version=version)
    assert builds_metadata(llama) is builds
    deepseek = SimpleNamespace(model=SimpleNamespace(architecture="DeepseekV3ForCausalLM"), rules_version=version)
    assert builds_metadata(deepseek) is True


def test_expert_location_classes_refuses_no_wheel_and_a_non_wheel(tmp_path, capsys):
    """The script says what was wrong and how to fix it, exit 2, no traceback (helper rev32); a synthetic wheel with
    one class that inherits the method and one that does not reads as the first only."""
    import zipfile

    mod = load_script("expert_location_classes")
    assert mod.main([]) == 2 and "no wheel given" in capsys.readouterr().err
    bad = tmp_path / "not_a.whl"
    bad.write_text("x")
    assert mod.main([str(bad)]) == 2 and "cannot read" in capsys.readouterr().err
    wheel = tmp_path / "sglang-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("sglang/srt/models/a.py", "class Base:\n    def get_model_config_for_expert_location(cls):\n"
                   "        pass\nclass Moe(Base):\n    pass\nclass Dense:\n    pass\nEntryClass = [Moe, Dense]\n")
    assert mod.metadata_classes(str(wheel)) == ["Moe"]
    assert mod.main([str(wheel)]) == 0 and "union (1): ['Moe']" in capsys.readouterr().out
