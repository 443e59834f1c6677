"""SGLang's MLA decode weights ``w_kc`` / ``w_vc``: the copies of ``kv_b_proj`` an MLA model makes at the end of its
weight load, inside the 'Load weight begin' → 'Load weight end' window (helper gx32, 2026-12-07; lead: round gx31).

Read in the release wheels (``models/deepseek_v2.py``; from 0.5.9 ``models/deepseek_common/deepseek_weight_loader.py``
``DeepseekV2WeightLoaderMixin.post_load_weights``): 0.2.15, 0.3.0, 0.3.6.post3, 0.4.0 – 0.4.3, 0.4.3.post2 – post4,
0.4.4, 0.4.5, 0.4.6, 0.4.6.post1 – post5, 0.4.7, 0.4.8, 0.4.9, 0.4.9.post1 – post3, 0.4.10, 0.5.2 – 0.5.13, 0.5.15,
0.5.16, 0.5.18, 0.5.23.  For every decoder layer the step takes ``w`` = ``kv_b_proj``'s weight (heads per rank ×
(qk_nope + v_head) rows × kv_lora_rank), splits it per head into the K and V halves and binds
``w_kc = w_kc.transpose(1, 2).contiguous().transpose(1, 2)`` and ``w_vc = w_vc.contiguous().transpose(1, 2)``: both
halves are strided slices, so each ``contiguous()`` is a new tensor — together the size of ``w`` in ``w``'s dtype.

* **Up to 0.4.0** (``load_weights``, gated by ``enable_mla`` / ``disable_mla``) the step ends with
  ``del self_attn.kv_b_proj``: the copies replace the weight, nothing is added (the allocator keeps at most one
  layer's freed block).  **From 0.4.1** there is no ``del``: ``kv_b_proj`` stays (the prefill / MHA path uses it;
  read up to 0.5.23) and the copies are extra.
* **The copies' dtype** (``w`` after the conversions of the step; ``MlaCopyRule``):
  - ``kv_b_proj`` unquantised at that point (a bf16 checkpoint; a checkpoint that leaves attention unquantised —
    Kimi's INT4 experts, NVFP4 with attention excluded; and ``--quantization fp8`` on a bf16 checkpoint, because
    ``DefaultModelLoader.load_weights_and_postprocess`` runs ``model.load_weights`` — and so this step — before
    ``process_weights_after_loading`` quantises): the model dtype.
  - fp8 with a weight block (``weight_block_size``): ``block_quant_to_tensor_quant`` requantises to per-tensor fp8
    (1 B; ``input_to_float8`` in the checkpoint's fp8 type off CUDA, after ``normalize_e4m3fn_to_e4m3fnuz`` on
    fnuz GPUs), except on CUDA with a 128 × 128 block from **0.4.6.post3** (absent in 0.4.6.post2), where
    ``block_quant_dequant`` makes a **bf16** copy (2 B) — in 0.4.6.post3 – 0.4.9.post1 only when the default dtype
    is bf16 (``model_dtype == torch.bfloat16``; dropped in 0.4.9.post2).  0.4.6 – 0.4.6.post2 take DeepGEMM's
    batched GEMM on CUDA (fp8 copies, 1 B) when it is enabled, else the per-tensor fp8 requant: 1 B either way;
    from 0.4.6.post3 that path needs ``SGL_USE_DEEPGEMM_BMM=1`` (not on Blackwell) — an opt-in tpkit does not take.
    SM 10.x's UE8M0 requant (``_weight_requant_ue8m0``) rewrites the fp8 weights in place: no bytes.
  - fp8 per channel / per tensor: fp8 (1 B; ``channel_quant_to_tensor_quant`` from 0.4.6).
  - int8 (w8a8): bf16 (``int8_block_dequant(...).to(bfloat16)`` or ``w.to(bfloat16) × scale``) from
    **0.4.3.post3** (absent in 0.4.3.post2), int8 before.
  - AWQ-packed (``qweight``): ``awq_dequantize`` in the scales' dtype, the model dtype (from 0.4.1).
  - another quantised format: not read — the stored elements as they are (``w = kv_b_proj.weight``).
  Where a rank holds one head the V half is already contiguous: ``w_vc`` is a view of ``w`` (no copy when ``w`` is
  the weight itself; the whole converted ``w`` kept alive when it is a converted copy).
* **Sharded by the attention-TP size**: ``kv_b_proj`` is a ``ColumnParallelLinear`` over the attention TP group
  (tp / dp under ``--enable-dp-attention``; whole per rank before 0.4.5, where DP attention sets dp = tp), so the
  copies are too (``tpkit.models.weights.local_shape``).  Only the rank's layers (``range(start_layer, end_layer)``
  from 0.5.2).
* **Models**: ``DeepseekV2ForCausalLM`` / ``DeepseekV3ForCausalLM`` / ``DeepseekV32ForCausalLM`` and the classes
  that subclass or wrap them and call the same step: ``MistralLarge3ForCausalLM`` (0.5.23 ``mistral_large_3.py``),
  ``KimiK25ForConditionalGeneration`` (``language_model.load_weights``, 0.5.12, 0.5.23), ``KimiVLForConditionalGeneration``
  (``language_model.post_load_weights``, 0.5.23), ``Glm4MoeLiteForCausalLM`` (the mixin, 0.5.13, 0.5.15, 0.5.23),
  ``GlmMoeDsaForCausalLM`` (``glm4_moe.py``, 0.5.13, 0.5.23).

Not modelled (no case runs them): the MTP / NextN draft's one layer (``is_nextn``); the ROCm gfx95 branches under
``SGLANG_USE_AITER`` (0.5.2+ Quark MXFP4 ``quark_post_load_weights``: MXFP4 copies with e8m0 scales; 0.5.18+
GLM-5 bf16 → per-tensor fp8); the allocator's cached temporaries of the conversions (one layer's dequantised or fp32
tensor); MiniCPM3 and Kimi-Linear, which have their own step.
"""

