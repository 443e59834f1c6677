"""vLLM 0.10.0–0.31.0's Qwen2-VL / Qwen2.5-VL encoder profile (``engines/vllm/encoder_qwen2vl.py``, with the dummy
item in ``encoder_qwen2vl_dummy.py`` and the towers' live set in ``encoder_qwen2vl_tower.py``), hand-computed from
the wheels.

- The image: ``smart_resize`` of a 9,999,999² image under the released processor's max_pixels 12,845,056 gives
  3,584² px, 128 × 128 = 16,384 merged tokens, 65,536 patches of 14 × 14 (``qwen2_vl.py``
  ``get_image_size_with_most_features``, 0.10.0–0.10.2).
- The video: frames of that size as max_model_len allows, two frames per temporal patch, at most 16.  0.10.0 and
  0.10.1 leave one image's tokens out of max_model_len (``get_num_frames_with_most_features``); 0.10.2 does not.
  0.10.0 encodes a video of t tokens (``profile_run``); 0.10.1–0.10.2 build it from max_num_batched_tokens
  (``_get_mm_dummy_batch``).
- The live set: attention N·(2d + 7d/tp)·a + the fp32 rotation N·(d/tp)·8 + cos/sin N·hd·4; MLP per tower and
  release (QuickGELU native 3i or CUDA 2i; Qwen2.5-VL 4d + 4i native from 0.10.1, 3d + 3i eager, 4d + 3i in
  0.10.0); held pixels and the rotary table (twice for Qwen2.5-VL).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.encoder import encoder_profile, not_modelled
from tpkit.engines.vllm.encoder_qwen2vl import QWEN2_VL_PROCESSOR, qwen2_vl_dummy
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
QWEN2_VL = "Qwen--Qwen2-VL-2B-Instruct"  # vp_083: embed_dim 1280, 16 heads, mlp_ratio 4, merger to 1536
QWEN25_VL = "Qwen--Qwen2.5-VL-7B-Instruct"  # width 1280, 16 heads, intermediate 3420, out 3584
N = 65_536  # patches of the 16,384-token image
PHASE = "profile phase: vision encoder (dummy items)"


def _model(stem: str):
    return from_config_dict(json.loads((CONFIGS / f"{stem}.json").read_text()), name=stem, source="test")


def _enc(stem: str, release, *, tp: int = 1, mml: int = 4096, mnbt: int = 2048, eager: bool = False):
    return encoder_profile(_model(stem), release=release, engine="V1", tp=tp, max_num_batched_tokens=mnbt,
                           max_num_seqs=256, max_model_len=mml, act_bytes=2, v2_runner=False, enforce_eager=eager)


def _dummy(release, mml: int, mnbt: int = 2048):
    return qwen2_vl_dummy(_model(QWEN2_VL).extra["vision_config"], release=release, max_model_len=mml,
                          max_num_batched_tokens=mnbt)


def test_flat_qwen2_vl_configs_have_a_vision_encoder():
    for stem in (QWEN2_VL, QWEN25_VL):
        model = _model(stem)
        assert model.is_multimodal  # no text_config, but a vision_config beside the text fields (lead, 2026-12-04)


def test_dummy_image_is_the_released_max_pixels():
    assert QWEN2_VL_PROCESSOR["max_pixels"] == 3584 * 3584
    d = _dummy((0, 10, 2), 4096)
    assert (d.modality, d.tokens, d.encoded_tokens, d.patches) == ("image", 16384, 16384, N)


def test_video_overtakes_the_image_0_10_2_from_two_groups():
    # 0.10.2: frames fit in max_model_len; 4 frames = 2 temporal patches = 32,768 tokens > the image
    assert _dummy((0, 10, 2), 32767).modality == "image"
    d = _dummy((0, 10, 2), 32768)
    assert (d.modality, d.tokens) == ("video", 32768)
    # the encoded video is built from max_num_batched_tokens (2,048): one frame, one temporal patch
    assert (d.encoded_tokens, d.patches) == (16384, N)
    assert _dummy((0, 10, 2), 32768, mnbt=32768).encoded_tokens == 32768
    # the 16-frame cap: 8 temporal patches at most
    assert _dummy((0, 10, 2), 1_000_000).tokens == 8 * 16384


def test_video_leaves_one_image_out_before_0_10_2():
    # 0.10.0–0.10.1: seq_len − 16,384 for the frames, so the video needs 3 × 16,384
    assert _dummy((0, 10, 1), 32768).modality == "image"
    assert _dummy((0, 10, 1), 49151).modality == "image"
    assert (_dummy((0, 10, 1), 49152).modality, _dummy((0, 10, 1), 49152).tokens) == ("video", 32768)
    # 0.10.0 encodes the video of t tokens; 0.10.1 the one max_num_batched_tokens allows
    assert _dummy((0, 10, 0), 49152).encoded_tokens == 32768
    assert _dummy((0, 10, 1), 49152).encoded_tokens == 16384


def test_qwen2_vl_peak_by_hand_native_and_eager():
    enc, why = _enc(QWEN2_VL, (0, 10, 2))
    assert why == "" and enc.modality == "image" and enc.items == 1 and enc.tokens_per_item == 16384
    d, i, hd = 1280, 5120, 80
    # pixels (3·2·14²) in bf16 twice (the runner's batch and the model's torch.concat copy, 0.9.0–0.10.2:
    # helper vl14), the fp32 rotary table
    held = 2 * N * 1176 * 2 + N * (hd // 2) * 4
    attention = N * 9 * d * 2 + N * d * 8 + N * hd * 4  # 2d + 7d in bf16, the fp32 copy and output, cos/sin
    mlp_native = N * (3 * d + 3 * i) * 2
    assert mlp_native > attention
    assert enc.peak.bytes == held + mlp_native == 2_835_349_504  # 2.64 GiB (vp_083 prints 2.65 GiB)
    assert enc.kept.bytes == 16384 * 1536 * 2 + N * 1176 * 2  # outputs + the V1 runner's dummy pixels
    eager, _ = _enc(QWEN2_VL, (0, 10, 2), eager=True)
    assert N * (3 * d + 2 * i) * 2 < attention
    assert eager.peak.bytes == held + attention


def test_qwen25_vl_mlp_by_release():
    d, i, hd = 1280, 3420, 80
    # the pixels twice (helper vl14), the lru-cached rotary table and its torch.cat copy
    held = 2 * N * 1176 * 2 + 2 * N * (hd // 2) * 4
    attention = N * 9 * d * 2 + N * d * 8 + N * hd * 4
    fused = _enc(QWEN25_VL, (0, 10, 1))[0]
    assert fused.peak.bytes == held + N * (4 * d + 4 * i) * 2  # native RMSNorm + SiluAndMul: MLP
    split = _enc(QWEN25_VL, (0, 10, 0))[0]
    assert N * (4 * d + 3 * i) * 2 < attention and split.peak.bytes == held + attention
    eager = _enc(QWEN25_VL, (0, 10, 2), eager=True)[0]
    assert N * (3 * d + 3 * i) * 2 < attention and eager.peak.bytes == held + attention
    assert fused.kept.bytes == 16384 * 3584 * 2 + N * (hd // 2) * 4 + N * 1176 * 2


def test_tp_gathers_qkv_and_shards_the_rest():
    d, i, hd = 1280, 5120, 80
    two = _enc(QWEN2_VL, (0, 10, 2), tp=2)[0]
    attention = N * (2 * d + 7 * d // 2) * 2 + N * (d // 2) * 8 + N * hd * 4 + N * 3 * d * 2
    assert attention > N * (3 * d + 3 * i // 2) * 2
    assert two.peak.bytes == 2 * N * 1176 * 2 + N * (hd // 2) * 4 + attention


@pytest.mark.parametrize("release,modelled", [((0, 8, 5), False), ((0, 9, 0), True), ((0, 9, 2), True),
                                              ((0, 10, 0), True), ((0, 10, 2), True),
                                              ((0, 11, 0), True), ((0, 11, 1), True), ((0, 11, 2), True),
                                              ((0, 12, 0), True), ((0, 13, 0), True), ((0, 14, 0), True),
                                              ((0, 14, 1), True), ((0, 15, 0), True), ((0, 15, 1), True),
                                              ((0, 16, 0), True), ((0, 19, 0), True), ((0, 20, 2), True),
                                              ((0, 21, 0), True), ((0, 22, 1), True), ((0, 23, 0), True),
                                              ((0, 26, 0), True), ((0, 27, 0), True), ((0, 27, 1), True),
                                              ((0, 28, 0), True), ((0, 29, 0), True), ((0, 30, 0), True),
                                              ((0, 31, 0), True), ((0, 32, 0), False), ((0, 33, 0), False)])
def test_release_range_read(release, modelled):
    model = _model(QWEN25_VL)
    why = not_modelled(model, release=release, engine="V1")
    assert (why == "") is modelled
    if not modelled:
        assert "0.9.0–0.31.0" in why and "0.32 and later" in why
    assert not_modelled(model, release=(0, 10, 2), engine="V0") != ""


def _plan(version: str, **flags):
    options = VllmOptions(engine_version=version, **{"gpu_memory_utilization": 0.8, "max_model_len": 4096,
                                                     "max_num_batched_tokens": 2048, **flags})
    return plan_vllm(_model(QWEN2_VL), lookup_gpu("RTX-PRO-6000"), ParallelSpec(tp=1), options)


def test_plan_charges_the_pass_to_0_31_0_and_warns_from_0_32():
    new, old = _plan("0.10.2"), _plan("0.32.0")
    assert next(li for li in _plan("0.11.2").ledger.items if li.item == PHASE).bytes.bytes == 3_037_724_672
    eleven = next(li for li in _plan("0.11.0").ledger.items if li.item == PHASE)
    assert eleven.bytes.bytes == 3_541_041_152 and "q‖k" in eleven.source
    line = next(li for li in new.ledger.items if li.item == PHASE)
    assert line.bytes.bytes == 2_835_349_504 and "QuickGELU native" in line.source  # + the pixel copy (vl14)
    assert not any("vision encoder" in w for w in new.warnings)
    assert not any(li.item == PHASE for li in old.ledger.items)
    assert any("vision encoder" in w and "0.9.0–0.31.0" in w for w in old.warnings)
    twelve = next(li for li in _plan("0.12.0").ledger.items if li.item == PHASE)
    assert twelve.bytes.bytes == 2_681_208_832 and "activation dtype" in twelve.source
    assert not any("vision encoder" in w for w in _plan("0.12.0").warnings)
    thirteen = next(li for li in _plan("0.13.0").ledger.items if li.item == PHASE)
    assert thirteen.bytes.bytes == 2_681_208_832 and not any("vision encoder" in w for w in _plan("0.13.0").warnings)
    skipped = _plan("0.10.2", skip_mm_profiling=True)
    assert not any(li.item == PHASE for li in skipped.ledger.items)
    assert not any("vision encoder" in w for w in skipped.warnings)
    eager = _plan("0.10.2", enforce_eager=True)
    assert "QuickGELU CUDA kernel" in next(li for li in eager.ledger.items if li.item == PHASE).source


# vLLM 0.11.0 (helper q2vl): ``_MAX_FRAMES_PER_VIDEO = 14``, the frame search starts at 1, the dummy video is built
# from max_model_len (so the encoded video is t), q and k are rotated concatenated, and ``profile_run`` widens each
# cached output to the encoder budget when the item is smaller than it.

def test_0_11_0_video_caps_at_14_frames_and_encodes_t():
    assert _dummy((0, 11, 0), 32767).modality == "image"
    d = _dummy((0, 11, 0), 32768)  # 4 frames = 2 temporal patches, no image taken off (as 0.10.2)
    assert (d.modality, d.tokens, d.encoded_tokens, d.patches) == ("video", 32768, 32768, 2 * N)
    assert _dummy((0, 11, 0), 1_000_000).tokens == 7 * 16384  # 14 frames (0.10.2: 16 frames, 8 patches)
    assert _dummy((0, 10, 2), 1_000_000).tokens == 8 * 16384
    assert _dummy((0, 11, 0), 1_000_000).encoded_tokens == 7 * 16384  # not the 2,048-token batch


def test_0_11_0_rotates_q_and_k_together():
    d, i, hd = 1280, 5120, 80
    held = N * 1176 * 2 + N * (hd // 2) * 4
    # input + norm (2d), qkv (3d), contiguous q/k/v (3d), q‖k (2d), its cast back (2d): 2d + 10d in bf16;
    # the fp32 copy and output of q‖k (2 × 2d × 4 B); cos/sin fp32
    attention = N * 12 * d * 2 + N * 2 * d * 8 + N * hd * 4
    assert attention > N * (3 * d + 3 * i) * 2  # the attention now beats Qwen2-VL's native MLP
    enc = _enc(QWEN2_VL, (0, 11, 0))[0]
    assert enc.peak.bytes == held + attention == 3_541_041_152
    assert enc.peak.bytes > _enc(QWEN2_VL, (0, 10, 2))[0].peak.bytes
    assert enc.kept.bytes == 16384 * 1536 * 2 + N * 1176 * 2
    d25, i25 = 1280, 3420
    assert N * (4 * d25 + 4 * i25) * 2 < attention
    assert _enc(QWEN25_VL, (0, 11, 0))[0].peak.bytes == N * 1176 * 2 + 2 * N * (hd // 2) * 4 + attention


def test_0_11_0_widens_kept_outputs_to_the_budget():
    # budget 32,768 > t 16,384: two image items, each output copied into a 32,768-row buffer; the split storage
    # stays referenced; 0.10.2 keeps only the outputs
    wide = _enc(QWEN2_VL, (0, 11, 0), mnbt=32768)[0]
    assert wide.items == 2
    assert wide.kept.bytes == 2 * 16384 * 1536 * 2 + 2 * 32768 * 1536 * 2 + 2 * N * 1176 * 2
    old = _enc(QWEN2_VL, (0, 10, 2), mnbt=32768)[0]
    assert old.items == 2 and old.kept.bytes == 2 * 16384 * 1536 * 2 + 2 * N * 1176 * 2
    same = _enc(QWEN2_VL, (0, 11, 0), mnbt=16384)[0]  # budget = t: nothing widened
    assert same.kept.bytes == 16384 * 1536 * 2 + N * 1176 * 2


# vLLM 0.11.1–0.11.2 (helper q2vl): q/k/v stay views of qkv; q‖k is copied once (Qwen2.5-VL ``qk_reshaped``,
# Qwen2-VL ``torch.cat``), rotated in fp32 and cast back; Qwen2.5-VL's QKVParallelLinear needs no all-gather.

@pytest.mark.parametrize("release", [(0, 11, 1), (0, 11, 2)])
def test_0_11_1_copies_q_and_k_once(release):
    d, i, hd = 1280, 5120, 80
    attention = N * 9 * d * 2 + N * 2 * d * 8 + N * hd * 4  # 2d + 3d qkv + 2d q‖k + 2d cast; fp32 2 × 2d × 4 B
    assert attention > N * (3 * d + 3 * i) * 2
    assert _enc(QWEN2_VL, release)[0].peak.bytes == N * 1176 * 2 + N * (hd // 2) * 4 + attention == 3_037_724_672
    assert _enc(QWEN25_VL, release)[0].peak.bytes == N * 1176 * 2 + 2 * N * (hd // 2) * 4 + attention
    assert _enc(QWEN2_VL, (0, 11, 0))[0].peak.bytes - 3_037_724_672 == N * 3 * d * 2  # the contiguous q/k/v
    assert _dummy(release, 1_000_000).tokens == 7 * 16384
    assert _enc(QWEN2_VL, release, mnbt=32768)[0].kept.bytes == _enc(QWEN2_VL, (0, 11, 0), mnbt=32768)[0].kept.bytes


def test_0_11_1_tp2_gathers_for_neither_tower():
    # helper q3vl: 0.11.1 and 0.11.2 ``Qwen2VisionAttention.split_qkv`` is only ``chunk`` + ``view`` (no
    # ``tensor_model_parallel_all_gather``, which 0.11.0 still calls)
    hd = 80
    base = N * (2 * 1280 + 7 * 640) * 2 + N * 2 * 640 * 8 + N * hd * 4
    assert N * (4 * 1280 + 4 * 1710) * 2 < base  # Qwen2.5-VL native MLP (i 3420 / 2)
    assert N * (3 * 1280 + 8 * 640) * 2 < base  # after the kernel: below the rotation at tp = 2
    assert _enc(QWEN25_VL, (0, 11, 1), tp=2)[0].peak.bytes == N * 1176 * 2 + 2 * N * (hd // 2) * 4 + base
    assert N * (3 * 1280 + 3 * 2560) * 2 < base  # Qwen2-VL native QuickGELU (i 5120 / 2)
    assert _enc(QWEN2_VL, (0, 11, 1), tp=2)[0].peak.bytes == N * 1176 * 2 + N * (hd // 2) * 4 + base
    # 0.11.0 still all-gathers for both towers (split_qkv)
    old = N * (2 * 1280 + 10 * 640) * 2 + N * 2 * 640 * 8 + N * hd * 4 + N * 3 * 1280 * 2
    assert _enc(QWEN25_VL, (0, 11, 0), tp=2)[0].peak.bytes == N * 1176 * 2 + 2 * N * (hd // 2) * 4 + old


# vLLM 0.12.0 (helper q3vl): q‖k rotated in bf16 (flash-attn Triton ``apply_rotary``, no fp32 copy); cos and sin,
# hd/2 wide each, indexed once per tower from ``get_rope``'s model-dtype ``cos_sin_cache``; Qwen2.5-VL's
# ``get_rope_by_thw`` lru-caches one grid's pair; ``profile_run`` widens only outputs shorter than t (never here).

def test_0_12_0_qwen2_vl_rotates_in_bf16():
    d, i, hd = 1280, 5120, 80
    held = N * 1176 * 2 + N * hd * 2  # pixels; cos + sin in bf16 (N·hd/2·2 B each)
    attention = N * (3 * d + 8 * d) * 2  # input, norm, qkv 3d, q‖k 2d, rotated 2d, output d, projection d
    mlp = N * (3 * d + 3 * i) * 2  # native QuickGELU, as 0.10.2–0.11.2
    assert mlp > attention > N * (2 * d + 7 * d) * 2  # after the kernel beats the rotation; the MLP beats both
    enc, why = _enc(QWEN2_VL, (0, 12, 0))
    assert why == "" and enc.peak.bytes == held + mlp == 2_681_208_832  # N·hd·2 = the old N·(hd/2)·4
    assert enc.peak.bytes < _enc(QWEN2_VL, (0, 11, 2))[0].peak.bytes == 3_037_724_672
    eager = _enc(QWEN2_VL, (0, 12, 0), eager=True)[0]  # CUDA QuickGELU: 3d + 2i < 3d + 8d
    assert eager.peak.bytes == held + attention
    two = _enc(QWEN2_VL, (0, 12, 0), tp=2)[0]  # no all-gather
    assert two.peak.bytes == held + max(N * (3 * d + 8 * 640) * 2, N * (3 * d + 3 * 2560) * 2)


def test_0_12_0_qwen25_vl_table_cached_per_grid():
    d, i, hd = 1280, 3420, 80
    enc = _enc(QWEN25_VL, (0, 12, 0))[0]
    mlp = N * (4 * d + 4 * i) * 2
    assert mlp > N * 11 * d * 2
    assert enc.peak.bytes == N * 1176 * 2 + N * hd * 2 + N * hd * 2 + mlp  # the cat copy and the cached pair
    assert enc.kept.bytes == 16384 * 3584 * 2 + N * hd * 2 + N * 1176 * 2
    # two items (budget 32,768): the cat copy doubles, the lru-cached pair is one grid's
    two = _enc(QWEN25_VL, (0, 12, 0), mnbt=32768)[0]
    assert two.items == 2
    assert two.peak.bytes == 2 * N * 1176 * 2 + 2 * N * hd * 2 + N * hd * 2 + 2 * mlp
    assert two.kept.bytes == 2 * 16384 * 3584 * 2 + N * hd * 2 + 2 * N * 1176 * 2
    old = _enc(QWEN25_VL, (0, 11, 2), mnbt=32768)[0]  # same per-grid cache rule before 0.12, fp32 angles
    assert old.kept.bytes - 2 * N * 1176 * 2 == 2 * 16384 * 3584 * 2 + 2 * 32768 * 3584 * 2 + N * (hd // 2) * 4


def test_0_12_0_keeps_outputs_unwidened():
    # 0.11.x widened each output to the 32,768-token budget; 0.12.0 widens only below t, and the dummy is t
    wide = _enc(QWEN2_VL, (0, 11, 2), mnbt=32768)[0]
    now = _enc(QWEN2_VL, (0, 12, 0), mnbt=32768)[0]
    assert now.items == 2 and now.kept.bytes == 2 * 16384 * 1536 * 2 + 2 * N * 1176 * 2
    assert wide.kept.bytes - now.kept.bytes == 2 * 32768 * 1536 * 2
    assert _dummy((0, 12, 0), 1_000_000).tokens == _dummy((0, 12, 0), 1_000_000).encoded_tokens == 7 * 16384


# vLLM 0.13.0 (helper q3vl): ``ApplyRotaryEmb`` / ``MMEncoderAttention`` keep 0.12.0's live set; Qwen2-VL's
# ``split_qkv`` all-gathers again when tp > 1; the dummy image factorises max_pixels // (patch × merge)².

def test_0_13_0_matches_0_12_0_at_tp1():
    for stem in (QWEN2_VL, QWEN25_VL):
        for mnbt in (2048, 32768):
            a, b = _enc(stem, (0, 12, 0), mnbt=mnbt)[0], _enc(stem, (0, 13, 0), mnbt=mnbt)[0]
            assert (a.peak, a.kept, a.items) == (b.peak, b.kept, b.items)
    assert _enc(QWEN2_VL, (0, 13, 0), eager=True)[0].peak.bytes == N * 1176 * 2 + N * 80 * 2 + N * 11 * 1280 * 2


def test_0_13_0_qwen2_vl_gathers_again_at_tp2():
    d, hd = 1280, 80
    held = N * 1176 * 2 + N * hd * 2
    attention = N * (3 * d + 8 * 640) * 2 + N * 3 * d * 2  # + the gathered qkv, of which q, k, v are views
    attention += N * d * 2  # + proj's out-of-place all-reduce output at tp > 1 (helper pcie15, encoder_qwen2vl_tower.reduced_copy_bytes)
    assert attention > N * (3 * d + 3 * 2560) * 2
    assert _enc(QWEN2_VL, (0, 13, 0), tp=2)[0].peak.bytes == held + attention
    assert _enc(QWEN2_VL, (0, 12, 0), tp=2)[0].peak.bytes == held + N * (3 * d + 3 * 2560) * 2  # MLP, no gather
    # Qwen2.5-VL's QKVParallelLinear: no gather in either release
    assert _enc(QWEN25_VL, (0, 13, 0), tp=2)[0].peak == _enc(QWEN25_VL, (0, 12, 0), tp=2)[0].peak


def test_0_13_0_image_is_factorised():
    vc = {**_model(QWEN2_VL).extra["vision_config"], "patch_size": 12}  # unit 24: 12,845,056 // 576 = 22,300
    old = qwen2_vl_dummy(vc, release=(0, 12, 0), max_model_len=4096, max_num_batched_tokens=2048)
    new = qwen2_vl_dummy(vc, release=(0, 13, 0), max_model_len=4096, max_num_batched_tokens=2048)
    assert old.tokens == 149 * 149 == 22_201  # smart_resize: floor(3,584 / 24) = 149 per edge
    assert new.tokens == 100 * 223 == 22_300 and new.patches == 4 * 22_300  # 22,300 = 2² · 5² · 223
    assert _dummy((0, 13, 0), 4096).tokens == 16384 and _dummy((0, 13, 0), 1_000_000).tokens == 7 * 16384


# vLLM 0.14.0–0.14.1 (helper q25): the towers, attention wrappers, rotary, custom ops, budget and ``profile_run``
# keep 0.13.0's live set and dummy.  0.15.0–0.15.1: ``SiluAndMul`` runs its native forward under ``torch.compile``
# (``compile_native``), so the Qwen2.5-VL MLP under Inductor is N·(4d + 3i/tp)·a; Qwen2-VL (QuickGELU) unchanged.

def test_0_14_matches_0_13_0():
    for stem in (QWEN2_VL, QWEN25_VL):
        for tp, mnbt, eager in ((1, 2048, False), (2, 2048, False), (1, 32768, False), (1, 2048, True)):
            a = _enc(stem, (0, 13, 0), tp=tp, mnbt=mnbt, eager=eager)[0]
            for release in ((0, 14, 0), (0, 14, 1)):
                b = _enc(stem, release, tp=tp, mnbt=mnbt, eager=eager)[0]
                assert (a.peak, a.kept, a.items, a.tokens_per_item) == (b.peak, b.kept, b.items, b.tokens_per_item)
    assert _dummy((0, 14, 1), 1_000_000).tokens == 7 * 16384


def test_0_15_0_qwen25_vl_mlp_fused_by_torch_compile():
    d, i, hd = 1280, 3420, 80
    held = N * 1176 * 2 + N * hd * 2 + N * hd * 2  # pixels, the cat copy of cos/sin and the lru-cached pair
    before = _enc(QWEN25_VL, (0, 14, 1))[0]
    assert before.peak.bytes == held + N * (4 * d + 4 * i) * 2  # native silu (i) and product (i)
    after = _enc(QWEN25_VL, (0, 15, 0))[0]
    mlp = N * (4 * d + 3 * i) * 2  # gate_up (2i) + the compiled kernel's one output (i)
    assert mlp > N * (3 * d + 8 * d) * 2  # still above the attention (q‖k copied explicitly from 0.15.0)
    assert after.peak.bytes == held + mlp == 2_190_999_552
    assert before.peak.bytes - after.peak.bytes == N * i * 2
    assert "torch.compile" in after.formula
    assert after.kept == before.kept and after.items == before.items
    assert _enc(QWEN25_VL, (0, 15, 1))[0].peak == after.peak
    # --enforce-eager: the CUDA ops on both sides of the boundary; at tp = 8 the MLP (4d + 3i/8) still wins
    assert _enc(QWEN25_VL, (0, 15, 0), eager=True)[0].peak == _enc(QWEN25_VL, (0, 14, 1), eager=True)[0].peak
    eight = _enc(QWEN25_VL, (0, 15, 0), tp=8)[0]
    assert eight.peak.bytes == held + N * (4 * d + -(-3 * i // 8)) * 2


def test_0_15_0_qwen2_vl_unchanged():
    for tp in (1, 2):
        for eager in (False, True):
            a, b = _enc(QWEN2_VL, (0, 14, 1), tp=tp, eager=eager)[0], _enc(QWEN2_VL, (0, 15, 1), tp=tp, eager=eager)[0]
            assert (a.peak, a.kept) == (b.peak, b.kept)
    assert _dummy((0, 15, 0), 4096).tokens == 16384 and _dummy((0, 15, 1), 1_000_000).tokens == 7 * 16384


def test_plan_0_15_charges_the_pass():
    line = next(li for li in _plan("0.15.1").ledger.items if li.item == PHASE)
    assert line.bytes.bytes == 2_681_208_832  # Qwen2-VL-2B: as 0.13.0
    assert not any("vision encoder" in w for w in _plan("0.15.1").warnings)
    assert not any("vision encoder" in w for w in _plan("0.20.2").warnings)
    assert not any("vision encoder" in w for w in _plan("0.22.1").warnings)
    assert not any("vision encoder" in w for w in _plan("0.27.1").warnings)
    assert not any("vision encoder" in w for w in _plan("0.28.0").warnings)
    assert not any("vision encoder" in w for w in _plan("0.30.0").warnings)
    assert not any("vision encoder" in w for w in _plan("0.31.0").warnings)
    assert any("vision encoder" in w for w in _plan("0.32.0").warnings)


# vLLM 0.16.0–0.20.2 (helper q25): the 0.15 live set; from 0.17.0 a tie between the image and a one-group video
# goes to "video" (``get_modality_with_max_tokens`` keys on (tokens, name)), with the same patches and bytes.

def test_0_16_to_0_20_match_0_15_1():
    for stem in (QWEN2_VL, QWEN25_VL):
        for tp, mnbt, mml, eager in ((1, 2048, 4096, False), (2, 2048, 4096, False), (1, 32768, 4096, False),
                                     (1, 2048, 4096, True), (1, 8192, 131072, False)):
            a = _enc(stem, (0, 15, 1), tp=tp, mnbt=mnbt, mml=mml, eager=eager)[0]
            for release in ((0, 16, 0), (0, 17, 0), (0, 17, 1), (0, 18, 1), (0, 19, 1), (0, 20, 0), (0, 20, 2)):
                b = _enc(stem, release, tp=tp, mnbt=mnbt, mml=mml, eager=eager)[0]
                assert (a.peak, a.kept, a.items, a.tokens_per_item) == (b.peak, b.kept, b.items, b.tokens_per_item)


def test_0_17_0_tie_goes_to_the_one_group_video():
    # max_model_len 4,096 < 32,768: at most 2 frames = one temporal group = 16,384 tokens, as the image
    old, new = _dummy((0, 16, 0), 4096), _dummy((0, 17, 0), 4096)
    assert old.modality == "image" and new.modality == "video"
    assert (old.tokens, old.encoded_tokens, old.patches) == (new.tokens, new.encoded_tokens, new.patches) \
        == (16384, 16384, N)
    assert _enc(QWEN2_VL, (0, 17, 0))[0].modality == "video"
    assert _enc(QWEN2_VL, (0, 17, 0))[0].peak == _enc(QWEN2_VL, (0, 16, 0))[0].peak
    # two groups (max_model_len ≥ 32,768) beat the image in every release; 7 groups at most (14 frames)
    assert _dummy((0, 16, 0), 32768).modality == _dummy((0, 17, 0), 32768).modality == "video"
    assert _dummy((0, 20, 2), 32768).tokens == 2 * 16384 and _dummy((0, 20, 2), 1_000_000).tokens == 7 * 16384


# vLLM 0.21.0–0.22.1 (helper q25): the 0.15 rule; in 0.21.x RMSNorm's residual path is the IR op
# ``fused_add_rms_norm``, whose priority only ``set_forward_context`` sets, so the encoder profile (outside it)
# runs the native out-of-place form even under --enforce-eager; 0.22.0 installs the priority at worker init.

def test_0_21_0_eager_qwen25_vl_norm_out_of_place():
    d, i, hd = 1280, 3420, 80
    held = N * 1176 * 2 + N * hd * 2 + N * hd * 2
    eager = {r: _enc(QWEN25_VL, r, eager=True)[0] for r in ((0, 20, 2), (0, 21, 0), (0, 22, 0), (0, 22, 1))}
    assert N * (3 * d + 3 * i) * 2 > N * 11 * d * 2  # the MLP is the block peak on both sides
    assert eager[(0, 20, 2)].peak.bytes == held + N * (3 * d + 3 * i) * 2  # in-place fused add-norm CUDA op
    assert eager[(0, 21, 0)].peak.bytes == held + N * (4 * d + 3 * i) * 2 == 2_190_999_552
    assert "no priority" in eager[(0, 21, 0)].formula
    assert eager[(0, 22, 0)].peak == eager[(0, 22, 1)].peak == eager[(0, 20, 2)].peak
    # the default (Inductor) mode: native norm before and after, compiled SiluAndMul
    for r in ((0, 21, 0), (0, 22, 1)):
        assert _enc(QWEN25_VL, r)[0].peak.bytes == held + N * (4 * d + 3 * i) * 2
    # Qwen2-VL (LayerNorm, QuickGELU) unchanged in both modes
    for flag in (False, True):
        base = _enc(QWEN2_VL, (0, 20, 2), eager=flag)[0].peak
        assert _enc(QWEN2_VL, (0, 21, 0), eager=flag)[0].peak == _enc(QWEN2_VL, (0, 22, 1), eager=flag)[0].peak == base


# vLLM 0.23.0–0.26.0 (helper q25): the 0.22 rule on V1.  Model Runner V2's profile_run encodes nothing before
# 0.27.0, and from 0.25.0 V2 is the default runner of these dense towers: a default plan charges no encoder term.

def test_0_23_to_0_26_v1_match_0_22_1():
    for stem in (QWEN2_VL, QWEN25_VL):
        for tp, mnbt, mml, eager in ((1, 2048, 4096, False), (2, 2048, 4096, True), (1, 8192, 131072, False)):
            a = _enc(stem, (0, 22, 1), tp=tp, mnbt=mnbt, mml=mml, eager=eager)[0]
            for release in ((0, 23, 0), (0, 24, 0), (0, 25, 1), (0, 26, 0)):
                b = _enc(stem, release, tp=tp, mnbt=mnbt, mml=mml, eager=eager)[0]
                assert (a.peak, a.kept, a.items, a.modality) == (b.peak, b.kept, b.items, b.modality)


def test_model_runner_v2_profiles_the_encoder_from_0_27_0():
    kw = dict(engine="V1", tp=1, max_num_batched_tokens=2048, max_num_seqs=256, max_model_len=4096, act_bytes=2)
    v2 = encoder_profile(_model(QWEN25_VL), release=(0, 26, 0), v2_runner=True, **kw)
    assert v2 == (None, "")
    v1 = encoder_profile(_model(QWEN25_VL), release=(0, 26, 0), v2_runner=False, **kw)[0]
    assert v1.peak.bytes == 2_190_999_552
    # the default runner: V1 through 0.24 (Qwen2-VL is not a listed V2 architecture), V2 from 0.25.0 (non-MoE)
    charged = {v: any(li.item == PHASE for li in _plan(v).ledger.items) for v in ("0.24.0", "0.25.0", "0.26.0")}
    assert charged == {"0.24.0": True, "0.25.0": False, "0.26.0": False}
    assert not any("vision encoder" in w for w in _plan("0.26.0").warnings)


def test_model_runner_v2_guard_is_general():
    # the same V2 rule for the Qwen3-VL tower (a family-independent guard in encoder_profile)
    model = _model("Qwen--Qwen3-VL-30B-A3B-Instruct-FP8")
    kw = dict(engine="V1", tp=1, max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=32768, act_bytes=2)
    assert encoder_profile(model, release=(0, 26, 0), v2_runner=True, **kw) == (None, "")
    assert encoder_profile(model, release=(0, 27, 0), v2_runner=True, **kw)[0].peak == \
        encoder_profile(model, release=(0, 26, 0), v2_runner=False, **kw)[0].peak


# vLLM 0.27.0 (helper q25): Model Runner V2 profiles the encoder (same budget and dummy; the batch is freed inside
# execute_mm_encoder, so no dummy pixels are kept); frames are padded to the next multiple of temporal_patch_size.

def test_0_27_0_v2_profiles_the_encoder():
    kw = dict(engine="V1", tp=1, max_num_batched_tokens=2048, max_num_seqs=256, max_model_len=4096, act_bytes=2)
    v1 = encoder_profile(_model(QWEN2_VL), release=(0, 26, 0), v2_runner=False, **kw)[0]
    v2 = encoder_profile(_model(QWEN2_VL), release=(0, 27, 0), v2_runner=True, **kw)[0]
    assert v2.peak == v1.peak and v2.peak.bytes == 2_681_208_832
    assert v1.kept.bytes - v2.kept.bytes == N * 1176 * 2  # V1 keeps the dummy pixels, V2 does not
    assert v2.kept.bytes == 16384 * 1536 * 2
    line = next(li for li in _plan("0.27.0").ledger.items if li.item == PHASE)  # default runner: V2
    assert line.bytes.bytes == 2_681_208_832
    assert not any("vision encoder" in w for w in _plan("0.27.0").warnings)
    assert next(li for li in _plan("0.27.1").ledger.items if li.item == PHASE).bytes == line.bytes


def test_0_27_0_pads_frames_up_to_the_temporal_patch():
    vc = {**_model(QWEN2_VL).extra["vision_config"], "temporal_patch_size": 3}
    old = qwen2_vl_dummy(vc, release=(0, 26, 0), max_model_len=40_000, max_num_batched_tokens=2048)
    new = qwen2_vl_dummy(vc, release=(0, 27, 0), max_model_len=40_000, max_num_batched_tokens=2048)
    # frames + frames % 3 (≤ 0.26): 4 frames -> 5 // 3 = 1 group, 6 frames -> 2 groups; ceil (0.27): 4 -> 2 groups
    assert old.modality == new.modality == "video" and old.tokens == new.tokens == 2 * 16384
    assert _dummy((0, 27, 0), 1_000_000).tokens == _dummy((0, 26, 0), 1_000_000).tokens == 7 * 16384
    from tpkit.engines.vllm.encoder_qwen2vl_dummy import _video_groups
    assert (_video_groups(4, 3), _video_groups(4, 3, ceil_pad=True)) == (1, 2)
    assert all(_video_groups(f, 2) == _video_groups(f, 2, ceil_pad=True) for f in range(1, 40))


# vLLM 0.28.0–0.29.0 (helper q2n): mm_device_do_normalize (default on) makes the HF processor return uint8 pixels
# (transformers ≥ 5.5.3's torchvision backend skips rescale/normalise), which FusedInputNorm normalises on the GPU
# before the tower (fp32 copy, product and sum, then the cast).  held: N·C·(1 + a); kept: the uint8 batch (V1).

def test_0_28_0_normalises_uint8_pixels_on_the_gpu():
    c = 1176  # 3 × 2 × 14²
    for stem in (QWEN2_VL, QWEN25_VL):
        for eager in (False, True):
            old, new = _enc(stem, (0, 27, 1), eager=eager)[0], _enc(stem, (0, 28, 0), eager=eager)[0]
            # the tower's input: the uint8 batch stays referenced beside the normalised bf16 copy (+ N·C·1)
            assert new.peak.bytes - old.peak.bytes == N * c * 1
            # the V1 runner keeps the uint8 batch instead of the bf16 one (− N·C·1)
            assert old.kept.bytes - new.kept.bytes == N * c * 1
            assert (new.items, new.modality, new.tokens_per_item) == (old.items, old.modality, old.tokens_per_item)
            assert _enc(stem, (0, 29, 0), eager=eager)[0] == new
    d, i, hd = 1280, 5120, 80
    enc = _enc(QWEN2_VL, (0, 28, 0))[0]
    # 0.12+ rotary: cos/sin in the model dtype; native QuickGELU MLP (3d + 3i)
    assert enc.peak.bytes == N * c * (1 + 2) + N * hd * 2 + N * (3 * d + 3 * i) * 2
    assert enc.kept.bytes == 16384 * 1536 * 2 + N * c
    assert "uint8 + normalised on the GPU" in enc.formula
    assert N * c * 13 < enc.peak.bytes  # FusedInputNorm's fp32 transients stay below the blocks


def test_0_28_0_norm_transient_can_set_the_peak():
    # a toy tower whose blocks are narrower than 13 bytes per pixel element: the normalisation sets the peak
    from tpkit.engines.vllm.encoder_qwen2vl import qwen2_vl_profile
    model = _model(QWEN2_VL)
    vc = {**model.extra["vision_config"], "embed_dim": 16, "num_heads": 1, "mlp_ratio": 1}
    from dataclasses import replace
    toy = replace(model, extra={**model.extra, "vision_config": vc})
    kw = dict(tp=1, max_num_batched_tokens=2048, max_num_seqs=256, max_model_len=4096, act_bytes=2,
              v2_runner=True, enforce_eager=False)
    assert qwen2_vl_profile(toy, release=(0, 28, 0), **kw)[0].peak.bytes == N * 1176 * 13
    assert qwen2_vl_profile(toy, release=(0, 27, 1), **kw)[0].peak.bytes < N * 1176 * 13


def test_plan_0_28_v2_default_keeps_no_pixels():
    kw = dict(engine="V1", tp=1, max_num_batched_tokens=2048, max_num_seqs=256, max_model_len=4096, act_bytes=2)
    v2 = encoder_profile(_model(QWEN2_VL), release=(0, 28, 0), v2_runner=True, **kw)[0]
    assert v2.kept.bytes == 16384 * 1536 * 2
    line = next(li for li in _plan("0.28.0").ledger.items if li.item == PHASE)
    assert line.bytes.bytes == 2_681_208_832 + N * 1176
    assert next(li for li in _plan("0.29.0").ledger.items if li.item == PHASE).bytes == line.bytes


# vLLM 0.30.0 (helper q2n): FusedInputNorm runs inside the tower's forward, so the normalised pixels are freed after
# the patch embed; only the uint8 batch stays held (N·C·1).  Kept and the dummy as 0.28–0.29.

def test_0_30_0_frees_the_normalised_pixels_before_the_blocks():
    c = 1176
    for stem in (QWEN2_VL, QWEN25_VL):
        for eager in (False, True):
            old, new = _enc(stem, (0, 29, 0), eager=eager)[0], _enc(stem, (0, 30, 0), eager=eager)[0]
            assert old.peak.bytes - new.peak.bytes == N * c * 2
            assert (new.kept, new.items, new.tokens_per_item) == (old.kept, old.items, old.tokens_per_item)
            assert new.peak.bytes - _enc(stem, (0, 27, 1), eager=eager)[0].peak.bytes == -N * c * 1
    assert "normalised in the tower" in _enc(QWEN2_VL, (0, 30, 0))[0].formula
    line = next(li for li in _plan("0.30.0").ledger.items if li.item == PHASE)
    assert line.bytes.bytes == 2_681_208_832 - N * c


# vLLM 0.31.0 (helper q2n): FusedMMInputNorm, a custom op (native: 9 B per pixel element; Triton under
# --enforce-eager: 1 + a); held and kept as 0.30.0.

def test_0_31_0_as_0_30_0_for_the_released_towers():
    for stem in (QWEN2_VL, QWEN25_VL):
        for eager in (False, True):
            assert _enc(stem, (0, 31, 0), eager=eager)[0] == _enc(stem, (0, 30, 0), eager=eager)[0]


def test_0_31_0_norm_transient_by_mode():
    from dataclasses import replace
    from tpkit.engines.vllm.encoder_qwen2vl import qwen2_vl_profile
    model = _model(QWEN2_VL)
    toy = replace(model, extra={**model.extra, "vision_config": {**model.extra["vision_config"], "embed_dim": 16,
                                                                  "num_heads": 1, "mlp_ratio": 1}})
    kw = dict(tp=1, max_num_batched_tokens=2048, max_num_seqs=256, max_model_len=4096, act_bytes=2, v2_runner=True)
    assert qwen2_vl_profile(toy, release=(0, 30, 0), enforce_eager=False, **kw)[0].peak.bytes == N * 1176 * 13
    assert qwen2_vl_profile(toy, release=(0, 31, 0), enforce_eager=False, **kw)[0].peak.bytes == N * 1176 * 9
    eager = qwen2_vl_profile(toy, release=(0, 31, 0), enforce_eager=True, **kw)[0].peak.bytes
    assert eager < N * 1176 * 9 and eager >= N * 1176 * 3
