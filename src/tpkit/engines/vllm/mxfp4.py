"""vLLM MXFP4 MoE: what the Marlin and the Hopper triton_kernels backends add to the expert tensors (pure).

    in:  ModelSpec (mxfp4 checkpoint with routed experts), ParallelSpec, the release, the GPU's compute capability
    out: bytes per rank the backend's expert tensors add to "Model loading took" beyond the checkpoint's
         (0 outside the rule)

Backend: an MXFP4 MoE layer on a CUDA GPU below compute capability 9.0 (A100, L4, L40S, RTX 4090 …) runs the
Marlin backend — the OpenAI triton_kernels path needs 9.0 ≤ cc < 11.0 and the FlashInfer paths SM90 / SM100
(vLLM 0.10.2 – 0.14.1 ``layers/quantization/mxfp4.py get_mxfp4_backend``, in 0.10.2 "capability()[0] < 9 →
Marlin"; 0.19.0 and 0.29.0 ``layers/fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend``).  Marlin pads before
allocating: the per-partition intermediate size to a multiple of 128 and the hidden size to a multiple of 256
("the moe marlin kernel requires that for each linear n % 256 == 0 and k % 128 == 0"; 0.10.2 – 0.14.1
``Mxfp4MoEMethod.create_weights``; 0.19.0 / 0.29.0 ``mxfp4_round_up_hidden_size_and_intermediate_size``), so w13
is (2·I_p) × H_p and w2 H_p × I_p, values at 4 bits plus one 1-byte scale per 32 along K, and the biases pad too.
Applied from vLLM 0.10.1 on, the release that brought MXFP4 (gpt-oss): 0.10.1 and 0.10.1.1 have the same Marlin
branch (``Mxfp4MoEMethod._should_use_marlin``: CUDA below compute capability 9.0 → Marlin; ``create_weights``: the
same 128 / 256 padding), and 0.10.0 has no ``layers/quantization/mxfp4.py`` at all (helper new4, 2026-12-04: vp_029,
gpt-oss-120b at tp 4 on A100s, 'Model loading took 17.2217 GiB' on 0.10.1.1 = the checkpoint's 15.24 GiB + this
padding's 1.95 GiB).  Earlier releases and unknown GPUs get 0.

Hopper (compute capability 9.0, ``triton_mxfp4_extra_bytes``): the default backend is OpenAI's triton_kernels
``matmul_ogs`` (0.12.0 – 0.14.1 ``get_mxfp4_backend``: the FlashInfer SM90 path only with
``VLLM_USE_FLASHINFER_MOE_MXFP4_BF16=1``; 0.19.0 – 0.29.0 ``select_mxfp4_moe_backend``: TRITON is the first
CUDA backend of the priority list on SM90).  ``process_weights_after_loading`` / ``convert_to_mxfp4_moe_kernel_format``
then (read in 0.12.0, 0.13.0, 0.14.1, 0.19.0, 0.20.0, 0.21.0, 0.24.0, 0.25.0, 0.26.0, 0.27.1, 0.29.0):

* pads the per-partition intermediate size to a multiple of 64 at allocation (``create_weights`` /
  ``mxfp4_round_up_hidden_size_and_intermediate_size``, the non-Marlin CUDA branch);
* turns both expert biases into float32 copies (``w13_bias.to(torch.float32)``);
* swizzles values and scales into the Hopper layouts (``quantization/utils/mxfp4_utils.py _swizzle_mxfp4`` →
  vendored ``triton_kernels/tensor_details/layout_details/hopper_value.py`` / ``hopper_scale.py``): values padded
  to 16 rows × 32 bytes, scales to ``2·num_warps·2·8`` = 256 rows (num_warps 8 outside the batched pplx/DeepEP
  formats) × an even K, the swizzled scales kept in the ``PrecisionConfig``;
* frees the original value tensors (``del layer.w13_weight``) but, up to 0.24.0, keeps the original
  ``w13_weight_scale`` / ``w2_weight_scale`` Parameters alive beside the swizzled copy (never replaced on the
  TRITON branch); from 0.25.0 it deletes them too ("drop the now-dead weight/scale Parameters", 0.25.0, 0.26.0,
  0.27.1, 0.29.0).

The Hopper swizzle needs torch ≥ 2.8.1 (``_swizzle_mxfp4`` falls back to the strided layout, no copy, below), so
the Hopper triton rule starts at 0.12.0 (torch 2.9.0, triton_kernels vendored in ``vllm/third_party``).

Hopper before 0.12.0 (helper mv13, 2026-12-04): vLLM 0.10.2, 0.11.0, 0.11.1 and 0.11.2 neither vendor
triton_kernels (no ``vllm/third_party/triton_kernels`` in the wheels) nor require it (not in their
``Requires-Dist``), and ``get_mxfp4_backend`` picks Marlin on CUDA when ``not has_triton_kernels()`` (read in the
0.10.2, 0.11.0, 0.11.1 and 0.11.2 wheels; FlashInfer on SM90 only with ``VLLM_USE_FLASHINFER_MOE_MXFP4_BF16=1``).
A plain ``pip install vllm`` on an H100/H200 therefore runs the Marlin backend, with its padding
(``Mxfp4MoEMethod.create_weights``, the same ↑128 / ↑256 branch as below 9.0): ``HOPPER_MARLIN_RELEASES``.  The
committed log of vp_300 (0.11.2, gpt-oss-120b on an H100) prints 'Using Marlin backend' and 65.97 GiB loaded, the
checkpoint's 60.80 GiB + this padding's 5.16 GiB.  An install that adds triton_kernels itself gets the Triton
backend instead, which tpkit does not model for these releases.  0.10.1 / 0.10.1.1 run Marlin on Hopper too (helper
mx29, 2026-12-07, read in both wheels; before, Hopper got 0 there): ``Mxfp4MoEMethod._should_use_marlin`` returns True
on CUDA below 10.0 when triton_kernels is missing or torch is older than 2.8.0, and both wheels pin torch==2.7.1
(``Requires-Dist``) and vendor no triton_kernels.  Blackwell (SM100: FlashInfer first when installed, a
dependency of the wheel) is not modelled.

``VLLM_MXFP4_USE_MARLIN=1`` (``--vllm-mxfp4-use-marlin on``, :func:`marlin_forced`; helper mx29, 2026-12-07): the
variable forces the Marlin backend on Hopper as well, so the plan charges the Marlin padding instead of the Triton
swizzle.  Read in the wheels: 0.10.1 ``Mxfp4MoEMethod._should_use_marlin`` returns the variable first when it is
set; 0.11.0 declares it in ``envs.py`` but no layer reads it (Hopper runs Marlin there by default anyway, above);
0.12.0, 0.14.0, 0.16.0 and 0.18.0 ``layers/quantization/mxfp4.py get_mxfp4_backend`` ("VLLM_MXFP4_USE_MARLIN or not
triton_kernels_supported → Marlin", after the FlashInfer branches that SM90 takes only with
``VLLM_USE_FLASHINFER_MOE_MXFP4_BF16``); 0.20.0, 0.21.0, 0.22.0 and 0.23.0 ``fused_moe/oracle/mxfp4.py
select_mxfp4_moe_backend`` ("explicit Marlin MXFP4 configuration", before the priority list; with
``--moe-backend auto``).  0.22.0 / 0.23.0 wrap it in ``deprecated_env`` ("will be removed in v0.23", a
FutureWarning; 0.23.0 still reads it), and 0.24.0 and 0.26.0 have it neither in ``envs.py`` nor in the oracle.  The
Marlin tensors are the same bytes as below 9.0 in 0.22.0 (``marlin_utils_fp4.py prepare_moe_mxfp4_layer_for_marlin``:
values repacked at 4 bits, scales permuted and cast back to ``float8_e8m0fnu``, biases in the model dtype).
"""

