"""KV heads per rank (pure): the one engine rule the models layer owns."""

from __future__ import annotations

from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec

__all__ = ["kv_heads_per_rank"]


def kv_heads_per_rank(spec: ModelSpec, attn_tp_size: int, kind: str = "sliding") -> int:
    """KV heads one attention-TP rank stores in a layer of ``kind``: ``max(1, total_kv_heads // attn_tp)``
    (``ModelSpec.kv_heads``: Gemma 4's full layers may have their own count; other models one count).

    With more ranks than KV heads each head is replicated (SGLang/vLLM ``get_num_kv_heads``).
    MLA caches one latent per token, so it is 1 whatever the TP size.
    """
    if isinstance(attn_tp_size, bool) or not isinstance(attn_tp_size, int) or attn_tp_size < 1:
        raise PlanInputError(f"attention TP size must be a whole number ≥ 1, got {attn_tp_size!r}")
    if spec.mla is not None:
        return 1
    return max(1, spec.kv_heads(kind) // attn_tp_size)
