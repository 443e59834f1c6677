"""An HF ``config.json`` dict → ``ModelSpec`` (the file is read by ``models.config_file.read_config_file``).

    in:  the config dict as transformers writes it (multimodal wrappers keep the LM in ``text_config``)
    out: ``ModelSpec``; defaults taken for missing optional keys (and an unknown model type) are listed in
         ``ModelSpec.assumptions``

Key names read (real HF spellings): hidden_size, num_hidden_layers, num_attention_heads,
num_key_value_heads, head_dim, intermediate_size / intermediate_size_mlp, vocab_size,
max_position_embeddings, torch_dtype / dtype, tie_word_embeddings, attention_bias,
kv_lora_rank, q_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim,
n_routed_experts / num_experts / num_local_experts, num_experts_per_tok / experts_per_token,
moe_intermediate_size, n_shared_experts / num_shared_experts, first_k_dense_replace,
layer_types, sliding_window(_pattern), linear_attn_config, num_nextn_predict_layers / mtp_num_hidden_layers
(``mtp_layer_count``), quantization_config.  GPT-2 (``n_embd``, ``n_layer``, ``n_head``, ``n_positions``, ``n_inner``) and OPT
(``ffn_dim``, ``word_embed_proj_dim``, ``do_layer_norm_before``, ``enable_bias``) spellings are mapped onto these
(``models.classic.classic_spellings``).
"""

from __future__ import annotations

from tpkit.dtypes import WEIGHT_DTYPES, lookup_dtype
from tpkit.errors import ConfigError, json_kind
from tpkit.models.classic import CLASSIC_MODEL_TYPES, classic_extra, classic_spellings
from tpkit.models.fields import MAX_DIM, grouped_kv_heads, optional_bool, optional_int
from tpkit.models.gemma4 import Gemma4Attn, gemma4_attention, gemma4_defaults, is_gemma4
from tpkit.models.layers import GATED_ATTN_ARCH, layer_kinds, moe_layer_ids
from tpkit.models.linear_attn import linear_attn_spec
from tpkit.models.quant import parse_quant_config
from tpkit.models.spec import DsaSpec, MlaSpec, ModelSpec, MoeSpec
from tpkit.models.vision import vision_params

__all__ = ["from_config_dict", "mtp_layer_count", "QWEN_MTP_ARCHS"]

QWEN_MTP_ARCHS = frozenset({"Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration",
                            "Qwen3_5MoeForConditionalGeneration", "Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM"})
"""architectures whose checkpoints ship one Qwen-style MTP module (``mtp.fc``, ``mtp.layers.0``, ``mtp.norm``)
that the engines draft with even when the config declares no count: SGLang turns the draft of these into
``Qwen3NextForCausalLMMTP`` / ``Qwen3_5ForCausalLMMTP`` with ``num_nextn_predict_layers = 1``
(``configs/model_config.py``, 0.5.10.post1 and 0.5.23); vLLM's ``qwen3_next_mtp.py`` builds
``getattr(config, "num_nextn_predict_layers", 1)`` layers and ``qwen3_5_mtp.py``
``getattr(config, "mtp_num_hidden_layers", 1)`` (0.10.2 / 0.17.0 – 0.33.0)"""


def mtp_layer_count(text: dict, architecture: str, source: str) -> int:
    """MTP / nextn layers the checkpoint stores after the decoder (count), the one home of the rule:
    ``num_nextn_predict_layers`` (DeepSeek-V3, GLM-4.5, …) when positive, else ``mtp_num_hidden_layers``
    (Qwen3.5 / Qwen3.6) when positive, else 1 for a ``QWEN_MTP_ARCHS`` architecture (Qwen3-Next's config
    declares neither key; the engines default to one layer), else 0 (a key set to 0: no MTP module)."""
    nextn = optional_int(text, "num_nextn_predict_layers", source, default=0, maximum=MAX_LAYERS)
    if nextn:
        return nextn
    mtp = optional_int(text, "mtp_num_hidden_layers", source, default=0, maximum=MAX_LAYERS)
    if mtp:
        return mtp
    declared = any(text.get(k) is not None for k in ("num_nextn_predict_layers", "mtp_num_hidden_layers"))
    return 1 if architecture in QWEN_MTP_ARCHS and not declared else 0

