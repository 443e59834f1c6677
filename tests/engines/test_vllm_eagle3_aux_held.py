"""Model Runner V2's EAGLE-3 dummy propose keeps the target's auxiliary hidden states and their combination alive
while the drafter's first (compiling) call runs (``profile_lines.eagle3_aux_held``, helper vr31, 2026-12-07,
session 31): 3 + 1 more T × H tensors in the drafter's cold-compile phase, V2 only, 0.22.0 – 0.29.x, EAGLE-3 only."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from tpkit.engines.vllm.profile import drafter_compile_phase
from tpkit.engines.vllm.profile_lines import EAGLE3_AUX_HELD, eagle3_aux_held
from tpkit.models.config import from_config_dict

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
QWEN3_8B = from_config_dict(json.loads((CONFIGS / "Qwen--Qwen3-8B.json").read_text()), name="Qwen3-8B",
                            source="Qwen--Qwen3-8B.json")


def _r(method):
    return SimpleNamespace(spec=SimpleNamespace(method=method) if method else None)


def _rules(release):
    return SimpleNamespace(release=release)


@pytest.mark.parametrize("release, held", [((0, 21, 0), 0), ((0, 22, 0), 4), ((0, 24, 0), 4), ((0, 29, 0), 4),
                                           ((0, 29, 1), 4), ((0, 30, 0), 0), ((0, 33, 0), 0)])
def test_release_range(release, held):
    assert EAGLE3_AUX_HELD == ((0, 22, 0), (0, 30, 0))
    assert eagle3_aux_held(_r("eagle3"), _rules(release), True) == held


@pytest.mark.parametrize("method", ["eagle", "mtp", "ngram", None])
def test_eagle3_only(method):
    assert eagle3_aux_held(_r(method), _rules((0, 24, 0)), True) == 0


def test_v1_runner_drops_the_auxiliary_states():
    assert eagle3_aux_held(_r("eagle3"), _rules((0, 24, 0)), False) == 0


def test_phase_adds_four_hidden_state_tensors():
    base, _ = drafter_compile_phase(QWEN3_8B, 1, 8192, 2)
    more, how = drafter_compile_phase(QWEN3_8B, 1, 8192, 2, aux_held=4)
    assert more.bytes - base.bytes == 4 * 8192 * 4096 * 2
    assert "4 more T × H" in how
