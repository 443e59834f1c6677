"""What both engines' ``get_rope`` read from a model config: the rope dict and the rotary width.

The rotary width (``rotary_dim``) of a model's cos/sin cache, read in the release wheels:

* MLA models: ``qk_rope_head_dim`` (``get_rope(qk_rope_head_dim, rotary_dim=qk_rope_head_dim, ...)``, vLLM
  0.5.4–0.33.0 ``models/deepseek_v2.py``, SGLang ``models/deepseek_v2.py``).
* A config ``rotary_dim`` (GPT-J, MiniMax-Text-01): that width (vLLM ≤ 0.12 ``models/gpt_j.py`` /
  ``minimax_text_01.py`` pass ``config.rotary_dim``; 0.13.0–0.33.0 pass ``partial_rotary_factor = rotary_dim /
  head_size``, the same width).
* Otherwise head_dim × the config's partial rotary factor, under any of the names vLLM's
  ``patch_rope_parameters`` accepts (``partial_rotary_factor``, ``rotary_pct``, ``rotary_emb_fraction``; 0.13.0–0.33.0
  ``transformers_utils/config.py``) or StableLM's ``rope_pct`` (≤ 0.12 ``models/stablelm.py``), also when it
  sits inside ``rope_parameters``.  vLLM ≤ 0.12 ``get_rope(head_size, rotary_dim, ..., partial_rotary_factor)``
  cuts ``rotary_dim = int(rotary_dim × partial_rotary_factor)`` for a factor below 1 and the model files that
  carry such configs pass it (``glm4.py``, ``glm4_moe.py``, ``llama.py``, ``nemotron.py``, ``persimmon.py``,
  ``stablelm.py``, ``qwen3_next.py``, read in 0.10.2; ``phi.py`` / ``gpt_neox.py`` compute it themselves);
  0.13.0–0.33.0 ``get_rope`` takes ``rotary_dim = int(head_size × rope_parameters["partial_rotary_factor"])``
  (0.29.0+: ``rope_parameters["rope_dim"]`` first; no config read sets it).  SGLang's ``get_rope`` cuts the same
  way (0.4.2 ``rotary_embedding.py``, 0.5.10 ``rotary_embedding/factory.py``).
* GLM-4 (``glm4``, ``glm4_moe``): factor 0.5 when the config has none (vLLM ≤ 0.12 ``getattr(config,
  "partial_rotary_factor", 0.5)``, 0.13.0–0.33.0 ``rope_parameters.setdefault("partial_rotary_factor", 0.5)``;
  SGLang 0.5.9 ``models/glm4.py`` / ``glm4_moe.py`` the same default); ChatGLM (``chatglm``): always half
  (``rotary_dim=head_dim // 2``, vLLM ≤ 0.12; ``"partial_rotary_factor": 0.5`` from 0.13.0).
"""

from __future__ import annotations

import math

from tpkit.errors import ConfigError
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass

__all__ = ["rope_config", "rotary_dim", "partial_rotary_factor", "LayerRope", "per_layer_type_ropes"]

_FACTOR_KEYS = ("partial_rotary_factor", "rotary_pct", "rotary_emb_fraction", "rope_pct")
_HALF_DEFAULT = frozenset({"glm4", "glm4_moe"})
"""model types whose attention defaults the partial rotary factor to 0.5 when the config has none"""
_ALWAYS_HALF = frozenset({"chatglm"})


def rope_config(model: ModelSpec) -> dict:
    """The model's rope dict: ``rope_scaling``, else a flat ``rope_parameters`` (transformers v5 spelling; one
    keyed by layer type, Gemma-3/4's, is not flat and gives {}), else {}."""
    extra = model.extra or {}
    rope = extra.get("rope_scaling")
    if isinstance(rope, dict) and rope:
        return rope
    params = extra.get("rope_parameters")
    if isinstance(params, dict) and params and not any(isinstance(v, dict) for v in params.values()):
        return params
    return {}


