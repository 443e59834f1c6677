"""Parameter count of a vision tower from its ``vision_config`` (only towers whose layout tpkit knows).

    in:  the wrapper's ``vision_config`` dict and the text hidden size
    out: parameter count (count) or ``None`` when the tower type is unknown

SigLIP (Gemma 3): patch conv (3·p²·d + d) + position table ((image/p)²·d) + per layer
[4 attention projections with bias 4·(d²+d), MLP d·i+i + i·d+d, 2 LayerNorms 4·d] + post LayerNorm 2·d,
plus Gemma 3's projector (d·hidden) and its soft-embedding RMSNorm (d).
"""

from __future__ import annotations

from tpkit.errors import ConfigError
from tpkit.models.fields import optional_int

__all__ = ["vision_params"]

_SIGLIP_KEYS = ("hidden_size", "intermediate_size", "patch_size", "image_size", "num_hidden_layers")


def vision_params(vision_config, text_hidden: int, wrapper_model_type: str | None, *,
                  where: str = "config") -> int | None:
    """Parameters of the vision tower (+ projector), or ``None`` when not derivable.

    A ``vision_config`` that is not an object, or a SigLIP one without its sizes, raises ``ConfigError``.
    """
    if vision_config is None:
        return None
    if not isinstance(vision_config, dict):
        raise ConfigError(f"{where}: vision_config must be an object, got {type(vision_config).__name__} "
                          f"{vision_config!r:.60}; fix the config.json or remove the key")
    if vision_config.get("model_type") != "siglip_vision_model":
        return None
    at = f"{where}: vision_config"
    d, i, p, img, n = (optional_int(vision_config, k, at, default=None, minimum=1) for k in _SIGLIP_KEYS)
    if None in (d, i, p, img, n):
        missing = [k for k in _SIGLIP_KEYS if vision_config.get(k) is None]
        raise ConfigError(f"{at} (siglip_vision_model) lacks {', '.join(missing)}; add them as in the model's "
                          "released config.json")
    embed = 3 * p * p * d + d + (img // p) ** 2 * d
    layer = 4 * (d * d + d) + (d * i + i + i * d + d) + 4 * d
    tower = embed + n * layer + 2 * d
    projector = d * text_hidden + d if wrapper_model_type == "gemma3" else 0
    return tower + projector
