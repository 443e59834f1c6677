"""The V1 model runner's ``inputs_embeds`` buffer (engines/vllm/runner_buffers.py; helper enc14, 2026-12-05, session
14): made in ``GPUModelRunner.__init__`` after ``gpu_worker.init_device``'s init snapshot (vllm 0.27.1 wheel), so
charged only where ``memory_profiling`` counts ``total_consumed`` (``memory_rule == "consumed"``, vLLM ≥ 0.27.0);
never on Model Runner V2, whose input buffers have no such tensor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.runner_buffers import INPUTS_EMBEDS_ITEM, inputs_embeds_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"


def _model(name="Qwen--Qwen3-8B-FP8.json"):
    return from_config_dict(json.loads((CONFIGS / name).read_text()), name=name, source=name)


def _line(version, **kw):
    kw.setdefault("vllm_use_v2_model_runner", "0")
    result = plan_vllm(_model(), lookup_gpu("H100-SXM-80GB"), ParallelSpec(),
                       VllmOptions(engine_version=version, max_model_len=4096, max_num_batched_tokens=8192, **kw))
    return [li for li in result.ledger.items if li.item == INPUTS_EMBEDS_ITEM], result


def test_bytes_by_hand():
    """vp_672 per rank: T 8,192 × H 5,120 (not sharded) × 2 B = 80 MiB."""
    assert inputs_embeds_bytes(max_num_batched_tokens=8192, hidden_size=5120, act_bytes=2) == Bytes(83_886_080)
    with pytest.raises(ValueError, match="hidden_size must be a positive integer, got 0"):
        inputs_embeds_bytes(max_num_batched_tokens=8192, hidden_size=0, act_bytes=2)


def test_release_boundary_0_26_vs_0_27():
    """0.26.x charges the torch increase over the profile (the buffer predates it): no line; 0.27.0 charges the
    free-memory drop since the init snapshot: the line, and KV memory shrinks by it."""
    before, r26 = _line("0.26.0")
    after, r27 = _line("0.27.0")
    assert before == []
    assert len(after) == 1 and after[0].bytes == Bytes(8192 * 4096 * 2)
    later, _ = _line("0.29.0")
    assert len(later) == 1


def test_not_on_model_runner_v2():
    lines, result = _line("0.29.0", vllm_use_v2_model_runner=True)
    assert result.extra.get("engine_generation") == "V1"
    assert lines == []


def test_not_on_v0():
    lines, _ = _line("0.6.6")
    assert lines == []