_LIBRARY_DEFAULTS = {
    # transformers config-class defaults for keys that released config.json files omit
    "gemma3_text": {"vocab_size": 262208, "max_position_embeddings": 131072, "tie_word_embeddings": True},
    # GemmaConfig / Gemma2Config.__init__ default tie_word_embeddings=True (transformers 4.44.0,
    # models/gemma{,2}/configuration_gemma{,2}.py); released Gemma-2 config.json files omit the key
    "gemma": {"tie_word_embeddings": True},
    "gemma2": {"tie_word_embeddings": True},
    # Lfm2Config default tie_word_embeddings=True (transformers 5.x models/lfm2/configuration_lfm2.py)
    "lfm2": {"tie_word_embeddings": True},
    # Gemma4TextConfig default tie_word_embeddings=True (the released configs write it)
    "gemma4_text": {"tie_word_embeddings": True},
}
_NESTED_TEXT_DEFAULTS = {
    # transformers 4.46.3 LlamaConfig / MistralConfig / Qwen2Config.__init__ defaults (models/{llama,mistral,qwen2}/
    # configuration_*.py) of the size keys; num_key_value_heads None means num_attention_heads (all three classes)
    "llama": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32, "max_position_embeddings": 2048},
    "mistral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072},
    "qwen2": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 32, "max_position_embeddings": 32768},
}
"""Keys a wrapper's ``text_config`` may omit.  transformers saves a nested config as its difference from the
wrapper's default sub-config (``configuration_utils.py`` ``to_diff_dict`` → ``recursive_diff_dict``) and loads it as
``CONFIG_MAPPING[model_type](**text_config)`` (``models/llava/configuration_llava.py`` ``LlavaConfig.__init__``;
4.46.3), so an omitted key takes that class's default, as in the engines, which read the config through
transformers: llava-hf/llava-1.5-7b-hf's text_config gives only vocab_size, max_position_embeddings and rms_norm_eps
(helper nb29).  Applied only inside a ``text_config``; a top-level config still needs every key."""
_TEXT_MODEL_TYPE = {"gemma3": "gemma3_text", "gemma4": "gemma4_text", "llama4": "llama4_text", "kimi_k25": "kimi_k2"}
_QKV_BIAS_ARCH = {"qwen2", "qwen2_moe"}
_NO_O_BIAS = {"glm4_moe", "glm4", "qwen2", "qwen2_moe"}
_QK_NORM_ARCH = {"qwen3", "qwen3_moe", "gemma3_text", "gemma4_text", "qwen3_next", "qwen3_vl_text",
                 "qwen3_5_text", "qwen3_5_moe_text", "lfm2"}  # glm4_moe follows its use_qk_norm key
_SHARED_EXPERT_ARCH = {"llama4_text"}
GROK_ARCHS = frozenset({"Grok1ForCausalLM", "Grok1ModelForCausalLM"})
"""Grok-1 / Grok-2 (model_type ``grok-1`` / ``git``): SGLang ``models/grok.py`` (0.4.x–0.5.10, read in 0.5.2rc2,
0.5.2 and 0.5.10) ``Grok1DecoderLayer`` holds four RMSNorms (pre/post attention, pre/post MoE) and, when the
config sets ``residual_moe`` (Grok-2), a dense ``Grok1MLP`` of ``intermediate_size`` beside the routed experts
(whose width is ``moe_intermediate_size``); ``Grok1ForCausalLM`` always builds its own ``lm_head``
(``ParallelLMHead``, untied) and a float32 router (``ReplicatedLinear(..., params_dtype=torch.float32)``).
vLLM ``models/grok1.py`` (read in 0.14.1: "Grok1/Grok2") builds the same layer — four RMSNorms, ``Grok1MLP`` of
``intermediate_size`` when ``residual_moe`` — and its own ``ParallelLMHead``, tied only when the config says
``tie_word_embeddings`` (Grok-2's config.json does not); vLLM 0.29.0 lists both Grok architectures in
``registry.py _PREVIOUSLY_SUPPORTED_MODELS`` ("0.24.0"), i.e. no longer served.  tpkit plans Grok untied."""
_GDN_KEYS = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
             "linear_conv_kernel_dim")
