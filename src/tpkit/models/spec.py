"""``ModelSpec``: the architecture facts tpkit needs, read from an HF config (pure value types).

Loading (``tpkit.models.load``) turns a config.json — from a path, a checkpoint directory, the
local HF cache or the embedded catalog — into one ``ModelSpec``.  Everything downstream
(KV bytes per token, weight bytes per rank, engine policies) reads only this type.
"""

from __future__ import annotations

from dataclasses import field

from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["MlaSpec", "DsaSpec", "MoeSpec", "QuantSpec", "LinearAttnSpec", "ModelSpec", "LAYER_KINDS"]

LAYER_KINDS = ("full", "sliding", "linear", "none")
"""attention kind of one decoder layer: full attention, sliding-window, linear/mamba-like"""


@dataclass(frozen=True, kw_only=True, slots=True)
class MlaSpec:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2)."""

    kv_lora_rank: int
    """latent width (elements) cached per token per layer"""
    qk_rope_head_dim: int
    """rope part cached per token per layer (elements)"""
    qk_nope_head_dim: int
    """non-rope part of a query/key head (elements)"""
    v_head_dim: int
    """value head dim (elements)"""
    q_lora_rank: int | None = None
    """query down-projection width (elements); None = no q LoRA"""


@dataclass(frozen=True, kw_only=True, slots=True)
class DsaSpec:
    """DeepSeek sparse attention (DSA; SGLang calls it NSA): a lightning indexer beside MLA (DeepSeek-V3.2,
    GLM-5 ``glm_moe_dsa``).  The indexer caches one key of ``index_head_dim`` per token and layer."""

    index_head_dim: int
    """indexer key width (elements) cached per token per layer"""
    index_n_heads: int
    """indexer query heads (count; not cached)"""
    index_topk: int
    """tokens each query attends to (count)"""
    index_kpool: int = 1
    """keys pooled into one indexer row (config ``index_kpool``; absent = 1)"""
    shared_indexer_layers: int = 0
    """layers that reuse another layer's top-k (``indexer_types`` entries ``"shared"``; count)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class MoeSpec:
    """Mixture-of-experts facts."""

    num_experts: int
    """routed experts per MoE layer (count)"""
    experts_per_token: int
    """routed experts each token uses (count)"""
    moe_intermediate_size: int
    """FFN width of one routed expert (elements)"""
    num_shared_experts: int = 0
    """always-active experts (count)"""
    shared_intermediate_size: int | None = None
    """FFN width of the shared expert(s) when it differs from num_shared × moe_intermediate"""
    num_dense_layers: int = 0
    """leading layers with a dense MLP instead of experts (DeepSeek first_k_dense_replace)"""
    moe_layer_freq: int = 1
    """every n-th layer is MoE (after the dense ones)"""
    moe_layer_ids: tuple[int, ...] = ()
    """0-based decoder layers that hold routed experts, resolved from the config (first_k_dense_replace,
    moe_layer_freq, decoder_sparse_step, mlp_only_layers, interleave_moe_layer_step); empty = not resolved"""


