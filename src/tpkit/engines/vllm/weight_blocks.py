"""The weight tensors as PyTorch's CUDA caching allocator counts them (pure): what vLLM's 'Model loading took' holds
beyond the tensors' own bytes.

vLLM reads the load delta as torch's allocated bytes (``DeviceMemoryProfiler`` → ``platforms/cuda.py``
``get_current_memory_usage``: ``reset_peak_memory_stats`` then ``max_memory_allocated``; read in the 0.17.1 wheel,
``worker/model_runner.py`` / ``v1/worker/gpu_model_runner.py`` ``load_model`` in every release), and the V1 budget
charges that figure as the weights (``gpu_worker.py determine_available_memory``).  The caching allocator counts a
block's whole size (``alloc_found_block`` adds ``block->size`` to ``allocated_bytes``), and
(``c10/cuda/CUDACachingAllocator.cpp``, the same in every torch that vLLM pins; ROCm builds hipify the same file):

  - sizes are rounded up to 512 B (``kMinBlockSize``);
  - a request of at least 10 MiB (``kMinLargeAlloc``) gets a segment of its own rounded up to 2 MiB
    (``get_allocation_size``: ``kRoundLarge``);
  - a large-pool block is split only if more than 1 MiB would remain (``should_split``: ``remaining >
    kSmallSize``), so a tensor that leaves ≤ 1 MiB of its 2 MiB-rounded segment is counted with that remainder.

vLLM builds its parameters on the device at model init, one tensor per fused module: ``QKVParallelLinear``
(q, k, v), ``MergedColumnParallelLinear`` (gate, up), ``FusedMoE`` (``w13_weight`` = every local expert's gate and
up, ``w2_weight`` = their down projections), the vocab-padded embedding and lm_head.  The sum over those tensors of
(counted − own bytes) is this term: 57 MiB for Qwen2-7B at tp 1 (gate_up 259 MiB, qkv 31.5 MiB, down 129.5 MiB, the
embedding and lm_head 1,039.5 MiB each), 21.5 MiB at tp 2, none for Llama-3.1-8B, whose tensors are whole 2 MiB
multiples.  The printed loads agree to the MiB: Qwen2-7B 'Model loading took 14.2488 GiB' (tp 1) and '7.1217 GiB'
(tp 2) against 14.1930 / 7.1006 of tensors and rotary cache (vp_025, vp_027).

From vLLM 0.21.0 the weights load with the allocator's ``max_split_size_mb`` at 20 (``VllmRules.load_max_split_mib``:
``gpu_worker.py Worker.load_model`` → ``_scoped_allocator_max_split(20)``), and ``should_split`` also requires
``size < max_split_size``: a tensor of ≥ 20 MiB is never split off its segment, so it is counted with its whole
2 MiB-rounded segment whatever remains (helper near14, 2026-12-05).  Qwen2.5-1.5B: gate_up 52.5 → 54 MiB and down
26.25 → 28 MiB in each of 28 layers, the embedding 445.1 → 446 MiB: 92 MiB more than without the limit, which is
what its print moves by: 'Model loading took 2.8833 GiB' under 0.9.2 (vl_205) against 2.98 GiB under 0.28.0 and
0.30.0 (vl_857, vl_202, vl_733).  Qwen2.5-0.5B (gate_up 16.6 MiB, under the limit) and Llama / Qwen3-8B (whole
2 MiB multiples) do not move, as their 0.26–0.31 prints show.

Left out: quantised checkpoints (packed values, scales and zeros are tensors of other shapes; NVFP4 weights that
vLLM repacks for Marlin are replayed in ``engines.vllm.nvfp4_marlin``), DeepSeek-V4 (its own weights path), vision and audio towers, offloaded parameters, vLLM's fused MLA ``fused_qkv_a_proj`` (0.10.0 on;
taken as two tensors) and tensors of 1–10 MiB (carved from 20 MiB segments, whose last split may keep ≤ 1 MiB).
"""

from __future__ import annotations

from tpkit.models.layout import stage_layers
from tpkit.models.params import Part, global_parts, layer_groups, layer_parts
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["torch_block_bytes", "weight_tensors", "weight_block_rounding"]