from __future__ import annotations

import math

from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["marlin_mxfp4_padding_bytes", "triton_mxfp4_extra_bytes", "FIRST_RELEASE", "HOPPER_MARLIN_RELEASES",
           "ENV_MARLIN_RELEASES", "marlin_forced",
           "TRITON_FIRST_RELEASE",
           "TRITON_SCALES_FREED"]

FIRST_RELEASE = (0, 10, 1)
"""first vLLM release with MXFP4 (and so the Marlin padding); read in 0.10.1, 0.10.1.1, 0.10.2, 0.11.0, 0.12.0,
0.13.0, 0.14.1, 0.19.0, 0.29.0 (0.10.0 has no mxfp4.py)"""


HOPPER_MARLIN_RELEASES = ((0, 10, 1), (0, 12, 0))
"""[first, end) of the releases whose default install runs the Marlin MXFP4 backend on Hopper (no triton_kernels
vendored or required; read in 0.10.2, 0.11.0, 0.11.1, 0.11.2 and, vendored, 0.12.0; 0.10.1 / 0.10.1.1 also pin torch
2.7.1, below ``_should_use_marlin``'s 2.8.0)"""
TRITON_FIRST_RELEASE = (0, 12, 0)
"""first vLLM release whose Hopper triton_kernels swizzle is certain (torch 2.9.0 pinned, triton_kernels vendored)"""
TRITON_SCALES_FREED = (0, 25, 0)
"""first release that deletes the original MXFP4 scales after swizzling them (kept in 0.24.0, freed in 0.25.0)"""
ENV_MARLIN_RELEASES = (((0, 10, 1), (0, 10, 2)), ((0, 12, 0), (0, 24, 0)))
"""[first, end) ranges of the releases whose MoE backend choice reads ``VLLM_MXFP4_USE_MARLIN`` (module docstring:
0.10.1 ``_should_use_marlin``; 0.12.0–0.18.0 ``get_mxfp4_backend``; 0.20.0–0.23.0 ``select_mxfp4_moe_backend``;
not read by a layer in 0.11.0, gone in 0.24.0)"""
_HOPPER = (9, 0)
_HOPPER_SCALE_ROWS = 2 * 8 * 2 * 8
"""``HopperMXScaleLayout`` SWIZZLE_ALIGN_M = 2·num_warps·2·8 with num_warps 8"""


