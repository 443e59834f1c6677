"""Unified-memory GPUs (GB10): the catalog flag and the engines' rules per release (engines.unified)."""

from pathlib import Path

from dataclasses import replace

import pytest

from tpkit.engines.unified import unified_memory_note, vllm_reads_host_available
from tpkit.hardware.catalog import list_gpus, lookup_gpu
from tpkit.units import Bytes

ROOT = Path(__file__).resolve().parents[2]


def test_gb10_is_flagged_and_discrete_gpus_are_not():
    assert lookup_gpu("GB10").unified_memory
    assert lookup_gpu("DGX Spark").unified_memory
    assert not lookup_gpu("H100").unified_memory
    assert [g.name for g in list_gpus() if g.unified_memory] == ["GB10", "Jetson-AGX-Thor"]


def test_discrete_gpu_gets_no_note():
    assert unified_memory_note("vllm", None, lookup_gpu("H100")) == ()
    assert unified_memory_note("sglang", None, lookup_gpu("H200")) == ()


def test_vllm_boundary_at_0_11_1():
    """MemorySnapshot.measure takes MemAvailable from 0.11.1 (vllm/utils/mem_utils.py, 0.11.1 wheel); the 0.11.0
    wheel's MemorySnapshot (vllm/utils/__init__.py) takes cudaMemGetInfo alone."""
    gb10 = lookup_gpu("GB10")
    before = unified_memory_note("vllm", "0.11.0", gb10)[0]
    after = unified_memory_note("vllm", "0.11.1", gb10)[0]
    assert "--gpu-memory" in before and "--gpu-memory" in after
    assert "before 0.11.1" in before and "MemAvailable" not in before
    assert "0.11.1+" in after and "MemAvailable" in after
    # host memory taken between vLLM's snapshots counts as non-torch memory from 0.11.1 (gpu_worker
    # determine_available_memory with the MemAvailable snapshot); before, the snapshot is cudaMemGetInfo's
    assert "host memory taken during start-up" in after and "non-torch" in after
    assert "host memory taken during start-up" not in before
    assert unified_memory_note("vllm", None, gb10) == unified_memory_note("vllm", "0.34", gb10)
    # helper cur17: 0.34's extensible KV cache has no start-up check (config/vllm.py _resolve_extensible_kv_cache)
    assert "start-up fails when MemAvailable" in unified_memory_note("vllm", "0.33", gb10)[0]
    assert "no start-up check" in unified_memory_note("vllm", "0.34", gb10)[0]
    assert not vllm_reads_host_available((0, 11, 0), gb10) and vllm_reads_host_available((0, 11, 1), gb10)
    assert vllm_reads_host_available((0, 12, 0), gb10) and vllm_reads_host_available((0, 30, 0), gb10)


def test_vllm_picks_the_device_by_capability_until_0_20():
    """0.11.1-0.19.x test shared_sysmem_device_mem_sms = (8,7) Orin, (11,0) Thor, (12,1) Spark (read in the 0.19.0
    wheel); 0.20.0 asks is_integrated_gpu, which the catalog's unified_memory stands for."""
    gb10 = lookup_gpu("GB10")
    other_cc = replace(gb10, compute_capability=(9, 0))  # a unified device whose capability is not in the list
    assert not vllm_reads_host_available((0, 19, 0), other_cc)
    assert vllm_reads_host_available((0, 20, 0), other_cc)
    thor_cc = replace(lookup_gpu("H100"), compute_capability=(11, 0))  # the list matches by capability alone
    assert vllm_reads_host_available((0, 19, 0), thor_cc) and not vllm_reads_host_available((0, 20, 0), thor_cc)
    assert "only for compute capability" in unified_memory_note("vllm", "0.19.0", other_cc)[0]
    assert "0.11.1+" in unified_memory_note("vllm", "0.20.0", other_cc)[0]
    assert not vllm_reads_host_available((0, 20, 0), lookup_gpu("H100"))


