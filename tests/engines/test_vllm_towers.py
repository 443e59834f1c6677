"""vLLM ``--language-model-only`` and an all-zero ``--limit-mm-per-prompt``: the vision tower (and projector) is
not built, so its weights are not loaded (helper lmo, 2026-12-04; ``engines/vllm/towers.py``).

Each family is pinned on both sides of its first release that leaves the tower out (read in the wheels):
Qwen2-VL / Qwen2.5-VL / LLaVA 0.10.1 (0.10.0 builds it), Qwen3-VL / Qwen3-VL-MoE 0.11.0 (first release), Gemma 3 and
LLaVA-NeXT 0.15.0 (0.14.1 builds it), Qwen3.5 0.17.0 and Gemma 4 0.19.0 (first releases); the flag itself exists
from 0.17.0 (0.16.0 refuses it).  Configs are the real ones of the validation set."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.policy import tower_weights
from tpkit.engines.vllm.towers import TOWER_SKIP_FROM, tower_not_built
from tpkit.errors import PlanInputError
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clirun import cli, refused  # noqa: E402

from towers_testlib import CONFIGS, config_model as _model, tower_bytes as _tower  # noqa: E402


# (config, wrapper, first release without the tower, the release before it)
FAMILIES = [
    ("Qwen--Qwen2-VL-2B-Instruct", "qwen2_vl", "0.10.1", "0.10.0"),
    ("Qwen--Qwen2.5-VL-7B-Instruct", "qwen2_5_vl", "0.10.1", "0.10.0"),
    ("Qwen--Qwen3-VL-2B-Instruct", "qwen3_vl", "0.11.0", None),
    ("Qwen--Qwen3-VL-30B-A3B-Instruct", "qwen3_vl_moe", "0.11.0", None),
    ("google--gemma-3-27b-it", "gemma3", "0.15.0", "0.14.1"),
    ("google--gemma-3-4b-it", "gemma3", "0.15.0", "0.14.1"),
    ("llava-hf--llava-v1.6-mistral-7b-hf", "llava_next", "0.15.0", "0.14.1"),
    ("Qwen--Qwen3.5-9B", "qwen3_5", "0.17.0", None),
    ("Qwen--Qwen3.6-27B", "qwen3_5", "0.17.0", None),
    ("google--gemma-4-26B-A4B-it", "gemma4", "0.19.0", None),
]


def _rel(v: str) -> tuple[int, int, int]:
    return tuple(int(x) for x in v.split("."))  # type: ignore[return-value]


@pytest.mark.parametrize("stem, wrapper, since, before", FAMILIES)
def test_all_zero_limits_drop_the_tower_from_its_release(stem, wrapper, since, before):
    model = _model(stem)
    assert model.extra.get("wrapper_model_type") == wrapper and TOWER_SKIP_FROM[wrapper][0] == _rel(since)
    zero = {m: 0 for m in TOWER_SKIP_FROM[wrapper][1]}
    assert "does not build it" in tower_not_built(model, release=_rel(since), limits=zero)
    assert tower_not_built(model, release=_rel(since), limits=None) == ""  # default 999 each: built
    if before:
        assert tower_not_built(model, release=_rel(before), limits=zero) == ""
    plan = plan_weights(model, ParallelSpec(), engine="vllm")
    assert _tower(plan) > 0
    opts = VllmOptions(engine_version=since, limit_mm_per_prompt=zero)
    cut = tower_weights(model, opts, plan)
    assert cut.bytes_per_rank.bytes == plan.bytes_per_rank.bytes - _tower(plan) and _tower(cut) == 0
    assert any(l.source.startswith("vision tower not loaded: --limit-mm-per-prompt") for l in cut.lines)


def test_one_modality_left_keeps_the_tower():
    """Qwen-VL towers serve image and video: one of them > 0 keeps the tower (qwen2_5_vl.py: image or video)."""
    model = _model("Qwen--Qwen2.5-VL-7B-Instruct")
    assert tower_not_built(model, release=(0, 29, 0), limits={"image": 0}) == ""
    assert tower_not_built(model, release=(0, 29, 0), limits={"image": 0, "video": 1}) == ""


@pytest.mark.parametrize("stem", ["Qwen--Qwen3-VL-2B-Instruct", "Qwen--Qwen2.5-VL-7B-Instruct",
                                  "google--gemma-3-27b-it", "google--gemma-4-26B-A4B-it", "Qwen--Qwen3.6-27B"])
def test_language_model_only_from_0_17_0(stem):
    """--language-model-only: get_limit_per_prompt answers 0 for every modality (0.17.0 config/multimodal.py)."""
    model = _model(stem)
    plan = plan_weights(model, ParallelSpec(), engine="vllm")
    cut = tower_weights(model, VllmOptions(engine_version="0.29.0", language_model_only=True), plan)
    assert _tower(cut) == 0 and cut.bytes_per_rank.bytes == plan.bytes_per_rank.bytes - _tower(plan)
    assert any("vision tower not loaded: --language-model-only" in l.source for l in cut.lines)
    assert "--language-model-only" in tower_not_built(model, release=(0, 19, 0), language_model_only=True)


def test_language_model_only_is_refused_before_0_17_0():
    with pytest.raises(PlanInputError, match="from vLLM 0.17.0"):
        VllmOptions(engine_version="0.16.0", language_model_only=True)
    VllmOptions(engine_version="0.17.0", language_model_only=True)


def test_text_model_and_unread_families_keep_their_weights():
    model = _model("google--gemma-4-26B-A4B-it")
    assert tower_not_built(model, release=(0, 18, 0), language_model_only=True) == ""  # no gemma4_mm.py yet


def test_cli_gemma4_language_model_only(capsys):
    """The 26B-A4B's tower + embed_vision (1.07 GiB derived) leave the weights line, narrated; no encoder profile."""
    base = ("plan", str(CONFIGS / "google--gemma-4-26B-A4B-it.json"), "--gpu", "L40S", "--engine", "vllm",
            "--engine-version", "0.29.0", "--quantization", "fp8", "--max-model-len", "4096")
    code, with_tower, _ = cli(capsys, *base)
    assert code == 0 and "vision tower not loaded" not in with_tower
    code, out, _ = cli(capsys, *base, "--language-model-only")
    assert code == 0 and "vision tower not loaded" in out and "1.07" in out and "runs no" in out
    refused(capsys, *base[:7], "0.16.0", "--language-model-only", says=("--language-model-only", "0.17.0"))
