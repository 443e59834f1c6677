"""The start-up table: derived from its evidence by the build script, one cell per GPU family, fallbacks said."""

import json
import statistics

import pytest
from tests.scripts_testlib import load_script

from tpkit.hardware.catalog import custom_gpu, lookup_gpu
from tpkit.startup import SGLANG_PROCESS_OVERHEAD, cublas, cuda_context, gpu_family, nccl_costs
from tpkit.startup.families import FAMILIES
from tpkit.startup.table import entry, table_path
from tpkit.units import Bytes, GiB


def _builder():
    return load_script("build_startup_table")


def test_shipped_table_is_what_the_evidence_gives():
    builder = _builder()
    evidence = json.loads((table_path().parent / "evidence.json").read_text())
    assert json.loads(table_path().read_text()) == json.loads(json.dumps(builder.build(evidence)))


def test_every_evidence_row_has_a_source_and_unused_rows_say_why():
    rows = json.loads((table_path().parent / "evidence.json").read_text())["rows"]
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert row["source"] and row["gpu"] and "derive" in row, row["id"]
        assert row["use"] or row.get("why_not"), row["id"]


def test_changing_one_evidence_row_changes_the_table():
    builder = _builder()
    evidence = json.loads((table_path().parent / "evidence.json").read_text())
    base = builder.build(evidence)["terms"]["cuda_context"]["blackwell"]
    row = next(r for r in evidence["rows"] if r["id"] == "sg_043")
    row["printed"]["avail"] -= 0.30  # B200's context sample; the other is sg_720 (4x GB300, lead, session 37)
    cell = builder.build(evidence)["terms"]["cuda_context"]["blackwell"]
    assert base["rows"] == cell["rows"] == ["sg_043", "sg_720"]
    # the row subtracts the 70 MiB stream pool 'Load weight begin' misses (engines.sglang.streams); two samples'
    # median is their mean, so the cell moves by half the row's 0.30 GiB
    was = (178.35 - (177.27 + 0.30) - 0.09) * 2**30 - 70 * 2**20
    now = (178.35 - 177.27 - 0.09) * 2**30 - 70 * 2**20
    assert abs(cell["bytes"] - (now + 2 * base["bytes"] - was) / 2) <= 1


@pytest.mark.parametrize("family", [f for f in FAMILIES if f != "unknown"])
def test_every_family_has_a_context_and_cublas_cell_with_a_band(family):
    for term in ("cuda_context", "cublas"):
        e = entry(term, family)
        assert GiB(0) < e.bytes < GiB(2) and e.uncertainty > GiB(0.01)
        assert family in e.source


def test_a_family_without_evidence_falls_back_to_its_neighbour_with_a_wider_band_and_says_so():
    # turing's nearest family with evidence is ampere-consumer (RTX 3090: case_021)
    turing, near = entry("cuda_context", "turing"), entry("cuda_context", "ampere-consumer")
    assert turing.bytes == near.bytes and turing.uncertainty > near.uncertainty
    assert turing.samples == near.samples and "no evidence for turing: nearest family ampere-consumer" in turing.source
    amd = cuda_context(lookup_gpu("MI300X"))  # cdna3 has a sample since sglang#25118 (helper sgr, 2026-12-03)
    assert gpu_family(lookup_gpu("MI300X")) == "cdna3" and "cuda_context[cdna3]: evidence" in amd.source
    assert "sg-issue-25118-mi300x" in amd.source


def test_gpus_map_to_their_architecture_family():
    assert [gpu_family(lookup_gpu(n)) for n in ("H200", "B200", "RTX-5090", "RTX-PRO-6000", "L40S", "RTX-3090",
                                                "A100-SXM-80GB")] == \
        ["hopper", "blackwell", "blackwell-consumer", "blackwell-consumer", "ada", "ampere-consumer", "ampere"]
    assert gpu_family(custom_gpu(GiB(24))) == "unknown"
    assert cuda_context(custom_gpu(GiB(24))).uncertainty >= cuda_context(lookup_gpu("H200")).uncertainty


def test_contexts_differ_by_family_where_the_logs_do():
    h200, l40s = cuda_context(lookup_gpu("H200")), cuda_context(lookup_gpu("L40S"))
    assert h200.bytes != l40s.bytes and "cuda_context[hopper]" in h200.source and "[ada]" in l40s.source
    assert cublas(lookup_gpu("H200")).bytes != cublas(lookup_gpu("L40S")).bytes


