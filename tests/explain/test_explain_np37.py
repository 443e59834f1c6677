"""Ascend NPU crash logs, round np37 (docs/accuracy.md §7.3, helper np37, 2026-12-07, issue 12).

- the NPU catalog (``hardware/data/npus.json``, ``hardware.npu``): Ascend 910B (Atlas A2) and A3 chips, 64 GB HBM,
  with torch_npu's printed totals as 2-decimal bands; kept out of the GPU catalog (no planner rule, sweep or GPU
  inference sees them);
- ``tpkit plan --gpu <NPU>`` refuses plainly (exit 2): the planner's budget has CUDA-only terms;
- ``tpkit explain``: vLLM-Ascend's OOM while serving gets the lower utilization re-planned as on CUDA (the plug-in's
  worker applies it as vLLM's V1 does), a suggestion where the log prints no KV cache size (vl_1378); SGLang's NPU
  OOMs keep the refusal, with one line of what is missing (sg_911: an allocation larger than the free memory after
  the weights, which the fraction rule cannot give; sg_1026: neither the fraction nor the pre-load memory printed).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from explain_testlib import ROOT, log_bytes

from tpkit.errors import UnknownGpuError
from tpkit.explain import explain_log
from tpkit.hardware.catalog import list_gpus, lookup_gpu
from tpkit.hardware.npu import NpuNotPlannedError, list_npus, lookup_npu, npu_by_total
from tpkit.units import GiB

sys.path.insert(0, str(ROOT / "tests" / "explain"))
import test_explain_corpus as corpus  # noqa: E402

NPU_OOM = ("RuntimeError: NPU out of memory. Tried to allocate {req} GiB (NPU 0; {total} GiB total capacity; 54.10 GiB "
           "already allocated; 54.10 GiB current active; 4.64 GiB free; 54.27 GiB reserved in total by PyTorch)")


def _cuda_frames(text: str) -> str:
    return "\n".join(f"(Worker_TP0 pid=1) ERROR 10-10 11:32:51 [multiproc_executor.py:671] {line}" for line in (
        text, "Traceback (most recent call last):",
        '  File "/x/vllm_ascend/worker/worker_v1.py", line 254, in execute_model',
        "    output = self.model_runner.execute_model(scheduler_output,"))


def test_the_npu_catalog_is_sourced_and_apart_from_the_gpus():
    npus = list_npus()
    assert {n.name for n in npus} == {"Ascend-910B-64GB", "Ascend-A3-64GB"}
    for n in npus:
        assert n.device_kind == "NPU" and n.vendor == "Huawei" and n.hbm_gb == 64 and "memory only" in n.plans
        low, high = n.total_band_gib
        assert low <= n.total_bytes.bytes / 2**30 <= high and high - low < 0.03
        assert all("https://github.com/" in text for key, text in n.sources if key in ("hbm_gb", "total"))
    raw = json.loads((ROOT / "src/tpkit/hardware/data/npus.json").read_text())["npus"]
    assert all(not ({"bf16_dense_tflops", "nvlink_gbps_per_direction", "memory_bandwidth_tbps"} & set(r)) for r in raw)
    assert not any(g.vendor == "Huawei" for g in list_gpus())  # no GPU rule or sweep sees an NPU
    assert lookup_npu("atlas 800i a2").name == "Ascend-910B-64GB" and lookup_npu("H100") is None
    assert npu_by_total(GiB(60.96)).name == "Ascend-910B-64GB" and npu_by_total(GiB(61.27)).name == "Ascend-A3-64GB"
    assert npu_by_total(GiB(79.19)) is None


@pytest.mark.parametrize("name", ["Ascend-910B", "910B3", "Atlas 800 A3", "ascend a3"])
def test_lookup_gpu_refuses_an_npu_plainly(name):
    with pytest.raises(NpuNotPlannedError, match="does not plan an NPU run") as info:
        lookup_gpu(name)
    assert isinstance(info.value, UnknownGpuError) and "CUDA graphs" in str(info.value)


def test_tpkit_plan_on_an_npu_exits_2_without_a_traceback():
    run = subprocess.run([sys.executable, "-m", "tpkit", "plan", "--model", "Qwen/Qwen3-8B", "--gpu", "Ascend-910B"],
                         capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "src")}, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "Ascend-910B-64GB" in run.stderr and "does not plan an NPU run" in run.stderr


def test_tpkit_plan_from_an_npu_log_exits_2_unless_a_gpu_is_named():
    log = str(ROOT / "tests/logs/data/vllm/vl_1378.log")
    base = [sys.executable, "-m", "tpkit", "plan", "Qwen/Qwen3-8B", "--from-log", log]
    env = {"PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run(base, capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "ran on an Ascend NPU" in run.stderr and "Ascend-910B-64GB" in run.stderr
    run = subprocess.run(base + ["--gpu", "H100"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0 and "H100-SXM-80GB" in run.stdout  # the same run planned on a named GPU


def test_vl_1378_the_thread_utilization_lowered_by_the_shortfall_is_a_suggestion():
    d = explain_log(log_bytes("vl_1378"), flags=corpus.FLAGS_FOR["vl_1378"]).diagnosis
    assert d.phase == "first_request" and "Ascend-910B-64GB" in d.cause and "determine_available_memory" in d.cause
    assert [f.flags for f in d.fixes] == ["--gpu-memory-utilization 0.83"]  # 0.95 − 0.12 × 60.97 GiB ≥ 6.86 GiB
    assert not any(f.fits for f in d.fixes) and d.fixes[0].note.startswith("a suggestion, not shown to fit: ")
    assert "'Available memory: N, total memory: M'" in d.cause
    assert not any(w in f"{d.cause} {d.fixes[0].why}" for w in ("CUDA graph", "NCCL", "custom all-reduce"))


def test_a_shortfall_larger_than_the_utilization_leaves_nothing_offered():
    """u2 ≤ 0: 59 GiB short of a 60.97 GiB device at the default 0.90: no utilization fix."""
    d = explain_log(_cuda_frames(NPU_OOM.format(req="63.64", total="60.97")).encode()).diagnosis
    assert not any(f.flags.startswith("--gpu-memory-utilization") for f in d.fixes)


def test_sg_911_keeps_the_refusal_and_says_the_fraction_rule_did_not_size_the_pool():
    d = explain_log(log_bytes("sg_911")).diagnosis
    assert "tpkit does not plan this hardware" in d.cause and not d.fixes
    assert "Ascend-910B-64GB" in d.cause and "a lower fraction is not shown to help" in d.cause
    assert "missing: the pool's token count and cell" in d.cause


def test_sg_1026_keeps_the_refusal_and_names_what_is_missing():
    d = explain_log(log_bytes("sg_1026")).diagnosis
    assert "tpkit does not plan this hardware" in d.cause and not d.fixes
    assert "Ascend-A3-64GB" in d.cause and "neither the run's fraction nor its pre-load free memory" in d.cause


def _sglang_npu_log(head_lines: int) -> bytes:
    """sg_001's start-up (Llama-3.1-8B, mem_fraction_static=0.88, 'Load weight begin. avail mem=78.81 GB', a served
    request) cut at ``head_lines``, then sg_1026's torch_npu OOM and its run_batch traceback."""
    head = log_bytes("sg_001").decode().splitlines()[:head_lines]
    return "\n".join(head + log_bytes("sg_1026").decode().splitlines()[1:]).encode()


