"""How an implementation lays out one decoder layer in kernels (the part of the cost that is not bytes).

The byte and FLOP counts of a forward pass are fixed by the model; the number of small kernels around
the GEMMs, whether attention splits the KV cache over blocks and how well the expert GEMMs stream are
properties of the code that runs it.  Three profiles:

    reference   bench/decode_reference.py (plain torch ops under a CUDA graph), counted from its own
                code and checked against torch.profiler: 839 kernels per Llama-3.1-8B step, 2,600 per
                Qwen3-30B-A3B step (docs/runs/decode_h200_2026-12-01.json)
    sglang      SGLang decode under CUDA graphs: fused add+RMSNorm, one rotary kernel, KV store,
                FlashInfer split-KV decode + merge, SiluAndMul, fused_moe (sglang 0.5.23 models/llama.py
                LlamaAttention.forward / LlamaMLP.forward, layers/moe); counts approximate
    vllm        vLLM V1 decode under CUDA graphs: the same layout with reshape_and_cache and
                FlashAttention/FlashInfer; counts approximate
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import is_nvidia
from tpkit.perf.constants import C
from tpkit.records import dataclass

__all__ = ["ImplProfile", "IMPLS", "grouped_mm_notes", "impl_profile", "impl_for", "sglang_router_kernels"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ImplProfile:
    """Kernel layout of one implementation."""

    name: str
    """``reference``, ``sglang`` or ``vllm``"""
    attn_small_kernels: int
    """non-GEMM kernels of an attention block (norm, rope, KV store, merge …; count)"""
    mlp_small_kernels: int
    """non-GEMM kernels of a dense MLP block (norm, activation …; count)"""
    moe_small_kernels: int
    """non-GEMM kernels of a MoE block (norm, top-k, sort/align, activation, combine; count)"""
    qk_norm_kernels: int
    """extra kernels for per-head q/k RMSNorm (Qwen3, Gemma 3; count)"""
    mla_small_kernels: int
    """extra non-GEMM kernels of an MLA attention block (latent norms, rope, concat; count)"""
    global_small_kernels: int
    """embedding, final norm, sampling (count per forward)"""
    grouped_efficiency: float | None
    """expert GEMMs stream weights at this fraction of the dense-GEMM bandwidth; None: torch._grouped_mm's, measured
    per GPU (``DeviceRates.grouped_mm``)"""
    grouped_overhead_us: float | None
    """fixed µs per grouped expert GEMM launch; None: torch._grouped_mm's, per GPU"""
    split_kv: bool
    """attention splits each sequence's KV over several blocks (FlashInfer/FA decode); False: one block per
    (sequence, KV head), which caps a small batch's attention bandwidth"""
    source: str
    """where the counts come from"""
    release: tuple[int, int, int] | None = None
    """the engine release the passes run on, where a kernel's bytes depend on it (vLLM: the GDN state dtype,
    ``perf.gdn_state``); None: not release-dependent (``reference``, SGLang)"""


_SGLANG = ImplProfile(
    name="sglang", attn_small_kernels=4, mlp_small_kernels=2, moe_small_kernels=6, qk_norm_kernels=2,
    mla_small_kernels=5, global_small_kernels=5, split_kv=True,
    grouped_efficiency=C["engine_moe_efficiency"].value, grouped_overhead_us=C["gemm_overhead_us"].value,
    source="sglang 0.5.23 models/llama.py (qkv_proj, rotary_emb, attn, o_proj; gate_up_proj, act_fn, down_proj) "
           "with fused add+RMSNorm, FlashInfer KV store + split-KV decode + merge, fused_moe (top-k, align, "
           "2 GEMMs, SiluAndMul, moe_sum); approximate")

