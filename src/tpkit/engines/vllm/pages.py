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
``SLIDING_KERNEL_BLOCK``, not ``--block-size``), the mamba pages per request in ``mamba.py``, the bytes one layer
keeps per token (attention) or per request (linear state) in ``layer_bytes.py``, and the ``KvGroup`` / ``KvLayout`` /
``DraftKv`` records this module fills in ``kvgroups.py``.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines.vllm.blocksize import DEFAULT_BLOCK_SIZE
from tpkit.engines.vllm.kvdtype import KvDtype
from tpkit.engines.vllm.kvgroups import DraftKv, KvGroup, KvLayout, cdiv
from tpkit.engines.vllm.layer_bytes import (V0_MLA_ALIGN, head_shape, linear_state_bytes, per_token_bytes,
                                            dsa_indexer_token_bytes, v0_mla_aligned_token_bytes)
from tpkit.engines.vllm.mamba import MambaMode
from tpkit.engines.vllm.versions import RULES, VllmRules
from tpkit.errors import PlanInputError
from tpkit.models.layout import stage_sizes
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from tpkit.engines.vllm.layer_bytes import DSA_INDEXER_FIRST, kv_heads_per_rank  # noqa: F401  (public: in __all__)

__all__ = ["KvGroup", "KvLayout", "DraftKv", "build_layout", "kv_heads_per_rank", "cdiv", "stage_layer_kinds",
           "pp_split", "PP_SPLIT_BEFORE_LAST",
           "chunked_local_model", "DEFAULT_BLOCK_SIZE", "dsa_indexer_token_bytes", "DSA_INDEXER_FIRST"]
HYBRID_ALIGN = 16
"""kernel block alignment used to grow the attention block of attention+linear hybrids (non-MLA)"""
SLIDING_KERNEL_BLOCK = 16
"""the block a sliding-window layer starts from on vLLM ≥ 0.25 (``VllmRules.sliding_kernel_block``): the smallest
kernel block of the CUDA attention backends (``get_supported_kernel_block_sizes``: TRITON_ATTN and FLASH_ATTN
``MultipleOf(16)``, FlashInfer ``[16, 32, 64]``; vLLM 0.29.0 ``v1/attention/backends``)"""
HYBRID_ALIGN_MLA = {"0.33": 128, "0.11": 64}
"""MLA hybrids: ≥ 128 in the current rules (vLLM 0.33 ``_align_hybrid_block_size``); 64 (FlashMLA/Triton-MLA) in 0.11
(vLLM 0.11.1 ``HybridAttentionMambaModelConfig``; 128 only with CUTLASS-MLA)"""


def chunked_local_model(model: ModelSpec) -> bool:
    """The model's "sliding" layers are chunked-local attention (Llama-4: ``attention_chunk_size``)."""
    return (model.model_type or "").startswith("llama4")


PP_SPLIT_BEFORE_LAST = (0, 8, 0)
"""the first release whose ``get_pp_indices`` gives the remainder layers to the stages before the last
(``distributed/utils.py``: 0.7.3 gives the whole remainder to the last stage, 0.8.0 one layer each to
partitions[-2], [-3], …; read in the 0.6.4, 0.7.2, 0.7.3, 0.8.0, 0.8.3, 0.9.1 and 0.34.0 wheels)"""


def pp_split(release: tuple[int, int, int], parallel=None) -> str:
    """The name of vLLM ``release``'s layer split over PP stages (``tpkit.models.layout.PP_SPLITS``): ``"vllm"``
    from 0.8.0, ``"vllm-last"`` before (``PP_SPLIT_BEFORE_LAST``).  Every worker sizes its KV cache for its own
    stage's layers (0.8.3 ``config.py`` ``ModelConfig.get_num_layers`` → ``get_layers_start_end_indices`` →
    ``get_pp_indices``) and the executor takes the fewest blocks over the workers.  A ``parallel`` with a
    ``layer_partition`` (``VLLM_PP_LAYER_PARTITION``, read by ``get_pp_indices`` from 0.5.4 to at least 0.33.0)
    gives that partition instead (``tpkit.models.layout.partition_split``)."""
    if parallel is not None and getattr(parallel, "layer_partition", None) is not None:
        from tpkit.models.layout import partition_split

        return partition_split(parallel.layer_partition)
    return "vllm" if tuple(release) >= PP_SPLIT_BEFORE_LAST else "vllm-last"


def stage_layer_kinds(model: ModelSpec, pp: int, *, chunked_hybrid: bool = False,
                      split: str = "vllm", stage: int | None = None) -> tuple[str, ...]:
    """Layer kinds on the pipeline stage with the most layers under the release's ``split`` (``pp_split``:
    from 0.8.0 vLLM gives the remainder to the stages before the last one, before 0.8.0 all of it to the last).

    Chunked-local layers (Llama-4) become ``chunked`` when the release keeps the hybrid manager on for them
    (``chunked_hybrid``), else ``full``: ``config/vllm.py`` (0.10.2 ``config/__init__.py``) disables the hybrid
    KV cache manager for ``attention_chunk_size`` models unless ``VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE``
    is set (default "0" in 0.10.1–0.13, "1" from 0.14, ``envs.py``) and always with EAGLE, and then
    ``unify_hybrid_kv_cache_specs`` turns every layer into full attention.

    KV-shared layers (Gemma 4 ``num_kv_shared_layers``: ``Attention(kv_sharing_target_layer_name=…)``, vLLM
    0.19.0 – 0.29.0 ``models/gemma4.py``) get no KV cache spec of their own (``gpu_model_runner.py``
    ``get_kv_cache_spec`` skips a layer with a sharing target and points it at the target's cache): they are left
    out.  ``stage``: that stage's layers instead (``ParallelSpec.stage``, a plan per stage)."""
    sizes = stage_sizes(model.num_layers, pp, split)
    owners = model.num_layers - model.kv_shared_layers  # Gemma 4: the last kv_shared_layers reuse an earlier layer's KV

    def own(s: int) -> tuple[str, ...]:  # NemotronH MLP / MoE layers ("none"): no attention, no KV cache spec
        start = sum(sizes[:s])
        return tuple(k for k in model.kinds[start:min(start + sizes[s], owners)] if k != "none")

    if stage is not None:
        return _kinds_of(model, own(stage), chunked_hybrid)
    stage = max(range(pp), key=lambda s: sizes[s])
    if not any(k != "linear" for k in own(stage)):
        # a deep split can leave the largest stage without an attention layer that owns a KV cache (only
        # KV-shared or linear-attention layers): such a worker's pool never limits; take the largest stage with one
        stage = max((s for s in range(pp) if any(k != "linear" for k in own(s))), key=lambda s: sizes[s],
                    default=stage)
    return _kinds_of(model, own(stage), chunked_hybrid)


