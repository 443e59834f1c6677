"""Mixtral's expert-parallel MoE of vLLM 0.2.5–0.3.0 and the AWQ split-K temporary before 0.3.0 (helper old02,
2026-12-05, session 15).

Expert-parallel MoE.  ``model_executor/models/mixtral.py`` ``MixtralMoE`` of the vllm 0.2.5, 0.2.6 and 0.2.7 wheels
(and ``mixtral_quant.py``, the same classes, which the 0.3.0 wheel's ``model_loader.py`` picks for a quantized
Mixtral; its unquantized Mixtral runs ``layers/fused_moe.py``) gives each tensor-parallel rank whole experts
(``np.array_split(range(num_local_experts), tp)[rank]``: ceil(E / tp) on rank 0) and runs every local expert's
``MixtralMLP`` on all T tokens with full-width ``ReplicatedLinear`` layers: ``w1`` (T × I), ``nn.SiLU`` out of
place (T × I), ``w3`` (T × I), their product (T × I), ``w2`` (T × H), scaled in place and added into the first
expert's output; ``w1_out`` and ``w3_out`` stay bound until ``forward`` returns.  The 0.2.4 wheel's Mixtral is
Megablocks' ``BlockSparseMoE`` (not this rule); 0.3.0's unquantized one and later releases are not covered (later
``mixtral_quant.py`` not read).

AWQ split-K.  ``layers/quantization/awq.py`` ``AWQLinearMethod.apply_weights`` of the 0.2.3–0.2.7 wheels calls
``ops.awq_gemm(x, qweight, scales, qzeros, pack_factor)`` for every token count; the kernel
(``csrc/quantization/awq/gemm_kernels.cu`` ``awq_gemm``) allocates its partial sums as
``torch::empty({split_k_iters, M, N})`` in the activation dtype and returns their ``sum(0)`` (M × N), so each call
holds split_k_iters = pack_factor = 8 (4-bit) copies of its output.  The 0.3.0 wheel's ``apply_weights``
dequantises the weight and runs ``torch.matmul`` from 256 tokens (``FP16_MATMUL_HEURISTIC_CONDITION``), so the
temporary ends at 0.3.0 for the profile's token counts.  Only the Mixtral replay below charges it; the dense
layers' replay (``v0_reserved``) does not (no dense AWQ case before 0.3.0 in the corpus to check it against).

The split-K sum (helper old03, 2026-12-05, session 16).  ``_out_feats.sum(0)`` of fp16 partial sums runs PyTorch's
``gpu_reduce_kernel<at::Half, at::Half>`` with ``sum_functor<at::Half, float, at::Half>`` (the instantiation named
in the torch 2.1.2 wheel's ``libtorch_cuda.so``).  In ``aten/src/ATen/native/cuda/Reduce.cuh`` of torch 2.1.1 and
2.1.2 (the wheels' headers, identical; vllm 0.2.5 asks torch >= 2.1.1, 0.2.6 / 0.2.7 / 0.3.0 pin 2.1.2) a Half-in,
Half-out reduction may not accumulate in its output (``is_inp_out_type_half_or_chalf``); when the iterator cannot
use 32-bit indexing (``TensorIteratorBase::can_use_32bit_indexing`` in ``aten/src/ATen/TensorIterator.cpp``, the
same in every stored pytorch version read, search-index id 42011924: numel or an operand's largest byte offset,
1 + Σ (size − 1) × stride bytes, above 2^31 − 1) it splits the reduction and allocates an ``AccumulationBuffer`` of
output numel × sizeof(float) through ``c10::cuda::CUDACachingAllocator``, held until the sum returns.  For the
[8, M, N] fp16 partial sums that is M × N > 2^27: w1 / w3 (N = I = 14,336) at T 32,768 get a 1.75 GiB buffer; w2
and o_proj (N = 4,096: offset exactly 2^31 − 1) and qkv do not.  The replay allocates it after the sum's output
and frees it before the partial sums.

The forward is replayed through ``v0_reserved``'s best-fit allocator (attention as there, with the split-K buffer
of ``qkv_proj`` and ``o_proj``; the router's T × E tensors not replayed): the MoE phase is the replay's allocated
peak, and the reserved memory beyond it is what 0.2.5–0.3.0's total − free after the profile also charges
(``v0_reserved`` module docstring).  Evidence: vp_676 (Mixtral-8x7B-Instruct-v0.1-AWQ, tp 2, 0.2.7, T 32,768)
prints 6,487 blocks, ~33.3 GiB per rank outside the KV cache.
"""

from __future__ import annotations

