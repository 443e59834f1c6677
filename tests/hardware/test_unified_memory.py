"""Unified-memory GPUs (GB10): the catalog flag and the engines' rules per release (engines.unified)."""

from pathlib import Path

from tpkit.engines.unified import unified_memory_note
from tpkit.hardware.catalog import list_gpus, lookup_gpu

ROOT = Path(__file__).resolve().parents[2]


def test_gb10_is_flagged_and_discrete_gpus_are_not():
    assert lookup_gpu("GB10").unified_memory
    assert lookup_gpu("DGX Spark").unified_memory
    assert not lookup_gpu("H100").unified_memory
    assert [g.name for g in list_gpus() if g.unified_memory] == ["GB10"]


def test_discrete_gpu_gets_no_note():
    assert unified_memory_note("vllm", None, lookup_gpu("H100")) == ()
    assert unified_memory_note("sglang", None, lookup_gpu("H200")) == ()


def test_vllm_boundary_at_0_12():
    gb10 = lookup_gpu("GB10")
    before = unified_memory_note("vllm", "0.11.0", gb10)[0]
    after = unified_memory_note("vllm", "0.12.0", gb10)[0]
    assert "--gpu-memory" in before and "--gpu-memory" in after
    assert "before 0.12" in before and "MemAvailable" not in before
    assert "0.12+" in after and "MemAvailable" in after
    # host memory taken between vLLM's snapshots counts as non-torch memory from 0.12 (gpu_worker
    # determine_available_memory with the MemAvailable snapshot); before 0.12 the snapshot is cudaMemGetInfo's
    assert "host memory taken during start-up" in after and "non-torch" in after
    assert "host memory taken during start-up" not in before
    assert unified_memory_note("vllm", None, gb10) == unified_memory_note("vllm", "0.33", gb10)


def test_sglang_read_from_0_5_9():
    gb10 = lookup_gpu("GB10")
    assert "were not read" in unified_memory_note("sglang", "0.5.8", gb10)[0]
    for version in ("0.5.9", "0.5.23", None):
        assert "comes out of the KV pool" in unified_memory_note("sglang", version, gb10)[0]


def test_plan_warns_on_gb10(capsys):
    from tpkit.cli import main

    rc = main(["plan", str(ROOT / "tests/validation/configs/Qwen--Qwen2-7B-Instruct.json"), "--gpu", "GB10", "--engine", "vllm"])
    out = capsys.readouterr().out
    assert rc in (0, None)
    assert "GB10 has unified memory" in out


def test_vllm_version_aliases_are_read_as_their_release():
    """The note takes --engine-version as the plan does: 'current'/'latest' are the newest release, 'v0' and
    'X:v0' the V0 engine (before 0.12); it refused them as unreadable before."""
    gb10 = lookup_gpu("GB10")
    for alias in ("current", "latest"):
        assert "0.12+" in unified_memory_note("vllm", alias, gb10)[0]
    for alias in ("v0", "0.8.2:v0"):
        assert "before 0.12" in unified_memory_note("vllm", alias, gb10)[0]
