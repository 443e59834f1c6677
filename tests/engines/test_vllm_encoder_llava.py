"""vLLM 0.10.2–0.29.0's LLaVA-1.5 / LLaVA-NeXT encoder profile (``engines/vllm/encoder_llava.py``, helper q2n),
hand-computed from the wheels.

- The dummy image: LLaVA-1.5 one 336² crop, 24² = 576 tokens (``default`` drops the class token); LLaVA-NeXT the
  pinpoint with the most tokens, 672 × 672: 576 + 48 × 48 + 48 = 2,928 tokens from 1 + 2 × 2 = 5 crops
  (``get_image_size_with_most_features``, ``get_num_image_tokens``, ``_get_num_unpadded_features``).
- The CLIP tower (23 layers for ``vision_feature_layer`` −2): pixels + the held embeddings N·d + the MLP
  N·(3d + 3i/tp)·a (native QuickGELU; 2i with ``--enforce-eager``), N = crops × 577.
- Kept: the outputs items × t × H × a and the V1 runner's pixels; 0.11.x widens each to the encoder budget,
  0.12.x only below t (never for LLaVA), 0.13.0 on nothing.
- vl_031 (llava-v1.6-mistral-7b-hf, vLLM 0.10.2, --max-num-batched-tokens 16384) prints "profiled with 5 image
  items" and a 16,384-token budget.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.encoder import encoder_profile, not_modelled, supported_modalities
from tpkit.engines.vllm.encoder_llava import llava_dummy, select_best_resolution
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

ROOT = Path(__file__).resolve().parents[1]
NEXT = ROOT / "validation" / "configs" / "llava-hf--llava-v1.6-mistral-7b-hf.json"  # vl_031's config
LLAVA15 = ROOT / "engines" / "data_vllm_issue11" / "llava-hf--llava-1.5-7b-hf.json"
PHASE = "profile phase: vision encoder (dummy items)"
PIXELS_PER_CROP = 3 * 336 * 336


def _model(path: Path, **extra):
    model = from_config_dict(json.loads(path.read_text()), name=path.stem, source="test")
    return replace(model, extra={**model.extra, **extra}) if extra else model


def _enc(path: Path, release, *, tp: int = 1, mnbt: int = 16384, mml: int = 4096, eager: bool = False, **extra):
    return encoder_profile(_model(path, **extra), release=release, engine="V1", tp=tp,
                           max_num_batched_tokens=mnbt, max_num_seqs=1024, max_model_len=mml, act_bytes=2,
                           v2_runner=False, enforce_eager=eager)


def test_dummy_items():
    nxt = llava_dummy(_model(NEXT))
    assert (nxt.tokens, nxt.crops, nxt.base) == (576 + 48 * 48 + 48, 5, 576) == (2928, 5, 576)
    one = llava_dummy(_model(LLAVA15))
    assert (one.tokens, one.crops, one.base) == (576, 1, 576)
    assert llava_dummy(_model(LLAVA15, vision_feature_select_strategy="full")).tokens == 577
    # the 3 × 1 pinpoints give fewer tokens: 576 + 72 × 24 + 72 = 2,376 and 576 + 24 × 72 + 24 = 2,328
    tall = llava_dummy(_model(NEXT, image_grid_pinpoints=[[1008, 336], [336, 1008]]))
    assert (tall.tokens, tall.crops) == (2376, 4)
    assert supported_modalities(_model(NEXT)) == supported_modalities(_model(LLAVA15)) == ("image",)


def test_select_best_resolution_keeps_transformers_order():
    pins = [(336, 672), (672, 336), (672, 672), (1008, 336), (336, 1008)]
    assert select_best_resolution((672, 672), pins) == (672, 672)
    assert select_best_resolution((336, 672), pins) == (336, 672)  # (672, 672) holds it too but wastes more
    assert select_best_resolution((1008, 336), pins) == (1008, 336)


def test_llava_next_0_10_2_by_hand():
    enc, why = _enc(NEXT, (0, 10, 2))
    assert why == "" and (enc.items, enc.modality, enc.tokens_per_item) == (5, "image", 2928)  # vl_031 prints 5
    n, d, i, big_h = 25 * 577, 1024, 4096, 4096
    pixels = 25 * PIXELS_PER_CROP * 2
    assert enc.peak.bytes == pixels + n * d * 2 + n * (3 * d + 3 * i) * 2 == 489_612_800
    assert enc.kept.bytes == 5 * 2928 * big_h * 2 + pixels == 136_865_280
    assert "tower MLP" in enc.formula and "23 layers" in enc.formula
    eager, _ = _enc(NEXT, (0, 10, 2), eager=True)  # QuickGELU's CUDA kernel: one output
    assert eager.peak.bytes == pixels + n * d * 2 + n * (3 * d + 2 * i) * 2


def test_llava_15_and_tp():
    enc, _ = _enc(LLAVA15, (0, 10, 2), mnbt=8192)
    # t 576: 8,192 // 576 = 14 items; per prompt 4,096 // 576 = 7, × 1,024 seqs
    assert (enc.items, enc.tokens_per_item) == (14, 576)
    n, d, i = 14 * 577, 1024, 4096
    pixels = 14 * PIXELS_PER_CROP * 2
    assert enc.peak.bytes == pixels + n * d * 2 + n * (3 * d + 3 * i) * 2
    assert enc.kept.bytes == 14 * 576 * 4096 * 2 + pixels
    two, _ = _enc(LLAVA15, (0, 10, 2), mnbt=8192, tp=2)
    assert two.peak.bytes == pixels + n * d * 2 + n * (3 * d + 3 * i // 2) * 2
    assert two.kept == enc.kept


def test_0_11_0_widens_the_outputs_to_the_budget():
    old, new = _enc(NEXT, (0, 10, 2))[0], _enc(NEXT, (0, 11, 0))[0]
    pixels, big_h = 25 * PIXELS_PER_CROP * 2, 4096
    # five (16,384, H) zero tensors; the loop variable keeps the last merged output (one image's t·H)
    assert new.kept.bytes == 5 * 16384 * big_h * 2 + 2928 * big_h * 2 + pixels
    assert new.peak.bytes == max(old.peak.bytes, pixels + 5 * 2928 * big_h * 2 + 5 * 16384 * big_h * 2)
    one = _enc(LLAVA15, (0, 11, 0), mnbt=8192)[0]
    # LLaVA-1.5's outputs are views of one projector output: the loop variable keeps all of it
    assert one.kept.bytes == 14 * 8192 * 4096 * 2 + 14 * 576 * 4096 * 2 + 14 * PIXELS_PER_CROP * 2
    # no widening when the item fills the budget
    assert _enc(LLAVA15, (0, 11, 0), mnbt=576)[0].kept == _enc(LLAVA15, (0, 10, 2), mnbt=576)[0].kept


@pytest.mark.parametrize("release,modelled", [((0, 9, 2), False), ((0, 10, 1), False), ((0, 10, 2), True),
                                              ((0, 11, 0), True), ((0, 11, 2), True), ((0, 12, 0), True),
                                              ((0, 22, 0), True), ((0, 29, 0), True), ((0, 30, 0), False),
                                              ((0, 33, 0), False)])
def test_release_range_read(release, modelled):
    for path in (NEXT, LLAVA15):
        why = not_modelled(_model(path), release=release, engine="V1")
        assert (why == "") is modelled
        if not modelled:
            assert "0.10.2–0.29.0" in why


def test_what_is_not_modelled_says_why():
    r = (0, 10, 2)
    siglip = _model(LLAVA15, vision_config={**_model(LLAVA15).extra["vision_config"], "model_type": "siglip_vision_model"})
    assert "CLIP tower only" in not_modelled(siglip, release=r, engine="V1")
    assert "several vision feature layers" in not_modelled(_model(LLAVA15, vision_feature_layer=[-2, -5]),
                                                           release=r, engine="V1")
    assert "'full'" in not_modelled(_model(NEXT, vision_feature_select_strategy="full"), release=r, engine="V1")
    assert not_modelled(_model(LLAVA15, vision_feature_select_strategy="full"), release=r, engine="V1") == ""


def _plan(version: str, **flags):
    options = VllmOptions(engine_version=version, **{"gpu_memory_utilization": 0.9, "max_model_len": 4096,
                                                     "max_num_batched_tokens": 16384, "dtype": "float16", **flags})
    return plan_vllm(_model(NEXT), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=1), options)


def test_plan_charges_the_pass_and_keeps_the_warning_outside_the_range():
    line = next(li for li in _plan("0.10.2").ledger.items if li.item == PHASE)
    assert line.bytes.bytes == 489_612_800 and "5 image item(s)" in line.source
    assert not any("vision encoder" in w for w in _plan("0.10.2").warnings)
    assert not any("vision encoder" in w for w in _plan("0.11.0").warnings)
    late = _plan("0.30.0")
    assert not any(li.item == PHASE for li in late.ledger.items)
    assert any("vision encoder" in w and "0.10.2–0.29.0" in w for w in late.warnings)
    assert not any(li.item == PHASE for li in _plan("0.10.2", skip_mm_profiling=True).ledger.items)


def test_widening_by_release():
    # 0.11.x widens to the budget (0.11.2 as 0.11.0); 0.12.x only below t (LLaVA's rows are t); 0.13.0 on nothing
    base = _enc(NEXT, (0, 10, 2))[0]
    assert _enc(NEXT, (0, 11, 2))[0] == _enc(NEXT, (0, 11, 0))[0] != base
    for release in ((0, 12, 0), (0, 13, 0), (0, 22, 0), (0, 27, 1), (0, 29, 0)):
        enc = _enc(NEXT, release)[0]
        assert (enc.peak, enc.kept, enc.items) == (base.peak, base.kept, base.items)


def test_model_runner_v2():
    kw = dict(engine="V1", tp=1, max_num_batched_tokens=16384, max_num_seqs=1024, max_model_len=4096, act_bytes=2)
    # V2 runs no encoder profile before 0.27.0; from 0.27.0 it does, and frees the dummy batch with the call
    assert encoder_profile(_model(NEXT), release=(0, 26, 0), v2_runner=True, **kw) == (None, "")
    v1 = encoder_profile(_model(NEXT), release=(0, 27, 0), v2_runner=False, **kw)[0]
    v2 = encoder_profile(_model(NEXT), release=(0, 27, 0), v2_runner=True, **kw)[0]
    assert v2.peak == v1.peak and v1.kept.bytes - v2.kept.bytes == 25 * PIXELS_PER_CROP * 2
    # the default runner of this dense model is V2 from 0.25.0: no term in 0.25–0.26, the V2 term from 0.27
    assert not any(li.item == PHASE for li in _plan("0.25.1").ledger.items)
    assert not any("vision encoder" in w for w in _plan("0.25.1").warnings)
    assert next(li for li in _plan("0.29.0").ledger.items if li.item == PHASE).bytes == v2.peak
