"""Vision towers: exact parameter counts from ``vision_config``, and what each engine keeps on one TP rank.

    in:  the wrapper's ``vision_config`` dict, the text hidden size and the wrapper's ``model_type``
    out: ``VisionTower`` (family, parameter count split into the weight matrices an engine may shard over TP —
         attention, MLP, projector — and everything else, which every rank holds), or ``None`` when the tower
         layout is unknown; ``tower_params_per_rank(tower, tp, engine=...)``

Families (shapes from the HF ``transformers`` / vLLM / SGLang model files; d = tower width, i = MLP width,
p = patch, L = layers; "+b" = with bias):
  - ``siglip`` (Gemma 3, ``siglip_vision_model``): conv 3·p²·d+d, position table (img/p)²·d, per layer q/k/v/o +b,
    fc1/fc2 +b, 2 LayerNorms; post LayerNorm; Gemma 3 adds the projector d·hidden and its RMSNorm d.
  - ``clip`` (LLaVA-NeXT, ``clip_vision_model``): class embedding d, conv 3·p²·d (no bias), position table
    ((img/p)²+1)·d, pre LayerNorm, per layer as SigLIP, post LayerNorm; LLaVA projector d→hidden→hidden +b
    (and LLaVA-NeXT's ``image_newline``, hidden).
  - ``mllama`` (Llama 3.2 Vision): conv 3·p²·d (no bias), class embedding, gated position embedding
    (n·d + tiles·n·d per aspect-ratio id, n = (img/p)²+1), two gated aspect-ratio embeddings, 2 LayerNorms,
    L local + G global layers (q/k/v/o no bias, fc1/fc2 +b, 2 LayerNorms; global layers + 2 gates), projector
    ``vision_output_dim``→hidden +b.
  - ``qwen2_vl``: Conv3d 3·t·p²·d (no bias), per layer LayerNorm×2 (+b), qkv/proj +b, fc1/fc2 (d·mlp_ratio) +b;
    merger LayerNorm d + MLP 4d→4d→hidden +b.
  - ``qwen2_5_vl``: as ``qwen2_vl`` with RMSNorms and a gated MLP (gate/up/down +b); merger RMSNorm d.
  - ``qwen3_vl``: Conv3d +b, learned position table, LayerNorm blocks with fc1/fc2 +b, merger LayerNorm d +
    4d→4d→out +b, plus one deepstack merger (LayerNorm 4d) per ``deepstack_visual_indexes`` entry.
    Qwen3.5 / Qwen3.5-MoE wrappers (``qwen3_5``, ``qwen3_5_moe``; tower ``qwen3_5_vision``) load this same tower:
    vLLM 0.29.0 ``model_executor/models/qwen3_5.py`` ``Qwen3_5ForConditionalGeneration`` builds
    ``Qwen3_VisionTransformer`` of ``qwen3_vl.py``; SGLang 0.5.10 ``models/qwen3_5.py`` subclasses
    ``Qwen3VLForConditionalGeneration`` (``Qwen3VLMoeVisionModel``).
  - ``llama4`` (``llama4_vision_model``): unfold-conv 3·p²·d (no bias), class embedding, position table
    ((img/p)²+1)·d, 2 LayerNorms, per layer q/k/v/o +b, fc1/fc2 +b, 2 LayerNorms; the pixel-shuffle adapter
    (a ``Llama4VisionMLP``: (d/r²)→projector_input_dim→projector_output_dim, bias per
    ``multi_modal_projector_bias``) is counted with the MLP matrices; projector vision_output_dim→hidden, no bias.
  - ``gemma4`` (``gemma4_vision``): patch projection 3·p²·d (no bias), a 2 × position_embedding_size × d position
    table, per layer q/k/v (heads × head_dim, KV heads for k/v) and o (no bias), q/k RMSNorms (head_dim), a gated
    MLP gate/up/down (no bias), 4 RMSNorms; no pooler weights; standardize keeps 2·d buffers; the embedder's
    projection d → hidden (no bias, its pre-norm has no scale) (transformers 5.25 ``modeling_gemma4.py``
    ``Gemma4VisionModel`` / ``Gemma4MultimodalEmbedder``).
  - ``moonvit`` (Kimi-K2.5, ``vt_*`` keys): conv 3·p²·d+d, position table h·w·d, per layer wqkv/wo +b,
    fc0/fc1 +b, 2 LayerNorms; final LayerNorm; projector LayerNorm d + 4d→4d→hidden +b.

The tower is held in the model's unquantised dtype: quantised checkpoints leave it out of their quantisation
scope (not modelled otherwise).
"""