def test_note_gives_the_memavailable_the_start_up_check_needs():
    gb10 = lookup_gpu("GB10")
    need = Bytes(int(0.9 * gb10.total_bytes.bytes))
    after = unified_memory_note("vllm", "0.13.0", gb10, requested=need)[0]
    assert f"here {need.bytes / 2**30:.2f} GiB" in after and "free -b" in after
    before = unified_memory_note("vllm", "0.11.0", gb10, requested=need)[0]
    assert f"{need.bytes / 2**30:.2f} GiB free by cudaMemGetInfo" in before
    with pytest.raises(TypeError):  # a bare count of bytes is refused, not printed in some unit
        unified_memory_note("vllm", "0.13.0", gb10, requested=int(need))
    assert "GiB" not in unified_memory_note("vllm", "0.13.0", gb10)[0].split("MemAvailable is below")[1]


def test_sglang_read_from_0_5_9():
    gb10 = lookup_gpu("GB10")
    assert "were not read" in unified_memory_note("sglang", "0.5.8", gb10)[0]
    for version in ("0.5.9", "0.5.23", None):
        assert "comes out of the KV pool" in unified_memory_note("sglang", version, gb10)[0]


def test_plan_warns_on_gb10(capsys):
    from tpkit.cli import main

    rc = main(["plan", str(ROOT / "tests/validation/configs/Qwen--Qwen2-7B-Instruct.json"), "--gpu", "GB10", "--engine",
               "vllm", "--engine-version", "0.33"])
    out = capsys.readouterr().out
    assert rc in (0, None)
    assert "GB10 has unified memory" in out
    assert "here 110.06 GiB" in " ".join(out.split())  # ceil(0.92 × 119.63 GiB), 0.33's default (helper cur17)


def test_vllm_version_aliases_are_read_as_their_release():
    """The note takes --engine-version as the plan does: 'current'/'latest' are the newest release, 'v0' and
    'X:v0' the V0 engine (before 0.11.1); it refused them as unreadable before."""
    gb10 = lookup_gpu("GB10")
    for alias in ("current", "latest"):
        assert "0.11.1+" in unified_memory_note("vllm", alias, gb10)[0]
    for alias in ("v0", "0.8.2:v0"):
        assert "before 0.11.1" in unified_memory_note("vllm", alias, gb10)[0]


def test_explain_startup_failure_on_gb10_names_host_memory(capsys):
    """vl_346 (vLLM 0.18.1rc1 on a GB10, 'Free memory on device cuda:0 (53.95/121.63 GiB) on startup'): the free
    memory is the host's MemAvailable, so the fix is host memory, not nvidia-smi or another GPU."""
    from tpkit.cli import main

    main(["explain", str(ROOT / "tests/logs/data/vllm/vl_346.log")])
    out = " ".join(capsys.readouterr().out.split())
    assert "MemAvailable, which vLLM 0.11.1+ reads as the free memory of a unified-memory GB10" in out
    assert "free -b shows 97.3 GiB available" in out
    assert "CUDA_VISIBLE_DEVICES=<idle GPU>" not in out


def test_explain_startup_failure_on_a_discrete_gpu_is_unchanged(capsys):
    from tpkit.cli import main

    main(["explain", str(ROOT / "tests/logs/data/vllm/vl_132.log")])
    out = " ".join(capsys.readouterr().out.split())
    assert "another process holds memory" in out and "CUDA_VISIBLE_DEVICES=<idle GPU>" in out
    assert "MemAvailable" not in out


def test_explain_reads_the_release_on_both_sides_of_0_11_1():
    from types import SimpleNamespace

    from tpkit.explain.vdiagnose import _host_memory_read

    gb10 = lookup_gpu("GB10")
    assert _host_memory_read(SimpleNamespace(gpu=gb10, version="0.11.0+582e4e37.nv25.11")) is False
    assert _host_memory_read(SimpleNamespace(gpu=gb10, version="0.11.1")) is True
    assert _host_memory_read(SimpleNamespace(gpu=gb10, version=None)) is None
    assert _host_memory_read(SimpleNamespace(gpu=lookup_gpu("H100"), version="0.13.0")) is None


