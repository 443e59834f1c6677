"""The recurrent state a linear-attention (Gated DeltaNet) layer moves in one forward, plain step or speculative verify.

    in:  the model, its shard, the batch, the engine's implementation name
    out: bytes read and written on one rank

A plain decode step reads each sequence's state (conv + temporal) and writes it back: 2 × state per sequence.  A
speculative verify of T tokens per sequence keeps a temporal state per token so that the next cycle can start from the
last accepted one (helper gdn23, 2026-12-06; wheels read: vLLM 0.16.0, 0.19.1, 0.26.0; SGLang 0.5.17):

    vLLM     the GDN layer's spec path calls ``fused_sigmoid_gating_delta_rule_update`` (0.16.0:
             ``fused_recurrent_gated_delta_rule``, from ``qwen3_next.py``) with a 2-D ``ssm_state_indices`` (1 + k
             slots per request, ``v1/attention/backends/gdn_attn.py`` ``spec_state_indices_tensor``) and
             ``inplace_final_state=True``; the kernel reads the state at the last accepted token (index
             ``num_accepted_tokens − 1``) and, inside its loop over the T tokens, stores the full state after every
             token into that token's slot (``INPLACE_FINAL_STATE``; 0.16.0 ``model_executor/layers/fla/ops/
             fused_recurrent.py``, 0.19.1 ``model_executor/layers/fla/ops/fused_sigmoid_gating.py``, 0.26.0
             ``third_party/flash_linear_attention/ops/fused_sigmoid_gating.py``): 1 read + T writes
    SGLang   ``GDNAttnBackend.forward_extend`` in target-verify mode (``layers/attention/linear/gdn_backend.py``,
             recurrent path: the default without ReplaySSM) runs the same kernel with ``DISABLE_STATE_UPDATE`` and
             ``CACHE_INTERMEDIATE_STATES``: each step's state goes to ``intermediate_ssm``
             (``kernels/ops/attention/fla/fused_sigmoid_gating_recurrent.py``), then
             ``HybridLinearAttnBackend.update_mamba_state_after_mtp_verify`` →
             ``scatter_mamba_states_after_mtp_verify`` copies the accepted one into the state: 1 read + T writes,
             then 1 read + 1 write

The conv state is read and written once either way (small: width − 1 columns).

The state's size is the one each engine keeps (helper fx35c, 2026-12-07): ``ModelSpec.linear_attn`` carries SGLang's
(conv in bf16, temporal in fp32, ``engines.sglang.mamba``); vLLM keeps a Granite-4.0-H / Bamba / Falcon-H1 Mamba-2
temporal state in the model dtype (``MambaStateDtypeCalculator.mamba2_state_dtype`` with ``--mamba-ssm-cache-dtype
auto``, 0.10.1 – 0.34.0 wheels, round rl35), priced here with the planner's own function
(``engines.mamba2_state.mamba2_state_bytes`` / ``ssm_state_bytes``, one home for both) in perf's activation dtype
(``perf.kernels.ACT_BYTES``).  Not yet by engine: NemotronH (vLLM's default by release, 0.13–0.19 float16, from 0.20
float32).  Gated DeltaNet by vLLM release (helper ws36a, 2026-12-07): the temporal part at the element size
``perf.gdn_state.vllm_gdn_temporal_bytes`` gives (the config's ``mamba_ssm_dtype`` where the release reads it for the
architecture, else the model dtype), the release carried by ``ImplProfile.release``.  The ``reference`` layout
keeps ``linear_attn``'s sizes (its own code, not vLLM's).
"""

from __future__ import annotations

from tpkit.perf.kernels import ACT_BYTES

__all__ = ["linear_state_bytes", "state_sizes"]


def state_sizes(spec, engine: str, release: tuple[int, int, int] | None = None) -> tuple[int, int]:
    """(whole state, temporal part) bytes per layer per sequence at TP 1 that ``engine`` (at ``release``, where its
    dtype rule depends on it) keeps for ``spec``'s linear-attention layers (0, 0 without them)."""
    la = spec.linear_attn
    state = la.state_bytes_per_layer.bytes if la and la.state_bytes_per_layer else 0
    temporal = la.temporal_bytes_per_layer.bytes if la and la.temporal_bytes_per_layer else 0
    if engine != "vllm" or not (state and temporal):
        return state, temporal
    # imported here: a model without linear-attention layers never needs it (tests/cli/test_cold_imports.py ceilings)
    from tpkit.engines.mamba2_state import MAMBA2_SPEC_TYPES, mamba2_state_bytes, ssm_state_bytes

    if spec.model_type in MAMBA2_SPEC_TYPES:
        ssm = ssm_state_bytes(spec, None, ACT_BYTES)   # no release reads another dtype for these types
        state = mamba2_state_bytes(spec, 1, ACT_BYTES, ssm)
        temporal = state - mamba2_state_bytes(spec, 1, ACT_BYTES, 0)
    elif release is not None:
        from tpkit.perf.gdn_state import vllm_gdn_temporal_bytes

        elem = vllm_gdn_temporal_bytes(spec, release, ACT_BYTES)
        if elem is not None:                            # linear_attn's temporal part is SGLang's float32
            state, temporal = state - temporal + temporal // 4 * elem, temporal // 4 * elem
    return state, temporal


def linear_state_bytes(spec, shard, batch, engine: str, seqs: int,
                       release: tuple[int, int, int] | None = None) -> float:
    """Bytes of recurrent state one linear-attention layer reads and writes on one rank for ``seqs`` sequences of
    ``batch`` (a ``perf.kernels.Batch``; ``batch.verify`` marks a speculative verify) under ``engine``'s implementation
    (``vllm`` / ``sglang`` / ``reference``; the verify of ``reference`` priced as vLLM's, its state at
    ``linear_attn``'s sizes; ``release``: vLLM's, ``ImplProfile.release``)."""
    state_tp1, temporal_tp1 = state_sizes(spec, engine, release)
    state = state_tp1 / shard.attention_tp
    per_seq = 2.0 * state
    if batch.verify and batch.tokens_per_sequence > 1 and temporal_tp1:
        temporal = temporal_tp1 / shard.attention_tp
        per_seq += (batch.tokens_per_sequence - 1) * temporal          # a state kept per token, not only the last
        if engine == "sglang":
            per_seq += 2.0 * temporal                                   # the accepted one copied into the state
    return seqs * per_seq
