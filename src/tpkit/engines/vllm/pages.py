"""Per-layer KV page sizes, block sizes and KV-cache groups as vLLM lays them out (spec §3.1–§3.5, §4).

    page (full / sliding)  = block_size × kv_heads_per_rank × (head_size + head_size_v) × dtype_bytes
    page (MLA)             = block_size × (kv_lora_rank + qk_rope_head_dim) × dtype_bytes   (every rank)
    page (linear / mamba)  = recurrent state per request per layer, padded up to the attention page
    kv_heads_per_rank      = max(1, num_kv_heads // tp)

One kind of layer → one group whose block costs Σ pages.  Several kinds (hybrid) → layers are bucketed by
kind, split into groups of ``group_size`` layers, and every group shares one pool of
``group_size × page`` bytes per block (spec §3.4).
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.errors import PlanInputError
from tpkit.models import kv as model_kv
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["KvGroup", "KvLayout", "build_layout", "default_block_size", "kv_heads_per_rank", "cdiv"]

DEFAULT_BLOCK_SIZE = 16
"""CacheConfig.DEFAULT_BLOCK_SIZE (tokens), spec §3.1"""
HYBRID_ALIGN = 16
"""kernel block alignment used to grow the attention block of attention+linear hybrids (non-MLA)"""
HYBRID_ALIGN_MLA = {"0.33": 128, "0.11": 64}
"""MLA hybrids: ≥ 128 in the current rules (spec §3.1); 64 (FlashMLA/Triton-MLA) in 0.11 (vLLM 0.11.1
``HybridAttentionMambaModelConfig``; 128 only with CUTLASS-MLA)"""


def cdiv(a: int, b: int) -> int:
    """Ceiling division of whole numbers."""
    return -(-a // b)


@dataclass(frozen=True, kw_only=True, slots=True)
class KvGroup:
    """One KV-cache group: ``num_layers`` real layers of one kind sharing a block table."""

    kind: str
    """``full`` | ``mla`` | ``sliding`` | ``linear``"""
    num_layers: int
    """real (not padding) layers in this group"""
    page_bytes: Bytes
    """bytes of one block of one layer (after unification/padding)"""
    block_size: int
    """tokens per block of this group"""
    window: int | None = None
    """sliding window (tokens) for ``sliding`` groups"""

    def blocks_per_request(self, max_model_len: int, in_flight_tokens: int) -> int:
        """Blocks one request of ``max_model_len`` tokens holds in this group (spec §3.2)."""
        if self.kind == "linear":
            return 1
        if self.kind == "sliding" and self.window:
            need = min(self.window - 1 + in_flight_tokens, max_model_len)
            return cdiv(need, self.block_size) + 1
        return cdiv(max_model_len, self.block_size)


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

    @property
    def is_hybrid(self) -> bool:
        return len({g.kind for g in self.groups}) > 1


def kv_heads_per_rank(model: ModelSpec, tp: int) -> int:
    """KV heads each TP rank stores: ``max(1, heads // tp)``; MLA stores one latent head (spec §3.3).

    The count is the models layer's rule; the divisibility checks are vLLM's (it asserts them)."""
    q_heads = model.num_attention_heads
    if q_heads % tp:
        divisors = ", ".join(str(d) for d in range(1, q_heads + 1) if q_heads % d == 0 and d <= 64)
        raise PlanInputError(f"--tp {tp} does not divide the {q_heads} attention heads of {model.name}; vLLM "
                             f"requires num_attention_heads % tensor_parallel_size == 0: use --tp {divisors}")
    if model.mla is not None:
        return 1
    heads = model.num_kv_heads
    if heads >= tp and heads % tp:
        raise PlanInputError(f"--tp {tp} does not divide the model's {heads} KV heads; "
                             f"use a TP size that divides {heads} (or a multiple of it)")
    if heads < tp and tp % heads:
        raise PlanInputError(f"--tp {tp} is above the model's {heads} KV heads but not a multiple of it; "
                             f"vLLM replicates KV heads only when tp % {heads} == 0")
    return model_kv.kv_heads_per_rank(model, tp)


def default_block_size(model: ModelSpec, era: str, compute_capability: tuple[int, int] | None) -> int:
    """The block size vLLM picks without ``--block-size`` (spec §3.1)."""
    if model.mla is None or era == "v0":
        return DEFAULT_BLOCK_SIZE
    cap = compute_capability or (0, 0)
    if cap[0] == 10:
        return 128  # CUTLASS-MLA
    if cap == (9, 0):
        return 64  # FlashMLA
    return DEFAULT_BLOCK_SIZE  # Triton MLA (Ampere/Ada): multiples of 16


def check_block_size(model: ModelSpec, block_size: int, era: str, cap: tuple[int, int] | None) -> None:
    """Raise ``PlanInputError`` when the attention backend cannot use ``block_size``."""
    if model.mla is not None and era != "v0" and (cap or (0, 0))[0] in (9, 10):
        need = default_block_size(model, era, cap)
        if block_size != need:
            raise PlanInputError(
                f"--block-size {block_size} is not supported by the MLA backend on compute capability "
                f"{cap[0]}.{cap[1]} ({'FlashMLA' if need == 64 else 'CUTLASS-MLA'} takes only {need}); "
                f"pass --block-size {need} or leave it unset")
        return
    if era == "v0" and block_size not in (8, 16, 32):
        raise PlanInputError(f"--block-size {block_size} is not one of the V0 engine's choices 8, 16, 32; "
                             "pass one of those or leave it unset (16)")
    if era != "v0" and block_size % 16:
        raise PlanInputError(f"--block-size {block_size} is not a multiple of 16, which the FlashAttention "
                             f"backend needs; use {max(16, block_size // 16 * 16)} or leave it unset (16)")


def _per_token_bytes(model: ModelSpec, kind: str, tp: int, dtype_bytes: int) -> int:
    """Bytes one token costs in one layer of ``kind`` on one rank."""
    if kind == "mla":
        return (model.mla.kv_lora_rank + model.mla.qk_rope_head_dim) * dtype_bytes
    heads = kv_heads_per_rank(model, tp)
    return heads * (model.head_dim + model.v_head_dim) * dtype_bytes


def kda_state_bytes(lac: dict, tp: int, dtype_bytes: int) -> int:
    """vLLM's Kimi-Delta-Attention state per request per layer on one rank: three short-conv states
    ``(kernel − 1) × heads·head_dim/tp`` in the model dtype (q, k, v) and a recurrent state
    ``heads/tp × head_dim × head_dim`` in fp32 (vLLM 0.11.1 ``kda_state_shape`` / ``kda_state_dtype``)."""
    heads, head_dim, kernel = int(lac["num_heads"]), int(lac["head_dim"]), int(lac.get("short_conv_kernel_size", 4))
    conv = 3 * (kernel - 1) * (heads * head_dim // tp) * dtype_bytes
    return conv + (heads // tp) * head_dim * head_dim * 4


def _linear_state_bytes(model: ModelSpec, tp: int, dtype_bytes: int) -> int:
    spec = model.linear_attn
    lac = model.extra.get("linear_attn_config")
    if (spec is None or spec.state_bytes_per_layer is None) and isinstance(lac, dict) and "num_heads" in lac:
        return kda_state_bytes(lac, tp, dtype_bytes)
    if spec is None or spec.state_bytes_per_layer is None:
        raise PlanInputError(
            f"{model.name} has linear-attention layers but their recurrent state size is not known "
            "(ModelSpec.linear_attn.state_bytes_per_layer is empty); vLLM pads that state to the attention "
            "page, so the KV layout cannot be planned without it")
    return cdiv(spec.state_bytes_per_layer.bytes, tp)


def stage_layer_kinds(model: ModelSpec, pp: int) -> tuple[str, ...]:
    """Layer kinds on the pipeline stage with the most layers (vLLM gives the remainder to the stages
    before the last one)."""
    n = model.num_layers
    sizes = [n // pp] * pp
    for i in range(2, n % pp + 2):
        sizes[-i] += 1
    stage = max(range(pp), key=lambda s: sizes[s])
    start = sum(sizes[:stage])
    kinds = model.kinds[start:start + sizes[stage]]
    if model.mla is not None:
        kinds = tuple("mla" if k == "full" else k for k in kinds)
    return kinds


def _counts(kinds: tuple[str, ...], era: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for k in kinds:
        if era == "v0" and k == "sliding":
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
                 dtype_bytes: int, dtype_name: str, act_bytes: int = 2) -> KvLayout:
    """Group the limiting rank's layers and size one block (spec §3.2–§3.5)."""
    counts = _counts(stage_layer_kinds(model, parallel.pp), era)
    tok = {k: _per_token_bytes(model, k, parallel.tp, dtype_bytes) for k in counts if k != "linear"}
    blocks = {k: block_size for k in tok}
    pages = {k: tok[k] * block_size for k in tok}
    if "linear" in counts:
        state = _linear_state_bytes(model, parallel.tp, act_bytes)
        align = HYBRID_ALIGN_MLA.get(era, HYBRID_ALIGN) if model.mla is not None else HYBRID_ALIGN
        attn_tok = max(tok.values())
        grown = align * cdiv(state, align * attn_tok)
        if grown > block_size:
            blocks = {k: grown for k in tok}
            pages = {k: tok[k] * grown for k in tok}
        pages["linear"], blocks["linear"] = max(pages.values()), max(blocks.values())
    pages, blocks = _unify_pages(pages, blocks)
    return _assemble(model, counts, pages, blocks, dtype_bytes, dtype_name)


def _unify_pages(pages: dict[str, int], blocks: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Smaller attention pages grow their block size when the largest page is a multiple, else pad."""
    top = max(pages.values())
    out_p, out_b = dict(pages), dict(blocks)
    for k, page in pages.items():
        if page == top or k == "linear":
            out_p[k] = top
            continue
        if top % page == 0 and k != "mla":
            out_b[k] = blocks[k] * (top // page)
        out_p[k] = top
    return out_p, out_b


def _assemble(model: ModelSpec, counts: dict[str, int], pages: dict[str, int], blocks: dict[str, int],
              dtype_bytes: int, dtype_name: str) -> KvLayout:
    gsize = _group_size(counts)
    groups, padding, warnings = [], 0, []
    for kind, n in counts.items():
        num_groups = cdiv(n, gsize) if len(counts) > 1 else 1
        pad = num_groups * gsize - n if len(counts) > 1 else 0
        if pad:
            warnings.append(f"Add {pad} padding layers, may waste at most {pad / n * 100:.2f}% KV cache memory")
        padding += pad
        base, extra = divmod(n, num_groups)
        for i in range(num_groups):
            groups.append(KvGroup(kind=kind, num_layers=base + (1 if i < extra else 0),
                                  page_bytes=Bytes(pages[kind]), block_size=blocks[kind],
                                  window=model.sliding_window if kind == "sliding" else None))
    if len(counts) == 1:
        per_block = Bytes(sum(pages[k] * n for k, n in counts.items()))
    else:
        per_block = Bytes(gsize * max(pages.values()))
    return KvLayout(groups=tuple(groups), group_size=gsize, padding_layers=padding, bytes_per_block=per_block,
                    block_size=min(blocks.values()), dtype_bytes=dtype_bytes, element_dtype=dtype_name,
                    warnings=tuple(warnings))
