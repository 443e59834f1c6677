"""SGLang's KV pool sizing: cell size, token count, buffers, request slots (sglang 0.5.23
``python/sglang/srt/model_executor/pool_configurator.py`` ``DefaultPoolConfigurator._compute_cell_size`` /
``calculate_pool_sizes``, ``mem_cache/kv_cache_configurator.py`` ``KVCacheConfigurator.resolve_max_num_reqs``;
≤ 0.5.10 ``model_runner.py`` ``get_cell_size_per_token`` / ``profile_max_num_token``).

    cell (MHA/GQA)   n_kv × (head_dim + v_head_dim) × layers × kv_bytes      n_kv = max(1, kv_heads // tp)
    cell (MLA)       (kv_lora_rank + qk_rope_head_dim) × layers × kv_bytes   (not divided by TP)
    cell (MLA + DSA) + (index_head_dim + index_head_dim // 128 × 4) × layers     fp8 indexer keys + fp32 scales
                     (DeepSeek-V3.2, GLM-5: ``nsa_cell_bytes_per_layer``; 0.5.4 – 0.5.23)
    cell (SWA)       F × full_layers + r × S × swa_layers                    r = 0.8, allow-listed archs only
                     (``swa.hybrid_swa``); other sliding models: one pool, cell over every layer
    cell (Gemma 4)   the same with F from global_head_dim × full KV heads and S from head_dim × KV heads, shared-KV
                     layers included (``gemma4_pools`` / ``_gemma4_cell``; SGLang ≥ 0.5.11)
    cell (DSV4)      bytes per full token of DeepSeek-V4's SWA / c4 / c128 / state pools (``dsv4``; 0.5.12 – 0.5.19)
    tokens           floor_page(min(budget // cell, --max-total-tokens))
    tokens (SWA cap) full = floor_page((budget − swa_cap × S × swa_layers) // (F × full_layers)), SWA pool =
                     ceil_page(swa_cap) (``swa_pool_choice``: --disable-radix-cache + --max-running-requests, 0.5.14+)
    buffers          per layer (tokens + page_size) rows: row block 0 is the padding page
    req_to_token     int32 [(max_running_requests + 1) × (context_len + 4)]
"""

from __future__ import annotations

from tpkit.dtypes import DTYPES
from tpkit.engines.sglang.dsv4 import dsv4_buffers, dsv4_cell_fields
from tpkit.engines.sglang.swa import hybrid_swa
from tpkit.engines.sglang.versions import LATEST, PP_SPLIT_EACH_LAST, at_least, era_at_least, sglang_pp_split
from tpkit.errors import PlanInputError
from tpkit.models.layout import largest_stage
from tpkit.models.kv import kv_heads_per_rank  # SGLang get_num_kv_heads: max(1, kv_heads // attn_tp)
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at start (a few ms; issue 12)
if TYPE_CHECKING:
    from tpkit.memory.kvpool import KVPoolPlan

__all__ = ["CellSize", "NSA_ARCHITECTURES", "nsa_model", "nsa_indexer_bytes_per_layer", "nsa_latent_store_bytes",
           "SWA_FULL_TOKENS_RATIO", "kv_heads_per_rank",
           "GEMMA4_FIRST", "Gemma4Pools", "gemma4_pools", "compute_cell", "size_tokens",
           "pool_buffers", "max_running_requests", "req_to_token_bytes", "stage_layer_kinds",
           "PP_SPLIT_EACH_LAST", "sglang_pp_split"]

SWA_FULL_TOKENS_RATIO = 0.8
"""``swa_full_tokens_ratio`` default (python/sglang/srt/arg_groups/fields/schedule.py)"""
REQ_TO_TOKEN_EXTRA = 4
"""extra columns per req_to_token row without speculative decoding"""


