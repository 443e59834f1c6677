"""Bytes one layer keeps on one rank, as vLLM sizes them: per token for an attention layer (KV heads per rank,
K/V head sizes, MLA latents, packed KV formats, the DeepSeek-sparse-attention indexer keys) and per request for a
linear-attention / mamba layer's recurrent state (Kimi Delta Attention, Gated DeltaNet, LFM2 short convolution,
NemotronH Mamba-2; the SSM state dtype per release).  ``pages.build_layout`` turns them into pages.

    per token (full / sliding)  = kv_heads_per_rank × (head_size + head_size_v) × dtype_bytes
    per token (MLA)             = (kv_lora_rank + qk_rope_head_dim) × dtype_bytes (+ indexer keys)   (every rank)
    kv_heads_per_rank           = max(1, num_kv_heads // tp)
"""

from __future__ import annotations

from tpkit.engines.mamba2_state import MAMBA2_SPEC_TYPES, mamba2_state_bytes, ssm_state_bytes
from tpkit.engines.vllm.kvdtype import DS_MLA_TOKEN_BYTES, KvDtype, per_token_head_bytes
from tpkit.engines.vllm.kvgroups import cdiv
from tpkit.engines.vllm.versions import VllmRules
from tpkit.errors import PlanInputError
from tpkit.models import kv as model_kv
from tpkit.models.spec import ModelSpec

__all__ = ["kv_heads_per_rank", "dsa_indexer_token_bytes", "DSA_INDEXER_FIRST", "kda_state_bytes", "gdn_state_bytes",
           "short_conv_state_bytes", "nemotron_h_state_bytes", "mamba2_state_bytes", "ssm_state_bytes", "V0_MLA_ALIGN",
           "v0_mla_aligned_token_bytes",
           "head_shape", "linear_state_bytes", "per_token_bytes"]


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


def head_shape(model: ModelSpec, kind: str, tp: int) -> tuple[int, int, int] | None:
    """(KV heads per rank, K head size, V head size) of the target's layers of ``kind`` (None for MLA), the
    attention-spec fields a drafter's layer must share to join their group (``DraftKv.shape``)."""
    if kind == "mla":
        return None
    k_dim, v_dim = (model.kv_head_dim(kind),) * 2 if model.per_kind_kv else (model.head_dim, model.v_head_dim)
    return kv_heads_per_rank(model, tp, kind), k_dim, v_dim


def per_token_bytes(model: ModelSpec, kind: str, tp: int, dtype_bytes: int, kv_format: KvDtype | None = None,
                     indexer_bytes: int = 0, release: tuple[int, ...] | None = None) -> int:
    """Bytes one token costs in one layer of ``kind`` on one rank; ``kv_format`` (``engines.vllm.kvdtype``): the
    packed layouts (nvfp4: data + scales per head vector; fp8_ds_mla: a 656-byte MLA record); ``indexer_bytes``:
    the DSA indexer keys each MLA layer adds (``dsa_indexer_token_bytes``); per-token-head layouts add two fp32
    scales per KV head (``kvdtype.per_token_head_bytes``, which reads ``release``)."""
    if kind == "mla":
        if kv_format is not None and kv_format.layout == "ds_mla":
            return DS_MLA_TOKEN_BYTES + indexer_bytes
        return (model.mla.kv_lora_rank + model.mla.qk_rope_head_dim) * dtype_bytes + indexer_bytes
    heads = kv_heads_per_rank(model, tp, kind)
    k_dim, v_dim = (model.kv_head_dim(kind),) * 2 if model.per_kind_kv else (model.head_dim, model.v_head_dim)
    if kv_format is not None and kv_format.layout == "nvfp4":
        return heads * (kv_format.head_bytes(k_dim, dtype_bytes) + kv_format.head_bytes(v_dim, dtype_bytes))
    if kv_format is not None and kv_format.layout == "per_token_head":
        return heads * per_token_head_bytes(kv_format, k_dim, v_dim, kind=kind, release=release)
    return heads * (k_dim + v_dim) * dtype_bytes


V0_MLA_ALIGN = ((0, 7, 2), (0, 8, 0))
"""vLLM releases whose V0 ``CacheEngine`` pads an MLA cache entry to 256 bytes (first, first without)"""


def v0_mla_aligned_token_bytes(model: ModelSpec, dtype_bytes: int, act_bytes: int) -> int:
    """Bytes one token costs in one MLA layer under vLLM 0.7.2–0.7.3's V0 ``CacheEngine`` on CUDA: with
    ``VLLM_CUDA_MEM_ALIGN_KV_CACHE`` (default "1", ``envs.py``) ``_align_cache`` is on for MLA models, and
    ``get_cache_block_size`` rounds the latent entry (kv_lora_rank + qk_rope_head_dim elements) up with
    ``align_to_256bytes(entry, model_config.dtype)`` (``utils.py``: a multiple of 256 // dtype-size elements of the
    *model* dtype) before multiplying by the cache dtype's size; ``_allocate_kv_cache`` allocates that padded
    stride.  576 → 640 elements for a 16-bit model (DeepSeek-V2/V3).  Absent in 0.7.0, 0.7.1 and from 0.8.0
    (``worker/cache_engine.py`` of those wheels)."""
    entry = model.mla.kv_lora_rank + model.mla.qk_rope_head_dim
    per = 256 // act_bytes
    return -(-entry // per) * per * dtype_bytes


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


def linear_state_bytes(model: ModelSpec, tp: int, dtype_bytes: int, spec_tokens: int = 0,
                        rules: VllmRules | None = None) -> int:
    """Bytes per request of a linear-attention (mamba / GDN / KDA / short-conv) layer's state at ``tp``, by model family."""
    spec = model.linear_attn
    lac = model.extra.get("linear_attn_config")
    if model.model_type == "lfm2":
        return short_conv_state_bytes(model, tp, dtype_bytes)
    if model.extra.get("linear_num_value_heads") is not None:
        return gdn_state_bytes(model.extra, tp, dtype_bytes, spec_tokens,
                               temporal_bytes=ssm_state_bytes(model, rules, dtype_bytes))
    if model.model_type == "nemotron_h":
        return nemotron_h_state_bytes(model, tp, dtype_bytes, ssm_state_bytes(model, rules, dtype_bytes))
    if model.model_type in MAMBA2_SPEC_TYPES and spec is not None and spec.temporal_bytes_per_layer is not None:
        return mamba2_state_bytes(model, tp, dtype_bytes, ssm_state_bytes(model, rules, dtype_bytes))
    if (spec is None or spec.state_bytes_per_layer is None) and isinstance(lac, dict) and "num_heads" in lac:
        return kda_state_bytes(lac, tp, dtype_bytes)
    if spec is None or spec.state_bytes_per_layer is None:
        raise PlanInputError(
            f"{model.name} has linear-attention layers but their recurrent state size is not known "
            "(ModelSpec.linear_attn.state_bytes_per_layer is empty); vLLM pads that state to the attention "
            "page, so the KV layout cannot be planned without it")
    return cdiv(spec.state_bytes_per_layer.bytes, tp)
