"""vLLM ``--limit-mm-per-prompt`` (helper lmm, 2026-12-04; ``engines/vllm/mmlimits.py``): the syntaxes per release
(``engine/arg_utils.py``: KEY=VALUE up to 0.9.2, JSON from 0.8.5, {"count": n} values from 0.11.1), the encoder
budget's items per prompt min(limit, max_model_len // t), a modality at 0 not profiled, all at 0 = no encoder
profile, and Qwen2-VL 0.10.0–0.10.1's video frames taking one image off seq_len only while the image limit is > 0.
Every expected number is hand-computed in the test's docstring or comment."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.encoder import encoder_profile
from tpkit.engines.vllm.encoder_budget import items_per_batch
from tpkit.engines.vllm.encoder_qwen2vl import qwen2_vl_dummy
from tpkit.engines.vllm.encoder_qwen3vl import _qwen3_vl_dummy
from tpkit.engines.vllm.mmlimits import mm_limit, parse_mm_limits
from tpkit.errors import PlanInputError
from tpkit.models import from_config_dict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clirun import cli, refused  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
QWEN25_VL = CONFIGS / "Qwen--Qwen2.5-VL-7B-Instruct.json"
QWEN3_VL = CONFIGS / "Qwen--Qwen3-VL-30B-A3B-Instruct.json"
GEMMA3 = CONFIGS / "google--gemma-3-27b-it.json"
VL_241 = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm" / "vl_241.log"


def _model(path: Path):
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source="test")


# --- syntax per release --------------------------------------------------------------------------------------------

def test_key_value_form_up_to_0_9_2_only():
    assert parse_mm_limits("image=2, Video=0", (0, 9, 2)) == {"image": 2, "video": 0}  # nullable_kvs lower-cases
    with pytest.raises(PlanInputError, match="JSON only"):
        parse_mm_limits("image=2,video=0", (0, 10, 0))


def test_json_form_from_0_8_5():
    assert parse_mm_limits('{"image": 2, "video": 0}', (0, 8, 5)) == {"image": 2, "video": 0}
    assert parse_mm_limits('{"image": 2}', (0, 25, 1)) == {"image": 2}
    with pytest.raises(PlanInputError, match="before 0.8.5"):
        parse_mm_limits('{"image": 2}', (0, 8, 4))


def test_count_dict_values_from_0_11_1():
    assert parse_mm_limits('{"image": {"count": 3}, "video": 0}', (0, 11, 1)) == {"image": 3, "video": 0}
    with pytest.raises(PlanInputError, match="from vLLM 0.11.1"):
        parse_mm_limits('{"image": {"count": 3}}', (0, 11, 0))
    with pytest.raises(PlanInputError, match="width"):  # sizes the dummy item: not modelled, refused
        parse_mm_limits('{"image": {"count": 1, "width": 512}}', (0, 14, 1))


@pytest.mark.parametrize("bad", ['{"image": -1}', '{"image": 1.5}', '{"image": true}', '{"image": 2', '[1]',
                                 'image'])
def test_bad_values_are_refused(bad):
    with pytest.raises(PlanInputError, match="--limit-mm-per-prompt"):
        parse_mm_limits(bad, (0, 15, 0) if bad != "image" else (0, 9, 2))


def test_unnamed_modality_is_999_and_options_check_the_text():
    assert mm_limit({"image": 2}, "video") == 999 and mm_limit(None, "image") == 999
    assert VllmOptions(engine_version="0.15.0", limit_mm_per_prompt='{"image": 0}').limit_mm_per_prompt
    with pytest.raises(PlanInputError, match="JSON only"):
        VllmOptions(engine_version="0.15.0", limit_mm_per_prompt="image=0")


# --- items per prompt: min(limit, max_model_len // t) ---------------------------------------------------------------

def test_items_per_prompt_on_both_sides_of_the_limit():
    """t 260, 8,192 batched tokens (budget 8,192 // 260 = 31 items), 4 sequences, max_model_len 4,096 (4,096 // 260 =
    15 per prompt): limit 7 → min(7, 15) = 7 per prompt → min(31, 4 × 7 = 28) = 28; limit 8 → min(31, 32) = 31;
    limit 999 → 15 per prompt → min(31, 60) = 31; limit 16 is above 15, so the same 31."""
    kw = dict(max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=4096)
    assert items_per_batch((0, 15, 0), 260, limit=7, **kw) == 28
    assert items_per_batch((0, 15, 0), 260, limit=8, **kw) == 31
    assert items_per_batch((0, 15, 0), 260, **kw) == 31
    # 2 sequences: limit 15 → 30 items, limit 16 → capped at max_model_len // t = 15 → 30 (0.10.1 on) …
    kw2 = dict(kw, max_num_seqs=2)
    assert items_per_batch((0, 10, 1), 260, limit=15, **kw2) == 30
    assert items_per_batch((0, 10, 1), 260, limit=16, **kw2) == 30
    # … while 0.10.0 takes the limit uncapped: 2 × 16 = 32 → min(31, 32) = 31
    assert items_per_batch((0, 10, 0), 260, limit=16, **kw2) == 31


# --- the dummy modality ---------------------------------------------------------------------------------------------

def test_qwen3_vl_modality_at_zero_is_not_profiled():
    """0.15.0: the image (16,384 tokens) beats the two-frame video (12,288); image 0 leaves the video.  0.12.0: the
    video counts 12,288 × 12.5 = 153,600 and wins; video 0 leaves the image."""
    vc = _model(QWEN3_VL).extra["vision_config"]
    assert _qwen3_vl_dummy(vc, release=(0, 15, 0), max_model_len=32768).modality == "image"
    d = _qwen3_vl_dummy(vc, release=(0, 15, 0), max_model_len=32768, limits={"image": 0})
    assert (d.modality, d.tokens) == ("video", 12288)
    assert _qwen3_vl_dummy(vc, release=(0, 12, 0), max_model_len=32768).tokens == 153_600
    d = _qwen3_vl_dummy(vc, release=(0, 12, 0), max_model_len=32768, limits={"video": 0})
    assert (d.modality, d.tokens) == ("image", 16384)


def test_qwen2_vl_0_10_1_video_gets_all_of_max_model_len_when_the_image_is_off():
    """Qwen2.5-VL, max_model_len 40,000, 16,384 tokens per frame group at max pixels.  0.10.1 with the image on: room
    40,000 − 16,384 = 23,616 → 1 group = 16,384 tokens, a tie the image wins (before 0.17).  Image 0: room 40,000 →
    2 groups = 32,768 tokens, the video.  0.10.2 takes no image off: 32,768 either way."""
    vc = _model(QWEN25_VL).extra["vision_config"]
    on = qwen2_vl_dummy(vc, release=(0, 10, 1), max_model_len=40000, max_num_batched_tokens=8192)
    off = qwen2_vl_dummy(vc, release=(0, 10, 1), max_model_len=40000, max_num_batched_tokens=8192,
                         limits={"image": 0})
    assert (on.modality, on.tokens) == ("image", 16384)
    assert (off.modality, off.tokens) == ("video", 32768)
    new = qwen2_vl_dummy(vc, release=(0, 10, 2), max_model_len=40000, max_num_batched_tokens=8192)
    assert (new.modality, new.tokens) == ("video", 32768)
    no_video = qwen2_vl_dummy(vc, release=(0, 10, 2), max_model_len=40000, max_num_batched_tokens=8192,
                              limits={"video": 0})
    assert (no_video.modality, no_video.tokens) == ("image", 16384)


def _profile(path, release, limits, **kw):
    args = dict(engine="V1", tp=1, max_num_batched_tokens=8192, max_num_seqs=4, max_model_len=4096, act_bytes=2,
                v2_runner=False)
    args.update(kw)
    return encoder_profile(_model(path), release=release, limits=limits, **args)


def test_every_modality_at_zero_means_no_encoder_profile():
    assert _profile(QWEN3_VL, (0, 15, 0), {"image": 0, "video": 0}) == (None, "")
    assert _profile(QWEN3_VL, (0, 15, 0), {"image": 0})[0].modality == "video"
    assert _profile(GEMMA3, (0, 11, 0), {"image": 0}) == (None, "")
    assert _profile(GEMMA3, (0, 11, 0), {"video": 0})[0] is not None  # Gemma 3 takes images only


def test_gemma3_items_follow_the_image_limit():
    """Gemma 3, 0.11.0: 4 sequences × min(limit, 4,096 // t) items against 8,192 // t; limit 1 gives 4 items."""
    p = _profile(GEMMA3, (0, 11, 0), {"image": 1})[0]
    assert p.items == 4
    assert _profile(GEMMA3, (0, 11, 0), None)[0].items == min(8192 // p.tokens_per_item,
                                                              4 * (4096 // p.tokens_per_item))


# --- CLI --------------------------------------------------------------------------------------------------------------

def test_cli_all_zero_drops_the_encoder_step(capsys):
    base = ("plan", str(QWEN3_VL), "--gpu", "H200", "--engine", "vllm", "--engine-version", "0.15.0")
    code, out, _ = cli(capsys, *base)
    assert code == 0 and "dummy image item(s)" in out
    code, out, _ = cli(capsys, *base, "--limit-mm-per-prompt", '{"image": 0}')
    assert code == 0 and "dummy video item(s)" in out
    code, out, _ = cli(capsys, *base, "--limit-mm-per-prompt", '{"image": 0, "video": 0}')
    assert code == 0 and "dummy" not in out and "runs no" in out


def test_cli_bad_limit_is_refused(capsys):
    refused(capsys, "plan", str(QWEN3_VL), "--gpu", "H200", "--engine", "vllm", "--engine-version", "0.15.0",
            "--limit-mm-per-prompt", "image=0,video=0",
            says=("--limit-mm-per-prompt", "JSON only", "'image=0,video=0'", '{"image": 2, "video": 0}'))


def test_from_log_takes_the_dumped_limit(capsys):
    """vl_241 prints non-default args {'limit_mm_per_prompt': {'image': 2}}; a plan --from-log with image 0 given
    overrides it (the flag wins), so the log's value is what a plain --from-log plan uses."""
    from tpkit.cli.explain import read_log
    from tpkit.explain import explain_log

    assert explain_log(read_log(str(VL_241))).context.get("limit_mm_per_prompt") == {"image": 2}
    code, out, _ = cli(capsys, "plan", str(GEMMA3), "--from-log", str(VL_241), "--gpu", "H100",
                       "--limit-mm-per-prompt", '{"image": 0}')
    assert code == 0 and "runs no" in out