def test_nccl_grows_with_world_size_over_nvlink_and_is_small_over_pcie():
    h200 = lookup_gpu("H200")
    total = {(t, w): sum(c.bytes.bytes for c in nccl_costs(h200, w, transport=t)) for t in ("nvlink", "pcie")
             for w in (2, 4, 8)}
    assert total[("nvlink", 2)] < total[("nvlink", 4)] < total[("nvlink", 8)]
    assert all(total[("pcie", w)] < total[("nvlink", w)] for w in (2, 4, 8))
    assert "interpolated" in nccl_costs(h200, 3, transport="nvlink")[0].source
    assert "world 8's cell" in nccl_costs(h200, 16, transport="nvlink")[0].source


def test_nvlink_world_4_is_measured_by_two_rows_not_interpolated():
    """Helper nc13 (2026-12-05): nccl[nvlink:4] had no sample (1.38 GiB interpolated between worlds 2 and 8). Two
    rows now measure it: SGLang's init line on 4x B200 (sg_105/sg_106: 1.46 GiB - 24 MiB custom all-reduce) and vLLM
    0.8.2 V0's non_torch_memory on 4x A800 SXM (1.39 GiB - cuBLAS[ampere] - 24 MiB custom all-reduce)."""
    cell = entry("nccl", "nvlink:4")
    # lead, session 37: a third row, SGLang's init line on 4x GB300 (sg_720, once helper pl37's GB300 entry resolves
    # its GPU): the cell is the median of three, its band the 10th/90th percentile (no floor past two samples)
    assert cell.samples == 3 and "interpolated" not in cell.source and "sg_720" in cell.source
    samples = json.loads(table_path().read_text())["terms"]["nccl"]["nvlink:4"]["samples_gib"]
    assert abs(samples[0] - (1.46 - 0.0234)) < 1e-3
    assert abs(samples[1] - (1.39 - entry("cublas", "ampere").bytes.bytes / 2**30 - 0.0234)) < 1e-3
    expected = statistics.median(samples)
    assert abs(cell.bytes.bytes / 2**30 - expected) < 1e-3
    assert max(samples) - expected <= cell.uncertainty.bytes / 2**30 and expected - min(samples) <= cell.uncertainty.bytes / 2**30
    # the worlds around it interpolate from the measured cell, the band from the larger neighbour
    w3, w5 = entry("nccl", "nvlink:3"), entry("nccl", "nvlink:5")
    assert entry("nccl", "nvlink:2").bytes < w3.bytes < cell.bytes < w5.bytes < entry("nccl", "nvlink:8").bytes
    w2 = entry("nccl", "nvlink:2")
    assert abs(w3.uncertainty.bytes - 1.25 * max(w2.uncertainty.bytes, cell.uncertainty.bytes)) < 2**20


def test_the_fitted_039_gib_overhead_is_gone():
    assert SGLANG_PROCESS_OVERHEAD.bytes < GiB(0.1)
    assert "init_torch_distributed" in SGLANG_PROCESS_OVERHEAD.item and SGLANG_PROCESS_OVERHEAD.uncertainty > Bytes(0)


def test_engine_extras_are_in_the_table_with_their_evidence():
    from tpkit.startup import sglang_load_extra, vllm_nontorch_growth

    load = sglang_load_extra()
    assert GiB(0.05) < load.bytes < GiB(0.3) and load.uncertainty > Bytes(0) and "10 sample(s)" in load.source
    rows = json.loads((table_path().parent / "evidence.json").read_text())["rows"]
    # the rotary cache (charged by the SGLang rules with the weights) is not in the load extra as well
    assert all("rope_cache" in r["derive"][0]["expr"] for r in rows if r["id"].endswith("-load"))
    one, many = vllm_nontorch_growth(1), vllm_nontorch_growth(8)
    assert one.bytes < many.bytes and "tp>2" in many.source


def test_rtx3090_context_is_vllm_064s_usage_before_the_profile_beyond_the_weights():
    """case_021 (vLLM 0.6.4, RTX 3090, tp 1): initial_memory_usage − weights is the context (the quantity SGLang's
    'Load weight begin' line sees); the profile run's first GEMMs left only memory_usage_post_profile − initial on
    the device, so that is the family's cuBLAS and it is not subtracted from the context again."""
    rows = json.loads((table_path().parent / "evidence.json").read_text())["rows"]
    p = next(r for r in rows if r["id"] == "case_021")["printed"]
    ctx, blas = entry("cuda_context", "ampere-consumer"), entry("cublas", "ampere-consumer")
    assert ctx.bytes == GiB(p["initial_memory_usage"] - p["weights"]) and "1 sample(s)" in ctx.source
    assert blas.bytes == GiB(p["memory_usage_post_profile"] - p["initial_memory_usage"]) and "fallback" not in blas.source
    # the two add up to vLLM 0.6.4's non_torch_memory line (three numbers printed to 0.01 GiB)
    assert abs((ctx.bytes + blas.bytes).gib - p["nontorch"]) <= 0.015


