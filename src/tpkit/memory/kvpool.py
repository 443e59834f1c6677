"""The KV-cache pool as a frozen plan: sized by a pure function, allocated by ``runtime``.

A plan lists every buffer the engine would allocate on one rank (per layer K and V, or
the MLA latent), with its shape and element size, so that ``runtime.kv_alloc.allocate_kv_pool`` can
create exactly these tensors and nothing else decides a size.
"""

from __future__ import annotations

from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["KVBuffer", "KVPoolPlan"]


@dataclass(frozen=True, kw_only=True, slots=True)
class KVBuffer:
    """One group of identical device buffers (e.g. the K buffer of each of 32 layers)."""

    name: str
    """e.g. ``"k"``, ``"v"``, ``"latent"``, ``"swa_k"``"""
    count: int
    """how many identical buffers (usually the number of layers)"""
    shape: tuple[int, ...]
    """shape of one buffer in elements (first dim: token rows incl. padding)"""
    element_bytes: int
    """bytes per element (2 for bf16, 1 for fp8)"""

    @property
    def bytes_each(self) -> Bytes:
        n = 1
        for d in self.shape:
            n *= d
        return Bytes(n * self.element_bytes)

    @property
    def total_bytes(self) -> Bytes:
        return self.bytes_each * self.count

    def to_dict(self) -> dict:
        return {
            "name": self.name, "count": self.count, "shape": list(self.shape),
            "element_bytes": self.element_bytes, "total_bytes": self.total_bytes.bytes,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class KVPoolPlan:
    """The KV pool of one rank, as the engine lays it out."""

    num_tokens: int
    """usable token slots (what the engine prints as #tokens), per rank"""
    padded_tokens: int
    """rows actually allocated per buffer (num_tokens + padding page)"""
    cell_bytes: Bytes
    """bytes per token per rank summed over all layers (the engine's cell size)"""
    buffers: tuple[KVBuffer, ...]
    """every buffer to allocate"""
    page_size: int = 1
    """tokens per page / block"""
    dtype: str = "bfloat16"
    """KV element dtype name (torch spelling)"""

    @property
    def total_bytes(self) -> Bytes:
        return sum((b.total_bytes for b in self.buffers), Bytes(0))

    def to_dict(self) -> dict:
        return {
            "num_tokens": self.num_tokens, "padded_tokens": self.padded_tokens,
            "cell_bytes": self.cell_bytes.bytes, "page_size": self.page_size, "dtype": self.dtype,
            "total_bytes": self.total_bytes.bytes, "buffers": [b.to_dict() for b in self.buffers],
        }
