"""The Marlin GEMM's A-sized temporary under the V0 engine's eager forward (helper awq14, 2026-12-05).

vLLM runs an AWQ or GPTQ checkpoint through the Marlin kernel unless the user forces the plain kernel: the
``override_quantization_method`` of ``AWQMarlinConfig`` / ``GPTQMarlinConfig`` takes the checkpoint when
``--quantization`` is unset, ``marlin`` or ``awq_marlin`` / ``gptq_marlin``, and the checkpoint is Marlin
compatible (``is_awq_marlin_compatible`` / ``is_gptq_marlin_compatible``: 4- or 8-bit (``TYPE_MAP``; GPTQ also
symmetric, which ``QuantSpec`` does not carry: taken as symmetric), group size -1/32/64/128 and
``check_marlin_supported``, compute capability ≥ 8.0).  Read in the
vllm 0.5.3.post1 and 0.6.6.post1 wheels (``model_executor/layers/quantization/awq_marlin.py``, ``gptq_marlin.py``,
``utils/marlin_utils.py``); ``apply_awq_marlin_linear`` / ``apply_gptq_marlin_linear`` reshape the input to
(M, K) (a view) and call ``ops.gptq_marlin_gemm``.

``gptq_marlin_gemm`` (``csrc/quantization/gptq_marlin/gptq_marlin.cu``) allocates, besides its (M, N) output,
``a_tmp`` of (M, K) in the activation dtype on every call: in the older generation of that file unconditionally
(it is the act-order permuted copy of A, used or not), and from the generation whose g_idx check reads
"Unexpected g_idx.size(-1)" only when the layer has act-order (otherwise an empty tensor).  The compiled
extension tells which generation a wheel carries: ``vllm/_C.abi3.so`` holds "Unexpected g_idx.size(0) = " in the
0.4.3, 0.5.3.post1, 0.6.3, 0.6.6.post1, 0.7.0, 0.7.3, 0.8.2 and 0.8.5 wheels and "Unexpected g_idx.size(-1) = "
in the 0.9.0, 0.9.2 and 0.10.1 wheels (``MARLIN_A_TMP_BEFORE``).  A fp32 reduce buffer ``c_tmp`` of at most
(64 · max_par) rows × N is allocated too; it is not charged (0.02 GiB for a 5,120-wide output).

Under the V0 engine's eager forward (``engines/vllm/v0_forward.py``) that temporary is alive at ``down_proj``'s
moment, the MLP's peak: residual, layer input, MLP input, gate_up (2I, where the model keeps it), act (I),
a_tmp (I) and the output (H).  At ``o_proj`` it is one more T × q (heads × v_head_dim) in the attention phase.
The V1 engine's compiled forward frees gate_up before ``down_proj``, so there the temporary stays under the
3H + 3I phase and is not charged.

Evidence: vp_651 (0.6.6.post1 V0, Qwen2.5-32B-Instruct-AWQ run as awq_marlin, T 32,768) prints an activation peak
of 8.02 GiB; T × (4H + 3I) = 6.31 GiB without the temporary, T × (4H + 4I) = 8.00 GiB with it.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.models.params import widest_dense_mlp
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, gib_text

__all__ = ["AWQ_MARLIN_FROM", "GPTQ_MARLIN_FROM", "MARLIN_A_TMP_BEFORE", "MARLIN_GROUP_SIZES",
           "MARLIN_MIN_CAPABILITY", "marlin_kernel", "v0_marlin_a_tmp", "with_v0_marlin_a_tmp"]

MARLIN_A_TMP_BEFORE = (0, 9, 0)
"""first release whose ``gptq_marlin_gemm`` allocates ``a_tmp`` only for act-order layers (module docstring)"""
AWQ_MARLIN_FROM = (0, 5, 3)
"""``awq_marlin.py`` is in the 0.5.3.post1 wheel (not in the 0.4.3 wheel; 0.5.0–0.5.2 not read: taken as absent)"""
GPTQ_MARLIN_FROM = (0, 4, 3)
"""``gptq_marlin.py`` is in the 0.4.3 wheel, the oldest read (earlier releases taken as without it)"""
MARLIN_GROUP_SIZES = (-1, 32, 64, 128)
"""group sizes ``check_marlin_supported`` accepts (``MARLIN_SUPPORTED_GROUP_SIZES``, 0.6.6.post1)"""
MARLIN_MIN_CAPABILITY = (8, 0)
"""Marlin's minimum compute capability (``query_marlin_supported_quant_types``: 80)"""

