"""Round sp32's two vLLM V1-runner facts of the speculative cycle (``perf.spec_sync``), each on both sides of its
release and hardware boundaries: a drafter that picks FLASHINFER on its own (target forced to another backend, an
fp8 KV cache, a GPU below SM 9.0, 0.21.0–0.32.x) sends the whole speculative engine to PIECEWISE graphs; a hybrid
model's accepted counts are copied with a blocking ``.cpu()`` before the drafter in 0.10.2–0.16.x, so the drafter's
launches are not queued behind the verify there."""

import dataclasses

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.runtime import runtime_for
from tpkit.perf.spec_sync import HYBRID_BLOCKING_COPY, drafter_forces_piecewise, hybrid_copy_blocks_drafter

SM86 = (8, 6)


def _forced(version, *, cc=SM86, kv_quantized=True, backend="TRITON_ATTN", algorithm="NEXTN"):
    return runtime_for("vllm", version, compute_capability=cc, mla=False, topk=1, algorithm=algorithm,
                       attention_backend=backend, head_dim=256, verify_tokens=3, hybrid=True,
                       kv_quantized=kv_quantized)


@pytest.mark.parametrize("version, piecewise", [
    ("0.20.0", False),      # the drafter shares the target's forced backend (eagle.py 0.20.0)
    ("0.21.0", True),       # _create_draft_vllm_config: the drafter autoselects → FLASHINFER with fp8 KV on SM 8.6
    ("0.26.0", True),       # V1 runner (a hybrid model in 0.26)
    ("0.28.0", True),       # the release of the public log (syv-ai/qwen38-27b-rtx3090#87)
    ("0.29.0", False),      # Model Runner V2 for every model: its speculators inherit the target's backend
])
def test_drafter_flashinfer_sends_the_engine_to_piecewise(version, piecewise):
    rt = _forced(version)
    assert (rt.verify_graph == "piecewise") is piecewise
    assert rt.target_graph == "full"                # the plain server keeps its FULL decode graphs
    assert any("drafter picks its own attention backend, FLASHINFER" in f for f in rt.facts) is piecewise


def test_the_drafters_own_backend_decides():
    assert _forced("0.26.0", kv_quantized=False).verify_graph == "full"     # own choice FLASH_ATTN (FA2): UNIFORM_BATCH
    assert _forced("0.26.0", cc=(9, 0)).verify_graph == "full"              # SM 9.0: FA3 takes fp8 KV, not FlashInfer
    assert _forced("0.26.0", algorithm=None).verify_graph == "full"         # no drafter
    rt = _forced("0.26.0", backend="FLASHINFER")                            # the target's own rule, not this one
    assert rt.verify_graph == "piecewise" and not any("drafter picks its own" in f for f in rt.facts)


@pytest.mark.parametrize("draft, cc, version, forced", [
    ("FLASHINFER", SM86, (0, 21, 0), True),
    ("FLASHINFER", SM86, (0, 32, 0), True),
    ("FLASHINFER", SM86, (0, 33, 0), False),        # FA2 native decode below SM 9.0: UNIFORM_BATCH
    ("FLASHINFER", (9, 0), (0, 26, 0), False),
    ("FLASH_ATTN", SM86, (0, 26, 0), False),
    ("", SM86, (0, 26, 0), False),                  # the drafter inherits the target's backend
])
def test_the_rule_at_its_boundaries(draft, cc, version, forced):
    assert drafter_forces_piecewise(draft, cc, version, "NEXTN") is forced


def _hybrid(version, hybrid=True, algorithm="NEXTN"):
    return runtime_for("vllm", version, compute_capability=(9, 0), mla=False, topk=1, algorithm=algorithm,
                       head_dim=256, hybrid=hybrid)


@pytest.mark.parametrize("version, queued", [("0.11.0", False), ("0.11.1", False), ("0.16.0", False),
                                             ("0.17.0", True), ("0.19.0", True)])
def test_hybrid_blocking_copy_window(version, queued):
    assert _hybrid(version).drafter_queued is queued
    assert any("blocking .cpu()" in f for f in _hybrid(version).facts) is ((0, 10, 2) <= tuple(
        int(p) for p in version.split(".")) < (0, 17, 0))


@pytest.mark.parametrize("version", ["0.11.1", "0.14.0", "0.16.0"])
def test_a_non_hybrid_model_keeps_its_queued_drafter(version):
    assert _hybrid(version, hybrid=False).drafter_queued is True
    assert not any("blocking .cpu()" in f for f in _hybrid(version, hybrid=False).facts)


def test_the_window_is_the_one_read():
    assert HYBRID_BLOCKING_COPY == ((0, 10, 2), (0, 17, 0))
    assert hybrid_copy_blocks_drafter((0, 16, 0), "MTP", hybrid=True, runner_v2=False)
    assert not hybrid_copy_blocks_drafter((0, 16, 0), "MTP", hybrid=True, runner_v2=True)
    assert not hybrid_copy_blocks_drafter((0, 16, 0), None, hybrid=True, runner_v2=False)
    assert not hybrid_copy_blocks_drafter((0, 17, 0), "MTP", hybrid=True, runner_v2=False)


def _cycle(version, batch):
    model = load_model("tests/validation/configs/Qwen--Qwen3.5-4B.json")
    # without the config's mamba_ssm_dtype both releases keep the GDN state in bf16 (perf.gdn_state: 0.16.0 has no
    # Qwen3.5 hook, 0.17.0 reads the field), so only the drafter's sync differs between them (helper ws36a)
    model = dataclasses.replace(model, extra={k: v for k, v in model.extra.items() if k != "mamba_ssm_dtype"})
    return plan_perf(PerfRequest(model=model, gpu=lookup_gpu("H100"), tp=1, batch=batch, context=1024, engine="vllm",
                                 engine_version=version, accept_length=2.3,
                                 spec=SpecSettings(algorithm="NEXTN", num_steps=3, topk=1,
                                                   num_draft_tokens=4))).speculative


@pytest.mark.parametrize("batch", [1, 32])
def test_a_synced_drafter_never_makes_the_cycle_shorter(batch):
    """Qwen3.5-4B MTP 3/1/4 on one H100: 0.16.0 (blocking copy) against 0.17.0 (queued drafter).  The blocking copy
    can only add the drafter's launches that were hidden behind the verify; here the draft steps' GPU work (about
    0.6 ms each) is above their launches (15 loop ops + lm_head / argmax before 0.18), so the cycle is the same."""
    synced, queued = _cycle("0.16.0", batch), _cycle("0.17.0", batch)
    assert synced.cycle_us >= queued.cycle_us - 1e-6
    assert synced.cycle_us == pytest.approx(queued.cycle_us, rel=1e-9)


def test_the_window_opens_at_0_10_2():
    """The lower side of ``HYBRID_BLOCKING_COPY`` (helper rev32: only the 0.16 / 0.17 side was tested)."""
    assert not hybrid_copy_blocks_drafter((0, 10, 1), "MTP", hybrid=True, runner_v2=False)
    assert hybrid_copy_blocks_drafter((0, 10, 2), "MTP", hybrid=True, runner_v2=False)