from __future__ import annotations

import math

from tpkit.errors import ConfigError
from tpkit.models.fields import optional_int
from tpkit.records import dataclass

__all__ = ["VisionTower", "vision_tower", "vision_params", "tower_params_per_rank", "TOWER_TP_SHARDED"]

SHARDABLE = ("attention", "mlp", "projector")
"""the weight-matrix groups an engine may split over TP; biases, norms, embeddings and convs stay whole"""


@dataclass(frozen=True, kw_only=True)
class VisionTower:
    """A vision tower's parameters (count, no bytes: the dtype is the model's)."""

    family: str
    """siglip, clip, mllama, llama4, qwen2_vl, qwen2_5_vl, qwen3_vl, moonvit or gemma4"""
    attention: int
    """q/k/v/o weight matrices of every layer (params)"""
    mlp: int
    """MLP weight matrices of every layer (params)"""
    projector: int
    """weight matrices of the projector / patch merger into the text width (params)"""
    other: int
    """everything else: patch conv, position / tile / class embeddings, norms, biases, gates (params)"""

    @property
    def params(self) -> int:
        """All parameters of the tower and its projector."""
        return self.attention + self.mlp + self.projector + self.other


TOWER_TP_SHARDED: dict[tuple[str, str], frozenset[str]] = {
    # SGLang 0.5.9 (the wheel): models/mllama.py MllamaVisionModel (VisionAttention use_qkv_parallel, fc1/fc2
    # Column/RowParallelLinear) but MllamaForConditionalGeneration.multi_modal_projector = ReplicatedLinear
    ("sglang", "mllama"): frozenset({"attention", "mlp"}),
    # models/qwen2_vl.py, qwen2_5_vl.py, qwen3_vl.py: blocks and merger Column/RowParallelLinear over the
    # attention-TP group (all replicated with --mm-enable-dp-encoder, not modelled)
    ("sglang", "qwen2_vl"): frozenset(SHARDABLE),
    ("sglang", "qwen2_5_vl"): frozenset(SHARDABLE),
    ("sglang", "qwen3_vl"): frozenset(SHARDABLE),
    # models/kimi_k25.py: VisionAttention (qkv/proj parallel) but MLP2 from kimi_vl_moonvit.py is nn.Linear and
    # K2VLMultiModalProjector uses ReplicatedLinear
    ("sglang", "moonvit"): frozenset({"attention"}),
    # models/mllama4.py: attention, MLP and the pixel-shuffle adapter (Llama4VisionMLP) parallel unless
    # --mm-enable-dp-encoder; multi_modal_projector is transformers' Llama4MultiModalProjector (nn.Linear)
    ("sglang", "llama4"): frozenset({"attention", "mlp"}),
    # models/siglip.py / clip.py: attention and fc1/fc2 parallel; gemma3_mm.py mm_input_projection_weight is an
    # nn.Parameter, llava.py's projector is transformers' nn.Linear
    ("sglang", "siglip"): frozenset({"attention", "mlp"}),
    ("sglang", "clip"): frozenset({"attention", "mlp"}),
    # vLLM 0.33 (mm_encoder_tp_mode default "weights", multimodal config): towers are TP-sharded; exceptions:
    # kimi_k25_vit.py KimiK25MultiModalProjector and gemma3_mm.py mm_input_projection_weight are replicated.
    # vLLM 0.6.6 mllama.py: patch/attention/MLP parallel, multi_modal_projector ColumnParallelLinear.
    ("vllm", "moonvit"): frozenset({"attention", "mlp"}),
    # vLLM 0.19.0–0.33.0 gemma4_mm.py: the tower is transformers' own (AutoModel.from_config), its nn.Linear layers
    # kept (0.19–0.24) or swapped for ReplicatedLinear (0.25+: transformers/utils.py recursive_replace_linear, style
    # "replicate"); embed_vision's projection is a ReplicatedLinear: nothing is split (helper gem4)
    ("vllm", "gemma4"): frozenset(),
    ("vllm", "siglip"): frozenset({"attention", "mlp"}),
}
"""(engine, family) → the groups the engine splits over TP when it differs from "all of ``SHARDABLE``" (the
default, vLLM's ``mm_encoder_tp_mode="weights"``).  A group not listed is held whole on every rank."""