def test_jetson_thor_is_in_the_catalog_as_unified():
    """Jetson AGX Thor (helper gb11): SM 11.0 (vllm#43969), 131.9 GB CUDA total (a CUDA harness's print), unified;
    vLLM 0.11.1-0.19 pick it by capability (11, 0), 0.20+ by is_integrated."""
    thor = lookup_gpu("NVIDIA Thor")
    assert thor is lookup_gpu("Jetson AGX Thor") and thor.name == "Jetson-AGX-Thor"
    assert thor.unified_memory and thor.compute_capability == (11, 0) and thor.sm_count == 20
    assert abs(thor.total_bytes.bytes - 131.9e9) < 1 and "60815229375" in thor.total_source
    assert not vllm_reads_host_available((0, 11, 0), thor)
    assert vllm_reads_host_available((0, 13, 0), thor) and vllm_reads_host_available((0, 20, 0), thor)
    assert "Jetson-AGX-Thor has unified memory" in unified_memory_note("vllm", "0.13.0", thor)[0]


def test_sglang_budget_sample_is_named_on_unified_memory_only():
    """Helper x12b (2026-12-05): SGLang 0.5.9+ sizes the pool from an unprinted MemAvailable sample on an integrated
    GPU (get_available_gpu_memory's is_integrated branch, read in 0.5.14 and 0.5.15): explain says so there only."""
    from tpkit.engines.unified import sglang_budget_sample_note

    gb10 = lookup_gpu("GB10")
    assert sglang_budget_sample_note("0.5.15", lookup_gpu("H100")) is None
    assert sglang_budget_sample_note("0.5.8", gb10) is None
    note = sglang_budget_sample_note("0.5.14", gb10)
    assert note.startswith("KV budget sample:") and "MemAvailable" in note
    assert sglang_budget_sample_note(None, gb10) == note


def test_sglang_budget_sample_names_the_processor_of_a_multimodal_model():
    """Helper cap15 (2026-12-05): from SGLang 0.5.14 the pool is sized (Scheduler.init_memory_pools) after
    TpModelWorker.__init__ loads a multimodal model's HF processor (managers/tp_worker.py get_processor, read in the
    0.5.9, 0.5.13, 0.5.14, 0.5.15 and 0.5.23 wheels); 0.5.13 sizes it in ModelRunner.initialize, before.  On a
    unified-memory GPU that host memory comes off the pool: the note names it for a multimodal model only."""
    from tpkit.engines.unified import sglang_budget_sample_note

    gb10 = lookup_gpu("GB10")
    text = sglang_budget_sample_note("0.5.15", gb10)
    mm = sglang_budget_sample_note("0.5.15", gb10, multimodal=True)
    assert "processor" not in text and mm.startswith(text) and "TpModelWorker" in mm and "0.5.14+" in mm
    assert sglang_budget_sample_note("0.5.13", gb10, multimodal=True) == sglang_budget_sample_note("0.5.13", gb10)
    assert sglang_budget_sample_note(None, gb10, multimodal=True) == mm
    assert sglang_budget_sample_note("0.5.15", lookup_gpu("H100"), multimodal=True) is None


def test_explain_names_the_processor_on_gb10_for_multimodal_logs_only():
    """Helper cap15 (2026-12-05): sg_403 (Qwen3.8-27B, a Qwen3_5ForConditionalGeneration, SGLang 0.5.15 on a GB10)
    gets the processor sentence in explain's missing list; sg_082 (LagunaForCausalLM, a text model on a GB10) keeps
    the plain sample note."""
    import json
    from pathlib import Path

    from tpkit.explain import explain_log

    root = Path(__file__).resolve().parents[2]
    data = root / "tests" / "logs" / "data"
    models = {e["id"]: e for e in json.loads((data / "models.json").read_text(encoding="utf-8"))["cases"]}

    def missing(case: str) -> list[str]:
        entry = models[case]
        flags = {"model": str(root / entry["config"]), "gpu": "GB10"}
        return explain_log((data / entry["file"]).read_bytes(), flags=flags).missing

    sg403 = [m for m in missing("sg_403") if m.startswith("KV budget sample:")]
    assert len(sg403) == 1 and "second copy of the HF processor" in sg403[0]
    sg082 = [m for m in missing("sg_082") if m.startswith("KV budget sample:")]
    assert len(sg082) == 1 and "processor" not in sg082[0]