def test_sglang_reads_the_nccl_cells_of_its_init_window():
    """Helper ev32: SGLang's plans read ``init:`` NCCL cells (keyed ``sglang:`` until helper ev33) built from the
    init window only; a vLLM non-torch line before 0.11 also holds what the profile connected (vllm 0.7.1
    Worker.init_device snapshot before the distributed init, line after profile_run)."""
    from tpkit.startup.table import nccl_entry, read_table
    cells = read_table()["terms"]["nccl"]
    rows = {r["id"]: r for r in json.loads((table_path().parent / "evidence.json").read_text())["rows"]}
    for key, raw in cells.items():
        if key.startswith("init:") and raw["source"] == "evidence":  # helper ev33: by the quantity, not the engine
            assert all(_builder().nccl_window(rows[i]) == "init" for i in raw["rows"]), key
            assert all(rows[i]["engine"] in ("sglang", "measurement") or "free_pre_profile" in rows[i]["printed"]
                       for i in raw["rows"]), key
    own, pooled = nccl_entry("nvlink", 8, engine="sglang"), nccl_entry("nvlink", 8)
    assert "init:nvlink:8" in own.source and "vl_058" not in own.source and "vl_058" in pooled.source
    # world 16 (two nodes of eight) takes world 8's cell, per engine
    assert nccl_entry("nvlink", 16, engine="sglang").bytes == own.bytes
    assert nccl_entry("nvlink", 16).bytes == pooled.bytes
    # a transport's cells exist for SGLang wherever the pooled ones do
    pooled_keys = {k for k in cells if k.count(":") == 1}
    assert {k.split(":", 1)[1] for k in cells if k.startswith("init:")} == pooled_keys
    with pytest.raises(ValueError):
        nccl_entry("nvlink", 8, engine="trtllm")


def test_sglang_plan_charges_the_init_window_cell():
    from tpkit.engines.sglang.baseline import plan_baseline
    from tpkit.parallel import ParallelSpec
    from tpkit.startup.table import nccl_entry
    b = plan_baseline(lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=8), "0.5.9", None)
    nccl = [u for u in b.uses if u.item in ("NCCL process group", "NCCL communicator warm-up")]
    assert len(nccl) == 2 and all("init:nvlink:8" in u.source for u in nccl)
    assert abs(sum(u.bytes.bytes for u in nccl) - nccl_entry("nvlink", 8, engine="sglang").bytes.bytes) <= 1


def test_a_derived_cell_says_it_has_no_sample_of_its_own():
    """An interpolated or borrowed cell (n = 0) names the rows it comes from, not '0 sample(s) (rows)' (lead,
    session 32: SGLang's PCIe world-8 NCCL cell is world 4's)."""
    from tpkit.startup.table import nccl_entry

    derived = nccl_entry("pcie", 8, engine="sglang")
    assert derived.samples == 0 and "no sample of its own; derived from sg_009" in derived.source
    assert "0 sample(s)" not in derived.source
    measured = nccl_entry("pcie", 4, engine="sglang")  # helper ev33: vllm-14011 (free before profile_run) joins sg_009
    assert measured.samples == 2 and "2 sample(s) (sg_009, vllm-14011)" in measured.source


def test_each_nccl_row_is_sorted_by_the_window_it_measures():
    """Helper ev33 (``scripts/build_startup_table.py`` ``nccl_window``): a vLLM non-torch line before 0.11 runs from a
    snapshot before the distributed init to the end of the profile run (V0 ``worker.py`` ``init_device`` /
    ``determine_num_available_blocks``, 0.6.6.post1, 0.7.1, 0.8.5; V1 ``gpu_worker.py`` ``init_device``, 0.10.2):
    "profile".  SGLang's init line, tpkit's step measurement and vLLM's free memory before ``profile_run``: "init"."""
    b = _builder()
    rows = {r["id"]: r for r in json.loads((table_path().parent / "evidence.json").read_text())["rows"]}
    for rid in ("vl_058", "vllm-a800-tp4-lf", "vl_004", "vl_021", "vl_250", "vl_068"):
        assert b.nccl_window(rows[rid]) == "profile", rid
    for rid in ("sg_010", "sg_105", "sg_009", "sg-16920", "tpkit-h200x2-steps", "vllm-14011"):
        assert b.nccl_window(rows[rid]) == "init", rid
    # a vLLM row that gives no NCCL sample (0.11+: the growth row) is no profile-window NCCL row
    assert b.nccl_window({"engine": "vllm", "derive": [{"term": "vllm_nontorch_growth", "key": "tp2",
                                                         "expr": "nontorch - nom('cublas', 'hopper')"}]}) == "init"


