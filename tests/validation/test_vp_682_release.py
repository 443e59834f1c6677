"""vp_682 (Mistral-7B-Instruct-v0.2 on one RTX A5000, the image ghcr.io/mistralai/mistral-src/vllm:latest) is vLLM git
main of mid-December 2023, after PR #2031, scored as 0.2.5 (helper old03, 2026-12-05, session 16).

The image's deploy/Dockerfile (mistralai/mistral-src b46d6de, 2023-12-13 20:08 UTC) installs vLLM from git main; the
log's ``llm_engine.py:222`` and its config fields without ``enforce_eager`` place that main before #1926 (CUDA graphs,
merged 2023-12-17 05:12 UTC) and so after #2031 (merged 2023-12-13 06:01 UTC), whose ``worker.py
profile_num_available_blocks`` reads total − free after the profile instead of ``torch.cuda.max_memory_allocated``
(0.2.4 wheel: the allocated peak; 0.2.5 wheel: total − free).  Scored as 0.2.4 (bl15) the plan gave +21.1 %."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402


def _case() -> dict:
    return next(c for c in harness.load_cases("vllm") if c["id"] == "vp_682")


def test_release_and_basis():
    case = _case()
    assert case["tpkit_engine_version"] == "0.2.5"
    basis = case["engine_version_basis"]
    for fact in ("b46d6de", "#2031", "#1926", "llm_engine.py:222"):
        assert fact in basis


def test_both_sides_of_the_profile_change():
    """0.2.4 (max_memory_allocated: no context, cuBLAS or cached segments in the peak) and 0.2.5 (total − free:
    all three) on the case's own inputs; the printed 1,730 blocks lie within 1 % of the 0.2.5 plan only.  Helper gh18
    (2026-12-05): the case now plans on the catalog's RTX-A5000 (64 SMs: the CUDA context from the SM model, 318 MiB
    instead of ampere-consumer's one-sample 360 MiB), 0.2.5 1,718 -> 1,739 blocks."""
    case = _case()
    rows = {}
    for version in ("0.2.4", "0.2.5"):
        c = copy.deepcopy(case)
        c["tpkit_engine_version"] = version
        rows[version] = harness.predict(c)
    assert rows["0.2.4"].predicted == 2095
    assert rows["0.2.5"].predicted == 1740  # 1,739 before sg_720 joined the cross-family context line (lead, session 37)
    assert abs(rows["0.2.5"].error) < 0.01 < abs(rows["0.2.4"].error)
