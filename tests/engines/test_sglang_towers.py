"""SGLang ``--language-model-only`` (helper lmo, 2026-12-04; ``engines/sglang/towers.py``): from 0.5.18 (0.5.17
refuses it) Qwen3-VL and its subclasses (Qwen3-VL-MoE, Qwen3.5) build no vision tower, so its weights leave the
load; other families (Qwen2.5-VL, Gemma 3 / 4) keep it; the default fraction drops its multimodal factor.
Configs are the real ones of the validation set."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tpkit.engines.sglang import SglangOptions
from tpkit.engines.sglang.load import planned_weights
from tpkit.engines.sglang.towers import tower_not_built
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clirun import cli, refused  # noqa: E402

from towers_testlib import CONFIGS, config_model as _model, tower_bytes as _tower  # noqa: E402


@pytest.mark.parametrize("stem, dropped", [
    ("Qwen--Qwen3-VL-2B-Instruct", True), ("Qwen--Qwen3-VL-30B-A3B-Instruct", True), ("Qwen--Qwen3.5-9B", True),
    ("Qwen--Qwen3.6-27B", True), ("Qwen--Qwen2.5-VL-7B-Instruct", False), ("google--gemma-3-27b-it", False),
    ("google--gemma-4-26B-A4B-it", False)])
def test_language_model_only_drops_the_qwen3_vl_tower_only(stem, dropped):
    model = _model(stem)
    full = planned_weights(model, ParallelSpec(), SglangOptions(engine_version="0.5.23"))
    cut = planned_weights(model, ParallelSpec(), SglangOptions(engine_version="0.5.18", language_model_only=True))
    assert _tower(full) > 0
    if dropped:
        assert _tower(cut) == 0 and cut.bytes_per_rank.bytes == full.bytes_per_rank.bytes - _tower(full)
        assert any(l.source.startswith("vision tower not loaded: --language-model-only") for l in cut.lines)
    else:
        assert cut.bytes_per_rank == full.bytes_per_rank and tower_not_built(model, language_model_only=True) == ""


def test_flag_refused_before_0_5_18():
    with pytest.raises(PlanInputError, match="from SGLang 0.5.18"):
        SglangOptions(engine_version="0.5.17", language_model_only=True)
    SglangOptions(engine_version="0.5.18", language_model_only=True)


def test_cli_narrates_the_tower_and_drops_the_vlm_factor(capsys):
    base = ("plan", str(CONFIGS / "Qwen--Qwen3-VL-2B-Instruct.json"), "--gpu", "H100", "--engine", "sglang",
            "--engine-version", "0.5.23")
    code, full, _ = cli(capsys, *base)
    assert code == 0 and "multimodal ×" in full and "vision tower not loaded" not in full
    code, out, _ = cli(capsys, *base, "--language-model-only")
    out = " ".join(out.split())  # the table wraps its sources
    assert code == 0 and "vision tower not loaded" in out and "no multimodal factor" in out
    refused(capsys, *base[:7], "0.5.17", "--language-model-only", says=("--language-model-only", "0.5.18"))


def test_multimodal_caches_not_reserved_from_0_5_20():
    """0.5.20 configs/model_config.py: is_multimodal requires not is_lm_only, and mm_runtime_reservation_gb reads
    it; 0.5.18 computes is_multimodal before the flag reaches the HF config (the reservation stays)."""
    from tpkit.engines.sglang.multimodal import mm_reservation
    from tpkit.hardware.catalog import lookup_gpu

    model, gpu = _model("Qwen--Qwen2.5-VL-7B-Instruct"), lookup_gpu("H100")
    mib = gpu.total_bytes.bytes / 2**20
    assert mm_reservation(model, gpu, mib, "0.5.20", None)[0].bytes > 0
    assert mm_reservation(model, gpu, mib, "0.5.20", None, language_model_only=True)[0].bytes == 0
    assert mm_reservation(model, gpu, mib, "0.5.18", None, language_model_only=True)[0].bytes > 0
