"""Per-request recurrent state of the linear-attention layers a config declares (``ModelSpec.linear_attn``): Kimi
Delta Attention, Gated DeltaNet (Qwen3-Next / Qwen3.5), Mamba-2 (Granite-4.0-H) and LFM2 short convolutions, with
the dimension readers the engines' page and weight rules share (``mamba2_dims``, ``short_conv_dims``).
"""

from __future__ import annotations

from tpkit.errors import ConfigError
from tpkit.models.fields import optional_int
from tpkit.models.spec import LinearAttnSpec
from tpkit.units import Bytes

__all__ = ["linear_attn_spec", "mamba2_dims", "nemotron_h_mamba_dims", "short_conv_dims"]


def linear_attn_spec(text: dict, where: str) -> LinearAttnSpec | None:
    """Kimi Delta Attention: recurrent state heads·K·V in fp32 + q/k/v short-conv state (kernel−1) in bf16.
    Gated DeltaNet (Qwen3-Next ``linear_*`` keys): see ``_gdn``."""
    if text.get("linear_num_value_heads") is not None:
        return _gdn(text, where)
    if text.get("mamba_n_heads") is not None:
        return _mamba2(text, where)
    if text.get("model_type") == "nemotron_h":
        return _nemotron_h(text, where)
    if text.get("model_type") == "lfm2":
        return _short_conv(text, where)
    if "mamba" in (text.get("layer_types") or ()):
        raise ConfigError(f"{where}: layer_types lists 'mamba' layers but the config has no Mamba-2 fields "
                          "(mamba_n_heads, mamba_d_head, mamba_d_state, mamba_n_groups, mamba_d_conv), so their "
                          "per-request state cannot be sized; add them as in the model's released config.json")
    lac = text.get("linear_attn_config")
    if not isinstance(lac, dict):
        return None
    at = f"{where}: linear_attn_config"
    heads, dim = (optional_int(lac, k, at, default=None, minimum=1) for k in ("num_heads", "head_dim"))
    if heads is None or dim is None:
        raise ConfigError(f"{at} needs num_heads and head_dim (whole numbers ≥ 1), got {sorted(lac)}; "
                          "add them as in the model's released config.json")
    kernel = optional_int(lac, "short_conv_kernel_size", at, default=4, minimum=1)
    recurrent, conv = heads * dim * dim * 4, 3 * heads * dim * (kernel - 1) * 2
    return LinearAttnSpec(
        state_bytes_per_layer=Bytes(recurrent + conv), temporal_bytes_per_layer=Bytes(recurrent),
        description=f"Kimi Delta Attention per request per layer at TP 1: recurrent {heads}×{dim}×{dim} fp32 = "
                    f"{recurrent:,} B + short conv 3×{heads * dim}×({kernel}−1) bf16 = {conv:,} B "
                    "(state dtypes assumed: fp32 recurrent, bf16 conv)")


def _gdn(text: dict, where: str) -> LinearAttnSpec:
    """Gated DeltaNet state per request per layer at TP 1 (sglang 0.5.23 ``configs/qwen3_next.py``
    ``mamba2_cache_params`` via ``configs/mamba_utils.py``): conv state ``conv_dim × (kernel − 1)`` in bf16 with
    ``conv_dim = 2·n_k·d_k + n_v·d_v``, and the temporal state ``n_v × d_v × d_k`` in fp32 (SGLang's default
    ``mamba_ssm_dtype``)."""
    n_k, n_v, d_k, d_v = (optional_int(text, k, where, default=None, minimum=1) for k in (
        "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim"))
    if None in (n_k, n_v, d_k, d_v):
        raise ConfigError(f"{where}: Gated DeltaNet layers need linear_num_key_heads, linear_num_value_heads, "
                          "linear_key_head_dim and linear_value_head_dim (whole numbers ≥ 1); add them as in the "
                          "model's released config.json")
    kernel = optional_int(text, "linear_conv_kernel_dim", where, default=4, minimum=1)
    conv_dim = 2 * n_k * d_k + n_v * d_v
    conv, temporal = conv_dim * (kernel - 1) * 2, n_v * d_v * d_k * 4
    return LinearAttnSpec(
        state_bytes_per_layer=Bytes(conv + temporal), temporal_bytes_per_layer=Bytes(temporal),
        description=f"Gated DeltaNet per request per layer at TP 1: conv {conv_dim}×({kernel}−1) bf16 = {conv:,} B + "
                    f"temporal {n_v}×{d_v}×{d_k} fp32 = {temporal:,} B (SGLang default state dtypes)")


def mamba2_dims(text: dict, where: str) -> dict[str, int]:
    """Mamba-2 mixer dimensions of a Granite-4.0-H style config (``mamba_*`` keys; sglang 0.5.10
    ``configs/granitemoehybrid.py``, whose defaults fill absent keys, and which requires n_heads × d_head =
    expand × hidden)."""
    dims = {k: optional_int(text, f"mamba_{k}", where, default=d, minimum=1) for k, d in (
        ("n_heads", 64), ("d_head", 64), ("d_state", 128), ("n_groups", 1), ("d_conv", 4), ("expand", 2))}
    inner = dims["n_heads"] * dims["d_head"]
    hidden = text.get("hidden_size")
    if isinstance(hidden, int) and inner != dims["expand"] * hidden:
        raise ConfigError(f"{where}: mamba_n_heads × mamba_d_head = {inner:,} must equal mamba_expand × hidden_size "
                          f"= {dims['expand']} × {hidden:,} (as the engines check); fix the mamba_* fields")
    return {**dims, "inner": inner, "conv_dim": inner + 2 * dims["n_groups"] * dims["d_state"]}