KNOWN_MODEL_TYPES = frozenset({
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "deepseek_v2", "deepseek_v3",
    "kimi_k2", "kimi_linear", "gemma3_text", "llama4_text", "gpt_oss", "glm4", "glm4_moe", "qwen3_next",
    "qwen3_vl_text", "qwen3_5_text", "qwen3_5_moe_text", "granitemoehybrid", "nemotron_h", "lfm2", "gemma4_text",
    "gpt2", "opt", "deepseek_v4", "deepseek_v32", "glm_moe_dsa"})
"""text model types whose layer layout tpkit's rules were written and checked for; any other is planned
as a standard decoder, and the plan says so (``ModelSpec.assumptions``).  ``deepseek_v32`` (DeepSeek-V3.2) and
``glm_moe_dsa`` (GLM-5.x) are DeepSeek-V2 layers plus the DSA indexer (``_dsa``): SGLang ``DeepseekV32ForCausalLM`` /
``GlmMoeDsaForCausalLM`` subclass ``DeepseekV2ForCausalLM`` (``models/deepseek_v2.py``, ``models/glm4_moe.py``;
0.5.9 and 0.5.23), vLLM maps ``DeepseekV32ForCausalLM`` to ``deepseek_v2`` (``models/registry.py``, 0.11.0); they
were planned so already, with a "not one tpkit has rules for" warning (helper nb29)"""
MAX_LAYERS = 1_024
"""most decoder layers tpkit plans (released models have at most a few hundred: Llama-3.1-405B 126, DeepSeek-V3 61;
the per-layer ledger of a 30,000-layer MoE took minutes: session 18 fuzz seed 15, case 5374)"""


def from_config_dict(cfg: dict, *, name: str, source: str) -> ModelSpec:
    """Build a ``ModelSpec`` from an HF config dict (``source`` names the file for messages)."""
    if not isinstance(cfg, dict):
        raise ConfigError(f"{source}: a model config is a JSON object, got {json_kind(cfg)}")
    assumptions: list[str] = []
    text = _text_config(cfg, source, assumptions)
    r = _Reader(text, source, assumptions)
    num_layers = r.int("num_hidden_layers", maximum=MAX_LAYERS)
    if is_gemma4(text):
        text = r.text = gemma4_defaults(text, num_layers, source, assumptions)
    architecture = _architecture(cfg, text["model_type"], source, assumptions)
    hidden, heads = r.int("hidden_size"), r.int("num_attention_heads")
    mla = _mla(text, r)
    head_dim, v_head_dim = _head_dims(text, r, mla, hidden, heads)
    kinds, window = layer_kinds(text, num_layers, source, assumptions)
    moe = _moe(text, r, num_layers)
    mt = text["model_type"]
    kv_heads = heads if mla else grouped_kv_heads(heads, r.int("num_key_value_heads", default=heads), source)
    g4 = gemma4_attention(text, kinds, num_layers, head_dim, kv_heads, source) if is_gemma4(text) else \
        Gemma4Attn(full_head_dim=None, full_kv_heads=None, kv_shared_layers=0)
    return ModelSpec(
        name=name, source=source,
        architecture=architecture, model_type=mt,
        hidden_size=hidden, intermediate_size=_dense_width(text, r, moe),
        num_layers=num_layers, num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim, v_head_dim=v_head_dim,
        full_head_dim=g4.full_head_dim, full_kv_heads=g4.full_kv_heads, kv_shared_layers=g4.kv_shared_layers,
        vocab_size=r.int("vocab_size"), max_position_embeddings=_max_positions(text, r),
        torch_dtype=_dtype(text, source, assumptions),
        tie_word_embeddings=optional_bool(text, "tie_word_embeddings", source) and not _is_grok(cfg),
        layer_kinds=kinds, sliding_window=window, mla=mla, dsa=_dsa(text, r, mla), moe=moe,
        linear_attn=linear_attn_spec(text, source),
        quant=parse_quant_config(text.get("quantization_config"), where=source),
        num_nextn_layers=mtp_layer_count(text, architecture, source),
        # a wrapper with text_config, or a flat config with a vision tower beside the text fields (Qwen2-VL,
        # Qwen2.5-VL): both engines serve these as multimodal (SGLang configs/model_config.py
        # multimodal_model_archs lists Qwen2VL / Qwen2_5_VLForConditionalGeneration, 0.5.23 wheel)
        is_multimodal="text_config" in cfg or isinstance(cfg.get("vision_config"), dict),
        attention_bias=_qkv_bias(text),
        vision_params=vision_params(cfg.get("vision_config"), hidden, cfg.get("model_type"), where=source),
        assumptions=tuple(assumptions), extra=_extra(cfg, text),
    )


