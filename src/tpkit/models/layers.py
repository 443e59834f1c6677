"""Per-layer facts of an HF text config: attention kind of each layer and which layers are MoE.

    in:  the text config dict, num_hidden_layers, a ``where`` for messages, an assumptions list
    out: ``(layer_kinds, sliding_window)`` and ``moe_layer_ids``

Attention kinds, from the first rule that applies:

    layer_types                 "full_attention" / "sliding_attention" / "chunked_attention" / "linear_attention"
                                (Granite-4.0-H: "attention" / "mamba"; LFM2: "full_attention" / "conv")
    full_attn_idxs              LFM2's older spelling: 0-based attention layers, every other layer "conv"
    linear_attn_config          Kimi-Linear: 1-based ``kda_layers`` → "linear", ``full_attn_layers`` → "full"
    full_attention_interval = n Qwen3-Next (Gated DeltaNet keys present): layer i is full when (i+1) % n == 0,
                                else linear (``_from_interval``)
    hybrid_override_pattern     NemotronH: one character per layer, "M" Mamba-2 → "linear", "*" attention →
                                "full", "-" MLP / "E" MoE → "none" (no cache at all; ``_from_pattern``)
    sliding_window_pattern = n  Gemma 2/3: layer i is full when (i+1) % n == 0, else sliding
    attention_chunk_size        Llama 4: ``no_rope_layers[i] == 0`` → full (NoPE global), else chunked ("sliding")
    use_sliding_window          Qwen2/3: sliding from ``max_window_layers`` on when true, else all full
    sliding_window = w          Gemma 2 / gpt-oss without layer_types: even layers sliding, odd full; others
                                (Mistral): every layer sliding (null/absent → full)
"""

from __future__ import annotations

from tpkit.errors import ConfigError
from tpkit.models.fields import int_list, optional_int

GATED_ATTN_ARCH = frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"})
"""text model types whose full-attention q_proj also yields a per-head output gate (q_proj 2·heads·head_dim
rows) unless the config sets ``attn_output_gate: false``, and whose MoE layers gate the shared expert's output:
``Qwen3NextAttention`` (``attn_output_gate`` default True) and ``Qwen3NextSparseMoeBlock.shared_expert_gate``,
used by Qwen3-Next and by Qwen3.5 / Qwen3.5-MoE (``Qwen3_5DecoderLayer`` builds its full-attention layers from
``Qwen3NextAttention``): vLLM 0.29.0 ``model_executor/models/qwen3_next.py`` / ``qwen3_5.py``, SGLang 0.5.10
``models/qwen3_5.py`` ``Qwen3_5Attention`` (same default) — every release that serves these model types"""

__all__ = ["layer_kinds", "moe_layer_ids", "GATED_ATTN_ARCH"]

_TYPE_NAMES = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "sliding",
               "linear_attention": "linear", "full": "full", "sliding": "sliding", "linear": "linear",
               "attention": "full", "mamba": "linear", "conv": "linear", "short_conv": "linear"}
"""``layer_types`` spellings → kinds; "attention" and "mamba" are Granite 4.0-H's (granitemoehybrid) layers: a
Mamba-2 mixer keeps a per-request state, no per-token KV, like the other linear kinds; "conv" (and "short_conv")
are LFM2's gated short-convolution layers, which keep only a (conv_L_cache − 1)-token conv state per request
(SGLang 0.5.9 – 0.5.23 ``configs/lfm2.py Lfm2Config.linear_layer_ids`` takes both spellings)"""


def layer_kinds(text: dict, num_layers: int, where: str, assumptions: list[str]) -> tuple[tuple[str, ...], int | None]:
    """Per-layer attention kinds (empty tuple = all full) and the sliding window in tokens."""
    no_window = text.get("sliding_window") is False  # some configs write false for "no sliding window"
    window = None if no_window else optional_int(text, "sliding_window", where, default=None)
    if text.get("layer_types") is not None:
        return _from_layer_types(text["layer_types"], num_layers, where), window
    if text.get("model_type") == "lfm2":
        return _lfm2_from_indices(text.get("full_attn_idxs"), num_layers, where), None
    if isinstance(text.get("linear_attn_config"), dict):
        return _from_linear_attn(text["linear_attn_config"], num_layers, where), None
    if text.get("full_attention_interval") is not None and text.get("linear_num_value_heads") is not None:
        return _from_interval(text, num_layers, where), None
    if text.get("hybrid_override_pattern") is not None:
        return _from_pattern(text["hybrid_override_pattern"], num_layers, where), None
    if text.get("sliding_window_pattern") and window:
        n = optional_int(text, "sliding_window_pattern", where, default=None, minimum=1)
        return tuple("full" if (i + 1) % n == 0 else "sliding" for i in range(num_layers)), window
    if text.get("attention_chunk_size"):
        return (_llama4_chunked(text, num_layers, where, assumptions),
                optional_int(text, "attention_chunk_size", where, default=None, minimum=1))
    if "use_sliding_window" in text:
        if not text["use_sliding_window"] or not window:
            return (), None
        first = optional_int(text, "max_window_layers", where, default=num_layers)
        return tuple("sliding" if i >= first else "full" for i in range(num_layers)), window
    if window:
        if text.get("model_type") == "gpt_oss":
            assumptions.append("gpt-oss config without layer_types: assumed alternating sliding/full from layer 0")
            return tuple("sliding" if i % 2 == 0 else "full" for i in range(num_layers)), window
        if text.get("model_type") == "gemma2":
            return _gemma2_alternating(num_layers), window
        return ("sliding",) * num_layers, window
    return (), None


