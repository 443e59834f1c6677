"""What the V0 engine's eager forward keeps alive at its MLP / MoE peak, beyond the phases of ``profile``.

The V0 engine runs the model forward eagerly (no torch.compile), so Python's references decide what is alive
(read in the vllm 0.2.4, 0.2.5, 0.3.0, 0.4.0, 0.5.0, 0.5.4, 0.6.0, 0.6.3, 0.6.4, 0.7.2, 0.8.2, 0.8.5 and 0.9.1
wheels, ``model_executor/models/*.py``):

* **The layer's input.**  Every decoder model's layer loop (``LlamaModel.forward``, ``Qwen2Model.forward`` and the
  others: ``hidden_states, residual = layer(positions, hidden_states, …, residual)``) keeps ``hidden_states``
  bound to the layer's input until the layer returns.  From the second layer on that input is the previous
  layer's output, normalised in place by ``fused_add_rms_norm``: a T × H tensor apart from the residual, the MLP
  input (the decoder layer's local ``hidden_states``) and the MLP's own tensors.  At the attention peak the held
  input is the attention's own input, which the attention phase already counts; at the MLP / MoE peak it is one
  more T × H.
* **The MLP body.**  With ``gate_up, _ = self.gate_up_proj(x); x = self.act_fn(gate_up); x, _ =
  self.down_proj(x)`` (every file read, and ``LlamaMLP`` up to 0.6.3) the gate_up output stays bound while
  ``down_proj`` runs: residual, layer input, MLP input, gate_up (2I), act (I), down output (H) = 4H + 3I.
  ``LlamaMLP`` from 0.6.4 rebinds one name (``x, _ = self.gate_up_proj(x); x = self.act_fn(x)``), so gate_up is
  freed once the activation returns and the peak is max(3H + 3I at the activation, 4H + I at ``down_proj``) =
  3H + 3I.  ``LlamaMLP`` serves the architectures vLLM's registry maps to ``llama.py`` (``LLAMA_MLP_ARCHITECTURES``)
  and the classes that reuse it (``Phi3ForCausalLM`` subclasses ``LlamaForCausalLM``; Mllama's text layers).
  Other files read keep gate_up: ``qwen.py``, ``qwen2.py`` (and ``qwen3.py``, which imports ``Qwen2MLP``),
  ``qwen2_moe.py`` / ``qwen3_moe.py`` (shared expert and dense MLP), ``gemma.py``, ``gemma2.py``, ``gemma3.py``,
  ``deepseek_v2.py``, ``mistral.py`` (0.2.x–0.3.0); an architecture not read is taken as keeping it.

With tp > 1 and the out-of-place all-reduce (V0 ≥ 0.6.5, ``VllmRules.v0_allreduce_out_of_place``) the reduced
copy of ``down_proj``'s output adds one more T × H at the ``down_proj`` moment.

Evidence: vp_065 / vp_066 (Qwen2.5-14B, 0.7.2, tp 1 / 2, T 32,768) print 3.79 / 2.84 GiB of activation peak,
T × (4H + 3I) (+ T × H at tp 2) = 3.78 / 2.83 GiB; case_021 / case_022 (Llama-3.1-8B, 0.6.4, T 20,000 / 29,000)
print 2.07 / 2.99 GiB above the weights, T × (3H + 3I) = 2.06 / 2.99 GiB.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.engines.vllm.inputs import Resolved
    from tpkit.engines.vllm.options import VllmOptions
    from tpkit.engines.vllm.versions import VllmRules
    from tpkit.parallel import ParallelSpec

__all__ = ["LLAMA_MLP_ARCHITECTURES", "LLAMA_MLP_RELEASES_GATE_UP_FROM", "V0_PP_RECEIVED_READ", "v0_mlp_keeps_gate_up",
           "v0_pp_holds_received", "with_phase_additions", "v0_additions", "with_mla_v0_workspace"]

V0_PP_RECEIVED_READ = ((0, 7, 1), (0, 10, 2))
"""first and last release read whose V0 dummy run hands a later pipeline stage zeroed intermediate tensors
(``v0_pp_holds_received``)"""


def v0_pp_holds_received(*, pp: int, release: tuple[int, int, int], engine: str) -> bool:
    """Whether a later pipeline stage of the V0 profile run holds its received hidden states and residual (helper
    mla15, 2026-12-05; ``worker/model_runner.py`` read in the 0.7.1, 0.7.3, 0.8.0, 0.8.3, 0.8.5, 0.9.2, 0.10.0 and
    0.10.2 wheels): ``_dummy_run`` builds ``self.model.make_empty_intermediate_tensors(batch_size=T, …)`` when
    ``not get_pp_group().is_first_rank`` (``models/utils.py``: one zeroed T × H tensor per key, "hidden_states" and
    "residual" for the decoder models) and keeps it bound while ``execute_model`` runs the forward and the sampler.
    The model takes both from it (``hidden_states = intermediate_tensors["hidden_states"]``, ``residual = …``); the
    residual is normalised in place and stays the loop's residual, the hidden states stay a T × H tensor beside
    the loop's own, and after the forward both outlive it under the sampler.  tpkit plans one composite rank, so the
    extra charge applies to every plan with pp > 1: T × H on the forward phases, 2 × T × H on the sampler phase
    (``profile_lines.activation_lines`` through ``with_phase_additions``)."""
    return engine == "V0" and pp > 1 and V0_PP_RECEIVED_READ[0] <= release <= V0_PP_RECEIVED_READ[1]

LLAMA_MLP_ARCHITECTURES = frozenset({
    "LlamaForCausalLM", "LLaMAForCausalLM", "MistralForCausalLM", "AquilaForCausalLM", "AquilaModel",
    "InternLMForCausalLM", "InternLM3ForCausalLM", "XverseForCausalLM", "Phi3ForCausalLM",
    "MllamaForConditionalGeneration"})
"""architectures whose dense MLP is ``llama.py``'s ``LlamaMLP`` (``model_executor/models/registry.py``: mapped to
``("llama", "LlamaForCausalLM")`` in 0.6.4 and 0.8.2; ``phi3.py`` subclasses it; ``mllama.py`` imports it)"""
LLAMA_MLP_RELEASES_GATE_UP_FROM = (0, 6, 4)
"""first release whose ``LlamaMLP.forward`` rebinds the gate_up output to ``x`` (0.6.3: a ``gate_up`` local)"""


def v0_mlp_keeps_gate_up(model: ModelSpec, release: tuple[int, int, int]) -> bool:
    """Whether the V0 MLP keeps its gate_up output bound while ``down_proj`` runs (module docstring)."""
    return not (model.architecture in LLAMA_MLP_ARCHITECTURES and release >= LLAMA_MLP_RELEASES_GATE_UP_FROM)


def with_phase_additions(act, additions: dict[str, tuple[int, str]]):
    """``act`` (a ``profile.ActivationEstimate``) with bytes added to the named phases (``"profile phase: …"`` less
    the prefix; phases it does not have are skipped), each with its formula, and the peak taken again."""
    from dataclasses import replace

    from tpkit.units import Bytes

    parts = []
    for part in act.parts:
        add, how = additions.get(part.item.removeprefix("profile phase: "), (0, ""))
        parts.append(replace(part, bytes=part.bytes + Bytes(add), source=part.source + how) if add else part)
    top = max(parts, key=lambda part: part.bytes)
    return replace(act, peak=top.bytes, parts=tuple(parts), limiting_phase=top.item.removeprefix("profile phase: "))


def v0_additions(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                  rules: VllmRules) -> dict[str, tuple[int, str]]:
    """Bytes per phase the V0 forward adds (helper mla15; moved here from profile_lines by the lead): the MLA prefill's own tensors to the attention phase
    (``engines.vllm.mla.mla_v0_attention_width``), a later PP stage's received tensors (``v0_pp_holds_received``)."""
    out: dict[str, tuple[int, str]] = {}
    a, th = r.act_bytes, r.max_num_batched_tokens * model.hidden_size * r.act_bytes
    pp_held = v0_pp_holds_received(pp=parallel.pp, release=rules.release, engine=rules.engine)
    if pp_held:  # helper pp18: a plan of the first stage holds none (pp_stage; imported only at pp > 1)
        from tpkit.engines.vllm.pp_stage import holds_received, runs_sampler

        pp_held = holds_received(parallel)
    if pp_held:
        held = f" + the received hidden states T × H × {a} B (V0 pp > 1, later stages)"
        out = {p: (th, held) for p in ("attention", "dense MLP", "MoE layer")}
        if runs_sampler(parallel):  # helper pp18: only the last stage computes logits (pp_stage)
            out["logits + sampler"] = (2 * th,
                                       f" + the received hidden states and residual, 2 × T × H × {a} B (V0 pp > 1)")
    if model.mla is not None and rules.engine == "V0":
        from tpkit.engines.vllm.mla import mla_v0_attention_width

        got = mla_v0_attention_width(model, parallel, rules.release, engine=rules.engine,
                                     quantization=options.quantization)
        if got:
            add, how = out.get("attention", (0, ""))
            out["attention"] = (add + r.max_num_batched_tokens * got[0] * a,
                                f" + {got[1]}: T × {got[0]:,} × {a} B" + how)
    return out


