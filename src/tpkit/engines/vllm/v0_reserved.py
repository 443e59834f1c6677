"""The caching allocator's reserved-but-free segments that V0 0.2.5–0.6.3 charge as profile peak (helper v04,
2026-12-05, session 14).

``worker/worker.py determine_num_available_blocks`` (vllm 0.3.1, 0.4.2, 0.5.4, 0.6.3 wheels; ``profile_num_
available_blocks`` in 0.2.5–0.3.0, ``engines/vllm/versions.py``) runs ``profile_run``, then
``torch.cuda.synchronize()`` and ``torch.cuda.mem_get_info()`` with no ``empty_cache`` in between:
``peak_memory = init_gpu_memory − free`` (0.3.1–0.6.3; total − free before).  So the peak is what PyTorch's caching
allocator holds from the device after the profile forward (reserved), not the largest sum of live tensors
(allocated).  The 0.6.4 wheel calls ``torch.cuda.empty_cache()`` before it reads total − free and takes the torch
peak from ``memory_stats()["allocated_bytes.all.peak"]``, so the term ends at 0.6.3.

Why reserved exceeds allocated in the eager forward: the allocator (c10 ``CUDACachingAllocator``, large pool) serves
a request from the smallest cached free block that is large enough, splits it when more than 1 MiB is left, and
merges free blocks only inside one segment (one cudaMalloc).  The attention phase's temporaries are separate
segments (qkv, the attention output, and the backend's own output that it copies into the attention output); they
are freed before the MLP asks for gate_up (2I), which fits none of them, so gate_up gets a new segment, and the
activation (I) takes part of one of them.  The layer input the loop still holds while ``down_proj`` runs makes the
MLP output alternate between two T × H segments.  After the first two layers every request finds a cached block,
so the reserved memory stays at the first layers' segments.

``reserved_over_peak`` replays that allocation sequence (``LlamaDecoderLayer.forward`` / ``LlamaMLP`` /
``LlamaAttention`` of vllm 0.4.2 ``model_executor/models/llama.py``: the first layer's out-of-place RMSNorm, qkv,
rotary in place, the attention output, o_proj's output all-reduced in place (``communication_op.py
tensor_model_parallel_all_reduce``: ``torch.distributed.all_reduce(input_)``), fused add-RMSNorm in place, gate_up,
act, down) through a best-fit allocator model and returns reserved − allocated at the peak.  The sampler's tensors
(R × V) are small beside T × I at these lengths and fit freed blocks; they are not replayed.

The backend's output copy (``output = torch.empty_like(query)`` and the kernel's own ``out``, copied by
``output[:num_prefill_tokens] = out``): xformers, flash_attn and rocm_flash_attn of 0.4.1–0.6.1 (0.4.1, 0.4.2,
0.5.0, 0.5.4, 0.6.0, 0.6.1 wheels), xformers and rocm_flash_attn of 0.6.2–0.6.3; the flash_attn backend of 0.6.2 /
0.6.3 returns the kernel's output itself (``prefill_output = ...flash_attn_varlen_func(...)``), and 0.3.x / 0.4.0
xformers return ``out.view_as(query)`` (0.3.1, 0.3.3, 0.4.0 wheels).  The flash_attn backend is taken for a CUDA GPU
of compute capability ≥ 8.0 (``attention/selector.py``: xformers below 8.0; ROCm its own backend).

Scope: dense text models with the Llama decoder layer (``v0_forward.LLAMA_MLP_ARCHITECTURES`` and Qwen2, whose
``qwen2.py`` layer allocates the same tensors); MoE, MLA, hybrid, multimodal and other layer files are not replayed
(no term).  vLLM 0.2.5 at tp > 1 is left out (``v0_profile_lines._with_v0_reserved``): its held all-reduced blocks
(``profile.held_allreduce_bytes``) already charge that run's reserved memory.  Evidence: vp_670 (deepseek-coder-6.7b, 0.4.2, two T4, T 65,536) prints 507
blocks; without the term the plan gives 631 (+0.48 GiB per rank); the term is 0.58 GiB.
"""

from __future__ import annotations

from tpkit.engines.vllm.v0_forward import LLAMA_MLP_ARCHITECTURES
from tpkit.models.params import widest_dense_mlp
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, gib_text

__all__ = ["RESERVED_RELEASES", "V0_RESERVED_ARCHITECTURES", "applies", "backend_output_copy", "reserved_over_peak"]

RESERVED_RELEASES = ((0, 2, 5), (0, 6, 4))
"""V0 release range [first, next) whose profile peak is read from the device after the profile run without
``empty_cache`` (module docstring)"""
V0_RESERVED_ARCHITECTURES = LLAMA_MLP_ARCHITECTURES | {"Qwen2ForCausalLM"}
"""architectures whose eager layer the replay follows (module docstring)"""
_COPY_FIRST = (0, 4, 1)
"""first release whose attention backends allocate an output and copy the kernel's ``out`` into it"""
_FLASH_NO_COPY_FROM = (0, 6, 2)
"""first release whose flash_attn backend returns the kernel's output for a prefill-only batch"""
_SPLIT_REST = 1 << 20
"""the large pool splits a block when more than 1 MiB (kSmallSize) would be left"""
_ROUND = 2 << 20
"""requests above 10 MiB are rounded to 2 MiB (``get_allocation_size``, kRoundLarge)"""


