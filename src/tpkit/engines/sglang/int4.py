"""``--sglang-int4-weight``: SGLang's ``SGLANG_INT4_WEIGHT=1`` (int4 MoE expert weights on AMD GPUs) in the weights.

What the engine does (read in the sglang 0.4.7, 0.5.6.post2 and 0.5.23 wheels, ``layers/quantization/fp8.py``):
``_use_hip_int4 = get_bool_env_var("SGLANG_INT4_WEIGHT")`` (``and _is_hip`` in 0.5.6.post2 and 0.5.23; in 0.4.7
the weights branch tests ``_is_hip and _use_hip_int4`` itself), and ``Fp8MoEMethod.create_weights`` then
builds the routed experts of an fp8 MoE layer as

- ``w13_weight`` ``[experts, 2 × intermediate_per_partition, hidden // 8]`` and ``w2_weight`` ``[experts, hidden,
  intermediate_per_partition // 8]``, dtype ``torch.uint32`` for an fp8-serialized checkpoint: int4 values packed
  eight to a 32-bit word, half the fp8 bytes;
- besides the per-tensor fp32 ``w13_weight_scale`` ``[experts, 2]`` / ``w2_weight_scale`` ``[experts]``, the
  per-channel fp32 ``w13_weight_scale1`` ``[experts, 2 × intermediate_per_partition]`` and ``w2_weight_scale1``
  ``[experts, hidden]`` (created on HIP for a per-tensor fp8 layer; a block-quantised layer keeps its block scales
  ``w13_weight_scale_inv`` / ``w2_weight_scale_inv`` and has no ``scale1``);

``process_weights_after_loading`` calls ``process_weights_hip_int4`` (a shuffle of the same tensors, no new
copies kept).  Dense MLPs, shared experts and attention stay fp8 (``Fp8LinearMethod`` reads no such variable).
The releases: ``SGLANG_INT4_WEIGHT`` from 0.4.7 to 0.5.23 (registered in ``environ.py`` in 0.5.6.post2); 0.4.4 –
0.4.6 read the same switch as ``USE_INT4_WEIGHT`` (``torch.int32`` words, the same shapes, built without an
``_is_hip`` test but run only by the HIP fused-MoE path); 0.4.3.post2 and earlier have neither (``INT4_FROM``).

The packed shapes take only a checkpoint stored that way (fp8-serialized with int4 experts): a bf16 checkpoint
quantised online (``--quantization fp8`` on a config without ``quantization_config``) would not fit them, so with
the flag the experts are planned packed either way and a note says the checkpoint is taken to be such a one.
On an NVIDIA GPU the variable changes nothing (``_is_hip`` is False): the flag is kept and a note says so.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines.sglang.versions import at_least
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import is_amd
from tpkit.units import Bytes, gib_text

__all__ = ["INT4_FROM", "ENV_NAME_FROM", "int4_on", "check_int4_flag", "int4_applies", "int4_weights",
           "int4_notes"]

INT4_FROM = "0.4.4"
"""first release read with the int4 MoE switch (0.4.4 ``fp8.py``: ``USE_INT4_WEIGHT``; absent in 0.4.3.post2)"""
ENV_NAME_FROM = "0.4.7"
"""first release that reads it as ``SGLANG_INT4_WEIGHT`` (0.4.6: ``USE_INT4_WEIGHT``)"""
_FP8_METHODS = ("fp8", "fp8 (online)")
"""``QuantSpec.raw_method`` values SGLang loads with ``Fp8Config`` (so its MoE layers with ``Fp8MoEMethod``)"""
_MARK = "int4 MoE experts (SGLANG_INT4_WEIGHT)"


def int4_on(options) -> bool:
    """``--sglang-int4-weight on`` (True from the API too)."""
    return str(getattr(options, "sglang_int4_weight", None)).lower() in ("on", "1", "true")


def check_int4_flag(o) -> None:
    """Refuse a value other than on / off, and ``on`` for a release without the switch (before ``INT4_FROM``)."""
    value = o.sglang_int4_weight
    if value is not None and str(value).lower() not in ("on", "off", "0", "1", "true", "false"):
        raise PlanInputError(f"--sglang-int4-weight must be on or off, got {value!r}")
    if int4_on(o) and not at_least(o.engine_version, INT4_FROM):
        raise PlanInputError(f"--sglang-int4-weight on: SGLang {o.engine_version} has no int4 MoE switch (read from "
                             f"{INT4_FROM} as USE_INT4_WEIGHT, from {ENV_NAME_FROM} as SGLANG_INT4_WEIGHT, "
                             "layers/quantization/fp8.py); leave it out or plan a later --engine-version")


def _fp8_moe(model, quant) -> bool:
    from tpkit.models.dsv4_weights import is_dsv4

    return (model.moe is not None and quant is not None and quant.raw_method in _FP8_METHODS
            and not is_dsv4(model))


def int4_applies(model, gpu, options, weights) -> bool:
    """The flag packs this plan's experts: on, an AMD GPU, an fp8 MoE model, weights derived from the config (a
    safetensors checkpoint's packed tensors are read as stored) and not packed already."""
    method = str(getattr(weights, "method", ""))
    return (int4_on(options) and is_amd(getattr(gpu, "vendor", None)) and "derived" in method
            and _MARK not in method and _fp8_moe(model, getattr(weights, "quant", None)))