def _gemma2_alternating(num_layers: int) -> tuple[str, ...]:
    """Gemma 2 (``model_type`` gemma2), whose released config.json has ``sliding_window`` but no ``layer_types``:
    layer i is sliding when i is even, full when odd.

    transformers ``Gemma2Config.__init__`` fills a missing ``layer_types`` with ``"sliding_attention" if (i + 1) % 2
    else "full_attention"`` (the earlier ``Gemma2DecoderLayer`` read ``is_sliding = not bool(layer_idx % 2)``, the
    same layers); vLLM 0.21.0 ``model_executor/models/gemma2.py`` gives a layer its window only when
    ``config.layer_types[layer_idx] == "sliding_attention"``.  Without this rule every layer was planned sliding
    (helper bl23's gemma-2 start-ups on vLLM 0.20.1, 2026-12-06)."""
    return tuple("sliding" if i % 2 == 0 else "full" for i in range(num_layers))


def _from_interval(text: dict, num_layers: int, where: str) -> tuple[str, ...]:
    """Gated-DeltaNet hybrids whose config.json has no ``layer_types`` (the released Qwen3-Next config.json):
    layer i is full attention when ``(i + 1) % full_attention_interval == 0``, else linear attention.

    SGLang 0.5.11 – 0.5.23 ``configs/qwen3_next.py`` ``Qwen3NextConfig.layers_block_type`` (read by
    ``linear_layer_ids`` / ``full_attention_layer_ids``); vLLM 0.29.0 ``transformers_utils/configs/qwen3_next.py``
    fills a missing ``layer_types`` with every 4th layer full (its default interval; the released models use 4).
    Without this rule such a config planned every layer as full attention (4× the KV, no linear state)."""
    n = optional_int(text, "full_attention_interval", where, default=None, minimum=1)
    return tuple("full" if (i + 1) % n == 0 else "linear" for i in range(num_layers))


_PATTERN_KINDS = {"M": "linear", "*": "full", "-": "none", "E": "none"}
"""NemotronH ``hybrid_override_pattern`` characters → kinds (see ``_from_pattern``)"""


def _from_pattern(pattern, num_layers: int, where: str) -> tuple[str, ...]:
    """NemotronH (``model_type`` nemotron_h): ``hybrid_override_pattern`` names each decoder layer's single mixer.

    vLLM 0.13.0 ``transformers_utils/configs/nemotron_h.py`` ``NemotronHConfig`` (the pattern must be
    ``num_hidden_layers`` long; ``layers_block_type`` maps "M" mamba, "*" attention, "-" mlp, "E" moe) and
    ``model_executor/models/nemotron_h.py`` ``ALL_DECODER_LAYER_TYPES``: an "M" layer is a Mamba-2 mixer (a
    per-request state, "linear"), a "*" layer an attention mixer (per-token KV, "full"), and "-" / "E" layers are a
    dense MLP / MoE block with no attention module, so they own no KV cache spec ("none") — unchanged through
    the 0.33.0 wheel.  SGLang (``configs/nemotron_h.py``) reads the same pattern."""
    if not isinstance(pattern, str) or len(pattern) != num_layers:
        got = f"{len(pattern)} characters" if isinstance(pattern, str) else type(pattern).__name__
        raise ConfigError(f"{where}: hybrid_override_pattern must have one character per layer ({num_layers}), "
                          f"got {got}; fix the config.json")
    unknown = sorted({c for c in pattern if c not in _PATTERN_KINDS})
    if unknown:
        raise ConfigError(f"{where}: hybrid_override_pattern has unknown characters {unknown}; expected 'M' "
                          "(Mamba-2), '*' (attention), '-' (MLP) or 'E' (MoE)")
    return tuple(_PATTERN_KINDS[c] for c in pattern)


