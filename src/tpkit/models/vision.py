"""Parameter count of a vision tower from its ``vision_config`` (only towers whose layout tpkit knows).

    in:  the wrapper's ``vision_config`` dict and the text hidden size
    out: parameter count (count) or ``None`` when the tower type is unknown

SigLIP (Gemma 3): patch conv (3·p²·d + d) + position table ((image/p)²·d) + per layer
[4 attention projections with bias 4·(d²+d), MLP d·i+i + i·d+d, 2 LayerNorms 4·d] + post LayerNorm 2·d,
plus Gemma 3's projector (d·hidden) and its soft-embedding RMSNorm (d).
"""

from __future__ import annotations

__all__ = ["vision_params"]


def vision_params(vision_config: dict | None, text_hidden: int, wrapper_model_type: str | None) -> int | None:
    """Parameters of the vision tower (+ projector), or ``None`` when not derivable."""
    if not isinstance(vision_config, dict) or vision_config.get("model_type") != "siglip_vision_model":
        return None
    d, i = vision_config["hidden_size"], vision_config["intermediate_size"]
    p, img, n = vision_config["patch_size"], vision_config["image_size"], vision_config["num_hidden_layers"]
    embed = 3 * p * p * d + d + (img // p) ** 2 * d
    layer = 4 * (d * d + d) + (d * i + i + i * d + d) + 4 * d
    tower = embed + n * layer + 2 * d
    projector = d * text_hidden + d if wrapper_model_type == "gemma3" else 0
    return tower + projector
