"""Gemma 4's per-layer attention shapes and shared-KV layers, read from its text config (pure).

    in:  the text config dict (``model_type`` ``gemma4_text``: the ``text_config`` of a ``gemma4`` wrapper,
         Gemma4ForConditionalGeneration, or a Gemma4ForCausalLM config), the per-layer kinds
    out: ``Gemma4Attn``: the full-attention layers' head dim and KV heads, and how many trailing layers share KV

Keys read (the released configs' spellings; vLLM 0.19.0 – 0.29.0 ``model_executor/models/gemma4.py``
``Gemma4DecoderLayer`` / ``Gemma4Attention``, 0.29.0 ``transformers_utils/configs/gemma4.py gemma4_layer_config``):

    head_dim                      K/V head dim of the sliding layers (and of every layer without global_head_dim)
    global_head_dim               K/V head dim of the full-attention layers (absent/null → head_dim)
    attention_k_eq_v              full layers reuse K as V; then they have num_global_key_value_heads KV heads
    num_global_key_value_heads    KV heads of the full layers when attention_k_eq_v (absent/null → num_key_value_heads)
    num_kv_shared_layers          the last n layers take K/V from the last earlier non-shared layer of their type
                                  (``kv_sharing_target_layer_name``) and register no KV cache of their own
    layer_types                   required: "sliding_attention" / "full_attention" per layer
    enable_moe_block              every layer runs a routed-expert block beside its dense MLP

With ``attention_k_eq_v`` vLLM still builds one QKV projection whose V slot is loaded with the K weights and
caches V beside K (an ordinary ``Attention`` layer): the KV cache of a full layer is 2 × heads × global_head_dim.
Transformers ≥ 5.15 may write a ``per_layer_config`` table instead (``is_heterogeneous``); tpkit refuses it with a
clear error until a released config of that form is at hand.
"""

from __future__ import annotations

from tpkit.errors import ConfigError
from tpkit.models.fields import MAX_DIM, optional_bool, optional_int
from tpkit.records import dataclass

__all__ = ["GEMMA4_TEXT_TYPES", "Gemma4Attn", "gemma4_attention", "gemma4_defaults", "is_gemma4",
           "GLOBAL_HEAD_DIM_DEFAULT", "SLIDING_PATTERN_DEFAULT"]

GLOBAL_HEAD_DIM_DEFAULT = 512
"""transformers 5.25 ``Gemma4TextConfig.__post_init__``: ``global_head_dim`` absent → 512"""
SLIDING_PATTERN_DEFAULT = 6
"""transformers 5.25 ``Gemma4TextConfig``: without ``layer_types`` layer i is full when (i + 1) % 6 == 0, and the
last layer is always made full"""
SLIDING_WINDOW_DEFAULT = 512
"""transformers 5.25 ``Gemma4TextConfig.sliding_window`` default (tokens)"""

GEMMA4_TEXT_TYPES = frozenset({"gemma4_text"})
"""text model types read with these rules"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Gemma4Attn:
    """Gemma 4's attention facts beyond ``ModelSpec``: the full-attention layers' own head size and KV heads, and the
    trailing layers that share KV."""
    full_head_dim: int | None
    """head dim of the full-attention layers when it differs from head_dim"""
    full_kv_heads: int | None
    """KV heads of the full-attention layers when they differ from num_key_value_heads"""
    kv_shared_layers: int
    """trailing layers that reuse an earlier layer's KV"""


def is_gemma4(text: dict) -> bool:
    """Whether a text config is a Gemma 4 one (``GEMMA4_TEXT_TYPES``)."""
    return text.get("model_type") in GEMMA4_TEXT_TYPES