class _Reader:
    """Reads required positive ints from a config, with messages that name the field and file."""

    def __init__(self, text: dict, where: str, assumptions: list[str]) -> None:
        self.text, self.where, self.assumptions = text, where, assumptions

    def int(self, key: str, *, default: int | None = None, maximum: int = MAX_DIM) -> int:
        """``text[key]`` as a whole number in [1, ``maximum``]; ``default`` (recorded as an assumption) when absent."""
        value = self.text.get(key)
        if value is None:
            if default is None:
                raise ConfigError(
                    f"{self.where}: required field {key!r} is missing (or null); "
                    f"add it to the config.json (model_type {self.text.get('model_type')!r})"
                )
            self.assumptions.append(f"{key} absent: defaulted to {default}")
            return default
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
            raise ConfigError(f"{self.where}: {key} must be a whole number from 1 to {maximum:,}, got {value!r:.80}; "
                              "fix the config.json")
        return value


def _text_config(cfg: dict, where: str, assumptions: list[str]) -> dict:
    """The language-model part: ``text_config`` merged over inherited wrapper keys, plus library defaults."""
    text = dict(cfg)
    _check_model_type(cfg.get("model_type"), where, "model_type")
    if cfg.get("text_config") is not None and not isinstance(cfg["text_config"], dict):
        raise ConfigError(f"{where}: text_config must be an object (the language model's config), "
                          f"got {type(cfg['text_config']).__name__} {cfg['text_config']!r:.60}")
    if isinstance(cfg.get("text_config"), dict):
        text = dict(cfg["text_config"])
        _check_model_type(text.get("model_type"), where, "text_config.model_type")
        for key in ("quantization_config", "torch_dtype", "dtype", "tie_word_embeddings"):
            if key not in text and key in cfg:
                text[key] = cfg[key]
        if "model_type" not in text:
            text["model_type"] = _TEXT_MODEL_TYPE.get(cfg.get("model_type"), cfg.get("model_type"))
        filled = {k: v for k, v in _NESTED_TEXT_DEFAULTS.get(text["model_type"], {}).items() if text.get(k) is None}
        if filled:
            text.update(filled)
            assumptions.append(f"text_config omits {', '.join(f'{k} (= {v})' for k, v in filled.items())}: "
                               f"transformers' {text['model_type']} config defaults (a nested config is saved "
                               "without them)")
    if not text.get("model_type"):
        raise ConfigError(f"{where}: required field 'model_type' is missing; is this an HF config.json?")
    if text["model_type"] == "lfm2":
        _lfm2_spellings(text)
    if text["model_type"] in CLASSIC_MODEL_TYPES:
        classic_spellings(text, where)
    for key, value in _LIBRARY_DEFAULTS.get(text["model_type"], {}).items():
        if key not in text:
            text[key] = value
            assumptions.append(f"{key} absent: {text['model_type']} library default {value}")
    return text


def _check_model_type(value, where: str, field: str) -> None:
    """A ``model_type`` that is present must be a string (transformers' ``AutoConfig`` looks its config class up by
    it): checked, for the wrapper's and the nested ``text_config``'s, before either is looked up in a table (fuzz
    seed 29, case 2416: a list reached the wrapper → text type map, a TypeError)."""
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{where}: {field} must be a string such as \"llama\", got {type(value).__name__} "
                          f"{value!r:.60}")


def _lfm2_spellings(text: dict) -> None:
    """LFM2's older config keys, read as transformers reads them (5.x ``Lfm2Config.__init__``): ``block_ff_dim``
    wins over ``intermediate_size`` and ``tie_embedding`` over ``tie_word_embeddings``."""
    if text.get("block_ff_dim") is not None:
        text["intermediate_size"] = text["block_ff_dim"]
    if text.get("tie_embedding") is not None:
        text["tie_word_embeddings"] = text["tie_embedding"]


