"""The release default of ``gpu_memory_utilization`` that a case records (helper ac33, 2026-12-07, session 33).

vLLM's ``CacheConfig.gpu_memory_utilization`` (vllm/config/cache.py) defaults to 0.9 in every wheel read up to 0.19.1
and to ``Field(default=0.92)`` from 0.20.0 through 0.33.0 (0.20.0, 0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.25.1, 0.26.0,
0.29.0 and 0.33.0 wheels); v1/worker/utils.py ``request_memory`` takes ``ceil(total × gpu_memory_utilization)``.  Round
bl33's A40 starts (vp_1090-vp_1099, a 0.25.1 build) were entered at "the default 0.9" and came in 0.02 × 44.34 GiB =
0.89 GiB short of KV memory whatever the model; six more cases of 0.20+ releases carried the same slip.  A case that
says it runs at the release's default must carry that release's figure (or none, which the planner resolves).
"""
import json
import re
from pathlib import Path

import pytest

from tpkit.engines.vllm.versions import rules_for

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "validation" / "data_public" / "vllm_cases.json"
BUILT = ROOT / "tests" / "validation" / "cases" / "vllm.json"


def _release(text: str | None) -> tuple[int, int, int] | None:
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(g or 0) for g in m.groups()) if m else None


def _default_cases():
    for case in json.loads(CASES.read_text()):
        release = _release(case.get("engine_version"))
        if release and case.get("mem_fraction_is_default") and (0, 4, 0) <= release < (0, 34, 0):
            yield case, release


def test_a_default_case_carries_its_releases_default_on_both_sides_of_0_20():
    wrong = [(c["id"], c["engine_version"], c["gpu_memory_utilization"]) for c, release in _default_cases()
             if c["gpu_memory_utilization"] not in (None, rules_for(release).default_utilization)]
    assert wrong == []
    seen = {rules_for(r).default_utilization for c, r in _default_cases() if c["gpu_memory_utilization"] is not None}
    assert seen == {0.9, 0.92}  # both sides of the 0.20.0 boundary are exercised


@pytest.mark.parametrize("release, default", [((0, 19, 1), 0.9), ((0, 20, 0), 0.92), ((0, 25, 1), 0.92),
                                              ((0, 33, 0), 0.92)])
def test_the_rules_default_matches_the_wheels(release, default):
    assert rules_for(release).default_utilization == default


def test_the_a40_starts_run_at_0_92_and_the_multi_gpu_ones_without_nccl_p2p():
    built = {c["id"]: c for c in json.loads(BUILT.read_text())}
    for i in range(1090, 1100):
        flags = built[f"vp_{i}"]["flags"]
        assert flags["gpu_memory_utilization"] == 0.92
        # report/appendix/C_environment.md: NCCL_P2P_DISABLE=1 with --disable-custom-all-reduce (printed) for multi-GPU
        assert flags.get("no_p2p", False) == bool(flags.get("disable_custom_all_reduce")) == (i >= 1096)