def _kinds_of(model: ModelSpec, kinds: tuple[str, ...], chunked_hybrid: bool) -> tuple[str, ...]:
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
    kinds = stage_layer_kinds(model, parallel.pp, chunked_hybrid=rules.chunked_local_hybrid and era != "v0",
                              split=pp_split(rules.release, parallel), stage=getattr(parallel, "stage", None))
    counts = _counts(kinds, era)
    tok = _token_bytes(model, counts, parallel.tp, dtype_bytes, kv_format, rules.release)
    if era == "v0" and "mla" in tok and V0_MLA_ALIGN[0] <= rules.release < V0_MLA_ALIGN[1]:
        tok["mla"] = v0_mla_aligned_token_bytes(model, dtype_bytes, act_bytes)  # 0.7.2–0.7.3 CacheEngine padding
    uniform_draft = draft is not None and len(counts) == 1 and next(iter(counts)) in ("full", "mla") \
        and draft.kind != "sliding" and rules.release >= (0, 11, 0)
    key = None
    if draft is not None and not uniform_draft:
        same = tok.get(draft.kind) == draft.per_token_bytes and (draft.kind != "sliding"
                                                                  or draft.window == model.sliding_window) \
            and (draft.shape is None or draft.kind not in counts or draft.shape == head_shape(model, draft.kind,
                                                                                               parallel.tp))
        key = draft.kind if same else "draft"
        counts[key] = counts.get(key, 0) + draft.num_layers
        tok.setdefault(key, draft.per_token_bytes)
    # ≥ 0.25 a sliding-window layer (the drafter's too) starts from the kernel block, the others from --block-size;
    # ≥ 0.34 (VllmRules.sliding_primary_block) from the largest kernel block dividing --block-size: the block itself
    own = {k for k in tok if rules.sliding_kernel_block and (
        k == "sliding" or (k == "draft" and draft is not None and draft.kind == "sliding"))}
    sliding_block = block_size if rules.sliding_primary_block else SLIDING_KERNEL_BLOCK
    blocks = {k: sliding_block if k in own else block_size for k in tok}
    pages = {k: tok[k] * blocks[k] for k in tok}
    if "linear" in counts:
        blocks, pages = _with_linear_pages(model, parallel.tp, tok, blocks, pages, own, block_size=block_size, era=era,
                                           act_bytes=act_bytes, spec_tokens=spec_tokens, rules=rules)
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


def _with_linear_pages(model: ModelSpec, tp: int, tok: dict, blocks: dict, pages: dict, own: set, *, block_size: int,
                       era: str, act_bytes: int, spec_tokens: int, rules: VllmRules) -> tuple[dict, dict]:
    """``build_layout``'s (blocks, pages) with a linear-attention group: the attention block grows until one page
    holds a layer's state (``linear_state_bytes``, aligned to ``HYBRID_ALIGN`` / ``HYBRID_ALIGN_MLA``, ≥ 0.34 at
    least the block size), the sliding layers that start from their own block (``own``) keep it, and the linear
    group's page is padded to the target's largest page."""
    state = linear_state_bytes(model, tp, act_bytes, spec_tokens, rules)
    align = HYBRID_ALIGN_MLA.get(era, HYBRID_ALIGN) if model.mla is not None else HYBRID_ALIGN
    if rules.hybrid_align_to_block:  # ≥ 0.34: the alignment is at least the block size (64 by default)
        align = max(align, block_size)
    attn_tok = max(v for k, v in tok.items() if k != "draft")  # the target's attention (model_config)
    grown = align * cdiv(state, align * attn_tok)
    if grown > block_size:
        blocks = {k: blocks[k] if k in own else grown for k in tok}
        pages = {k: tok[k] * blocks[k] for k in tok}
    pages = {**pages, "linear": max(v for k, v in pages.items() if k != "draft")}  # padded to the target's page
    blocks = {**blocks, "linear": max(blocks.values())}
    return blocks, pages


def _token_bytes(model: ModelSpec, counts: dict[str, int], tp: int, dtype_bytes: int, kv_format: KvDtype | None,
                 release: tuple[int, int, int]) -> dict[str, int]:
    """Bytes one token costs per attention kind (``layer_bytes.per_token_bytes``, the DSA indexer keys included)."""
    indexer = dsa_indexer_token_bytes(model, release)
    return {k: per_token_bytes(model, k, tp, dtype_bytes, kv_format, indexer, release) for k in counts if k != "linear"}


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
