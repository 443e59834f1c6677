"""NVFP4 linear weights repacked for vLLM's Marlin kernel: what the caching allocator counts beyond the weight tensors'
own bytes in 'Model loading took' (helper g4l4, 2026-12-05).

Which backend runs a dense NVFP4 linear layer (ModelOpt ``quant_algo NVFP4``, compressed-tensors nvfp4; 4-bit float
values, one fp8 scale per 16):

* ``model_executor/layers/quantization/modelopt.py`` ``ModelOptNvFp4LinearMethod`` (0.9.2, 0.10.0, 0.10.2, 0.13.0,
  0.15.1), ``utils/nvfp4_utils.py select_nvfp4_linear_backend`` / ``convert_to_nvfp4_linear_kernel_format`` (0.17.0–
  0.19.1) and ``kernels/linear/nvfp4/marlin.py MarlinNvFp4LinearKernel`` (0.20.0): FlashInfer / vLLM CUTLASS where
  the GPU has FP4 tensor cores (compute capability 10.x / 12.x), else Marlin (``is_fp4_marlin_supported``: ≥ 8.0 in
  0.17.1, ≥ 7.5 in 0.19.0), weight-only.  0.8.5's modelopt.py has no Marlin path.
* ``utils/marlin_utils_fp4.py prepare_fp4_layer_for_marlin`` (the same steps in 0.9.2, 0.17.1, 0.19.0, 0.20.0, 0.33.0),
  in ``process_weights_after_loading``, inside the load delta: ``weight.view(int32).T.contiguous()`` (a temporary of
  the weight's bytes), ``ops.gptq_marlin_repack`` (a new tensor of the same bytes), ``layer.weight =
  Parameter(marlin_qweight)`` (the loaded tensor freed); then the fp8 scales: ``.T.contiguous()``, ``.to(bf16)``,
  ``marlin_permute_scales`` (a bf16 copy), ``nvfp4_marlin_process_scales`` (half copy, the [0, 2, 1, 3] gather, the
  float32 scale-factor check with its mask and selection, ``* 2**7``, ``<< 1``, the odd bytes ``.contiguous()``: one
  fp8 byte per 16 values kept), the old scale freed; at return the temporary is freed.

What is counted.  ``create_weights`` makes every weight at model init (packed ``(N, K/2)`` uint8 and ``(N, K/16)``
fp8 scales for the quantised modules, the model dtype for the ignored ones), each request of ≥ 10 MiB in a segment of
its own rounded up to 2 MiB.  The repack then frees and re-requests blocks, so where a repacked weight lands, and
whether the allocator counts it with a remainder of ≤ 1 MiB (``engines.vllm.weight_blocks``), depends on the free
blocks at that moment.  ``marlin_repack_rounding`` replays that sequence (init of every layer in order, then each
quantised module's repack) through a best-fit model of the large pool and sums counted − own bytes over the
weights left.  Gemma-4-31B-IT-NVFP4: 88.8 MiB at tp 2 (gate_up 55.125 MiB and down 27.5625 MiB land in free blocks
of 56 / 28 MiB; the full-attention qkv of 105 MiB in its 106 MiB segment), 61.6 at tp 1, 37.5 at tp 4 (its 13.8 MiB
down weights are cut from larger free blocks).  Not measured on a GPU: the model has one stream, no
``max_split_size``, and leaves out tensors under 1 MiB (the small pool), the vision tower and the embedding's
neighbours.

Scope (``marlin_nvfp4_rounding_applies``): vLLM 0.9.2 (the first wheel read with the path; 0.9.0 / 0.9.1 not read)
up to 0.20.x: from 0.21.0 the weights load under ``max_split_size_mb`` 20 (``VllmRules.load_max_split_mib``), where a
free block up to 20 MiB larger may be taken whole, which this replay does not model.  Compute capability 8.0–9.x
(7.5 takes Marlin only from 0.19's ``is_fp4_marlin_supported``: not applied), CUDA only, dense models (MoE experts
go through ``prepare_nvfp4_moe_layer_for_marlin``, not replayed).  The CUTLASS / FlashInfer path (≥ 10.0) pads and
swizzles in ``prepare_weights_for_nvfp4_cutlass``: not replayed, unchanged.
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec, QuantSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["FIRST_RELEASE", "BEFORE_RELEASE", "is_nvfp4", "marlin_nvfp4_rounding_applies", "marlin_repack_rounding"]

FIRST_RELEASE = (0, 9, 2)
"""the first wheel read whose ModelOpt NVFP4 linear method falls back to ``prepare_fp4_layer_for_marlin``"""
BEFORE_RELEASE = (0, 21, 0)
"""from this release the weights load under ``max_split_size_mb`` 20 (``VllmRules.load_max_split_mib``): not replayed"""
_MIN_CC = (8, 0)
_FP4_CC = (10, 0)
_MIB = 1 << 20
_SMALL = _MIB              # kSmallSize: requests up to 1 MiB go to the small pool; a split must leave more
_MIN_LARGE_ALLOC = 10 << 20
_ROUND_LARGE = 2 << 20
_LARGE_BUFFER = 20 << 20   # the segment of a 1–10 MiB request


def is_nvfp4(quant: QuantSpec | None) -> bool:
    """A 4-bit float checkpoint with one scale per 16 values (ModelOpt NVFP4, compressed-tensors nvfp4)."""
    return quant is not None and quant.method == "fp4" and quant.weight_bits == 4 and quant.group_size == 16


def marlin_nvfp4_rounding_applies(quant: QuantSpec | None, *, release: tuple[int, ...] | None,
                                  compute_capability: tuple[int, int] | None, rocm: bool, moe: bool) -> bool:
    """True where vLLM runs the checkpoint's NVFP4 linear layers through Marlin's repack (module docstring)."""
    if not is_nvfp4(quant) or rocm or moe or release is None or compute_capability is None:
        return False
    return FIRST_RELEASE <= tuple(release) < BEFORE_RELEASE and _MIN_CC <= tuple(compute_capability) < _FP4_CC


class _BestFit:
    """The large pool of c10's CUDACachingAllocator, one stream, no ``max_split_size``: 512 B rounding, a new segment
    of 20 MiB for a 1–10 MiB request and the request rounded up to 2 MiB otherwise, best fit, a block split only when
    more than 1 MiB would remain, adjacent free blocks of a segment merged."""

    def __init__(self) -> None:
        self.segments: list[list[list]] = []  # each block: [free, size, handle]
        self.handles = 0

    def malloc(self, size: int) -> int | None:
        size = -(-size // 512) * 512
        if size <= _SMALL:
            return None  # the small pool: not modelled
        best = None
        for segment in self.segments:
            for i, (free, have, _) in enumerate(segment):
                if free and have >= size and (best is None or have < best[2]):
                    best = (segment, i, have)
        self.handles += 1
        if best is None:
            whole = _LARGE_BUFFER if size < _MIN_LARGE_ALLOC else -(-size // _ROUND_LARGE) * _ROUND_LARGE
            self.segments.append([[True, whole, None]])
            best = (self.segments[-1], 0, whole)
        segment, i, have = best
        split = have - size > _SMALL
        segment[i] = [False, size if split else have, self.handles]
        if split:
            segment.insert(i + 1, [True, have - size, None])
        return self.handles

    def free(self, handle: int | None) -> None:
        if handle is None:
            return
        for segment in self.segments:
            for block in segment:
                if not block[0] and block[2] == handle:
                    block[0], block[2] = True, None
                    i = 0
                    while i < len(segment) - 1:
                        if segment[i][0] and segment[i + 1][0]:
                            segment[i][1] += segment.pop(i + 1)[1]
                        else:
                            i += 1
                    return
        raise KeyError(handle)

    def counted(self, handle: int | None, size: int) -> int:
        if handle is None:
            return size
        return next(b[1] for segment in self.segments for b in segment if b[2] == handle)


def _repack(a: _BestFit, weight: list) -> None:
    """``prepare_fp4_layer_for_marlin`` on one module (module docstring); ``weight``: [handle, bytes, scale handle,
    scale bytes], updated to the repacked tensors."""
    handle, nbytes, scale, s = weight
    tmp = a.malloc(nbytes)                    # weight.view(int32).T.contiguous()
    weight[0] = a.malloc(nbytes)              # gptq_marlin_repack
    a.free(handle)                            # layer.weight replaced
    st = a.malloc(s)                          # weight_scale.T.contiguous()
    bf = a.malloc(2 * s)                      # .to(bf16)
    a.free(st)
    perm = a.malloc(2 * s)                    # marlin_permute_scales: s.reshape(...)[:, scale_perm]
    a.free(bf)
    a.free(a.malloc(s))                       # nvfp4_marlin_process_scales: (scales >= 0).all()
    half = a.malloc(2 * s)                    # .to(torch.half)
    gathered = a.malloc(2 * s)                # .view(-1, 4)[:, [0, 2, 1, 3]]
    a.free(half)
    f32 = a.malloc(4 * s)                     # _nvfp4_compute_scale_factor: .float()
    scaled = a.malloc(4 * s)                  # * 2**7
    a.free(f32)
    mask = a.malloc(s)                        # ws_float > 0
    picked = a.malloc(4 * s)                  # ws_float[mask]
    a.free(picked), a.free(mask), a.free(scaled)
    times = a.malloc(2 * s)                   # marlin_scales * 2**7
    shifted = a.malloc(2 * s)                 # .view(int16) << 1
    a.free(times)
    weight[2] = a.malloc(s)                   # [:, 1::2].contiguous(): the fp8 scales kept
    a.free(shifted), a.free(gathered), a.free(perm)
    a.free(scale)                             # layer.weight_scale replaced
    a.free(tmp)


def marlin_repack_rounding(spec: ModelSpec, parallel: ParallelSpec, quant: QuantSpec, act_bytes: int, *,
                           stage: int = 0, pp_split: str = "vllm") -> tuple[Bytes, int]:
    """(bytes the allocator counts beyond the weights of PP ``stage`` on one rank after Marlin's repack, how many
    weights carry such a remainder): the best-fit replay of the module docstring, the embedding and an untied
    lm_head at the model's ends; vision and audio towers left out."""
    from tpkit.engines.vllm.weight_blocks import _vllm_name
    from tpkit.models.layout import stage_layers
    from tpkit.models.params import global_parts, layer_parts
    from tpkit.models.quant import is_quantised
    from tpkit.models.weights import local_shape

    def shape(p) -> tuple[int, int, int]:
        return local_shape(spec, p, tp=parallel.tp, attn_tp=parallel.attn_tp, ep=parallel.ep,
                           expert_tp=parallel.expert_tp)

    a = _BestFit()
    weights: list[list] = []   # [handle, bytes, scale handle, scale bytes] (scale bytes 0: not quantised)
    first, last = stage == 0, stage == parallel.pp - 1
    ends = [p for p in global_parts(spec) if (p.category == "embedding" and first)
            or (p.category != "embedding" and last)]
    for p in ends[:1]:
        rows, cols, count = shape(p)
        weights.append([a.malloc(rows * cols * count * act_bytes), rows * cols * count * act_bytes, None, 0])
    for layer in stage_layers(spec.num_layers, parallel.pp, stage, pp_split):
        fused: dict[str, list[int]] = {}
        for p in layer_parts(spec, layer):
            rows, cols, count = shape(p)
            entry = fused.setdefault(_vllm_name(p), [0, 0])
            if is_quantised(p, quant):
                entry[0] += -(-rows * cols * count * quant.weight_bits // 8)
                entry[1] += rows * -(-cols // quant.group_size) * count
            else:
                entry[0] += rows * cols * count * act_bytes
        for nbytes, sbytes in fused.values():
            weights.append([a.malloc(nbytes), nbytes, a.malloc(sbytes) if sbytes else None, sbytes])
    for p in ends[1:]:
        rows, cols, count = shape(p)
        weights.append([a.malloc(rows * cols * count * act_bytes), rows * cols * count * act_bytes, None, 0])
    for weight in weights:
        if weight[3]:
            _repack(a, weight)
    extra, rounded = 0, 0
    for handle, nbytes, scale, sbytes in weights:
        pad = a.counted(handle, nbytes) - nbytes + (a.counted(scale, sbytes) - sbytes if sbytes else 0)
        extra += pad
        rounded += pad >= 512
    return Bytes(extra), rounded