def gemma4_defaults(text: dict, num_layers: int, where: str, assumptions: list[str]) -> dict:
    """``text`` with transformers' ``Gemma4TextConfig`` defaults filled where the config is silent (each one
    recorded in ``assumptions``): layer_types (5 sliding : 1 full, the last layer full), sliding_window 512,
    global_head_dim 512; and the window as the config class turns it for ``use_bidirectional_attention: "all"``
    (w // 2 + 1).  A layer_types whose last layer is not full is made full, as transformers does (with a warning)."""
    text = dict(text)
    types = text.get("layer_types")
    if types is None:
        text["layer_types"] = ["full_attention" if (i + 1) % SLIDING_PATTERN_DEFAULT == 0 or i == num_layers - 1
                               else "sliding_attention" for i in range(num_layers)]
        assumptions.append("layer_types absent: Gemma 4 default, every 6th layer and the last one full attention "
                           "(transformers Gemma4TextConfig)")
    elif isinstance(types, list) and types and types[-1] != "full_attention" and len(types) == num_layers:
        text["layer_types"] = [*types[:-1], "full_attention"]
        assumptions.append(f"layer_types ends with {types[-1]!r}: made full_attention, as transformers' "
                           "Gemma4TextConfig forces the last layer to be")
    if text.get("sliding_window") is None:
        text["sliding_window"] = SLIDING_WINDOW_DEFAULT
        assumptions.append(f"sliding_window absent: Gemma 4 default {SLIDING_WINDOW_DEFAULT}")
    if text.get("use_bidirectional_attention") == "all" and isinstance(text["sliding_window"], int):
        text["sliding_window"] = text["sliding_window"] // 2 + 1
    if "global_head_dim" not in text:
        text["global_head_dim"] = GLOBAL_HEAD_DIM_DEFAULT
        assumptions.append(f"global_head_dim absent: Gemma 4 default {GLOBAL_HEAD_DIM_DEFAULT} for the "
                           "full-attention layers (transformers Gemma4TextConfig)")
    return text


def gemma4_attention(text: dict, kinds: tuple[str, ...], num_layers: int, head_dim: int, kv_heads: int,
                     where: str) -> Gemma4Attn:
    """The full layers' head dim / KV heads and the shared-KV layer count of a Gemma 4 text config; malformed
    fields raise ``ConfigError`` naming the field, the value and the fix."""
    if text.get("per_layer_config") is not None:
        raise ConfigError(f"{where}: Gemma 4 config with a per_layer_config table (transformers ≥ 5.15 "
                          "heterogeneous form) is not read by tpkit yet; pass the config in the flat form the "
                          "released checkpoints use (head_dim, global_head_dim, num_global_key_value_heads, "
                          "layer_types)")
    if text.get("layer_types") is None or not kinds:
        raise ConfigError(f"{where}: a Gemma 4 config needs layer_types (one \"sliding_attention\" or "
                          "\"full_attention\" per layer, as the released config.json files write it); add it")
    odd = sorted({k for k in kinds if k not in ("full", "sliding")})
    if odd:
        raise ConfigError(f"{where}: Gemma 4 layer_types may only hold \"sliding_attention\" and "
                          f"\"full_attention\", got kinds {odd}; fix the config.json")
    global_dim = optional_int(text, "global_head_dim", where, default=None, minimum=1, maximum=MAX_DIM)
    k_eq_v = optional_bool(text, "attention_k_eq_v", where)
    global_kv = optional_int(text, "num_global_key_value_heads", where, default=None, minimum=1,
                             maximum=MAX_DIM) if k_eq_v else None
    shared = optional_int(text, "num_kv_shared_layers", where, default=0, minimum=0, maximum=num_layers)
    # the per-layer-input embedding (E2B/E4B; sized in models.params.global_parts): whole numbers when present
    optional_int(text, "hidden_size_per_layer_input", where, default=None, minimum=0, maximum=MAX_DIM)
    optional_int(text, "vocab_size_per_layer_input", where, default=None, minimum=1, maximum=MAX_DIM)
    if shared >= num_layers and shared:
        raise ConfigError(f"{where}: num_kv_shared_layers {shared} leaves no layer that owns a KV cache "
                          f"({num_layers} layers); it must be below num_hidden_layers")
    if shared:
        owners = set(kinds[:num_layers - shared])
        missing = sorted(set(kinds[num_layers - shared:]) - owners)
        if missing:
            raise ConfigError(f"{where}: num_kv_shared_layers {shared}: the shared layers include "
                              f"{', '.join(missing)} attention but no earlier layer of that type owns a KV cache "
                              "(vLLM looks up the last non-shared layer of the same type and fails); fix "
                              "num_kv_shared_layers or layer_types")
    return Gemma4Attn(full_head_dim=global_dim if global_dim and global_dim != head_dim else None,
                      full_kv_heads=global_kv if global_kv and global_kv != kv_heads else None,
                      kv_shared_layers=shared)