def test_vllm_reads_the_nccl_cells_of_its_profile_window():
    """Helper ev33: ``profile:`` NCCL cells are built from vLLM's own non-torch lines before 0.11 only (no SGLang init
    line, no measurement); a world without such a sample takes the interpolation or the nearest sampled world with a
    wider band; a transport without any (xGMI) the pooled cell."""
    from tpkit.startup.table import nccl_entry, read_table
    b = _builder()
    rows = {r["id"]: r for r in json.loads((table_path().parent / "evidence.json").read_text())["rows"]}
    cells = read_table()["terms"]["nccl"]
    own_keys = [k for k in cells if k.startswith("profile:")]
    assert {k.split(":", 1)[1] for k in own_keys} == {k for k in cells if k.startswith(("nvlink:", "pcie:"))}
    for key in own_keys:
        assert all(rows[i]["engine"] == "vllm" and b.nccl_window(rows[i]) == "profile" for i in cells[key]["rows"]), key
    own, pooled = nccl_entry("nvlink", 8, window="profile"), nccl_entry("nvlink", 8)
    assert "profile:nvlink:8" in own.source and "sg_010" not in own.source and "sg_010" in pooled.source
    assert own.samples == 1 and own.bytes > pooled.bytes  # vl_058 alone (2.10 GiB printed, A100 SXM, 0.7.1)
    two, four = nccl_entry("nvlink", 2, window="profile"), nccl_entry("nvlink", 4, window="profile")
    assert two.samples == 0 and two.bytes == four.bytes and two.uncertainty.bytes == pytest.approx(
        1.5 * four.uncertainty.bytes, abs=2)  # no vLLM NVLink line at world 2: world 4's, band x 1.5
    assert "tpkit-h200x2-steps" not in two.source
    assert nccl_entry("xgmi", 8, window="profile") == nccl_entry("xgmi", 8)
    assert nccl_entry("pcie", 4, window="profile").samples == 3  # vl_068 / vl_069 / vl_070; vllm-14011 is init
    assert nccl_entry("nvlink", 8, engine="sglang") == nccl_entry("nvlink", 8, window="init")
    for bad in ({"engine": "vllm"}, {"window": "both"}, {"engine": "sglang", "window": "profile"}):
        with pytest.raises(ValueError):
            nccl_entry("nvlink", 8, **bad)


@pytest.mark.parametrize("version, window, late", [
    ("0.10.2", "profile", True), ("0.11.0", "init", False), ("0.8.5", "profile", False), ("0.34", "init", False),
    ("v0", "profile", False), ("0.6.6", "profile", False)])
def test_vllm_plan_reads_the_window_of_its_release(version, window, late):
    """Before 0.11 (V0 every release, V1 up to 0.10.2) the snapshot precedes the distributed init and the non-torch
    figure is read after the profile run: the TP group charges the ``profile:`` cell (after the snapshot in V1 from
    0.9.1; with the uses where the rules charge every non-torch byte, ``v0_peak``).  From 0.11.0 the communicator is
    created before the snapshot (0.11.0 ``gpu_worker.py`` ``init_device``): the ``init:`` cell, and what the profile
    connects is the growth row."""
    from tpkit.engines.vllm import resolve_rules
    from tpkit.engines.vllm.baseline import nccl_window, plan_baseline
    from tpkit.parallel import ParallelSpec
    from tpkit.startup.table import nccl_entry
    rules = resolve_rules(version)
    assert nccl_window(rules) == window
    base = plan_baseline(lookup_gpu("A100-SXM-40GB"), ParallelSpec(tp=8), rules)
    lines = [u for u in base.uses + base.after_snapshot if u.item.startswith("NCCL")]
    assert len(lines) == 2 and all(f"{window}:nvlink:8" in u.source for u in lines)
    assert abs(sum(u.bytes.bytes for u in lines) - nccl_entry("nvlink", 8, window=window).bytes.bytes) <= 1
    assert all(u in base.after_snapshot for u in lines) == late