NSA_ARCHITECTURES = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN"})
"""``architectures[0]`` values SGLang treats as DeepSeek sparse attention when the config has ``index_topk``
(``configs/model_config.py`` ``is_deepseek_nsa``: DeepseekV3/V32 from 0.5.3, NextN 0.5.5, MistralLarge3/Pixtral
0.5.8, GlmMoeDsa 0.5.9 (0.5.23 ``is_deepseek_dsa`` adds GLM-5-next, Longcat, Dots3, HYV4, not sized here).  Not gated
by release: a release that does not list an architecture does not serve the model at all."""
NSA_QUANT_BLOCK = 128
"""``NSATokenToKVPool.quant_block_size`` (elements per fp32 scale of the indexer keys; 0.5.3 – 0.5.23)"""
NSA_INDEXER_FIRST = "0.5.4"
"""first release whose cell counts the indexer keys (``get_cell_size_per_token``/``profile_max_num_token``; PR
#11309; 0.5.3's ``profile_max_num_token`` sizes the latent only though ``NSATokenToKVPool`` allocates the keys)"""
NSA_KPOOL_FIRST = "0.5.23"
"""first release that divides the indexer row by ``index_kpool`` (``pool_configurator.py``
``_compute_dsa_indexer_cell_size``: ``ceil_div(…, get_dsa_index_kpool)``)"""
NSA_ELIDE_SHARED_FIRST = "0.5.20"
"""first release that gives ``indexer_types`` "shared" layers a 0-row index-K buffer (``_should_elide_dsa_index_k``)"""


def nsa_model(model: ModelSpec) -> bool:
    """SGLang ``is_deepseek_nsa``: MLA with a lightning indexer (``index_topk`` in the config) on a listed arch."""
    return model.mla is not None and model.dsa is not None and model.architecture in NSA_ARCHITECTURES