def partial_rotary_factor(model: ModelSpec) -> float:
    """The fraction of head_dim that rotates (see the module docstring); 1.0 when the config names none."""
    extra = model.extra or {}
    base = (extra.get("wrapper_model_type") if model.model_type.endswith("_text") else None) or model.model_type
    kinds = {model.model_type, str(base)}
    if kinds & _ALWAYS_HALF:
        return 0.5
    params = extra.get("rope_parameters") if isinstance(extra.get("rope_parameters"), dict) else {}
    for key, value in [(k, extra.get(k)) for k in _FACTOR_KEYS] + [("rope_parameters.partial_rotary_factor",
                                                                       params.get("partial_rotary_factor"))]:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            if not (math.isfinite(value) and value <= 1):
                raise ConfigError(f"{model.name}: config.json {key} is {value!r}: the share of head_dim that rotates "
                                  "must lie in (0, 1] (e.g. 0.25, 0.5 or 1.0); fix the config")
            return float(value)
    return 0.5 if kinds & _HALF_DEFAULT else 1.0


def rotary_dim(model: ModelSpec) -> int:
    """The width of the model's rotary cos/sin cache rows (see the module docstring)."""
    if model.mla is not None:
        return int(model.mla.qk_rope_head_dim)
    extra = model.extra or {}
    if extra.get("rotary_dim"):
        width = extra["rotary_dim"]
        if isinstance(width, bool) or not isinstance(width, (int, float)) or not math.isfinite(width) or \
                not 0 < width <= max(model.head_dim, 1):
            raise ConfigError(f"{model.name}: config.json rotary_dim is {width!r}: it must be a whole number of "
                              f"elements in 1 … head_dim ({model.head_dim}); fix the config")
        return int(width)
    return int(model.head_dim * partial_rotary_factor(model))


_LAYER_TYPE_KIND = {"full_attention": "full", "sliding_attention": "sliding"}


@dataclass(frozen=True, kw_only=True, slots=True)
class LayerRope:
    """One layer type's rope: the dict ``get_rope`` receives, the head size it is built for and the cache width."""

    layer_type: str
    rope: dict
    head_size: int
    width: int


def per_layer_type_ropes(model: ModelSpec) -> tuple[LayerRope, ...]:
    """The distinct ropes of a config whose ``rope_parameters`` is keyed by layer type (Gemma 4's
    ``{"full_attention": {...}, "sliding_attention": {...}}``), in the order the decoder first meets each type
    (the order SGLang's ``reserve_rope_cache_for_long_sequences`` walks the modules); () for a flat rope config.

    Read in vLLM 0.19.0 / 0.27.1 ``models/gemma4.py`` (``Gemma4Attention``: ``config.rope_parameters[layer_type]``
    into ``get_rope(head_dim, ...)``, head_dim ``global_head_dim`` on full layers) and SGLang 0.5.11 / 0.5.23
    ``models/gemma4_causal.py`` (the same dict's rope_type / rope_theta / partial_rotary_factor; SGLang's config
    rewrite makes ``head_dim`` the full layers' ``global_head_dim``).  A layer type missing from the dict gets
    a default rope.  Width: a ``proportional`` rope (``Gemma4RotaryEmbedding``, both engines) passes
    ``rotary_dim = head_size`` to the base class, so its cache is head_size wide whatever the partial factor
    (the unrotated pairs are cos 1 / sin 0 columns); any other type head_size × ``partial_rotary_factor``."""
    params = (model.extra or {}).get("rope_parameters")
    if not (isinstance(params, dict) and params and any(isinstance(v, dict) for v in params.values())):
        return ()
    kinds = tuple(model.layer_kinds or ())
    order: list[str] = []
    for kind in kinds:
        name = next((t for t, k in _LAYER_TYPE_KIND.items() if k == kind), None)
        if name is not None and name not in order:
            order.append(name)
    if not order:
        order = [t for t in _LAYER_TYPE_KIND if t in params]
    out: list[LayerRope] = []
    seen: set = set()
    for name in order:
        rope = params.get(name) if isinstance(params.get(name), dict) else {"rope_type": "default"}
        head = int(model.kv_head_dim(_LAYER_TYPE_KIND[name]))
        kind = str(rope.get("rope_type") or rope.get("type") or "default")
        factor = rope.get("partial_rotary_factor")
        factor = float(factor) if isinstance(factor, (int, float)) and 0 < factor < 1 else 1.0
        width = head if kind == "proportional" else int(head * factor)
        key = (head, width, tuple(sorted((k, str(v)) for k, v in rope.items())))
        if key in seen:  # get_rope's _ROPE_DICT hands the same module back
            continue
        seen.add(key)
        out.append(LayerRope(layer_type=name, rope=dict(rope), head_size=head, width=width))
    return tuple(out)