def test_an_sglang_npu_oom_while_serving_with_its_anchors_gets_the_fraction_fit():
    d = explain_log(_sglang_npu_log(27)).diagnosis
    assert d.phase == "first_request" and "tpkit does not plan this hardware" not in d.cause
    assert [f.flags for f in d.fixes] == ["--mem-fraction-static 0.87"]  # (67 MiB + MARGIN / 2) / 78.81 GB → 0.87
    assert d.fixes[0].fits and d.fixes[0].kv_tokens and "Ascend-A3-64GB" in d.cause


def test_an_sglang_npu_oom_outside_serving_keeps_the_refusal():
    """Cut before the server starts: an OOM the reader places at the pool step, not the pool's own allocation (no
    _create_buffers frame): the refusal names the step, not the pool-cell deduction."""
    d = explain_log(_sglang_npu_log(14)).diagnosis
    assert d.phase != "first_request" and not d.fixes and "tpkit does not plan this hardware" in d.cause
    assert "planned for an OOM while serving" in d.cause and "a lower fraction is not shown to help" not in d.cause


def test_the_three_ids_sit_where_this_round_put_them():
    assert set(corpus.UNPLANNED_HARDWARE) >= {"sg_911", "sg_1026"} and "vl_1378" in corpus.NOT_SHOWN
    assert "vl_1378" not in corpus.UNPLANNED_HARDWARE


def test_an_xpu_oom_keeps_its_old_refusal():
    d = explain_log(_cuda_frames(NPU_OOM.format(req="11.50", total="60.97").replace("NPU", "XPU")).encode()).diagnosis
    assert "Intel XPU" in d.cause and "tpkit does not plan this hardware" in d.cause and not d.fixes
