"""The shared set's SGLang cases (data/cases.json): what follows exactly from the printed numbers.

The end-to-end accuracy of every validation case (this set included) is scored by test_validation_set.py.
"""

import json
from pathlib import Path

import pytest

from tpkit.engines.sglang import LATEST, SglangOptions, plan_sglang
from tpkit.engines.sglang.pool import compute_cell, pool_buffers
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

DATA = Path(__file__).parent / "data"
CASES = [c for c in json.loads((DATA / "cases.json").read_text()) if c["engine"] == "sglang"]


def _inputs(case):
    cfg_path = DATA / "configs" / case["config_file"]
    model = from_config_dict(json.loads(cfg_path.read_text()), name=case["model"], source=str(cfg_path))
    parallel = ParallelSpec(tp=case["tp"] or 1, pp=case["pp"] or 1)
    options = SglangOptions(
        engine_version=case["engine_version"] or LATEST, mem_fraction_static=case["mem_fraction_static"],
        context_length=case["context_length"], page_size=case["page_size"],
        kv_cache_dtype=case["kv_cache_dtype"] or "auto", chunked_prefill_size=case["chunked_prefill_size"],
        max_running_requests=case["max_running_requests"])
    return model, lookup_gpu(case["gpu"]), parallel, options


def _predict(case):
    model, gpu, parallel, options = _inputs(case)
    return plan_sglang(model, gpu, parallel, options)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_printed_sizes_follow_from_printed_tokens(case):
    """With the engine's own token count, tpkit's buffers reproduce the printed K/V sizes exactly (2 decimals)."""
    model, _, parallel, options = _inputs(case)
    rep = case["reported"]
    cell = compute_cell(model, parallel.tp, parallel.pp, "bfloat16")
    swa_tokens = (rep.get("extra") or {}).get("swa_kv_tokens", 0)
    pool = pool_buffers(cell, rep["kv_tokens"], swa_tokens, options.page_size or 1)
    sizes = {b.name: round(b.total_bytes.gib, 2) for b in pool.buffers}
    assert sizes["k"] == rep["k_size_gib"] and sizes["v"] == rep["v_size_gib"]
    if swa_tokens:
        assert sizes["swa_k"] == rep["extra"]["swa_k_size_gib"]
        assert round(pool.total_bytes.gib, 2) == rep["extra"]["swa_kv_pool_mem_usage_gib"]


def test_printed_pool_end_memory_where_logged():
    """'Memory pool end. avail mem' (GiB) is predicted within 0.1 GiB where a case logs it."""
    for case in CASES:
        printed = case["reported"]["memory_pool_end_avail_gib"]
        if printed is not None:
            line = _predict(case).engine_log[-1]
            assert line.startswith("Memory pool end. avail mem=")
            assert abs(float(line.split("=")[1].split()[0]) - printed) <= 0.1


def test_kimi_k25_int4_free_after_weights_on_rtx_pro_6000():
    """A real deployment (tp 8, f 0.85) reported ≈ 21.7 GiB free per GPU after weight loading: inside the band of
    the predicted 'Load weight end. avail mem', and the nominal within 1.0 GiB: the MoonViT tower (471,143,920
    parameters; SGLang splits only its attention, 0.64 GiB per rank) is counted since 2026-12-01 (was 23.15 GiB
    predicted without it); the NCCL term of an 8-GPU PCIe world is extrapolated from 4-GPU evidence
    (docs/accuracy.md §5)."""
    from tpkit.memory.band import at_band_end
    from tpkit.models import load_model

    free = {}
    for end in (-1, 0, 1):
        with at_band_end(end):
            result = plan_sglang(load_model("Kimi-K2.5"), lookup_gpu("RTX-PRO-6000"), ParallelSpec(tp=8),
                                 SglangOptions(mem_fraction_static=0.85))
        line = next(l for l in result.engine_log if l.startswith("Load weight end."))
        free[end] = float(line.split("avail mem=")[1].split()[0])
    assert free[1] <= 21.7 <= free[-1]
    assert 0 < free[0] - 21.7 <= 1.0  # 22.51 predicted (docs/accuracy.md §1, "vision towers")
