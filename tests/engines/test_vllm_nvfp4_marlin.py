"""NVFP4 weights repacked for vLLM's Marlin kernel: what the caching allocator counts beyond their bytes in the load
delta (helper g4l4, 2026-12-05; ``engines/vllm/nvfp4_marlin.py``).

vLLM 0.9.2–0.20.x on compute capability 8.0–9.x run a dense NVFP4 checkpoint's linear layers through Marlin
(``prepare_fp4_layer_for_marlin``); a best-fit replay of the init and each module's repack gives where the repacked
weights land.  Case: vp_673 (Gemma-4-31B-IT-NVFP4, two L4, 0.19.0)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.load_lines import ALLOCATOR_ITEM
from tpkit.engines.vllm.nvfp4_marlin import _BestFit, is_nvfp4, marlin_nvfp4_rounding_applies, marlin_repack_rounding
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.models.quant import resolve_quant
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from towers_testlib import CONFIGS, config_model  # noqa: E402

MIB = 2**20
GEMMA = "nvidia--Gemma-4-31B-IT-NVFP4"


def _qwen_nvfp4():
    """Qwen2.5-7B-Instruct's geometry with a ModelOpt NVFP4 block (every linear layer but lm_head): a test model."""
    cfg = json.loads((CONFIGS / "Qwen--Qwen2.5-7B-Instruct.json").read_text())
    cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
                                  "ignore": ["lm_head"]}
    return from_config_dict(cfg, name="qwen2.5-7b-nvfp4-test", source="test")


def _line(model, gpu, version, tp=1, **kw):
    options = VllmOptions(engine_version=version, max_model_len=4096, **kw)
    plan = get_engine("vllm").plan(model, lookup_gpu(gpu), ParallelSpec(tp=tp), options)
    return next((l.bytes.bytes for l in plan.ledger.items if l.item == ALLOCATOR_ITEM), 0)


def test_best_fit_allocator_rules():
    a = _BestFit()
    w = a.malloc(int(55.125 * MIB))          # fresh segment 56 MiB, 0.875 left: not split, counted whole
    assert a.counted(w, 0) == 56 * MIB
    t = a.malloc(int(27.5625 * MIB))         # fresh 28 MiB segment
    a.free(w)
    again = a.malloc(int(55.125 * MIB))      # the freed 56 MiB block is the best fit: counted whole again
    assert a.counted(again, 0) == 56 * MIB
    a.free(again)
    cut = a.malloc(int(13.78 * MIB))         # from the free 56 MiB block: > 1 MiB left, split, counted exactly
    assert a.counted(cut, 0) == -(-int(13.78 * MIB) // 512) * 512
    assert a.malloc(MIB) is None             # the small pool (≤ 1 MiB) is not modelled
    assert a.counted(t, 0) == 28 * MIB


def test_gemma4_31b_tp2_by_hand():
    model = config_model(GEMMA)
    quant = resolve_quant(model.quant, None)
    assert is_nvfp4(quant)
    extra, n = marlin_repack_rounding(model, ParallelSpec(tp=2), quant, 2)
    # gate_up 2 × 10,752 × 5,376 / 2 B = 55.125 MiB and down 5,376 × 10,752 / 2 B = 27.5625 MiB land in freed blocks
    # of 56 / 28 MiB in all 60 layers (+0.875 / +0.4375); the full-attention qkv (bf16, ignored by the checkpoint:
    # q 8,192 + k 1,024 + the V slot vLLM keeps for k_eq_v = 105 MiB) keeps 1 MiB of its 106 MiB segment (10
    # layers); the fp8 scales and their 512 B rounding add under 1 MiB
    by_hand = 60 * (0.875 + 0.4375) * MIB + 10 * MIB
    assert by_hand <= extra.bytes <= by_hand + MIB
    assert n == 129


def test_tp4_down_weights_are_cut_from_larger_blocks():
    model = config_model(GEMMA)
    quant = resolve_quant(model.quant, None)
    extra, _ = marlin_repack_rounding(model, ParallelSpec(tp=4), quant, 2)
    # a fresh segment would count 60 × (0.4375 + 0.2266) MiB of the MLP weights and 50 × 1 MiB of the 21 MiB o_proj;
    # the 13.78 MiB down weights are carved from the gate_up temporaries' free 28 MiB blocks, so less is counted
    fresh = 60 * (0.4375 + 0.2266) * MIB + 50 * MIB
    assert 50 * MIB < extra.bytes < fresh - 5 * MIB


def test_vp_673_plan_charges_it_on_the_l4_and_not_on_blackwell():
    model = config_model(GEMMA)
    l4 = _line(model, "L4", "0.19.0", tp=2, kv_cache_dtype="fp8")
    assert 88.75 * MIB <= l4 <= 89.75 * MIB
    # compute capability 12.0 (RTX PRO 6000): FlashInfer / CUTLASS FP4, not Marlin: no line (vp_613's set-up)
    assert _line(model, "RTX-PRO-6000", "0.19.1", kv_cache_dtype="fp8") == 0


@pytest.mark.parametrize("version, gpu, expected", [
    ("0.8.5", "A100-80GB", False),   # before the Marlin NVFP4 path (0.8.5 modelopt.py has none)
    ("0.9.2", "A100-80GB", True),    # first release read with it
    ("0.20.0", "A100-80GB", True),   # MarlinNvFp4LinearKernel, same repack
    ("0.21.0", "A100-80GB", False),  # weights load under max_split_size_mb 20: not replayed
    ("0.19.0", "L4", True),          # 8.9
    ("0.19.0", "H100-SXM-80GB", True),   # 9.0: no FP4 tensor cores, Marlin
    ("0.19.0", "B200", False),       # 10.0: CUTLASS / FlashInfer
    ("0.19.0", "T4", False),         # 7.5: Marlin only from 0.19's is_fp4_marlin_supported, not applied
])
def test_boundaries(version, gpu, expected):
    line = _line(_qwen_nvfp4(), gpu, version)
    # Qwen2.5-7B NVFP4: the bf16 embedding and lm_head (1,039.5 MiB each) keep 0.5 MiB each; the replay adds what
    # the repacked tensors keep (4.05 MiB in all)
    assert (line > MIB) if expected else (line == 0)


def test_rule_inputs():
    quant = resolve_quant(config_model(GEMMA).quant, None)
    kw = dict(release=(0, 19, 0), compute_capability=(8, 9))
    assert marlin_nvfp4_rounding_applies(quant, rocm=False, moe=False, **kw)
    assert not marlin_nvfp4_rounding_applies(quant, rocm=True, moe=False, **kw)
    assert not marlin_nvfp4_rounding_applies(quant, rocm=False, moe=True, **kw)  # MoE experts: not replayed
    assert not marlin_nvfp4_rounding_applies(None, rocm=False, moe=False, **kw)
    awq = resolve_quant(config_model("Qwen--Qwen2.5-7B-Instruct-AWQ").quant, None)
    assert not is_nvfp4(awq)
    assert not marlin_nvfp4_rounding_applies(awq, rocm=False, moe=False, **kw)
