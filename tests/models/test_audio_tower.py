"""Gemma 4's audio tower (``tpkit.models.audio``): its parameters from ``audio_config``, its weights line, and vLLM
leaving it out at an audio limit of 0 or with ``--language-model-only`` (helper gem4, 2026-12-04).

The counts follow transformers 5.5.0 ``models/gemma4/modeling_gemma4.py`` ``Gemma4AudioModel`` plus vLLM's
``embed_audio`` (``gemma4_mm.py`` ``Gemma4MultimodalEmbedder``).  The E2B check: the public vl_333 start-up prints
"Checkpoint size: 9.54 GiB" for google/gemma-4-E2B-it (text + vision + audio, bf16), and tpkit's whole plan of the
same config is 9.54 GiB with the audio line and 8.97 GiB without it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.policy import tower_weights
from tpkit.engines.vllm.towers import AUDIO_SKIP_FROM, audio_not_built
from tpkit.errors import ConfigError
from tpkit.models.audio import audio_tower_params
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engines"))
from towers_testlib import config_model, tower_bytes  # noqa: E402

E2B = Path(__file__).resolve().parents[1] / "validation" / "configs" / "google--gemma-4-E2B.json"
E4B = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "google__gemma-4-E4B-it" / "config.json"


def _audio(plan) -> int:
    return sum(line.bytes.bytes for line in plan.lines if line.item == "audio tower")


def test_e2b_audio_tower_params_by_hand():
    cfg = json.loads(E2B.read_text())
    h, out, text = 1024, 1536, cfg["text_config"]["hidden_size"]
    per_layer = 24 * h * h + 14 * h + h // 8 + 40  # 16h² FFN + 5h² attention + 3h² light conv; vectors; clip bounds
    by_hand = (9 * 128 + 128 + 9 * 128 * 32 + 32 + 32 * 32 * h) + 12 * per_layer + h * out + out + out * text
    assert audio_tower_params(cfg["audio_config"], text) == by_hand == 307_184_384


def test_e4b_differs_only_in_the_embedder():
    e2b, e4b = json.loads(E2B.read_text()), json.loads(E4B.read_text())
    n2 = audio_tower_params(e2b["audio_config"], e2b["text_config"]["hidden_size"])
    n4 = audio_tower_params(e4b["audio_config"], e4b["text_config"]["hidden_size"])
    assert n4 - n2 == 1536 * (e4b["text_config"]["hidden_size"] - e2b["text_config"]["hidden_size"])


def test_e2b_whole_plan_matches_the_printed_checkpoint_size():
    plan = plan_weights(config_model("google--gemma-4-E2B"), ParallelSpec(), engine="vllm")
    audio = _audio(plan)
    assert audio == 307_184_384 * 2
    assert abs(plan.bytes_per_rank.bytes / 2**30 - 9.54) < 0.01  # vl_333: "Checkpoint size: 9.54 GiB"
    assert plan.total_bytes.bytes == plan.bytes_per_rank.bytes


def test_no_audio_config_no_line_and_unknown_family_a_note():
    model = config_model("google--gemma-4-26B-A4B-it")
    assert not any(l.item == "audio tower" for l in plan_weights(model, ParallelSpec()).lines)
    assert audio_tower_params({"model_type": "whisper"}, 1024) is None
    assert audio_tower_params(None, 1024) is None


@pytest.mark.parametrize("bad", [[1, 2, 3], "x", {"model_type": "gemma4_audio", "hidden_size": 1024}])
def test_bad_audio_config_is_refused_clearly(bad):
    with pytest.raises(ConfigError, match="audio_config"):
        audio_tower_params(bad, 1536)


def test_bad_subsampling_channels_refused():
    cfg = dict(json.loads(E2B.read_text())["audio_config"], subsampling_conv_channels=[128])
    with pytest.raises(ConfigError, match="subsampling_conv_channels"):
        audio_tower_params(cfg, 1536)


def test_vllm_leaves_the_audio_tower_out_from_0_19_0():
    """gemma4_mm.py builds the audio tower inside ``_mark_tower_model(vllm_config, "audio")`` from Gemma 4's first
    release, 0.19.0 (read 0.19.0 – 0.33.0): an audio limit of 0 drops it alone; the vision tower stays."""
    model = config_model("google--gemma-4-E2B")
    assert AUDIO_SKIP_FROM["gemma4"][0] == (0, 19, 0)
    plan = plan_weights(model, ParallelSpec(), engine="vllm")
    assert "does not build it" in audio_not_built(model, release=(0, 19, 0), limits={"audio": 0})
    assert audio_not_built(model, release=(0, 19, 0), limits=None) == ""
    assert audio_not_built(model, release=(0, 18, 0), limits={"audio": 0}) == ""  # before Gemma 4: not read
    cut = tower_weights(model, VllmOptions(engine_version="0.29.0", limit_mm_per_prompt={"image": 4, "audio": 0}),
                        plan)
    assert _audio(cut) == 0 and tower_bytes(cut) == tower_bytes(plan) > 0
    assert cut.bytes_per_rank.bytes == plan.bytes_per_rank.bytes - _audio(plan)
    assert "audio tower not loaded" in next(l.source for l in cut.lines if l.item == "audio tower")
    kept = tower_weights(model, VllmOptions(engine_version="0.28.0"), plan)
    assert _audio(kept) == _audio(plan)


def test_language_model_only_drops_both_towers():
    model = config_model("google--gemma-4-E2B")
    plan = plan_weights(model, ParallelSpec(), engine="vllm")
    cut = tower_weights(model, VllmOptions(engine_version="0.21.0", language_model_only=True), plan)
    assert _audio(cut) == 0 and tower_bytes(cut) == 0


def test_vllm_holds_the_gemma4_towers_whole_on_every_tp_rank():
    """vLLM 0.19.0–0.33.0 builds Gemma 4's vision tower with transformers' AutoModel (nn.Linear, ReplicatedLinear
    from 0.25) and a ReplicatedLinear embed_vision: tp 2 holds the same tower bytes as tp 1."""
    model = config_model("google--gemma-4-26B-A4B-it")
    one = tower_bytes(plan_weights(model, ParallelSpec(tp=1), engine="vllm"))
    two = tower_bytes(plan_weights(model, ParallelSpec(tp=2), engine="vllm"))
    assert one == two > 0