def lfm2_ff_dim(text: dict, where: str) -> int:
    """Width of an LFM2 feed-forward block (``Lfm2MLP``: sglang 0.5.9 – 0.5.23 ``models/lfm2.py``, transformers 5.x
    ``modeling_lfm2.py``, vLLM 0.14.1 / 0.29.0 ``models/lfm2.py``): with ``block_auto_adjust_ff_dim`` (default
    true) ``int(2·I/3)``, then, when ``block_ffn_dim_multiplier`` is not null (default 1.0), ``int(× multiplier)``
    rounded up to a multiple of ``block_multiple_of`` (default 256); without it ``I`` as written."""
    width = text.get("intermediate_size")
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= MAX_DIM:
        raise ConfigError(f"{where}: an LFM2 config needs intermediate_size (or block_ff_dim), a whole number from 1 "
                          f"to {MAX_DIM:,}, got {width!r:.60}; fix the config.json")
    if "block_auto_adjust_ff_dim" in text and not optional_bool(text, "block_auto_adjust_ff_dim", where):
        return width
    width = int(2 * width / 3)
    multiplier = text.get("block_ffn_dim_multiplier", 1.0)
    if multiplier is None:
        return width
    if isinstance(multiplier, bool) or not isinstance(multiplier, (int, float)) or not 0 < multiplier <= 1000:
        raise ConfigError(f"{where}: block_ffn_dim_multiplier must be a positive number or null, got "
                          f"{multiplier!r:.60}; fix the config.json")
    step = optional_int(text, "block_multiple_of", where, default=256, minimum=1)
    return step * -(-int(multiplier * width) // step)


def _architecture(cfg: dict, mt: str, where: str, assumptions: list[str]) -> str:
    """``architectures[0]`` (the model type when absent); an unknown model type is recorded as an assumption."""
    archs = cfg.get("architectures")
    if archs is not None and (not isinstance(archs, list) or not all(isinstance(a, str) for a in archs)):
        raise ConfigError(f"{where}: architectures must be a list of class names such as [\"LlamaForCausalLM\"], "
                          f"got {archs!r:.80}")
    arch = (archs or [mt])[0]
    if mt not in KNOWN_MODEL_TYPES and arch not in GROK_ARCHS:
        assumptions.append(
            f"model_type {mt!r} ({arch}) is not one tpkit has rules for: planned as a standard decoder "
            "(attention + MLP per layer, sizes from the config); pass the checkpoint directory so the "
            "weights come from its safetensors headers")
    return arch


def _mla(text: dict, r: _Reader) -> MlaSpec | None:
    if not text.get("kv_lora_rank"):
        return None
    return MlaSpec(kv_lora_rank=r.int("kv_lora_rank"), qk_rope_head_dim=r.int("qk_rope_head_dim"),
                   qk_nope_head_dim=r.int("qk_nope_head_dim"), v_head_dim=r.int("v_head_dim"),
                   q_lora_rank=optional_int(text, "q_lora_rank", r.where, default=0) or None)


def _dsa(text: dict, r: _Reader, mla: MlaSpec | None) -> DsaSpec | None:
    """The lightning indexer of DeepSeek sparse attention: present when the config has ``index_topk`` (SGLang
    ``configs/model_config.py`` ``is_deepseek_nsa``, 0.5.3 – 0.5.23; the engines also check the architecture).
    ``index_head_dim`` is required then: it sizes the indexer keys in the KV pool."""
    if text.get("index_topk") is None or mla is None:
        return None
    shared = text.get("indexer_types")
    n_shared = sum(1 for t in shared if t == "shared") if isinstance(shared, list) else 0
    return DsaSpec(index_head_dim=r.int("index_head_dim"), index_n_heads=r.int("index_n_heads"),
                   index_topk=r.int("index_topk", maximum=2**31 - 1),
                   index_kpool=optional_int(text, "index_kpool", r.where, default=1, minimum=1),
                   shared_indexer_layers=n_shared)


def _head_dims(text: dict, r: _Reader, mla: MlaSpec | None, hidden: int, heads: int) -> tuple[int, int]:
    if mla:
        return mla.qk_nope_head_dim + mla.qk_rope_head_dim, mla.v_head_dim
    if text.get("head_dim") is not None:
        hd = r.int("head_dim")
    else:
        if hidden % heads:
            raise ConfigError(f"{r.where}: no head_dim and hidden_size {hidden} is not divisible by "
                              f"num_attention_heads {heads}; add head_dim to the config")
        hd = hidden // heads
    return hd, hd


def _moe(text: dict, r: _Reader, num_layers: int) -> MoeSpec | None:
    key = next((k for k in ("n_routed_experts", "num_experts", "num_local_experts") if text.get(k)), None)
    if key is None or (is_gemma4(text) and not optional_bool(text, "enable_moe_block", r.where)):
        return None  # Gemma 4 builds its expert block only with enable_moe_block (vLLM models/gemma4.py)
    mt = text["model_type"]
    width_key = "moe_intermediate_size" if text.get("moe_intermediate_size") else "intermediate_size"
    width = r.int(width_key)
    shared = (optional_int(text, "n_shared_experts", r.where, default=0)
              or optional_int(text, "num_shared_experts", r.where, default=0))
    shared_width = optional_int(text, "shared_expert_intermediate_size", r.where, default=0) or None
    if mt in _SHARED_EXPERT_ARCH:
        shared, shared_width = 1, width
    elif mt == "granitemoehybrid":  # an always-on shared MLP beside the experts (sglang models/granitemoehybrid.py)
        shared_width = optional_int(text, "shared_intermediate_size", r.where, default=0) or None
        shared = 1 if shared_width else 0
    elif mt == "nemotron_h" and shared:  # NemotronHMoE's shared MLP: moe_shared_expert_intermediate_size x n_shared
        shared_width = r.int("moe_shared_expert_intermediate_size") * shared  # (SGLang 0.5.6+ / vLLM 0.12.0+)
    elif shared_width and not shared:
        shared = 1
    num_dense = optional_int(text, "first_k_dense_replace", r.where, default=0)
    topk_key = next((k for k in ("num_experts_per_tok", "experts_per_token", "num_experts_per_token", "top_k_experts")
                     if text.get(k)), None)
    if topk_key is None:
        raise ConfigError(f"{r.where}: MoE config ({key}={text[key]}) lacks num_experts_per_tok")
    return MoeSpec(num_experts=r.int(key), experts_per_token=r.int(topk_key), moe_intermediate_size=width,
                   num_shared_experts=shared, shared_intermediate_size=shared_width,
                   num_dense_layers=num_dense,
                   moe_layer_freq=optional_int(text, "moe_layer_freq", r.where, default=1) or 1,
                   moe_layer_ids=moe_layer_ids(text, num_layers, num_dense, r.where))


def _dense_width(text: dict, r: _Reader, moe: MoeSpec | None) -> int:
    """Width of the dense MLP (Llama 4 keeps it in intermediate_size_mlp); 0 when no layer is dense."""
    if text.get("intermediate_size_mlp"):
        return r.int("intermediate_size_mlp")
    if text.get("model_type") == "lfm2":
        return lfm2_ff_dim(text, r.where)
    if text.get("model_type") == "granitemoehybrid" and moe is None and text.get("shared_intermediate_size"):
        return r.int("shared_intermediate_size")  # no experts: the shared MLP is the layer's MLP
    if moe and len(moe.moe_layer_ids) == r.int("num_hidden_layers") and not text.get("intermediate_size"):
        return 0
    return r.int("intermediate_size")


def _max_positions(text: dict, r: _Reader) -> int:
    for key in ("max_position_embeddings", "model_max_length", "max_sequence_length", "seq_length"):
        if text.get(key):
            if key != "max_position_embeddings":
                r.assumptions.append(f"max_position_embeddings absent: took {key} = {text[key]}")
            return r.int(key)
    return r.int("max_position_embeddings")


def _dtype(text: dict, where: str, assumptions: list[str]) -> str:
    value = text.get("torch_dtype") or text.get("dtype")
    if value is None:
        assumptions.append("torch_dtype absent: assumed bfloat16 (2 bytes per unquantised weight)")
        return "bfloat16"
    found = lookup_dtype(str(value))
    if found is None or found.name not in WEIGHT_DTYPES:
        raise ConfigError(f"{where}: torch_dtype {value!r} is not one of {sorted(WEIGHT_DTYPES)}; fix the config.json: "
                          "set it to the dtype the checkpoint's weights are stored in (the safetensors headers' "
                          "dtype, e.g. \"bfloat16\"), or delete the key and tpkit assumes "
                          "bfloat16 and says so")
    return found.name


def _qkv_bias(text: dict) -> bool:
    value = text.get("attention_bias")
    if isinstance(value, bool):
        return value
    return text["model_type"] in _QKV_BIAS_ARCH


def _is_grok(cfg: dict) -> bool:
    archs = cfg.get("architectures")
    return isinstance(archs, list) and bool(GROK_ARCHS.intersection(a for a in archs if isinstance(a, str)))


_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
             "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")