# Helper gb10g (2026-12-05): vLLM's CUDA-graph estimate on unified memory.  profile_cudagraph_memory
# (v1/worker/gpu_model_runner.py; read in 0.18.1, 0.19.1, 0.20.0, 0.23.0, 0.27.1, 0.29.0, 0.33.0) samples
# torch.cuda.mem_get_info / torch.accelerator.get_memory_info (cudaMemGetInfo) with no unified-memory branch, while
# MemorySnapshot.measure (utils/mem_utils.py) replaces that reading by MemAvailable on these devices; the estimate is
# printed from 0.18 and subtracted from 0.20 (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS default "1", envs.py).

def test_graph_estimate_sentence_from_0_20_on_unified_memory_only():
    gb10 = lookup_gpu("GB10")
    for version in ("0.18.1", "0.19.1"):  # printed, not subtracted: nothing to say for the KV cache
        assert "CUDA-graph estimate" not in unified_memory_note("vllm", version, gb10)[0]
    for version in ("0.20.0", "0.27.1", "0.33"):
        note = unified_memory_note("vllm", version, gb10)[0]
        assert "CUDA-graph estimate" in note and "cudaMemGetInfo" in note
        assert "1.00 GiB above tpkit's estimate (vl_345, vl_620) to 5.19 GiB below it (vl_720)" in note
        assert "up to 1.00 GiB smaller or 5.19 GiB larger" in note and "± 0.41 GiB" in note
    assert "vLLM 0.20.0 also subtracts" in unified_memory_note("vllm", "0.20.0", gb10)[0]
    # 0.34 (current): the extensible KV cache measures the captured graphs, no estimate (helper cur17)
    assert "CUDA-graph estimate" not in unified_memory_note("vllm", None, gb10)[0]
    assert unified_memory_note("vllm", "0.27.1", lookup_gpu("H100")) == ()  # discrete: cudaMemGetInfo is the device's
    assert "CUDA-graph estimate" not in unified_memory_note("sglang", "0.5.15", gb10)[0]


def test_graph_estimate_spread_comes_from_the_unified_memory_rows_only():
    """The spread is read off graph_evidence.GRAPH_EVIDENCE (printed − mechanism), not fitted: the six GB10 rows run from
    −5.19 (vl_720, a PIECEWISE-only speculative run that prints −4.74) to +1.00 (vl_345 at 0.18.1, vl_620 at 0.27.1,
    51 + 35 graphs each).  vl_252 (A100-40GB, +1.75) is outside it: a discrete card's reading is device memory (its
    own capture line, 2.44 GiB, agrees with its 2.35 estimate)."""
    from tpkit.engines.unified import vllm_graph_estimate_spread
    from tpkit.engines.vllm.graph_evidence import GRAPH_EVIDENCE
    from tpkit.engines.vllm.graphs import mechanism_estimate

    assert vllm_graph_estimate_spread() == (-5.19, 1.0, ("vl_720",), ("vl_345", "vl_620"))
    gb10_rows = {g.source: g for g in GRAPH_EVIDENCE if g.gpu == "GB10"}
    assert sorted(gb10_rows) == ["vl_345", "vl_404", "vl_523", "vl_524", "vl_620", "vl_720"]
    a100 = next(g for g in GRAPH_EVIDENCE if g.source == "vl_252")
    gap = a100.printed_gib - mechanism_estimate(piecewise=a100.piecewise, full=a100.full, layers=a100.layers,
                                                attention_backend=a100.backend).gib
    assert gap > 1.0  # would be the spread's top if discrete rows counted
