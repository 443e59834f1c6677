"""The CUDA-context model by resident threads (SMs × max threads per SM): fitted across families, used only for a
family with fewer than 3 samples of its own (helper smctx, docs/accuracy.md §5 "CUDA context by SM count").
Helper ev15 (2026-12-05): pins moved by ≤ 2 MiB when the corpus rows moved sglang_tp1_init[all] 0.00 → 0.01 GiB
(the A100 / L40S SGLang rows subtract it)."""

import json
from dataclasses import replace

import pytest

from tpkit.hardware.catalog import custom_gpu, lookup_gpu
from tpkit.hardware.sm import max_threads_per_sm, resident_threads
from tpkit.startup import cuda_context, gpu_family
from tpkit.startup.table import context_model, entry, own_samples, table_path
from tpkit.units import GiB

GIB = 2**30


def _model_json() -> dict:
    return json.loads(table_path().read_text())["cuda_context_model"]


def test_threads_per_sm_by_compute_capability():
    # CUDA C++ Programming Guide, technical specifications per compute capability
    assert [max_threads_per_sm(cc) for cc in ((7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0))] == \
        [1024, 2048, 1536, 1536, 2048, 2048, 1536]
    assert max_threads_per_sm((8, 7)) is None and max_threads_per_sm(None) is None  # not listed: no guess
    assert resident_threads(132, (9, 0)) == 270_336 and resident_threads(None, (9, 0)) is None


def test_the_model_is_pinned_and_beats_the_pooled_cell_leaving_one_family_out():
    m = _model_json()
    # helper ev24 (2026-12-06): sg_527 (H200, 0.60) is the 26th sample; sglang_tp1_init[all] 0.01 -> 0.00 GiB raises
    # the rows that subtract it by 0.01 (sg_042 L40S, sg_063 A100): 0.167 GiB + 1570 B -> 0.164 GiB + 1611 B
    # lead, session 37: sg_720 (4x GB300, 0.65 GiB; the GB300 catalog entry of helper pl37) is the 27th sample, the
    # 10th GPU: 0.164 GiB + 1611 B -> 0.157 GiB + 1657 B, band 0.175 -> 0.171 GiB, leave-one-family-out 0.0775 -> 0.0741
    assert m["n_gpus"] == 10 and m["n_samples"] == 27 and m["below_n"] == 3 and m["use"] is True
    assert m["intercept_bytes"] / GIB == pytest.approx(0.1575, abs=0.001)
    assert m["bytes_per_resident_thread"] == pytest.approx(1657, abs=1)  # ≈ 1.6 KiB per resident thread
    assert m["uncertainty_bytes"] / GIB == pytest.approx(0.171, abs=0.001)
    assert m["loo_family_mae_gib"] == pytest.approx(0.0741, abs=0.001)
    # helper amdev26 (2026-12-06): the pooled cell holds every sample of the term, AMD's too; the 52 AMD CI rows
    # (michael-amd/sglang-ci, MI300X 0.45-0.76 GiB, MI355X 0.43-0.66 GiB) move its median for each left-out family
    assert m["loo_family_pooled_mae_gib"] == pytest.approx(0.1034, abs=0.001)  # 0.1028 before sg_720
    # the public validation logs (gs_001, gs_050: RTX 5080 / 5060 Ti) stay out of the fit
    assert {p["gpu"] for p in m["points"]}.isdisjoint({"RTX-5080", "RTX-5060-Ti-16GB"})
    assert {x["row"] for x in m["leave_one_family_out"]}.isdisjoint({"gs_001", "gs_050"})


def test_held_out_16gb_blackwell_cards_are_within_the_band():
    # the two validation figures the fit never saw: 0.22 GiB (5060 Ti, 36 SMs) and 0.31 GiB (5080, 84 SMs)
    model = context_model()
    for name, seen in (("RTX-5060-Ti-16GB", 0.22), ("RTX-5080", 0.31)):
        g = lookup_gpu(name)
        predicted = model.predict(resident_threads(g.sm_count, g.compute_capability)).bytes / GIB
        assert abs(predicted - seen) < 0.06


@pytest.mark.parametrize("name,family,n_own", [("B200", "blackwell", 2), ("A100-SXM-80GB", "ampere", 1),
                                               ("RTX-3090", "ampere-consumer", 1), ("T4", "turing", 0)])
def test_a_family_with_fewer_than_three_samples_takes_the_model(name, family, n_own):
    g = lookup_gpu(name)
    assert gpu_family(g) == family and own_samples("cuda_context", family) == n_own
    c = cuda_context(g)
    model = context_model()
    assert c.bytes == model.predict(g.sm_count * max_threads_per_sm(g.compute_capability))
    assert c.uncertainty == model.uncertainty and "cuda_context_model" in c.source and f"{g.sm_count} SMs" in c.source


def test_the_model_nominals_of_the_small_families():
    got = {n: round(cuda_context(lookup_gpu(n)).bytes.bytes / GIB, 3) for n in ("T4", "A100-SXM-80GB", "B200", "RTX-3090")}
    assert got == {"T4": 0.221, "A100-SXM-80GB": 0.499, "B200": 0.625, "RTX-3090": 0.352}  # ev24: 0.227 / 0.490 / 0.610 / 0.351; 0.226 / 0.496 / 0.619 / 0.353 before sg_720 (lead, session 37)


@pytest.mark.parametrize("name,family", [("H100", "hopper"), ("L4", "ada"), ("RTX-5060-Ti-16GB", "blackwell-consumer")])
def test_a_family_with_three_or_more_samples_keeps_its_measured_cell(name, family):
    assert own_samples("cuda_context", family) >= 3
    c, e = cuda_context(lookup_gpu(name)), entry("cuda_context", family)
    assert c.bytes == e.bytes and c.uncertainty == e.uncertainty and f"cuda_context[{family}]" in c.source


def test_gpus_the_model_cannot_place_keep_their_cell():
    # AMD (no CUDA threads per SM), a small family GPU with no SM count in the catalog, a custom total
    assert "cuda_context[cdna3]" in cuda_context(lookup_gpu("MI300X")).source
    a10g = replace(lookup_gpu("A10G"), sm_count=None)  # every catalog GPU has its SM count since tidy27 (session 27)
    assert "cuda_context[ampere-consumer]" in cuda_context(a10g).source
    assert "cuda_context_model" in cuda_context(lookup_gpu("A10G")).source  # with its 80 SMs the model places it
    assert "cuda_context[unknown]" in cuda_context(custom_gpu(GiB(24))).source
    assert "cuda_context[unknown]" in cuda_context(None).source


def test_an_nvidia_gpu_without_a_family_takes_the_model():
    v100 = lookup_gpu("V100-32GB")  # compute capability 7.0: no start-up family
    assert gpu_family(v100) == "unknown"
    assert "cuda_context_model" in cuda_context(v100).source
