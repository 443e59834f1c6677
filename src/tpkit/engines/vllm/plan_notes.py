"""The warnings of one vLLM plan (``policy.plan_vllm``'s ``PlanResult.warnings``): what the plan assumed or could not
model and that its ledger does not say: the model config's assumptions, LoRA, a vision tower not loaded or an encoder
profile not modelled, a release newer than the newest read, a whole-model drafter, the layout's notes, the V0
fallbacks taken (CPU offload, pipeline parallelism, compute capability) and the torch.compile cache assumed.

Split from ``policy`` (helper tidy30, session 30) at its size limit: the plan's arithmetic stays there.
"""

from __future__ import annotations

from tpkit.engines.vllm.drafter import whole_model_draft
from tpkit.engines.vllm.encoder import all_limits_zero, not_modelled as encoder_not_modelled
from tpkit.engines.vllm.layout import bf16_before_ampere_note, dense_expert_parallel_note
from tpkit.engines.vllm.load_lines import OFFLOAD_IGNORED_SOURCE, cpu_offload, offload_ignored
from tpkit.engines.vllm.lora_lines import lora_notes
from tpkit.engines.vllm.mmlimits import parse_mm_limits
from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.profile_lines import compile_cache_text
from tpkit.engines.vllm.versions import CURRENT, VllmRules, is_newer_than_latest, resolve_rules
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import format_bytes

__all__ = ["plan_warnings"]


def plan_warnings(model, gpu, parallel, options, r, rules, layout, w_plan, fallbacks) -> tuple[str, ...]:
    """The plan's warnings: the layout's and inputs' notes, the release's, offload, each V0 fallback taken
    (``fallbacks``: ``policy._release_rules``'s ``(offload, pp, cc)``) and the torch.compile cache assumed."""
    fallback, pp_fallback, cc_fallback = fallbacks
    return (layout.warnings + r.notes + _notes(model, options, rules) + _newer(options) + whole_model_draft(r.spec)
            + dense_expert_parallel_note(options, model) + bf16_before_ampere_note(options, gpu, model)
            + _offload_notes(model, parallel, options, w_plan, fallback is not None)
            + (("--pipeline-parallel-size > 1: vLLM 0.8.0–0.9.0 fall back to the V0 engine unless the launch names "
                "an executor backend V1 takes (engine/arg_utils.py _is_v1_supported_oracle); planned with the "
                "release's V0 rules (plan with ':v1' for a --distributed-executor-backend ray launch)",)
               if pp_fallback else ())
            + ((f"compute capability {gpu.compute_capability[0]}.{gpu.compute_capability[1]}: vLLM 0.8.0–0.10.1 "
                "fall back to the V0 engine below 8.0 (engine/arg_utils.py _is_v1_supported_oracle); planned with "
                "the release's V0 rules",) if cc_fallback else ())
            + tuple(t for t in (compile_cache_text(model, options, r, rules),) if t))


def _offload_notes(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, w_plan,
                   fell_back: bool) -> tuple[str, ...]:
    """What ``--cpu-offload-gb`` changed that the ledger does not say: the V0 fallback, a cap above the layers."""
    out = []
    if fell_back:
        out.append("--cpu-offload-gb: vLLM 0.8.0–0.8.2 fall back to the V0 engine for this flag "
                   "(engine/arg_utils.py _is_v1_supported_oracle); planned with the release's V0 rules")
    if options.cpu_offload_gb and offload_ignored(resolve_rules(options.engine_version)):
        out.append(f"--cpu-offload-gb {options.cpu_offload_gb:g} is ignored by the V1 engine of vLLM 0.7.x: every "
                   f"weight is planned on the GPU ({OFFLOAD_IGNORED_SOURCE}); VLLM_USE_V1=0 (0.7's default V0 "
                   "engine) offloads")
    off = cpu_offload(model, parallel, options, w_plan)
    if off is not None and off.capped:
        out.append(f"--cpu-offload-gb {options.cpu_offload_gb:g} is more than the {format_bytes(off.eligible)} of "
                   f"decoder layers on each GPU: vLLM offloads all {off.layers_total} and ignores the rest (the "
                   "value is GiB per GPU, not for the whole model)")
    return tuple(out)


def _notes(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> tuple[str, ...]:
    # the release whose rules apply is in the plan's header and engine_version (not repeated as a warning)
    notes = tuple(f"model: {a}" for a in model.assumptions)
    notes += lora_notes(model, options, rules)
    from tpkit.engines.vllm.towers import tower_not_built

    tower = tower_not_built(model, release=rules.release, language_model_only=bool(options.language_model_only),
                            limits=parse_mm_limits(options.limit_mm_per_prompt, rules.release))
    if tower:
        notes += (f"weights: vision tower not loaded: {tower}",)
    if model.is_multimodal and options.language_model_only:
        return notes + ("multimodal: --language-model-only sets every modality to 0, so vLLM runs no encoder "
                        "profile (config/multimodal.py)",)
    if not model.is_multimodal or options.skip_mm_profiling:
        return notes
    why = encoder_not_modelled(model, release=rules.release, engine=rules.engine)
    limits = parse_mm_limits(options.limit_mm_per_prompt, rules.release)
    if all_limits_zero(model, limits, rules.release):
        return notes + ("multimodal: --limit-mm-per-prompt sets every modality to 0, so vLLM runs no encoder "
                        "profile (engines/vllm/mmlimits.py)",)
    if not why:
        return notes
    from tpkit.engines.cliflags import accepts, first_release

    skip = ("--skip-mm-profiling leaves it out" if accepts("vllm", "--skip-mm-profiling", options.engine_version)
            is not False else f"vLLM {options.engine_version} has no --skip-mm-profiling (first in "
                              f"{first_release('vllm', '--skip-mm-profiling')}) to leave it out")
    return notes + (f"multimodal: vLLM profiles the vision encoder and its cache first; {why}, so that memory is "
                    f"not in the plan and the real KV cache is smaller ({skip})",)


def _newer(options: VllmOptions) -> tuple[str, ...]:
    """A release after the newest one read is planned with the newest rules: say so (as the SGLang plan does)."""
    if not is_newer_than_latest(options.engine_version):
        return ()
    return (f"vLLM {options.engine_version} is newer than the latest examined release {CURRENT}; its rules are "
            "assumed unchanged",)
