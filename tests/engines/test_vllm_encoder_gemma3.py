"""vLLM V1's Gemma 3 encoder profile (``engines/vllm/encoder_gemma3.py``), pinned by hand on both sides of each
release boundary: 0.10.2 / 0.11.0 (first release read), 0.11.x / 0.12.0 (outputs widened to the encoder budget,
then to t), 0.12.x / 0.13.0 (t = the 260-token placeholder, then the 256 soft tokens) and 0.29.0 / 0.30.0 (last
release read).  gemma-3-4b-it: SigLIP d 1152, i 4304, 896 px, patch 14 (4,096 patches), text hidden 2560, bf16."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm.encoder import encoder_profile, not_modelled
from tpkit.models import from_config_dict

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"


@pytest.fixture(scope="module")
def gemma3_4b():
    cfg = json.loads((CONFIGS / "google--gemma-3-4b-it.json").read_text())
    return from_config_dict(cfg, name="google/gemma-3-4b-it", source="google--gemma-3-4b-it.json")


def _profile(model, release, **kw):
    args = dict(engine="V1", tp=1, max_num_batched_tokens=8192, max_num_seqs=256, max_model_len=8192, act_bytes=2,
                v2_runner=False)
    args.update(kw)
    return encoder_profile(model, release=release, **args)


PIXELS_32 = 32 * 4096 * 3 * 14 * 14 * 2          # 154,140,672
PIXELS_31 = 31 * 4096 * 3 * 14 * 14 * 2          # 149,323,776


def test_embeds_only_from_0_13(gemma3_4b):
    prof, why = _profile(gemma3_4b, (0, 13, 0))
    assert why == "" and prof.items == 32 and prof.tokens_per_item == 256  # 8192 // 256 (a 0.23.0 log prints 32)
    n = 32 * 4096
    assert int(prof.peak) == PIXELS_32 + n * 1152 * 2 + n * (3 * 1152 + 2 * 4304) * 2 == 3_618_635_776
    assert int(prof.kept) == 32 * 256 * 2560 * 2 + PIXELS_32 == 196_083_712  # nothing widened
    assert _profile(gemma3_4b, (0, 29, 0))[0] == prof


def test_contiguous_placeholder_and_widen_to_t_in_0_12(gemma3_4b):
    prof, _ = _profile(gemma3_4b, (0, 12, 0))
    assert prof.items == 31 and prof.tokens_per_item == 260  # 8192 // 260 (a 0.11.0 pre-release log prints 31)
    n = 31 * 4096
    assert int(prof.peak) == n * 2 * (588 + 1152 + 3 * 1152 + 2 * 4304) == 3_505_553_408
    # 256-row outputs, each widened to t = 260 rows
    assert int(prof.kept) == 31 * 256 * 2560 * 2 + 31 * 260 * 2560 * 2 + PIXELS_31 == 231_223_296


def test_widen_to_the_encoder_budget_in_0_11(gemma3_4b):
    for release in ((0, 11, 0), (0, 11, 2)):
        prof, _ = _profile(gemma3_4b, release)
        assert prof.items == 31
        assert int(prof.kept) == 31 * 256 * 2560 * 2 + 31 * 8192 * 2560 * 2 + PIXELS_31 == 1_490_190_336


def test_tp_shards_the_mlp_and_v2_runner_frees_the_pixels(gemma3_4b):
    # Model Runner V2 runs the encoder profile from 0.27.0 (helper q25: none before, so no term there)
    assert _profile(gemma3_4b, (0, 26, 0), tp=2, v2_runner=True) == (None, "")
    prof, _ = _profile(gemma3_4b, (0, 27, 0), tp=2, v2_runner=True)
    n = 32 * 4096
    assert int(prof.peak) == PIXELS_32 + n * 1152 * 2 + n * (3 * 1152 + 4304) * 2
    assert int(prof.kept) == 32 * 256 * 2560 * 2


def test_releases_not_read_keep_the_warning(gemma3_4b):
    for release in ((0, 10, 2), (0, 30, 0)):
        prof, why = _profile(gemma3_4b, release)
        assert prof is None and "gemma3" in why
        assert not_modelled(gemma3_4b, release=release, engine="V1")
    assert not_modelled(gemma3_4b, release=(0, 11, 0), engine="V1") == ""


def test_soft_tokens_come_from_the_config():
    cfg = json.loads((CONFIGS / "google--gemma-3-4b-it.json").read_text())
    model = from_config_dict({**cfg, "mm_tokens_per_image": 64}, name="gemma3-64", source="test")
    assert _profile(model, (0, 13, 0))[0].tokens_per_item == 64
    assert _profile(model, (0, 12, 0))[0].tokens_per_item == 68  # + the four placeholder text tokens