from __future__ import annotations

from tpkit.hardware.gpu import is_nvidia
from tpkit.records import dataclass

from tpkit.engines.sglang.versions import LATEST, at_least_post
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, format_bytes

__all__ = ["mla_weight_copies", "copy_element_bytes", "MlaCopyRule", "MLA_COPY_ARCHITECTURES", "KV_B_KEPT_FROM",
           "INT8_TO_BF16_FROM", "CUDA_BF16_DEQUANT_FROM", "CUDA_BF16_ANY_DTYPE_FROM"]

KV_B_KEPT_FROM = "0.4.1"
"""first release whose post-load step keeps ``kv_b_proj`` next to ``w_kc`` / ``w_vc`` (0.4.0 ``del``s it)"""
INT8_TO_BF16_FROM = "0.4.3.post3"
"""first release that dequantises an int8 ``kv_b_proj`` to bf16 before the split (0.4.3.post2 does not)"""
CUDA_BF16_DEQUANT_FROM = "0.4.6.post3"
"""first release that dequantises a 128 × 128 block-fp8 ``kv_b_proj`` to bf16 on CUDA (0.4.6.post2 requantises it
to per-tensor fp8)"""
CUDA_BF16_ANY_DTYPE_FROM = "0.4.9.post2"
"""first release whose CUDA bf16 dequant no longer needs a bf16 default dtype (0.4.9.post1 still checks it)"""

MLA_COPY_ARCHITECTURES = frozenset({
    "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "MistralLarge3ForCausalLM",
    "KimiK25ForConditionalGeneration", "KimiVLForConditionalGeneration", "Glm4MoeLiteForCausalLM",
    "GlmMoeDsaForCausalLM"})
"""architectures whose SGLang class runs DeepSeek-V2's post-load step (module docstring)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class MlaCopyRule:
    """What the post-load step makes of one layer's ``kv_b_proj``."""

    element_bytes: float
    """bytes per element of ``w_kc`` / ``w_vc``"""
    converted: bool
    """``w`` is a converted copy (dequantised / requantised), not ``kv_b_proj``'s own tensor"""
    why: str
    """the branch, in words"""


def copy_element_bytes(version: str, *, vendor: str, state: str, block: tuple[int, int] | None = None,
                       act_bytes: int = 2, act_bf16: bool = True, stored_bytes: float = 1.0) -> MlaCopyRule:
    """The copies' element size for ``kv_b_proj`` in ``state`` at the post-load step: ``"unquantised"``, ``"fp8"``
    (``block``: its weight block, None per channel / tensor), ``"int8"``, ``"awq"`` or ``"other"`` (``stored_bytes``
    per element as stored), on a GPU of ``vendor`` (module docstring)."""
    if state == "unquantised":
        return MlaCopyRule(element_bytes=act_bytes, converted=False, why="kv_b_proj in the model dtype")
    if state == "fp8" and block is not None:
        cuda = is_nvidia(vendor)
        bf16_ok = act_bf16 or at_least_post(version, CUDA_BF16_ANY_DTYPE_FROM)
        if cuda and tuple(block) == (128, 128) and at_least_post(version, CUDA_BF16_DEQUANT_FROM) and bf16_ok:
            return MlaCopyRule(element_bytes=2, converted=True, why="block fp8 dequantised to bf16 on CUDA "
                               "(block_quant_dequant)")
        return MlaCopyRule(element_bytes=1, converted=True, why="block fp8 requantised per tensor "
                           "(block_quant_to_tensor_quant)")
    if state == "fp8":
        return MlaCopyRule(element_bytes=1, converted=at_least_post(version, "0.4.6"), why="per-channel / per-tensor fp8")
    if state == "int8":
        if at_least_post(version, INT8_TO_BF16_FROM):
            return MlaCopyRule(element_bytes=2, converted=True, why="int8 dequantised to bf16")
        return MlaCopyRule(element_bytes=1, converted=False, why="int8 as stored")
    if state == "awq":
        return MlaCopyRule(element_bytes=act_bytes, converted=True, why="AWQ qweight dequantised (awq_dequantize)")
    return MlaCopyRule(element_bytes=stored_bytes, converted=False, why="quantised kv_b_proj split as stored "
                       "(format not read)")