def applies(model: ModelSpec, *, release: tuple[int, ...], engine: str) -> bool:
    """Whether the V0 run of ``release`` charges ``reserved_over_peak`` for ``model`` (module docstring)."""
    return (engine == "V0" and RESERVED_RELEASES[0] <= tuple(release) < RESERVED_RELEASES[1]
            and model.architecture in V0_RESERVED_ARCHITECTURES and model.moe is None and model.mla is None
            and model.linear_attn is None and not model.is_multimodal)


def backend_output_copy(*, release: tuple[int, ...], compute_capability: tuple[int, int] | None) -> bool:
    """Whether the prefill attention allocates its output and a kernel output apart (module docstring).  A GPU of
    unknown compute capability (AMD) takes the xformers / ROCm pattern."""
    if tuple(release) < _COPY_FIRST:
        return False
    flash = compute_capability is not None and tuple(compute_capability) >= (8, 0)
    return not (flash and tuple(release) >= _FLASH_NO_COPY_FROM)


class _Allocator:
    """Best-fit caching allocator, one stream, large pool only (module docstring)."""

    def __init__(self) -> None:
        self.segments: list[list[list]] = []  # each block: [free, size, name]
        self.allocated_bytes = 0
        self.peak_bytes = 0

    def reserved_bytes(self) -> int:
        return sum(block[1] for segment in self.segments for block in segment)

    def malloc(self, size: int, name: str) -> None:
        size = -(-size // _ROUND) * _ROUND
        best = None
        for s, segment in enumerate(self.segments):
            for b, (free, have, _) in enumerate(segment):
                if free and have >= size and (best is None or have < best[2]):
                    best = (s, b, have)
        if best is None:
            self.segments.append([[False, size, name]])
        else:
            s, b, have = best
            segment = self.segments[s]
            if have - size > _SPLIT_REST:
                segment[b] = [False, size, name]
                segment.insert(b + 1, [True, have - size, None])
            else:
                segment[b] = [False, have, name]
                size = have
        self.allocated_bytes += size
        self.peak_bytes = max(self.peak_bytes, self.allocated_bytes)

    def free(self, name: str) -> None:
        for segment in self.segments:
            for block in segment:
                if not block[0] and block[2] == name:
                    block[0], block[2] = True, None
                    self.allocated_bytes -= block[1]
                    i = 0
                    while i < len(segment) - 1:
                        if segment[i][0] and segment[i + 1][0]:
                            segment[i][1] += segment[i + 1][1]
                            del segment[i + 1]
                        else:
                            i += 1
                    return
        raise KeyError(name)


def reserved_over_peak(model: ModelSpec, *, tp: int, tokens: int, act_bytes: int,
                       copy: bool) -> tuple[int, str]:
    """(reserved − allocated peak in bytes per rank, the formula) of the replayed eager forward of ``tokens``
    tokens (module docstring); ``copy``: the backend's output copy (``backend_output_copy``)."""
    h = model.hidden_size
    heads = max(1, model.num_attention_heads // tp)
    kv = max(1, model.num_kv_heads // tp)
    q = heads * model.head_dim
    qkv = q + 2 * kv * model.head_dim
    out = heads * model.v_head_dim
    inter = widest_dense_mlp(model) // tp
    size = {"h": tokens * h * act_bytes, "qkv": tokens * qkv * act_bytes, "out": tokens * out * act_bytes,
            "gu": tokens * 2 * inter * act_bytes, "act": tokens * inter * act_bytes}
    a = _Allocator()
    a.malloc(size["h"], "embed")  # the residual stream from here on
    held = None
    for layer in range(min(model.num_layers, 4)):  # the segments settle after two layers
        if layer == 0:
            a.malloc(size["h"], "norm0")
        a.malloc(size["qkv"], f"qkv{layer}")
        a.malloc(size["out"], f"out{layer}")
        if copy:
            a.malloc(size["out"], f"kernel{layer}")
            a.free(f"kernel{layer}")
        a.malloc(size["h"], f"o{layer}")
        a.free(f"qkv{layer}")
        a.free(f"out{layer}")
        if layer == 0:
            a.free("norm0")
        a.malloc(size["gu"], f"gu{layer}")
        a.malloc(size["act"], f"act{layer}")
        a.malloc(size["h"], f"down{layer}")
        a.free(f"gu{layer}")
        a.free(f"act{layer}")
        a.free(f"o{layer}")
        if held is not None:
            a.free(held)
        held = f"down{layer}"
    extra = max(0, a.reserved_bytes() - a.peak_bytes)
    return extra, (f"reserved {gib_text(Bytes(a.reserved_bytes()))} − allocated peak {gib_text(Bytes(a.peak_bytes))} "
                   f"of the eager layer replayed through a best-fit caching allocator (T {tokens:,}: qkv {qkv:,}, attention output "
                   f"{out:,}{' + the backend output copied' if copy else ''}, gate_up {2 * inter:,}, act {inter:,}, "
                   f"H {h:,} wide × {act_bytes} B)")
