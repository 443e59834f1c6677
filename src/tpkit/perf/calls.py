"""Collective calls of one forward pass, counted from the model's structure (pure).

Megatron-style tensor parallelism (Shoeybi et al., arXiv:1909.08053, Fig. 3; SGLang/vLLM RowParallelLinear):

    per decoder layer   1 all-reduce after the attention output projection (row-parallel o_proj)
                        1 all-reduce after the MLP / MoE output (row-parallel down_proj; SGLang adds the
                          shared experts' output before it, so a DeepSeek/Kimi MoE layer still costs one)
    embedding           1 all-reduce (vocab-parallel embedding: each rank fills its rows, the rest are 0)
    lm_head             1 all-gather of the logits (vocab-parallel lm_head)
    DP attention        (SGLang --enable-dp-attention) attention runs on tp/dp ranks per group: its
                        all-reduce spans the attention-TP group only, and the MLP/MoE is bracketed by an
                        all-gather of every group's tokens and a reduce-scatter back (costed as all-gathers)

Message size = tokens × hidden × 2 bytes (bf16 activations).
"""

from __future__ import annotations

from tpkit.records import dataclass

__all__ = ["Collective", "collective_calls"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Collective:
    """Calls of one kind and size per forward."""

    op: str
    """``all_reduce`` or ``all_gather``"""
    group: str
    """``tp`` (the whole TP group) or ``attn_tp`` (DP attention's attention group)"""
    nbytes: float
    """bytes of one call's message (the gathered size for all-gather)"""
    count: int
    """calls per forward (count)"""
    what: str
    """which layer outputs these are"""


def collective_calls(*, num_layers: int, hidden: int, vocab_per_rank: int, tokens: int, tp: int,
                     dp_attention: int = 1, act_bytes: int = 2, logit_bytes: int = 2,
                     logit_tokens: int = 0) -> list[Collective]:
    """The collectives of one forward of ``tokens`` tokens on a TP group of ``tp`` ranks; the logits are gathered
    on ``logit_tokens`` rows (0 = every token)."""
    if tp == 1:
        return []
    msg = float(tokens * hidden * act_bytes)
    calls = [Collective(op="all_reduce", group="tp", nbytes=msg, count=1, what="vocab-parallel embedding"),
             Collective(op="all_gather", group="tp", nbytes=float((logit_tokens or tokens) * vocab_per_rank * tp * logit_bytes), count=1,
                        what="lm_head logits")]
    if dp_attention <= 1:
        calls.append(Collective(op="all_reduce", group="tp", nbytes=msg, count=2 * num_layers,
                                what="attention o_proj + MLP/MoE down_proj, 2 per layer"))
        return calls
    attn_tp = tp // dp_attention
    local = float(-(-tokens // dp_attention) * hidden * act_bytes)
    if attn_tp > 1:
        calls.append(Collective(op="all_reduce", group="attn_tp", nbytes=local, count=num_layers,
                                what="attention o_proj inside each DP-attention group"))
    calls.append(Collective(op="all_gather", group="tp", nbytes=msg, count=2 * num_layers,
                            what="DP attention: gather tokens before the MLP/MoE, scatter after (2 per layer)"))
    return calls