def _from_layer_types(types, num_layers: int, where: str) -> tuple[str, ...]:
    if not isinstance(types, list) or len(types) != num_layers:
        got = len(types) if isinstance(types, list) else type(types).__name__
        raise ConfigError(f"{where}: layer_types must list one entry per layer ({num_layers}), got {got}")
    unknown = sorted({repr(t) for t in types if not isinstance(t, str) or t not in _TYPE_NAMES})
    if unknown:
        raise ConfigError(f"{where}: unknown layer_types {unknown}; expected one of {sorted(_TYPE_NAMES)}")
    kinds = tuple(_TYPE_NAMES[t] for t in types)
    return () if set(kinds) == {"full"} else kinds


def _lfm2_from_indices(indices, num_layers: int, where: str) -> tuple[str, ...]:
    """LFM2 without ``layer_types``: the 0-based layers in ``full_attn_idxs`` attend, the rest are "conv"; neither
    key: every layer attends (transformers 5.x ``models/lfm2/configuration_lfm2.py`` ``Lfm2Config``)."""
    if indices is None:
        return ()
    attend = set(int_list(indices, "full_attn_idxs", where, lo=0, hi=num_layers - 1))
    if len(attend) == num_layers:
        return ()
    return tuple("full" if i in attend else "linear" for i in range(num_layers))


def _from_linear_attn(lac: dict, num_layers: int, where: str) -> tuple[str, ...]:
    at = f"{where}: linear_attn_config"
    linear = set(int_list(lac.get("kda_layers"), "kda_layers", at, lo=1, hi=num_layers))
    full = set(int_list(lac.get("full_attn_layers"), "full_attn_layers", at, lo=1, hi=num_layers))
    if linear & full or (linear | full) != set(range(1, num_layers + 1)):
        raise ConfigError(
            f"{where}: linear_attn_config kda_layers + full_attn_layers must cover layers 1..{num_layers} "
            f"once each (1-based), got kda {sorted(linear)} and full {sorted(full)}"
        )
    return tuple("linear" if i + 1 in linear else "full" for i in range(num_layers))


def _llama4_chunked(text: dict, num_layers: int, where: str, assumptions: list[str]) -> tuple[str, ...]:
    flags = int_list(text.get("no_rope_layers"), "no_rope_layers", where, lo=0, hi=1)
    if flags and len(flags) != num_layers:
        raise ConfigError(f"{where}: no_rope_layers must hold one 0/1 flag per layer ({num_layers}), "
                          f"got {len(flags)}; fix the config.json")
    if not flags:
        step = optional_int(text, "no_rope_layer_interval", where, default=4, minimum=1)
        flags = [0 if (i + 1) % step == 0 else 1 for i in range(num_layers)]
        assumptions.append(f"no_rope_layers absent: every {step}th layer taken as NoPE global attention")
    assumptions.append("chunked local attention layers are reported as 'sliding' with window = attention_chunk_size")
    return tuple("full" if flags[i] == 0 else "sliding" for i in range(num_layers))


def moe_layer_ids(text: dict, num_layers: int, num_dense: int, where: str = "config") -> tuple[int, ...]:
    """0-based layers with routed experts (DeepSeek/GLM/Kimi, Qwen-MoE, Llama 4, NemotronH "E" and all-MoE rules)."""
    mlp_only = set(int_list(text.get("mlp_only_layers"), "mlp_only_layers", where, lo=0, hi=num_layers - 1))
    if "decoder_sparse_step" in text:
        step = optional_int(text, "decoder_sparse_step", where, default=1) or 1
        return tuple(i for i in range(num_layers) if i not in mlp_only and (i + 1) % step == 0)
    if "interleave_moe_layer_step" in text:
        step = optional_int(text, "interleave_moe_layer_step", where, default=1) or 1
        return tuple(i for i in range(num_layers) if (i + 1) % step == 0)
    pattern = text.get("hybrid_override_pattern")
    if text.get("model_type") == "nemotron_h" and isinstance(pattern, str):  # NemotronH: the "E" layers only
        return tuple(i for i, c in enumerate(pattern) if c == "E")  # (_from_pattern; SGLang / vLLM nemotron_h.py)
    freq = optional_int(text, "moe_layer_freq", where, default=1) or 1
    return tuple(i for i in range(num_dense, num_layers) if i % freq == 0 and i not in mlp_only)
