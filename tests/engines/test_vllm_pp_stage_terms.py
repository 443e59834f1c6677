"""What differs between vLLM's pipeline stages in the profile run (``engines.vllm.pp_stage``, helper pp18).

Only the last stage computes logits and runs the dummy sampler (V1 runner ``profile_run`` ``is_last_rank`` gate,
0.8.5 – 0.10.1 read; Model Runner V2 0.34.0; V0 ``execute_model``, 0.8.5); every later stage holds the received
hidden states and residual (V1 runner: built in the profile's ``_dummy_run``; Model Runner V2: built in
``load_model``, charged only under the ``consumed`` rule, ≥ 0.27).  Checked on the two PP logs that print per-stage
numbers: vp_761 (0.10.1.1 V1, 76.15 / 70.58 GiB available) and vp_323 (0.8.3 V0, activation 1.27 / 1.35 GiB)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm.pp_stage import holds_received, runs_sampler, v1_received_bytes, with_stage_phases
from tpkit.engines.vllm.profile import ActivationEstimate
from tpkit.memory.ledger import LineItem
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.validation import harness  # noqa: E402

GIB = 2**30


def _case(cid: str) -> dict:
    return next(c for c in harness.load_cases("vllm") if c["id"] == cid)


def _stages(cid: str):
    case = _case(cid)
    model, gpu, parallel, options = harness.inputs(case)
    plan = harness.get_engine("vllm").plan
    return [plan(model, gpu, replace(parallel, stage=s), options) for s in range(parallel.pp)]


def _activation(plan) -> float:
    return next(i.bytes.bytes for i in plan.ledger.items if i.item.startswith("activation peak")) / GIB


def test_vp_761_the_last_stage_binds_by_the_sampler():
    """vp_761 prints 76.15 GiB on the first stage's workers and 70.58 on the second's (same 7.3272 GiB of weights):
    5.57 GiB less on the stage that runs the 1,024-row sampler and holds the received tensors."""
    first, last = _stages("vp_761")
    a0, a1 = (p.extra["available_kv_bytes"] / GIB for p in (first, last))
    assert last.extra["kv_blocks"] < first.extra["kv_blocks"]
    assert a0 - a1 == pytest.approx(76.15 - 70.58, rel=0.15)
    assert a0 == pytest.approx(76.15, rel=0.03) and a1 == pytest.approx(70.58, rel=0.03)
    # the like-GPU plan (one composite rank) is the binding stage's own plan
    case = _case("vp_761")
    model, gpu, parallel, options = harness.inputs(case)
    assert harness.get_engine("vllm").plan(model, gpu, parallel, options).kv_tokens == last.kv_tokens


def test_vp_323_each_stage_its_own_activation_peak():
    """vp_323 (0.8.3 V0, DeepSeek-V2.5 tp 8 × pp 2) prints 'PyTorch activation peak memory takes 1.27GiB' on the
    driver (stage 0) and 1.35 GiB on a stage-1 worker: stage 0 has neither the sampler nor received tensors."""
    first, last = _stages("vp_323")
    assert _activation(first) == pytest.approx(1.27, rel=0.03)
    assert _activation(last) == pytest.approx(1.35, rel=0.03)
    assert last.extra["kv_blocks"] < first.extra["kv_blocks"]


def test_stage_gates():
    assert runs_sampler(ParallelSpec(pp=2)) and holds_received(ParallelSpec(pp=2))  # composite: the last stage
    assert not holds_received(ParallelSpec(pp=1)) and runs_sampler(ParallelSpec(pp=1))
    assert not runs_sampler(ParallelSpec(pp=3, stage=1)) and holds_received(ParallelSpec(pp=3, stage=1))
    assert not holds_received(ParallelSpec(pp=3, stage=0)) and runs_sampler(ParallelSpec(pp=3, stage=2))


def test_model_runner_v2_buffer_by_memory_rule():
    """Model Runner V2 builds the received tensors in load_model, after the init snapshot: charged from the release
    that counts total_consumed (0.27), not before (0.26); the V1 runner builds them inside the profile run."""
    kw = dict(tokens=8192, hidden_size=4096, act_bytes=2)
    assert v1_received_bytes(v2_runner=True, memory_rule="increase", **kw) == (0, "")
    assert v1_received_bytes(v2_runner=True, memory_rule="consumed", **kw)[0] == 2 * 8192 * 4096 * 2
    assert v1_received_bytes(v2_runner=False, memory_rule="increase", **kw)[0] == 2 * 8192 * 4096 * 2
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        v1_received_bytes(tokens=8192, hidden_size=0, act_bytes=2, v2_runner=False, memory_rule="increase")


@pytest.mark.parametrize("release, v2, charged", [("0.26.0", True, False), ("0.27.0", True, True),
                                                  ("0.26.0", False, True)])
def test_buffer_on_both_sides_of_the_consumed_boundary(release, v2, charged):
    from tpkit.engines.vllm.versions import resolve_rules

    rules = resolve_rules(release)
    parts = (LineItem(item="profile phase: MoE layer", bytes=Bytes(GIB), kind="info", source="x"),
             LineItem(item="profile phase: logits + sampler", bytes=Bytes(3 * GIB), kind="info", source="y"))
    act = ActivationEstimate(peak=Bytes(3 * GIB), parts=parts, limiting_phase="logits + sampler")
    kw = dict(engine="V1", tokens=16384, hidden_size=2048, act_bytes=2, v2_runner=v2, memory_rule=rules.memory_rule)
    buf = 2 * 16384 * 2048 * 2 if charged else 0
    last = with_stage_phases(act, ParallelSpec(pp=2, stage=1), **kw)
    assert last.peak.bytes == 3 * GIB + buf
    first = with_stage_phases(act, ParallelSpec(pp=2, stage=0), **kw)
    assert first.peak.bytes == GIB and first.limiting_phase == "MoE layer"


def test_vl_048_the_small_stage_without_the_sampler():
    """vl_048 (vLLM 0.15.2rc1, Qwen3-Coder-30B-A3B-FP8, VLLM_PP_LAYER_PARTITION=16,32 over an RTX 5070 Ti and an
    RTX 5090 D) prints the smallest worker's available KV cache memory, 3.18 GiB: the 5070 Ti's first stage, which
    runs no sampler (main planned 2.33 GiB with the 256-row sampler charged to it)."""
    from tpkit.cli import build_parser
    from tpkit.cli.plan import plan

    config = Path(__file__).resolve().parents[2] / "tests/logs/data/configs/Qwen__Qwen3-Coder-30B-A3B-Instruct-FP8"
    argv = ["plan", str(config), "--engine", "vllm", "--engine-version", "0.15.1", "--pp", "2",
            "--pp-layer-partition", "16,32", "--gpu", "RTX-5070-Ti,RTX-5090", "--max-model-len", "34736"]
    result = plan(build_parser(["plan"]).parse_args(argv))
    stage0 = next(w for w in result.warnings if w.startswith("PP stage 0 on RTX-5070-Ti"))
    avail = float(stage0.split("available KV cache memory ")[1].split(" GiB")[0])
    assert avail == pytest.approx(3.18, rel=0.05)
    assert "stage 0 on RTX-5070-Ti" in next(w for w in result.warnings if w.startswith("vLLM keeps the fewest"))
