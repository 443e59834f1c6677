"""GPT-2 and OPT, the pre-LLaMA decoders newcomers try first: their config spellings mapped onto the standard
fields, and the layout facts the weight count needs (``models.params``).  ``models.config`` calls both."""

from __future__ import annotations

from tpkit.errors import ConfigError
from tpkit.models.fields import optional_bool

__all__ = ["CLASSIC_MODEL_TYPES", "classic_spellings", "classic_extra"]

CLASSIC_MODEL_TYPES = frozenset({"gpt2", "opt"})
"""Pre-LLaMA decoders newcomers try first (GPT-2 / DialoGPT / distilgpt2, OPT): LayerNorm with bias, learned
position embeddings, a two-matrix MLP (fc1 → act → fc2) with biases, biased q/k/v/o, multi-head attention
(num_kv_heads = heads, head_dim = hidden / heads).  vLLM ``models/gpt2.py`` (``GPT2Attention``: ``c_attn``
QKVParallelLinear(bias=True), total_num_heads = n_head, head_dim = hidden / heads; ``GPT2MLP`` c_fc/c_proj with bias,
inner = n_inner or 4·hidden; ``GPT2Model`` wte + wpe(n_positions) + ln_f; lm_head tied to wte when
tie_word_embeddings) and ``models/opt.py`` (``OPTDecoderLayer`` fc1/fc2 of ffn_dim, biases per enable_bias;
``OPTLearnedPositionalEmbedding`` max_position_embeddings + 2 rows; embed_tokens of word_embed_proj_dim with
project_in/project_out when it differs from hidden_size; final_layer_norm only with do_layer_norm_before), read in
the 0.10.1.1 wheel, same layout in 0.8.5 – 0.19.x."""


def classic_spellings(text: dict, where: str) -> None:
    """GPT-2 / OPT config keys as transformers maps them (``GPT2Config.attribute_map``: hidden_size → n_embd,
    num_hidden_layers → n_layer, num_attention_heads → n_head, max_position_embeddings → n_positions; the MLP is
    n_inner or 4·n_embd; ``OPTConfig``: ffn_dim, enable_bias default true, do_layer_norm_before default true).
    Both config classes default tie_word_embeddings to true (``PretrainedConfig``)."""
    if text["model_type"] == "gpt2":
        for hf, ours in (("n_embd", "hidden_size"), ("n_layer", "num_hidden_layers"),
                         ("n_head", "num_attention_heads"), ("n_positions", "max_position_embeddings")):
            if text.get(ours) is None and text.get(hf) is not None:
                text[ours] = text[hf]
            if text.get(ours) is None:
                raise ConfigError(f"{where}: a GPT-2 config needs {hf!r} (its spelling of {ours}), which is missing or "
                                  "null; add it as in the model's released config.json (GPT-2 small: n_embd 768, "
                                  "n_layer 12, n_head 12, n_positions 1024)")
        if text.get("intermediate_size") is None:
            hidden = text.get("hidden_size")
            inner = text.get("n_inner")
            text["intermediate_size"] = inner if inner is not None else (
                4 * hidden if isinstance(hidden, int) and not isinstance(hidden, bool) else None)
        bias = True
    else:
        if text.get("intermediate_size") is None and text.get("ffn_dim") is not None:
            text["intermediate_size"] = text["ffn_dim"]
        bias = True if text.get("enable_bias") is None else optional_bool(text, "enable_bias", where)
    text.setdefault("attention_bias", bias)
    text["mlp_bias"] = bias
    text.setdefault("tie_word_embeddings", True)
    if text.get("num_key_value_heads") is None and text.get("num_attention_heads") is not None:
        text["num_key_value_heads"] = text["num_attention_heads"]  # multi-head attention: one KV head per head


def classic_extra(text: dict) -> dict:
    """Layout facts of a GPT-2 / OPT decoder (see ``CLASSIC_MODEL_TYPES``) for the weight count."""
    positions = text.get("max_position_embeddings")
    opt = text["model_type"] == "opt"
    pre_norm = text.get("do_layer_norm_before") is not False
    proj = text.get("word_embed_proj_dim") if opt else None
    return {
        "classic_mlp": True, "mlp_bias": bool(text.get("mlp_bias")), "layernorm_bias": True,
        # OPT offsets positions by 2 (vLLM opt.py OPTLearnedPositionalEmbedding: num_embeddings + 2)
        "learned_positions": (positions + 2 if opt else positions) if isinstance(positions, int) else 0,
        "final_norm": (pre_norm and not text.get("_remove_final_layer_norm")) if opt else True,
        "word_embed_proj_dim": proj if isinstance(proj, int) and not isinstance(proj, bool) and proj > 0 else None,
    }