@dataclass(frozen=True, kw_only=True, slots=True)
class LinearAttnSpec:
    """Linear-attention / mamba-like layers whose state is per request, not per token."""

    state_bytes_per_layer: Bytes | None = None
    """recurrent state bytes per request per layer at TP 1, when derivable"""
    temporal_bytes_per_layer: Bytes | None = None
    """the part of ``state_bytes_per_layer`` that is the SSM (temporal / recurrent) state, sized in fp32 (4 B per
    element, SGLang's default ``mamba_ssm_dtype``); None where the layer has no such state.  SGLang's
    ``--mamba-ssm-dtype`` rescales it (``engines.sglang.mamba.ssm_state_choice``)"""
    description: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class QuantSpec:
    """Weight quantisation of a checkpoint (from ``quantization_config``) or a flag."""

    method: str
    """normalised: ``fp8``, ``mxfp4``, ``int4`` (awq/gptq/compressed-tensors), ``int8``, ``fbgemm_fp8`` …"""
    weight_bits: int
    """bits per quantised weight element"""
    group_size: int | None = None
    """elements sharing one scale (None: per-channel or block)"""
    block_size: tuple[int, int] | None = None
    """fp8 block-scale tile (e.g. (128, 128)) when scales are per block"""
    scale_bytes: int = 2
    """bytes per scale element (bf16 2, fp32 4, e8m0 1)"""
    has_zero_point: bool = False
    """asymmetric quantisation stores a zero point per group"""
    ignored: tuple[str, ...] = ()
    """module name patterns left unquantised (as written in the config)"""
    scope: str = "all_linear"
    """which weights are quantised: ``all_linear``, ``experts_only``, ``mlp_only``"""
    kv_cache_fp8: bool = False
    """the checkpoint asks for an fp8 KV cache (``kv_cache_quant_algo == "FP8"``)"""
    kv_cache_scheme: str | None = None
    """ModelOpt checkpoints: the KV cache they were calibrated for, ``fp8`` (static scales), ``fp8_dynamic`` or
    ``nvfp4``; None when the config names none (which engine honours it, from which release, is the engine's rule)"""
    raw_method: str = ""
    """``quant_method`` exactly as written in the config"""
    zero_point_bytes: int | None = None
    """bytes per zero-point element as the loaded kernel keeps it; None: packed at ``weight_bits`` as the checkpoint
    stores it.  vLLM's Machete kernel pre-applies the scales to the zero points and keeps them in the activation
    dtype (``explain.tpinfer.predicted_weights``, from its printed kernel line)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelSpec:
    """Architecture of the language model (the text part of multimodal wrappers)."""

    name: str
    """model id or path the user gave"""
    source: str
    """where the config was read from (file path, HF cache path, ``catalog``)"""
    architecture: str
    """``architectures[0]`` of the config (wrapper's, for multimodal)"""
    model_type: str
    """``model_type`` of the text config"""
    hidden_size: int
    """model width (elements)"""
    intermediate_size: int
    """dense MLP width (elements)"""
    num_layers: int
    """decoder layers (``num_hidden_layers``), excluding MTP/nextn layers"""
    num_attention_heads: int
    """query heads (count)"""
    num_kv_heads: int
    """total KV heads (1 value shared by all layers; MLA: equals attention heads)"""
    head_dim: int
    """K head dim (elements)"""
    v_head_dim: int
    """V head dim (elements); equals head_dim except for MLA and a few models"""
    vocab_size: int
    """vocabulary rows (count, unpadded)"""
    max_position_embeddings: int
    """the model's context limit (tokens)"""
    torch_dtype: str = "bfloat16"
    """checkpoint dtype of unquantised weights (torch spelling)"""
    tie_word_embeddings: bool = False
    """lm_head shares the embedding matrix"""
    layer_kinds: tuple[str, ...] = ()
    """per decoder layer, one of ``LAYER_KINDS``; empty means all ``"full"``"""
    sliding_window: int | None = None
    """window (tokens) of the sliding layers"""
    mla: MlaSpec | None = None
    dsa: DsaSpec | None = None
    moe: MoeSpec | None = None
    linear_attn: LinearAttnSpec | None = None
    quant: QuantSpec | None = None
    num_nextn_layers: int = 0
    """MTP / nextn predict layers stored in the checkpoint (not part of num_layers)"""
    is_multimodal: bool = False
    """a vision/audio tower wraps the language model (``text_config``)"""
    vision_params: int | None = None
    """parameter count of the vision tower when known"""
    attention_bias: bool = False
    """q/k/v projections carry biases"""
    full_head_dim: int | None = None
    """K/V head dim (elements) of the full-attention layers when it differs from ``head_dim`` (Gemma 4
    ``global_head_dim``; ``head_dim`` is then the sliding layers'); None: every layer uses ``head_dim``"""
    full_kv_heads: int | None = None
    """total KV heads of the full-attention layers when they differ from ``num_kv_heads`` (Gemma 4
    ``num_global_key_value_heads`` with ``attention_k_eq_v``); None: ``num_kv_heads``"""
    kv_shared_layers: int = 0
    """the last n decoder layers reuse the KV cache of an earlier layer of their kind and allocate none
    (Gemma 4 ``num_kv_shared_layers``; count)"""
    assumptions: tuple[str, ...] = ()
    """what tpkit assumed where the config was silent or unknown (a defaulted field, a library default, a
    model type without rules of its own), each as a sentence a plan can show"""
    extra: dict = field(default_factory=dict)
    """other raw facts a policy may need (kept verbatim from the config)"""

    @property
    def kinds(self) -> tuple[str, ...]:
        """Per-layer attention kinds (``"full"`` for every layer when not hybrid)."""
        return self.layer_kinds or ("full",) * self.num_layers

    def kind_of(self, layer: int) -> str:
        """Attention kind of decoder ``layer`` (0-based) without building ``kinds`` (O(1))."""
        return self.layer_kinds[layer] if self.layer_kinds else "full"

    def kv_head_dim(self, kind: str) -> int:
        """K (= V) head dim of the layers of ``kind`` (``full_head_dim`` for full layers where the config sets one)."""
        return self.full_head_dim if kind == "full" and self.full_head_dim else self.head_dim

    def kv_heads(self, kind: str) -> int:
        """Total KV heads of the layers of ``kind`` (``full_kv_heads`` for full layers where the config sets it)."""
        return self.full_kv_heads if kind == "full" and self.full_kv_heads else self.num_kv_heads

    @property
    def per_kind_kv(self) -> bool:
        """Full and sliding layers cache different KV shapes (Gemma 4)."""
        return bool(self.full_head_dim and self.full_head_dim != self.head_dim) or \
            bool(self.full_kv_heads and self.full_kv_heads != self.num_kv_heads)

    @property
    def kv_kinds(self) -> tuple[str, ...]:
        """Per-layer kinds of the layers that own a KV cache (the last ``kv_shared_layers`` reuse another's)."""
        kinds = self.kinds
        return kinds[:len(kinds) - self.kv_shared_layers] if self.kv_shared_layers else kinds

    @property
    def num_full_layers(self) -> int:
        return sum(1 for k in self.kinds if k == "full")

    @property
    def num_sliding_layers(self) -> int:
        return sum(1 for k in self.kinds if k == "sliding")

    @property
    def num_linear_layers(self) -> int:
        return sum(1 for k in self.kinds if k == "linear")

    @property
    def is_mla(self) -> bool:
        return self.mla is not None

    def summary(self) -> dict:
        """Short JSON-able description for plan output."""
        return {
            "name": self.name, "source": self.source, "architecture": self.architecture,
            "model_type": self.model_type, "num_layers": self.num_layers,
            "hidden_size": self.hidden_size, "num_attention_heads": self.num_attention_heads,
            "num_kv_heads": self.num_kv_heads, "head_dim": self.head_dim,
            "attention": "mla" if self.mla else ("hybrid" if set(self.kinds) != {"full"} else "full"),
            "moe": bool(self.moe), "quantization": self.quant.method if self.quant else None,
            "max_position_embeddings": self.max_position_embeddings,
            "assumptions": list(self.assumptions),
            "provenance": self.extra.get("provenance"),
        }