def nemotron_h_mamba_dims(text: dict, where: str) -> dict[str, int]:
    """Mamba-2 mixer dimensions of a NemotronH config (its own key names; absent keys take the config class's
    defaults: vLLM 0.13.0 ``transformers_utils/configs/nemotron_h.py`` and SGLang 0.5.11 ``configs/nemotron_h.py``
    ``NemotronHConfig`` — ``mamba_num_heads`` 128, ``mamba_head_dim`` 64, ``ssm_state_size`` 128, ``n_groups``
    (``mamba_n_groups``) 8, ``conv_kernel`` (``mamba_d_conv``) 4).  The mixer's inner width is
    ``mamba_num_heads × mamba_head_dim`` (``NemotronHForCausalLM.get_mamba_state_shape_from_config``), not
    expand × hidden, so no Granite-style check applies."""
    def pick(*keys_default):
        *keys, default = keys_default
        for k in keys:
            if text.get(k) is not None:
                return optional_int(text, k, where, default=default, minimum=1)
        return default
    d = {"n_heads": pick("mamba_num_heads", 128), "d_head": pick("mamba_head_dim", 64),
         "d_state": pick("ssm_state_size", 128), "n_groups": pick("n_groups", "mamba_n_groups", 8),
         "d_conv": pick("conv_kernel", "mamba_d_conv", 4)}
    inner = d["n_heads"] * d["d_head"]
    return {**d, "inner": inner, "conv_dim": inner + 2 * d["n_groups"] * d["d_state"]}


def _nemotron_h(text: dict, where: str) -> LinearAttnSpec:
    """NemotronH Mamba-2 state per request per layer at TP 1, in SGLang's default dtypes (as ``_mamba2``): conv
    ``(inner + 2·groups·d_state) × (conv_kernel − 1)`` in bf16 + temporal ``heads × head_dim × d_state`` in fp32
    (SGLang 0.5.11 ``configs/nemotron_h.py`` ``mamba2_cache_params``).  vLLM sizes its own page from the dims
    (``engines.vllm.layer_bytes.nemotron_h_state_bytes``: its temporal dtype differs)."""
    return _mamba2_state(nemotron_h_mamba_dims(text, where), "NemotronH Mamba-2")


def _mamba2(text: dict, where: str) -> LinearAttnSpec:
    """Mamba-2 state per request per layer at TP 1 (sglang 0.5.10 ``configs/mamba_utils.py``
    ``Mamba2StateShape.create``): conv ``(inner + 2·groups·d_state) × (d_conv − 1)`` in bf16 and the temporal state
    ``heads × d_head × d_state`` in fp32 (SGLang's default ``mamba_ssm_dtype``).  At TP > 1 SGLang raises the groups
    to the TP size when TP does not divide them (a few KiB more conv state per layer, not modelled: split evenly)."""
    return _mamba2_state(mamba2_dims(text, where), "Mamba-2")


def _mamba2_state(d: dict, label: str) -> LinearAttnSpec:
    """The Mamba-2 state of dims ``d`` (``mamba2_dims`` / ``nemotron_h_mamba_dims``) in SGLang's default dtypes:
    conv in bf16 (2 B), temporal in fp32 (4 B)."""
    conv, temporal = d["conv_dim"] * (d["d_conv"] - 1) * 2, d["n_heads"] * d["d_head"] * d["d_state"] * 4
    return LinearAttnSpec(
        state_bytes_per_layer=Bytes(conv + temporal), temporal_bytes_per_layer=Bytes(temporal),
        description=f"{label} per request per layer at TP 1: conv {d['conv_dim']}×({d['d_conv']}−1) bf16 = {conv:,} B "
                    f"+ temporal {d['n_heads']}×{d['d_head']}×{d['d_state']} fp32 = {temporal:,} B (SGLang default "
                    "state dtypes)")


def short_conv_dims(text: dict, where: str) -> tuple[int, int]:
    """(conv_L_cache, conv_dim) of an LFM2 short-convolution layer: ``conv_L_cache`` (transformers default 3) and
    the conv width, the config's ``conv_dim`` where it writes one (vLLM sizes the state by it), else hidden_size
    (SGLang and transformers always convolve over hidden_size)."""
    kernel = optional_int(text, "conv_L_cache", where, default=3, minimum=2)
    width = optional_int(text, "conv_dim", where, default=None, minimum=1) or text.get("hidden_size")
    return kernel, width


def _short_conv(text: dict, where: str) -> LinearAttnSpec:
    """LFM2 short-convolution state per request per layer at TP 1 (sglang 0.5.9 – 0.5.23 ``configs/lfm2.py``
    ``Lfm2Config.mamba2_cache_params``: a Mamba-2 state shape of intermediate = hidden_size, one group and
    state_size 0, i.e. conv ``hidden × (conv_L_cache − 1)`` in the conv dtype, bf16 by default, and no SSM state).
    vLLM sizes its own page from ``conv_dim`` (``engines.vllm.layer_bytes.short_conv_state_bytes``)."""
    kernel, _ = short_conv_dims(text, where)
    hidden = text["hidden_size"]
    conv = hidden * (kernel - 1) * 2
    return LinearAttnSpec(
        state_bytes_per_layer=Bytes(conv),
        description=f"LFM2 short convolution per request per layer at TP 1: conv {hidden}×({kernel}−1) bf16 = "
                    f"{conv:,} B, no SSM state (SGLang configs/lfm2.py)")
