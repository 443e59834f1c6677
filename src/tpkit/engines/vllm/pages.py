"""Per-layer KV page sizes, block sizes and KV-cache groups as vLLM lays them out (vLLM 0.33
``vllm/v1/kv_cache_interface.py`` ``AttentionSpec.page_size_bytes``, ``vllm/v1/core/kv_cache_planning.py``
``get_kv_cache_groups``; 0.11 as noted).

    page (full / sliding)  = block_size × kv_heads_per_rank × (head_size + head_size_v) × dtype_bytes
    page (MLA)             = block_size × (kv_lora_rank + qk_rope_head_dim) × dtype_bytes   (every rank)
    page (linear / mamba)  = recurrent state per request per layer, padded up to the attention page
    kv_heads_per_rank      = max(1, num_kv_heads // tp)

One kind of layer → one group whose block costs Σ pages.  Several kinds (hybrid) → layers are bucketed by
kind, split into groups of ``group_size`` layers, and every group shares one pool of
``group_size × page`` bytes per block (``get_kv_cache_groups``).

Kinds of layer: ``full``, ``mla``, ``sliding``, ``chunked`` (Llama-4 chunked-local attention with the hybrid
manager on, ≥ 0.14), ``linear`` (mamba-like state), and the KV layers a speculative drafter registers
(``DraftKv``): the same spec as the target's ⇒ the same group, else a group of their own (page unified as the
release does, ``VllmRules.page_unify``; a release that cannot pool the pages refuses, ``_check_pages``).
The block size rules are in ``blocksize.py`` (from 0.25 a sliding-window layer starts from the kernel block,
``SLIDING_KERNEL_BLOCK``, not ``--block-size``), the mamba pages per request in ``mamba.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tpkit.engines.vllm.blocksize import DEFAULT_BLOCK_SIZE
from tpkit.engines.vllm.kvdtype import DS_MLA_TOKEN_BYTES, KvDtype
from tpkit.engines.vllm.mamba import MambaMode
from tpkit.engines.vllm.versions import RULES, VllmRules
from tpkit.errors import PlanInputError
from tpkit.models import kv as model_kv
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["KvGroup", "KvLayout", "DraftKv", "build_layout", "kv_heads_per_rank", "cdiv", "stage_layer_kinds",
           "chunked_local_model", "DEFAULT_BLOCK_SIZE", "dsa_indexer_token_bytes", "DSA_INDEXER_FIRST"]
HYBRID_ALIGN = 16
SLIDING_KERNEL_BLOCK = 16
"""the block a sliding-window layer starts from on vLLM ≥ 0.25 (``VllmRules.sliding_kernel_block``): the smallest
kernel block of the CUDA attention backends (``get_supported_kernel_block_sizes``: TRITON_ATTN and FLASH_ATTN
``MultipleOf(16)``, FlashInfer ``[16, 32, 64]``; vLLM 0.29.0 ``v1/attention/backends``)"""
"""kernel block alignment used to grow the attention block of attention+linear hybrids (non-MLA)"""
HYBRID_ALIGN_MLA = {"0.33": 128, "0.11": 64}
"""MLA hybrids: ≥ 128 in the current rules (vLLM 0.33 ``_align_hybrid_block_size``); 64 (FlashMLA/Triton-MLA) in 0.11
(vLLM 0.11.1 ``HybridAttentionMambaModelConfig``; 128 only with CUTLASS-MLA)"""


def cdiv(a: int, b: int) -> int:
    """Ceiling division of whole numbers."""
    return -(-a // b)


@dataclass(frozen=True, kw_only=True, slots=True)
class KvGroup:
    """One KV-cache group: ``num_layers`` real layers of one kind sharing a block table."""

    kind: str
    """``full`` | ``mla`` | ``sliding`` | ``chunked`` | ``linear``"""
    num_layers: int
    """real (not padding) layers in this group"""
    page_bytes: Bytes
    """bytes of one block of one layer (after unification/padding)"""
    block_size: int
    """tokens per block of this group"""
    window: int | None = None
    """sliding window / attention chunk (tokens) for ``sliding`` / ``chunked`` groups"""
    state_blocks: int | None = 1
    """``linear`` groups: state pages one request holds ("none"/"align" mode); None: "all" mode"""
    spec_blocks: int = 0
    """``linear`` groups in "all" mode: speculative blocks added"""
    draft: bool = False
    """the layers belong to a speculative drafter"""

    def blocks_per_request(self, max_model_len: int, in_flight_tokens: int, dcp: int = 1) -> int:
        """Blocks one request of ``max_model_len`` tokens holds in this group (``max_memory_usage_bytes`` of
        ``v1/kv_cache_interface.py``; ``dcp``: each decode-context-parallel rank keeps every dcp-th token)."""
        if self.kind == "linear":
            if self.state_blocks is None:
                return cdiv(max_model_len, self.block_size) + self.spec_blocks
            return self.state_blocks
        if self.kind == "sliding" and self.window:
            need = min(self.window - 1 + in_flight_tokens, max_model_len)
            return cdiv(need, self.block_size) + 1
        if self.kind == "chunked" and self.window:
            return cdiv(min(self.window + in_flight_tokens, max_model_len), self.block_size)
        return cdiv(cdiv(max_model_len, dcp), self.block_size)


@dataclass(frozen=True, kw_only=True, slots=True)
class KvLayout:
    """Every KV group of the limiting rank and the bytes one block costs across them."""

    groups: tuple[KvGroup, ...]
    group_size: int
    """layers (tensor slots) per group; uniform models: all layers"""
    padding_layers: int
    """slots added so that every group has ``group_size`` layers"""
    bytes_per_block: Bytes
    """bytes of one block summed over the slots (what one ``num_blocks`` costs)"""
    block_size: int
    """the smallest block size over the groups (the one vLLM reports)"""
    dtype_bytes: int
    """KV element size (bytes)"""
    element_dtype: str
    """KV dtype name (torch spelling)"""
    warnings: tuple[str, ...] = ()
    draft_layers: int = 0
    """KV layers of a speculative drafter on this rank (inside ``groups`` or, for a uniform-type group, only
    counted in ``bytes_per_block``)"""
    draft_page_bytes: Bytes = Bytes(0)
    """bytes of one block of one drafter layer"""
    draft_in_groups: bool = True
    """the drafter's layers are counted in ``groups``; False: they share the single uniform-type group's block
    table with their own page size (only in ``bytes_per_block``)"""
    draft_kind: str | None = None
    """the drafter layers' kind (``full`` / ``mla``)"""
    draft_merged: bool = False
    """the drafter's layers have the target's spec and sit in the target's groups of that kind"""

    @property
    def draft_bytes_per_block(self) -> Bytes:
        """Bytes of one block of the drafter's layers (static only in a uniform-type group)."""
        return self.draft_page_bytes * self.draft_layers

    def draft_share(self, per_request: dict[int, int]) -> float:
        """The drafter's fraction of the pool: static in a uniform-type group; else its groups' share of the
        blocks one request holds (``per_request``: group index → blocks), split by layers inside a group of
        the target's spec."""
        if not self.draft_layers:
            return 0.0
        if not self.draft_in_groups:
            return self.draft_bytes_per_block / self.bytes_per_block
        total = sum(per_request.values())
        kind_layers = sum(g.num_layers for g in self.groups if g.kind == self.draft_kind and not g.draft)
        share = 0.0
        for i, g in enumerate(self.groups):
            if g.draft:
                share += per_request[i] / total
            elif self.draft_merged and g.kind == self.draft_kind:
                share += per_request[i] / total * self.draft_layers / kind_layers
        return share

    def group_block_bytes(self, group: KvGroup) -> Bytes:
        """Bytes one block of ``group`` costs across its layers (a uniform-type group adds the drafter's)."""
        own = group.page_bytes * group.num_layers
        return own if self.draft_in_groups else own + self.draft_bytes_per_block

    @property
    def is_hybrid(self) -> bool:
        return len({g.kind for g in self.groups}) > 1


