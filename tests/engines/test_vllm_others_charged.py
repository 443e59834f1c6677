"""Which vLLM releases charge the memory other processes hold on the GPU at start to the KV budget (helper o19c,
2026-12-05, session 19; docs/accuracy.md §2 "The vLLM 0.7–0.9 budget formulas read again").

Read in the wheels (not copied):

- V1 0.7.3 / 0.8.4 / 0.8.5 / 0.9.0 ``v1/worker/gpu_worker.py determine_available_memory``: after the profile run and
  ``torch.cuda.empty_cache()``, non-torch memory = (total − free) − torch's allocated bytes, added to torch's
  allocated peak; available = total × utilisation − that.  total − free counts every process on the GPU, so what
  others hold is charged 1:1.  No start-up free-memory check (``init_device`` keeps ``init_gpu_memory`` for an
  assert only).
- V1 0.9.1 / 0.9.2: ``memory_profiling(self.init_snapshot, …)``; available = requested_memory (total × utilisation)
  − (weights + torch peak increase + non-torch increase since the init snapshot); others are outside, and
  ``init_device`` refuses to start when the init snapshot's free memory is below requested_memory.
- V0 0.6.5–0.8.x ``worker/worker.py determine_num_available_blocks``: ``memory_profiling(self.baseline_snapshot,
  …)`` with the baseline taken in ``init_device`` after ``set_device`` / ``empty_cache`` (0.7.3 and 0.8.5 wheels):
  others and the CUDA context are outside.  0.6.4 charges total − free − torch allocated (module docstring of
  ``engines/vllm/versions.py``).

``tpkit plan --machine FILE`` carries the others' memory (``used_by_others_bytes`` of a ``tpkit probe`` profile)."""

from __future__ import annotations

import pytest

from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.hardware.profile_io import profile_from_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))


def _machine(others: int):
    total = H200.total_bytes.bytes
    return profile_from_dict({"profile_version": 1, "hostname": "o19c", "gpus": [
        {"index": 0, "name": H200.name, "total_bytes": total, "free_bytes": total - others,
         "used_by_this_process_bytes": 0, "used_by_others_bytes": others}]}, where="o19c test")


def _plan(version: str, others: int = 0):
    return plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version=version), weights=W,
                     machine=_machine(others) if others else None)


@pytest.mark.parametrize("version, charged", [
    ("0.6.3", False), ("0.6.4", True), ("0.6.5", False),  # V0: init_device baseline, 0.6.4 total − free
    ("0.7.3", False), ("0.7.3:v1", True),  # the same release, V0 and V1
    ("0.8.0", True), ("0.8.4", True), ("0.8.5", True), ("0.8.5:v0", False),
    ("0.9.0", True), ("0.9.1", False), ("0.9.2", False),  # V1 moves to memory_profiling in 0.9.1
])
def test_memory_held_by_other_processes_is_charged_one_to_one_where_the_release_measures_total_minus_free(
        version, charged):
    others = 3 << 30
    alone = _plan(version).extra["available_kv_bytes"]
    shared = _plan(version, others).extra["available_kv_bytes"]
    assert alone - shared == (others if charged else 0)


@pytest.mark.parametrize("version, starts", [("0.8.5", True), ("0.9.0", True), ("0.9.1", False), ("0.9.2", False)])
def test_v1_before_0_9_1_has_no_start_up_free_memory_check(version, starts):
    """With others holding 20 GiB of an H200 the free memory (119.2 GiB) is below total × 0.9 (125.8 GiB): 0.8.5 /
    0.9.0 start with a smaller pool, 0.9.1 / 0.9.2 refuse ('Free memory on device … is less than desired GPU memory
    utilization')."""
    result = _plan(version, 20 << 30)
    assert result.verdict.fits is starts
    if not starts:
        assert "less than desired GPU memory utilization" in result.verdict.message


@pytest.mark.parametrize("case_id", ["vp_627", "vp_628", "vp_629", "vp_630", "vp_738"])
def test_the_0_8_5_cases_with_an_unstated_co_tenant_say_why_and_how_to_give_it(case_id):
    """vp_627–vp_630 (a shared 'GPU 7') and vp_738 (WSL2) keep their miss: the reason names the 0.8.5 formula and the
    flag that carries the others' memory (``scripts/build_validation_set.py`` ``O19C_OFF``)."""
    import json
    from pathlib import Path

    cases = json.loads((Path(__file__).resolve().parents[1] / "validation" / "cases" / "vllm.json").read_text())
    cases = {c["id"]: c for c in (cases if isinstance(cases, list) else cases["cases"])}
    why = cases[case_id].get("why_off") or ""
    assert "determine_available_memory" in why and "(total - free)" in why and "--machine FILE" in why
