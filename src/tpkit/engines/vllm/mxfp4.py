"""vLLM MXFP4 MoE: the padding the Marlin backend gives the expert tensors (pure).

    in:  ModelSpec (mxfp4 checkpoint with routed experts), ParallelSpec, the release, the GPU's compute capability
    out: bytes per rank the padded expert tensors add to "Model loading took" (0 outside the rule)

Backend: an MXFP4 MoE layer on a CUDA GPU below compute capability 9.0 (A100, L4, L40S, RTX 4090 …) runs the
Marlin backend — the OpenAI triton_kernels path needs 9.0 ≤ cc < 11.0 and the FlashInfer paths SM90 / SM100
(vLLM 0.10.2 – 0.14.1 ``layers/quantization/mxfp4.py get_mxfp4_backend``, in 0.10.2 "capability()[0] < 9 →
Marlin"; 0.19.0 and 0.29.0 ``layers/fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend``).  Marlin pads before
allocating: the per-partition intermediate size to a multiple of 128 and the hidden size to a multiple of 256
("the moe marlin kernel requires that for each linear n % 256 == 0 and k % 128 == 0"; 0.10.2 – 0.14.1
``Mxfp4MoEMethod.create_weights``; 0.19.0 / 0.29.0 ``mxfp4_round_up_hidden_size_and_intermediate_size``), so w13
is (2·I_p) × H_p and w2 H_p × I_p, values at 4 bits plus one 1-byte scale per 32 along K, and the biases pad too.
Hopper (triton_kernels: I to a multiple of 64) and Blackwell (FlashInfer: 256) are not modelled here: gpt-oss's
2,880 needs no Hopper padding.  Applied from vLLM 0.10.2 (the first release read; gpt-oss came with 0.10.1) on;
earlier releases and unknown GPUs get 0.
"""

from __future__ import annotations

import math

from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["marlin_mxfp4_padding_bytes", "FIRST_RELEASE"]

FIRST_RELEASE = (0, 10, 2)
"""first vLLM release whose MXFP4 backend choice and Marlin padding were read (0.10.2, 0.11.0, 0.12.0, 0.13.0,
0.14.1, 0.19.0, 0.29.0)"""


def _up(x: int, to: int) -> int:
    return -(-x // to) * to


def marlin_mxfp4_padding_bytes(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None,
                               compute_capability: tuple[int, int] | None) -> Bytes:
    """Bytes per rank the Marlin padding adds to the routed experts of an MXFP4 checkpoint (module docstring)."""
    q, moe = model.quant, model.moe
    if (q is None or q.method != "mxfp4" or moe is None or release is None or release < FIRST_RELEASE
            or compute_capability is None or tuple(compute_capability) >= (9, 0)):
        return Bytes(0)
    split = 1 if parallel.ep > 1 else parallel.tp
    i_rank = moe.moe_intermediate_size // split
    h = model.hidden_size
    i_pad, h_pad = _up(i_rank, 128), _up(h, 256)
    if (i_pad, h_pad) == (i_rank, h):
        return Bytes(0)
    per_element = 0.5 + 1 / 32  # 4-bit value + a 1-byte scale per 32 along K
    values = 3 * per_element * (i_pad * h_pad - i_rank * h)
    biases = 2 * (2 * (i_pad - i_rank) + (h_pad - h)) if model.extra.get("expert_bias") else 0
    experts = math.ceil(moe.num_experts / parallel.ep)
    layers = math.ceil(len(moe.moe_layer_ids) / parallel.pp)
    return Bytes(round(layers * experts * (values + biases)))