@dataclass(frozen=True, kw_only=True, slots=True)
class DraftKv:
    """The KV layers a speculative drafter registers on one rank (vLLM gives them pages like the target's)."""

    kind: str
    """``full``, ``mla`` or ``sliding``"""
    num_layers: int
    """drafter attention layers"""
    per_token_bytes: int
    """bytes one token costs in one drafter layer on one rank"""
    label: str
    """what the drafter is (for the ledger)"""
    window: int | None = None
    """sliding window of the drafter's layers (kind ``sliding``: a DFlash draft with ``use_swa`` / sliding
    ``layer_types``, vLLM 0.25+)"""
    shape: tuple[int, int, int] | None = None
    """(KV heads per rank, K head size, V head size) of the drafter's layers (kinds ``full`` / ``sliding``; None:
    not known, the bytes per token decide).  vLLM groups layers by spec equality (``same_type_layers[layer_spec]``,
    and ``FullAttentionSpec.merge`` asserts every ``AttentionSpec`` field equal: ``num_kv_heads``, ``head_size``,
    ``head_size_v``, dtype …; ``v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size`` 0.11–0.27,
    ``v1/core/kv_cache_planning.py`` 0.33; 0.10.2 ``_get_kv_cache_config_uniform_page_size``), so a drafter of
    equal bytes per token but another head shape (a DFlash draft of 8 KV heads × 128 next to Qwen3.5's 4 × 256)
    is a group of its own, not a member of the target's"""