from tpkit.engines.vllm.v0_reserved import _Allocator
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, gib_text

__all__ = ["AWQ_SPLIT_K_BEFORE", "EXPERT_PARALLEL_FROM", "EXPERT_PARALLEL_QUANT_LAST", "EXPERT_PARALLEL_UNQUANT_BEFORE",
           "INT32_MAX", "applies", "awq_split_k", "expert_parallel", "replay", "reserved_over_peak",
           "split_k_accumulation_bytes", "with_expert_parallel_moe"]

EXPERT_PARALLEL_FROM = (0, 2, 5)
"""first release whose ``mixtral.py`` gives each rank whole experts (0.2.4: Megablocks ``BlockSparseMoE``)"""
EXPERT_PARALLEL_UNQUANT_BEFORE = (0, 3, 0)
"""first release whose unquantized Mixtral runs ``fused_moe`` (0.3.0 wheel)"""
EXPERT_PARALLEL_QUANT_LAST = (0, 3, 0)
"""last release read whose quantized Mixtral runs ``mixtral_quant.py`` (later releases not read: not charged)"""
AWQ_SPLIT_K_BEFORE = (0, 3, 0)
"""first release whose AWQ ``apply_weights`` dequantises and matmuls from 256 tokens"""
AWQ_PACK_FACTOR = 8
"""``AWQConfig.pack_factor`` = 32 // 4 bits, passed as ``split_k_iters``"""
INT32_MAX = 2**31 - 1
"""PyTorch ``TensorIteratorBase::can_use_32bit_indexing``: numel and every operand's largest byte offset ≤ this"""
HALF_BYTES = 2
"""the AWQ kernel's activation dtype (fp16; ``AWQConfig.get_supported_act_dtypes``)"""
SUM_ACC_BYTES = 4
"""``sum_functor<at::Half, float, at::Half>``: fp32 accumulation type of a half ``sum``"""


def _quantized(model: ModelSpec, flag: str | None) -> bool:
    return model.quant is not None or bool(flag)


def expert_parallel(model: ModelSpec, *, release: tuple[int, ...], engine: str, flag: str | None) -> bool:
    """Whether the V0 run of ``release`` runs ``model``'s MoE as the expert-parallel loop (module docstring)."""
    if engine != "V0" or model.moe is None or model.architecture != "MixtralForCausalLM":
        return False
    release = tuple(release)[:3]
    if EXPERT_PARALLEL_FROM <= release < EXPERT_PARALLEL_UNQUANT_BEFORE:
        return True
    return _quantized(model, flag) and release == EXPERT_PARALLEL_QUANT_LAST


def awq_split_k(model: ModelSpec, *, release: tuple[int, ...], flag: str | None) -> int:
    """split_k_iters of every AWQ GEMM of ``release`` (8), or 0 where the run holds no split-K temporary."""
    method = (flag or (model.quant.raw_method if model.quant is not None else "") or "").lower()
    if method != "awq" or tuple(release)[:3] >= AWQ_SPLIT_K_BEFORE:
        return 0
    return AWQ_PACK_FACTOR


def split_k_accumulation_bytes(*, split_k: int, tokens: int, width: int, act_bytes: int) -> int:
    """Bytes of the fp32 ``AccumulationBuffer`` that PyTorch 2.1.x allocates for the AWQ kernel's ``sum(0)`` over
    its [split_k, tokens, width] fp16 partial sums, or 0 (module docstring, "The split-K sum")."""
    if not split_k or act_bytes != HALF_BYTES:
        return 0
    numel = split_k * tokens * width
    max_offset = 1 + (numel - 1) * act_bytes  # contiguous input: 1 + sum((shape - 1) * stride_bytes)
    if numel <= INT32_MAX and max_offset <= INT32_MAX:
        return 0  # the reduction runs with 32-bit indexing and accumulates in registers
    return tokens * width * SUM_ACC_BYTES


def _experts(alloc: "_Allocator", gemm, *, layer: int, local: int, tokens: int, inter: int, hidden: int,
             act_bytes: int) -> str | None:
    """One layer's ``local`` whole experts run one after another on all ``tokens`` (``replay``): w1, its activation,
    w3, the product, w2; each expert's tensors freed but the first expert's w2 output, which the layer's sum keeps
    (its name is returned)."""
    final = None
    for e in range(local):
        p = f"l{layer}e{e}"
        gemm(inter, p + "w1")
        alloc.malloc(tokens * inter * act_bytes, p + "act")
        alloc.free(p + "w1")
        gemm(inter, p + "w3")
        alloc.malloc(tokens * inter * act_bytes, p + "prod")
        gemm(hidden, p + "w2")
        for name in ("prod", "act", "w3"):
            alloc.free(p + name)
        if final is None:
            final = p + "w2"
        else:
            alloc.free(p + "w2")
    return final