_FLAGS = {"awq": ("", "marlin", "awq_marlin"), "gptq": ("", "marlin", "gptq_marlin")}


def marlin_kernel(model: ModelSpec, flag: str | None, release: tuple[int, int, int],
                  compute_capability: tuple[int, int] | None) -> str | None:
    """``"awq_marlin"`` / ``"gptq_marlin"`` where vLLM runs the checkpoint's linear layers through Marlin, else None
    (module docstring).  An unknown compute capability is taken as Marlin capable."""
    q = model.quant
    if q is None:
        return None
    method = q.raw_method.lower()
    if method not in _FLAGS or (flag or "").lower() not in _FLAGS[method]:
        return None
    if release < (AWQ_MARLIN_FROM if method == "awq" else GPTQ_MARLIN_FROM):
        return None
    if compute_capability is not None and tuple(compute_capability) < MARLIN_MIN_CAPABILITY:
        return None
    group = -1 if q.group_size is None else q.group_size
    if group not in MARLIN_GROUP_SIZES:
        return None
    if q.weight_bits not in (4, 8):
        return None
    return f"{method}_marlin"


def v0_marlin_a_tmp(model: ModelSpec, flag: str | None, release: tuple[int, int, int], engine: str,
                    compute_capability: tuple[int, int] | None) -> bool:
    """Whether the V0 profile's MLP and attention phases hold Marlin's (M, K) ``a_tmp`` (module docstring)."""
    return (engine == "V0" and release < MARLIN_A_TMP_BEFORE
            and marlin_kernel(model, flag, release, compute_capability) is not None)


def with_v0_marlin_a_tmp(act, model: ModelSpec, *, tp: int, tokens: int, act_bytes: int, gate_up_kept: bool,
                         out_of_place: bool):
    """``act`` (``profile.ActivationEstimate`` of a V0 run that holds the temporary) with Marlin's ``a_tmp`` added
    where it is alive, and the peak taken again: the dense MLP phase becomes max(its value, the ``down_proj`` moment
    of ``profile._v0_dense_mlp`` (4H + 3I with gate_up kept, else 4H + I; + H for the out-of-place all-reduced copy)
    + T × I/tp); the attention phase adds T × q (``o_proj``'s input, heads/tp × v_head_dim)."""
    h, width = model.hidden_size, widest_dense_mlp(model) // tp
    q = max(1, model.num_attention_heads // tp) * model.v_head_dim
    down_w = 4 * h + (3 * width if gate_up_kept else width) + (h if out_of_place else 0) + width
    parts = []
    for part in act.parts:
        if part.item == "profile phase: dense MLP":
            down = Bytes(tokens * down_w * act_bytes)
            part = replace(part, bytes=down if down > part.bytes else part.bytes,
                           source=part.source + f"; with Marlin's a_tmp (T × I/tp) at down_proj: T × {down_w:,} × "
                                                f"{act_bytes} B = {gib_text(down)} (engines/vllm/marlin_v0.py)")
        elif part.item == "profile phase: attention":
            part = replace(part, bytes=part.bytes + Bytes(tokens * q * act_bytes),
                           source=part.source + f" + Marlin a_tmp at o_proj T × q {q:,} × {act_bytes} B")
        parts.append(part)
    top = max(parts, key=lambda part: part.bytes)
    return replace(act, peak=top.bytes, parts=tuple(parts), limiting_phase=top.item.removeprefix("profile phase: "))
