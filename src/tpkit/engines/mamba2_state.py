"""vLLM's Mamba-2 state sizes and SSM dtype rule (pure): one home that the planner (``engines.vllm.layer_bytes``) and
the forward-pass model (``perf.linear_state``) both import.

Here rather than in ``engines/vllm/`` so that `tpkit perf` prices the state vLLM keeps without importing the vLLM
policy package (tests/cli/test_cold_imports.py ``PERF_NOT``); moved out of ``engines/vllm/layer_bytes.py`` unchanged
(helper fx35c, 2026-12-07; the rules are round rl35's, docs/accuracy.md §2).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.engines.vllm.rules import VllmRules
    from tpkit.models.spec import ModelSpec

__all__ = ["MAMBA2_SPEC_TYPES", "mamba2_state_bytes", "ssm_state_bytes"]


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def mamba2_state_bytes(model: ModelSpec, tp: int, dtype_bytes: int, temporal_bytes: int) -> int:
    """vLLM's Mamba-2 state per request per layer on one rank for the ``mamba_*``-keyed configs (Granite-4.0-H,
    Bamba): conv ``(mamba_d_conv − 1) × conv_dim/tp`` in the conv dtype and temporal ``heads/tp × d_head ×
    d_state`` in ``temporal_bytes`` (``models/granitemoehybrid.py get_mamba_state_shape_from_config`` /
    ``get_mamba_state_dtype_from_config`` → ``layers/mamba/mamba_utils.py``
    ``MambaStateShapeCalculator.mamba2_state_shape`` and ``MambaStateDtypeCalculator.mamba2_state_dtype``, 0.10.1 –
    0.34.0 wheels).  Taken from the TP-1 sizes ``ModelSpec.linear_attn`` carries (conv in bf16, temporal in SGLang's
    fp32) and rescaled to the two dtypes; the groups raised to tp when tp does not divide them
    (``extra_groups_for_head_shards``) and 0.33's speculative conv columns for this class are not modelled (the split
    stays even, as before round rl35)."""
    la = model.linear_attn
    temporal_fp32 = la.temporal_bytes_per_layer.bytes
    conv_bf16 = la.state_bytes_per_layer.bytes - temporal_fp32
    return _cdiv(conv_bf16 // 2 * dtype_bytes, tp) + _cdiv(temporal_fp32 // 4 * temporal_bytes, tp)


MAMBA2_SPEC_TYPES = ("granitemoehybrid", "bamba", "falcon_h1")
"""Mamba-2 model types with ``mamba_n_heads``-keyed configs (``models.linear_attn._mamba2``) whose vLLM class sizes
its state with ``MambaStateDtypeCalculator.mamba2_state_dtype(model_config.dtype, mamba_cache_dtype,
mamba_ssm_cache_dtype)`` (``get_mamba_state_dtype_from_config`` of granitemoehybrid.py and falcon_h1.py, 0.10.1 –
0.34.0 wheels, bamba.py 0.10.1 – 0.22.0, absent from the 0.24.0 wheel; NemotronH has its own rule, ``ssm_state_bytes``)"""

_DTYPE_BYTES = {"float32": 4, "float": 4, "bfloat16": 2, "float16": 2, "half": 2}


def ssm_state_bytes(model: ModelSpec, rules: VllmRules | None, dtype_bytes: int) -> int:
    """Bytes per element of the mamba temporal (SSM) state: the config's ``mamba_ssm_dtype`` where the release
    reads it for the architecture (``VllmRules.ssm_dtype_from_config``: Qwen3.5 wrappers ≥ 0.17.0, text-only
    Qwen3.5 ≥ 0.27.0, ``model_executor/models/config.py Qwen3_5ForConditionalGenerationConfig``); for NemotronH
    the config's ``mamba_ssm_cache_dtype`` else the release's default (``VllmRules.nemotron_h_ssm_default``:
    float16 0.13–0.19, float32 from 0.20, ``NemotronHForCausalLMConfig``); else the conv dtype
    (``--mamba-ssm-cache-dtype auto``)."""
    if rules is not None and rules.nemotron_h_ssm_default and model.model_type == "nemotron_h":
        named = str(model.extra.get("mamba_ssm_cache_dtype") or rules.nemotron_h_ssm_default).lower()
        return _DTYPE_BYTES.get(named, dtype_bytes)
    named = str(model.extra.get("mamba_ssm_dtype") or "").lower()
    if rules is not None and model.architecture in rules.ssm_dtype_from_config and named in _DTYPE_BYTES:
        return _DTYPE_BYTES[named]
    return dtype_bytes