IMPLS = {
    "reference": ImplProfile(
        name="reference", attn_small_kernels=16, mlp_small_kernels=5, moe_small_kernels=30, qk_norm_kernels=2,
        mla_small_kernels=6, global_small_kernels=6, split_kv=False,
        grouped_efficiency=None, grouped_overhead_us=None,   # torch._grouped_mm, per GPU (constants.GROUPED_MM_BY_GPU)
        source="counted in bench/decode_reference.py (add, RMSNorm, 10 RoPE ops, 2 KV copies, memset, split-K reduce "
               "per attention block; add, RMSNorm, SiLU, mul, split-K reduce per MLP; routing/sort/gather/combine per "
               "MoE) and checked with torch.profiler: 21 small + 5 GEMM/attention kernels per Llama layer"),
    "sglang": _SGLANG,
    "vllm": replace(  # the same kernel counts and expert-GEMM terms as SGLang's layout
        _SGLANG, name="vllm",
        source="vLLM V1 decoder layout (fused add+RMSNorm, rotary, reshape_and_cache, split-KV attention, "
               "SiluAndMul, fused_moe); approximate"),
}
"""name → profile"""


def impl_profile(name: str) -> ImplProfile:
    """The profile called ``name`` (``reference``, ``sglang``, ``vllm``)."""
    try:
        return IMPLS[name]
    except KeyError:
        raise PlanInputError(f"unknown implementation {name!r}; use one of {', '.join(IMPLS)}") from None


def impl_for(req) -> ImplProfile:
    """The profile a ``PerfRequest`` runs: ``req.impl`` or the engine's, with SGLang's kernels that depend on the
    release and the model (``sglang_router_kernels``: the unfused MoE router of some releases and models); vLLM's
    profile carries its release (``ImplProfile.release``)."""
    profile = impl_profile(req.impl or req.engine)
    if profile.name == "vllm" and req.engine == "vllm":
        from tpkit.perf.runtime import parse_version
        return replace(profile, release=parse_version(req.engine_version, "vllm")[0])
    if profile.name != "sglang" or req.engine != "sglang":
        return profile
    extra, why = sglang_router_kernels(req.model, req.engine_version, vendor=req.gpu.vendor)
    if not extra:
        return profile
    return replace(profile, moe_small_kernels=profile.moe_small_kernels + extra, source=f"{profile.source}; {why}")


def grouped_mm_notes(impl: ImplProfile, dev) -> list[str]:
    """The output's line on the expert GEMMs when ``impl`` runs ``torch._grouped_mm`` (the ``reference`` layout): the
    line used on ``dev`` (a ``DeviceRates``), measured on that GPU or carried over from another with its band."""
    own = dev.grouped_mm
    if impl.grouped_efficiency is not None or own is None:
        return []
    where = (f"measured on {own.measured_on}" if own.measured else f"measured on {own.measured_on}, assumed for "
             f"{dev.name} (band {own.band[0]:.2f}–{own.band[1]:.2f} over the GPUs measured)")
    return [f"expert GEMMs (torch._grouped_mm): {own.efficiency} of the copy rate + {own.overhead_us} µs a launch, "
            f"{where}"]


def sglang_router_kernels(model, version: str | None, *, vendor: str = "NVIDIA") -> tuple[int, str]:
    """(extra small kernels per MoE layer, why) for ``model`` on SGLang ``version`` (None: the newest examined):
    ``perf.runtime_sglang.router_extra_kernels`` for a model with grouped routing (``n_group``) and a score-correction
    bias on an NVIDIA GPU; (0, "") otherwise."""
    import re

    from tpkit.perf.runtime import parse_version
    from tpkit.perf.runtime_sglang import router_extra_kernels

    base, given = parse_version(version, "sglang")   # the perf command's own error for an unreadable version
    groups = model.extra.get("n_group")
    if model.moe is None or not is_nvidia(vendor) or not model.extra.get("score_correction_bias") or not groups:
        return 0, ""
    post = re.search(r"post(\d+)", version) if given else None
    return router_extra_kernels(num_experts=model.moe.num_experts, n_group=int(groups),
                                release=(*base, int(post.group(1)) if post else 0),
                                label=version if given else ".".join(map(str, base)))
