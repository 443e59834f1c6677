"""The element size of the Gated DeltaNet temporal state vLLM keeps, by release and architecture (pure engine facts).

    in:  the model (its architecture and config's ``mamba_ssm_dtype``), the vLLM release, the activation dtype's bytes
    out: bytes per element of the recurrent (temporal) state a GDN layer reads and writes

vLLM sizes a GDN layer's state with ``MambaStateDtypeCalculator.gated_delta_net_state_dtype(model_config.dtype,
mamba_cache_dtype, mamba_ssm_cache_dtype)`` (``model_executor/layers/mamba/mamba_utils.py``; the model classes'
``get_mamba_state_dtype_from_config`` in ``models/qwen3_next.py`` and ``models/qwen3_5.py``, and the layer's
``get_state_dtype``: ``layers/mamba/gdn_linear_attn.py`` in 0.19.1, ``layers/mamba/gdn/base.py`` in 0.26.0 /
0.30.0): with ``--mamba-ssm-cache-dtype auto`` (the default, ``config/cache.py``) the temporal state takes the conv
state's dtype, i.e. the model dtype.  Only the Qwen3.5
classes change the default: ``model_executor/models/config.py`` ``Qwen3_5ForConditionalGenerationConfig.
verify_and_update_config`` sets ``mamba_ssm_cache_dtype`` to the HF (text) config's ``mamba_ssm_dtype`` when the
flag is ``auto`` — for the ``Qwen3_5ForConditionalGeneration`` / ``Qwen3_5MoeForConditionalGeneration`` wrappers
from 0.17.0 (the first release with Qwen3.5; read 0.17.0, 0.19.1, 0.20.1, 0.26.0, 0.30.0; 0.16.0 has no Qwen3.5
class at all) and for the text-only ``Qwen3_5ForCausalLM`` / ``Qwen3_5MoeForCausalLM`` from 0.27.0
(``Qwen3_5ForCausalLMConfig``; 0.30.0).  Qwen3-Next (``Qwen3NextForCausalLM``) has no such hook in any release
read: its temporal state is in the model dtype (bf16), half of what SGLang keeps (float32 by default,
``engines.sglang.mamba``).  A Qwen3.5 config without ``mamba_ssm_dtype`` (e.g. the Qwen3.5-397B checkpoints of
bench/data) also stays in the model dtype.  The boundaries live in the planner's rules (``engines.vllm.versions``
``ssm_dtype_from_config``) and the element size in ``engines.mamba2_state.ssm_state_bytes``, which this module calls;
``tests/perf/test_perf_gdn_state.py`` checks both sides of each boundary.

Helper ws36a (2026-12-07, session 36), the lead of issue 13's brief: the wrong-sign Qwen3.5/3.6/3.8 rows (p18,
p22_a100) all carry ``mamba_ssm_dtype: float32`` and run 0.19.1 / 0.26.0, so their state was already priced right;
the rule moves the Qwen3.5-397B rows (no ``mamba_ssm_dtype``: bf16 in vLLM) and any Qwen3-Next deployment.
"""

from __future__ import annotations

__all__ = ["GDN_ARCHITECTURES", "vllm_gdn_temporal_bytes"]

GDN_ARCHITECTURES = ("Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
                     "Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM")
"""architectures whose linear-attention layers vLLM runs as Gated DeltaNet with the rule above"""


def vllm_gdn_temporal_bytes(spec, release: tuple[int, int, int], act_bytes: int) -> int | None:
    """Bytes per element of the temporal state vLLM ``release`` keeps for ``spec``'s GDN layers (``act_bytes``: the
    model dtype's), or None when ``spec`` is not a GDN architecture this rule covers.  The rule is the planner's
    (``engines.mamba2_state.ssm_state_bytes`` with the release's ``VllmRules``): one home for both."""
    if spec.architecture not in GDN_ARCHITECTURES:
        return None
    from tpkit.engines.mamba2_state import ssm_state_bytes
    from tpkit.engines.vllm.versions import resolve_rules

    return ssm_state_bytes(spec, resolve_rules(".".join(map(str, release))), act_bytes)
