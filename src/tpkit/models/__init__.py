"""Model configs → ModelSpec (pure): loading, KV heads per rank, weight bytes per rank.

    load_model(name_or_path, *, hf_cache_dir=None) -> ModelSpec
    from_config_dict(cfg, *, name, source) -> ModelSpec
    weights.plan_weights(spec, parallel, *, dtype=None, quantization=None, checkpoint_dir=None) -> WeightsPlan
    kv.kv_heads_per_rank(spec, attn_tp_size) -> int
"""

from tpkit.models.config import from_config_dict
from tpkit.models.config_file import read_config_file
from tpkit.models.kv import kv_heads_per_rank
from tpkit.models.load import load_model
from tpkit.models.spec import LAYER_KINDS, LinearAttnSpec, MlaSpec, ModelSpec, MoeSpec, QuantSpec

__all__ = [
    "load_model", "from_config_dict", "read_config_file", "kv_heads_per_rank",
    "ModelSpec", "MlaSpec", "MoeSpec", "QuantSpec", "LinearAttnSpec", "LAYER_KINDS",
]