def replay(model: ModelSpec, *, tp: int, tokens: int, act_bytes: int, split_k: int) -> tuple[int, int, str]:
    """(allocated peak, reserved, the formula) in bytes per rank of the expert-parallel eager forward of ``tokens``
    tokens (module docstring); ``split_k``: ``awq_split_k``."""
    h, inter = model.hidden_size, model.moe.moe_intermediate_size
    heads = max(1, model.num_attention_heads // tp)
    kv = max(1, model.num_kv_heads // tp)
    qkv = (heads + 2 * kv) * model.head_dim
    out = heads * model.v_head_dim
    local = -(-model.moe.num_experts // tp)
    t, a = tokens, act_bytes
    alloc = _Allocator()

    def gemm(width: int, name: str) -> None:
        if split_k:
            alloc.malloc(split_k * t * width * a, name + "_sk")
        alloc.malloc(t * width * a, name)
        acc = split_k_accumulation_bytes(split_k=split_k, tokens=t, width=width, act_bytes=a)
        if acc:  # the sum's fp32 AccumulationBuffer, after its output, freed before the partial sums
            alloc.malloc(acc, name + "_acc")
            alloc.free(name + "_acc")
        if split_k:
            alloc.free(name + "_sk")

    alloc.malloc(t * h * a, "embed")
    held = None
    for layer in range(min(model.num_layers, 3)):  # the segments settle after the first layers
        if layer == 0:
            alloc.malloc(t * h * a, "norm0")
        gemm(qkv, f"qkv{layer}")
        alloc.malloc(t * out * a, f"attn{layer}")
        gemm(h, f"o{layer}")
        alloc.free(f"qkv{layer}")
        alloc.free(f"attn{layer}")
        if layer == 0:
            alloc.free("norm0")
        final = _experts(alloc, gemm, layer=layer, local=local, tokens=t, inter=inter, hidden=h, act_bytes=a)
        alloc.free(f"o{layer}")
        if held is not None:
            alloc.free(held)
        held = final
    how = (f"expert-parallel Mixtral replayed through a best-fit caching allocator: {local} whole experts per rank "
           f"on all T {tokens:,} tokens, w1/w3 {inter:,} and w2 {h:,} wide"
           + (f", each AWQ GEMM with its [{split_k}, T, N] split-K partial sums (and their sum's fp32 accumulation "
              "buffer where they pass int32 indexing)" if split_k else "")
           + f" × {act_bytes} B: allocated peak {gib_text(Bytes(alloc.peak_bytes))}, reserved "
             f"{gib_text(Bytes(alloc.reserved_bytes()))} (engines/vllm/mixtral_v0.py)")
    return alloc.peak_bytes, alloc.reserved_bytes(), how


def applies(model: ModelSpec, options_quantization: str | None, *, release: tuple[int, ...], engine: str) -> bool:
    """Whether the plan replaces the MoE phase with the replay (``expert_parallel``)."""
    return expert_parallel(model, release=release, engine=engine, flag=options_quantization)


def with_expert_parallel_moe(act, model: ModelSpec, *, tp: int, tokens: int, act_bytes: int, split_k: int):
    """``act`` (``profile.ActivationEstimate`` of a V0 run with the expert-parallel Mixtral) with its MoE phase
    replaced by the replay's allocated peak, and the peak taken again."""
    from dataclasses import replace

    peak, _, how = replay(model, tp=tp, tokens=tokens, act_bytes=act_bytes, split_k=split_k)
    parts = tuple(replace(part, bytes=Bytes(peak), source=f"estimate: {how}")
                  if part.item == "profile phase: MoE layer" else part for part in act.parts)
    top = max(parts, key=lambda part: part.bytes)
    return replace(act, peak=top.bytes, parts=parts, limiting_phase=top.item.removeprefix("profile phase: "))


def reserved_over_peak(model: ModelSpec, *, tp: int, tokens: int, act_bytes: int, split_k: int) -> tuple[int, str]:
    """(reserved − allocated peak in bytes per rank, the formula) of the replay, for ``profile_lines``'
    0.2.5–0.3.0 total − free reading (``v0_reserved.RESERVED_RELEASES``)."""
    peak, reserved, how = replay(model, tp=tp, tokens=tokens, act_bytes=act_bytes, split_k=split_k)
    return max(0, reserved - peak), how