def _kv_b_state(model: ModelSpec, quantization: str | None, part) -> tuple[str, tuple[int, int] | None, float]:
    """(state, block, stored bytes per element) of ``kv_b_proj`` when the post-load step runs."""
    from tpkit.models.quant import is_quantised, resolve_quant

    quant = resolve_quant(model.quant, quantization)
    if model.quant is None or quant is None or not is_quantised(part, quant):
        return "unquantised", None, 0.0  # no checkpoint quantisation: an online --quantization runs after the step
    if quant.method == "fp8":
        return "fp8", quant.block_size, 1.0
    if quant.method == "int8":
        return "int8", None, 1.0
    if (quant.raw_method or "").lower().startswith(("awq", "gptq")):  # a ``qweight``: awq_dequantize takes it
        return "awq", None, quant.weight_bits / 8
    return "other", None, quant.weight_bits / 8


def _rank_kv_b(model: ModelSpec, parallel: ParallelSpec, weights) -> tuple[list, int]:
    """(the rank's ``kv_b_proj`` parts, rows per rank of one) over the planned stage's layers."""
    from tpkit.models.layout import stage_layers
    from tpkit.models.params import layer_parts
    from tpkit.models.weights import local_shape

    stage = getattr(weights, "stage", None) or 0
    split = getattr(weights, "pp_split", None) or "sglang"
    parts = [p for i in stage_layers(model.num_layers, parallel.pp, stage, split) for p in layer_parts(model, i)
             if p.name.endswith(".kv_b_proj")]
    if not parts:
        return [], 0
    rows = local_shape(model, parts[0], tp=parallel.tp, attn_tp=parallel.attn_tp, ep=parallel.ep)[0]
    return parts, rows


def mla_weight_copies(model: ModelSpec, parallel: ParallelSpec, *, version: str | None, vendor: str,
                      quantization: str | None = None, weights=None) -> tuple[Bytes, str]:
    """(bytes per rank, source) of ``w_kc`` + ``w_vc`` beyond the planned weights; (0, "") where none are added."""
    m = model.mla
    version = version or LATEST
    if m is None or model.architecture not in MLA_COPY_ARCHITECTURES or not at_least_post(version, KV_B_KEPT_FROM):
        return Bytes(0), ""
    parts, rows = _rank_kv_b(model, parallel, weights)
    if not parts:
        return Bytes(0), ""
    state, block, stored = _kv_b_state(model, quantization, parts[0])
    from tpkit.dtypes import DTYPES

    act = str(getattr(weights, "dtype", None) or "bfloat16")
    act_bytes = DTYPES[act].bytes if act in DTYPES else 2
    rule = copy_element_bytes(version, vendor=vendor, state=state, block=block, act_bytes=act_bytes,
                              act_bf16=act in ("bfloat16", "bf16"), stored_bytes=stored)
    heads = rows // (m.qk_nope_head_dim + m.v_head_dim)
    per_head = m.kv_lora_rank * rule.element_bytes
    if heads == 1:  # the V half is contiguous: w_vc is a view of w (module docstring)
        kept = (m.qk_nope_head_dim + (m.qk_nope_head_dim + m.v_head_dim if rule.converted else 0)) * per_head
    else:
        kept = rows * per_head
    total = Bytes(round(kept * len(parts)))
    return total, (f"MLA w_kc / w_vc {format_bytes(total)} ({len(parts)} layers × {heads} heads/rank × "
                   f"({m.qk_nope_head_dim} + {m.v_head_dim}) × {m.kv_lora_rank} × {rule.element_bytes:g} B: "
                   f"{rule.why}; kv_b_proj kept; engines/sglang/mla_copies.py)")
