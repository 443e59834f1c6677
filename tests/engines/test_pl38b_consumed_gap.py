"""vLLM 0.28.0's "consumed memory (weights + non-torch)" on Qwen3.5-0.8B vs Qwen3.8-27B (helper pl38b, 2026-12-08).

vLLM 0.27.0+ (``utils/mem_utils.py memory_profiling``, read in the 0.28.0 wheel) charges ``total_consumed`` = the
worker's init-snapshot free memory − the free memory after ``profile_run`` (``torch.accelerator.get_memory_info``,
device-wide), and prints it as 'Actual usage is N GiB for consumed memory (weights + non-torch)'
(``v1/worker/gpu_worker.py``).  The study report behind vp_1154–vp_1156 (Lebhoryi/vllm-sglang-learning 92168892,
one A100 80GB PCIe, vLLM 0.28.0) prints 4.18 GiB for the 0.8B API server (docs/01D, serve log line 56) and
51.61 GiB for the 27B offline start (week-1 report §5.2).  tpkit's consumed-side lines cover the 27B to
~0.4 GiB and leave ~2.4 GiB of the 0.8B unexplained: no 0.28.0 source line read by pl38b allocates that for the
small model only (docs/accuracy.md §6, round pl38b).  These tests pin the open gap and the rule it sits in, so a
term added for it has to move them on purpose."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "validation"))

from tests.validation import harness  # noqa: E402
from tpkit.engines.registry import get_engine  # noqa: E402
from tpkit.engines.vllm.versions import rules_for  # noqa: E402

GIB = 2**30
CONSUMED_ITEMS = ("model weights", "rotary cos/sin cache", "weight tensors: caching-allocator rounding",
                  "V1 runner inputs_embeds buffer (counted as consumed)", "cuBLAS/cuBLASLt handles",
                  "non-torch growth during profiling")
"""the plan's lines that vLLM ≥ 0.27 counts in total_consumed on these runs (load delta, runner buffer, handles)"""
PRINTED_CONSUMED_GIB = {"vp_1156": 4.18, "vp_1155": 51.61}
"""'Actual usage is 4.18 GiB for consumed memory (weights + non-torch)' (docs/01D-走读日志对照卡.md, serve log L56);
'权重+非 torch 占用 51.61 GiB' (Week1 report §5.2, the 27B offline log)"""


def _planned_consumed(case_id: str) -> float:
    case = {c["id"]: c for c in harness.load_cases("vllm")}[case_id]
    model, gpu, parallel, options = harness.inputs(case)
    plan = get_engine("vllm").plan(model, gpu, parallel, options)
    return sum(it.bytes.bytes for it in plan.ledger.items if it.item in CONSUMED_ITEMS) / GIB


def test_release_charges_total_consumed():
    assert rules_for((0, 28, 0)).memory_rule == "consumed"
    assert rules_for((0, 26, 0)).memory_rule == "increase"


@pytest.mark.parametrize(("case_id", "low", "high"), [("vp_1156", 2.2, 2.6), ("vp_1155", 0.2, 0.5)])
def test_consumed_gap_is_the_small_models(case_id, low, high):
    gap = PRINTED_CONSUMED_GIB[case_id] - _planned_consumed(case_id)
    assert low <= gap <= high, f"{case_id}: printed − planned consumed = {gap:.2f} GiB"