def kv_heads_per_rank(model: ModelSpec, tp: int, kind: str = "sliding") -> int:
    """KV heads each TP rank stores in a layer of ``kind``: ``max(1, heads // tp)``; MLA stores one latent head
    (vLLM ``vllm/config/model.py`` ``ModelConfig.get_num_kv_heads``; Gemma 4's full layers: their own count,
    ``Gemma4Attention`` ``max(1, total_num_kv_heads // tp_size)``, 0.19.0 – 0.29.0).

    The count is the models layer's rule; the divisibility checks are vLLM's (it asserts them)."""
    q_heads = model.num_attention_heads
    if q_heads % tp:
        divisors = ", ".join(str(d) for d in range(1, q_heads + 1) if q_heads % d == 0 and d <= 64)
        raise PlanInputError(f"--tp {tp} does not divide the {q_heads} attention heads of {model.name}; vLLM "
                             f"requires num_attention_heads % tensor_parallel_size == 0: use --tp {divisors}")
    if model.mla is not None:
        return 1
    heads = model.kv_heads(kind)
    if heads >= tp and heads % tp:
        raise PlanInputError(f"--tp {tp} does not divide the model's {heads} KV heads; "
                             f"use a TP size that divides {heads} (or a multiple of it)")
    if heads < tp and tp % heads:
        raise PlanInputError(f"--tp {tp} is above the model's {heads} KV heads but not a multiple of it; "
                             f"vLLM replicates KV heads only when tp % {heads} == 0")
    return model_kv.kv_heads_per_rank(model, tp, kind)


DSA_INDEXER_FIRST = (0, 11, 0)
"""first vLLM release with DeepSeek-V3.2's indexer cache (``DeepseekV32IndexerCache``) and the one-group
``UniformTypeKVCacheSpecs`` (absent from 0.10.2)"""


def dsa_indexer_token_bytes(model: ModelSpec, release: tuple[int, int, int]) -> int:
    """Bytes of DeepSeek sparse attention indexer keys per token and MLA layer (0 without DSA or before 0.11.0).

    vLLM 0.11.0 – 0.29.0 ``model_executor/models/deepseek_v2.py``: a layer is V3.2-style when the config has
    ``index_topk`` (``is_v32``); its ``Indexer`` registers a ``DeepseekV32IndexerCache`` whose
    ``get_kv_cache_spec`` is an ``MLAAttentionSpec`` of one head of ``index_head_dim + index_head_dim // 128 × 4``
    uint8 (fp8 keys + one fp32 scale per 128; ``quant_block_size = 128``), at the cache's block size.  With every
    layer full attention the specs form one ``UniformTypeKVCacheSpecs`` group (``v1/kv_cache_interface.py``) whose
    ``page_size_bytes`` is the sum of the layers' pages, so a token costs the latent record plus these bytes in each
    layer.  index_head_dim 128 → 132 B."""
    if model.mla is None or model.dsa is None or release < DSA_INDEXER_FIRST:
        return 0
    d = model.dsa.index_head_dim
    return d + d // 128 * 4


def _head_shape(model: ModelSpec, kind: str, tp: int) -> tuple[int, int, int] | None:
    """(KV heads per rank, K head size, V head size) of the target's layers of ``kind`` (None for MLA), the
    attention-spec fields a drafter's layer must share to join their group (``DraftKv.shape``)."""
    if kind == "mla":
        return None
    k_dim, v_dim = (model.kv_head_dim(kind),) * 2 if model.per_kind_kv else (model.head_dim, model.v_head_dim)
    return kv_heads_per_rank(model, tp, kind), k_dim, v_dim


