"""The records of one forward pass's work on one rank (pure data): ``Kernel`` (a kernel or ``count`` identical ones:
bytes, FLOPs, per-block floors), ``Shard`` (how the rank holds the model) and ``Batch`` (the tokens of the pass).
``perf.work`` builds the kernels; ``perf.forward`` times them.  Split from ``work.py`` (helper tidy29)."""

from __future__ import annotations


from tpkit.records import dataclass

__all__ = ["Kernel", "Shard", "Batch", "ACT_BYTES", "GEMV_MAX_TOKENS"]


ACT_BYTES = 2
"""activations are bf16 (bytes per element)"""


GEMV_MAX_TOKENS = 16
"""a GEMM of at most this many tokens carries the K-latency floor (the range measured: M = 1, 4, 16;
docs/runs/gemv_small_m_h200_2026-12-04.json)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Kernel:
    """One kernel (or ``count`` identical ones) of a forward pass on one rank."""

    kind: str
    """``gemm``, ``grouped``, ``attention`` or ``small``"""
    name: str
    """what it computes (``qkv``, ``experts``, ``attention`` …)"""
    bytes: float
    """bytes read + written per launch (B)"""
    flops: float = 0.0
    """floating-point operations per launch (FLOP)"""
    dtype: str = "bf16"
    """tensor-core input type for the FLOP rate: bf16, fp8, fp4, int8"""
    count: int = 1
    """launches per forward"""
    cta_bytes: float = 0.0
    """bytes one block of an attention kernel without split-KV streams by itself (B; 0 = not limited): the
    kernel takes at least cta_bytes / per-block rate however many blocks run side by side; for a ``small`` kernel
    with one block per row (the draft's softmax) the bytes of one row, at ``C["row_block_gbps"]``"""
    cta_row_bytes: float = 0.0
    """bytes of one cached token that block reads per step (B; 0 = the calibration row): a latency-bound
    block streams faster when each token's row is wider"""
    cta_flops: float = 0.0
    """FLOPs that one such block computes by itself (0 = no floor): at least cta_flops / one SM's tensor rate"""
    row_bytes: float = 0.0
    """bytes one decode row of a split-KV MLA kernel streams (vLLM TRITON_MLA, ``perf.mla_splits``; 0 = no floor):
    the kernel takes at least row_bytes / ``triton_mla_row_gbps``"""
    latency_k: int = 0
    """reduction length K (elements) of a weight-streaming GEMM run at ≤ ``GEMV_MAX_TOKENS`` tokens, whose time
    has a latency floor that grows with K (``forward.kernel_us``); 0 = no such floor"""
    bw_fraction: float = 1.0
    """fraction of the device's effective memory bandwidth a ``small`` kernel streams its bytes at (1 = the copy
    rate; below 1 for the draft's sampling kernels over the draft vocab, measured: ``perf.draft_terms``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Shard:
    """How one rank holds the model."""

    tp: int = 1
    """tensor-parallel size (count)"""
    ep: int = 1
    """expert-parallel size (count); 1 = experts split by TP"""
    attn_tp: int | None = None
    """attention tensor-parallel size (tp / dp under DP attention); None = tp"""

    @property
    def attention_tp(self) -> int:
        return self.attn_tp or self.tp


@dataclass(frozen=True, kw_only=True, slots=True)
class Batch:
    """The tokens of one forward pass."""

    sequences: int
    """sequences in the batch (count)"""
    tokens_per_sequence: int = 1
    """new tokens per sequence: 1 for decode, the draft tokens for a verify pass (count)"""
    context: int = 0
    """tokens already in each sequence's KV cache (count)"""
    dp: int = 1
    """data-parallel attention groups the sequences are spread over (count)"""
    padded: int = 0
    """rows a CUDA graph of a larger captured batch adds (``perf.graphs``): they run the GEMMs, the experts and the
    collectives, not the attention (SGLang fills their sequence lengths with 1) (count)"""
    logit_rows: int = 0
    """rows the lm_head and the sampling run on; 0 = every token (``perf.spec.sglang_extend_logit_rows``) (count)"""
    verify: bool = False  # a speculative verify pass: linear-attention layers keep a state per token (perf.linear_state)

    @property
    def tokens(self) -> int:
        return (self.sequences + self.padded) * self.tokens_per_sequence

    @property
    def logit_tokens(self) -> int:
        """rows of the lm_head: ``logit_rows`` when set, else every token"""
        return self.logit_rows or self.tokens