def _extra(cfg: dict, text: dict) -> dict:
    mt = text["model_type"]
    extra = {
        "qkv_bias": _qkv_bias(text),
        "o_bias": _qkv_bias(text) and mt not in _NO_O_BIAS,
        "qk_norm": mt in _QK_NORM_ARCH or (bool(text.get("use_qk_norm")) and mt != "llama4_text"),
        "attention_sinks": mt == "gpt_oss",
        # GPT-2 / OPT: two LayerNorms per layer, each a weight and a bias vector
        "norms_per_layer": 4 if mt.startswith("gemma") or _is_grok(cfg) or mt in CLASSIC_MODEL_TYPES else 2,
        # Grok-2: a dense MLP of intermediate_size beside the experts in every MoE layer (see GROK_ARCHS)
        "residual_moe": bool(text.get("residual_moe")) or (is_gemma4(text) and bool(text.get("enable_moe_block"))),
        "router_bias": mt == "gpt_oss",
        "expert_bias": mt == "gpt_oss",
        "score_correction_bias": text.get("topk_method") == "noaux_tc" or mt in ("glm4_moe", "kimi_linear"),
        "wrapper_model_type": cfg.get("model_type"),
    }
    lengths = {k: text[k] for k in _LEN_KEYS if isinstance(text.get(k), (int, float)) and not isinstance(text[k], bool)}
    if lengths:
        extra["max_len_keys"] = lengths  # every length key, for vLLM's derived length (engines.vllm.maxlen)
    if isinstance(cfg.get("audio_config"), dict):
        extra["has_audio_tower"] = True
        extra["audio_config"] = cfg["audio_config"]  # sized by tpkit.models.audio (weights' "audio tower" line)
    if mt in CLASSIC_MODEL_TYPES:
        extra.update(classic_extra(text))
    if mt in GATED_ATTN_ARCH and text.get("attn_output_gate", True) is not False:
        extra["attn_output_gate"] = True  # q_proj also yields a per-head output gate (see GATED_ATTN_ARCH)
    labels = cfg.get("num_labels") or (len(cfg["id2label"]) if isinstance(cfg.get("id2label"), dict) else None)
    if isinstance(labels, int) and not isinstance(labels, bool) and labels >= 1:
        extra["num_labels"] = labels  # HF PretrainedConfig: num_labels, else the id2label entries (default 2)
    for key in ("linear_attn_config", "rope_scaling", "rope_theta", "partial_rotary_factor", "rotary_dim",
                "rotary_pct", "rope_pct", "rotary_emb_fraction", "rope_parameters", "rope_local_base_freq",
                "original_max_position_embeddings", "n_group", "topk_group", "rope_type", "scaling_factor",
                "rope_rotate_half_dims",
                "vision_config", "mm_tokens_per_image", "draft_vocab_size",
                "image_grid_pinpoints", "vision_feature_layer", "vision_feature_select_strategy",
                "eagle_config", "dflash_config", "target_layer_ids", "target_hidden_size", "num_aux_hidden_states",
                "num_attention_layers", "is_hybrid_swa",
                "mtp_num_hidden_layers", "use_bidirectional_attention", "attention_k_eq_v", "use_double_wide_mlp",
                "num_global_key_value_heads",
                "hidden_size_per_layer_input", "vocab_size_per_layer_input",
                "mamba_ssm_dtype", "mamba_conv_bias", "mamba_proj_bias", "shared_intermediate_size",
                "hybrid_override_pattern", "moe_latent_size", "mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups",
                "mamba_n_groups", "conv_kernel", "mamba_d_conv", "mamba_ssm_cache_dtype", "use_conv_bias",
                "conv_L_cache", "conv_bias", "conv_dim", "compress_ratios", "index_head_dim", "qk_rope_head_dim",
                "q_lora_rank", "o_groups", "o_lora_rank", "hc_mult", "num_hash_layers", "index_n_heads", "expert_dtype",
                "index_topk", "compress_rope_theta",
                *_GDN_KEYS):
        if cfg.get(key) is not None or text.get(key) is not None:
            extra[key] = text.get(key, cfg.get(key))
    return extra
