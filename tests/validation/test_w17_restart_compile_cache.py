"""Case facts of helper w17 (2026-12-05, session 17; docs/accuracy.md §6.4, "vp_728 / vp_729: warm restarts"):

vp_724-vp_729 are one research run log's vLLM 0.28.0 starts on RTX 3090s (search-index file id 61952410282; the
serve command from code/m3_baseline.py, id 62024007355).  vLLM 0.28.0 keys its torch.compile cache by
``VllmConfig.compute_hash`` (``config/vllm.py``: ``ModelConfig`` takes max_model_len, ``CacheConfig`` the KV cache
dtype, ``SchedulerConfig`` max_num_batched_tokens, ``CompilationConfig`` the capture sizes; gpu_memory_utilization
and ``KVTransferConfig`` add nothing) and the env factors (``envs.compile_factors``: VLLM_CACHE_ROOT and
CUDA_VISIBLE_DEVICES ignored), in ``VLLM_CACHE_ROOT/torch_compile_cache/<hash>`` (``compilation/backends.py``
``VllmBackend.__call__``; the AOT artifact in ``torch_aot_compile/<hash>``, ``compilation/decorators.py``).  The
Milestone 3 serial pass (vp_728 / vp_729) restarted the commands the parallel pass had compiled before it under the
project's one VLLM_CACHE_ROOT: warm (``compile_cache`` "warm", a post-blind case input).  M1's starts at 8,192
(vp_724-vp_727) were the first of their hashes: cold, the default.

The log prints both pools of one command, which max_model_len (the source's own reading) cannot explain: Qwen's
full_gpu at 66,592 read 106,512 in the parallel pass and 121,072 in the serial one, and the M2 precision-tier run's
repeated starts of one command printed fp8 83,312 / 96,272 and int4 156,832 / 181,216; every pair is one 0.79 GiB
step, the step Llama shows between 41,648 and 48,128.

None is a release rule: each pin fails when the fact is taken out.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

import harness

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "logs" / "data" / "vllm"
GIB = 2**30
KIB = 2**10


def _case(cid: str) -> dict:
    return next(c for c in harness.load_cases("vllm") if c["id"] == cid)


def _public_notes(cid: str) -> str:
    """The case's full note (cases/vllm.json keeps a clipped copy)."""
    public = json.loads((ROOT / "tests" / "validation" / "data_public" / "vllm_cases.json").read_text())
    return next(c for c in public if c["id"] == cid)["notes"]


@pytest.mark.parametrize("cid, blind_error", [("vp_728", -0.136), ("vp_729", -0.125)])
def test_the_serial_restarts_are_warm_and_score_near_their_print(cid, blind_error):
    case = _case(cid)
    assert case["flags"]["compile_cache"] == "warm"
    assert "parallel 時 KV pool 讀到 106,512、serial 時 121,072" in _public_notes(cid)
    row = harness.predict(case)
    assert abs(row.error) < 0.01 and row.inside  # -0.6 % / -0.8 %
    cold = copy.deepcopy(case)
    del cold["flags"]["compile_cache"]  # the blind input: a first start
    before = harness.predict(cold)
    assert abs(before.error - blind_error) < 0.002 and not before.inside


@pytest.mark.parametrize("cid", ["vp_724", "vp_725", "vp_726", "vp_727"])
def test_the_first_starts_stay_cold(cid):
    """M1's starts are the first of their hashes: the warm input is not a blanket setting of this source."""
    case = _case(cid)
    assert "compile_cache" not in case["flags"]
    assert "Compile cache cold (helper w17" in _public_notes(cid)
    row = harness.predict(case)
    assert abs(row.error) < 0.01 and row.inside
    warm = copy.deepcopy(case)
    warm["flags"]["compile_cache"] = "warm"
    assert harness.predict(warm).error > 0.12  # +12.8 to +14.9 %


def test_the_printed_pairs_of_one_command_are_one_step():
    """The log's cold / warm pairs, in GiB at each run's bytes per token (the source's own KiB/token: Llama 128, its
    fp8 64, its int4_per_token_head 34.02; Qwen 56): one step of 0.78-0.80 GiB whatever the KV dtype."""
    pairs = {"llama bf16 (M1 vs M3 serial)": (41_648, 48_128, 128.0),
             "qwen bf16 at 66,592 (parallel vs serial)": (106_512, 121_072, 56.0),
             "llama fp8 (one M2 command)": (83_312, 96_272, 64.0),
             "llama int4_per_token_head (one M2 command)": (156_832, 181_216, 34.02)}
    steps = {k: (warm - cold) * per_token * KIB / GIB for k, (cold, warm, per_token) in pairs.items()}
    assert all(0.77 < s < 0.80 for s in steps.values()), steps
    assert max(steps.values()) - min(steps.values()) < 0.015


def test_the_warm_plan_of_the_fp8_command_lands_on_its_second_pool():
    """tpkit's warm plan of the fp8 command (vp_725's flags; the plan does not move with max_model_len here) is
    within 1 % of the 96,272 the M2 restarts printed, as its cold plan is of M1's 83,312."""
    warm = copy.deepcopy(_case("vp_725"))
    warm["flags"]["compile_cache"] = "warm"
    predicted = harness.predict(warm).predicted
    assert abs(predicted / 96_272 - 1) < 0.01
    assert abs(harness.predict(_case("vp_725")).predicted / 83_312 - 1) < 0.01


def _compile_seconds(text: str) -> float | None:
    m = re.search(r"torch\.compile t(?:akes|ook) (\d+\.\d+) s in total", text)
    return float(m.group(1)) if m else None


def test_the_compile_total_does_not_tell_warm_from_cold():
    """Why explain reads only the cache lines (logs.settings._COMPILE_CACHE_LINES), not "torch.compile takes X s in
    total": over the corpus the warm totals (a 'Directly load' line, no compile line) and the cold ones overlap, and
    vl_918's 9.61 s (vp_723's table) falls inside the overlap."""
    warm, cold = [], []
    for path in sorted(LOGS.glob("*.log")):
        text = path.read_text(errors="replace")
        seconds = _compile_seconds(text)
        if seconds is None:
            continue
        if re.search(r"Compiling a graph for |Cache the graph (?:of|for) ", text):
            cold.append(seconds)
        elif "Directly load" in text:
            warm.append(seconds)
    assert len(warm) >= 25 and len(cold) >= 50
    overlap = (min(cold), max(warm))
    assert overlap[0] < overlap[1]  # 9.85 s cold, 37.24 s warm
    assert overlap[0] - 0.5 < _compile_seconds((LOGS / "vl_918.log").read_text()) < overlap[1]
