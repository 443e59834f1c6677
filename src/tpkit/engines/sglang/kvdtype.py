"""The KV element dtype SGLang serves for a model and its options (pure; light, so ``tpkit explain`` reads it
without the sizing module).

SGLang ``model_runner.py`` ``configure_kv_cache_dtype``; 0.5.23 ``mem_cache/kv_cache_dtype.py``.

``--kv-cache-dtype auto`` follows the checkpoint's fp8 KV (the loaded quant config's ``kv_cache_quant_algo ==
"FP8"`` → float8_e4m3fn) from 0.5.3: ``ModelRunner.configure_kv_cache_dtype`` reads it in the 0.5.3, 0.5.3.post3,
0.5.4, 0.5.6, 0.5.9, 0.5.10 and 0.5.13 wheels and ``mem_cache/kv_cache_dtype.py`` in 0.5.23; 0.5.2 and 0.4.10.post1
(and every earlier wheel read: 0.4.3.post2 – 0.4.10) set ``auto`` to the model dtype whatever the checkpoint says
(helper gx31, session 31).
"""

from __future__ import annotations

from tpkit.dtypes import WEIGHT_DTYPES, lookup_dtype
from tpkit.engines.sglang.options import explicit_kv_dtype
from tpkit.engines.sglang.versions import at_least

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at start (a few ms; issue 12)
if TYPE_CHECKING:
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.models.spec import ModelSpec

__all__ = ["resolve_kv_dtype", "CHECKPOINT_KV_FIRST"]

CHECKPOINT_KV_FIRST = "0.5.3"
"""first release whose ``kv_cache_dtype auto`` takes the checkpoint's kv_cache_quant_algo FP8 (module docstring)"""


def _served(name: str | None) -> str | None:
    """KV dtype for a model dtype under ``--dtype auto`` (an fp32 checkpoint is served in bf16); None: not one."""
    found = lookup_dtype(name) if name else None
    if found is None or found.name not in WEIGHT_DTYPES:
        return None
    return "bfloat16" if found.name == "float32" else found.name


def resolve_kv_dtype(model: ModelSpec, options: SglangOptions) -> tuple[str, str]:
    """(KV element dtype, why): explicit flag, checkpoint fp8 KV, or the model dtype (sglang ``model_runner.py``
    ``configure_kv_cache_dtype``; 0.5.23 ``mem_cache/kv_cache_dtype.py``)."""
    explicit = explicit_kv_dtype(options.kv_cache_dtype)
    if explicit is not None:
        return explicit, f"--kv-cache-dtype {options.kv_cache_dtype}"
    if model.quant is not None and model.quant.kv_cache_fp8 and at_least(options.engine_version, CHECKPOINT_KV_FIRST):
        return "fp8_e4m3", "checkpoint kv_cache_quant_algo FP8"
    raw = options.dtype or model.torch_dtype or "bfloat16"
    flag = lookup_dtype(options.dtype) if options.dtype else None
    if flag is not None and flag.name == "float32":
        return "float32", f"--dtype {options.dtype}"  # only dtype=auto turns an fp32 checkpoint into bf16
    dtype = _served(raw) or _served(model.torch_dtype) or "bfloat16"
    return dtype, f"model dtype {raw}"
