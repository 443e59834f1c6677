"""Consumer Blackwell (SM120): the catalog's Linux CUDA totals, the Windows/WSL2 caveat, and the CUDA-context row
(helper cbw, 2026-12-04; docs/accuracy.md §5, 'Consumer Blackwell totals and start-up rows')."""

import json

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.logs.gpu_names import gpus_with_total
from tpkit.logs.printed import size_from_text
from tpkit.startup import cuda_context
from tpkit.startup.table import entry, table_path
from tpkit.units import GiB

MIB = 2**20


@pytest.mark.parametrize("name,total_bytes,linux_id,windows_gib", [
    ("RTX-5060-Ti-16GB", 15841 * MIB, "9995932201", "15.92"),
    ("RTX-5080", 15841 * MIB, "70302463552", "15.92"),
    ("RTX-5070-Ti", 15841 * MIB, "RTX 5080", "15.92"),
    ("RTX-5090", 33672543601, "57676316864", "31.84"),
    ("RTX-PRO-6000", 101973261025, "71198863849", "95.59"),
])
def test_sm120_catalog_totals_are_the_linux_figures_with_the_windows_one_as_a_caveat(name, total_bytes, linux_id,
                                                                                      windows_gib):
    g = lookup_gpu(name)
    assert g.compute_capability == (12, 0)
    assert g.total_bytes.bytes == total_bytes
    assert linux_id in g.source_of("total_linux")
    assert windows_gib in g.source_of("total_windows")
    # Windows/WSL2 reports the nvidia-smi total, more than the Linux figure
    assert float(windows_gib) * 2**30 > g.total_bytes.bytes


def test_rtx_5080_total_is_no_longer_the_windows_prompt():
    """Until 2026-12-04 the RTX 5080 (and the 5070 Ti assumed equal to it) carried 16302 MiB, torch in a Windows
    prompt; Linux prints 15.47 GiB (vLLM 0.30 on an RTX 5080), the 5060 Ti's 15841 MiB."""
    g = lookup_gpu("NVIDIA GeForce RTX 5080")
    assert round(g.total_bytes.gib, 2) == 15.47 and "16302MB" in g.source_of("total_windows")
    assert "Windows" in g.total_source and "15.47" in g.total_source
    assert lookup_gpu("RTX-5070-Ti").total_bytes == g.total_bytes and not lookup_gpu("RTX-5070-Ti").total_printed
    # a Linux print of 15.47 GiB fits both 16 GB cards whose total was printed; the 5070 Ti's is assumed
    assert set(gpus_with_total(size_from_text("15.47", "GiB", meaning="total capacity"))) == {"RTX-5060-Ti-16GB", "RTX-5080"}


@pytest.mark.parametrize("name", ["RTX-4090", "RTX-3090", "RTX-4080", "RTX-4070-Ti-SUPER", "RTX-3060-12GB"])
def test_other_consumer_cards_record_both_totals(name):
    g = lookup_gpu(name)
    assert g.source_of("total_linux") != "not recorded" and g.source_of("total_windows") != "not recorded"
    assert "WSL" in g.source_of("total_windows")


def _rows():
    return {r["id"]: r for r in json.loads((table_path().parent / "evidence.json").read_text())["rows"]}


def test_sm120_context_row_rests_on_four_samples_that_are_not_validation_cases():
    e = entry("cuda_context", "blackwell-consumer")
    table = json.loads(table_path().read_text())["terms"]["cuda_context"]["blackwell-consumer"]
    assert table["rows"] == ["sg_047", "vllm-5090-p37", "vllm-5090-exclusive", "vllm-pro6000-flashnext"]
    assert table["samples_gib"] == [0.5216, 0.5, 0.51, 0.56]
    assert abs(e.bytes.gib - 0.516) < 0.001 and abs(e.uncertainty.gib - 0.0516) < 0.001 and e.samples == 4
    rows = _rows()
    for vllm_row in ("vllm-5090-p37", "vllm-5090-exclusive", "vllm-pro6000-flashnext"):
        assert rows[vllm_row]["derive"][0]["expr"] == "total - free" and rows[vllm_row]["tp"] == 1
    # sg_047 (a 2026-10 SGLang tree): the 0.5.8+ init term and the 0.5.9+ stream pool come off, as for sg_043
    expr = rows["sg_047"]["derive"][0]["expr"]
    assert "'>=0.5.8'" in expr and "70 * 2**20" in expr
    assert cuda_context(lookup_gpu("RTX-5060-Ti-16GB")).bytes == e.bytes  # one row for the family


def test_validation_cases_are_listed_but_kept_out_of_the_row():
    rows = _rows()
    for rid, value in (("gs_001", 0.31), ("gs_050", 0.2216)):
        row = rows[rid]
        assert not row["use"] and "validation case" in row["why_not"] and "validation case" in row["note"]
        names = {**row["printed"], "GIB": 2**30, "nom": lambda t, k: entry(t, k).bytes.gib}
        assert abs(eval(row["derive"][0]["expr"], {"__builtins__": {}}, names) - value) < 0.01  # noqa: S307
    assert not rows["sglang-5090-glm47flash"]["use"]
    assert "gs_001" not in entry("cuda_context", "blackwell-consumer").source
    assert GiB(0.45) < entry("cuda_context", "blackwell-consumer").bytes < GiB(0.6)
