"""vLLM 0.9.0–0.10.2: the Qwen2-VL / Qwen2.5-VL towers hold a copy of the batched dummy pixels
(``engines/vllm/encoder_qwen2vl_pixels.py``, helper vl14, 2026-12-05).

The V1 runner's ``MultiModalKwargs.batch`` gives ``pixel_values`` an item dimension (one item:
``unsqueeze(0)``); ``_validate_and_reshape_mm_tensor`` turns the 3-D tensor into ``torch.concat(list(...))``, a new
N·C·a tensor, in 0.9.0–0.10.2, and into a view (``reshape``) from 0.11.0.  For the 16,384-token dummy image:
N = 65,536 patches of C = 3·2·14² = 1,176 values in bf16, 0.14 GiB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.encoder_qwen2vl_pixels import PIXELS_COPIED_TO, copied_pixels
from tpkit.engines.vllm.encoder_qwen2vl_tower import qwen2_vl_live_set, qwen2_vl_tower
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
N, C = 65_536, 1_176
COPY = N * C * 2  # 154,140,672 B
PHASE = "profile phase: vision encoder (dummy items)"


def _model(stem: str):
    return from_config_dict(json.loads((CONFIGS / f"{stem}.json").read_text()), name=stem, source="test")


@pytest.mark.parametrize("release,copied", [((0, 9, 0), True), ((0, 9, 2), True), ((0, 10, 0), True),
                                            ((0, 10, 2), True), ((0, 11, 0), False), ((0, 11, 1), False),
                                            ((0, 13, 0), False)])
def test_copy_by_release(release, copied):
    assert PIXELS_COPIED_TO == (0, 11, 0)
    assert copied_pixels(release=release, n=N, channels=C, act_bytes=2) == (COPY if copied else 0)


@pytest.mark.parametrize("stem", ["Qwen--Qwen2-VL-2B-Instruct", "Qwen--Qwen2.5-VL-7B-Instruct"])
def test_held_set_has_the_pixels_twice_before_0_11(stem):
    """0.10.2 and 0.11.0 share the held rotary terms (fp32 angle table before 0.12): only the copy differs."""
    model = _model(stem)
    held = {}
    for release in ((0, 10, 2), (0, 11, 0)):
        tower = qwen2_vl_tower(model, release=release, enforce_eager=False)
        live = qwen2_vl_live_set(tower, release=release, tp=1, n=N, patches=N, act_bytes=2, enforce_eager=False)
        held[release] = live.held_bytes
        assert live.pixels_bytes == COPY and live.copied_bytes == (COPY if release < (0, 11, 0) else 0)
    assert held[(0, 10, 2)] - held[(0, 11, 0)] == COPY


def test_vp_470_plan_counts_the_copy():
    """vp_470's inputs (Qwen2.5-VL-7B, one L4, 0.9.2, max_model_len 2048): the tower's peak is the attention plus
    held pixels twice, rotary table and its cached copy (fp32, hd/2 = 40)."""
    options = VllmOptions(engine_version="0.9.2", max_model_len=2048)
    plan = plan_vllm(_model("Qwen--Qwen2.5-VL-7B-Instruct"), lookup_gpu("L4"), ParallelSpec(tp=1), options)
    line = next(li for li in plan.ledger.items if li.item == PHASE)
    d, hd = 1280, 80
    attention = N * 9 * d * 2 + N * d * 8 + N * hd * 4
    assert line.bytes.bytes == 2 * COPY + 2 * N * (hd // 2) * 4 + attention == 2_531_262_464
    assert "the model's copy" in line.source
    later = plan_vllm(_model("Qwen--Qwen2.5-VL-7B-Instruct"), lookup_gpu("L4"), ParallelSpec(tp=1),
                      VllmOptions(engine_version="0.11.0", max_model_len=2048))
    assert "the model's copy" not in next(li for li in later.ledger.items if li.item == PHASE).source
