"""Vision towers (``tpkit.models.vision``): exact counts against published totals, bytes per rank under TP.

Published figures (2026-12-01, found with the public code search; the index id names the file):
  - Qwen2.5-VL-7B-Instruct: a training script printed 8,292,166,656 parameters in all, 676,550,144 in ``visual``
    and 7,615,616,512 after freezing it (index id 49095663873).
  - Qwen2-VL-7B-Instruct: 8,291,375,616 (a table of VLM parameter counts, index id 12439498600); its language
    model has the Qwen2.5-VL-7B shapes (28 × 3584, 18944, vocab 152064, untied), 7,615,616,512.
  - Llama-3.2-11B-Vision-Instruct: 10,670,220,835 (same table).
  - Qwen3-VL-8B-Instruct: 8,767,123,696 (HF safetensors metadata quoted in several public files, e.g. a GGUF
    writer's ``general.parameter_count``, index id 52216676248).
  - Kimi-K2.5: every ``vision_tower.*`` / ``mm_projector.*`` tensor shape of the released checkpoint, listed in a
    public weight-statistics report (index id 62530201892), copied below as shapes.
Configs: the released ``vision_config`` blocks as quoted in public copies (the catalog and the validation configs
cite theirs; the Qwen2-VL one is ``Qwen2VLVisionConfig``'s defaults, which are the 7B's, and its module tree as
printed in zhenhua32/Qwen2-VL READ.md).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tpkit.errors import ConfigError
from tpkit.models import from_config_dict, load_model
from tpkit.models.params import count_params
from tpkit.models.vision import TOWER_TP_SHARDED, tower_params_per_rank, vision_tower
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"

QWEN2_VL_7B = {"depth": 32, "embed_dim": 1280, "hidden_size": 3584, "hidden_act": "quick_gelu", "mlp_ratio": 4,
               "num_heads": 16, "in_chans": 3, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}

KIMI_K25_TENSORS = {  # name: shape, 27 blocks where marked (the report's "×27 blocks")
    "blocks.mlp.fc0.bias": ([4304], 27), "blocks.mlp.fc0.weight": ([4304, 1152], 27),
    "blocks.mlp.fc1.bias": ([1152], 27), "blocks.mlp.fc1.weight": ([1152, 4304], 27),
    "blocks.norm0.bias": ([1152], 27), "blocks.norm0.weight": ([1152], 27),
    "blocks.norm1.bias": ([1152], 27), "blocks.norm1.weight": ([1152], 27),
    "blocks.wo.bias": ([1152], 27), "blocks.wo.weight": ([1152, 1152], 27),
    "blocks.wqkv.bias": ([3456], 27), "blocks.wqkv.weight": ([3456, 1152], 27),
    "final_layernorm.bias": ([1152], 1), "final_layernorm.weight": ([1152], 1),
    "patch_embed.pos_emb.weight": ([64, 64, 1152], 1), "patch_embed.proj.bias": ([1152], 1),
    "patch_embed.proj.weight": ([1152, 3, 14, 14], 1),
    "mm_projector.pre_norm.bias": ([1152], 1), "mm_projector.pre_norm.weight": ([1152], 1),
    "mm_projector.proj.0.bias": ([4608], 1), "mm_projector.proj.0.weight": ([4608, 4608], 1),
    "mm_projector.proj.2.bias": ([7168], 1), "mm_projector.proj.2.weight": ([7168, 4608], 1),
}


def _config(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text())


def _within(ours: int, published: int, share: float = 0.001) -> bool:
    return abs(ours - published) <= share * published


def test_qwen2_5_vl_7b_tower_equals_the_published_visual_count():
    cfg = _config("Qwen--Qwen2.5-VL-7B-Instruct.json")
    tower = vision_tower(cfg["vision_config"], 3584, "qwen2_5_vl")
    assert tower.family == "qwen2_5_vl" and _within(tower.params, 8292166656 - 7615616512)
    assert tower.params == 676550144  # exact, in fact


def test_qwen2_vl_7b_tower_equals_total_minus_text():
    tower = vision_tower(QWEN2_VL_7B, 3584, "qwen2_vl")
    assert tower.family == "qwen2_vl" and _within(tower.params, 8291375616 - 7615616512)


def test_mllama_11b_tower_equals_total_minus_text():
    cfg = _config("meta-llama--Llama-3.2-11B-Vision-Instruct.json")
    spec = from_config_dict(cfg, name="Llama-3.2-11B-Vision", source="t")
    # text model: Llama-3.1-8B (8,030,261,248 published) + 8 cross-attention layers (q/k/v/o, MLP, 2 RMSNorms,
    # q/k norms of head_dim 128, 2 gates) + 8 extra embedding rows (Mllama's vocab_size + 8)
    cross = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096 + 2 * 128 + 2
    text = 8030261248 + 8 * cross + 8 * 4096
    assert spec.vision_params is not None and _within(spec.vision_params, 10670220835 - text)
    tower = vision_tower(cfg["vision_config"], 4096, "mllama")
    assert tower.projector == 7680 * 4096 and tower.attention == 40 * 4 * 1280 ** 2


def test_qwen3_vl_8b_tower_plus_text_equals_the_published_total():
    spec = load_model("Qwen/Qwen3-VL-8B-Instruct")
    assert spec.vision_params is not None
    assert _within(count_params(spec) + spec.vision_params, 8767123696)


def test_kimi_k25_moonvit_equals_the_checkpoint_tensor_list():
    listed = sum(math.prod(shape) * times for shape, times in KIMI_K25_TENSORS.values())
    spec = load_model("moonshotai/Kimi-K2.5")
    assert spec.vision_params == listed == 471143920


def test_llama4_scout_tower_matches_the_module_table_and_the_on_disk_bytes():
    spec = load_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    tower = vision_tower(spec.extra["vision_config"], 5120, "llama4")
    # the module table of index id 41112263523: per layer q/k/v/o 4 × 1,982,464 (+ 4 × 1408 biases), fc1/fc2
    # 2 × 7,929,856 (+ 5632 + 1408), 2 LayerNorms 4 × 1408; adapter fc1 23,068,672 + fc2 16,777,216; projector
    # 20,971,520; class 1408, positions 812,416, patch 827,904, pre/post LayerNorms 4 × 1408
    layer = 4 * 1982464 + 4 * 1408 + 2 * 7929856 + 5632 + 1408 + 4 * 1408
    table = 34 * layer + 23068672 + 16777216 + 20971520 + 1408 + 812416 + 827904 + 4 * 1408
    assert tower.family == "llama4" and tower.params == table == spec.vision_params
    on_disk = spec.extra["catalog_facts"]["checkpoint"]["on_disk_bytes_reported"]
    assert _within((count_params(spec) + tower.params) * 2, on_disk, 1e-6)


def test_gemma3_siglip_unchanged():
    assert load_model("google/gemma-3-27b-it").vision_params == 423060336


def test_llava_next_clip_tower_projector_and_newline():
    cfg = _config("llava-hf--llava-v1.6-mistral-7b-hf.json")
    tower = vision_tower(cfg["vision_config"], 4096, cfg["model_type"])
    # CLIP ViT-L/14-336: 24 layers × 1024 / 4096; projector 1024→4096→4096 (+ biases) and image_newline 4096
    assert tower.family == "clip" and tower.projector == 1024 * 4096 + 4096 * 4096
    assert tower.params == 324491264


def test_per_rank_params_follow_each_engine():
    kimi = vision_tower(load_model("moonshotai/Kimi-K2.5").extra["vision_config"], 7168, "kimi_k25")
    assert tower_params_per_rank(kimi, 1, engine="sglang") == kimi.params
    # SGLang 0.5.9 kimi_k25.py: only the attention is split; vLLM: attention and MLP, projector replicated
    assert tower_params_per_rank(kimi, 8, engine="sglang") == kimi.params - kimi.attention + kimi.attention // 8
    assert tower_params_per_rank(kimi, 8, engine="vllm") == (kimi.params - kimi.attention - kimi.mlp
                                                             + (kimi.attention + kimi.mlp) // 8)
    qwen = vision_tower(_config("Qwen--Qwen2.5-VL-7B-Instruct.json")["vision_config"], 3584, "qwen2_5_vl")
    split = qwen.attention + qwen.mlp + qwen.projector
    for engine in ("sglang", "vllm", None):
        assert tower_params_per_rank(qwen, 4, engine=engine) == qwen.params - split + math.ceil(split / 4)
    mllama = vision_tower(_config("meta-llama--Llama-3.2-11B-Vision-Instruct.json")["vision_config"], 4096, "mllama")
    # SGLang keeps the 7680→4096 projector whole (ReplicatedLinear); vLLM 0.6.6 splits it
    diff = tower_params_per_rank(mllama, 2, engine="sglang") - tower_params_per_rank(mllama, 2, engine="vllm")
    assert diff == mllama.projector // 2
    assert all(engine in ("sglang", "vllm") for engine, _ in TOWER_TP_SHARDED)


def test_vision_line_bytes_per_rank_under_tp():
    spec = load_model("moonshotai/Kimi-K2.5")
    tower = vision_tower(spec.extra["vision_config"], 7168, "kimi_k25")
    for engine in ("sglang", "vllm"):
        plan = plan_weights(spec, ParallelSpec(tp=8), engine=engine)
        line = next(l for l in plan.lines if l.item == "vision tower")
        assert line.bytes.bytes == tower_params_per_rank(tower, 8, engine=engine) * 2  # bf16, outside the INT4 scope
        assert "moonvit" in line.source
    whole = plan_weights(spec, ParallelSpec())
    assert next(l for l in whole.lines if l.item == "vision tower").bytes.bytes == 471143920 * 2


def test_sglang_drops_the_uncounted_tower_band_once_the_tower_is_counted():
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.engines.sglang.load import UNCOUNTED_TOWER_SHARE, weights_term

    cfg = _config("meta-llama--Llama-3.2-11B-Vision-Instruct.json")
    counted = from_config_dict(cfg, name="m", source="t")
    _, why = weights_term(counted, ParallelSpec(), SglangOptions(), None)
    assert "not counted" not in why
    bare = from_config_dict({k: v for k, v in cfg.items() if k != "vision_config"}, name="m", source="t")
    _, why = weights_term(bare, ParallelSpec(), SglangOptions(), None)
    assert f"{UNCOUNTED_TOWER_SHARE:.0%}" in why


@pytest.mark.parametrize("vc, wrapper, match", [
    ({"model_type": "qwen2_5_vl", "depth": 32}, "qwen2_5_vl", "lacks hidden_size, intermediate_size"),
    ({"vt_hidden_size": 1152, "vt_intermediate_size": 4304, "vt_num_hidden_layers": 27, "patch_size": 14,
      "init_pos_emb_height": 64, "init_pos_emb_width": 64, "merge_kernel_size": 2}, "kimi_k25", "merge_kernel_size"),
    ({"model_type": "mllama_vision_model", "hidden_size": 1280}, "mllama", "lacks intermediate_size"),
])
def test_a_known_tower_with_bad_sizes_is_a_config_error(vc, wrapper, match):
    with pytest.raises(ConfigError, match=match):
        vision_tower(vc, 4096, wrapper)


def test_flat_vision_config_is_multimodal():
    """Qwen2-VL / Qwen2.5-VL configs keep the text fields at the top level beside ``vision_config`` (no
    ``text_config``); SGLang's ``multimodal_model_archs`` (configs/model_config.py, 0.5.23) lists both
    architectures, so they are multimodal; a text-only config with neither is not."""
    root = Path(__file__).resolve().parents[1] / "validation" / "configs"
    for stem in ("Qwen--Qwen2-VL-2B-Instruct", "Qwen--Qwen2.5-VL-7B-Instruct"):
        cfg = json.loads((root / f"{stem}.json").read_text(encoding="utf-8"))
        assert "text_config" not in cfg and isinstance(cfg["vision_config"], dict)
        assert from_config_dict(cfg, name=stem, source=stem).is_multimodal
        text_only = {k: v for k, v in cfg.items() if k != "vision_config"}
        assert not from_config_dict(text_only, name=stem, source=stem).is_multimodal