def tower_params_per_rank(tower: VisionTower, tp: int, *, engine: str | None = None) -> int:
    """Parameters of ``tower`` on one rank of a TP group of ``tp``: the groups ``engine`` shards (see
    ``TOWER_TP_SHARDED``; every matrix group for ``None`` / an engine without a row) split by ``ceil(/tp)``,
    everything else whole."""
    sharded = TOWER_TP_SHARDED.get((engine or "", tower.family), frozenset(SHARDABLE))
    split = sum(getattr(tower, g) for g in SHARDABLE if g in sharded)
    return tower.params - split + math.ceil(split / tp)


def vision_params(vision_config, text_hidden: int, wrapper_model_type: str | None, *,
                  where: str = "config") -> int | None:
    """Parameters of the vision tower (+ projector), or ``None`` when not derivable."""
    tower = vision_tower(vision_config, text_hidden, wrapper_model_type, where=where)
    return None if tower is None else tower.params


def vision_tower(vision_config, text_hidden: int, wrapper_model_type: str | None, *,
                 where: str = "config") -> VisionTower | None:
    """The tower of ``vision_config``, or ``None`` when its layout is unknown.

    A ``vision_config`` that is not an object, or one of a known family without its sizes, raises ``ConfigError``.
    """
    if vision_config is None:
        return None
    if not isinstance(vision_config, dict):
        raise ConfigError(f"{where}: vision_config must be an object, got {type(vision_config).__name__} "
                          f"{vision_config!r:.60}; fix the config.json or remove the key")
    family = _family(vision_config, wrapper_model_type)
    if family is None:
        return None
    return _BUILDERS[family](_Keys(vision_config, f"{where}: vision_config ({family})"), text_hidden,
                             wrapper_model_type)


def _family(vc: dict, wrapper: str | None) -> str | None:
    vt = vc.get("model_type") or ""
    if vt == "siglip_vision_model":
        return "siglip"
    if vt == "clip_vision_model":
        return "clip"
    if vt == "llama4_vision_model":
        return "llama4"
    if vt == "gemma4_vision":
        return "gemma4"
    if vt == "mllama_vision_model" or wrapper == "mllama":
        return "mllama"
    if "vt_hidden_size" in vc or wrapper in ("kimi_k25",):
        return "moonvit"
    for name in ("qwen3_vl", "qwen2_5_vl", "qwen2_vl"):
        if wrapper in (name, name + "_moe") or vt in (name, name + "_moe"):
            return name
    if wrapper in ("qwen3_5", "qwen3_5_moe") or vt in ("qwen3_5", "qwen3_5_moe", "qwen3_5_vision"):
        return "qwen3_vl"  # the Qwen3-VL tower (module docstring)
    return None


class _Keys:
    """Required positive ints of a vision_config, with a message naming the missing keys."""

    def __init__(self, vc: dict, at: str) -> None:
        self.vc, self.at = vc, at

    def ints(self, *keys: str, **defaults: int) -> list[int]:
        values, missing = [], []
        for key in keys:
            names = key.split("|")  # alternative spellings, first found wins
            found = next((k for k in names if self.vc.get(k) is not None), None)
            if found is None and names[0] in defaults:
                values.append(defaults[names[0]])
                continue
            if found is None:
                missing.append(names[0])
                values.append(0)
                continue
            values.append(optional_int(self.vc, found, self.at, default=None, minimum=1))
        if missing:
            raise ConfigError(f"{self.at} lacks {', '.join(missing)}; add them as in the model's released "
                              "config.json")
        return values


