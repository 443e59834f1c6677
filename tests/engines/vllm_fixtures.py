"""Shared model/GPU values for the vLLM policy tests (real configs from tests/validation/data_vllm)."""

from __future__ import annotations

import json
from pathlib import Path

from tpkit.hardware.gpu import GpuSpec
from tpkit.models.config import from_config_dict
from tpkit.models.spec import MlaSpec, ModelSpec
from tpkit.units import Bytes

CONFIGS = Path(__file__).resolve().parent.parent / "validation" / "data_vllm" / "configs"

H200 = GpuSpec(name="H200-SXM-141GB", total_bytes=Bytes(150_109_880_320), total_source="measured",
               compute_capability=(9, 0))
A100 = GpuSpec(name="A100-SXM-80GB", total_bytes=Bytes(84_987_740_160), total_source="test",
               compute_capability=(8, 0))


def config_model(stem: str) -> ModelSpec:
    """A ModelSpec from one of the copied validation configs."""
    path = CONFIGS / f"{stem}.json"
    return from_config_dict(json.loads(path.read_text()), name=stem, source=str(path))


def llama3_8b() -> ModelSpec:
    return config_model("meta-llama--Llama-3.1-8B-Instruct")


def qwen25_14b() -> ModelSpec:
    """Qwen2.5-14B-Instruct (``Qwen2ForCausalLM``), the validation set's config (tests/validation/configs)."""
    path = CONFIGS.parent.parent / "configs" / "Qwen--Qwen2.5-14B-Instruct.json"
    return from_config_dict(json.loads(path.read_text()), name="Qwen/Qwen2.5-14B-Instruct", source=str(path))


def deepseek_v3_like() -> ModelSpec:
    """DeepSeek-V3's attention facts (61 layers, MLA 512 + 64) on a small dense body."""
    return ModelSpec(name="dsv3-like", source="test", architecture="DeepseekV3ForCausalLM", model_type="deepseek_v3",
                     hidden_size=7168, intermediate_size=18432, num_layers=61, num_attention_heads=128,
                     num_kv_heads=128, head_dim=192, v_head_dim=128, vocab_size=129280,
                     max_position_embeddings=163840,
                     mla=MlaSpec(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128))


class GivenWeights:
    """A weights plan with a fixed per-rank size (the WeightsPlan protocol: ``bytes_per_rank``)."""

    def __init__(self, per_rank: Bytes, method: str = "given by the test") -> None:
        self.bytes_per_rank = per_rank
        self.method = method
