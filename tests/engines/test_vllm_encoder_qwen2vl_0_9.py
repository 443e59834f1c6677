"""vLLM 0.9.0–0.9.2's Qwen2-VL / Qwen2.5-VL encoder profile (helper q29; ``engines/vllm/encoder_qwen2vl.py``).

Read in the 0.8.5, 0.9.0, 0.9.1, 0.9.2 and 0.10.0 wheels: the towers, custom-op defaults and the encoder budget of
0.9.0–0.9.2 are 0.10.0's; ``v1/worker/gpu_model_runner.py`` ``profile_run`` differs twice:

- items = ``cdiv(encoder_budget, t)`` (0.10.0: ``encoder_budget // t``, at least 1), both capped at
  max_num_seqs × the per-prompt limit;
- the dummy is built with ``seq_len = self.max_num_tokens`` (max_num_batched_tokens; 0.10.0: t), so a dummy video
  holds only the frames max_num_batched_tokens allows (as 0.10.1–0.10.2's ``_get_mm_dummy_batch``).

0.8.5 runs the same ``profile_run`` but its Qwen2.5-VL tower builds the rotary table per call: not modelled.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.encoder import all_limits_zero, encoder_profile, not_modelled
from tpkit.engines.vllm.encoder_budget import items_per_batch, items_per_batch_cdiv
from tpkit.engines.vllm.encoder_qwen2vl import qwen2_vl_dummy
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
QWEN2_VL = "Qwen--Qwen2-VL-2B-Instruct"
QWEN25_VL = "Qwen--Qwen2.5-VL-7B-Instruct"
PHASE = "profile phase: vision encoder (dummy items)"
IMAGE = 16_384  # merged tokens of the dummy image (max_pixels 12,845,056 = 3,584² px)


def _model(stem: str):
    return from_config_dict(json.loads((CONFIGS / f"{stem}.json").read_text()), name=stem, source="test")


def _enc(stem: str, release, *, mml: int = 4096, mnbt: int = 2048, seqs: int = 256, limits=None):
    return encoder_profile(_model(stem), release=release, engine="V1", tp=1, max_num_batched_tokens=mnbt,
                           max_num_seqs=seqs, max_model_len=mml, act_bytes=2, v2_runner=False, limits=limits)


def _dummy(release, mml: int, mnbt: int):
    return qwen2_vl_dummy(_model(QWEN2_VL).extra["vision_config"], release=release, max_model_len=mml,
                          max_num_batched_tokens=mnbt)


def test_cdiv_against_floor_by_hand():
    # a 40,000-token batch over 16,384-token images: 0.9.x runs ceil(40,000 / 16,384) = 3, 0.10.0 floor = 2
    assert items_per_batch_cdiv(IMAGE, max_num_batched_tokens=40_000, max_num_seqs=256) == 3
    assert items_per_batch((0, 10, 0), IMAGE, max_num_batched_tokens=40_000, max_num_seqs=256,
                           max_model_len=4096) == 2
    # an exact multiple agrees; both are capped by max_num_seqs × limit
    assert items_per_batch_cdiv(IMAGE, max_num_batched_tokens=2 * IMAGE, max_num_seqs=256) == 2
    assert items_per_batch_cdiv(IMAGE, max_num_batched_tokens=40_000, max_num_seqs=2, limit=1) == 2


@pytest.mark.parametrize("release,items", [((0, 9, 0), 3), ((0, 9, 1), 3), ((0, 9, 2), 3), ((0, 10, 0), 2)])
def test_items_boundary_at_0_10_0(release, items):
    enc, why = _enc(QWEN25_VL, release, mnbt=40_000)
    assert why == "" and enc.modality == "image" and enc.items == items and enc.tokens_per_item == IMAGE


def test_dummy_video_built_from_the_batch_in_0_9_x():
    # max_model_len 49,152: the video (two temporal patches, one image's tokens taken off seq_len) is the dummy
    for release in ((0, 9, 0), (0, 9, 2), (0, 10, 0)):
        d = _dummy(release, 49_152, 2048)
        assert (d.modality, d.tokens) == ("video", 2 * IMAGE)
    # 0.9.x encodes the frames max_num_batched_tokens (2,048) allows: one temporal patch; 0.10.0 encodes t
    assert _dummy((0, 9, 2), 49_152, 2048).encoded_tokens == IMAGE
    assert _dummy((0, 9, 0), 49_152, 2048).encoded_tokens == IMAGE
    assert _dummy((0, 10, 0), 49_152, 2048).encoded_tokens == 2 * IMAGE
    assert _dummy((0, 10, 1), 49_152, 2048).encoded_tokens == IMAGE
    # a batch of 32,768 tokens holds both temporal patches in 0.9.x too
    assert _dummy((0, 9, 2), 49_152, 32_768).encoded_tokens == 2 * IMAGE


def test_0_9_2_image_profile_is_0_10_0s_where_the_two_differences_vanish():
    # one image, budget = t: cdiv and floor both give 1, and the image does not depend on seq_len
    new, _ = _enc(QWEN25_VL, (0, 10, 0))
    old, why = _enc(QWEN25_VL, (0, 9, 2))
    assert why == "" and old.items == new.items == 1
    assert (old.peak, old.kept) == (new.peak, new.kept)


@pytest.mark.parametrize("release,modelled", [((0, 8, 5), False), ((0, 9, 0), True), ((0, 9, 2), True)])
def test_first_release_read_is_0_9_0(release, modelled):
    for stem in (QWEN2_VL, QWEN25_VL):
        why = not_modelled(_model(stem), release=release, engine="V1")
        assert (why == "") is modelled
        if not modelled:
            assert "0.9.0–0.31.0" in why
    assert not_modelled(_model(QWEN25_VL), release=(0, 9, 2), engine="V0") != ""


@pytest.mark.parametrize("release,zero", [((0, 8, 5), False), ((0, 9, 0), True), ((0, 9, 2), True)])
def test_every_modality_at_zero_runs_no_encoder_pass_from_0_9_0(release, zero):
    limits = {"image": 0, "video": 0}
    assert all_limits_zero(_model(QWEN25_VL), limits, release) is zero
    assert all_limits_zero(_model(QWEN25_VL), {"image": 0}, release) is False


def _plan(version: str):
    options = VllmOptions(engine_version=version, gpu_memory_utilization=0.8, max_model_len=4096,
                          max_num_batched_tokens=2048)
    return plan_vllm(_model(QWEN2_VL), lookup_gpu("RTX-PRO-6000"), ParallelSpec(tp=1), options)


def test_plan_charges_the_pass_from_0_9_0_and_warns_for_0_8_5():
    for version in ("0.9.0", "0.9.2"):
        plan = _plan(version)
        line = next(li for li in plan.ledger.items if li.item == PHASE)
        assert line.bytes.bytes == 2_835_349_504  # 0.10.2's Qwen2-VL-2B figure (the same tower, one image)
        assert not any("vision encoder" in w for w in plan.warnings)
    old = _plan("0.8.5")
    assert not any(li.item == PHASE for li in old.ledger.items)
    assert any("vision encoder" in w and "0.9.0–0.31.0" in w for w in old.warnings)