def _siglip(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, p, img, n = k.ints("hidden_size", "intermediate_size", "patch_size", "image_size", "num_hidden_layers")
    gemma = wrapper == "gemma3"
    return VisionTower(family="siglip", attention=n * 4 * d * d, mlp=n * 2 * d * i,
                       projector=d * hidden if gemma else 0,
                       other=3 * p * p * d + d + (img // p) ** 2 * d + n * (4 * d + i + d + 4 * d) + 2 * d
                       + (d if gemma else 0))


def _clip(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, p, img, n = k.ints("hidden_size", "intermediate_size", "patch_size", "image_size", "num_hidden_layers")
    llava = wrapper in ("llava", "llava_next")
    projector_bias = 2 * hidden if llava else 0
    newline = hidden if wrapper == "llava_next" else 0
    return VisionTower(family="clip", attention=n * 4 * d * d, mlp=n * 2 * d * i,
                       projector=(d * hidden + hidden * hidden) if llava else 0,
                       other=d + 3 * p * p * d + ((img // p) ** 2 + 1) * d + 2 * d
                       + n * (4 * d + i + d + 4 * d) + 2 * d + projector_bias + newline)


def _mllama(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, p, img, n, g, tiles, out, ch = k.ints(
        "hidden_size", "intermediate_size", "patch_size", "image_size", "num_hidden_layers", "num_global_layers",
        "max_num_tiles", "vision_output_dim", "num_channels", num_channels=3)
    ratios = len(k.vc.get("supported_aspect_ratios") or []) or _aspect_ratios(tiles)
    patches = (img // p) ** 2 + 1
    layers = n + g
    embeddings = (ch * p * p * d + d + 1 + patches * d + (ratios + 1) * tiles * patches * d
                  + 2 * ((ratios + 1) * tiles * d + 1) + 4 * d)
    return VisionTower(family="mllama", attention=layers * 4 * d * d, mlp=layers * 2 * d * i,
                       projector=out * hidden,
                       other=embeddings + layers * (i + d + 4 * d) + 2 * g + hidden)


def _aspect_ratios(tiles: int) -> int:
    """Number of (w, h) tile grids with w·h ≤ tiles (Mllama's supported aspect ratios)."""
    return sum(1 for w in range(1, tiles + 1) for h in range(1, tiles + 1) if w * h <= tiles)


def _llama4(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, p, img, n, ch, pin, pout, out = k.ints(
        "hidden_size", "intermediate_size", "patch_size", "image_size", "num_hidden_layers", "num_channels",
        "projector_input_dim", "projector_output_dim", "vision_output_dim", num_channels=3)
    ratio = k.vc.get("pixel_shuffle_ratio", 0.5)
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not 0 < ratio <= 1:
        raise ConfigError(f"{k.at}: pixel_shuffle_ratio must be a number in (0, 1], got {ratio!r:.40}; fix the "
                          "config.json")
    shuffled = round(d / ratio ** 2)
    adapter_bias = (pin + pout) if k.vc.get("multi_modal_projector_bias") is True else 0
    return VisionTower(family="llama4", attention=n * 4 * d * d, mlp=n * 2 * d * i + shuffled * pin + pin * pout,
                       projector=out * hidden,
                       other=ch * p * p * d + d + ((img // p) ** 2 + 1) * d + 4 * d + n * (4 * d + i + d + 4 * d)
                       + adapter_bias)


def _qwen2_vl(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, n, ratio, p, t, ch, m, out = k.ints("embed_dim", "depth", "mlp_ratio", "patch_size|spatial_patch_size",
                                           "temporal_patch_size", "in_chans|in_channels", "spatial_merge_size",
                                           "hidden_size", in_chans=3, temporal_patch_size=2, spatial_merge_size=2,
                                           mlp_ratio=4)
    i, w = d * ratio, d * m * m
    return VisionTower(family="qwen2_vl", attention=n * 4 * d * d, mlp=n * 2 * d * i, projector=w * w + w * out,
                       other=ch * t * p * p * d + n * (4 * d + 4 * d + i + d) + 2 * d + w + out)


def _qwen2_5_vl(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, n, p, t, ch, m, out = k.ints("hidden_size", "intermediate_size", "depth", "patch_size|spatial_patch_size",
                                       "temporal_patch_size", "in_chans|in_channels", "spatial_merge_size",
                                       "out_hidden_size", in_chans=3, temporal_patch_size=2, spatial_merge_size=2)
    w = d * m * m
    return VisionTower(family="qwen2_5_vl", attention=n * 4 * d * d, mlp=n * 3 * d * i, projector=w * w + w * out,
                       other=ch * t * p * p * d + n * (3 * d + d + 2 * i + d + 2 * d) + d + w + out)


def _qwen3_vl(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, n, p, t, ch, m, out, pos = k.ints("hidden_size", "intermediate_size", "depth", "patch_size",
                                            "temporal_patch_size", "in_channels|in_chans", "spatial_merge_size",
                                            "out_hidden_size", "num_position_embeddings", in_channels=3,
                                            temporal_patch_size=2, spatial_merge_size=2)
    w = d * m * m
    deep = len(k.vc.get("deepstack_visual_indexes") or [])
    mergers = 1 + deep
    return VisionTower(family="qwen3_vl", attention=n * 4 * d * d, mlp=n * 2 * d * i,
                       projector=mergers * (w * w + w * out),
                       other=ch * t * p * p * d + d + pos * d + n * (4 * d + 4 * d + i + d)
                       + 2 * d + deep * 2 * w + mergers * (w + out))


def _moonvit(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, n, p, h, wd = k.ints("vt_hidden_size|hidden_size", "vt_intermediate_size|intermediate_size",
                               "vt_num_hidden_layers|num_hidden_layers", "patch_size", "init_pos_emb_height",
                               "init_pos_emb_width")
    kernel = k.vc.get("merge_kernel_size", [2, 2])
    if not (isinstance(kernel, list) and len(kernel) == 2 and all(type(x) is int and x >= 1 for x in kernel)):
        raise ConfigError(f"{k.at}: merge_kernel_size must be two whole numbers like [2, 2], got {kernel!r:.60}; "
                          "fix the config.json")
    merge = kernel[0] * kernel[1]
    out = k.ints("text_hidden_size", text_hidden_size=hidden)[0]
    w = d * merge
    return VisionTower(family="moonvit", attention=n * 4 * d * d, mlp=n * 2 * d * i, projector=w * w + w * out,
                       other=3 * p * p * d + d + h * wd * d + n * (4 * d + i + d + 4 * d) + 2 * d
                       + 2 * d + w + out)


def _gemma4(k: _Keys, hidden: int, wrapper: str | None) -> VisionTower:
    d, i, n, p, pos, heads = k.ints("hidden_size", "intermediate_size", "num_hidden_layers", "patch_size",
                                    "position_embedding_size", "num_attention_heads")
    hd, kv = k.ints("head_dim", "num_key_value_heads", head_dim=d // heads, num_key_value_heads=heads)
    standardize = 2 * d if k.vc.get("standardize") is True else 0
    return VisionTower(family="gemma4", attention=n * (2 * heads * hd * d + 2 * kv * hd * d), mlp=n * 3 * d * i,
                       projector=d * hidden,
                       other=3 * p * p * d + 2 * pos * d + n * (2 * hd + 4 * d) + standardize)


_BUILDERS = {"gemma4": _gemma4, "siglip": _siglip, "clip": _clip, "mllama": _mllama, "llama4": _llama4,
             "qwen2_vl": _qwen2_vl, "qwen2_5_vl": _qwen2_5_vl, "qwen3_vl": _qwen3_vl, "moonvit": _moonvit}