def nsa_indexer_bytes_per_layer(model: ModelSpec, version: str = LATEST) -> int:
    """Bytes of indexer keys per token and layer in the cell: fp8 keys (1 B each) + one fp32 scale per 128
    (sglang ``mem_cache/memory_pool.py`` ``NSATokenToKVPool``: ``index_k_with_scale_buffer`` uint8 rows of
    ``page_size × (index_head_dim + index_head_dim // 128 × 4)``; cell: ``model_runner.py``
    ``get_cell_size_per_token`` 0.5.4 – 0.5.10, ``pool_configurator.py`` ``_compute_dsa_indexer_cell_size``
    0.5.20 – 0.5.23, which divides by ``index_kpool`` from 0.5.23).  0 before 0.5.4 or for non-DSA models.
    index_head_dim 128 → 132 B."""
    if not nsa_model(model) or not at_least(version, NSA_INDEXER_FIRST):
        return 0
    d = model.dsa.index_head_dim
    row = d + d // NSA_QUANT_BLOCK * 4
    if at_least(version, NSA_KPOOL_FIRST):
        row = -(-row // model.dsa.index_kpool)
    return row


def nsa_latent_store_bytes(model: ModelSpec, kv_dtype: str, *, trtllm_backend: bool = False) -> int:
    """Bytes the DSA pool stores per token and layer for the latent (``NSATokenToKVPool`` →
    ``MLATokenToKVPool(override_kv_cache_dim=…)``; ``model_runner_kv_cache_mixin.py``
    ``calculate_mla_kv_cache_dim``, 0.5.5 – 0.5.23): with fp8 KV and a backend other than trtllm the record is
    fp8 latent + fp32 scale per 128 + bf16 rope, 512 + 16 + 128 = 656 B; otherwise (bf16, or trtllm)
    (kv_lora_rank + rope) × element.  The cell SGLang sizes tokens with keeps (kv_lora_rank + rope) × element."""
    m = model.mla
    element = DTYPES[kv_dtype].bytes
    if kv_dtype.startswith("fp8") and not trtllm_backend:
        return m.kv_lora_rank + m.kv_lora_rank // NSA_QUANT_BLOCK * 4 + m.qk_rope_head_dim * 2
    return (m.kv_lora_rank + m.qk_rope_head_dim) * element


@dataclass(frozen=True, kw_only=True, slots=True)
class CellSize:
    """KV bytes per token on one rank, with the facts it was built from."""

    layout: str
    """``mha`` (GQA/MHA K and V), ``mla`` (one latent), ``swa`` (full + sliding pools)"""
    bytes_per_token: float
    """the engine's cell size (bytes/token); fractional only for SWA (ratio-weighted)"""
    kv_dtype: str
    """KV element dtype (``bfloat16``, ``fp8_e4m3`` …)"""
    element_bytes: int
    """bytes per KV element"""
    n_kv_heads: int
    """KV heads per rank (1 for MLA's latent)"""
    k_dim: int
    """elements per head in K (MLA: latent + rope)"""
    v_dim: int
    """elements per head in V (0 for MLA)"""
    full_layers: int
    """full-attention (or MLA) layers of the stage (count)"""
    swa_layers: int = 0
    """sliding-window layers of the stage (count)"""
    source: str = ""
    """the formula, in words"""
    index_bytes: int = 0
    """DSA indexer-key bytes per token and layer inside ``bytes_per_token`` (0 without DSA)"""
    swa_n_kv_heads: int | None = None
    """KV heads per rank of the SWA pool when it differs from the full pool's (Gemma 4); None: ``n_kv_heads``"""
    swa_k_dim: int | None = None
    """elements per head in the SWA pool's K when it differs (Gemma 4); None: ``k_dim``"""
    swa_v_dim: int | None = None
    """elements per head in the SWA pool's V when it differs (Gemma 4); None: ``v_dim``"""
    swa_ratio: float = SWA_FULL_TOKENS_RATIO
    """``swa_full_tokens_ratio`` the SWA cell was weighted with (SWA pool tokens / full pool tokens)"""
    dsv4: object = None
    """DeepSeek-V4 only: the (``dsv4.Dsv4Layout``, ``dsv4.Dsv4Cell``) the cell was built from"""

    def full_bytes(self) -> int:
        """Bytes per token of the full-attention pool over its layers (F × full_layers)."""
        return self.n_kv_heads * (self.k_dim + self.v_dim) * self.element_bytes * self.full_layers

    def swa_bytes(self) -> int:
        """Bytes per token of the sliding-window pool over its layers (S × swa_layers)."""
        n = self.swa_n_kv_heads or self.n_kv_heads
        dims = (self.swa_k_dim or self.k_dim) + (self.swa_v_dim or self.v_dim)
        return n * dims * self.element_bytes * self.swa_layers


def stage_layer_kinds(model: ModelSpec, pp: int, split: str = "sglang") -> tuple[str, ...]:
    """Layer kinds of the stage with the most layers under ``split`` (``versions.sglang_pp_split``), without the
    layers that hold no cache (NemotronH MLP / MoE layers, kind "none": SGLang 0.5.11 ``configs/nemotron_h.py``
    lists only the "M" layers in ``mamba_layer_ids`` and the "*" layers in ``full_attention_layer_ids``)."""
    kinds = largest_stage(model.kinds, pp, split)
    return tuple(k for k in kinds if k != "none") if "none" in kinds else kinds


GEMMA4_FIRST: dict[str, str] = {"Gemma4ForCausalLM": "0.5.11", "Gemma4ForConditionalGeneration": "0.5.11",
                                "Gemma4UnifiedForConditionalGeneration": "0.5.13"}
"""first SGLang release with each Gemma 4 class (``models/gemma4_causal.py`` / ``gemma4_mm.py`` EntryClass from
0.5.11, ``gemma4_unified.py`` from 0.5.13; no ``gemma4*`` model file in 0.5.10 / 0.5.10.post1)"""
GEMMA4_SPEC_FIRST = "0.5.22"
"""first release that reads Gemma 4's full-layer shape from transformers' per-layer spec
(``utils/hf_transformers/config.py _apply_gemma4_attention_overrides``, transformers 5.19 pinned); 0.5.11 – 0.5.21
read ``num_global_key_value_heads`` directly whenever it is set"""
GEMMA4_WRAPPERS = frozenset({"gemma4", "gemma4_assistant", "gemma4_unified", "gemma4_unified_assistant"})
"""wrapper ``model_type`` values whose text config SGLang turns full-attention-first (a bare ``gemma4_text``
config is not: its full layers would be built with the sliding head dim)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Gemma4Pools:
    """Gemma 4's two KV shapes as SGLang's hybrid-SWA pool sees them (total heads, not per rank)."""

    full_kv_heads: int
    full_head_dim: int
    swa_kv_heads: int
    swa_head_dim: int


def gemma4_pools(model: ModelSpec, version: str) -> Gemma4Pools:
    """SGLang's full-pool and SWA-pool head shapes for a Gemma 4 model, or ``PlanInputError``.

    SGLang stores Gemma 4's config full-attention-first: the text config's ``head_dim`` / ``num_key_value_heads``
    become the full layers' and the sliding ones move to ``swa_head_dim`` / ``swa_v_head_dim`` /
    ``swa_num_key_value_heads`` (``utils/hf_transformers/config.py``, 0.5.11 – 0.5.23).  Full head dim:
    ``global_head_dim`` (transformers' default 512).  Full KV heads: 0.5.11 – 0.5.21 ``num_global_key_value_heads``
    whenever the config sets it; 0.5.22 – 0.5.23 transformers' per-layer spec, which applies it only with
    ``attention_k_eq_v`` (transformers ``Gemma4TextConfig.__post_init__``) — tpkit's ``ModelSpec.kv_heads("full")``.
    The pool stores V beside K (``v_head_dim`` = ``head_dim``) even with ``attention_k_eq_v``."""
    first = GEMMA4_FIRST.get(model.architecture, "0.5.11")
    if not at_least(version, first):
        raise PlanInputError(
            f"{model.name}: SGLang {version} does not serve Gemma 4 ({model.architecture}); its model file first "
            f"ships in SGLang {first} (models/gemma4_*.py). Plan with --engine-version {first} or later, or with "
            "--engine vllm (vLLM ≥ 0.19.0)")
    wrapper = model.extra.get("wrapper_model_type")
    if model.per_kind_kv and wrapper not in GEMMA4_WRAPPERS:
        raise PlanInputError(
            f"{model.name}: a bare Gemma 4 text config (model_type {wrapper!r}) with separate full-attention shapes "
            "is not rewritten by SGLang (utils/hf_transformers/config.py only does it for the gemma4 wrapper types "
            f"{', '.join(sorted(GEMMA4_WRAPPERS))}); pass the checkpoint's full config.json (model_type \"gemma4\")")
    full_heads = model.kv_heads("full")
    raw_global = model.extra.get("num_global_key_value_heads")
    if not at_least(version, GEMMA4_SPEC_FIRST) and isinstance(raw_global, int) and raw_global >= 1:
        full_heads = raw_global
    return Gemma4Pools(full_kv_heads=full_heads, full_head_dim=model.kv_head_dim("full"),
                       swa_kv_heads=model.num_kv_heads, swa_head_dim=model.head_dim)


def refuse_per_kind_kv(model: ModelSpec) -> None:
    """Refuse a non-Gemma-4 model whose full and sliding layers cache different KV shapes, or whose last layers
    share another layer's KV: tpkit's SGLang pool models those only for Gemma 4 (``gemma4_pools``)."""
    if model.model_type == "gemma4_text":
        return
    if model.per_kind_kv or model.kv_shared_layers:
        raise PlanInputError(
            f"{model.name}: per-layer KV shapes (sliding {model.kv_heads('sliding')} KV heads × "
            f"{model.kv_head_dim('sliding')}, full {model.kv_heads('full')} × {model.kv_head_dim('full')}"
            f"{f', {model.kv_shared_layers} shared-KV layers' if model.kv_shared_layers else ''}) are modelled for "
            "SGLang only for Gemma 4; plan it with --engine vllm")


def compute_cell(model: ModelSpec, tp: int, pp: int, kv_dtype: str, *, split_v_dim: bool = True,
                 version: str = LATEST, swa_full_tokens_ratio: float | None = None,
                 split: str | None = None, one_pool: str = "") -> CellSize:
    """The cell size SGLang profiles with (per rank, the stage's attention layers; linear layers hold no KV).

    ``tp`` is the attention-TP size (KV heads per rank).  ``split_v_dim=False`` reproduces releases ≤ 0.5.6
    (``profile_max_num_token``: head_dim × 2; 0.5.7 ``model_runner_kv_cache_mixin.py``: head_dim + v_head_dim),
    which assumed ``v_head_dim == head_dim``.  Sliding layers get their own pool only when
    ``swa.hybrid_swa(model, version)`` says so; otherwise they count as full layers of the one pool.
    ``swa_full_tokens_ratio``: ``--swa-full-tokens-ratio`` (None: SGLang's default 0.8, ``swa_ratio``).
    ``one_pool``: why this start's server args disable the hybrid pool (``swa.gpt_oss_one_pool``), else empty.
    """
    r = SWA_FULL_TOKENS_RATIO if swa_full_tokens_ratio is None else float(swa_full_tokens_ratio)
    element = DTYPES[kv_dtype].bytes
    refuse_per_kind_kv(model)
    kinds = stage_layer_kinds(model, pp, split or sglang_pp_split(version))
    if model.mla is not None:
        dim = model.mla.kv_lora_rank + model.mla.qk_rope_head_dim
        layers = len(kinds) - kinds.count("linear")  # linear-attention layers keep state, not KV
        index = nsa_indexer_bytes_per_layer(model, version)
        if index and model.dsa.shared_indexer_layers and at_least(version, NSA_ELIDE_SHARED_FIRST):
            raise PlanInputError(
                f"{model.name}: {model.dsa.shared_indexer_layers} indexer layers are 'shared' (indexer_types); SGLang "
                f"≥ {NSA_ELIDE_SHARED_FIRST} gives them no index-K rows, which tpkit does not size yet; plan with a "
                "release before it (--engine-version) or a config without shared indexer layers")
        text = (f"MLA ({model.mla.kv_lora_rank} + {model.mla.qk_rope_head_dim}) × {layers} layers × {element} B")
        if index:
            text += (f" + DSA indexer keys ({model.dsa.index_head_dim} fp8 + {model.dsa.index_head_dim} // "
                     f"{NSA_QUANT_BLOCK} × 4 B scales = {index} B) × {layers} layers")
        return CellSize(layout="mla", bytes_per_token=(dim * element + index) * layers, kv_dtype=kv_dtype,
                        element_bytes=element, n_kv_heads=1, k_dim=dim, v_dim=0, full_layers=layers,
                        index_bytes=index,
                        source=f"{text}, not divided by TP (sglang pool_configurator.py _compute_cell_size, MLA"
                               f"{'; NSATokenToKVPool' if index else ''})")
    if model.model_type == "deepseek_v4":
        return CellSize(**dsv4_cell_fields(model, kv_dtype, version, r, pp=pp))
    if model.model_type == "gemma4_text":
        return _gemma4_cell(model, kinds, tp, kv_dtype, element, version, r)
    n_kv = kv_heads_per_rank(model, tp)
    v_dim = model.v_head_dim if split_v_dim else model.head_dim
    per_layer = n_kv * (model.head_dim + v_dim) * element
    full, swa = kinds.count("full"), kinds.count("sliding")
    common = dict(kv_dtype=kv_dtype, element_bytes=element, n_kv_heads=n_kv, k_dim=model.head_dim, v_dim=v_dim)
    head_text = f"{n_kv} KV heads/rank × ({model.head_dim} + {v_dim}) × {element} B"
    hybrid, why = hybrid_swa(model, version, one_pool=one_pool)
    if swa and not hybrid:
        return CellSize(layout="mha", bytes_per_token=per_layer * (full + swa), full_layers=full + swa, **common,
                        source=f"{head_text} × {full + swa} layers, sliding ones included ({why})")
    if swa == 0:
        return CellSize(layout="mha", bytes_per_token=per_layer * full, full_layers=full, **common,
                        source=f"{head_text} × {full} layers (sglang pool_configurator.py _compute_cell_size)")
    if full == 0:
        return CellSize(layout="swa", bytes_per_token=per_layer * swa, full_layers=0, swa_layers=swa, **common,
                        source=f"{head_text} × {swa} sliding layers (all-SWA model; sglang pool_configurator.py "
                               "HybridSWAPoolConfigurator)")
    cell = per_layer * full + r * per_layer * swa
    return CellSize(layout="swa", bytes_per_token=cell, full_layers=full, swa_layers=swa, swa_ratio=r, **common,
                    source=f"{head_text} × ({full} full + {r:g} × {swa} sliding) layers "
                           "(hybrid SWA; sglang pool_configurator.py HybridSWAPoolConfigurator)")


def _gemma4_cell(model: ModelSpec, kinds: tuple[str, ...], tp: int, kv_dtype: str, element: int,
                 version: str, r: float = SWA_FULL_TOKENS_RATIO) -> CellSize:
    """Gemma 4's cell (sglang ``pool_configurator.py HybridSWAPoolConfigurator.__init__``, 0.5.11 – 0.5.23):

        F = max(1, full_kv // tp) × (full_dim + full_dim) × e        S = max(1, swa_kv // tp) × (swa_dim + swa_dim) × e
        cell = F × full_layers + r × S × sliding_layers             r = swa_full_tokens_ratio (default 0.8)

    The layer ids are every ``layer_types`` entry (``configs/model_config.py get_hybrid_layer_ids``; 0.5.23
    ``layer_setup.py _resolve_local_hybrid_swa_layer_ids``): the ``num_kv_shared_layers`` trailing layers keep
    their pool rows (``gemma4_causal.py`` only skips ``save_kv_cache`` for them), unlike vLLM.  Without the
    hybrid pool (``swa.hybrid_swa``) one pool of the full shape over every layer (``DefaultPoolConfigurator``)."""
    g = gemma4_pools(model, version)
    fn, sn = max(1, g.full_kv_heads // tp), max(1, g.swa_kv_heads // tp)
    f_tok, s_tok = fn * 2 * g.full_head_dim * element, sn * 2 * g.swa_head_dim * element
    full, swa = kinds.count("full"), kinds.count("sliding")
    shared = (f"; the {model.kv_shared_layers} shared-KV layers keep their rows" if model.kv_shared_layers else "")
    common = dict(kv_dtype=kv_dtype, element_bytes=element, n_kv_heads=fn, k_dim=g.full_head_dim,
                  v_dim=g.full_head_dim)
    f_text = f"full {fn} KV heads/rank × ({g.full_head_dim} + {g.full_head_dim}) × {element} B"
    s_text = f"SWA {sn} KV heads/rank × ({g.swa_head_dim} + {g.swa_head_dim}) × {element} B"
    hybrid, why = hybrid_swa(model, version)
    if not hybrid or swa == 0:
        return CellSize(layout="mha", bytes_per_token=f_tok * (full + swa), full_layers=full + swa, **common,
                        source=f"Gemma 4: {f_text} × {full + swa} layers ({why}){shared}")
    swa_shape = dict(swa_n_kv_heads=sn, swa_k_dim=g.swa_head_dim, swa_v_dim=g.swa_head_dim)
    if full == 0:
        return CellSize(layout="swa", bytes_per_token=s_tok * swa, full_layers=0, swa_layers=swa, **common,
                        **swa_shape, source=f"Gemma 4: {s_text} × {swa} sliding layers (all-SWA){shared}")
    return CellSize(layout="swa", bytes_per_token=f_tok * full + r * s_tok * swa,
                    full_layers=full, swa_layers=swa, swa_ratio=r, **common, **swa_shape,
                    source=f"Gemma 4 hybrid SWA: {f_text} × {full} full + {r:g} × {s_text} × "
                           f"{swa} sliding layers (sglang pool_configurator.py HybridSWAPoolConfigurator){shared}")


def size_tokens(budget: Bytes, cell: CellSize, *, page_size: int, max_total_tokens: int | None,
                swa_cap: int | None = None) -> tuple[int, int]:
    """(full-pool tokens, SWA-pool tokens) per rank from the KV budget (sglang 0.5.23
    ``pool_configurator.py`` ``calculate_pool_sizes`` + ``kv_cache_configurator.py`` ``config_from_budget``).

    ``swa_cap``: the SWA pool's tokens when the request-capped configurator sizes it (``swa_pool_choice``):
    the SWA pool is fixed at that and the rest of the budget goes to the full pool
    (``SWAChunkCapPoolConfigurator`` / ``SWARequestCapPoolConfigurator.calculate_pool_sizes``: full =
    floor_page((budget − swa_cap × S) // F); with a smaller ``--max-total-tokens`` cap,
    ``calculate_pool_sizes_from_max_tokens``: full = floor_page(cap), SWA = min(swa_cap, cap)).  SGLang refuses to
    start when no full token is left (RuntimeError 'SWA pool cap … leaves no room'): (0, 0)."""
    if swa_cap is not None and cell.layout == "swa" and cell.full_layers:
        full_cell = cell.full_bytes()
        tokens = int((budget.bytes - swa_cap * cell.swa_bytes()) // full_cell) // page_size * page_size
        if tokens <= 0:
            return 0, 0
        if max_total_tokens is not None and max_total_tokens < tokens:
            return max_total_tokens // page_size * page_size, min(swa_cap, max_total_tokens)
        return tokens, swa_cap
    tokens = int(max(budget.bytes, 0) // cell.bytes_per_token) if cell.bytes_per_token else 0
    tokens = tokens // page_size * page_size
    if max_total_tokens is not None and max_total_tokens < tokens:
        tokens = max_total_tokens // page_size * page_size
    if cell.layout != "swa":
        return tokens, 0
    if cell.full_layers == 0:
        return tokens, tokens
    swa = int(tokens * cell.swa_ratio) // page_size * page_size
    return tokens, swa


def pool_buffers(cell: CellSize, tokens: int, swa_tokens: int, page_size: int) -> KVPoolPlan:
    """Every buffer SGLang allocates for the KV pool of one rank (rows = tokens + page_size)."""
    from tpkit.memory.kvpool import KVBuffer, KVPoolPlan  # not at import: explain reads the cell only

    if tokens <= 0:  # the engine raises 'Not enough memory' on max_total_num_tokens <= 0, before any buffer
        # (model_runner init_memory_pool, every release read); a padding page alone could exceed the GPU (a huge
        # --page-size: fuzz plan seed 16, case 1437)
        return KVPoolPlan(num_tokens=max(tokens, 0), padded_tokens=0, cell_bytes=Bytes(round(cell.bytes_per_token)),
                          buffers=(), page_size=page_size, dtype=cell.kv_dtype)
    e, n, rows = cell.element_bytes, cell.n_kv_heads, tokens + page_size
    if cell.layout == "dsv4":
        return dsv4_buffers(cell, tokens, page_size)
    if cell.layout == "mla":
        buffers = (KVBuffer(name="kv_latent", count=cell.full_layers, shape=(rows, 1, cell.k_dim), element_bytes=e),)
        if cell.index_bytes:  # NSATokenToKVPool.index_k_with_scale_buffer: (tokens + page + 1) // page pages
            pages = (tokens + page_size + 1) // page_size
            buffers += (KVBuffer(name="index_k_with_scale", count=cell.full_layers,
                                 shape=(pages, page_size * cell.index_bytes), element_bytes=1),)
    else:
        buffers = ()
        if cell.full_layers:
            buffers += (KVBuffer(name="k", count=cell.full_layers, shape=(rows, n, cell.k_dim), element_bytes=e),
                        KVBuffer(name="v", count=cell.full_layers, shape=(rows, n, cell.v_dim), element_bytes=e))
        if cell.swa_layers:
            swa_rows = (swa_tokens if cell.full_layers else tokens) + page_size
            sn = cell.swa_n_kv_heads or n
            sk = cell.swa_k_dim or cell.k_dim
            sv = cell.swa_v_dim or cell.v_dim
            buffers += (KVBuffer(name="swa_k", count=cell.swa_layers, shape=(swa_rows, sn, sk), element_bytes=e),
                        KVBuffer(name="swa_v", count=cell.swa_layers, shape=(swa_rows, sn, sv), element_bytes=e))
    cell_bytes = Bytes(round(cell.bytes_per_token))
    return KVPoolPlan(num_tokens=tokens, padded_tokens=rows, cell_bytes=cell_bytes, buffers=buffers,
                      page_size=page_size, dtype=cell.kv_dtype)


def max_running_requests(era: str, *, tokens: int, context_len: int, user: int | None, dp: int,
                         version: str | None = None) -> tuple[int, int, str]:
    """(max_running_requests, req_to_token rows, rule) per release (sglang 0.5.23
    ``kv_cache_configurator.py`` ``resolve_max_num_reqs``; ``mem_cache/memory_pool.py`` ``ReqToTokenPool``), per
    attention-DP worker.

    ``dp`` is the attention-DP size the user value is divided by.  Boundaries read in every wheel
    (issue 11 rule 10): the +1 padding row of req_to_token from 0.5.12, the user cap ``min(user // dp,
    tokens // 2)`` from 0.5.14 (``resolve_max_num_reqs``; 0.5.3–0.5.13 ``min(user // dp, estimate)``).
    """
    version = version or era
    est = min(max(int(tokens / context_len * 512), 2048), 4096)
    pad = 1 if at_least(version, "0.5.12") else 0
    pad_text = "; +1 padding row" if pad else ""
    if at_least(version, "0.5.14"):
        value = min(max(1, user // dp), tokens // 2) if user is not None else min(est, tokens // 2)
        return value, value + pad, f"min(user or clamp(tokens/context×512, 2048, 4096), tokens//2){pad_text}"
    if era_at_least(era, "0.5.3"):
        value = min(user // dp, est) if user is not None else min(est, tokens // 2)
        return value, value + pad, ("user: min(user, est); unset: min(clamp(tokens/context×512, 2048, 4096), "
                                    f"tokens//2){pad_text}")
    rows = user if user is not None else est
    value = min(user // dp if user is not None else tokens // 2, rows)
    return value, rows, "pool = user or clamp(tokens/context×512, 2048, 4096); running = min(user or tokens//2, pool)"


def req_to_token_bytes(rows: int, context_len: int, extra_columns: int = 0) -> Bytes:
    """int32 req_to_token table: rows × (context_len + 4 + extra_columns) × 4 bytes (``extra_columns``: the
    speculative draft tokens, 0.5.23 ``allocation_sizing.get_req_to_token_extra_context_len``)."""
    return Bytes(rows * (context_len + REQ_TO_TOKEN_EXTRA + extra_columns) * 4)