def with_mla_v0_workspace(act, model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                           rules: VllmRules):
    """``act`` with the V0 MLA backend's profile-run allocations (``engines.vllm.mla.mla_v0_profile_workspace``,
    vLLM 0.8.0–0.10 V0): the kept context workspace added to every phase, the simulated ``kv_b_proj`` output to the
    attention phase, and the peak taken again.  Chunked prefill and prefix caching count only when given (V0 leaves
    both off by default for MLA models, ``batch_defaults._v0_batch``)."""
    if model.mla is None or rules.engine != "V0":
        return act
    from tpkit.engines.vllm.mla import mla_v0_profile_workspace

    kept, sim, rows = mla_v0_profile_workspace(
        model, parallel, rules.release, engine=rules.engine, chunked_prefill=options.enable_chunked_prefill is True,
        prefix_caching=options.enable_prefix_caching is True, max_model_len=r.max_model_len,
        max_num_seqs=r.max_num_seqs, block_size=r.block_size, act_bytes=r.act_bytes)
    if not rows:
        return act
    parts = []
    for part in act.parts:
        attention = part.item == "profile phase: attention"
        note = (f" + V0 MLA's simulated kv_b_proj output {rows:,} rows × heads/rank × (qk_nope + v_head) × "
                f"{r.act_bytes} B (profile run only)" if attention else "")
        parts.append(replace(part, bytes=part.bytes + kept + (sim if attention else Bytes(0)),
                             source=part.source + note + f" + V0 MLA context workspace {rows:,} rows × (kv_lora_rank"
                                                         f" + qk_rope_head_dim) × {r.act_bytes} B"))
    top = max(parts, key=lambda part: part.bytes)
    return replace(act, peak=top.bytes, parts=tuple(parts), limiting_phase=top.item.removeprefix("profile phase: "))
