"""vLLM 0.7.1–0.7.3: the MLA decode matrices the V0 MLA backend builds after loading (pure).

    in:  ModelSpec (``mla``), ParallelSpec, the release, the activation dtype and ``--quantization``
    out: bytes per rank the backend adds to "Model loading took" (0 outside the rule)

With matrix absorption on (``VLLM_MLA_PERFORM_MATRIX_ABSORPTION``, default 1), ``MLACommonImpl.
process_weights_after_loading`` (vLLM 0.7.1, 0.7.2, 0.7.3 ``attention/backends/mla/utils.py``) keeps, per MLA
layer and per rank (n = heads / tp, q_in = q_lora_rank or hidden):

    W_QR     q_in × n·qk_rope_head_dim       activation dtype ("small so we don't bother requantizing it")
    W_Q_UK   q_in × n·kv_lora_rank           W_Q absorbed with W_UK (einsum), activation dtype;
                                             fp8 checkpoints: requantised to fp8 with their block scales
    W_UV_O   n·kv_lora_rank × hidden         W_UV absorbed with W_O, same dtype rule

beside the raw q/kv_b/o weights, which prefill still reads ("we end up with absorbed weights for decode and another
copy of raw weights for prefill").  vLLM 0.7.0 has no MLA backend; from 0.8.0 the backend keeps only views of
``kv_b_proj`` (``W_UK_T`` / ``W_UV``), no absorbed copies.  vLLM 0.7.1–0.7.2 turn MLA off under a quantisation
other than fp8 / compressed-tensors (``ModelConfig.use_mla``); 0.7.3 keeps it on (dequantised: activation dtype).
"""

from __future__ import annotations

import math

from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["mla_absorbed_bytes", "ABSORPTION_RELEASES"]

ABSORPTION_RELEASES = ((0, 7, 1), (0, 7, 3))
"""first and last vLLM release whose V0 MLA backend stores the absorbed decode matrices"""


def mla_absorbed_bytes(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None, *,
                       act_bytes: int, quantization: str | None = None) -> Bytes:
    """Bytes per rank of W_QR + W_Q_UK + W_UV_O over the rank's MLA layers (module docstring); 0 when the
    model is not MLA or the release is outside ``ABSORPTION_RELEASES`` (None: unknown release, 0)."""
    m = model.mla
    if m is None or release is None or not ABSORPTION_RELEASES[0] <= release <= ABSORPTION_RELEASES[1]:
        return Bytes(0)
    from tpkit.models.quant import resolve_quant

    quant = resolve_quant(model.quant, quantization)
    fp8 = quant is not None and quant.method == "fp8"  # fp8 checkpoints, compressed-tensors fp8, --quantization fp8
    if release < (0, 7, 3) and quant is not None and not fp8:
        return Bytes(0)  # ModelConfig.use_mla is False: the non-MLA path, no absorption
    n = max(1, model.num_attention_heads // parallel.attn_tp)
    q_in = m.q_lora_rank or model.hidden_size
    layers = math.ceil(model.num_layers / parallel.pp)
    w_qr = q_in * n * m.qk_rope_head_dim * act_bytes
    q_uk = q_in * n * m.kv_lora_rank
    uv_o = n * m.kv_lora_rank * model.hidden_size
    if fp8:
        block = quant.block_size
        scales = 0
        if block:
            scales = 4 * (math.ceil(q_in / block[1]) * math.ceil(n * m.kv_lora_rank / block[0])
                          + math.ceil(n * m.kv_lora_rank / block[1]) * math.ceil(model.hidden_size / block[0]))
        absorbed = q_uk + uv_o + scales
    else:
        absorbed = (q_uk + uv_o) * act_bytes
    return Bytes(layers * (w_qr + absorbed))
