"""ROCm FP8 on gfx94x (helper pl37, 2026-12-07, session 37): the e4m3fn → e4m3fnuz bool mask that ROCm vLLM
0.9–0.20 counts in 'Model loading took' (``engines.vllm.rocm_fnuz_load``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.rocm_fnuz_load import FNUZ_ITEM, fnuz_gpu, fnuz_mask_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIG = Path(__file__).resolve().parent.parent / "validation" / "configs" / "MiniMaxAI--MiniMax-M2.5.json"


def minimax():
    return from_config_dict(json.loads(CONFIG.read_text()), name="MiniMaxAI/MiniMax-M2.5", source=str(CONFIG))


def _line(gpu: str, version: str):
    r = plan_vllm(minimax(), lookup_gpu(gpu), ParallelSpec(tp=4),
                  VllmOptions(engine_version=version, max_model_len=8192, enforce_eager=True))
    return [it for it in r.ledger.items if it.item == FNUZ_ITEM]


def test_the_mask_is_one_layers_w13_at_a_byte_per_element():
    # 256 experts × 2 × 1,536 / 4 × 3,072 hidden = 603,979,776 B (a whole 2 MiB multiple)
    assert int(fnuz_mask_bytes(minimax(), ParallelSpec(tp=4))) == 256 * 2 * 384 * 3072


def test_mi300x_fp8_load_before_021_carries_the_mask():
    lines = _line("MI300X", "0.16.0")
    assert len(lines) == 1 and int(lines[0].bytes) == 603_979_776


@pytest.mark.parametrize("gpu, version", [("MI355X", "0.16.0"), ("MI300X", "0.21.0"), ("H100-SXM-80GB", "0.16.0")])
def test_no_mask_on_gfx950_from_021_or_on_cuda(gpu, version):
    assert _line(gpu, version) == []


def test_fnuz_parts():
    assert fnuz_gpu("MI300X") and fnuz_gpu("MI325X") and fnuz_gpu("AMD Instinct MI300X")
    assert not fnuz_gpu("MI355X") and not fnuz_gpu("H100-SXM-80GB") and not fnuz_gpu(None)