def _expert_parts(model, parallel, weights):
    """(part, times, local rows, local cols, local count) of every quantised routed-expert matrix on the reported
    rank (``models.weights``' layer groups and shard rules)."""
    from tpkit.models.layout import stage_layers
    from tpkit.models.params import layer_groups, layer_parts
    from tpkit.models.quant import is_quantised
    from tpkit.models.weights import local_shape, names_matter

    quant = weights.quant
    layers = stage_layers(model.num_layers, parallel.pp, weights.stage, weights.pp_split)
    for first, times, moe_layer in layer_groups(model, layers, by_name=names_matter(quant)):
        if not moe_layer:
            continue
        for part in layer_parts(model, first, moe_layer=True):
            if part.category == "routed_experts" and is_quantised(part, quant):
                out, inp, count = local_shape(model, part, tp=parallel.tp, attn_tp=parallel.attn_tp,
                                              ep=parallel.ep, expert_tp=parallel.expert_tp)
                yield part, times, out, inp, count


def int4_weights(weights, model, parallel):
    """``weights`` with the routed experts of its fp8 MoE layers as SGLang builds them under SGLANG_INT4_WEIGHT on
    HIP (module doc): values ``rows × (cols // 8)`` uint32 words (4 B) per matrix in place of the fp8 bytes; scales:
    a block-quantised layer keeps its block scales, a per-tensor one has one fp32 per matrix and one fp32 per output
    row (``scale1``) in place of tpkit's fp8 per-row scales."""
    from tpkit.models.quant import matrix_bytes

    quant = weights.quant
    old_values = old_scales = new_values = new_scales = 0
    for _, times, out, inp, count in _expert_parts(model, parallel, weights):
        values = -(-out * inp * quant.weight_bits // 8)
        old_values += times * count * values
        old_scales += times * count * (matrix_bytes(out, inp, quant) - values)
        new_values += times * count * out * (inp // 8) * 4
        new_scales += times * count * ((matrix_bytes(out, inp, quant) - values) if quant.block_size
                                       else out * 4 + 4)
    if not old_values:
        return weights
    how = ("block scales kept" if quant.block_size else
           "+ fp32 per-tensor scale and per-channel scale1 per matrix")
    lines = []
    for line in weights.lines:
        if line.item == "routed experts":
            line = replace(line, bytes=line.bytes - Bytes(old_values - new_values),
                           source=f"{line.source}; int4 packed eight to a uint32 (SGLANG_INT4_WEIGHT on HIP, "
                                  f"Fp8MoEMethod.create_weights): {gib_text(Bytes(new_values))} in place of "
                                  f"{gib_text(Bytes(old_values))} of fp8")
        elif line.item == "quant scales":
            line = replace(line, bytes=line.bytes - Bytes(old_scales - new_scales),
                           source=f"{line.source}; routed experts under SGLANG_INT4_WEIGHT: {how}")
        lines.append(line)
    delta = Bytes(old_values + old_scales - new_values - new_scales)
    stages = tuple(b - delta if i == weights.stage else b for i, b in enumerate(weights.stage_bytes))
    return replace(weights, bytes_per_rank=weights.bytes_per_rank - delta, lines=tuple(lines),
                   method=f"{weights.method}; {_MARK}", stage_bytes=stages)


def int4_notes(model, gpu, options) -> tuple[str, ...]:
    """What ``--sglang-int4-weight on`` did to this plan, or why it changed nothing (no note when off)."""
    if not int4_on(options):
        return ()
    from tpkit.models.quant import resolve_quant

    quant, version = resolve_quant(model.quant, options.quantization), options.engine_version
    if not is_amd(getattr(gpu, "vendor", None)):
        return (f"--sglang-int4-weight on: SGLANG_INT4_WEIGHT is read only on AMD GPUs (ROCm/HIP builds: "
                f"_use_hip_int4 needs _is_hip, layers/quantization/fp8.py), so on this {gpu.vendor} GPU it changes "
                "nothing: the experts are planned as the quantisation says",)
    if not _fp8_moe(model, quant):
        what = "no MoE experts" if model.moe is None else "its experts are not loaded by SGLang's Fp8MoEMethod"
        return (f"--sglang-int4-weight on changes nothing here: the model has {what} (SGLANG_INT4_WEIGHT packs only "
                "the routed experts of an fp8 MoE layer: --quantization fp8 or an fp8 checkpoint, "
                "Fp8MoEMethod.create_weights)",)
    out = ["--sglang-int4-weight on: the routed experts are planned as int4 packed eight to a 32-bit word with fp32 "
           "per-channel scales (SGLANG_INT4_WEIGHT, Fp8MoEMethod.create_weights on HIP); attention, dense MLPs and "
           "shared experts stay fp8"]
    if quant.raw_method == "fp8 (online)":
        out.append("--sglang-int4-weight on with --quantization fp8 on a config without quantization_config: the "
                   "packed int4 expert shapes take only a checkpoint stored that way (fp8-serialized with int4 "
                   "experts), so the checkpoint is taken to be one; a bf16 checkpoint does not fit them and SGLang "
                   "would not load it")
    if not at_least(version, ENV_NAME_FROM):
        out.append(f"SGLang {version} reads the switch as USE_INT4_WEIGHT (SGLANG_INT4_WEIGHT from {ENV_NAME_FROM})")
    return tuple(out)