_MIN_BLOCK = 512
_SMALL = 1 << 20
_MIN_LARGE_ALLOC = 10 << 20
_ROUND_LARGE = 2 << 20

_FUSED = ((("q_proj", "k_proj", "v_proj"), "qkv_proj"), (("gate_proj", "up_proj"), "gate_up_proj"))
"""HF module names vLLM loads into one parameter (QKVParallelLinear, MergedColumnParallelLinear)"""


def torch_block_bytes(size: int, max_split_bytes: int | None = None) -> int:
    """Bytes torch's caching allocator counts as allocated for one fresh ``size``-byte tensor (module docstring);
    ``max_split_bytes``: the allocator's ``max_split_size`` (None: torch's default, no limit)."""
    size = max(_MIN_BLOCK, -(-size // _MIN_BLOCK) * _MIN_BLOCK)
    if size < _MIN_LARGE_ALLOC:
        return size
    segment = -(-size // _ROUND_LARGE) * _ROUND_LARGE
    unsplit = max_split_bytes is not None and size >= max_split_bytes
    return segment if unsplit or segment - size <= _SMALL else size


def _vllm_name(part: Part) -> str:
    """The vLLM parameter ``part`` is loaded into (fused modules share one)."""
    head, _, last = part.name.rpartition(".")
    if part.category == "routed_experts":
        return f"{head}.w13_weight" if last in ("gate_proj", "up_proj") else f"{head}.w2_weight"
    bias = last == "bias"
    if bias:
        head, _, last = head.rpartition(".")
    for names, fused in _FUSED:
        if last in names:
            return f"{head}.{fused}" + (".bias" if bias else "")
    return part.name


def weight_tensors(spec: ModelSpec, parallel: ParallelSpec, elem_bytes: int, *, stage: int = 0,
                   pp_split: str = "vllm") -> list[tuple[str, int, int]]:
    """(vLLM parameter, bytes on the rank, how many such layers) of an unquantised model's PP ``stage``."""
    from tpkit.models.weights import local_shape

    def size(p: Part) -> int:
        rows, cols, count = local_shape(spec, p, tp=parallel.tp, attn_tp=parallel.attn_tp, ep=parallel.ep,
                                        expert_tp=parallel.expert_tp)
        return rows * cols * count * elem_bytes

    out: list[tuple[str, int, int]] = []
    layers = stage_layers(spec.num_layers, parallel.pp, stage, pp_split)
    for layer, times, moe_layer in layer_groups(spec, layers, by_name=False):
        fused: dict[str, int] = {}
        for p in layer_parts(spec, layer, moe_layer=moe_layer):
            key = _vllm_name(p)
            fused[key] = fused.get(key, 0) + size(p)
        out += [(name, b, times) for name, b in fused.items()]
    first, last = stage == 0, stage == parallel.pp - 1
    parts = [p for p in global_parts(spec) if (p.category == "embedding" and first)
             or (p.category != "embedding" and last)]
    if last and not first and spec.tie_word_embeddings:  # the last stage's own copy of a tied lm_head
        emb = global_parts(spec)[0]
        parts.append(Part(name="lm_head", category="lm_head", out=emb.out, inp=emb.inp, shard="vocab"))
    out += [(p.name, size(p), 1) for p in parts]
    return out


def weight_block_rounding(spec: ModelSpec, parallel: ParallelSpec, elem_bytes: int, *, stage: int = 0,
                          pp_split: str = "vllm", max_split_bytes: int | None = None) -> tuple[Bytes, int]:
    """(bytes the allocator counts beyond the tensors, how many tensors are rounded up) on the rank;
    ``max_split_bytes``: the allocator's ``max_split_size`` while the weights load (None: no limit)."""
    extra, rounded = 0, 0
    for _, b, times in weight_tensors(spec, parallel, elem_bytes, stage=stage, pp_split=pp_split):
        pad = torch_block_bytes(b, max_split_bytes) - b
        extra += pad * times
        rounded += times if pad >= _MIN_BLOCK else 0
    return Bytes(extra), rounded
