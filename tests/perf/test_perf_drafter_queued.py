"""vLLM launches the EAGLE drafter with no blocking CPU operation after the verify from 0.11.1 (helper be11,
2026-12-05; ``perf.runtime_vllm.DRAFTER_QUEUED``): its launches (before 0.18 the proposer loop's eager ops and the
draft's lm_head / argmax / EAGLE-3 remap) are issued while the GPU still runs the verify, so they do not lengthen
the draft steps.  In 0.11.0 the ``input_fits_in_drafter`` gate reads the GPU tensor ``seq_lens`` (a device sync),
and up to 0.10.x the drafter runs after ``_bookkeeping_sync``: there a launch-bound draft step still waits."""

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.forward import ForwardTime
from tpkit.perf.forward import queued_behind
from tpkit.perf.runtime import runtime_for

GOSS = load_model("openai/gpt-oss-120b")
E3 = SpecSettings(algorithm="EAGLE3", num_steps=6, topk=1, num_draft_tokens=7)


def _rt(version, algorithm="EAGLE3"):
    return runtime_for("vllm", version, compute_capability=(9, 0), mla=False, topk=1, algorithm=algorithm,
                       architecture="GptOssForCausalLM", moe=True)


@pytest.mark.parametrize("version, queued", [("0.10.2", False), ("0.11.0", False), ("0.11.1", True),
                                             ("0.17.1", True), ("0.20.0", True)])
def test_release_boundary(version, queued):
    assert _rt(version).drafter_queued is queued
    assert _rt(version, algorithm=None).drafter_queued is False          # plain decoding: no drafter


def _parts(version):
    req = PerfRequest(model=GOSS, gpu=lookup_gpu("H100"), engine="vllm", engine_version=version, batch=8,
                      context=8192, spec=E3, kv_cache_dtype="fp8")
    return dict(plan_perf(req).speculative.parts_us)


def test_launch_bound_draft_steps_hide_behind_the_verify_from_0_11_1():
    # aimo_goss row 165 (vLLM 0.17.1): 5 loop steps × (15 ops + lm_head, argmax, 4 remap kernels) launched from Python
    queued, synced = _parts("0.17.1"), _parts("0.11.0")
    assert queued["draft launch-bound (in steps)"] == pytest.approx(0.0, abs=1e-6)
    assert synced["draft launch-bound (in steps)"] > 1000.0                       # µs: each small step waits
    assert queued["draft steps"] < synced["draft steps"] - 1000.0


def _fw(gpu, host):
    return ForwardTime(compute_us=gpu, allreduce_us=0.0, by_kind_us=(), weight_like_bytes=0.0, kernels=1,
                       host_us=host)


def test_queued_behind():
    verify = _fw(1000.0, 0.0)
    steps = [_fw(50.0, 300.0)] * 3
    assert queued_behind(verify, steps) == pytest.approx(150.0)        # 900 µs of launches inside the 1 ms verify
    long = [_fw(50.0, 600.0)] * 3                                        # 1.8 ms of launches: the last 0.8 ms shows
    assert queued_behind(verify, long) == pytest.approx(800.0)
    idle = _fw(0.0, 0.0)                                                 # nothing ahead: the per-pass max(g, h)
    assert queued_behind(idle, steps) == pytest.approx(sum(max(f.gpu_us, f.host_us) for f in steps))
