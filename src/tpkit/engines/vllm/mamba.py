"""How many state pages one request holds in a mamba / linear-attention group (vLLM ≤ 0.33;
sources below).

``MambaSpec.max_memory_usage_bytes`` (``v1/kv_cache_interface.py``), by ``cache_config.mamba_cache_mode``:

    "none"   1 + num_speculative_blocks                           prefix caching off
    "align"  2 + num_speculative_blocks + prefill checkpoints     prefix caching on (0.15+)
    "all"    cdiv(max_model_len, block) (+ spec blocks ≥ 0.26)     prefix caching on, the model supports it
                                                                  (0.15–0.31; removed 0.32)

The mode follows prefix caching (``model_executor/models/config.py MambaModelConfig.verify_and_update_config``):
on ⇒ "all" for the architectures that declare ``supports_mamba_prefix_caching`` (Mamba, Mamba2, Jamba,
NemotronH, Zamba2, GraniteMoeHybrid, FalconH1; 0.15–0.31), else "align"; off ⇒ "none".  Prefix caching is
off by default for hybrids up to 0.27 (``config/model.py is_prefix_caching_supported`` returns False for
hybrids ≤ 0.25; ``engine/arg_utils.py`` keeps it opt-in for hybrids in 0.26–0.27) and on from 0.28.

Prefill checkpoint blocks in "align" mode: 1 for Mamba2 layers (``mamba_mixer2.py get_kv_cache_spec``,
≥ 0.32) and for GDN layers (Qwen3-Next / Qwen3.5, ``mamba/gdn/qwen_gdn_linear_attn.py``, 0.33) when the
FlashInfer GDN prefill kernel runs: Hopper, or Blackwell with ``head_k_dim`` 128 (and CUDA ≥ 13, assumed);
0 for every other layer family (KDA, Mamba1, MiniMax lightning …).
"""

from __future__ import annotations

from tpkit.engines.vllm.versions import VllmRules
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass

__all__ = ["MambaMode", "mamba_mode"]

ALL_MODE_MODEL_TYPES = ("mamba", "mamba2", "jamba", "nemotron_h", "zamba2", "granitemoehybrid", "falcon_h1")
"""model types whose vLLM class declares ``supports_mamba_prefix_caching`` (0.15–0.31 wheels)"""
MAMBA2_MODEL_TYPES = ("mamba2", "nemotron_h", "zamba2", "granitemoehybrid", "falcon_h1", "bamba")
"""model types built on ``MambaMixer2``"""
GDN_MODEL_TYPES = ("qwen3_next", "qwen3_5", "qwen3_5_moe")
"""model types built on the Qwen gated-delta-net layer"""


@dataclass(frozen=True, kw_only=True, slots=True)
class MambaMode:
    """The mamba cache mode of a run and what one request holds."""

    mode: str
    """``"none"`` | ``"align"`` | ``"all"``"""
    fixed_blocks: int | None
    """state pages per request ("none"/"align"); None for "all" (it grows with the length)"""
    spec_blocks: int
    """speculative blocks added in "all" mode"""
    reason: str


def _family(model: ModelSpec) -> str:
    mt = (model.model_type or "").lower()
    if mt in GDN_MODEL_TYPES:
        return "gdn"
    if mt in MAMBA2_MODEL_TYPES:
        return "mamba2"
    return mt or "unknown"


def _checkpoint_blocks(model: ModelSpec, rules: VllmRules, cap: tuple[int, int] | None) -> int:
    family = _family(model)
    if family not in rules.checkpoint_kinds:
        return 0
    if family == "gdn":
        major = (cap or (0, 0))[0]
        head_k = model.extra.get("linear_key_head_dim", 128)  # Qwen3-Next / Qwen3.5: 128
        return 1 if major == 9 or (major in (10, 12) and head_k == 128) else 0
    return 1


def mamba_mode(model: ModelSpec, rules: VllmRules, *, spec_tokens: int = 0, prefix_caching: bool | None = None,
               compute_capability: tuple[int, int] | None = None) -> MambaMode:
    """The mode vLLM runs a hybrid's mamba groups in, and the pages one request holds."""
    on = rules.hybrid_prefix_caching if prefix_caching is None else prefix_caching
    if not on or rules.release < (0, 15, 0):
        return MambaMode(mode="none", fixed_blocks=1 + spec_tokens, spec_blocks=0,
                         reason="prefix caching off for hybrids ⇒ 1 + speculative blocks")
    if rules.mamba_all_mode and (model.model_type or "").lower() in ALL_MODE_MODEL_TYPES:
        return MambaMode(mode="all", fixed_blocks=None, spec_blocks=spec_tokens if rules.mamba_all_mode_spec else 0,
                         reason="prefix caching on, 'all' mode ⇒ one state page per block of the request")
    ckpt = _checkpoint_blocks(model, rules, compute_capability)
    return MambaMode(mode="align", fixed_blocks=2 + spec_tokens + ckpt, spec_blocks=0,
                     reason=f"prefix caching on, 'align' mode ⇒ 2 + {spec_tokens} speculative + {ckpt} checkpoint")
