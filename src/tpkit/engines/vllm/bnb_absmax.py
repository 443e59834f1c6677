"""The fp32 block scales vLLM keeps for in-flight bitsandbytes nf4 weights (round rl35, lead 2; pure).

``--quantization bitsandbytes`` on a bf16 / fp16 checkpoint: ``BitsAndBytesModelLoader._quantized_4bit_generator``
calls bitsandbytes' ``quantize_4bit(..., compress_statistics=True, quant_type="nf4")`` on the GPU, which stores a
uint8 absmax per block of 64 values and, nested, an fp32 absmax per 256 of those (``models.quant.matrix_bytes``,
what the weights plan charges).  From vLLM 0.9.2 the loader undoes that nesting while it binds the quant states to
the parameters (``model_loader/bitsandbytes_loader.py``: ``dequantize_dq`` in 0.9.2, ``_dequantize_dq`` called
from ``_bind_quant_states_to_params`` in 0.10.1 – 0.26.0; "comes at the cost of increased memory usage"): each
state's absmax becomes ``dequantize_blockwise(absmax, state2) + offset`` in float32 and the nested state is
dropped, so every quantised block of 64 keeps 4 B of scale instead of 1 B + 4 B / 256.  That happens inside
``load_weights``, under the model runner's ``DeviceMemoryProfiler``: "Model loading took" holds it.  Absent from
0.9.1 and older (0.4.1 – 0.9.1 wheels read: no ``dequantize_dq``).  0.28.0 ships no bitsandbytes loader and no
``bitsandbytes`` quantization method at all (``check_bnb_release``).
Only the in-flight method (``models.quant.bnb_online``) is charged: a pre-quantised bnb checkpoint's nesting is
the checkpoint's own and tpkit plans it from its config.
"""

from __future__ import annotations

from tpkit.engines.vllm.load_lines import BNB_ABSMAX_ITEM
from tpkit.errors import PlanInputError
from tpkit.memory.ledger import LineItem
from tpkit.units import Bytes

__all__ = ["BNB_ABSMAX_ITEM", "BNB_DEQUANT_ABSMAX_FROM", "BNB_REMOVED_IN", "bnb_absmax_lines", "bnb_absmax_extra",
           "check_bnb_release"]

BNB_DEQUANT_ABSMAX_FROM = (0, 9, 2)
"""first release whose bitsandbytes loader dequantises the nested absmax at load (vLLM PR #19742; 0.9.1 wheel:
absent, 0.9.2 wheel: ``dequantize_dq``)"""
BNB_REMOVED_IN = (0, 28, 0)
"""first release without bitsandbytes: the 0.27.0 wheel holds ``model_loader/bitsandbytes_loader.py`` and
``layers/quantization/bitsandbytes.py`` (``"bitsandbytes"`` in ``QUANTIZATION_METHODS``); the 0.28.0, 0.29.0 and
0.34.0 wheels hold neither, so vLLM refuses the method name"""
BNB_BLOCK = 64
"""values per absmax block (``quantize_4bit`` blocksize 64)"""


def _quantised_elements(w_plan) -> int:
    """Elements stored as nf4 on the rank: the weight lines whose bytes are half their elements (4-bit)."""
    return sum(ln.params for ln in w_plan.lines if ln.params and ln.bytes.bytes * 2 == ln.params)


def bnb_absmax_extra(w_plan, release: tuple[int, int, int]) -> Bytes:
    """Bytes the fp32 absmax adds over the plan's nested scales (the ``quant scales`` line), 0 where it does not
    apply (not in-flight bitsandbytes, or before ``BNB_DEQUANT_ABSMAX_FROM``)."""
    quant = getattr(w_plan, "quant", None)
    if quant is None or quant.raw_method != "bitsandbytes (online)" or release < BNB_DEQUANT_ABSMAX_FROM:
        return Bytes(0)
    nested = sum(ln.bytes.bytes for ln in w_plan.lines if ln.item == "quant scales")
    fp32 = -(-_quantised_elements(w_plan) // BNB_BLOCK) * 4
    return Bytes(max(0, fp32 - nested))


def bnb_absmax_lines(w_plan, release: tuple[int, int, int]) -> tuple[LineItem, ...]:
    """The load-delta line for ``bnb_absmax_extra``, none where it is 0."""
    extra = bnb_absmax_extra(w_plan, release)
    if not extra.bytes:
        return ()
    return (LineItem(item=BNB_ABSMAX_ITEM, bytes=extra,
                     source=f"{_quantised_elements(w_plan):,} nf4 values / {BNB_BLOCK} × 4 B fp32 absmax, less the "
                            "nested uint8 + fp32 scales the weights line holds: vLLM ≥ 0.9.2's bitsandbytes loader "
                            "dequantises the double-quantised absmax inside the load (bitsandbytes_loader.py "
                            "_dequantize_dq; in 'Model loading took')"),)


def check_bnb_release(release: tuple[int, int, int]) -> None:
    """Refuse a bitsandbytes plan (in-flight ``--quantization bitsandbytes`` or a bnb checkpoint) for a vLLM release
    that no longer has the method (``BNB_REMOVED_IN``): the engine would not start, so there is no pool to plan."""
    if release >= BNB_REMOVED_IN:
        shown = ".".join(str(v) for v in release)
        raise PlanInputError(
            f"bitsandbytes quantization is not in vLLM {shown}: vLLM removed its bitsandbytes loader and quantization "
            "method in 0.28.0 (present in the 0.27.0 wheel, absent from 0.28.0 on), so this run would not start. "
            "If you run an older vLLM, pass its release (--engine-version 0.27.0 or older); otherwise plan another "
            "method (an AWQ / GPTQ checkpoint, or --quantization fp8)")
