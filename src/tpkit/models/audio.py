"""Audio towers: exact parameter counts from ``audio_config`` (pure).

    in:  the wrapper's ``audio_config`` dict and the text hidden size
    out: ``audio_tower_params``: parameters of the tower and its embedder into the text width, or ``None`` when the
         tower layout is unknown

Families (h = ``hidden_size``, L = ``num_hidden_layers``, n = ``num_attention_heads``, d = h // n, c0, c1 =
``subsampling_conv_channels``, o = ``output_proj_dims``, k = ``conv_kernel_size``, H = text hidden size):

  - ``gemma4_audio`` (Gemma 4 E2B / E4B; transformers 5.5.0 ``models/gemma4/modeling_gemma4.py``
    ``Gemma4AudioModel``: a conformer after the Universal Speech Model):
      subsampling   two 3×3 convolutions 1→c0→c1 (no bias) with a LayerNorm each (weight only),
                    ``input_proj_linear`` (c0 // 4)·c1 → h (no bias)
      per layer     two feed-forward blocks h → 4h → h (no bias) with two RMSNorms each: 16·h² + 4h;
                    attention q, k, v and ``relative_k_proj`` h → n·d, ``post`` h → h (no bias): 5·h², plus
                    ``per_dim_scale`` d; light conv: ``linear_start`` h → 2h, ``linear_end`` h → h, a depthwise
                    conv h·k (no bias), two RMSNorms: 3·h² + h·k + 2h; three more RMSNorms: 3h;
                    with ``use_clipped_linears`` every ``Gemma4ClippableLinear`` (10 per layer) keeps 4 scalar
                    buffers (persistent: in the checkpoint)
      output        ``output_proj`` h → o with bias
      embedder      ``embed_audio.embedding_projection`` o → H (no bias; its pre-projection RMSNorm has no weight):
                    vLLM 0.19.0 – 0.33.0 ``model_executor/models/gemma4_mm.py`` ``Gemma4MultimodalEmbedder`` (its
                    width is ``output_proj_dims``), SGLang 0.5.23 ``models/gemma4_mm.py`` the same
    E2B (h 1024, L 12, n 8, c 128/32, o 1536, H 1536): 307,184,384 parameters (0.57 GiB at 2 B).

Who builds it: vLLM 0.19.0 – 0.33.0 ``gemma4_mm.py`` ``Gemma4ForConditionalGeneration.__init__`` builds it with
``AutoModel.from_config(config.audio_config)`` inside ``_mark_tower_model(vllm_config, "audio")`` (so not at an
audio limit of 0 or with ``--language-model-only``: ``engines/vllm/towers.py``) and swaps its ``nn.Linear`` for
``ReplicatedLinear`` (``recursive_replace_linear``): every TP rank holds all of it.  SGLang 0.5.23 builds its own
``Gemma4AudioEncoder`` on the first PP rank whenever ``audio_config`` is set.  The tower is held in the model's
unquantised dtype (a quantised checkpoint's own scope is not modelled for it).
"""

from __future__ import annotations

from tpkit.errors import ConfigError
from tpkit.models.fields import optional_int

__all__ = ["audio_tower_params", "AUDIO_FAMILIES"]

AUDIO_FAMILIES = frozenset({"gemma4_audio"})
"""``audio_config.model_type`` values whose layout is modelled"""


def audio_tower_params(audio_config, text_hidden: int, *, where: str = "config") -> int | None:
    """Parameters of the audio tower + its embedder (module docstring), or ``None`` for an absent or unknown tower.

    An ``audio_config`` that is not an object, or a known family without its sizes, raises ``ConfigError``."""
    if audio_config is None:
        return None
    if not isinstance(audio_config, dict):
        raise ConfigError(f"{where}: audio_config must be an object, got {type(audio_config).__name__} "
                          f"{audio_config!r:.60}; fix the config.json or remove the key")
    if audio_config.get("model_type") not in AUDIO_FAMILIES:
        return None
    return _gemma4_audio(audio_config, text_hidden, f"{where}: audio_config (gemma4_audio)")


def _gemma4_audio(ac: dict, text_hidden: int, at: str) -> int:
    keys = ("hidden_size", "num_hidden_layers", "num_attention_heads", "output_proj_dims")
    missing = [k for k in keys if ac.get(k) is None]
    if missing:
        raise ConfigError(f"{at} lacks {', '.join(missing)}; add them as in the model's released config.json")
    h, layers, heads, out = (optional_int(ac, k, at, default=None, minimum=1) for k in keys)
    kernel = optional_int(ac, "conv_kernel_size", at, default=5, minimum=1)
    channels = ac.get("subsampling_conv_channels") or [128, 32]
    if (not isinstance(channels, list) or len(channels) != 2
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in channels)):
        raise ConfigError(f"{at}: subsampling_conv_channels must be two whole numbers ≥ 1, got {channels!r:.60}; "
                          "fix the config.json")
    c0, c1 = channels
    width = (h // heads) * heads
    clipped = 10 * 4 if ac.get("use_clipped_linears", True) is not False else 0
    per_layer = (16 * h * h + 4 * h                                   # two feed-forward blocks
                 + 3 * h * width + h * h + h * width + h // heads     # q/k/v, post, relative_k_proj, per_dim_scale
                 + 3 * h * h + h * kernel + 2 * h                     # light conv
                 + 3 * h + clipped)                                   # layer norms, clip bounds
    subsample = 9 * c0 + c0 + 9 * c0 * c1 + c1 + (c0 // 4) * c1 * h
    return subsample + layers * per_layer + h * out + out + out * text_hidden
