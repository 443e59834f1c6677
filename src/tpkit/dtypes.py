"""One dtype vocabulary: every spelling tpkit accepts → a canonical dtype with its byte size.

    canonical   bytes  spellings (case-insensitive, an optional ``torch.`` prefix)
    bfloat16    2      bfloat16, bf16
    float16     2      float16, fp16, half
    float32     4      float32, fp32, float
    fp8_e4m3    1      fp8_e4m3, fp8, fp8_e4m3fn, float8_e4m3fn, fp8_inc (vLLM's Intel Gaudi fp8, e4m3 storage)
    fp8_e5m2    1      fp8_e5m2, float8_e5m2

An engine accepts only some spellings for a flag (vLLM's ``--dtype`` has no ``bf16``); it lists them as data
and reads their meaning here.  ``"auto"`` is not a dtype: it means "follow the model" and stays with the caller.
"""

from __future__ import annotations

from tpkit.records import dataclass

__all__ = ["Dtype", "DTYPES", "SPELLINGS", "WEIGHT_DTYPES", "lookup_dtype"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Dtype:
    """One element type."""

    name: str
    """canonical name (``bfloat16``, ``float16``, ``float32``, ``fp8_e4m3``, ``fp8_e5m2``)"""
    bytes: int
    """bytes per element"""
    torch_name: str
    """the ``torch`` attribute name (``float8_e4m3fn`` for ``fp8_e4m3``)"""
    short: str
    """the short spelling (``bf16``, ``fp16``, ``fp32``, ``fp8_e4m3``, ``fp8_e5m2``): all-reduce profiles and the
    bench's ``--dtype`` use it"""


DTYPES: dict[str, Dtype] = {d.name: d for d in (
    Dtype(name="bfloat16", bytes=2, torch_name="bfloat16", short="bf16"),
    Dtype(name="float16", bytes=2, torch_name="float16", short="fp16"),
    Dtype(name="float32", bytes=4, torch_name="float32", short="fp32"),
    Dtype(name="fp8_e4m3", bytes=1, torch_name="float8_e4m3fn", short="fp8_e4m3"),
    Dtype(name="fp8_e5m2", bytes=1, torch_name="float8_e5m2", short="fp8_e5m2"),
)}
"""canonical name → dtype"""

SPELLINGS: dict[str, str] = {
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float16": "float16", "fp16": "float16", "half": "float16",
    "float32": "float32", "fp32": "float32", "float": "float32",
    "fp8_e4m3": "fp8_e4m3", "fp8": "fp8_e4m3", "fp8_e4m3fn": "fp8_e4m3", "float8_e4m3fn": "fp8_e4m3",
    "fp8_inc": "fp8_e4m3",
    "fp8_e5m2": "fp8_e5m2", "float8_e5m2": "fp8_e5m2",
}
"""every accepted spelling (lower case) → canonical name"""

WEIGHT_DTYPES = ("bfloat16", "float16", "float32")
"""canonical dtypes an unquantised checkpoint or ``--dtype`` may have (also the all-reduce dtypes)"""


def lookup_dtype(text: str) -> Dtype | None:
    """The dtype ``text`` spells (``"bf16"``, ``"torch.bfloat16"``, ``"FP8"`` …), or None when it names none."""
    if not isinstance(text, str):
        return None
    name = SPELLINGS.get(text.strip().lower().removeprefix("torch."))
    return DTYPES[name] if name else None
