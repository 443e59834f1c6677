"""Flags resolved to the values vLLM would use for a version, with every input check (spec §1.3, §1.5).

Default batch sizes (``get_batch_defaults``, API server): ≥ 70 GiB devices other than A100 get
``max_num_batched_tokens`` 8192 / ``max_num_seqs`` 1024, others 2048 / 256.  V0 profiled
``max(max_model_len, 2048)`` tokens (512 with chunked prefill, on by default above 32K tokens) over 256
sequences.
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.dtypes import lookup_dtype
from tpkit.engines.vllm.options import DTYPES_ACCEPTED, VllmOptions
from tpkit.engines.vllm.pages import check_block_size, default_block_size
from tpkit.engines.vllm.versions import VllmRules
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.models.spec import ModelSpec
from tpkit.units import GiB

__all__ = ["Resolved", "resolve_inputs"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Resolved:
    """Every sizing input after defaults."""

    max_model_len: int
    """tokens per request"""
    utilization: float
    """gpu_memory_utilization used"""
    act_dtype: str
    act_bytes: int
    """bytes per activation element"""
    kv_dtype: str
    kv_bytes: int
    """bytes per KV element"""
    block_size: int
    """tokens per block (before hybrid alignment)"""
    max_num_batched_tokens: int
    max_num_seqs: int
    sampler_rows: int
    """dummy requests in the profile run = sampler rows (min(tokens, seqs))"""
    compute_capability: tuple[int, int] | None
    notes: tuple[str, ...] = ()


def _max_model_len(model: ModelSpec, options: VllmOptions) -> int:
    limit = model.max_position_embeddings
    if options.max_model_len is None:
        return limit
    if options.max_model_len > limit:
        raise PlanInputError(
            f"--max-model-len {options.max_model_len:,} is above {model.name}'s limit of {limit:,} tokens "
            f"(max_position_embeddings); pass --max-model-len {limit} or less (vLLM refuses longer unless "
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)")
    return options.max_model_len


def _act_dtype(model: ModelSpec, options: VllmOptions) -> tuple[str, int]:
    """(canonical activation dtype, bytes per element)."""
    name = (options.dtype or "auto").removeprefix("torch.")
    if name == "auto":
        name = model.torch_dtype if model.torch_dtype != "float32" else "bfloat16"
    elif name not in DTYPES_ACCEPTED:
        raise PlanInputError(f"--dtype {options.dtype!r} is not one of auto, bfloat16, float16, float32")
    found = lookup_dtype(name)
    return found.name, found.bytes


def _batch(gpu: GpuSpec, options: VllmOptions, rules: VllmRules, length: int, model: ModelSpec) -> tuple[int, int]:
    if rules.engine == "V0":
        chunked = length > 32768 and model.sliding_window is None and model.mla is None
        tokens = options.max_num_batched_tokens or (512 if chunked else max(length, 2048))
        return tokens, options.max_num_seqs or 256
    big = gpu.total_bytes >= GiB(70) and "a100" not in gpu.name.lower()
    tokens = options.max_num_batched_tokens or (8192 if big else 2048)
    seqs = options.max_num_seqs or min(1024 if big else 256, tokens)
    if tokens < seqs:
        raise PlanInputError(f"--max-num-batched-tokens {tokens} is below --max-num-seqs {seqs}; vLLM needs "
                             f"max_num_batched_tokens ≥ max_num_seqs: raise it to {seqs} or lower --max-num-seqs")
    return tokens, seqs


def resolve_inputs(model: ModelSpec, gpu: GpuSpec, options: VllmOptions, rules: VllmRules) -> Resolved:
    """Apply the version's defaults and check every flag against the model and GPU."""
    length = _max_model_len(model, options)
    if options.kv_cache_memory_bytes is not None and rules.engine == "V0":
        raise PlanInputError("--kv-cache-memory-bytes does not exist in V0-era vLLM (≤ 0.7); remove it or plan "
                             "with --engine-version 0.11 or current")
    act_name, act_bytes = _act_dtype(model, options)
    explicit = None if options.kv_cache_dtype == "auto" else lookup_dtype(options.kv_cache_dtype)
    kv_bytes = explicit.bytes if explicit else act_bytes
    kv_name = act_name if explicit is None else ("uint8" if kv_bytes == 1 else act_name)
    cap = gpu.compute_capability
    if options.block_size is not None:
        check_block_size(model, options.block_size, rules.era, cap)
    block = options.block_size or default_block_size(model, rules.era, cap)
    tokens, seqs = _batch(gpu, options, rules, length, model)
    return Resolved(
        max_model_len=length, utilization=options.gpu_memory_utilization or rules.default_utilization,
        act_dtype=act_name, act_bytes=act_bytes, kv_dtype=kv_name, kv_bytes=kv_bytes, block_size=block,
        max_num_batched_tokens=tokens, max_num_seqs=seqs, sampler_rows=min(tokens, seqs),
        compute_capability=cap)
