"""The profile run's activation peak, estimated analytically (spec §1.5).

vLLM measures this peak by running one dummy forward pass of ``max_num_batched_tokens`` tokens (T) spread
over ``R = min(T, max_num_seqs)`` requests, then the sampler on one row per request.  tpkit cannot run it,
so every term below is an ESTIMATE of the tensors alive at the peak of one rank (a = activation bytes,
H = hidden, I = MLP width, k = experts per token, V = vocabulary):

    dense MLP   T × (3H + 3·I/tp) × a        residual, MLP input, gate_up (2I), act (I), down output (H)
    attention   T × (3H + (q + 2·kv + q)·d/tp) × a
    MoE layer   T·2H·a + M·2H·a + C·k·(max(2N, H) + N)·a (+ fp8 copies) + M·E·4,   M = T × dp with DP+EP
                (tokens gathered for the experts), C = min(M, 32768) fused-MoE chunk, N = expert width/rank
    sampler     T·H·a + R × V × 38 B         at the top-k/top-p peak of the dummy sampler run (top_k = V − 1,
                                             top_p = 0.9): logits bf16 (2) and fp32 (4), sorted values (4) and
                                             int64 indices (8) plus the sort's own scratch, softmax/cumsum (4),
                                             two bool masks, the re-scattered logits (4).  38 B is MEASURED:
                                             tests/engines/test_vllm_gpu.py replays that op sequence on an H200
                                             (torch 2.11: 38.0 B/logit at 1024 × 151,936, 1024 × 128,256 and
                                             256 × 128,256).  It is vLLM's PyTorch-native sampler; the FlashInfer
                                             sampler (when installed) needs less.

The peak is the larger of the forward pass and the sampler (the forward's intermediates are freed first).
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["ActivationEstimate", "estimate_profile_peak", "FUSED_MOE_CHUNK", "SAMPLER_BYTES_PER_LOGIT"]

FUSED_MOE_CHUNK = 32_768
"""VLLM_FUSED_MOE_CHUNK_SIZE default (tokens per fused-MoE chunk)"""
SAMPLER_BYTES_PER_LOGIT = 38
"""bytes alive per (row, vocab) element at the sampler's top-k/top-p peak (measured on H200, see module doc)"""
_FP8 = {"fp8", "fbgemm_fp8", "fp8_e4m3", "compressed-tensors-fp8"}


@dataclass(frozen=True, kw_only=True, slots=True)
class ActivationEstimate:
    """The profile-run peak above the weights, with its parts."""

    peak: Bytes
    """max(forward phase, sampler phase), bytes per rank"""
    parts: tuple[LineItem, ...]
    """each phase as an ``info`` line with its formula"""
    limiting_phase: str


def _dense_mlp(model: ModelSpec, tp: int, tokens: int, a: int) -> tuple[Bytes, str]:
    width = model.intermediate_size // tp
    per_token = (3 * model.hidden_size + 3 * width) * a
    return Bytes(tokens * per_token), f"T {tokens:,} × (3H + 3·I/tp = {3 * model.hidden_size + 3 * width:,}) × {a} B"


def _attention(model: ModelSpec, tp: int, tokens: int, a: int) -> tuple[Bytes, str]:
    heads = max(1, model.num_attention_heads // tp)
    if model.mla is not None:
        m = model.mla
        width = heads * (m.qk_nope_head_dim + m.qk_rope_head_dim) + m.kv_lora_rank + m.qk_rope_head_dim
        width += heads * (m.qk_nope_head_dim + m.v_head_dim) + heads * m.v_head_dim
    else:
        kv = max(1, model.num_kv_heads // tp)
        width = (2 * heads + kv) * model.head_dim + kv * model.v_head_dim
    per_token = (3 * model.hidden_size + width) * a
    return Bytes(tokens * per_token), f"T {tokens:,} × (3H + q/k/v/out widths = {per_token // a:,}) × {a} B"


def _moe(model: ModelSpec, parallel: ParallelSpec, tokens: int, a: int) -> tuple[Bytes, str]:
    moe = model.moe
    gathered = tokens * parallel.dp if (parallel.dp > 1 and parallel.ep > 1) else tokens
    width = moe.moe_intermediate_size if parallel.ep > 1 else moe.moe_intermediate_size // parallel.tp
    chunk = min(gathered, FUSED_MOE_CHUNK)
    k, h = moe.experts_per_token, model.hidden_size
    fused = chunk * k * (max(2 * width, h) + width) * a
    fp8 = chunk * (h + k * width) if (model.quant and model.quant.method in _FP8) else 0
    router = gathered * moe.num_experts * 4
    total = 2 * tokens * h * a + 2 * gathered * h * a + fused + fp8 + router
    return Bytes(total), (f"fused MoE: M {gathered:,} tokens (chunk {chunk:,}) × k {k} × "
                          f"(max(2N, H) + N), N {width:,}; + hidden/residual/router rows")


def _sampler(model: ModelSpec, tokens: int, rows: int, a: int) -> tuple[Bytes, str]:
    total = tokens * model.hidden_size * a + rows * model.vocab_size * SAMPLER_BYTES_PER_LOGIT
    return Bytes(total), (f"R {rows:,} rows × V {model.vocab_size:,} × {SAMPLER_BYTES_PER_LOGIT} B "
                          f"+ hidden T × H × {a} B")


def estimate_profile_peak(model: ModelSpec, parallel: ParallelSpec, *, tokens: int, rows: int,
                          act_bytes: int) -> ActivationEstimate:
    """Estimated torch-allocated peak of the profile run above what stays allocated (per rank)."""
    phases: dict[str, tuple[Bytes, str]] = {"attention": _attention(model, parallel.tp, tokens, act_bytes)}
    if model.moe is None or model.moe.num_dense_layers > 0:
        phases["dense MLP"] = _dense_mlp(model, parallel.tp, tokens, act_bytes)
    if model.moe is not None:
        phases["MoE layer"] = _moe(model, parallel, tokens, act_bytes)
    phases["logits + sampler"] = _sampler(model, tokens, rows, act_bytes)
    name = max(phases, key=lambda p: phases[p][0])
    parts = tuple(LineItem(item=f"profile phase: {p}", bytes=b, kind="info", source=f"estimate: {f}")
                  for p, (b, f) in phases.items())
    return ActivationEstimate(peak=phases[name][0], parts=parts, limiting_phase=name)
