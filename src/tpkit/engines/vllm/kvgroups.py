"""The KV-cache layout's data, as vLLM groups it: ``KvGroup`` (layers of one kind sharing a block table, and the
blocks one request holds in it: ``max_memory_usage_bytes`` of vLLM 0.33 ``v1/kv_cache_interface.py``), ``KvLayout``
(every group of the limiting rank and the bytes one block costs across them, the drafter's share) and ``DraftKv``
(the KV layers a speculative drafter registers).  ``pages.build_layout`` fills them.
"""

from __future__ import annotations

from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["KvGroup", "KvLayout", "DraftKv", "cdiv"]


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
