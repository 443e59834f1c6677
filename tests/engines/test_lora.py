"""LoRA GPU buffers of vLLM (``engines.vllm.lora``) and SGLang (``engines.sglang.lora``): hand-computed totals,
the release boundaries on both sides, the refusals, and the ledger lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.sglang.lora import lora_pool, normalise_targets, supported_targets
from tpkit.engines.vllm.lora import allowed_ranks, lora_buffers
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "tests/validation/configs/Qwen--Qwen3-8B.json"


@pytest.fixture(scope="module")
def qwen3_8b():
    return from_config_dict(json.loads(CONFIG.read_text()), name="Qwen/Qwen3-8B", source=CONFIG.name)


# Qwen3-8B: hidden 4096, 32 heads / 8 KV heads of 128, intermediate 12288, 36 layers, vocab 151,936
H, Q, KV, I, L, V = 4096, 32 * 128, 8 * 128, 12288, 36, 151936


def _vllm_layer(r: int, tp: int) -> int:
    qkv = 3 * r * H + (Q + 2 * KV) // tp * r
    o = r * Q // tp + H * r
    gate_up = 2 * r * H + 2 * I // tp * r
    down = r * I // tp + H * r
    return qkv + o + gate_up + down


def _punica(tokens: int, seqs: int) -> int:
    return -(-tokens // 8) * 8 * 56 + 24 * seqs


def test_vllm_buffers_hand_computed_012_on(qwen3_8b):
    got = lora_buffers(qwen3_8b, ParallelSpec(tp=2), release=(0, 22, 1), max_loras=1, max_lora_rank=16,
                       fully_sharded=False, lora_bytes=2, model_bytes=2, max_num_batched_tokens=2048,
                       max_num_seqs=1)
    emb = V * 16 + H * 16 + 16 * H + V * 16
    assert got.bytes.bytes == (L * _vllm_layer(16, 2) + emb) * 2 + _punica(2048, 1)


def test_vllm_extra_vocab_boundary(qwen3_8b):
    """0.11.x keeps lora_extra_vocab_size (256): embeddings_tensors, padded logits B, extra rows; 0.12.0 drops it."""
    kw = dict(max_loras=2, max_lora_rank=8, fully_sharded=False, lora_bytes=2, model_bytes=2,
              max_num_batched_tokens=2048, max_num_seqs=8)
    old = lora_buffers(qwen3_8b, ParallelSpec(tp=1), release=(0, 11, 0), **kw)
    new = lora_buffers(qwen3_8b, ParallelSpec(tp=1), release=(0, 12, 0), **kw)
    n, r, e = 2, 8, 256
    v_pad = -(-(V + e) // 256) * 256
    old_emb = (n * (V + e) * r + n * H * r + n * r * H + n * v_pad * r) * 2 + 2 * n * e * H * 2 + 2 * e * H * 2
    new_emb = (n * V * r + n * H * r + n * r * H + n * V * r) * 2
    assert old.bytes.bytes - new.bytes.bytes == old_emb - new_emb
    assert "extra-vocab" in old.source and "extra-vocab" not in new.source


def test_vllm_fully_sharded(qwen3_8b):
    kw = dict(release=(0, 22, 1), max_loras=1, max_lora_rank=16, lora_bytes=2, model_bytes=2,
              max_num_batched_tokens=2048, max_num_seqs=1)
    full = lora_buffers(qwen3_8b, ParallelSpec(tp=2), fully_sharded=False, **kw)
    sharded = lora_buffers(qwen3_8b, ParallelSpec(tp=2), fully_sharded=True, **kw)
    # column A: 5 slices × rank/2 × H saved; row B: 2 × H/2 × rank saved, per layer
    assert full.bytes.bytes - sharded.bytes.bytes == L * (5 * 8 * H + 2 * (H // 2) * 16) * 2
    with pytest.raises(PlanInputError, match="not divisible"):
        lora_buffers(qwen3_8b, ParallelSpec(tp=4), fully_sharded=True, **{**kw, "max_lora_rank": 1})


def test_vllm_moe_experts_from_012():
    from tpkit.models.spec import MoeSpec, ModelSpec

    moe = ModelSpec(name="m", source="t", architecture="X", model_type="x", hidden_size=2048, intermediate_size=6144,
                    num_layers=4, num_attention_heads=16, num_kv_heads=4, head_dim=128, v_head_dim=128,
                    vocab_size=32000, max_position_embeddings=4096,
                    moe=MoeSpec(num_experts=8, experts_per_token=2, moe_intermediate_size=768))
    kw = dict(max_loras=1, max_lora_rank=8, fully_sharded=False, lora_bytes=2, model_bytes=2,
              max_num_batched_tokens=2048, max_num_seqs=8)
    before = lora_buffers(moe, ParallelSpec(tp=1), release=(0, 11, 0), **kw)
    after = lora_buffers(moe, ParallelSpec(tp=1), release=(0, 12, 0), **kw)
    h, r, v = 2048, 8, 32000
    attn = 3 * r * h + (2048 + 2 * 512) * r + r * 2048 + h * r
    router = r * h + 8 * r
    experts = 8 * (2 * r * h + 2 * 768 * r + r * 768 + h * r)
    emb = v * r + h * r + r * h + v * r
    assert after.bytes.bytes == (4 * (attn + router + experts) + emb) * 2 + _punica(2048, 8)
    assert any("routed experts" in n for n in before.notes) and not after.notes
    assert "experts' w13/w2" in after.source


@pytest.mark.parametrize("release,ranks", [((0, 5, 4), (8, 16, 32, 64)), ((0, 6, 6), (8, 16, 32, 64, 128, 256)),
                                           ((0, 11, 0), (8, 16, 32, 64, 128, 256, 320, 512)),
                                           ((0, 12, 0), (1, 8, 16, 32, 64, 128, 256, 320, 512))])
def test_vllm_allowed_ranks(release, ranks):
    assert allowed_ranks(release) == ranks


def _plan(engine, model, tp=2, version=None, **kw):
    e = get_engine(engine)
    opts = e.options(engine_version=version or ("0.22.1" if engine == "vllm" else "0.5.10"), **kw)
    return e.plan(model, lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=tp), opts)


def test_vllm_plan_line_and_kv(qwen3_8b):
    base = _plan("vllm", qwen3_8b)
    lora = _plan("vllm", qwen3_8b, enable_lora=True, max_loras=4, max_lora_rank=64)
    line = lora.ledger.get("LoRA adapter buffers (A/B stacks)")
    assert line.kind == "use" and "create_lora_weights" in line.source
    assert lora.kv_tokens < base.kv_tokens
    with pytest.raises(KeyError):
        base.ledger.get("LoRA adapter buffers (A/B stacks)")


def test_vllm_lora_flags_without_enable_are_noted(qwen3_8b):
    plan = _plan("vllm", qwen3_8b, max_loras=4)
    assert plan.kv_tokens == _plan("vllm", qwen3_8b).kv_tokens
    assert any("without --enable-lora" in w for w in plan.warnings)


@pytest.mark.parametrize("kw,match", [
    (dict(max_lora_rank=0), "whole number"), (dict(max_loras=-1), "whole number"),
    (dict(max_lora_rank=24), "refused by vLLM"), (dict(max_loras=4, max_cpu_loras=2), "max_cpu_loras"),
    (dict(lora_extra_vocab_size=256), "up to vLLM 0.11")])
def test_vllm_refusals(kw, match):
    with pytest.raises(PlanInputError, match=match):
        get_engine("vllm").options(engine_version="0.22.1", enable_lora=True, **kw)


def test_vllm_rank_boundary_05_06():
    get_engine("vllm").options(engine_version="0.6.6", enable_lora=True, max_lora_rank=128)
    with pytest.raises(PlanInputError, match="refused"):
        get_engine("vllm").options(engine_version="0.5.4", enable_lora=True, max_lora_rank=128)


def _sg_layer(r: int, tp: int, split: bool = True) -> int:
    s = tp if split else 1
    return (3 * r * H + (Q + 2 * KV) // s * r) + (r * Q // s + H * r) + (2 * r * H + 2 * I // s * r) \
        + (r * I // s + H * r)


def test_sglang_pool_hand_computed(qwen3_8b):
    got = lora_pool(qwen3_8b, ParallelSpec(tp=2), (0, 5, 10), max_loras_per_batch=8, max_lora_rank=16,
                    targets=normalise_targets(None, (0, 5, 10)), elem_bytes=2, targets_given=False)
    assert got.bytes.bytes == 8 * L * _sg_layer(16, 2) * 2
    assert any("not given" in n for n in got.notes)


def test_sglang_tp_split_boundary(qwen3_8b):
    """0.4.2's lora_manager.py buffers are not split over TP; 0.4.10's mem_pool.py splits them."""
    kw = dict(max_loras_per_batch=2, max_lora_rank=8, targets=("qkv_proj", "o_proj", "gate_up_proj", "down_proj"),
              elem_bytes=2, targets_given=True)
    assert lora_pool(qwen3_8b, ParallelSpec(tp=2), (0, 4, 2), **kw).bytes.bytes == 2 * L * _sg_layer(8, 2, False) * 2
    assert lora_pool(qwen3_8b, ParallelSpec(tp=2), (0, 4, 10), **kw).bytes.bytes == 2 * L * _sg_layer(8, 2) * 2


def test_sglang_embedding_boundaries(qwen3_8b):
    """'all' adds embed_tokens / lm_head from 0.5.7; the lm_head B is split over TP from 0.5.10."""
    assert "lm_head" not in normalise_targets("all", (0, 5, 6))
    assert normalise_targets("all", (0, 5, 7))[-2:] == ("embed_tokens", "lm_head")
    with pytest.raises(PlanInputError, match="choices"):
        normalise_targets("lm_head", (0, 5, 6))
    kw = dict(max_loras_per_batch=1, max_lora_rank=8, targets=("lm_head",), elem_bytes=2, targets_given=True)
    assert lora_pool(qwen3_8b, ParallelSpec(tp=2), (0, 5, 9), **kw).bytes.bytes == (8 * H + V * 8) * 2
    assert lora_pool(qwen3_8b, ParallelSpec(tp=2), (0, 5, 10), **kw).bytes.bytes == (8 * H + V // 2 * 8) * 2
    assert "qkv_proj" in supported_targets((0, 5, 7)) and "qkv_proj" not in supported_targets((0, 5, 6))


def test_sglang_pool_comes_off_the_budget(qwen3_8b):
    base = _plan("sglang", qwen3_8b)
    lora = _plan("sglang", qwen3_8b, enable_lora=True, max_lora_rank=16)
    line = lora.ledger.get("LoRA memory pool (A/B buffers)")
    assert line.kind == "use"
    assert lora.kv_tokens < base.kv_tokens
    rest = base.ledger.get("KV budget (rest)").bytes.bytes - lora.ledger.get("KV budget (rest)").bytes.bytes
    assert rest == line.bytes.bytes  # off the budget like the weights, not off the slack
    budget = lora.ledger.get("KV budget (rest)")
    assert "LoRA memory pool" in budget.source


@pytest.mark.parametrize("kw,match", [
    (dict(enable_lora=True), "needs --max-lora-rank"), (dict(enable_lora=True, max_lora_rank=0), "whole number"),
    (dict(max_loras_per_batch=0), "asserts"),
    (dict(enable_lora=True, max_lora_rank=8, lora_target_modules="all o_proj"), "only module"),
    (dict(enable_lora=True, max_lora_rank=8, lora_target_modules="w1"), "choices")])
def test_sglang_refusals(kw, match):
    with pytest.raises(PlanInputError, match=match):
        get_engine("sglang").options(engine_version="0.5.10", **kw)


def test_sglang_flags_without_enable_are_noted(qwen3_8b):
    plan = _plan("sglang", qwen3_8b, max_loras_per_batch=4)
    assert plan.kv_tokens == _plan("sglang", qwen3_8b).kv_tokens
    assert any("without --enable-lora" in w for w in plan.warnings)


def test_cli_bad_rank_exit_2():
    out = subprocess.run([sys.executable, "-m", "tpkit", "plan", str(CONFIG), "--gpu", "H100-SXM-80GB", "--engine",
                          "vllm", "--enable-lora", "--max-lora-rank", "0"], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 2 and "Traceback" not in out.stderr and "--max-lora-rank" in out.stderr


def test_cli_max_loras_to_sglang_names_its_flag():
    out = subprocess.run([sys.executable, "-m", "tpkit", "plan", str(CONFIG), "--gpu", "H100-SXM-80GB", "--engine",
                          "sglang", "--max-loras", "2"], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 2 and "--max-loras-per-batch" in out.stderr