def _up(x: int, to: int) -> int:
    return -(-x // to) * to


def _experts_on_rank(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None,
                     first: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """The routed experts of an MXFP4 checkpoint on the fullest rank from vLLM release ``first``: (intermediate
    size per rank, hidden size, experts × MoE layers the rank holds); None without MXFP4, experts or a release from
    ``first``.  The intermediate size is split by tp (tp × dp under DP without EP), not under EP."""
    q, moe = model.quant, model.moe
    if q is None or q.method != "mxfp4" or moe is None or release is None or release < first:
        return None
    if q.raw_method == "quark":  # Quark MXFP4 experts load with QuarkOCP_MX_MoEMethod, not Mxfp4MoEMethod (0.21.0)
        return None
    split = 1 if parallel.ep > 1 else (parallel.expert_tp or parallel.tp)  # DP without EP: tp × dp
    experts = math.ceil(moe.num_experts / parallel.ep)
    layers = math.ceil(len(moe.moe_layer_ids) / parallel.pp)
    return moe.moe_intermediate_size // split, model.hidden_size, layers * experts


def marlin_forced(env: object, release: tuple[int, int, int] | None,
                  compute_capability: tuple[int, int] | None) -> bool:
    """``VLLM_MXFP4_USE_MARLIN`` set ("on", "1", "true") on a Hopper GPU and a release that reads it
    (:data:`ENV_MARLIN_RELEASES`): the MXFP4 MoE layers run Marlin instead of the Triton backend.  Below compute
    capability 9.0 Marlin is the default already; Blackwell is not modelled."""
    if str(env).strip().lower() not in ("on", "1", "true") or release is None or compute_capability is None:
        return False
    return tuple(compute_capability) == _HOPPER and any(a <= release < b for a, b in ENV_MARLIN_RELEASES)


def marlin_mxfp4_padding_bytes(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None,
                               compute_capability: tuple[int, int] | None, *, forced: bool = False) -> Bytes:
    """Bytes per rank the Marlin padding adds to the routed experts of an MXFP4 checkpoint (module docstring);
    ``forced``: :func:`marlin_forced` (VLLM_MXFP4_USE_MARLIN on Hopper)."""
    held = _experts_on_rank(model, parallel, release, FIRST_RELEASE)
    if held is None or compute_capability is None:
        return Bytes(0)
    first, end = HOPPER_MARLIN_RELEASES
    hopper_marlin = tuple(compute_capability) == _HOPPER and (forced or first <= release < end)
    if tuple(compute_capability) >= (9, 0) and not hopper_marlin:
        return Bytes(0)
    i_rank, h, count = held
    i_pad, h_pad = _up(i_rank, 128), _up(h, 256)
    if (i_pad, h_pad) == (i_rank, h):
        return Bytes(0)
    per_element = 0.5 + 1 / 32  # 4-bit value + a 1-byte scale per 32 along K
    values = 3 * per_element * (i_pad * h_pad - i_rank * h)
    biases = 2 * (2 * (i_pad - i_rank) + (h_pad - h)) if model.extra.get("expert_bias") else 0
    return Bytes(round(count * (values + biases)))


def triton_mxfp4_extra_bytes(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None,
                             compute_capability: tuple[int, int] | None) -> Bytes:
    """Bytes per rank the Hopper triton_kernels backend holds beyond the checkpoint's expert tensors after loading
    (module docstring): the 64-padding of the intermediate size, the values' swizzle padding, the swizzled scales
    (plus the originals' own padding while they are kept, < 0.25.0) and the float32 biases."""
    held = _experts_on_rank(model, parallel, release, TRITON_FIRST_RELEASE)
    if held is None or compute_capability is None or tuple(compute_capability) != _HOPPER:
        return Bytes(0)
    i_rank, h, count = held
    i_pad = _up(i_rank, 64)
    # the checkpoint's tensors as tpkit counts them: 4-bit values, a 1-byte scale per 32 along K, bf16 biases
    counted_values = 3 * i_rank * h // 2
    counted_scales = 2 * i_rank * math.ceil(h / 32) + h * math.ceil(i_rank / 32)
    # Hopper value layout: rows to 16, bytes along K to 32 (w13: 2·I_p rows × H/2 B; w2: H rows × I_p/2 B)
    values = _up(2 * i_pad, 16) * _up(h // 2, 32) + _up(h, 16) * _up(i_pad // 2, 32)
    # Hopper scale layout: rows to 256, K (scales along K) to 2
    swizzled = (_up(2 * i_pad, _HOPPER_SCALE_ROWS) * _up(math.ceil(h / 32), 2)
                + _up(h, _HOPPER_SCALE_ROWS) * _up(math.ceil(i_pad / 32), 2))
    kept = 2 * i_pad * math.ceil(h / 32) + h * math.ceil(i_pad / 32) if release < TRITON_SCALES_FREED else 0
    per_expert = values - counted_values + swizzled + kept - counted_scales
    if model.extra.get("expert_bias"):
        per_expert += 4 * (2 * i_pad + h) - 2 * (2 * i_rank + h)
    return Bytes(count * per_expert)