def _per_token_bytes(model: ModelSpec, kind: str, tp: int, dtype_bytes: int, kv_format: KvDtype | None = None,
                     indexer_bytes: int = 0) -> int:
    """Bytes one token costs in one layer of ``kind`` on one rank; ``kv_format`` (``engines.vllm.kvdtype``): the
    packed layouts (nvfp4: data + scales per head vector; fp8_ds_mla: a 656-byte MLA record); ``indexer_bytes``:
    the DSA indexer keys each MLA layer adds (``dsa_indexer_token_bytes``)."""
    if kind == "mla":
        if kv_format is not None and kv_format.layout == "ds_mla":
            return DS_MLA_TOKEN_BYTES + indexer_bytes
        return (model.mla.kv_lora_rank + model.mla.qk_rope_head_dim) * dtype_bytes + indexer_bytes
    heads = kv_heads_per_rank(model, tp, kind)
    k_dim, v_dim = (model.kv_head_dim(kind),) * 2 if model.per_kind_kv else (model.head_dim, model.v_head_dim)
    if kv_format is not None and kv_format.layout == "nvfp4":
        return heads * (kv_format.head_bytes(k_dim, dtype_bytes) + kv_format.head_bytes(v_dim, dtype_bytes))
    return heads * (k_dim + v_dim) * dtype_bytes


