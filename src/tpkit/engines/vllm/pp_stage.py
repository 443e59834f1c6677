"""What differs between vLLM's pipeline stages in the profile run (helper pp18, 2026-12-05, session 18).

Every worker profiles its own stage and sizes its own KV cache; the engine keeps the fewest blocks over the workers
(``engines.vllm.stages``).  Weights and KV layers per stage are planned elsewhere (``models.weights`` /
``models.layout`` ``stage_sizes``: the embedding on the first stage, the final norm and ``lm_head`` on the last,
``get_pp_indices``' split).  This module holds the two profile-run terms that depend on the stage:

* **logits and the dummy sampler run only on the last stage.**  V1 runner: ``v1/worker/gpu_model_runner.py``
  ``GPUModelRunner.profile_run`` calls ``_dummy_sampler_run`` under ``if get_pp_group().is_last_rank`` (read in the
  0.8.5, 0.9.0, 0.9.1 and 0.10.1 wheels; the same gate in every later V1 runner read by cge/smp).  Model Runner V2:
  ``v1/worker/gpu/model_runner.py`` ``profile_run`` "Only run sampler/pooler on last PP rank" (``is_last_pp_rank``,
  read in 0.34.0).  V0: ``worker/model_runner.py`` ``ModelRunner.execute_model`` returns the intermediate tensors
  before ``compute_logits`` when ``not get_pp_group().is_last_rank`` (read in 0.8.5).
* **the received hidden states and residual on every stage but the first.**  V1 runner (read in 0.8.5, 0.9.0, 0.9.1,
  0.9.2, 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.12.0, 0.13.0, 0.14.0, 0.19.0, 0.26.0, 0.27.1 and 0.29.0):
  ``_dummy_run`` builds ``self.intermediate_tensors = self.model.make_empty_intermediate_tensors(batch_size=
  self.max_num_tokens, …)`` the first time it runs on a non-first rank, which is the profile run, and keeps it for
  the engine's life: it is live under every profile phase, so torch's peak holds it in every release.  Model Runner
  V2 (read in 0.26.0, 0.27.1, 0.29.0, 0.34.0): ``load_model`` builds the same tensors after the weights'
  ``DeviceMemoryProfiler`` and after the init snapshot, so only a release that charges ``total_consumed``
  (``VllmRules.memory_rule == "consumed"``, ≥ 0.27) counts them (the same rule as ``runner_buffers``).  The
  decoder models' factory (``models/utils.py make_empty_intermediate_tensors_factory(["hidden_states",
  "residual"], hidden_size)``, llama / qwen2 / qwen3 / qwen3_moe / deepseek_v2) gives 2 × T × H × activation
  bytes.  V0's own charge (``v0_forward.v0_pp_holds_received``) follows the same stage gate.

A composite plan (``ParallelSpec.stage`` None, every plan on like GPUs) keeps both terms: it stands for the last
stage, which holds the sampler and the received tensors.  A plan of one stage (``--gpu A,B``: ``stages``) takes only
its own.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["SAMPLER_PHASES", "holds_received", "runs_sampler", "v1_received_bytes", "with_stage_phases"]

SAMPLER_PHASES = ("logits + sampler", "logits")
"""the profile phases (``profile.estimate_profile_peak``) that only the last stage runs"""


def runs_sampler(parallel: ParallelSpec) -> bool:
    """Whether this plan's rank computes logits and runs the dummy sampler: the last stage (or a composite plan)."""
    stage = getattr(parallel, "stage", None)
    return stage is None or stage == parallel.pp - 1


def holds_received(parallel: ParallelSpec) -> bool:
    """Whether this plan's rank holds received intermediate tensors: pp > 1 and not the first stage (a composite
    plan at pp > 1 stands for the last stage)."""
    stage = getattr(parallel, "stage", None)
    return parallel.pp > 1 and (stage is None or stage > 0)


def v1_received_bytes(*, tokens: int, hidden_size: int, act_bytes: int, v2_runner: bool,
                      memory_rule: str) -> tuple[int, str]:
    """The V1 engine's intermediate-tensor buffer on a non-first stage, charged to the KV budget: (bytes,
    formula); (0, "") where the release does not charge it (Model Runner V2 before the ``consumed`` rule)."""
    for name, value in (("tokens", tokens), ("hidden_size", hidden_size), ("act_bytes", act_bytes)):
        if not isinstance(value, int) or value <= 0:
            raise ValueError(f"v1_received_bytes: {name} must be a positive integer, got {value!r}")
    if v2_runner and memory_rule != "consumed":
        return 0, ""
    where = ("Model Runner V2 load_model, counted in total_consumed" if v2_runner
             else "V1 runner _dummy_run, built in the profile run")
    return (2 * tokens * hidden_size * act_bytes,
            f" + the received hidden states and residual, 2 × T × H × {act_bytes} B "
            f"(pp > 1, a later stage: {where})")


def with_stage_phases(act, parallel: ParallelSpec, *, engine: str, tokens: int, hidden_size: int, act_bytes: int,
                      v2_runner: bool, memory_rule: str):
    """``act`` (a ``profile.ActivationEstimate``) for this plan's stage: without the logits / sampler phase on a stage
    other than the last; with the V1 received tensors on every phase of a later stage; the peak taken again."""
    parts = tuple(act.parts)
    if not runs_sampler(parallel):
        parts = tuple(p for p in parts if p.item.removeprefix("profile phase: ") not in SAMPLER_PHASES)
    if engine == "V1" and holds_received(parallel):
        add, how = v1_received_bytes(tokens=tokens, hidden_size=hidden_size, act_bytes=act_bytes,
                                     v2_runner=v2_runner, memory_rule=memory_rule)
        if add:
            parts = tuple(replace(p, bytes=p.bytes + Bytes(add), source=p.source + how) for p in parts)
    if parts == tuple(act.parts) or not parts:
        return act
    top = max(parts, key=lambda part: part.bytes)
    return replace(act, peak=top.bytes, parts=parts, limiting_phase=top.item.removeprefix("profile phase: "))