def kda_state_bytes(lac: dict, tp: int, dtype_bytes: int) -> int:
    """vLLM's Kimi-Delta-Attention state per request per layer on one rank: three short-conv states
    ``(kernel − 1) × heads·head_dim/tp`` in the model dtype (q, k, v) and a recurrent state
    ``heads/tp × head_dim × head_dim`` in fp32 (vLLM 0.11.1 ``kda_state_shape`` / ``kda_state_dtype``)."""
    heads, head_dim, kernel = int(lac["num_heads"]), int(lac["head_dim"]), int(lac.get("short_conv_kernel_size", 4))
    conv = 3 * (kernel - 1) * (heads * head_dim // tp) * dtype_bytes
    return conv + (heads // tp) * head_dim * head_dim * 4


def gdn_state_bytes(extra: dict, tp: int, dtype_bytes: int, spec_tokens: int = 0,
                    temporal_bytes: int | None = None) -> int:
    """vLLM's Gated-DeltaNet state per request per layer on one rank (Qwen3-Next / Qwen3.5): a conv state of
    ``(kernel − 1 + spec) × conv_dim/tp`` in the model dtype and a temporal state ``nv/tp × dv × dk`` in
    ``temporal_bytes`` (default: the conv dtype — ``mamba_ssm_cache_dtype`` "auto" keeps it there,
    ``model_executor/layers/mamba/mamba_utils.py gated_delta_net_state_shape / _mamba_state_dtype``, 0.11–0.33;
    see ``ssm_state_bytes`` for the Qwen3.5 configs that set it; SGLang keeps it in fp32)."""
    nk, nv = int(extra["linear_num_key_heads"]), int(extra["linear_num_value_heads"])
    dk, dv = int(extra["linear_key_head_dim"]), int(extra["linear_value_head_dim"])
    kernel = int(extra.get("linear_conv_kernel_dim") or 4)
    conv_dim = dk * nk * 2 + dv * nv
    temporal = dtype_bytes if temporal_bytes is None else temporal_bytes
    return (kernel - 1 + spec_tokens) * (conv_dim // tp) * dtype_bytes + (nv // tp) * dv * dk * temporal


def short_conv_state_bytes(model: ModelSpec, tp: int, dtype_bytes: int) -> int:
    """vLLM's LFM2 short-convolution state per request per layer on one rank: ``(conv_L_cache − 1) × conv_dim/tp``
    in the model dtype (``--mamba-cache-dtype auto``), no SSM state and no speculative columns (vLLM 0.14.1 and
    0.29.0 ``models/lfm2.py get_mamba_state_shape_from_config`` → ``mamba_utils.py short_conv_state_shape`` with
    ``hf_config.conv_dim``, ``short_conv_state_dtype``)."""
    from tpkit.models.linear_attn import short_conv_dims

    kernel, width = short_conv_dims({**{k: model.extra[k] for k in ("conv_L_cache", "conv_dim") if k in model.extra},
                                     "hidden_size": model.hidden_size}, model.source)
    return (kernel - 1) * (width // tp) * dtype_bytes


def nemotron_h_state_bytes(model: ModelSpec, tp: int, dtype_bytes: int, temporal_bytes: int) -> int:
    """vLLM's NemotronH Mamba-2 state per request per layer on one rank: conv ``(conv_kernel − 1) × conv_dim/tp``
    in the model dtype and temporal ``heads/tp × head_dim × ssm_state_size`` in ``temporal_bytes``, with
    ``conv_dim = heads·head_dim + 2·groups·ssm_state_size`` and the groups raised to a multiple of tp when tp does
    not divide them (vLLM 0.13.0 – 0.33.0 ``models/nemotron_h.py get_mamba_state_shape_from_config`` →
    ``layers/mamba/mamba_utils.py mamba2_state_shape`` / ``extra_groups_for_head_shards``)."""
    from tpkit.models.linear_attn import nemotron_h_mamba_dims

    d = nemotron_h_mamba_dims({**model.extra, "model_type": model.model_type}, model.source)
    groups = d["n_groups"] if d["n_groups"] % tp == 0 else tp  # extra_groups_for_head_shards: ngroups → tp
    conv_dim = d["inner"] + 2 * groups * d["d_state"]
    return (d["d_conv"] - 1) * (conv_dim // tp) * dtype_bytes + (d["n_heads"] // tp) * d["d_head"] * d["d_state"] \
        * temporal_bytes


_DTYPE_BYTES = {"float32": 4, "float": 4, "bfloat16": 2, "float16": 2, "half": 2}


def ssm_state_bytes(model: ModelSpec, rules: VllmRules | None, dtype_bytes: int) -> int:
    """Bytes per element of the mamba temporal (SSM) state: the config's ``mamba_ssm_dtype`` where the release
    reads it for the architecture (``VllmRules.ssm_dtype_from_config``: Qwen3.5 wrappers ≥ 0.17.0, text-only
    Qwen3.5 ≥ 0.27.0, ``model_executor/models/config.py Qwen3_5ForConditionalGenerationConfig``); for NemotronH
    the config's ``mamba_ssm_cache_dtype`` else the release's default (``VllmRules.nemotron_h_ssm_default``:
    float16 0.13–0.19, float32 from 0.20, ``NemotronHForCausalLMConfig``); else the conv dtype
    (``--mamba-ssm-cache-dtype auto``)."""
    if rules is not None and rules.nemotron_h_ssm_default and model.model_type == "nemotron_h":
        named = str(model.extra.get("mamba_ssm_cache_dtype") or rules.nemotron_h_ssm_default).lower()
        return _DTYPE_BYTES.get(named, dtype_bytes)
    named = str(model.extra.get("mamba_ssm_dtype") or "").lower()
    if rules is not None and model.architecture in rules.ssm_dtype_from_config and named in _DTYPE_BYTES:
        return _DTYPE_BYTES[named]
    return dtype_bytes


def _linear_state_bytes(model: ModelSpec, tp: int, dtype_bytes: int, spec_tokens: int = 0,
                        rules: VllmRules | None = None) -> int:
    spec = model.linear_attn
    lac = model.extra.get("linear_attn_config")
    if model.model_type == "lfm2":
        return short_conv_state_bytes(model, tp, dtype_bytes)
    if model.extra.get("linear_num_value_heads") is not None:
        return gdn_state_bytes(model.extra, tp, dtype_bytes, spec_tokens,
                               temporal_bytes=ssm_state_bytes(model, rules, dtype_bytes))
    if model.model_type == "nemotron_h":
        return nemotron_h_state_bytes(model, tp, dtype_bytes, ssm_state_bytes(model, rules, dtype_bytes))
    if (spec is None or spec.state_bytes_per_layer is None) and isinstance(lac, dict) and "num_heads" in lac:
        return kda_state_bytes(lac, tp, dtype_bytes)
    if spec is None or spec.state_bytes_per_layer is None:
        raise PlanInputError(
            f"{model.name} has linear-attention layers but their recurrent state size is not known "
            "(ModelSpec.linear_attn.state_bytes_per_layer is empty); vLLM pads that state to the attention "
            "page, so the KV layout cannot be planned without it")
    return cdiv(spec.state_bytes_per_layer.bytes, tp)


def chunked_local_model(model: ModelSpec) -> bool:
    """The model's "sliding" layers are chunked-local attention (Llama-4: ``attention_chunk_size``)."""
    return (model.model_type or "").startswith("llama4")


def stage_layer_kinds(model: ModelSpec, pp: int, *, chunked_hybrid: bool = False) -> tuple[str, ...]:
    """Layer kinds on the pipeline stage with the most layers (vLLM gives the remainder to the stages
    before the last one).

    Chunked-local layers (Llama-4) become ``chunked`` when the release keeps the hybrid manager on for them
    (``chunked_hybrid``), else ``full``: ``config/vllm.py`` (0.10.2 ``config/__init__.py``) disables the hybrid
    KV cache manager for ``attention_chunk_size`` models unless ``VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE``
    is set (default "0" in 0.10.1–0.13, "1" from 0.14, ``envs.py``) and always with EAGLE, and then
    ``unify_hybrid_kv_cache_specs`` turns every layer into full attention.

    KV-shared layers (Gemma 4 ``num_kv_shared_layers``: ``Attention(kv_sharing_target_layer_name=…)``, vLLM
    0.19.0 – 0.29.0 ``models/gemma4.py``) get no KV cache spec of their own (``gpu_model_runner.py``
    ``get_kv_cache_spec`` skips a layer with a sharing target and points it at the target's cache): they are left
    out."""
    n = model.num_layers
    sizes = [n // pp] * pp
    for i in range(2, n % pp + 2):
        sizes[-i] += 1
    stage = max(range(pp), key=lambda s: sizes[s])
    start = sum(sizes[:stage])
    owners = n - model.kv_shared_layers  # Gemma 4: the last kv_shared_layers reuse an earlier layer's KV
    kinds = model.kinds[start:min(start + sizes[stage], owners)]
    kinds = tuple(k for k in kinds if k != "none")  # NemotronH MLP / MoE layers: no attention, no KV cache spec
    if model.mla is not None:
        kinds = tuple("mla" if k == "full" else k for k in kinds)
    if chunked_local_model(model):
        kinds = tuple(("chunked" if chunked_hybrid else "full") if k == "sliding" else k for k in kinds)
    return kinds


def _counts(kinds: tuple[str, ...], era: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for k in kinds:
        if era == "v0" and k in ("sliding", "chunked"):
            k = "full"  # V0 gives every layer the same cache
        if era == "v0" and k == "linear":
            raise PlanInputError("linear-attention (mamba-like) layers are not modelled for V0-era vLLM; "
                                 "use --engine-version 0.11 or current")
        counts[k] = counts.get(k, 0) + 1
    return counts


def _group_size(counts: dict[str, int]) -> int:
    if len(counts) == 1:
        return next(iter(counts.values()))
    lo, hi = min(counts.values()), max(counts.values())
    return hi if hi < 1.5 * lo else lo


def build_layout(model: ModelSpec, parallel: ParallelSpec, *, block_size: int, era: str,
                 dtype_bytes: int, dtype_name: str, act_bytes: int = 2, rules: VllmRules | None = None,
                 draft: DraftKv | None = None, mamba: MambaMode | None = None, spec_tokens: int = 0,
                 kv_format: KvDtype | None = None) -> KvLayout:
    """Group the limiting rank's layers and size one block (``get_kv_cache_groups``, vLLM 0.33
    ``kv_cache_planning.py`` ``_get_kv_cache_bytes_per_block``).

    ``rules`` (default: the era's named rules) decide chunked-local layers; ``draft``: a drafter's KV layers;
    ``mamba``: the pages per request of linear groups (default: 1, prefix caching off); ``spec_tokens``:
    speculative tokens per step (they lengthen the Gated-DeltaNet conv state); ``kv_format``: the
    ``--kv-cache-dtype`` layout (``engines.vllm.kvdtype``; None: dense ``dtype_bytes`` elements)."""
    rules = rules or RULES.get(era, RULES["0.33"])
    kinds = stage_layer_kinds(model, parallel.pp, chunked_hybrid=rules.chunked_local_hybrid and era != "v0")
    counts = _counts(kinds, era)
    indexer = dsa_indexer_token_bytes(model, rules.release)
    tok = {k: _per_token_bytes(model, k, parallel.tp, dtype_bytes, kv_format, indexer) for k in counts if k != "linear"}
    uniform_draft = draft is not None and len(counts) == 1 and next(iter(counts)) in ("full", "mla") \
        and draft.kind != "sliding" and rules.release >= (0, 11, 0)
    key = None
    if draft is not None and not uniform_draft:
        same = tok.get(draft.kind) == draft.per_token_bytes and (draft.kind != "sliding"
                                                                  or draft.window == model.sliding_window) \
            and (draft.shape is None or draft.kind not in counts or draft.shape == _head_shape(model, draft.kind,
                                                                                               parallel.tp))
        key = draft.kind if same else "draft"
        counts[key] = counts.get(key, 0) + draft.num_layers
        tok.setdefault(key, draft.per_token_bytes)
    # ≥ 0.25 a sliding-window layer (the drafter's too) starts from the kernel block, the others from --block-size
    own = {k for k in tok if rules.sliding_kernel_block and (
        k == "sliding" or (k == "draft" and draft is not None and draft.kind == "sliding"))}
    blocks = {k: SLIDING_KERNEL_BLOCK if k in own else block_size for k in tok}
    pages = {k: tok[k] * blocks[k] for k in tok}
    if "linear" in counts:
        state = _linear_state_bytes(model, parallel.tp, act_bytes, spec_tokens, rules)
        align = HYBRID_ALIGN_MLA.get(era, HYBRID_ALIGN) if model.mla is not None else HYBRID_ALIGN
        attn_tok = max(v for k, v in tok.items() if k != "draft")  # the target's attention (model_config)
        grown = align * cdiv(state, align * attn_tok)
        if grown > block_size:
            blocks = {k: blocks[k] if k in own else grown for k in tok}
            pages = {k: tok[k] * blocks[k] for k in tok}
        pages["linear"] = max(v for k, v in pages.items() if k != "draft")  # padded to the target's page
        blocks["linear"] = max(blocks.values())
    _check_pages(pages, rules, draft if key == "draft" else None)
    pages, blocks = _unify_pages(pages, blocks, grow_mla=rules.page_unify == "grow")
    layout = _assemble(model, counts, pages, blocks, dtype_bytes, dtype_name, mamba,
                       draft.kind if draft is not None else None, draft.window if draft is not None else None)
    if draft is None:
        return layout
    if uniform_draft:  # one uniform-type group (0.11+): the drafter's pages join every block
        page = Bytes(draft.per_token_bytes * layout.block_size)
        return replace(layout, bytes_per_block=layout.bytes_per_block + page * draft.num_layers,
                       draft_layers=draft.num_layers, draft_page_bytes=page, draft_in_groups=False,
                       draft_kind=draft.kind)
    return replace(layout, draft_layers=draft.num_layers, draft_page_bytes=Bytes(pages[key]), draft_kind=draft.kind,
                   draft_merged=key != "draft")


def _check_pages(pages: dict[str, int], rules: VllmRules, draft: DraftKv | None) -> None:
    """Refuse, as the release does, layers whose KV pages cannot share one pool (``VllmRules.page_unify``):
    before 0.12 any page that differs (``get_kv_cache_config`` 0.10.2 / ``get_kv_cache_groups`` 0.11.0–0.11.2,
    ``v1/core/kv_cache_utils.py``: a bare NotImplementedError once the layers are neither one spec, one
    attention type (0.11+) nor one page size); 0.12–0.21 a page that does not divide the largest, or a mamba
    page below it (``unify_kv_cache_spec_page_size``: only the block size is grown)."""
    if rules.engine != "V1" or rules.page_unify == "pad" or len(set(pages.values())) <= 1:
        return
    top = max(pages.values())
    sizes = ", ".join(f"{'drafter' if k == 'draft' else k} {v:,} B" for k, v in pages.items())
    who = (f"the drafter's KV layers ({draft.label}, {draft.per_token_bytes:,} B per token) next to the target's"
           if draft is not None else "layers")
    targets = {k for k in pages if k != "draft"}
    grows = all(top % v == 0 for k, v in pages.items() if k != "linear") and pages.get("linear", top) == top
    first = "0.11" if targets <= {"full"} or targets <= {"mla"} else "0.12" if grows else "0.22"
    fix = f"plan --engine-version {first} or later" + (", or a drafter whose KV spec is the target's"
                                                        if draft is not None else "")
    if first == "0.22":
        fix += " (padding arrived between 0.22.0 and 0.27.1; 0.21.0 refuses, 0.27.1 pads)"
    if rules.page_unify == "none":
        raise PlanInputError(
            f"vLLM {rules.label} cannot put {who} in one KV cache: their pages differ per block ({sizes}) and that "
            "release neither grows nor pads a page (v1/core/kv_cache_utils.py get_kv_cache_config / "
            f"get_kv_cache_groups raise NotImplementedError at start-up); {fix}")
    for k, page in pages.items():
        if page == top:
            continue
        if k == "linear":
            raise PlanInputError(
                f"vLLM {rules.label} cannot put {who} in one KV cache: the mamba state page ({page:,} B) is below "
                f"the largest page ({top:,} B) and only attention pages grow their block size "
                f"(v1/core/kv_cache_utils.py unify_kv_cache_spec_page_size fails at start-up); {fix}")
        if top % page:
            raise PlanInputError(
                f"vLLM {rules.label} cannot put {who} in one KV cache: a page of {page:,} B does not divide the "
                f"largest, {top:,} B ({sizes}); vLLM raises NotImplementedError 'The page size of the layer is not "
                "divisible by the maximum page size. Cannot unify by adjusting block_size.' "
                f"(v1/core/kv_cache_utils.py unify_kv_cache_spec_page_size); {fix}")


def _unify_pages(pages: dict[str, int], blocks: dict[str, int], *,
                 grow_mla: bool = False) -> tuple[dict[str, int], dict[str, int]]:
    """Smaller attention pages grow their block size when the largest page is a multiple, else pad
    (``grow_mla``: MLA pages grow too, as 0.12–0.21 ``unify_kv_cache_spec_page_size`` does)."""
    top = max(pages.values())
    out_p, out_b = dict(pages), dict(blocks)
    for k, page in pages.items():
        if page == top or k == "linear":
            out_p[k] = top
            continue
        if top % page == 0 and (k != "mla" or grow_mla):
            out_b[k] = blocks[k] * (top // page)
        out_p[k] = top
    return out_p, out_b


def _group(model: ModelSpec, key: str, n: int, page: int, block: int, mamba: MambaMode | None,
           draft_kind: str | None, draft_window: int | None = None) -> KvGroup:
    kind = draft_kind if key == "draft" else key
    window = (draft_window if key == "draft" else model.sliding_window) if kind in ("sliding", "chunked") else None
    state, spec = (1, 0) if mamba is None else (mamba.fixed_blocks, mamba.spec_blocks)
    return KvGroup(kind=kind, num_layers=n, page_bytes=Bytes(page), block_size=block, window=window,
                   state_blocks=state, spec_blocks=spec, draft=key == "draft")


def _assemble(model: ModelSpec, counts: dict[str, int], pages: dict[str, int], blocks: dict[str, int],
              dtype_bytes: int, dtype_name: str, mamba: MambaMode | None, draft_kind: str | None,
              draft_window: int | None = None) -> KvLayout:
    gsize = _group_size(counts)
    groups, padding, warnings = [], 0, []
    for key, n in counts.items():
        num_groups = cdiv(n, gsize) if len(counts) > 1 else 1
        pad = num_groups * gsize - n if len(counts) > 1 else 0
        if pad:
            warnings.append(f"Add {pad} padding layers, may waste at most {pad / n * 100:.2f}% KV cache memory")
        padding += pad
        base, extra = divmod(n, num_groups)
        for i in range(num_groups):
            groups.append(_group(model, key, base + (1 if i < extra else 0), pages[key], blocks[key], mamba,
                                 draft_kind, draft_window))
    if len(counts) == 1:
        per_block = Bytes(sum(pages[k] * n for k, n in counts.items()))
    else:
        per_block = Bytes(gsize * max(pages.values()))
    return KvLayout(groups=tuple(groups), group_size=gsize, padding_layers=padding, bytes_per_block=per_block,
                    block_size=min(blocks.values()), dtype_bytes=dtype_bytes, element_dtype=dtype_name,
                    warnings=tuple(warnings))
